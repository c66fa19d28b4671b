// JSON: the calls shared by the writers of JSON text and of MessagePack, so GeoJSON and cluster
// features are written once for both.

/// A writer of JSON-shaped values: objects of named members, arrays, scalars. Containers are
/// opened and closed explicitly; `key` starts an object's member, `element` an array's.
public protocol StructuredWriter {
    var bytes: [UInt8] { get }

    /// A writer already inside an array, its opening not written: what it writes with
    /// `element()` is a run of elements for `appendElements(of:)`.
    init(elementsReserving reserve: Int)
    /// Continues the innermost array with the elements `other` wrote (made by
    /// `init(elementsReserving:)`): how two threads write the halves of one long array, giving
    /// the bytes one writer gives.
    mutating func appendElements(of other: Self)

    mutating func openObject()
    mutating func closeObject()
    /// `inline` keeps the array on one line in pretty JSON (positions, bbox).
    mutating func openArray(inline: Bool)
    mutating func closeArray()
    mutating func key(_ name: String)
    /// A member name written in the code, which needs no escaping.
    mutating func key(ascii name: StaticString)
    mutating func element()

    mutating func writeNull()
    mutating func writeBool(_ b: Bool)
    mutating func writeInt(_ v: Int64)
    mutating func writeUInt(_ v: UInt64)
    /// A double as a double: non-finite values have no JSON form and are written as null.
    mutating func writeDouble(_ d: Double)
    mutating func writeString(_ s: String)
    /// A string's UTF-8 bytes, which the caller knows to be valid UTF-8.
    mutating func writeString(utf8: UnsafeBufferPointer<UInt8>)
    /// A string written in the code, which needs no escaping.
    mutating func writeString(ascii s: StaticString)
}

extension StructuredWriter {
    public mutating func openArray() { openArray(inline: false) }

    /// A coordinate: always a double in the model, so an integral value is written as an
    /// integer (`JSONValue.coordinate`).
    @inline(__always) public mutating func writeCoordinate(_ d: Double) {
        if case .int(let i) = JSONValue.coordinate(d) { writeInt(i) } else { writeDouble(d) }
    }

    /// Writes any value. Recursion is bounded by the parse depth limit of every value that
    /// reaches the model.
    public mutating func writeValue(_ v: JSONValue) {
        switch v {
        case .null: writeNull()
        case .bool(let b): writeBool(b)
        case .int(let i): writeInt(i)
        case .uint(let u): writeUInt(u)
        case .double(let d): writeDouble(d)
        case .string(let s): writeString(s)
        case .array(let a):
            openArray()
            for item in a { element(); writeValue(item) }
            closeArray()
        case .object(let o):
            writeObject(o)
        }
    }

    public mutating func writeObject(_ o: JSONObject) {
        openObject()
        if let packed = o.packed {
            // Values read where they are held: no String or JSONValue is made for them.
            let keys = packed.header
            packed.forEachScalar { k, scalar in
                key(keys[k])
                switch scalar {
                case .null: writeNull()
                case .bool(let b): writeBool(b)
                case .int(let i): writeInt(i)
                case .uint(let u): writeUInt(u)
                case .double(let d): writeDouble(d)
                case .string(let utf8): writeString(utf8: utf8)
                }
                return true
            }
        } else {
            // In place: iterating `o` would make its members array first.
            o.forEachMember { _, name, value in
                key(name)
                writeValue(value)
            }
        }
        closeObject()
    }

    /// What to reserve for a list of `count` items of about `bytesEach` bytes. Generous, as
    /// growing a buffer of hundreds of megabytes copies it and faults its pages in twice, while
    /// room never written costs address space only; capped at 1 GiB, past which it grows.
    public static func reserve(items count: Int, bytesEach: Int) -> Int {
        let (n, overflow) = count.multipliedReportingOverflow(by: bytesEach)
        return overflow ? 1 << 30 : min(64 + n, 1 << 30)
    }
}
