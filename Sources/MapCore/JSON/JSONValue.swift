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
public struct JSONObject: Equatable, Sendable, Sequence {
    public typealias Member = (key: String, value: JSONValue)
    public private(set) var members: [Member]

    public init() { members = [] }

    public init(_ members: [Member]) {
        self.members = []
        self.members.reserveCapacity(members.count)
        for m in members { self[m.key] = m.value }
    }

    public var count: Int { members.count }
    public var isEmpty: Bool { members.isEmpty }
    public var keys: [String] { members.map(\.key) }

    public func makeIterator() -> IndexingIterator<[Member]> { members.makeIterator() }

    public subscript(key: String) -> JSONValue? {
        get {
            // Compared in place: iterating `members` would copy (retain) every key and value.
            members.withUnsafeBufferPointer { list in
                for i in list.indices where list[i].key == key { return list[i].value }
                return nil
            }
        }
        set {
            if let i = members.firstIndex(where: { $0.key == key }) {
                if let newValue { members[i].value = newValue } else { members.remove(at: i) }
            } else if let newValue {
                members.append((key, newValue))
            }
        }
    }

    /// Members whose keys are known to be distinct (the parser has checked).
    init(uniqueMembers: [Member]) { members = uniqueMembers }

    /// Objects are equal when they have the same keys with equal values, in any order.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.members.count == rhs.members.count else { return false }
        for m in lhs.members {
            guard let other = rhs[m.key], other == m.value else { return false }
        }
        return true
    }
}
