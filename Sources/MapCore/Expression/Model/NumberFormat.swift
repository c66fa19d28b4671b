// Expression: the formatter of `number-format`, ECMA-402 Intl.NumberFormat as MapLibre GL JS
// calls it, without ICU.

/// `new Intl.NumberFormat(locale ?? [], {style, currency, unit, minimumFractionDigits,
/// maximumFractionDigits}).format(value)`, GL JS's call, over the tables generated from node's
/// Intl (NumberFormatData.swift). The initializer raises what the constructor throws, in its
/// order (locale, currency, unit, fraction digits), with V8's messages; formatting cannot fail.
///
/// Digits are JavaScript's shortest round-trip digits of the value (as ICU takes them), rounded
/// half away from zero to the maximum fraction digits, so large values print every integer
/// digit (1e21 is "1,000,000,000,000,000,000,000") and -0.0001 prints "-0". The default
/// locale is `en` (GL JS uses the runtime's).
struct NumberFormat {
    private enum Style {
        case decimal
        case currency(code: String)
        case percent
        case unit(String, compound: (String, String)?)
    }

    private let tables: NumberFormatTables
    private let locale: Int
    private let symbols: NumberSymbols
    private let digits: [String]
    /// Whether the digits are decimal digits, next to which an alphabetic currency symbol gets
    /// a no-break space (ICU's currency spacing).
    private let spacesCurrency: Bool
    private let style: Style
    private let minFraction: Int, maxFraction: Int

    init(
        locale tag: String?, currency: String?, unit: String?, minFraction: Double?, maxFraction: Double?
    )
        throws(EvaluationError)
    {
        let tables = NumberFormatTables.shared
        self.tables = tables
        let resolved = try tables.resolve(tag)
        locale = resolved.locale
        var currencyDigits: Int?
        if let currency {
            guard currency.utf8.count == 3,
                currency.utf8.allSatisfy({ ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) })
            else { throw EvaluationError("Invalid currency code : \(currency)") }
            let code = currency.uppercased()
            style = .currency(code: code)
            currencyDigits = tables.currencyDigits[code] ?? 2
        } else if let unit {
            guard let parsed = NumberFormat.unit(unit, tables.units) else {
                throw EvaluationError("Invalid unit argument for Intl.NumberFormat() '\(unit)'")
            }
            // ICU formats percent-per-anything as a percentage.
            style = parsed.0 == "percent" ? .percent : .unit(unit, compound: parsed.1.map { (parsed.0, $0) })
        } else {
            style = .decimal
        }
        // SetNumberFormatDigitOptions: an option outside 0...20 (or NaN) is a RangeError, a
        // given one is floored, a missing one follows the other.
        let minDefault = currencyDigits ?? 0, maxDefault = currencyDigits ?? 3
        let givenMin = try NumberFormat.digitOption(minFraction, "minimumFractionDigits")
        let givenMax = try NumberFormat.digitOption(maxFraction, "maximumFractionDigits")
        switch (givenMin, givenMax) {
        case (nil, nil): (self.minFraction, self.maxFraction) = (minDefault, maxDefault)
        case (nil, let mx?): (self.minFraction, self.maxFraction) = (min(minDefault, mx), mx)
        case (let mn?, nil): (self.minFraction, self.maxFraction) = (mn, max(maxDefault, mn))
        case (let mn?, let mx?):
            guard mn <= mx else { throw EvaluationError("maximumFractionDigits value is out of range.") }
            (self.minFraction, self.maxFraction) = (mn, mx)
        }

        let english = NumberSymbols.Shape(decimal: ".", group: ",", primary: 3, secondary: 3, minGrouping: 1)
        let fallback = NumberSymbols(
            system: "latn", decimal: english, currency: english, percent: english,
            decimalPositive: "#", decimalNegative: "-#", currencyPositive: "¤#", currencyNegative: "-¤#",
            percentPositive: "#%", percentNegative: "-#%", nan: "NaN", infinity: "∞")
        var symbols = tables.symbols(locale, "sym") ?? fallback
        var system = symbols.system
        if let requested = resolved.system, requested != symbols.system {
            let key = NumberFormatTables.ownSymbolSystems.contains(requested) ? "sym:" + requested : "sym:other"
            symbols = tables.symbols(locale, key) ?? symbols
            system = requested
        }
        self.symbols = symbols
        digits = tables.digits[system] ?? ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"]
        spacesCurrency = !tables.nonDecimalSystems.contains(system)
    }

    /// A fraction digit option as ECMA-402's DefaultNumberOption reads it (0...20, floored).
    private static func digitOption(_ value: Double?, _ name: String) throws(EvaluationError) -> Int? {
        guard let value else { return nil }
        guard !value.isNaN, value >= 0, value <= 20 else { throw EvaluationError("\(name) value is out of range.") }
        return Int(value.rounded(.down))
    }

    /// A unit Intl accepts: a sanctioned simple unit, or two of them as "X-per-Y".
    private static func unit(_ unit: String, _ units: Set<String>) -> (String, String?)? {
        if units.contains(unit) { return (unit, nil) }
        guard let (x, y) = splitFirst(unit, "-per-"), units.contains(x), units.contains(y) else { return nil }
        return (x, y)
    }

    func format(_ value: Double) -> String {
        let negative = value.sign == .minus && !value.isNaN
        var body: String
        var plain: (integer: [UInt8], fraction: [UInt8])?
        if value.isNaN {
            body = symbols.nan
        } else if value.isInfinite {
            body = symbols.infinity
        } else {
            let rounded = NumberFormat.round(abs(value), minFraction: minFraction, maxFraction: maxFraction)
            plain = rounded
            body = layout(rounded.integer, rounded.fraction)
        }
        switch style {
        case .decimal:
            return NumberFormat.fill(negative ? symbols.decimalNegative : symbols.decimalPositive, body)
        case .percent:
            return NumberFormat.fill(negative ? symbols.percentNegative : symbols.percentPositive, body)
        case .currency(let code):
            let symbol = tables.item(locale, "cs:" + code) ?? tables.defaultSymbols[code] ?? code
            var positive = symbols.currencyPositive, negativePattern = symbols.currencyNegative
            if let own = tables.item(locale, "cd:" + code), !own.isEmpty {
                // The currency's own patterns and separators: lay the number out again.
                let f = own.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
                if f.count == 4 {
                    positive = f[0]
                    negativePattern = NumberFormat.replacingFirst(f[1], "~", with: symbols.minus)
                    if let plain { body = layout(plain.integer, plain.fraction, decimal: f[2], group: f[3]) }
                }
            }
            return NumberFormat.fill(
                negative ? negativePattern : positive, body, symbol: symbol, spaced: plain != nil && spacesCurrency,
                edges: tables.symbolEdges)
        case .unit(let unit, let compound):
            let number = NumberFormat.fill(negative ? symbols.decimalNegative : symbols.decimalPositive, body)
            let category = plain.map { pluralCategory($0.integer, $0.fraction) } ?? .other
            return NumberFormat.replacingFirst(unitPattern(unit, compound, category), "{0}", with: number)
        }
    }

    // MARK: Digits

    /// The shortest round-trip decimal digits of a finite positive value (Swift prints them, as
    /// JavaScript and ICU take them): value = 0.d₁d₂… × 10^point, no leading or trailing zeros.
    static func shortestDigits(_ value: Double) -> (digits: [UInt8], point: Int) {
        var digits: [UInt8] = []
        var point = 0
        var seenPoint = false
        var exponentText = ""
        var inExponent = false
        for c in value.description.utf8 {
            if inExponent {
                exponentText.append(Character(Unicode.Scalar(c)))
            } else if c >= 48 && c <= 57 {
                digits.append(c - 48)
                if !seenPoint { point += 1 }
            } else if c == UInt8(ascii: ".") {
                seenPoint = true
            } else if c == UInt8(ascii: "e") || c == UInt8(ascii: "E") {
                inExponent = true
            }
        }
        point += Int(exponentText) ?? 0
        var leading = 0
        while leading < digits.count && digits[leading] == 0 { leading += 1 }
        digits.removeFirst(leading)
        point -= leading
        while digits.last == 0 { digits.removeLast() }
        return digits.isEmpty ? ([], 0) : (digits, point)
    }

    /// Integer and fraction digits of a finite positive value rounded half away from zero to
    /// `maxFraction` digits, the fraction padded with zeros to `minFraction`.
    static func round(_ value: Double, minFraction: Int, maxFraction: Int) -> (integer: [UInt8], fraction: [UInt8]) {
        var (digits, point) = shortestDigits(value)
        let keep = point + maxFraction
        if digits.count > keep {
            if keep < 0 {
                digits = []
            } else {
                let up = digits[keep] >= 5
                digits.removeLast(digits.count - keep)
                if up {
                    var k = digits.count - 1
                    while k >= 0 && digits[k] == 9 {
                        digits[k] = 0
                        k -= 1
                    }
                    if k < 0 {
                        digits.insert(1, at: 0)
                        point += 1
                    } else {
                        digits[k] += 1
                    }
                }
                while digits.last == 0 { digits.removeLast() }
            }
        }
        var integer: [UInt8] = [0]
        var fraction: [UInt8] = []
        if !digits.isEmpty {
            if point > 0 {
                integer = Array(digits.prefix(point))
                if point > integer.count { integer += [UInt8](repeating: 0, count: point - integer.count) }
                fraction = Array(digits.dropFirst(point))
            } else {
                fraction = [UInt8](repeating: 0, count: -point) + digits
            }
        }
        if fraction.count < minFraction { fraction += [UInt8](repeating: 0, count: minFraction - fraction.count) }
        return (integer, fraction)
    }

    /// The digits in the locale's numbering system with its separators and grouping.
    private func layout(
        _ integer: [UInt8], _ fraction: [UInt8], decimal: String? = nil, group: String? = nil
    )
        -> String
    {
        let shape: NumberSymbols.Shape
        switch style {
        case .currency: shape = symbols.currency
        case .percent: shape = symbols.percent
        case .decimal, .unit: shape = symbols.decimal
        }
        let groupText = group ?? shape.group
        let n = integer.count
        let grouping = shape.primary > 0 && n - shape.primary >= shape.minGrouping
        var out = ""
        for (k, d) in integer.enumerated() {
            let remaining = n - k
            if grouping && k > 0
                && (remaining == shape.primary
                    || (remaining > shape.primary && (remaining - shape.primary) % shape.secondary == 0))
            {
                out += groupText
            }
            out += digit(d)
        }
        if !fraction.isEmpty {
            out += decimal ?? shape.decimal
            for d in fraction { out += digit(d) }
        }
        return out
    }

    private func digit(_ d: UInt8) -> String {
        let k = Int(d)
        return digits.indices.contains(k) ? digits[k] : String(k)
    }

    // MARK: Patterns

    /// A pattern with its number and, for currencies, its symbol; a no-break space goes between
    /// an alphabetic symbol and digits (ICU's currency spacing).
    private static func fill(
        _ pattern: String, _ number: String, symbol: String? = nil, spaced: Bool = false,
        edges: Set<Unicode.Scalar> = []
    ) -> String {
        let scalars = Array(pattern.unicodeScalars)
        var out = String.UnicodeScalarView()
        var placedNumber = false
        for (k, s) in scalars.enumerated() {
            if s == "#" && !placedNumber {
                out.append(contentsOf: number.unicodeScalars)
                placedNumber = true
            } else if s == "¤", let symbol {
                let afterNumber = k > 0 && scalars[k - 1] == "#"
                let beforeNumber = k + 1 < scalars.count && scalars[k + 1] == "#"
                if spaced && afterNumber, let first = symbol.unicodeScalars.first, !edges.contains(first) {
                    out.append("\u{A0}")
                }
                out.append(contentsOf: symbol.unicodeScalars)
                if spaced && beforeNumber, let last = symbol.unicodeScalars.last, !edges.contains(last) {
                    out.append("\u{A0}")
                }
            } else {
                out.append(s)
            }
        }
        return String(out)
    }

    /// The text before and after the first occurrence of `separator`, compared by scalar.
    static func splitFirst(_ text: String, _ separator: String) -> (String, String)? {
        let t = Array(text.unicodeScalars), s = Array(separator.unicodeScalars)
        guard !s.isEmpty, t.count >= s.count else { return nil }
        for k in 0...(t.count - s.count) where Array(t[k..<(k + s.count)]) == s {
            var before = String.UnicodeScalarView(), after = String.UnicodeScalarView()
            before.append(contentsOf: t[..<k])
            after.append(contentsOf: t[(k + s.count)...])
            return (String(before), String(after))
        }
        return nil
    }

    static func replacingFirst(_ text: String, _ target: String, with value: String) -> String {
        guard let (before, after) = splitFirst(text, target) else { return text }
        return before + value + after
    }

    // MARK: Units

    /// The pattern of a unit for a plural category: the locale's own, or for "X-per-Y" X's
    /// inside Y's per-pattern (Y's own, or the locale's compound pattern with Y's name).
    private func unitPattern(_ unit: String, _ compound: (String, String)?, _ category: PluralCategory) -> String {
        if let own = tables.item(locale, "u:" + unit), !own.isEmpty {
            return NumberFormat.pick(own, category)
        }
        guard let (x, y) = compound else { return "{0}" }
        var per = tables.item(locale, "p:" + y) ?? ""
        if per.isEmpty {
            let name = NumberFormat.unitName(tables.item(locale, "u:" + y) ?? "")
            per = NumberFormat.replacingFirst(tables.item(locale, "per") ?? "{0}/{1}", "{1}", with: name)
        }
        let inner = NumberFormat.pick(tables.item(locale, "u:" + x) ?? "{0}", category)
        return NumberFormat.replacingFirst(per, "{0}", with: inner)
    }

    /// The pattern of a category from "5{0} days|1{0} day" (category number, then pattern);
    /// "other" when the category has none.
    private static func pick(_ patterns: String, _ category: PluralCategory) -> String {
        var other = "{0}"
        for part in patterns.split(separator: "|", omittingEmptySubsequences: false) {
            guard let first = part.unicodeScalars.first, let c = Int(String(first)) else { continue }
            let pattern = String(part.unicodeScalars.dropFirst())
            if c == category.rawValue { return pattern }
            if c == PluralCategory.other.rawValue { other = pattern }
        }
        return other
    }

    /// A unit's name in compound patterns: its singular pattern without the number, trimmed
    /// as JavaScript's trim does.
    private static func unitName(_ patterns: String) -> String {
        let singular = pick(patterns, .one)
        var s = Array(replacingFirst(singular, "{0}", with: "").unicodeScalars)
        let space: Set<UInt32> = [
            0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF,
        ]
        func isSpace(_ c: Unicode.Scalar) -> Bool { space.contains(c.value) || (0x2000...0x200A).contains(c.value) }
        while let c = s.last, isSpace(c) { s.removeLast() }
        while let c = s.first, isSpace(c) { s.removeFirst() }
        var out = String.UnicodeScalarView()
        out.append(contentsOf: s)
        return String(out)
    }

    /// The plural category of the formatted digits under the locale's CLDR rules.
    private func pluralCategory(_ integer: [UInt8], _ fraction: [UInt8]) -> PluralCategory {
        var o = PluralOperands()
        var text = ""
        for d in integer { text.append(Character(Unicode.Scalar(d + 48))) }
        if !fraction.isEmpty {
            text.append(".")
            for d in fraction { text.append(Character(Unicode.Scalar(d + 48))) }
        }
        o.n = Double(text) ?? 0
        var i: UInt64 = 0
        for d in integer.suffix(18) { i = i * 10 + UInt64(d) }
        o.i = Double(i)
        o.v = Double(fraction.count)
        var f: UInt64 = 0
        for d in fraction {
            if f > 1_000_000_000_000_000_000 { break }
            f = f * 10 + UInt64(d)
        }
        var t = f
        while t > 0 && t % 10 == 0 { t /= 10 }
        o.f = Double(f)
        o.t = Double(t)
        let rule = tables.item(locale, "plural").flatMap { Int($0) } ?? 0
        return NumberFormatData.pluralCategory(rule: rule, o)
    }
}
