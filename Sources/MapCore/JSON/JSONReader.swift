// JSON: a pull reader over UTF-8 bytes. The GeoJSON parser drives it directly, so text is read
// once, straight into the model, with no intermediate DOM.

/// An error found at a byte offset; public entry points turn it into a `MapCoreError` with line,
/// column and JSON path (computed only when an error actually happens).
struct PositionedError: Error {
    var code: ErrorCode
    var message: String
    var offset: Int
}

/// Limits that keep hostile input from exhausting memory or stack.
public struct ParseLimits: Sendable {
    /// Deepest nesting of arrays and objects accepted. The value parser itself is iterative, but
    /// values are later written, compared and freed recursively (measured: about 125 bytes of
    /// stack per level), so the cap keeps the worst case near 64 KB, safe on 128 KB threads.
    public var maxDepth: Int
    public static let defaultMaxDepth = 256
    public static let maxAllowedDepth = 512
    /// GeoJSON read as MapLibre reads it where RFC 7946 is stricter: a polygon ring of 1 to 3
    /// positions, or one whose last position is not its first, is kept as given instead of
    /// refused (MapLibre's GeoJSON sources and tiles carry such rings; its expressions evaluate
    /// them). Off by default: MapCore's own parse is strict.
    public var lenient = false

    public init(maxDepth: Int = ParseLimits.defaultMaxDepth, lenient: Bool = false) {
        self.maxDepth = maxDepth
        self.lenient = lenient
    }

    /// The limits with leniency on (see `lenient`).
    public static let lenientGeoJSON = ParseLimits(lenient: true)
}

struct JSONReader {
    let base: UnsafePointer<UInt8>
    let end: Int
    var pos: Int = 0
    let maxDepth: Int
    private(set) var depth: Int = 0

    init(_ buffer: UnsafeBufferPointer<UInt8>, limits: ParseLimits) {
        // An empty buffer may have a nil base; point at a static byte so reads stay defined.
        base = buffer.baseAddress ?? JSONReader.emptyBase
        end = buffer.baseAddress == nil ? 0 : buffer.count
        maxDepth = limits.maxDepth
    }

    nonisolated(unsafe) private static let emptyBase: UnsafePointer<UInt8> = {
        let p = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
        p.initialize(to: 0)
        return UnsafePointer(p)
    }()

    // MARK: bytes

    /// The byte at `p`, or 0 past the end (0 is never valid outside a string, so it ends every scan).
    @inline(__always) func byte(_ p: Int) -> UInt8 { p < end ? base[p] : 0 }
    @inline(__always) var current: UInt8 { byte(pos) }
    var atEnd: Bool { pos >= end }

    func fail(_ message: String, at offset: Int? = nil, code: ErrorCode = .parse) -> PositionedError {
        PositionedError(code: code, message: message, offset: offset ?? pos)
    }

    @inline(__always) mutating func skipWhitespace() {
        while pos < end {
            let c = base[pos]
            guard c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 else { return }
            pos += 1
        }
    }

    mutating func expect(_ c: UInt8, _ what: StaticString) throws(PositionedError) {
        skipWhitespace()
        guard current == c else { throw unexpected(expecting: "\(what)") }
        pos += 1
    }

    func unexpected(expecting what: String) -> PositionedError {
        if atEnd { return fail("Unexpected end of input: expected \(what).") }
        let c = current
        let shown = c >= 0x20 && c < 0x7F ? "'\(Character(Unicode.Scalar(c)))'" : "byte 0x\(String(c, radix: 16))"
        return fail("Unexpected \(shown): expected \(what).")
    }

    /// After a member or element: consumes ',' and returns true, or consumes `close` and returns false.
    mutating func nextInContainer(close: UInt8) throws(PositionedError) -> Bool {
        skipWhitespace()
        let c = current
        if c == 0x2C { pos += 1; return true }
        if c == close { pos += 1; return false }
        throw unexpected(expecting: close == 0x5D ? "',' or ']'" : "',' or '}'")
    }

    mutating func enterContainer() throws(PositionedError) {
        depth += 1
        if depth > maxDepth {
            throw fail("Nesting deeper than \(maxDepth) levels.", code: .limit)
        }
    }

    mutating func leaveContainer() { depth -= 1 }

    // MARK: strings

    /// Reads a string at the current position (which must be '"').
    mutating func readString() throws(PositionedError) -> String {
        skipWhitespace()
        guard current == 0x22 else { throw unexpected(expecting: "a string") }
        pos += 1
        let start = pos
        var ascii = true
        while pos < end {
            let c = base[pos]
            if c == 0x22 {
                let s = try makeString(start, pos, ascii: ascii)
                pos += 1
                return s
            }
            if c == 0x5C { return try readEscapedString(from: start) }
            if c < 0x20 { throw fail("Control character in string (must be escaped).") }
            if c >= 0x80 { ascii = false }
            pos += 1
        }
        throw fail("Unterminated string.", at: start - 1)
    }

    /// Reads past a string whose value is not needed (it is checked, not decoded).
    mutating func skipStringValue() throws(PositionedError) {
        skipWhitespace()
        guard current == 0x22 else { throw unexpected(expecting: "a string") }
        _ = try readKeyRange()
    }

    /// Reads an object key and compares it to known names without allocating when it has no
    /// escapes. Returns the raw byte range; `keyEquals` compares it.
    mutating func readKeyRange() throws(PositionedError) -> (start: Int, count: Int, escaped: Bool) {
        skipWhitespace()
        guard current == 0x22 else { throw unexpected(expecting: "a string key") }
        let quote = pos
        pos += 1
        let start = pos
        while pos < end {
            let c = base[pos]
            if c == 0x22 { pos += 1; return (start, pos - 1 - start, false) }
            if c == 0x5C {
                pos = quote
                _ = try readString()
                return (start, pos - 1 - start, true)
            }
            pos += 1
        }
        throw fail("Unterminated string.", at: quote)
    }

    /// Reads an object key. Keys repeat from one object to the next (every feature carries the
    /// same property names), so the key last read at each member position is remembered with its
    /// raw bytes: a repeat costs a 16-byte compare instead of validating and building a String.
    mutating func readMemberKey(index: Int) throws(PositionedError) -> String {
        skipWhitespace()
        guard index < keyMemo.count, current == 0x22 else { return try readString() }
        let start = pos + 1
        // A hit needs no scan: the remembered bytes hold no quote, backslash or control byte,
        // so equal bytes followed by '"' are that same key.
        let memo = keyMemo[index]
        if memo.count >= 0, byte(start + memo.count) == 0x22, packedKey(start, memo.count) == memo.bytes {
            pos = start + memo.count + 1
            return memo.key
        }
        var p = start
        while p < end {
            let c = base[p]
            if c == 0x22 || c == 0x5C || c < 0x20 { break }
            p += 1
        }
        let count = p - start
        guard p < end, base[p] == 0x22, count <= 16 else { return try readString() }
        let key = try readString()
        keyMemo[index] = KeyMemo(count: count, bytes: packedKey(start, count), key: key)
        return key
    }

    /// The first `count` (at most 16) bytes from `start`, zero-padded, as two words.
    @inline(__always) private func packedKey(_ start: Int, _ count: Int) -> (UInt64, UInt64) {
        let raw = UnsafeRawPointer(base + start)
        guard start + 16 <= end else {
            var words: (UInt64, UInt64) = (0, 0)
            withUnsafeMutableBytes(of: &words) {
                $0.copyMemory(from: UnsafeRawBufferPointer(start: raw, count: min(count, end - start)))
            }
            return (UInt64(littleEndian: words.0), UInt64(littleEndian: words.1))
        }
        var lo = UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self))
        var hi = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        if count < 8 {
            lo &= (1 &<< UInt64(8 * count)) &- 1
            hi = 0
        } else if count < 16 {
            hi &= (1 &<< UInt64(8 * (count - 8))) &- 1
        }
        return (lo, hi)
    }

    /// A key as read, with its raw bytes zero-padded to 16 (a byte-for-byte repeat is the same key).
    struct KeyMemo {
        var count = -1
        var bytes: (UInt64, UInt64) = (0, 0)
        var key = ""
    }

    private var keyMemo = [KeyMemo](repeating: KeyMemo(), count: 16)

    func keyEquals(_ key: (start: Int, count: Int, escaped: Bool), _ name: StaticString) -> Bool {
        guard !key.escaped, key.count == name.utf8CodeUnitCount else { return false }
        let n = name.utf8Start
        for i in 0..<key.count where base[key.start + i] != n[i] { return false }
        return true
    }

    /// Decodes the key read by `readKeyRange` into a String (validating it).
    func keyString(_ key: (start: Int, count: Int, escaped: Bool)) throws(PositionedError) -> String {
        var r = self
        r.pos = key.start - 1
        return try r.readString()
    }

    private func makeString(_ start: Int, _ stop: Int, ascii: Bool) throws(PositionedError) -> String {
        let bytes = UnsafeBufferPointer(start: base + start, count: stop - start)
        if !ascii, let bad = firstInvalidUTF8(bytes) {
            throw fail("Invalid UTF-8 in string.", at: start + bad)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private mutating func readEscapedString(from start: Int) throws(PositionedError) -> String {
        var out = [UInt8]()
        out.reserveCapacity(pos - start + 16)
        out.append(contentsOf: UnsafeBufferPointer(start: base + start, count: pos - start))
        while pos < end {
            let c = base[pos]
            if c == 0x22 {
                pos += 1
                return try out.withUnsafeBufferPointer { (b) throws(PositionedError) -> String in
                    if let bad = firstInvalidUTF8(b) {
                        throw fail("Invalid UTF-8 in string.", at: start + min(bad, pos - start))
                    }
                    return String(decoding: b, as: UTF8.self)
                }
            }
            if c < 0x20 { throw fail("Control character in string (must be escaped).") }
            if c != 0x5C { out.append(c); pos += 1; continue }
            let escapeStart = pos
            pos += 1
            switch byte(pos) {
            case 0x22: out.append(0x22)
            case 0x5C: out.append(0x5C)
            case 0x2F: out.append(0x2F)
            case 0x62: out.append(0x08)
            case 0x66: out.append(0x0C)
            case 0x6E: out.append(0x0A)
            case 0x72: out.append(0x0D)
            case 0x74: out.append(0x09)
            case 0x75:
                pos += 1
                var scalar = try readHex4()
                if (0xD800...0xDBFF).contains(scalar) {
                    guard byte(pos) == 0x5C, byte(pos + 1) == 0x75 else {
                        throw fail("Lone surrogate in \\u escape.", at: escapeStart)
                    }
                    pos += 2
                    let low = try readHex4()
                    guard (0xDC00...0xDFFF).contains(low) else {
                        throw fail("Lone surrogate in \\u escape.", at: escapeStart)
                    }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    throw fail("Lone surrogate in \\u escape.", at: escapeStart)
                }
                guard let u = Unicode.Scalar(scalar) else { throw fail("Invalid \\u escape.", at: escapeStart) }
                out.append(contentsOf: String(Character(u)).utf8)
                continue
            default:
                throw fail("Invalid escape sequence in string.", at: escapeStart)
            }
            pos += 1
        }
        throw fail("Unterminated string.", at: start - 1)
    }

    private mutating func readHex4() throws(PositionedError) -> UInt32 {
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = byte(pos)
            let d: UInt8
            switch c {
            case 0x30...0x39: d = c - 0x30
            case 0x41...0x46: d = c - 0x41 + 10
            case 0x61...0x66: d = c - 0x61 + 10
            default: throw fail("Invalid \\u escape: expected 4 hex digits.")
            }
            v = v << 4 | UInt32(d)
            pos += 1
        }
        return v
    }

    // MARK: numbers

    /// Reads a JSON number: `.int`/`.uint` for integers that fit 64 bits, `.double` otherwise.
    mutating func readNumber() throws(PositionedError) -> JSONValue {
        try value(of: scanNumber())
    }

    /// A number as written: ±mantissa × 10^exp10 (`truncated`: digits beyond 64 bits were dropped).
    struct NumberText {
        var mantissa: UInt64
        var exp10: Int
        var negative: Bool
        var isInteger: Bool
        var truncated: Bool
        var start: Int

        /// The places k and integer m of a number equal to m / 10^k with k ≤ 7 and 0 < |m| < 2^53:
        /// its double is then exactly `Double(m) / 10^k` (Clinger's fast path).
        var shortDecimal: (m: Int64, places: Int)? {
            guard !isInteger, !truncated, mantissa != 0, mantissa < (1 << 53), exp10 <= 0, exp10 >= -7 else {
                return nil
            }
            return (negative ? -Int64(mantissa) : Int64(mantissa), -exp10)
        }
    }

    @inline(__always) mutating func scanNumber() throws(PositionedError) -> NumberText {
        let start = pos
        var p = pos
        let negative = byte(p) == 0x2D
        if negative { p += 1 }
        var mantissa: UInt64 = 0
        var exp10 = 0
        var truncated = false

        let firstDigit = byte(p) &- 0x30
        guard firstDigit < 10 else {
            throw fail(
                negative ? "Invalid number: expected a digit after '-'." : "Unexpected character: expected a value.",
                at: p)
        }
        if firstDigit == 0 {
            p += 1
            if byte(p) &- 0x30 < 10 { throw fail("Invalid number: leading zeros are not allowed.", at: p) }
        } else {
            // 19 digits always fit in 64 bits: only longer runs need the overflow checks.
            let digitsStart = p
            var d = firstDigit
            while d < 10 && p - digitsStart < 19 {
                mantissa = mantissa &* 10 &+ UInt64(d)
                p += 1
                d = byte(p) &- 0x30
            }
            while d < 10 {
                if let m = appendDigit(mantissa, d) { mantissa = m } else { truncated = true; exp10 += 1 }
                p += 1
                d = byte(p) &- 0x30
            }
        }
        var isInteger = true
        if byte(p) == 0x2E {
            isInteger = false
            p += 1
            guard byte(p) &- 0x30 < 10 else { throw fail("Invalid number: expected a digit after '.'.", at: p) }
            while true {
                let d = byte(p) &- 0x30
                guard d < 10 else { break }
                if mantissa < 1_000_000_000_000_000_000 {  // below 10^18: times 10 plus a digit fits
                    mantissa = mantissa &* 10 &+ UInt64(d)
                    exp10 -= 1
                } else if let m = appendDigit(mantissa, d) {
                    mantissa = m
                    exp10 -= 1
                } else {
                    truncated = true
                }
                p += 1
            }
        }
        let e = byte(p)
        if e == 0x65 || e == 0x45 {
            isInteger = false
            p += 1
            var expNegative = false
            if byte(p) == 0x2D { expNegative = true; p += 1 } else if byte(p) == 0x2B { p += 1 }
            guard byte(p) &- 0x30 < 10 else { throw fail("Invalid number: expected a digit in the exponent.", at: p) }
            var exponent = 0
            while true {
                let d = byte(p) &- 0x30
                guard d < 10 else { break }
                if exponent < 1_000_000 { exponent = exponent * 10 + Int(d) }
                p += 1
            }
            exp10 += expNegative ? -exponent : exponent
        }
        pos = p
        return NumberText(
            mantissa: mantissa, exp10: exp10, negative: negative, isInteger: isInteger,
            truncated: truncated, start: start)
    }

    /// The value of the number just scanned (`pos` at its end).
    @inline(__always) mutating func value(of n: NumberText) throws(PositionedError) -> JSONValue {
        if n.isInteger && !n.truncated {
            if !n.negative {
                return n.mantissa <= UInt64(Int64.max) ? .int(Int64(n.mantissa)) : .uint(n.mantissa)
            }
            if n.mantissa <= UInt64(Int64.max) { return .int(-Int64(n.mantissa)) }
            if n.mantissa == UInt64(Int64.max) + 1 { return .int(Int64.min) }
        }
        return .double(
            try finishDouble(
                mantissa: n.mantissa, exp10: n.exp10, negative: n.negative,
                exact: !n.truncated, start: n.start))
    }

    /// `m * 10 + d`, or nil when that leaves 64 bits.
    @inline(__always) private func appendDigit(_ m: UInt64, _ d: UInt8) -> UInt64? {
        let (times10, o1) = m.multipliedReportingOverflow(by: 10)
        let (sum, o2) = times10.addingReportingOverflow(UInt64(d))
        return o1 || o2 ? nil : sum
    }

    /// Reads a number as a Double (coordinates, bbox), whatever its JSON form.
    @inline(__always) mutating func readDouble() throws(PositionedError) -> Double {
        switch try readNumber() {
        case .int(let v): return Double(v)
        case .uint(let v): return Double(v)
        case .double(let v): return v
        default: return 0  // readNumber returns numbers only
        }
    }

    private func finishDouble(
        mantissa: UInt64, exp10: Int, negative: Bool, exact: Bool, start: Int
    ) throws(PositionedError) -> Double {
        // Clinger's fast path: both operands exact in a Double, so one rounding gives the
        // correctly rounded result. Everything else goes to the C library's strtod (locale-free).
        var value: Double
        if exact && mantissa == 0 {
            value = 0
        } else if exact && mantissa < (1 << 53) && exp10 >= -22 && exp10 <= 22 {
            value = Double(mantissa)
            value = exp10 < 0 ? value / exactPowerOfTen(-exp10) : value * exactPowerOfTen(exp10)
        } else {
            let text = String(decoding: UnsafeBufferPointer(start: base + start, count: pos - start), as: UTF8.self)
            guard let parsed = Double(text) else { throw fail("Invalid number.", at: start) }
            guard parsed.isFinite else { throw fail("Number out of range: \(text) does not fit a double.", at: start) }
            return parsed
        }
        return negative ? -value : value
    }

    // MARK: skipping and generic values

    /// Skips one value without building it (used to look ahead for a member such as "type").
    /// Validation is left to the real parse that follows.
    mutating func skipValue() throws(PositionedError) {
        var level = 0
        repeat {
            skipWhitespace()
            switch current {
            case 0x22:
                try skipString()
            case 0x7B, 0x5B:
                level += 1
                if depth + level > maxDepth { throw fail("Nesting deeper than \(maxDepth) levels.", code: .limit) }
                pos += 1
            case 0x7D, 0x5D:
                level -= 1
                pos += 1
            case 0x2C, 0x3A:
                guard level > 0 else { throw unexpected(expecting: "a value") }
                pos += 1
            case 0:
                throw unexpected(expecting: "a value")
            default:
                let start = pos
                while pos < end {
                    let c = base[pos]
                    if c == 0x2C || c == 0x5D || c == 0x7D || c == 0x3A || c == 0x20 || c == 0x0A || c == 0x0D
                        || c == 0x09
                    {
                        break
                    }
                    pos += 1
                }
                if pos == start { throw unexpected(expecting: "a value") }
            }
        } while level > 0
    }

    private mutating func skipString() throws(PositionedError) {
        let quote = pos
        pos += 1
        while pos < end {
            let c = base[pos]
            if c == 0x22 { pos += 1; return }
            pos += c == 0x5C ? 2 : 1
        }
        throw fail("Unterminated string.", at: quote)
    }

    /// Reads `true`, `false` or `null`.
    mutating func readLiteral() throws(PositionedError) -> JSONValue {
        func matches(_ word: StaticString) -> Bool {
            let n = word.utf8CodeUnitCount
            guard pos + n <= end else { return false }
            let w = word.utf8Start
            for i in 0..<n where base[pos + i] != w[i] { return false }
            return true
        }
        if matches("true") { pos += 4; return .bool(true) }
        if matches("false") { pos += 5; return .bool(false) }
        if matches("null") { pos += 4; return .null }
        throw unexpected(expecting: "a value")
    }

    /// Reads any JSON value. Iterative, so nesting depth costs heap, not stack. Members and
    /// elements gather on shared scratch stacks, and each container is built once, at its
    /// exact size, when it closes.
    mutating func readValue() throws(PositionedError) -> JSONValue {
        // The stack of open containers lives in the scratch too, so a value costs no allocation
        // beyond its own containers; it is empty again whenever this returns normally.
        var open = scratch.open
        scratch.open = []
        defer {
            open.removeAll(keepingCapacity: true)
            scratch.open = open
        }
        while true {
            skipWhitespace()
            var value: JSONValue
            switch current {
            case 0x7B:
                try enterContainer()
                pos += 1
                skipWhitespace()
                if current == 0x7D {
                    pos += 1
                    leaveContainer()
                    value = .object(JSONObject())
                } else {
                    open.append((true, scratch.members.count))
                    scratch.pendingKeys.append(try readMemberKey(index: 0))
                    try expect(0x3A, "':'")
                    continue
                }
            case 0x5B:
                try enterContainer()
                pos += 1
                skipWhitespace()
                if current == 0x5D {
                    pos += 1
                    leaveContainer()
                    value = .array([])
                } else {
                    open.append((false, scratch.items.count))
                    continue
                }
            case 0x22:
                value = .string(try readString())
            case 0x2D, 0x30...0x39:
                value = try readNumber()
            default:
                value = try readLiteral()
            }
            // Attach the finished value to its parents, closing every container that ends here.
            while let top = open.last {
                if top.isObject {
                    scratch.addMember(key: scratch.pendingKeys.removeLast(), value: value, objectStart: top.start)
                } else {
                    scratch.items.append(value)
                }
                if try nextInContainer(close: top.isObject ? 0x7D : 0x5D) {
                    if top.isObject {
                        scratch.pendingKeys.append(try readMemberKey(index: scratch.members.count - top.start))
                        try expect(0x3A, "':'")
                    }
                    break
                }
                open.removeLast()
                leaveContainer()
                value =
                    top.isObject
                    ? .object(scratch.takeObject(from: top.start)) : .array(scratch.takeItems(from: top.start))
            }
            if open.isEmpty { return value }
        }
    }

    /// Reusable storage for containers being read (kept across values of one document).
    var scratch = Scratch()

    // MARK: packed objects

    /// The keys of the last object packed, shared by the next ones of the same shape.
    private var packedKeys: [String] = []
    private var packedBytes: [UInt8] = []

    /// Reads an object whose members are all scalars straight into a packed `JSONObject`
    /// (feature properties: a million small objects of a few shapes), without making a value
    /// or a String per member. Returns nil, at the position it started from, for any other
    /// object (a nested value, a repeated key, more than 64 members): the caller then reads it
    /// with `readValue`, which also reports its errors.
    mutating func readPackedObject() throws(PositionedError) -> JSONObject? {
        skipWhitespace()
        let begin = pos
        guard current == 0x7B else { return nil }
        try enterContainer()
        defer { leaveContainer() }
        pos += 1
        skipWhitespace()
        if current == 0x7D {
            pos += 1
            return JSONObject()
        }
        var bytes = packedBytes
        packedBytes = []
        bytes.removeAll(keepingCapacity: true)
        defer { packedBytes = bytes }
        // Members are checked against the last shape's keys while they match; from the first
        // that does not, the keys are gathered anew.
        let shape = packedKeys
        var matched = 0
        var fresh: [String] = []
        var index = 0
        repeat {
            let key = try readMemberKey(index: index)
            if fresh.isEmpty && matched == index && index < shape.count && shape[index] == key {
                matched += 1
            } else {
                if fresh.isEmpty { fresh = Array(shape[0..<matched]) }
                guard fresh.count < 64, !fresh.contains(key) else { pos = begin; return nil }
                fresh.append(key)
            }
            index += 1
            try expect(0x3A, "':'")
            skipWhitespace()
            switch current {
            case 0x22:
                guard try appendPackedString(to: &bytes) else { pos = begin; return nil }
            case 0x2D, 0x30...0x39:
                let number = try scanNumber()
                if let decimal = number.shortDecimal {
                    JSONObject.Packed.append(decimal: decimal.m, places: decimal.places, to: &bytes)
                } else {
                    switch try value(of: number) {
                    case .int(let v): JSONObject.Packed.append(int: v, to: &bytes)
                    case .uint(let v): JSONObject.Packed.append(uint: v, to: &bytes)
                    case .double(let v): JSONObject.Packed.append(double: v, to: &bytes)
                    default: pos = begin; return nil
                    }
                }
            case 0x74, 0x66, 0x6E:
                switch try readLiteral() {
                case .bool(let b): JSONObject.Packed.append(bool: b, to: &bytes)
                default: JSONObject.Packed.appendNull(to: &bytes)
                }
            default:
                pos = begin
                return nil
            }
        } while try nextInContainer(close: 0x7D)
        let keys: [String]
        if fresh.isEmpty && matched == shape.count {
            keys = shape
        } else {
            keys = fresh.isEmpty ? Array(shape[0..<matched]) : fresh
            packedKeys = keys
        }
        return JSONObject(packedKeys: keys, values: bytes)
    }

    /// Appends the string at the current position (a '"') to a packed object's values: its
    /// bytes as they are when it has no escapes (checked as `readString` checks them), else
    /// decoded. False if it is too long to pack.
    private mutating func appendPackedString(to bytes: inout [UInt8]) throws(PositionedError) -> Bool {
        let quote = pos
        var p = pos + 1
        var ascii = true
        while p < end {
            let c = base[p]
            if c == 0x22 || c == 0x5C { break }
            if c < 0x20 { pos = p; throw fail("Control character in string (must be escaped).") }
            if c >= 0x80 { ascii = false }
            p += 1
        }
        guard p < end else { throw fail("Unterminated string.", at: quote) }
        if base[p] == 0x5C {
            var s = try readString()
            return s.withUTF8 { JSONObject.Packed.append(string: $0, to: &bytes) }
        }
        let raw = UnsafeBufferPointer(start: base + quote + 1, count: p - quote - 1)
        if !ascii, let bad = firstInvalidUTF8(raw) { throw fail("Invalid UTF-8 in string.", at: quote + 1 + bad) }
        pos = p + 1
        return JSONObject.Packed.append(string: raw, to: &bytes)
    }

    struct Scratch {
        var members: [JSONObject.Member] = []
        var items: [JSONValue] = []
        var pendingKeys: [String] = []
        var open: [(isObject: Bool, start: Int)] = []

        /// Key → member position for objects grown past linear-scan size, by object start.
        var largeObjectIndex: [Int: [String: Int]] = [:]

        /// Adds a member to the innermost object; a duplicate key replaces the earlier value.
        mutating func addMember(key: String, value: JSONValue, objectStart: Int) {
            let count = members.count - objectStart
            if count < 32 {
                var i = members.count - 1
                while i >= objectStart {
                    if members[i].key == key { members[i].value = value; return }
                    i -= 1
                }
            } else {
                if largeObjectIndex[objectStart] == nil {
                    var index = [String: Int]()
                    for i in objectStart..<members.count { index[members[i].key] = i }
                    largeObjectIndex[objectStart] = index
                }
                if let i = largeObjectIndex[objectStart]?[key] { members[i].value = value; return }
                largeObjectIndex[objectStart]?[key] = members.count
            }
            members.append((key, value))
        }

        mutating func takeObject(from start: Int) -> JSONObject {
            if !largeObjectIndex.isEmpty { largeObjectIndex[start] = nil }
            return JSONObject(uniqueMembers: Self.take(&members, from: start))
        }

        mutating func takeItems(from start: Int) -> [JSONValue] { Self.take(&items, from: start) }

        /// The elements from `start` on, removed from `stack`. An outermost container (start 0,
        /// e.g. a feature's properties) takes the storage itself instead of copying and then
        /// destroying each element; the stack starts again with room for as many.
        private static func take<T>(_ stack: inout [T], from start: Int) -> [T] {
            guard start > 0 else {
                let all = stack
                stack = []
                stack.reserveCapacity(all.count)
                return all
            }
            let tail = Array(stack[start...])
            stack.removeSubrange(start...)
            return tail
        }
    }
}

@inline(__always) func exactPowerOfTen(_ e: Int) -> Double {
    switch e {
    case 0: return 1e0
    case 1: return 1e1
    case 2: return 1e2
    case 3: return 1e3
    case 4: return 1e4
    case 5: return 1e5
    case 6: return 1e6
    case 7: return 1e7
    case 8: return 1e8
    case 9: return 1e9
    case 10: return 1e10
    case 11: return 1e11
    case 12: return 1e12
    case 13: return 1e13
    case 14: return 1e14
    case 15: return 1e15
    case 16: return 1e16
    case 17: return 1e17
    case 18: return 1e18
    case 19: return 1e19
    case 20: return 1e20
    case 21: return 1e21
    default: return 1e22
    }
}

/// Offset of the first byte that breaks UTF-8 (overlong forms, surrogates and values past
/// U+10FFFF included), or nil when the bytes are valid.
func firstInvalidUTF8(_ b: UnsafeBufferPointer<UInt8>) -> Int? {
    var i = 0
    let n = b.count
    while i < n {
        let c = b[i]
        if c < 0x80 { i += 1; continue }
        var need: Int
        var lo: UInt8 = 0x80, hi: UInt8 = 0xBF
        switch c {
        case 0xC2...0xDF: need = 1
        case 0xE0: need = 2; lo = 0xA0
        case 0xE1...0xEC, 0xEE, 0xEF: need = 2
        case 0xED: need = 2; hi = 0x9F
        case 0xF0: need = 3; lo = 0x90
        case 0xF1...0xF3: need = 3
        case 0xF4: need = 3; hi = 0x8F
        default: return i
        }
        guard i + need < n else { return i }
        let second = b[i + 1]
        guard second >= lo && second <= hi else { return i }
        var k = 2
        while k <= need {
            guard b[i + k] & 0xC0 == 0x80 else { return i }
            k += 1
        }
        i += need + 1
    }
    return nil
}
