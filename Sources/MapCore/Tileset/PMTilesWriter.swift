// Tileset: writing a PMTiles v3 archive: tiles in tile-id order (clustered), identical tiles
// stored once, runs of identical consecutive tiles as one entry, leaf directories when the root
// would not fit in the first 16 KiB, gzip internal compression.

public struct PMTilesWriter {
    public var tileCompression: PMTiles.Compression
    private var tiles: [(id: UInt64, bytes: [UInt8])] = []

    public init(tileCompression: PMTiles.Compression) { self.tileCompression = tileCompression }

    /// Adds a tile (the last one added wins for an address given twice).
    public mutating func add(_ tile: TileID, _ bytes: [UInt8]) throws(MapCoreError) {
        guard let id = PMTiles.tileID(tile) else {
            throw MapCoreError(.invalidArgument, "PMTiles holds zooms 0...\(PMTiles.maxZoom); got tile \(tile).")
        }
        guard bytes.count <= Int(UInt32.max) else { throw MapCoreError(.limit, "A tile larger than 4 GiB.") }
        tiles.append((id, bytes))
    }

    /// The archive: header, root directory, metadata, leaf directories, tile data.
    public func bytes(metadata: JSONObject) throws(MapCoreError) -> [UInt8] {
        var sorted = tiles.enumerated().sorted { ($0.element.id, $0.offset) < ($1.element.id, $1.offset) }
        // The last of duplicate addresses wins.
        sorted = sorted.enumerated().filter { i, t in i + 1 == sorted.count || sorted[i + 1].element.id != t.element.id
        }
        .map { $0.element }
        var data: [UInt8] = []
        var entries: [PMTiles.Entry] = []
        var stored: [[UInt8]: UInt64] = [:]
        var addressed: UInt64 = 0
        for (_, t) in sorted {
            addressed += 1
            let offset: UInt64
            if let known = stored[t.bytes] {
                offset = known
            } else {
                offset = UInt64(data.count)
                stored[t.bytes] = offset
                data += t.bytes
            }
            if var last = entries.last, last.offset == offset, last.tileID + UInt64(last.runLength) == t.id,
                last.runLength < UInt32.max
            {
                last.runLength += 1
                entries[entries.count - 1] = last
            } else {
                entries.append(PMTiles.Entry(tileID: t.id, offset: offset, length: UInt32(t.bytes.count), runLength: 1))
            }
        }
        let (root, leaves) = try directories(entries)
        let meta = try Gzip.compress(Array(JSON.serialize(.object(metadata)).utf8))
        var h = PMTiles.Header()
        h.rootOffset = UInt64(PMTiles.headerLength)
        h.rootLength = UInt64(root.count)
        h.metadataOffset = h.rootOffset + h.rootLength
        h.metadataLength = UInt64(meta.count)
        h.leafOffset = h.metadataOffset + h.metadataLength
        h.leafLength = UInt64(leaves.count)
        h.tileDataOffset = h.leafOffset + h.leafLength
        h.tileDataLength = UInt64(data.count)
        h.addressedTiles = addressed
        h.tileEntries = UInt64(entries.count)
        h.tileContents = UInt64(stored.count)
        h.clustered = true
        h.internalCompression = .gzip
        h.tileCompression = tileCompression
        h.tileType = 1
        let zooms = sorted.compactMap { PMTiles.tile($0.element.id)?.z }
        h.minZoom = UInt8(clamping: zooms.min() ?? 0)
        h.maxZoom = UInt8(clamping: zooms.max() ?? 0)
        func e7(_ v: JSONValue?) -> Int32? { v?.doubleValue.map { Int32(clamping: Int64(($0 * 1e7).rounded())) } }
        if let b = metadata["bounds"]?.arrayValue, b.count == 4, let w = e7(b[0]), let s = e7(b[1]), let e = e7(b[2]),
            let n = e7(b[3])
        {
            (h.minLonE7, h.minLatE7, h.maxLonE7, h.maxLatE7) = (w, s, e, n)
        }
        if let c = metadata["center"]?.arrayValue, c.count == 3, let lon = e7(c[0]), let lat = e7(c[1]) {
            (h.centerLonE7, h.centerLatE7) = (lon, lat)
            h.centerZoom = UInt8(clamping: Int(c[2].doubleValue ?? 0))
        }
        return h.bytes + root + meta + leaves + data
    }

    /// The compressed root directory and leaf directories: one root when it fits beside the
    /// header in 16 KiB, else leaves of a growing number of entries until the root of their
    /// first ids fits.
    func directories(_ entries: [PMTiles.Entry]) throws(MapCoreError) -> (root: [UInt8], leaves: [UInt8]) {
        let whole = try Gzip.compress(PMTiles.encodeDirectory(entries))
        if whole.count + PMTiles.headerLength <= PMTiles.rootLimit { return (whole, []) }
        var leafSize = 4096
        while true {
            var leaves: [UInt8] = []
            var rootEntries: [PMTiles.Entry] = []
            var start = 0
            while start < entries.count {
                let chunk = Array(entries[start..<min(start + leafSize, entries.count)])
                let leaf = try Gzip.compress(PMTiles.encodeDirectory(chunk))
                rootEntries.append(
                    PMTiles.Entry(
                        tileID: chunk[0].tileID, offset: UInt64(leaves.count), length: UInt32(leaf.count),
                        runLength: 0))
                leaves += leaf
                start += leafSize
            }
            let root = try Gzip.compress(PMTiles.encodeDirectory(rootEntries))
            if root.count + PMTiles.headerLength <= PMTiles.rootLimit { return (root, leaves) }
            leafSize *= 2
        }
    }
}
