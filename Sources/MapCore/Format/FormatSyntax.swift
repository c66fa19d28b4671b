// Format strings: the NSPredicate/NSExpression syntax tree and its tokenizer. The tree mirrors
// Foundation's (constant, key path, variable, function, aggregate, conditional; comparison and
// compound predicates) so conversions follow the SDKs' own rules node by node.

/// An NSExpression-like node.
public indirect enum FormatExpression: Equatable, Sendable {
    /// A scalar: null, a boolean, a number or a string.
    case constant(JSONValue)
    /// `{a, b, c}`, or an array passed as a `%@` argument.
    case aggregate([FormatExpression])
    /// A JSON object passed as a `%@` argument (stops, curve parameters, a `let` context, text
    /// attributes, collator options). Its values are kept as JSON: where they are read as
    /// expressions (stop outputs, `let` values), they use the JSON expression language.
    case dictionary(JSONObject)
    /// A GeoJSON object passed as a `%@` argument (`SELF IN %@`, `mgl_distanceFrom:(%@)`).
    case shape(JSONValue)
    /// `floorCount`, `burger.cheese`, `%K`: one property name per component.
    case keyPath([String])
    /// `$name`.
    case variable(String)
    /// `SELF`.
    case evaluatedObject
    /// `FIRST`, `LAST` or `SIZE` inside `array[…]`.
    case indexKeyword(String)
    /// A function with its canonical selector (`add:to:`, `mgl_join:`, `MLN_MATCH`); `operand` is
    /// the target of `FUNCTION(target, 'selector', …)` and of `CAST`, nil for plain calls.
    case function(String, operand: FormatExpression?, arguments: [FormatExpression])
    /// `TERNARY(predicate, a, b)`.
    case conditional(FormatPredicate, FormatExpression, FormatExpression)
    /// A predicate used as a value (conditions of `MLN_IF`, booleans inside functions).
    case predicate(FormatPredicate)
}

/// An NSPredicate-like node.
public indirect enum FormatPredicate: Equatable, Sendable {
    case constant(Bool)
    case comparison(
        FormatExpression, FormatComparison, FormatExpression, modifier: FormatModifier, options: FormatOptions)
    case and([FormatPredicate])
    case or([FormatPredicate])
    case not(FormatPredicate)
}

/// The comparison operators style expressions can express.
public enum FormatComparison: String, Sendable {
    case equal = "=="
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
    case between = "BETWEEN"
    case `in` = "IN"
    case contains = "CONTAINS"
}

/// `ANY`/`SOME` and `ALL` (`NONE` is read as `NOT ANY`, as Foundation does).
public enum FormatModifier: Sendable { case direct, any, all }

/// `[c]`, `[d]`, `[cd]`: compared through a collator.
public struct FormatOptions: Equatable, Sendable {
    public var caseInsensitive = false
    public var diacriticInsensitive = false
    public var isEmpty: Bool { !caseInsensitive && !diacriticInsensitive }
    public init(caseInsensitive: Bool = false, diacriticInsensitive: Bool = false) {
        self.caseInsensitive = caseInsensitive
        self.diacriticInsensitive = diacriticInsensitive
    }
}

/// Which grammar a format string is read with.
public enum FormatKind: Sendable {
    case predicate
    case expression
}

// MARK: - Tokens

enum FormatToken: Equatable {
    case number(JSONValue)
    case string(String)
    /// An identifier or a selector name such as `modulus:by:`.
    case identifier(String)
    /// `#name`: a key path component that would otherwise be a reserved word.
    case escapedIdentifier(String)
    case variable(String)
    case valuePlaceholder
    case keyPlaceholder
    case symbol(String)
    case end
}

struct PositionedToken {
    var token: FormatToken
    var offset: Int
}

/// Words Foundation reserves (case-insensitive); as key paths they need a `#` prefix.
let formatReservedWords: Set<String> = [
    "AND", "OR", "IN", "NOT", "ALL", "ANY", "SOME", "NONE", "LIKE", "CASEINSENSITIVE", "CI", "MATCHES", "CONTAINS",
    "BEGINSWITH", "ENDSWITH", "BETWEEN", "NULL", "NIL", "SELF", "TRUE", "YES", "FALSE", "NO", "FIRST", "LAST", "SIZE",
    "ANYKEY", "SUBQUERY", "FETCH", "CAST", "TRUEPREDICATE", "FALSEPREDICATE", "UTI-CONFORMS-TO", "UTI-EQUALS",
]

/// Splits format-string bytes into tokens, each with its byte offset for error messages.
struct FormatLexer {
    let bytes: [UInt8]
    var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    static func error(_ message: String, at offset: Int, in bytes: [UInt8], code: ErrorCode = .parse) -> MapCoreError {
        var line = 1, lineStart = 0
        for i in 0..<min(offset, bytes.count) where bytes[i] == 0x0A {
            line += 1
            lineStart = i + 1
        }
        return MapCoreError(
            code, "\(message) (at offset \(offset))",
            location: SourceLocation(offset: offset, line: line, column: offset - lineStart + 1, path: ""))
    }

    private func fail(_ message: String, at offset: Int) -> MapCoreError { Self.error(message, at: offset, in: bytes) }

    private func byte(_ i: Int) -> UInt8? { i < bytes.count ? bytes[i] : nil }

    private static func isIdentifierStart(_ c: UInt8) -> Bool {
        (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x5F
    }

    private static func isIdentifierPart(_ c: UInt8) -> Bool { isIdentifierStart(c) || (c >= 0x30 && c <= 0x39) }

    static func isIdentifier(_ s: String) -> Bool {
        let u = Array(s.utf8)
        guard let first = u.first, isIdentifierStart(first) else { return false }
        return u.allSatisfy(isIdentifierPart)
    }

    mutating func tokenize() throws(MapCoreError) -> [PositionedToken] {
        if let bad = bytes.withUnsafeBufferPointer({ firstInvalidUTF8($0) }) {
            throw fail("The format string is not valid UTF-8", at: bad)
        }
        var tokens: [PositionedToken] = []
        while true {
            let t = try next()
            tokens.append(t)
            if t.token == .end { return tokens }
        }
    }

    private mutating func next() throws(MapCoreError) -> PositionedToken {
        while let c = byte(position), c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D { position += 1 }
        let start = position
        guard let c = byte(position) else { return PositionedToken(token: .end, offset: start) }
        if c >= 0x30 && c <= 0x39 || (c == 0x2E && (byte(position + 1).map { $0 >= 0x30 && $0 <= 0x39 } ?? false)) {
            return PositionedToken(token: .number(try number()), offset: start)
        }
        if c == 0x27 || c == 0x22 { return PositionedToken(token: .string(try string(quote: c)), offset: start) }
        if Self.isIdentifierStart(c) { return PositionedToken(token: .identifier(selector()), offset: start) }
        if c == 0x24 || c == 0x23 {  // $ or #
            position += 1
            guard let d = byte(position), Self.isIdentifierStart(d) else {
                throw fail(c == 0x24 ? "Expected a variable name after '$'" : "Expected a key after '#'", at: start)
            }
            let name = identifier()
            return PositionedToken(token: c == 0x24 ? .variable(name) : .escapedIdentifier(name), offset: start)
        }
        if c == 0x25 {  // %
            let d = byte(position + 1)
            position += 2
            if d == 0x40 { return PositionedToken(token: .valuePlaceholder, offset: start) }
            if d == 0x4B { return PositionedToken(token: .keyPlaceholder, offset: start) }
            throw fail("Only the %@ and %K placeholders are supported (arguments are JSON values)", at: start)
        }
        for s in ["**", "==", "!=", "<>", ">=", "=>", "<=", "=<", "&&", "||"] where matches(s) {
            position += s.utf8.count
            return PositionedToken(token: .symbol(s), offset: start)
        }
        if let symbol = Self.singleSymbols[c] {
            position += 1
            return PositionedToken(token: .symbol(symbol), offset: start)
        }
        throw fail("Unexpected character '\(Self.display(bytes, from: start))'", at: start)
    }

    private static let singleSymbols: [UInt8: String] = [
        0x28: "(", 0x29: ")", 0x7B: "{", 0x7D: "}", 0x5B: "[", 0x5D: "]", 0x2C: ",", 0x2E: ".", 0x2B: "+", 0x2D: "-",
        0x2A: "*", 0x2F: "/", 0x3D: "=", 0x3C: "<", 0x3E: ">", 0x21: "!",
    ]

    /// The character starting at `offset`, for messages (the bytes are valid UTF-8 here).
    static func display(_ bytes: [UInt8], from offset: Int) -> String {
        var end = offset + 1
        while end < bytes.count && bytes[end] & 0xC0 == 0x80 { end += 1 }
        return String(decoding: bytes[offset..<min(end, bytes.count)], as: UTF8.self)
    }

    private func matches(_ s: String) -> Bool {
        var i = position
        for u in s.utf8 {
            guard byte(i) == u else { return false }
            i += 1
        }
        return true
    }

    private mutating func identifier() -> String {
        let start = position
        while let c = byte(position), Self.isIdentifierPart(c) { position += 1 }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    /// An identifier, extended over `:part:` segments when it is a selector (`modulus:by:`).
    private mutating func selector() -> String {
        var name = identifier()
        while byte(position) == 0x3A {
            name += ":"
            position += 1
            if let c = byte(position), Self.isIdentifierStart(c) { name += identifier() }
        }
        return name
    }

    private mutating func number() throws(MapCoreError) -> JSONValue {
        let start = position
        if byte(position) == 0x30, let x = byte(position + 1), x == 0x78 || x == 0x58 {
            position += 2
            var value: UInt64 = 0
            var digits = 0
            while let c = byte(position), let d = Self.hexValue(c) {
                let (m, o1) = value.multipliedReportingOverflow(by: 16)
                let (s, o2) = m.addingReportingOverflow(UInt64(d))
                guard !o1 && !o2 else { throw fail("Hexadecimal number too large", at: start) }
                value = s
                digits += 1
                position += 1
            }
            guard digits > 0 else { throw fail("Expected hexadecimal digits after 0x", at: start) }
            return value <= UInt64(Int64.max) ? .int(Int64(value)) : .uint(value)
        }
        var isInteger = true
        while let c = byte(position), c >= 0x30 && c <= 0x39 { position += 1 }
        if byte(position) == 0x2E, let d = byte(position + 1), d >= 0x30 && d <= 0x39 {
            isInteger = false
            position += 1
            while let c = byte(position), c >= 0x30 && c <= 0x39 { position += 1 }
        }
        if let e = byte(position), e == 0x65 || e == 0x45 {
            var p = position + 1
            if let s = byte(p), s == 0x2B || s == 0x2D { p += 1 }
            if let d = byte(p), d >= 0x30 && d <= 0x39 {
                isInteger = false
                position = p
                while let c = byte(position), c >= 0x30 && c <= 0x39 { position += 1 }
            }
        }
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        if isInteger {
            if let v = Int64(text) { return .int(v) }
            if let v = UInt64(text) { return .uint(v) }
        }
        guard let d = Double(text), d.isFinite else { throw fail("Number '\(text)' is out of range", at: start) }
        return .double(d)
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: return c - 0x30
        case 0x41...0x46: return c - 0x41 + 10
        case 0x61...0x66: return c - 0x61 + 10
        default: return nil
        }
    }

    private mutating func string(quote: UInt8) throws(MapCoreError) -> String {
        let start = position
        position += 1
        var out: [UInt8] = []
        while true {
            guard let c = byte(position) else { throw fail("Unterminated string", at: start) }
            position += 1
            if c == quote { break }
            guard c == 0x5C else { out.append(c); continue }
            let escapeStart = position - 1
            guard let e = byte(position) else { throw fail("Unterminated string", at: start) }
            position += 1
            switch e {
            case 0x6E: out.append(0x0A)
            case 0x74: out.append(0x09)
            case 0x72: out.append(0x0D)
            case 0x62: out.append(0x08)
            case 0x66: out.append(0x0C)
            case 0x76: out.append(0x0B)
            case 0x61: out.append(0x07)
            case 0x30: out.append(0x00)
            case 0x5C, 0x27, 0x22: out.append(e)
            case 0x75:
                var scalar = try hex(count: 4, escapeStart)
                if (0xD800...0xDBFF).contains(scalar) {
                    guard byte(position) == 0x5C, byte(position + 1) == 0x75 else {
                        throw fail("Unpaired surrogate in \\u escape", at: escapeStart)
                    }
                    position += 2
                    let low = try hex(count: 4, escapeStart)
                    guard (0xDC00...0xDFFF).contains(low) else {
                        throw fail("Unpaired surrogate in \\u escape", at: escapeStart)
                    }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let u = Unicode.Scalar(scalar) else { throw fail("Invalid \\u escape", at: escapeStart) }
                out.append(contentsOf: String(Character(u)).utf8)
            case 0x78:
                let v = try hex(count: 2, escapeStart)
                guard let u = Unicode.Scalar(v) else { throw fail("Invalid \\x escape", at: escapeStart) }
                out.append(contentsOf: String(Character(u)).utf8)
            default:
                throw fail("Unknown escape '\\\(Self.display(bytes, from: position - 1))' in string", at: escapeStart)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private mutating func hex(count: Int, _ escapeStart: Int) throws(MapCoreError) -> UInt32 {
        var v: UInt32 = 0
        for _ in 0..<count {
            guard let c = byte(position), let d = Self.hexValue(c) else {
                throw fail("Invalid hexadecimal escape", at: escapeStart)
            }
            v = v * 16 + UInt32(d)
            position += 1
        }
        return v
    }
}
