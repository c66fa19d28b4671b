// Expression: locale-aware string comparison for `collator`, without ICU.

/// A string comparison with the spec's options. MapCore ships without ICU (it would add ~40 MB
/// to every host process), so collation is a built-in approximation of the Unicode Collation
/// Algorithm for Latin script: letters compare by base letter first, then by accents
/// (`diacritic-sensitive`), then by case (`case-sensitive`, lowercase first). Tailorings:
/// German (`de`) expands ä, ö, ü to ae, oe, ue as ICU's search collation does; Swedish, Finnish,
/// Danish and Norwegian sort å, ä, æ, ö, ø as letters after z. Other scripts compare by code point.
public struct Collator: Sendable, Equatable {
    public let caseSensitive: Bool
    public let diacriticSensitive: Bool
    /// The requested BCP 47 tag, nil for the default locale.
    public let locale: String?

    public init(caseSensitive: Bool, diacriticSensitive: Bool, locale: String?) {
        self.caseSensitive = caseSensitive
        self.diacriticSensitive = diacriticSensitive
        self.locale = locale
    }

    private enum Tailoring { case none, german, nordic }

    private var language: String {
        guard let locale else { return "" }
        return String(locale.lowercased().split(whereSeparator: { $0 == "-" || $0 == "_" }).first ?? "")
    }

    private var tailoring: Tailoring {
        switch language {
        case "de": return .german
        case "sv", "fi", "da", "nb", "nn", "no": return .nordic
        default: return .none
        }
    }

    /// The locale the comparison uses: the requested one when it names a language MapCore knows
    /// how to collate (every Latin-script language compares acceptably with the root order),
    /// otherwise `en`.
    public var resolvedLocale: String {
        guard let locale, !locale.isEmpty else { return "en" }
        let lang = language
        guard (2...3).contains(lang.count), lang.allSatisfy({ $0.isASCII && $0.isLetter }) else { return "en" }
        return locale
    }

    /// Negative, zero or positive, as `Intl.Collator.compare`.
    public func compare(_ lhs: String, _ rhs: String) -> Int {
        let a = keys(lhs), b = keys(rhs)
        if let c = Collator.lexicographic(a.primary, b.primary), c != 0 { return c }
        if diacriticSensitive, let c = Collator.lexicographic(a.secondary, b.secondary), c != 0 { return c }
        if caseSensitive, let c = Collator.lexicographic(a.tertiary, b.tertiary), c != 0 { return c }
        return 0
    }

    private static func lexicographic<T: Comparable>(_ a: [T], _ b: [T]) -> Int? {
        for (x, y) in zip(a, b) where x != y { return x < y ? -1 : 1 }
        return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
    }

    private func keys(_ s: String) -> (primary: [UInt32], secondary: [UInt8], tertiary: [UInt8]) {
        var p: [UInt32] = [], sec: [UInt8] = [], ter: [UInt8] = []
        let tailor = tailoring
        for scalar in s.unicodeScalars {
            let lower = Character(scalar).lowercased()
            let isUpper = lower != String(Character(scalar))
            for l in lower.unicodeScalars {
                if tailor == .nordic, let w = Collator.nordicLetters[l] {
                    p.append(Collator.afterZ + w); sec.append(0); ter.append(isUpper ? 1 : 0)
                    continue
                }
                if let (base, accent) = Collator.decompose[l] {
                    var baseScalars = Array(base.unicodeScalars)
                    if tailor == .german && accent == Collator.diaeresis
                        && "aou".unicodeScalars.contains(baseScalars[0])
                    {
                        baseScalars.append("e")
                    }
                    for (k, b) in baseScalars.enumerated() {
                        p.append(Collator.primaryWeight(b)); sec.append(k == 0 ? accent : 0);
                        ter.append(isUpper ? 1 : 0)
                    }
                    continue
                }
                if (0x300...0x36F).contains(l.value) {  // combining mark: attaches to the previous letter
                    if !sec.isEmpty { sec[sec.count - 1] = UInt8(truncatingIfNeeded: l.value - 0x2FF) }
                    continue
                }
                p.append(Collator.primaryWeight(l)); sec.append(0); ter.append(isUpper ? 1 : 0)
            }
        }
        return (p, sec, ter)
    }

    private static let afterZ: UInt32 = 0x200
    private static let diaeresis: UInt8 = 6

    /// Whitespace and punctuation sort first, then digits, then letters a–z, then everything else
    /// by code point.
    private static func primaryWeight(_ s: Unicode.Scalar) -> UInt32 {
        switch s.value {
        case 0x30...0x39: return 0x100 + s.value
        case 0x61...0x7A: return 0x140 + s.value
        case 0...0x7F: return s.value
        default: return 0x1000 + s.value
        }
    }

    private static let nordicLetters: [Unicode.Scalar: UInt32] = ["å": 1, "ä": 2, "æ": 2, "ö": 3, "ø": 3]

    /// Latin letters with accents → (base letters, accent rank). Ranks follow ICU's secondary
    /// order closely enough for ordering accented forms after the plain letter.
    private static let decompose: [Unicode.Scalar: (String, UInt8)] = {
        var table: [Unicode.Scalar: (String, UInt8)] = [:]
        // accent ranks: 1 acute, 2 grave, 3 breve, 4 circumflex, 5 caron, 6 diaeresis, 7 ring,
        // 8 tilde, 9 macron, 10 cedilla/ogonek, 11 dot, 12 stroke, 13 double acute
        let rows: [(String, [(Character, UInt8)])] = [
            (
                "a",
                [("á", 1), ("à", 2), ("ă", 3), ("â", 4), ("ǎ", 5), ("ä", 6), ("å", 7), ("ã", 8), ("ā", 9), ("ą", 10)]
            ),
            ("c", [("ć", 1), ("ĉ", 4), ("č", 5), ("ċ", 11), ("ç", 10)]),
            ("d", [("ď", 5), ("đ", 12)]),
            (
                "e",
                [("é", 1), ("è", 2), ("ĕ", 3), ("ê", 4), ("ě", 5), ("ë", 6), ("ẽ", 8), ("ē", 9), ("ę", 10), ("ė", 11)]
            ),
            ("g", [("ğ", 3), ("ĝ", 4), ("ġ", 11), ("ģ", 10)]),
            ("h", [("ĥ", 4), ("ħ", 12)]),
            ("i", [("í", 1), ("ì", 2), ("ĭ", 3), ("î", 4), ("ǐ", 5), ("ï", 6), ("ĩ", 8), ("ī", 9), ("į", 10)]),
            ("j", [("ĵ", 4)]), ("k", [("ķ", 10)]),
            ("l", [("ĺ", 1), ("ľ", 5), ("ļ", 10), ("ł", 12)]),
            ("n", [("ń", 1), ("ň", 5), ("ñ", 8), ("ņ", 10)]),
            (
                "o",
                [("ó", 1), ("ò", 2), ("ŏ", 3), ("ô", 4), ("ǒ", 5), ("ö", 6), ("õ", 8), ("ō", 9), ("ø", 12), ("ő", 13)]
            ),
            ("r", [("ŕ", 1), ("ř", 5), ("ŗ", 10)]),
            ("s", [("ś", 1), ("ŝ", 4), ("š", 5), ("ş", 10)]),
            ("t", [("ť", 5), ("ţ", 10), ("ŧ", 12)]),
            (
                "u",
                [
                    ("ú", 1), ("ù", 2), ("ŭ", 3), ("û", 4), ("ǔ", 5), ("ü", 6), ("ů", 7), ("ũ", 8), ("ū", 9), ("ų", 10),
                    ("ű", 13),
                ]
            ),
            ("w", [("ŵ", 4)]), ("y", [("ý", 1), ("ŷ", 4), ("ÿ", 6)]),
            ("z", [("ź", 1), ("ž", 5), ("ż", 11)]),
        ]
        for (base, accented) in rows {
            for (c, rank) in accented { if let s = c.unicodeScalars.first { table[s] = (base, rank) } }
        }
        table["ß"] = ("ss", 0)
        table["æ"] = ("ae", 0)
        table["œ"] = ("oe", 0)
        return table
    }()
}
