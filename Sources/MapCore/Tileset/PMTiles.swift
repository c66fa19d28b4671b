// Tileset: the PMTiles v3 format (protomaps/PMTiles spec/v3): the 127-byte header, tile ids along
// a Hilbert curve per zoom, and directories of varint-encoded entries. Reading and writing build
// on this file (PMTilesArchive, PMTilesWriter).

public enum PMTiles {
    /// Header length, and the bytes the header and root directory must fit in together.
    public static let headerLength = 127
    public static let rootLimit = 16_384
    /// The deepest zoom whose tile ids stay below 2^53 (the reference implementations' limit).
    public static let maxZoom = 26

    public enum Compression: UInt8, Sendable {
        case unknown = 0, none = 1, gzip = 2, brotli = 3, zstd = 4
    }

    public struct Header: Equatable, Sendable {
        public var rootOffset: UInt64 = 0, rootLength: UInt64 = 0
        public var metadataOffset: UInt64 = 0, metadataLength: UInt64 = 0
        public var leafOffset: UInt64 = 0, leafLength: UInt64 = 0
        public var tileDataOffset: UInt64 = 0, tileDataLength: UInt64 = 0
        public var addressedTiles: UInt64 = 0, tileEntries: UInt64 = 0, tileContents: UInt64 = 0
        public var clustered = true
        public var internalCompression = Compression.gzip
        public var tileCompression = Compression.gzip
        /// 1 = MVT (0 unknown, 2 png, 3 jpeg, 4 webp, 5 avif).
        public var tileType: UInt8 = 1
        public var minZoom: UInt8 = 0, maxZoom: UInt8 = 0
        /// Degrees × 10^7, as stored.
        public var minLonE7: Int32 = -1_800_000_000, minLatE7: Int32 = -850_511_290
        public var maxLonE7: Int32 = 1_800_000_000, maxLatE7: Int32 = 850_511_290
        public var centerZoom: UInt8 = 0
        public var centerLonE7: Int32 = 0, centerLatE7: Int32 = 0

        public init() {}

        public init(_ b: [UInt8]) throws(MapCoreError) {
            guard b.count >= headerLength else { throw MapCoreError(.parse, "PMTiles: the header is truncated.") }
            guard Array(b[0..<7]) == Array("PMTiles".utf8) else {
                throw MapCoreError(.parse, "Not a PMTiles archive (no PMTiles magic number).")
            }
            guard b[7] == 3 else {
                throw MapCoreError(.unsupported, "PMTiles version \(b[7]) is not supported (only 3).")
            }
            func u64(_ at: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(b[at + $1]) << (8 * $1) } }
            func i32(_ at: Int) -> Int32 {
                Int32(bitPattern: (0..<4).reduce(UInt32(0)) { $0 | UInt32(b[at + $1]) << (8 * $1) })
            }
            func compression(_ v: UInt8) throws(MapCoreError) -> Compression {
                guard let c = Compression(rawValue: v) else {
                    throw MapCoreError(.parse, "PMTiles: unknown compression \(v).")
                }
                return c
            }
            rootOffset = u64(8); rootLength = u64(16)
            metadataOffset = u64(24); metadataLength = u64(32)
            leafOffset = u64(40); leafLength = u64(48)
            tileDataOffset = u64(56); tileDataLength = u64(64)
            addressedTiles = u64(72); tileEntries = u64(80); tileContents = u64(88)
            clustered = b[96] == 1
            internalCompression = try compression(b[97])
            tileCompression = try compression(b[98])
            tileType = b[99]
            minZoom = b[100]; maxZoom = b[101]
            minLonE7 = i32(102); minLatE7 = i32(106); maxLonE7 = i32(110); maxLatE7 = i32(114)
            centerZoom = b[118]
            centerLonE7 = i32(119); centerLatE7 = i32(123)
        }

        public var bytes: [UInt8] {
            var b = Array("PMTiles".utf8) + [3]
            for v in [
                rootOffset, rootLength, metadataOffset, metadataLength, leafOffset, leafLength, tileDataOffset,
                tileDataLength, addressedTiles, tileEntries, tileContents,
            ] {
                for i in 0..<8 { b.append(UInt8(truncatingIfNeeded: v >> (8 * UInt64(i)))) }
            }
            func i32(_ v: Int32) {
                for i in 0..<4 { b.append(UInt8(truncatingIfNeeded: UInt32(bitPattern: v) >> (8 * i))) }
            }
            b += [
                clustered ? 1 : 0, internalCompression.rawValue, tileCompression.rawValue, tileType, minZoom, maxZoom,
            ]
            i32(minLonE7); i32(minLatE7); i32(maxLonE7); i32(maxLatE7)
            b.append(centerZoom)
            i32(centerLonE7); i32(centerLatE7)
            return b
        }
    }

    /// A directory entry: `runLength` consecutive tile ids from `tileID` share the bytes at
    /// `offset` (in the tile data section); run length 0 points to a leaf directory instead.
    public struct Entry: Equatable, Sendable {
        public var tileID: UInt64, offset: UInt64, length: UInt32, runLength: UInt32
        public init(tileID: UInt64, offset: UInt64, length: UInt32, runLength: UInt32) {
            self.tileID = tileID
            self.offset = offset
            self.length = length
            self.runLength = runLength
        }
    }

    /// The tile id of z/x/y: the tiles of every shallower zoom, then the position along the
    /// zoom's Hilbert curve. nil beyond `maxZoom` or outside the grid.
    public static func tileID(_ t: TileID) -> UInt64? {
        guard t.z >= 0, t.z <= maxZoom, t.x >= 0, t.y >= 0, t.x < 1 << t.z, t.y < 1 << t.z else { return nil }
        let base = ((UInt64(1) << (2 * UInt64(t.z))) - 1) / 3
        var x = UInt64(t.x), y = UInt64(t.y), d: UInt64 = 0
        var s = (UInt64(1) << UInt64(t.z)) >> 1
        while s > 0 {
            let rx: UInt64 = x & s != 0 ? 1 : 0, ry: UInt64 = y & s != 0 ? 1 : 0
            d += s * s * ((3 * rx) ^ ry)
            // Only the bits below s matter from here on.
            x &= s - 1
            y &= s - 1
            if ry == 0 {
                if rx == 1 {
                    x = s - 1 - x
                    y = s - 1 - y
                }
                swap(&x, &y)
            }
            s >>= 1
        }
        return base + d
    }

    /// The z/x/y of a tile id, nil beyond `maxZoom`.
    public static func tile(_ id: UInt64) -> TileID? {
        var base: UInt64 = 0
        for z in 0...maxZoom {
            let count = UInt64(1) << (2 * UInt64(z))
            if id < base + count {
                var d = id - base, x: UInt64 = 0, y: UInt64 = 0
                var s: UInt64 = 1
                let n = UInt64(1) << UInt64(z)
                while s < n {
                    let rx = 1 & (d / 2), ry = 1 & (d ^ rx)
                    if ry == 0 {
                        if rx == 1 {
                            x = s - 1 - x
                            y = s - 1 - y
                        }
                        swap(&x, &y)
                    }
                    x += s * rx
                    y += s * ry
                    d /= 4
                    s *= 2
                }
                return TileID(z: z, x: Int(x), y: Int(y))
            }
            base += count
        }
        return nil
    }

    // MARK: directories

    static func appendVarint(_ v: UInt64, to out: inout [UInt8]) {
        var v = v
        while v >= 0x80 {
            out.append(UInt8(v & 0x7F) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
    }

    public static func encodeDirectory(_ entries: [Entry]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(entries.count * 8 + 8)
        appendVarint(UInt64(entries.count), to: &out)
        var last: UInt64 = 0
        for e in entries {
            appendVarint(e.tileID &- last, to: &out)
            last = e.tileID
        }
        for e in entries { appendVarint(UInt64(e.runLength), to: &out) }
        for e in entries { appendVarint(UInt64(e.length), to: &out) }
        for (i, e) in entries.enumerated() {
            if i > 0, e.offset == entries[i - 1].offset + UInt64(entries[i - 1].length) {
                appendVarint(0, to: &out)
            } else {
                appendVarint(e.offset + 1, to: &out)
            }
        }
        return out
    }

    /// Entries of an (uncompressed) directory. Every count, id and offset is checked: ids must
    /// ascend, lengths and run lengths fit 32 bits, the entry count fits the bytes.
    public static func decodeDirectory(_ b: [UInt8]) throws(MapCoreError) -> [Entry] {
        var at = 0
        func varint() throws(MapCoreError) -> UInt64 {
            var v: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                guard at < b.count else { throw MapCoreError(.parse, "PMTiles: a directory is truncated.") }
                let byte = b[at]
                at += 1
                guard shift < 64, shift < 63 || byte <= 1 else {
                    throw MapCoreError(.parse, "PMTiles: a directory varint is too long.")
                }
                v |= UInt64(byte & 0x7F) << shift
                if byte < 0x80 { return v }
                shift += 7
            }
        }
        let n = try varint()
        // Each entry takes at least four bytes (one per column).
        guard n <= UInt64(b.count) / 4 + 1 else {
            throw MapCoreError(.parse, "PMTiles: a directory claims \(n) entries.")
        }
        var entries = [Entry](repeating: Entry(tileID: 0, offset: 0, length: 0, runLength: 0), count: Int(n))
        var last: UInt64 = 0
        for i in entries.indices {
            let (id, overflow) = last.addingReportingOverflow(try varint())
            guard !overflow, i == 0 || id > last else {
                throw MapCoreError(.parse, "PMTiles: directory tile ids do not ascend.")
            }
            entries[i].tileID = id
            last = id
        }
        for i in entries.indices {
            guard let r = UInt32(exactly: try varint()) else {
                throw MapCoreError(.parse, "PMTiles: a run length is too large.")
            }
            entries[i].runLength = r
        }
        for i in entries.indices {
            guard let l = UInt32(exactly: try varint()) else {
                throw MapCoreError(.parse, "PMTiles: a length is too large.")
            }
            entries[i].length = l
        }
        for i in entries.indices {
            let v = try varint()
            if v == 0 {
                guard i > 0 else { throw MapCoreError(.parse, "PMTiles: the first directory entry has no offset.") }
                let (o, overflow) = entries[i - 1].offset.addingReportingOverflow(UInt64(entries[i - 1].length))
                guard !overflow else { throw MapCoreError(.parse, "PMTiles: an offset overflows.") }
                entries[i].offset = o
            } else {
                entries[i].offset = v - 1
            }
        }
        return entries
    }

    /// The entry covering `id`: the last entry at or before it, if its run reaches it or it is a
    /// leaf directory.
    static func find(_ id: UInt64, in entries: [Entry]) -> Entry? {
        var lo = 0, hi = entries.count - 1
        while lo <= hi {
            let mid = (lo + hi) / 2
            if entries[mid].tileID == id { return entries[mid] }
            if entries[mid].tileID < id { lo = mid + 1 } else { hi = mid - 1 }
        }
        guard hi >= 0 else { return nil }
        let e = entries[hi]
        if e.runLength == 0 { return e }
        return id - e.tileID < UInt64(e.runLength) ? e : nil
    }
}
