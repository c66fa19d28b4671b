// VectorTile: protobuf bytes written through a pointer, for the loops that write millions of
// small fields (a tile's feature heads, its value table, its layer). Each append to an Array
// checks the array's uniqueness and capacity and calls memmove for a few bytes; here room is made
// once per feature or field, and each byte is a store.

/// Bytes in memory of their own, grown by doubling. Write by asking for room for at most `n`
/// bytes (`room(_:)`), storing through the pointer it returns, and saying where writing ended
/// (`commit(_:)`): nothing is checked in between, so the bound asked for must hold.
struct RawBytes: ~Copyable {
    private var base: UnsafeMutableRawPointer
    private(set) var count = 0
    private var capacity: Int

    init(capacity: Int) {
        self.capacity = max(64, capacity)
        base = UnsafeMutableRawPointer.allocate(byteCount: self.capacity, alignment: 16)
    }

    deinit { base.deallocate() }

    /// Where the next bytes go, with room for `n` of them.
    @inline(__always) mutating func room(_ n: Int) -> UnsafeMutableRawPointer {
        if capacity - count < n { grow(n) }
        return base + count
    }

    /// Writing ended at `end` (within the room last made).
    @inline(__always) mutating func commit(_ end: UnsafeMutableRawPointer) { count = end - base }

    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    @inline(never) private mutating func grow(_ n: Int) {
        let bigger = max(2 * capacity, count + n)
        let moved = UnsafeMutableRawPointer.allocate(byteCount: bigger, alignment: 16)
        moved.copyMemory(from: base, byteCount: count)
        base.deallocate()
        base = moved
        capacity = bigger
    }

    /// Stores the varint of `v` at `p` (room for 10 bytes is the caller's); returns where it ends.
    @inline(__always) static func varint(_ v: UInt64, at p: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer {
        var v = v, p = p
        while v >= 0x80 {
            p.storeBytes(of: UInt8(truncatingIfNeeded: v) | 0x80, as: UInt8.self)
            v >>= 7
            p += 1
        }
        p.storeBytes(of: UInt8(truncatingIfNeeded: v), as: UInt8.self)
        return p + 1
    }

    /// Bytes in the varint of `v`.
    @inline(__always) static func size(varint v: UInt64) -> Int {
        Int(truncatingIfNeeded: ProtobufWriter.varintSize(v))
    }

    /// Stores `b` at `p`; returns where it ends.
    @inline(__always) static func byte(_ b: UInt8, at p: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer {
        p.storeBytes(of: b, as: UInt8.self)
        return p + 1
    }

    /// Copies `bytes` to `p`; returns where they end.
    @inline(__always) static func copy(
        _ bytes: UnsafeRawBufferPointer, to p: UnsafeMutableRawPointer
    ) -> UnsafeMutableRawPointer {
        guard let from = bytes.baseAddress else { return p }
        p.copyMemory(from: from, byteCount: bytes.count)
        return p + bytes.count
    }
}

/// How a writer that measures a tile before writing it (`FlatFeatures.mvt`) hands its bytes over:
/// it calls the placement once with the count, and `write` fills memory of that count (returning
/// how many it wrote). Into an array for Swift callers; for C, into the `mc_buf`'s own memory, so
/// that a tile is not written into an array first and then copied (which faults a big tile's
/// fresh pages in twice).
public typealias BytePlacement = (_ count: Int, _ write: (UnsafeMutableRawPointer) -> Int) -> Void

/// Bytes already written, placed (copied).
public func place(_ bytes: [UInt8], _ placement: BytePlacement) {
    placement(bytes.count) { p in
        bytes.withUnsafeBytes { b in if let from = b.baseAddress { p.copyMemory(from: from, byteCount: b.count) } }
        return bytes.count
    }
}

/// The bytes `fill` places, in a new array (empty if it places none).
func placedInArray<E: Error>(_ fill: (BytePlacement) throws(E) -> Void) throws(E) -> [UInt8] {
    var bytes: [UInt8] = []
    try fill { count, write in
        bytes = [UInt8](unsafeUninitializedCapacity: count) { out, written in
            if let base = out.baseAddress { written = write(UnsafeMutableRawPointer(base)) }
        }
    }
    return bytes
}
