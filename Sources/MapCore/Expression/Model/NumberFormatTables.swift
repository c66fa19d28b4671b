// Expression: the tables of `number-format` (NumberFormatData.swift, generated from node's Intl)
// read once into lookups, and the locale matching Intl.NumberFormat does over them.

/// The plural categories of CLDR.
enum PluralCategory: Int, Sendable {
    case zero, one, two, few, many, other
}

/// CLDR's plural operands of a formatted number as ICU computes them (doubles): n the value, i
/// its integer digits modulo 10^18, v the number of fraction digits shown, f those digits as a
/// number (read while it stays under 10^18), t the same without trailing zeros. The compact
/// exponent e is always 0 here.
struct PluralOperands {
    var n = 0.0, i = 0.0, v = 0.0, f = 0.0, t = 0.0

    /// A relation `operand [% mod] = lo..hi` as ICU tests it: only integral values are in a
    /// range, the modulo is C's fmod (mod 0: none).
    static func holds(_ value: Double, _ mod: Double, _ lo: Double, _ hi: Double) -> Bool {
        guard value == value.rounded(.down) else { return false }
        let x = mod > 0 ? value.truncatingRemainder(dividingBy: mod) : value
        return x >= lo && x <= hi
    }
}

/// The number symbols of a locale in a numbering system: separators, grouping and patterns
/// (`#` stands for the number, `¤` for the currency symbol; negative patterns hold the minus
/// sign and its bidi marks).
struct NumberSymbols: Sendable {
    struct Shape: Sendable {
        var decimal: String, group: String
        /// Digits in the first group and in the others (0: no grouping), and how many digits
        /// must stand before the first separator for the number to be grouped at all.
        var primary: Int, secondary: Int, minGrouping: Int
    }
    var system: String
    var decimal: Shape, currency: Shape, percent: Shape
    var decimalPositive: String, decimalNegative: String
    var currencyPositive: String, currencyNegative: String
    var percentPositive: String, percentNegative: String
    var nan: String, infinity: String

    /// The minus sign: what the decimal negative pattern holds before the number.
    var minus: String {
        var s = decimalNegative.unicodeScalars
        if s.last == "#" { s.removeLast() }
        return String(s)
    }
}

/// The generated data, parsed. Locales are records of items (`sym`, `plural`, `cs:USD`,
/// `u:day`, ...) that override their parent's, as the generator wrote them; `item` walks the
/// chain.
struct NumberFormatTables: Sendable {
    struct Locale: Sendable {
        var tag: String
        var parent: Int?
        var items: [String: String] = [:]
    }

    private(set) var digits: [String: [String]] = [:]
    /// Numbering systems whose digits are not decimal digits (no currency spacing next to them).
    private(set) var nonDecimalSystems: Set<String> = []
    /// Characters at the ends of currency symbols that are symbols or spaces (no currency
    /// spacing next to them).
    private(set) var symbolEdges: Set<Unicode.Scalar> = []
    private(set) var currencyDigits: [String: Int] = [:]
    private(set) var symbolSets: [NumberSymbols] = []
    private(set) var units: Set<String> = []
    private(set) var defaultSymbols: [String: String] = [:]
    private(set) var languageAliases: [String: String] = [:]
    private(set) var regionAliases: [String: String] = [:]
    private(set) var locales: [Locale] = []
    /// Lowercased tag to locale.
    private(set) var index: [String: Int] = [:]

    static let shared = NumberFormatTables(NumberFormatData.text)

    /// The numbering systems with symbols of their own in a locale (others use latn's).
    static let ownSymbolSystems: Set<String> = ["latn", "arab", "arabext"]

    init(_ text: String) {
        var current: Int?
        for line in text.split(separator: "\n") {
            let f = NumberFormatTables.fields(line)
            guard let kind = f.first else { continue }
            func pairs(_ body: (String, String) -> Void) {
                var k = 1
                while k + 1 < f.count {
                    body(f[k], f[k + 1])
                    k += 2
                }
            }
            func rest(from k: Int) -> String { k < f.count ? f[k...].joined(separator: "|") : "" }
            func set(_ key: String, _ value: String) {
                guard let current, locales.indices.contains(current) else { return }
                locales[current].items[key] = value
            }
            switch kind {
            case "N":
                guard f.count >= 3 else { continue }
                let d = f[2].unicodeScalars.map { String($0) }
                if d.count == 10 { digits[f[1]] = d }
                if f.count > 3 && f[3] == "-" { nonDecimalSystems.insert(f[1]) }
            case "E":
                if f.count > 1 { symbolEdges = Set(f[1].unicodeScalars) }
            case "K":
                for entry in f.dropFirst() {
                    let code = String(entry.prefix(3))
                    if let d = Int(entry.dropFirst(3)) { currencyDigits[code] = d }
                }
            case "Y":
                if let s = NumberFormatTables.symbols(f) { symbolSets.append(s) }
            case "U":
                units = Set(f.dropFirst())
            case "$":
                pairs { defaultSymbols[$0] = $1 }
            case "A":
                pairs { languageAliases[$0] = $1 }
            case "G":
                pairs { regionAliases[$0] = $1 }
            case "L":
                guard f.count >= 2 else { continue }
                let parent = f.count > 2 && !f[2].isEmpty ? index[f[2].lowercased()] : nil
                index[f[1].lowercased()] = locales.count
                current = locales.count
                locales.append(Locale(tag: f[1], parent: parent))
            case "c":
                pairs { set("cs:" + $0, $1) }
            case "s":
                if f.count > 1 { set(f.count > 2 ? "sym:" + f[2] : "sym", f[1]) }
            case "r":
                if f.count > 1 { set("plural", f[1]) }
            case "P":
                set("per", rest(from: 1))
            case "p", "u", "d":
                guard f.count > 1 else { continue }
                let prefix = kind == "p" ? "p:" : kind == "u" ? "u:" : "cd:"
                set(prefix + f[1], rest(from: 2))
            default:
                continue
            }
        }
    }

    /// The fields of a record: split at '|' by scalar, so a field starting with a combining
    /// mark stays apart.
    private static func fields(_ line: Substring) -> [String] {
        var out: [String] = []
        var field = String.UnicodeScalarView()
        for s in line.unicodeScalars {
            if s == "|" {
                out.append(String(field))
                field = String.UnicodeScalarView()
            } else {
                field.append(s)
            }
        }
        out.append(String(field))
        return out
    }

    private static func symbols(_ f: [String]) -> NumberSymbols? {
        guard f.count >= 25 else { return nil }
        func shape(_ k: Int) -> NumberSymbols.Shape? {
            guard let p = Int(f[k + 2]), let s = Int(f[k + 3]), let m = Int(f[k + 4]), p >= 0, s >= 0, m >= 0 else {
                return nil
            }
            return .init(decimal: f[k], group: f[k + 1], primary: p, secondary: max(s, 1), minGrouping: m)
        }
        guard let decimal = shape(2), let currency = shape(7), let percent = shape(12) else { return nil }
        return NumberSymbols(
            system: f[1], decimal: decimal, currency: currency, percent: percent, decimalPositive: f[17],
            decimalNegative: f[18], currencyPositive: f[19], currencyNegative: f[20], percentPositive: f[21],
            percentNegative: f[22], nan: f[23], infinity: f[24])
    }

    /// An item of a locale, from the locale or the nearest ancestor that has it.
    func item(_ locale: Int, _ key: String) -> String? {
        var next: Int? = locale
        var depth = 0
        while let k = next, locales.indices.contains(k), depth < 64 {
            if let v = locales[k].items[key] { return v }
            next = locales[k].parent
            depth += 1
        }
        return nil
    }

    /// A symbol set an item names.
    func symbols(_ locale: Int, _ key: String) -> NumberSymbols? {
        guard let id = item(locale, key).flatMap({ Int($0) }), symbolSets.indices.contains(id) else { return nil }
        return symbolSets[id]
    }

    /// The locale and numbering system Intl.NumberFormat uses for a tag. A tag that is not a
    /// structurally valid BCP 47 tag is V8's RangeError, with its two messages: one when the
    /// tag does not even start with a language identifier (V8's first test), the other when
    /// the rest fails. Canonicalized (case, UTS 35 language and region aliases), then looked up
    /// by dropping subtags from the end (`de-CH-1996` → `de-CH`), unknown languages taking the
    /// default locale, `en`. The system is the `-u-nu-` keyword's when it names one with digits.
    func resolve(_ tag: String?) throws(EvaluationError) -> (locale: Int, system: String?) {
        let fallback = index["en"] ?? 0
        guard let tag else { return (fallback, nil) }
        guard LanguageTag.startsWithLanguageID(tag) else {
            throw EvaluationError("Incorrect locale information provided")
        }
        guard var parsed = LanguageTag(tag) else {
            var lower = String.UnicodeScalarView()
            for s in tag.unicodeScalars {
                lower.append(s.value >= 65 && s.value <= 90 ? Unicode.Scalar(UInt8(s.value + 32)) : s)
            }
            throw EvaluationError("Invalid language tag: \(String(lower))")
        }
        if let alias = languageAliases[parsed.language] {
            let parts = alias.split(separator: "-").map(String.init)
            parsed.language = parts.first ?? parsed.language
            for p in parts.dropFirst() {
                if p.count == 4 {
                    if parsed.script == nil { parsed.script = p.lowercased() }
                } else if parsed.region == nil {
                    parsed.region = p.lowercased()
                }
            }
        }
        if let region = parsed.region, let alias = regionAliases[region.uppercased()] {
            parsed.region = alias.lowercased()
        }
        var subtags = [parsed.language]
        if let s = parsed.script { subtags.append(s) }
        if let r = parsed.region { subtags.append(r) }
        subtags += parsed.variants
        var locale = fallback
        while !subtags.isEmpty {
            if let k = index[subtags.joined(separator: "-")] {
                locale = k
                break
            }
            subtags.removeLast()
        }
        let system = parsed.numberingSystem.flatMap { digits[$0] == nil ? nil : $0 }
        return (locale, system)
    }
}

/// A Unicode BCP 47 locale identifier (UTS 35 `unicode_locale_id`, which ECMA-402 requires),
/// lowercased: `_` separators, extlang, grandfathered tags, repeated variants or extension
/// singletons make it invalid.
struct LanguageTag {
    var language: String
    var script: String?
    var region: String?
    var variants: [String] = []
    /// The type of the first `nu` keyword of the `-u-` extension.
    var numberingSystem: String?

    /// V8's first test of a tag (JSLocale::StartsWithUnicodeLanguageId): its subtags, split as
    /// C++'s getline splits (a trailing '-' makes no empty subtag), start with a language,
    /// optional script and region, and variants up to an extension singleton.
    static func startsWithLanguageID(_ text: String) -> Bool {
        var tokens = text.lowercased().split(separator: "-", omittingEmptySubsequences: false).map(String.init)
        if tokens.last == "" { tokens.removeLast() }
        func all(_ s: String, _ test: (UInt8) -> Bool) -> Bool { s.utf8.allSatisfy(test) }
        func alpha(_ c: UInt8) -> Bool { c >= 97 && c <= 122 }
        func digit(_ c: UInt8) -> Bool { c >= 48 && c <= 57 }
        func alnum(_ c: UInt8) -> Bool { alpha(c) || digit(c) }
        func isSingleton(_ s: String) -> Bool { s.utf8.count == 1 && all(s, alnum) }
        guard let first = tokens.first else { return false }
        let count = first.utf8.count
        guard ((2...3).contains(count) || (5...8).contains(count)) && all(first, alpha) else { return false }
        var k = 1
        if k < tokens.count && isSingleton(tokens[k]) { return true }
        if k < tokens.count && tokens[k].utf8.count == 4 && all(tokens[k], alpha) {
            k += 1
            if k == tokens.count { return true }
        }
        if k < tokens.count
            && ((tokens[k].utf8.count == 2 && all(tokens[k], alpha))
                || (tokens[k].utf8.count == 3 && all(tokens[k], digit)))
        {
            k += 1
        }
        while k < tokens.count {
            let t = tokens[k]
            if isSingleton(t) { return true }
            let variant =
                ((5...8).contains(t.utf8.count) && all(t, alnum))
                || (t.utf8.count == 4 && t.utf8.first.map(digit) == true && all(t, alnum))
            if !variant { return false }
            k += 1
        }
        return true
    }

    init?(_ text: String) {
        var subtags: [String] = []
        var current = String.UnicodeScalarView()
        for s in text.unicodeScalars {
            guard s.isASCII else { return nil }
            if s == "-" {
                guard !current.isEmpty else { return nil }
                subtags.append(String(current).lowercased())
                current = String.UnicodeScalarView()
            } else {
                current.append(s)
            }
        }
        guard !current.isEmpty else { return nil }
        subtags.append(String(current).lowercased())

        func all(_ s: String, _ test: (UInt8) -> Bool) -> Bool { s.utf8.allSatisfy(test) }
        func alpha(_ c: UInt8) -> Bool { c >= 97 && c <= 122 }
        func digit(_ c: UInt8) -> Bool { c >= 48 && c <= 57 }
        func alnum(_ c: UInt8) -> Bool { alpha(c) || digit(c) }
        func isLanguage(_ s: String) -> Bool { (2...3).contains(s.utf8.count) || (5...8).contains(s.utf8.count) }
        func isAlnum(_ s: String, _ lengths: ClosedRange<Int>) -> Bool {
            lengths.contains(s.utf8.count) && all(s, alnum)
        }
        func isVariant(_ s: String) -> Bool {
            isAlnum(s, 5...8) || (s.utf8.count == 4 && s.utf8.first.map(digit) == true && all(s, alnum))
        }
        func isScript(_ s: String) -> Bool { s.utf8.count == 4 && all(s, alpha) }
        func isRegion(_ s: String) -> Bool {
            (s.utf8.count == 2 && all(s, alpha)) || (s.utf8.count == 3 && all(s, digit))
        }

        let n = subtags.count
        let first = subtags[0]
        guard isLanguage(first), all(first, alpha) else { return nil }
        language = first
        var k = 1
        // Script, region and variants; a `t` extension's tlang has the same shape.
        func languageID() -> (script: String?, region: String?, variants: [String])? {
            var script: String?, region: String?, variants: [String] = []
            if k < n && isScript(subtags[k]) {
                script = subtags[k]
                k += 1
            }
            if k < n && isRegion(subtags[k]) {
                region = subtags[k]
                k += 1
            }
            while k < n && isVariant(subtags[k]) {
                if variants.contains(subtags[k]) { return nil }
                variants.append(subtags[k])
                k += 1
            }
            return (script, region, variants)
        }
        guard let id = languageID() else { return nil }
        script = id.script
        region = id.region
        variants = id.variants
        var singletons: Set<String> = []
        var sawNu = false
        while k < n {
            let singleton = subtags[k]
            guard singleton.utf8.count == 1, all(singleton, alnum) else { return nil }
            k += 1
            if singleton == "x" {
                guard k < n else { return nil }
                while k < n {
                    guard isAlnum(subtags[k], 1...8) else { return nil }
                    k += 1
                }
                break
            }
            guard singletons.insert(singleton).inserted else { return nil }
            let start = k
            switch singleton {
            case "u":
                while k < n && isAlnum(subtags[k], 3...8) { k += 1 }  // attributes
                while k < n && subtags[k].utf8.count == 2 && subtags[k].utf8.last.map(alpha) == true
                    && all(subtags[k], alnum)
                {
                    let key = subtags[k]
                    k += 1
                    var types: [String] = []
                    while k < n && isAlnum(subtags[k], 3...8) {
                        types.append(subtags[k])
                        k += 1
                    }
                    if key == "nu" && !sawNu {
                        sawNu = true
                        numberingSystem = types.isEmpty ? "true" : types.joined(separator: "-")
                    }
                    // en-US-POSIX is en-US-u-va-posix: both find the POSIX locale.
                    if key == "va" && types == ["posix"] && !variants.contains("posix") { variants.append("posix") }
                }
            case "t":
                if k < n && isLanguage(subtags[k]) && all(subtags[k], alpha) {
                    k += 1
                    guard languageID() != nil else { return nil }
                }
                while k < n && subtags[k].utf8.count == 2 && subtags[k].utf8.first.map(alpha) == true
                    && subtags[k].utf8.last.map(digit) == true
                {
                    k += 1
                    guard k < n && isAlnum(subtags[k], 3...8) else { return nil }
                    while k < n && isAlnum(subtags[k], 3...8) { k += 1 }
                }
            default:
                while k < n && isAlnum(subtags[k], 2...8) { k += 1 }
            }
            guard k > start else { return nil }
        }
    }
}
