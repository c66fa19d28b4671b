// JSON: the value model used for feature properties, foreign members and expression literals.

/// A JSON value. Integers keep their exact 64-bit value (signed, or unsigned above `Int64.max`),
/// as the Mapbox SDK maps them to Int64/UInt64; every other number is a finite `Double`.
public enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case uint(UInt64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// The numeric value of any number case, for arithmetic that does not care about exactness.
    public var doubleValue: Double? {
        switch self {
        case .int(let v): return Double(v)
        case .uint(let v): return Double(v)
        case .double(let v): return v
        default: return nil
        }
    }

    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    public var objectValue: JSONObject? {
        if case .object(let o) = self { return o }
        return nil
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// Numbers compare by value across cases (`1` equals `1.0`), as JSON itself has one number type.
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.bool(a), .bool(b)): return a == b
        case let (.string(a), .string(b)): return a == b
        case let (.array(a), .array(b)): return a == b
        case let (.object(a), .object(b)): return a == b
        case let (.int(a), .int(b)): return a == b
        case let (.uint(a), .uint(b)): return a == b
        case (.int, .uint), (.uint, .int): return false  // .uint only holds values above Int64.max
        default:
            guard let a = lhs.doubleValue, let b = rhs.doubleValue else { return false }
            return a == b
        }
    }
}

extension JSONValue {
    /// A coordinate as JSON: always a double in the model, so an integral value is written as an
    /// integer (10, not 10.0), as JavaScript writes it.
    @inline(__always) public static func coordinate(_ d: Double) -> JSONValue {
        d.isFinite && d == d.rounded(.towardZero) && abs(d) < 1e15 ? .int(Int64(d)) : .double(d)
    }
}

/// A JSON object that keeps its members in document order (serialization is stable and matches
/// the input) while looking keys up by name. Duplicate keys in parsed text: the last one wins,
/// as in JavaScript.
///
/// Feature properties parsed from GeoJSON whose values are all scalars are stored packed
/// (`JSONObject.Packed`): the keys shared by every object of the same shape, the values encoded
/// in one small heap block. A million features' properties then take 64–80 bytes each instead of
/// 240 (five members). Changing a packed object unpacks it first.
public struct JSONObject: Equatable, Sendable, Sequence {
    public typealias Member = (key: String, value: JSONValue)

    private enum Storage: @unchecked Sendable {
        case list([Member])
        case packed(Packed)
    }
    private var storage: Storage

    public init() { storage = .list([]) }

    public init(_ members: [Member]) {
        var list: [Member] = []
        list.reserveCapacity(members.count)
        storage = .list(list)
        for m in members { self[m.key] = m.value }
    }

    /// The members in document order (decoded, for a packed object).
    public var members: [Member] {
        switch storage {
        case .list(let list): return list
        case .packed(let packed): return packed.members
        }
    }

    public var count: Int {
        switch storage {
        case .list(let list): return list.count
        case .packed(let packed): return packed.header.count
        }
    }
    public var isEmpty: Bool { count == 0 }
    public var keys: [String] {
        switch storage {
        case .list(let list): return list.map(\.key)
        case .packed(let packed): return packed.header
        }
    }

    public func makeIterator() -> IndexingIterator<[Member]> { members.makeIterator() }

    /// Each member's position, key and value in document order, without making the members
    /// array (a packed object decodes its values as it goes).
    func forEachMember(_ body: (Int, String, JSONValue) -> Void) {
        switch storage {
        case .list(let list):
            for (i, m) in list.enumerated() { body(i, m.key, m.value) }
        case .packed(let packed):
            let keys = packed.header
            packed.forEachValue { k, value in
                body(k, keys[k], value); return true
            }
        }
    }

    /// Whether the members are held packed (for tests and memory accounting).
    var isPacked: Bool { if case .packed = storage { return true } else { return false } }

    /// The packed members, if the object holds them packed (writers read them in place).
    var packed: Packed? { if case .packed(let p) = storage { return p } else { return nil } }

    public subscript(key: String) -> JSONValue? {
        get {
            switch storage {
            case .list(let members):
                // Compared in place: iterating `members` would copy (retain) every key and value.
                return members.withUnsafeBufferPointer { list in
                    for i in list.indices where list[i].key == key { return list[i].value }
                    return nil
                }
            case .packed(let packed):
                return packed.value(forKey: key)
            }
        }
        set {
            var list: [Member]
            switch storage {
            case .list(let members): list = members
            case .packed(let packed): list = packed.members
            }
            storage = .list([])  // so `list` is the only reference and changes in place
            if let i = list.firstIndex(where: { $0.key == key }) {
                if let newValue { list[i].value = newValue } else { list.remove(at: i) }
            } else if let newValue {
                list.append((key, newValue))
            }
            storage = .list(list)
        }
    }

    /// Members whose keys are known to be distinct (the parser has checked).
    init(uniqueMembers: [Member]) { storage = .list(uniqueMembers) }

    /// A packed object: distinct `keys` and exactly one value per key, encoded by `Packed`'s
    /// `append` functions (the decoder trusts that count; `JSONReader.readPackedObject` is the
    /// one maker).
    init(packedKeys keys: [String], values: [UInt8]) {
        storage = .packed(Packed.make(keys: keys, values: values))
    }

    /// Scalar values, each a tag byte and its payload, in one block after the keys. Immutable
    /// once made. The encoding aims at the 64-byte malloc block for typical properties (the
    /// object's own header is 24 bytes), so payloads are as short as their values allow:
    ///
    /// | tag | value | payload |
    /// |---|---|---|
    /// | 0x00, 0x01, 0x02 | null, false, true | none |
    /// | 0x03 | uint (above Int64.max) | 8 bytes |
    /// | 0x04 | double | its 8 bytes |
    /// | 0x05 | string of 128 bytes or more | UInt32 length, UTF-8 |
    /// | 0x08 + n − 1 | int | n = 1…8 bytes, two's complement, sign-extended |
    /// | 0x40 + 8k + n − 1 | double written with k ≤ 7 places, m / 10^k | m in n = 1…7 bytes, as an int |
    /// | 0x80 + length | string of up to 127 bytes | UTF-8 |
    ///
    /// All multi-byte payloads are little-endian.
    final class Packed: ManagedBuffer<[String], UInt8>, @unchecked Sendable {
        private static let nullTag: UInt8 = 0x00, falseTag: UInt8 = 0x01, trueTag: UInt8 = 0x02
        private static let uintTag: UInt8 = 0x03, doubleTag: UInt8 = 0x04, longStringTag: UInt8 = 0x05
        private static let intTags: ClosedRange<UInt8> = 0x08...0x0F
        private static let decimalTags: ClosedRange<UInt8> = 0x40...0x7F
        private static let shortStringTag: UInt8 = 0x80

        static func make(keys: [String], values: [UInt8]) -> Packed {
            let packed = unsafeDowncast(Packed.create(minimumCapacity: values.count) { _ in keys }, to: Packed.self)
            packed.withUnsafeMutablePointerToElements { target in
                values.withUnsafeBufferPointer { source in
                    if let base = source.baseAddress { target.initialize(from: base, count: source.count) }
                }
            }
            return packed
        }

        // The encoding, value by value (`JSONReader.readPackedObject`).
        static func appendNull(to bytes: inout [UInt8]) { bytes.append(nullTag) }
        static func append(bool: Bool, to bytes: inout [UInt8]) { bytes.append(bool ? trueTag : falseTag) }

        static func append(int: Int64, to bytes: inout [UInt8]) {
            let n = significantBytes(int)
            bytes.append(intTags.lowerBound + UInt8(n - 1))
            appendLittleEndian(UInt64(bitPattern: int), count: n, to: &bytes)
        }

        static func append(uint: UInt64, to bytes: inout [UInt8]) {
            bytes.append(uintTag)
            appendLittleEndian(uint, count: 8, to: &bytes)
        }

        static func append(double: Double, to bytes: inout [UInt8]) {
            bytes.append(doubleTag)
            appendLittleEndian(double.bitPattern, count: 8, to: &bytes)
        }

        /// The double m / 10^places, as the reader scanned it (`NumberText.shortDecimal`:
        /// 0 < |m| < 2^53, places ≤ 7). Decoding divides again: both operands are exact, so the
        /// one rounding gives back the double the general reader makes of the same text.
        static func append(decimal m: Int64, places: Int, to bytes: inout [UInt8]) {
            let n = significantBytes(m)
            bytes.append(decimalTags.lowerBound + UInt8(truncatingIfNeeded: 8 * places + n - 1))
            appendLittleEndian(UInt64(bitPattern: m), count: n, to: &bytes)
        }

        /// False (nothing appended) for a string of 4 GiB or more.
        static func append(string utf8: UnsafeBufferPointer<UInt8>, to bytes: inout [UInt8]) -> Bool {
            let n = utf8.count
            if n < 128 {
                bytes.append(shortStringTag + UInt8(truncatingIfNeeded: n))
            } else {
                guard n <= Int(UInt32.max) else { return false }
                bytes.append(longStringTag)
                appendLittleEndian(UInt64(n), count: 4, to: &bytes)
            }
            bytes.append(contentsOf: utf8)
            return true
        }

        /// How many low bytes of `v` hold it, sign-extended back (1 for -128…127).
        private static func significantBytes(_ v: Int64) -> Int {
            let magnitudeBits = 64 - (v ^ (v >> 63)).leadingZeroBitCount  // without the sign bit
            return magnitudeBits / 8 + 1
        }

        @inline(__always) private static func appendLittleEndian(_ bits: UInt64, count: Int, to bytes: inout [UInt8]) {
            for k in 0..<count { bytes.append(UInt8(truncatingIfNeeded: bits >> (8 * UInt64(k)))) }
        }

        var members: [Member] {
            var out: [Member] = []
            out.reserveCapacity(header.count)
            forEachValue { k, value in
                out.append((header[k], value)); return true
            }
            return out
        }

        func value(forKey key: String) -> JSONValue? {
            let keys = header
            guard let wanted = keys.withUnsafeBufferPointer({ keys in keys.firstIndex(of: key) }) else { return nil }
            var found: JSONValue?
            forEachValue(from: wanted) { _, value in
                found = value
                return false
            }
            return found
        }

        /// Decodes the values in order from index `first` (earlier ones are stepped over, not
        /// decoded) until `body` returns false.
        func forEachValue(from first: Int = 0, _ body: (Int, JSONValue) -> Bool) {
            forEachScalar(from: first) { k, scalar in
                let value: JSONValue
                switch scalar {
                case .null: value = .null
                case .bool(let b): value = .bool(b)
                case .int(let i): value = .int(i)
                case .uint(let u): value = .uint(u)
                case .double(let d): value = .double(d)
                case .string(let utf8): value = .string(String(decoding: utf8, as: UTF8.self))
                }
                return body(k, value)
            }
        }

        /// A value as it is held: a string is its UTF-8 bytes, valid only during the call.
        enum Scalar {
            case null, bool(Bool), int(Int64), uint(UInt64), double(Double)
            case string(UnsafeBufferPointer<UInt8>)
        }

        /// The values in order from index `first` (earlier ones are stepped over) until `body`
        /// returns false, without making a String of any (what writers take).
        func forEachScalar(from first: Int = 0, _ body: (Int, Scalar) -> Bool) {
            let count = header.count
            withUnsafeMutablePointerToElements { bytes in
                var at = 0
                func littleEndian(_ n: Int) -> UInt64 {
                    var bits: UInt64 = 0
                    for k in 0..<n { bits |= UInt64(bytes[at + k]) << (8 * UInt64(k)) }
                    at += n
                    return bits
                }
                func signed(_ n: Int) -> Int64 {
                    let shift = UInt64(64 - 8 * n)
                    return Int64(bitPattern: littleEndian(n) << shift) >> shift
                }
                for k in 0..<count {
                    let tag = bytes[at]
                    at += 1
                    let value: Scalar
                    switch tag {
                    case Packed.nullTag: value = .null
                    case Packed.falseTag: value = .bool(false)
                    case Packed.trueTag: value = .bool(true)
                    case Packed.uintTag: value = .uint(littleEndian(8))
                    case Packed.doubleTag: value = .double(Double(bitPattern: littleEndian(8)))
                    case Packed.intTags: value = .int(signed(Int(tag - Packed.intTags.lowerBound) + 1))
                    case Packed.decimalTags:
                        let code = Int(tag - Packed.decimalTags.lowerBound)
                        value = .double(Double(signed(code % 8 + 1)) / exactPowerOfTen(code / 8))
                    case Packed.longStringTag, Packed.shortStringTag...UInt8.max:
                        let n = tag == Packed.longStringTag ? Int(littleEndian(4)) : Int(tag - Packed.shortStringTag)
                        value = .string(UnsafeBufferPointer(start: bytes + at, count: n))
                        at += n
                    default: value = .null  // no encoder writes other tags
                    }
                    if k >= first, !body(k, value) { return }
                }
            }
        }
    }

    /// Objects are equal when they have the same keys with equal values, in any order.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.members.count == rhs.members.count else { return false }
        for m in lhs.members {
            guard let other = rhs[m.key], other == m.value else { return false }
        }
        return true
    }
}
