// JSON: the same values as MessagePack (msgpack.org), for hosts that build their objects from
// bytes faster than from text (the Python binding's C extension).

/// Writes JSON-shaped values as MessagePack: objects as maps with string keys, arrays, nil,
/// booleans, integers (the smallest MessagePack form of each), doubles as float64 (never
/// float32: the value is exact) and strings as UTF-8 `str`. Each value has the type the JSON
/// writer's text reads back as: an integer for `.int`/`.uint` and integral coordinates, a
/// double for `.double`, nil for a non-finite double. Maps and arrays take the 32-bit-count
/// forms, their counts filled in when they close, as the writers are driven member by member.
public struct MessagePackWriter: StructuredWriter {
    public private(set) var bytes: [UInt8] = []
    /// Set when a value had no MessagePack form (a string of 4 GiB or more, a container of more
    /// than UInt32.max members or elements): the bytes are then not the value, and callers
    /// report MC_E_LIMIT instead of handing them out.
    public private(set) var overflowed = false
    /// Per open container: where its header is, and its members or elements so far.
    private var open: [(header: Int, count: UInt32)] = []

    public init(reserve: Int = 256) {
        bytes.reserveCapacity(reserve)
    }

    /// A writer inside an array whose header another writer has: `appendElements(of:)`.
    public init(elementsReserving reserve: Int) {
        self.init(reserve: reserve)
        open.append((-1, 0))
    }

    public mutating func appendElements(of other: MessagePackWriter) {
        overflowed = overflowed || other.overflowed
        guard let inner = other.open.first, !open.isEmpty else { return }
        let (sum, over) = open[open.count - 1].count.addingReportingOverflow(inner.count)
        open[open.count - 1].count = sum
        overflowed = overflowed || over
        bytes.append(contentsOf: other.bytes)
    }

    // MARK: containers

    public mutating func openObject() { openContainer(0xDF) }
    public mutating func closeObject() { closeContainer() }
    public mutating func openArray(inline: Bool) { openContainer(0xDD) }
    public mutating func closeArray() { closeContainer() }

    public mutating func key(_ name: String) { count(); writeString(name) }
    public mutating func key(ascii name: StaticString) { count(); writeString(ascii: name) }
    public mutating func element() { count() }

    private mutating func count() {
        guard let last = open.indices.last else { return }
        if open[last].count == .max { overflowed = true } else { open[last].count += 1 }
    }

    private mutating func openContainer(_ marker: UInt8) {
        open.append((bytes.count, 0))
        bytes.append(marker)
        bytes.append(contentsOf: [0, 0, 0, 0] as [UInt8])
    }

    private mutating func closeContainer() {
        guard let frame = open.popLast(), frame.header >= 0 else { return }
        bytes.withUnsafeMutableBufferPointer { b in
            for k in 0..<4 { b[frame.header + 1 + k] = UInt8(truncatingIfNeeded: frame.count >> (24 - 8 * UInt32(k))) }
        }
    }

    // MARK: scalars

    public mutating func writeNull() { bytes.append(0xC0) }
    public mutating func writeBool(_ b: Bool) { bytes.append(b ? 0xC3 : 0xC2) }

    /// The smallest form: fixint, else uint 8…64 for a positive value, int 8…64 for a negative one.
    public mutating func writeInt(_ v: Int64) {
        if v >= 0 { writeUInt(UInt64(v)); return }
        switch v {
        case -32..<0: bytes.append(UInt8(truncatingIfNeeded: v))  // negative fixint, 0xE0...0xFF
        case Int64(Int8.min)...: bigEndian(0xD0, UInt64(bitPattern: v), 1)
        case Int64(Int16.min)...: bigEndian(0xD1, UInt64(bitPattern: v), 2)
        case Int64(Int32.min)...: bigEndian(0xD2, UInt64(bitPattern: v), 4)
        default: bigEndian(0xD3, UInt64(bitPattern: v), 8)
        }
    }

    public mutating func writeUInt(_ v: UInt64) {
        switch v {
        case 0...0x7F: bytes.append(UInt8(truncatingIfNeeded: v))  // positive fixint
        case ...UInt64(UInt8.max): bigEndian(0xCC, v, 1)
        case ...UInt64(UInt16.max): bigEndian(0xCD, v, 2)
        case ...UInt64(UInt32.max): bigEndian(0xCE, v, 4)
        default: bigEndian(0xCF, v, 8)
        }
    }

    public mutating func writeDouble(_ d: Double) {
        guard d.isFinite else { writeNull(); return }
        bigEndian(0xCB, d.bitPattern, 8)
    }

    public mutating func writeString(_ s: String) {
        var s = s
        s.withUTF8 { writeString(utf8: $0) }
    }

    public mutating func writeString(ascii s: StaticString) {
        writeString(utf8: UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }

    /// A string of 4 GiB or more has no MessagePack form: `overflowed`, its bytes never read.
    public mutating func writeString(utf8: UnsafeBufferPointer<UInt8>) {
        let n = utf8.count
        switch n {
        case 0...31: bytes.append(0xA0 | UInt8(truncatingIfNeeded: n))
        case 32...0xFF: bigEndian(0xD9, UInt64(n), 1)
        case 0x100...0xFFFF: bigEndian(0xDA, UInt64(n), 2)
        case 0x1_0000...Int(UInt32.max): bigEndian(0xDB, UInt64(n), 4)
        default: overflowed = true; return
        }
        bytes.append(contentsOf: utf8)
    }

    /// A marker byte, then the low `count` bytes of `bits`, most significant first.
    @inline(__always) private mutating func bigEndian(_ marker: UInt8, _ bits: UInt64, _ count: Int) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 9) { b in
            b[0] = marker
            for k in 0..<count { b[1 + k] = UInt8(truncatingIfNeeded: bits >> (8 * UInt64(count - 1 - k))) }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: b[0..<(1 + count)]))
        }
    }
}

extension MessagePackWriter {
    /// The bytes, or MC_E_LIMIT when a value had no MessagePack form.
    func finished() throws(MapCoreError) -> [UInt8] {
        guard !overflowed else {
            throw MapCoreError(
                .limit,
                "A string of 4 GiB or more, or a container of more than 4,294,967,295 members or elements, "
                    + "has no MessagePack form.")
        }
        return bytes
    }
}
