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

/// A JSON object that keeps its members in document order (serialization is stable and matches
/// the input) while looking keys up by name. Duplicate keys in parsed text: the last one wins,
/// as in JavaScript.
///
/// Feature properties parsed from GeoJSON whose values are all scalars are stored packed
/// (`JSONObject.Packed`): the keys shared by every object of the same shape, the values encoded
/// in one small heap block. A million features' properties then take 80 bytes each instead of
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

    /// Whether the members are held packed (for tests and memory accounting).
    var isPacked: Bool { if case .packed = storage { return true } else { return false } }

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

    /// Scalar values, each a tag byte and its payload (numbers as their 8 bytes, strings as
    /// their length and UTF-8 bytes), in one block after the keys. Immutable once made.
    final class Packed: ManagedBuffer<[String], UInt8>, @unchecked Sendable {
        private enum Tag: UInt8 { case null = 0, `false`, `true`, int, uint, double, shortString, string }

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
        static func appendNull(to bytes: inout [UInt8]) { bytes.append(Tag.null.rawValue) }
        static func append(bool: Bool, to bytes: inout [UInt8]) { bytes.append(bool ? Tag.true.rawValue : Tag.false.rawValue) }
        static func append(int: Int64, to bytes: inout [UInt8]) { append(.int, UInt64(bitPattern: int), to: &bytes) }
        static func append(uint: UInt64, to bytes: inout [UInt8]) { append(.uint, uint, to: &bytes) }
        static func append(double: Double, to bytes: inout [UInt8]) { append(.double, double.bitPattern, to: &bytes) }

        @inline(__always) private static func append(_ tag: Tag, _ bits: UInt64, to bytes: inout [UInt8]) {
            bytes.append(tag.rawValue)
            for k in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: bits >> (8 * UInt64(k)))) }
        }

        /// False (nothing appended) for a string of 4 GiB or more.
        static func append(string utf8: UnsafeBufferPointer<UInt8>, to bytes: inout [UInt8]) -> Bool {
            let n = utf8.count
            if n < 256 {
                bytes.append(Tag.shortString.rawValue)
                bytes.append(UInt8(truncatingIfNeeded: n))
            } else {
                guard n <= Int(UInt32.max) else { return false }
                bytes.append(Tag.string.rawValue)
                for k in 0..<4 { bytes.append(UInt8(truncatingIfNeeded: n >> (8 * k))) }
            }
            bytes.append(contentsOf: utf8)
            return true
        }

        var members: [Member] {
            var out: [Member] = []
            out.reserveCapacity(header.count)
            forEachValue { k, value in out.append((header[k], value)); return true }
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
        private func forEachValue(from first: Int = 0, _ body: (Int, JSONValue) -> Bool) {
            let count = header.count
            withUnsafeMutablePointerToElements { bytes in
                var at = 0
                func bits() -> UInt64 {
                    defer { at += 8 }
                    return UInt64(littleEndian: UnsafeRawPointer(bytes + at).loadUnaligned(as: UInt64.self))
                }
                for k in 0..<count {
                    let tag = Tag(rawValue: bytes[at]) ?? .null
                    at += 1
                    if k < first {
                        switch tag {
                        case .null, .false, .true: break
                        case .int, .uint, .double: at += 8
                        case .shortString: at += 1 + Int(bytes[at])
                        case .string: at += 4 + Int(UInt32(littleEndian: UnsafeRawPointer(bytes + at).loadUnaligned(as: UInt32.self)))
                        }
                        continue
                    }
                    let value: JSONValue
                    switch tag {
                    case .null: value = .null
                    case .false: value = .bool(false)
                    case .true: value = .bool(true)
                    case .int: value = .int(Int64(bitPattern: bits()))
                    case .uint: value = .uint(bits())
                    case .double: value = .double(Double(bitPattern: bits()))
                    case .shortString, .string:
                        let n: Int
                        if tag == .shortString {
                            n = Int(bytes[at]); at += 1
                        } else {
                            n = Int(UInt32(littleEndian: UnsafeRawPointer(bytes + at).loadUnaligned(as: UInt32.self))); at += 4
                        }
                        value = .string(String(decoding: UnsafeBufferPointer(start: bytes + at, count: n), as: UTF8.self))
                        at += n
                    }
                    if !body(k, value) { return }
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
