// Tileset: reading a PMTiles v3 archive a directory and a tile at a time (the archive is never read
// whole), with every offset, length and nesting checked so that a corrupt or hostile file is an
// error, never a crash or a runaway read.
//
// Thread safety: the header and root directory are read once; leaf directories are read when
// first needed and kept in a small cache under a lock; several threads may read one archive.

public final class PMTilesArchive: TileArchive, @unchecked Sendable {
    public let header: PMTiles.Header
    let file: any ByteRanges
    let root: [PMTiles.Entry]
    private let cacheLock = Lock()
    private var leaves: [UInt64: (length: UInt64, entries: [PMTiles.Entry])] = [:]
    /// Leaf directories kept decoded (a map view reads neighbouring tiles from the same few).
    static let cachedLeaves = 64
    /// A directory pointing to leaves pointing to leaves…: more levels than this is a cycle.
    static let maxDepth = 4
    /// The most bytes one directory may take (compressed or not).
    static let maxDirectoryBytes = 64 << 20

    public convenience init(path: String) throws(MapCoreError) {
        try self.init(file: try RandomAccessFile(path: path))
    }

    /// An archive in memory (tests, fuzzing, a caller that fetched it whole).
    public convenience init(bytes: [UInt8]) throws(MapCoreError) {
        try self.init(file: MemoryBytes(bytes))
    }

    init(file: any ByteRanges) throws(MapCoreError) {
        self.file = file
        let head = try file.read(offset: 0, length: min(PMTiles.headerLength, file.count))
        let header = try PMTiles.Header(head)
        self.header = header
        root = try Self.directory(file, header, offset: header.rootOffset, length: header.rootLength)
    }

    static func checkedRange(
        _ offset: UInt64, _ length: UInt64, in file: any ByteRanges
    ) throws(MapCoreError)
        -> (Int, Int)
    {
        let (end, overflow) = offset.addingReportingOverflow(length)
        guard !overflow, end <= UInt64(file.count) else {
            throw MapCoreError(.parse, "PMTiles: a range at \(offset) of \(length) bytes lies outside the archive.")
        }
        return (Int(offset), Int(length))
    }

    static func directory(
        _ file: any ByteRanges, _ header: PMTiles.Header, offset: UInt64, length: UInt64
    ) throws(MapCoreError) -> [PMTiles.Entry] {
        let (o, n) = try checkedRange(offset, length, in: file)
        guard n <= maxDirectoryBytes else { throw MapCoreError(.limit, "PMTiles: a directory of \(n) bytes.") }
        let raw = try file.read(offset: o, length: n)
        return try PMTiles.decodeDirectory(try decompress(raw, header.internalCompression))
    }

    static func decompress(_ bytes: [UInt8], _ compression: PMTiles.Compression) throws(MapCoreError) -> [UInt8] {
        switch compression {
        case .none, .unknown: return bytes
        case .gzip:
            return try bytes.withUnsafeBufferPointer { b throws(MapCoreError) in
                try Gzip.inflate(UnsafeRawBufferPointer(b), limit: maxDirectoryBytes)
            }
        case .brotli, .zstd:
            throw MapCoreError(.unsupported, "PMTiles: \(compression) internal compression is not supported (gzip is).")
        }
    }

    /// The stored bytes of a tile (compressed as `header.tileCompression` says), or nil when the
    /// archive has none.
    public func tile(_ id: TileID) throws(MapCoreError) -> [UInt8]? {
        guard let tileID = PMTiles.tileID(id) else { return nil }
        var entries = root
        for _ in 0..<Self.maxDepth {
            guard let e = PMTiles.find(tileID, in: entries) else { return nil }
            if e.runLength > 0 {
                let (start, overflow) = header.tileDataOffset.addingReportingOverflow(e.offset)
                guard !overflow else { throw MapCoreError(.parse, "PMTiles: a tile offset overflows.") }
                let (o, n) = try Self.checkedRange(start, UInt64(e.length), in: file)
                return try file.read(offset: o, length: n)
            }
            let (start, overflow) = header.leafOffset.addingReportingOverflow(e.offset)
            guard !overflow else { throw MapCoreError(.parse, "PMTiles: a leaf directory offset overflows.") }
            entries = try leaf(at: start, length: UInt64(e.length))
        }
        throw MapCoreError(.parse, "PMTiles: leaf directories nest deeper than \(Self.maxDepth) levels (a cycle?).")
    }

    private func leaf(at offset: UInt64, length: UInt64) throws(MapCoreError) -> [PMTiles.Entry] {
        if let cached = cacheLock.withLock({ leaves[offset] }), cached.length == length { return cached.entries }
        let entries = try Self.directory(file, header, offset: offset, length: length)
        cacheLock.withLock {
            if leaves.count >= Self.cachedLeaves { leaves.removeAll(keepingCapacity: true) }
            leaves[offset] = (length, entries)
        }
        return entries
    }

    /// The metadata JSON object (empty when the archive has none).
    public func metadata() throws(MapCoreError) -> JSONObject {
        guard header.metadataLength > 0 else { return JSONObject() }
        let (o, n) = try Self.checkedRange(header.metadataOffset, header.metadataLength, in: file)
        guard n <= Self.maxDirectoryBytes else { throw MapCoreError(.limit, "PMTiles: metadata of \(n) bytes.") }
        let text = try Self.decompress(try file.read(offset: o, length: n), header.internalCompression)
        let value = try text.withUnsafeBufferPointer { b throws(MapCoreError) in try JSON.parse(b) }
        guard case .object(let object) = value else {
            throw MapCoreError(.parse, "PMTiles: metadata is not a JSON object.")
        }
        return object
    }

    /// The metadata with the header's zooms, bounds and center, as the pmtiles reader's
    /// getTileJson gives them.
    public func tileJSON() throws(MapCoreError) -> JSONObject {
        var o = try metadata()
        o["tilejson"] = .string("3.0.0")
        o["scheme"] = .string("xyz")
        o["minzoom"] = .int(Int64(header.minZoom))
        o["maxzoom"] = .int(Int64(header.maxZoom))
        let e7 = { (v: Int32) in JSONValue.double(Double(v) / 1e7) }
        o["bounds"] = .array([e7(header.minLonE7), e7(header.minLatE7), e7(header.maxLonE7), e7(header.maxLatE7)])
        o["center"] = .array([e7(header.centerLonE7), e7(header.centerLatE7), .int(Int64(header.centerZoom))])
        return o
    }
}
