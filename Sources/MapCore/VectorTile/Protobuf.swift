// VectorTile: the protobuf wire format, hand-written as the field writes MVT codecs (vtzero,
// pbf): a bounds-checked reader that never trusts a length or a count, and an appending writer.

/// Reads protobuf fields from bytes. Every read checks what is left; malformed input throws
/// `MapCoreError(.parse)` naming what was wrong.
struct ProtobufReader {
    enum WireType: UInt8 { case varint = 0, fixed64 = 1, bytes = 2, fixed32 = 5 }

    let data: UnsafeRawBufferPointer
    private(set) var position: Int
    let end: Int

    init(_ data: UnsafeRawBufferPointer) {
        self.data = data
        position = 0
        end = data.count
    }

    private init(_ data: UnsafeRawBufferPointer, from start: Int, to end: Int) {
        self.data = data
        position = start
        self.end = end
    }

    var atEnd: Bool { position >= end }

    static func error(_ what: String) -> MapCoreError { MapCoreError(.parse, "Invalid vector tile: \(what).") }

    mutating func varint() throws(MapCoreError) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard position < end else { throw Self.error("truncated varint") }
            let byte = data[position]
            position += 1
            guard shift < 64 else { throw Self.error("varint longer than 10 bytes") }
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
    }

    /// The next field's number and wire type, or nil at the end of the message.
    mutating func field() throws(MapCoreError) -> (number: UInt64, wire: WireType)? {
        guard !atEnd else { return nil }
        let key = try varint()
        guard let wire = WireType(rawValue: UInt8(key & 7)) else {
            throw Self.error("unsupported wire type \(key & 7)")
        }
        let number = key >> 3
        guard number > 0 else { throw Self.error("field number 0") }
        return (number, wire)
    }

    /// A length-delimited field's bytes as a reader of their own.
    mutating func message() throws(MapCoreError) -> ProtobufReader {
        let length = try varint()
        guard length <= UInt64(end - position) else { throw Self.error("length \(length) past the end") }
        let start = position
        position += Int(length)
        return ProtobufReader(data, from: start, to: position)
    }

    mutating func string() throws(MapCoreError) -> String {
        let sub = try message()
        return String(decoding: UnsafeRawBufferPointer(rebasing: data[sub.position..<sub.end]), as: UTF8.self)
    }

    mutating func fixed64() throws(MapCoreError) -> UInt64 {
        guard end - position >= 8 else { throw Self.error("truncated fixed64") }
        var v: UInt64 = 0
        for i in 0..<8 { v |= UInt64(data[position + i]) << (8 * UInt64(i)) }
        position += 8
        return v
    }

    mutating func fixed32() throws(MapCoreError) -> UInt32 {
        guard end - position >= 4 else { throw Self.error("truncated fixed32") }
        var v: UInt32 = 0
        for i in 0..<4 { v |= UInt32(data[position + i]) << (8 * UInt32(i)) }
        position += 4
        return v
    }

    /// Skips a field of an unknown number (MVT readers must ignore them).
    mutating func skip(_ wire: WireType) throws(MapCoreError) {
        switch wire {
        case .varint: _ = try varint()
        case .fixed64: _ = try fixed64()
        case .fixed32: _ = try fixed32()
        case .bytes: _ = try message()
        }
    }

    /// A packed repeated uint32 field's values.
    mutating func packedUInt32() throws(MapCoreError) -> [UInt32] {
        var sub = try message()
        var out: [UInt32] = []
        out.reserveCapacity(sub.end - sub.position)
        while !sub.atEnd {
            let v = try sub.varint()
            guard v <= UInt64(UInt32.max) else { throw Self.error("uint32 value \(v) out of range") }
            out.append(UInt32(v))
        }
        return out
    }

    /// Requires `wire` for a known field.
    static func expect(_ wire: WireType, _ expected: WireType, _ field: String) throws(MapCoreError) {
        guard wire == expected else { throw error("\(field) has wire type \(wire.rawValue)") }
    }
}

/// Appends protobuf fields to a byte array.
struct ProtobufWriter {
    var bytes: [UInt8] = []

    /// A varint of more than one byte is made on the stack and appended at once: each append
    /// of a byte checks the array's uniqueness and capacity.
    @inline(__always) mutating func varint(_ v: UInt64) {
        guard v >= 0x80 else {
            bytes.append(UInt8(v))
            return
        }
        var room: (UInt64, UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &room) { b in
            let n = Self.writeVarint(v, to: b, at: 0)
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: b[..<n]))
        }
    }

    /// Writes the varint of `v` at `at` (room for 10 bytes is the caller's); returns where it ends.
    @inline(__always) static func writeVarint(_ v: UInt64, to b: UnsafeMutableRawBufferPointer, at: Int) -> Int {
        guard let base = b.baseAddress else { return at }
        return base.distance(to: RawBytes.varint(v, at: base + at))
    }

    @inline(__always) mutating func key(_ field: UInt64, _ wire: ProtobufReader.WireType) {
        varint(field << 3 | UInt64(wire.rawValue))
    }

    @inline(__always) mutating func varintField(_ field: UInt64, _ v: UInt64) {
        key(field, .varint)
        varint(v)
    }

    mutating func bytesField(_ field: UInt64, _ b: [UInt8]) {
        b.withUnsafeBytes { bytesField(field, $0) }
    }

    mutating func bytesField(_ field: UInt64, _ b: UnsafeRawBufferPointer) {
        key(field, .bytes)
        varint(UInt64(b.count))
        bytes.append(contentsOf: b)
    }

    mutating func stringField(_ field: UInt64, _ s: String) {
        key(field, .bytes)
        varint(UInt64(s.utf8.count))
        bytes.append(contentsOf: s.utf8)
    }

    mutating func doubleField(_ field: UInt64, _ d: Double) {
        key(field, .fixed64)
        let bits = d.bitPattern
        for i in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: bits >> (8 * UInt64(i)))) }
    }

    /// Written in place: the length is the sum of the values' varint sizes.
    mutating func packedUInt32Field(_ field: UInt64, _ values: [UInt32]) {
        packedUInt32Field(field, values, length: Self.packedLength(values))
    }

    /// The same, with the length known (`packedLength(values)`). The varints are made a few
    /// hundred bytes at a time on the stack, and appended at once.
    mutating func packedUInt32Field(_ field: UInt64, _ values: [UInt32], length: UInt64) {
        key(field, .bytes)
        varint(length)
        let room = 320
        withUnsafeTemporaryAllocation(byteCount: room, alignment: 8) { b in
            var n = 0
            for v in values {
                n = Self.writeVarint(UInt64(v), to: b, at: n)
                if n > room - 10 {
                    bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: b[..<n]))
                    n = 0
                }
            }
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: b[..<n]))
        }
    }

    /// The bytes of the varints of `values`.
    static func packedLength(_ values: [UInt32]) -> UInt64 {
        var length: UInt64 = 0
        for v in values { length += varintSize(UInt64(v)) }
        return length
    }

    /// Bytes in the varint of `v`: one per started 7 bits.
    @inline(__always) static func varintSize(_ v: UInt64) -> UInt64 {
        UInt64((64 - (v | 1).leadingZeroBitCount + 6) / 7)
    }

    @inline(__always) static func zigzag(_ v: Int64) -> UInt64 { UInt64(bitPattern: (v << 1) ^ (v >> 63)) }
    @inline(__always) static func unzigzag(_ v: UInt64) -> Int64 {
        Int64(bitPattern: v >> 1) ^ -Int64(bitPattern: v & 1)
    }
}
