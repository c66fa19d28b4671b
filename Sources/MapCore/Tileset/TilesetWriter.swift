// Tileset: a data source written as a tileset (a directory of z/x/y.pbf, an MBTiles or a PMTiles
// archive): every non-empty tile from minzoom to maxzoom as the source makes it (MapLibre
// Native's derivation, see SourceTiles), with TileJSON metadata, on both cores.

import Glibc

/// Where tiles go and in which form; chosen from the output path.
public enum TilesetFormat: String, Sendable {
    case directory, mbtiles, pmtiles

    public init(path: String) {
        let lower = path.lowercased()
        self = lower.hasSuffix(".mbtiles") ? .mbtiles : lower.hasSuffix(".pmtiles") ? .pmtiles : .directory
    }
}

public struct TilesetWriteOptions: Sendable {
    public var minZoom = 0
    /// The deepest zoom written; nil for min(the source's maxZoom, 14), geojson-vt's maxZoom.
    public var maxZoom: Int? = nil
    /// The vector tile layer name (MapLibre's `source-layer`).
    public var layer = "geojson"
    /// Gzip every tile; nil for the format's custom: MBTiles and PMTiles compressed (as
    /// tippecanoe writes them), a directory plain (a static server sends .pbf files as they are).
    public var gzip: Bool? = nil
    /// The tileset's name in its metadata.
    public var name = "MapCore"

    public init() {}

    /// Options from JSON: minzoom, maxzoom, layer, gzip, name.
    public init(json: JSONValue) throws(MapCoreError) {
        let r = try OptionReader(json, of: "tileset")
        for (key, v) in r.members {
            switch key {
            case "minzoom": minZoom = try r.int(key, v, 0...TilingOptions.maxAllowedZoom)
            case "maxzoom": maxZoom = v == .null ? nil : try r.int(key, v, 0...TilingOptions.maxAllowedZoom)
            case "layer":
                guard let s = v.stringValue, !s.isEmpty else { throw r.bad(key, "a non-empty string") }
                layer = s
            case "gzip": gzip = v == .null ? nil : try r.bool(key, v)
            case "name":
                guard let s = v.stringValue else { throw r.bad(key, "a string") }
                name = s
            default: throw r.unknown(key)
            }
        }
    }

    func zoomRange(for source: DataSourceOptions) throws(MapCoreError) -> ClosedRange<Int> {
        let maxZoom = self.maxZoom ?? min(source.maxZoom, 14)
        guard minZoom >= 0, minZoom <= maxZoom, maxZoom <= TilingOptions.maxAllowedZoom else {
            throw MapCoreError(
                .invalidArgument,
                "Tileset zooms must satisfy 0 <= minzoom <= maxzoom <= \(TilingOptions.maxAllowedZoom).")
        }
        return minZoom...maxZoom
    }
}

/// What was written.
public struct TilesetSummary: Sendable {
    public var tiles = 0
    public var bytes = 0
    /// Tiles written per zoom, from minzoom.
    public var tilesPerZoom: [Int] = []
    public var format = TilesetFormat.directory
}

/// Receives tiles in the order they are made and the metadata at the end.
protocol TilesetSink: AnyObject {
    func add(_ id: TileID, _ bytes: [UInt8]) throws(MapCoreError)
    func finish(metadata: JSONObject) throws(MapCoreError)
}

public enum TilesetWriter {
    /// Tiles made per batch: enough to keep two threads busy, few enough to bound memory.
    static let batch = 2048

    /// Writes the snapshot's tiles to `path` (a directory is created; an archive is replaced).
    /// `progress` is called now and then with the tiles written and the fraction of the work done
    /// (0…1; for geojson-vt tiles, the share of the subtrees below zoom 4 finished).
    public static func write(
        _ snapshot: SourceSnapshot, to path: String, options: TilesetWriteOptions = TilesetWriteOptions(),
        progress: ((_ done: Int, _ fraction: Double) -> Void)? = nil
    ) throws(MapCoreError) -> TilesetSummary {
        let zooms = try options.zoomRange(for: snapshot.options)
        let format = TilesetFormat(path: path)
        let gzip = options.gzip ?? (format != .directory)
        let sink: TilesetSink
        switch format {
        case .directory: sink = try DirectorySink(path: path)
        case .mbtiles: sink = try MBTilesSink(path: path)
        case .pmtiles: sink = PMTilesSink(path: path, gzip: gzip)
        }
        var summary = TilesetSummary(format: format)
        summary.tilesPerZoom = Array(repeating: 0, count: zooms.count)
        if !snapshot.options.cluster {
            try walk(
                snapshot, zooms: zooms, layer: options.layer, gzip: gzip, into: sink, summary: &summary,
                progress: progress)
        } else {
            try clusterLevels(
                snapshot, zooms: zooms, layer: options.layer, gzip: gzip, into: sink,
                summary: &summary, progress: progress)
        }
        try sink.finish(metadata: metadata(snapshot, options: options, zooms: zooms, format: format))
        return summary
    }

    /// What the tile-making threads share: the sink and the counts, under one lock.
    private final class Shared: @unchecked Sendable {
        let lock = Lock()
        let sink: TilesetSink
        var summary: TilesetSummary
        var failure: MapCoreError?
        var done = 0
        let progress: ((Int, Double) -> Void)?
        let minZoom: Int
        var fraction = 0.0
        init(_ sink: TilesetSink, _ summary: TilesetSummary, _ minZoom: Int, _ progress: ((Int, Double) -> Void)?) {
            self.sink = sink
            self.summary = summary
            self.minZoom = minZoom
            self.progress = progress
        }

        func add(_ id: TileID, _ bytes: [UInt8]) {
            lock.withLock {
                guard failure == nil else { return }
                do throws(MapCoreError) { try sink.add(id, bytes) } catch {
                    failure = error
                    return
                }
                summary.tiles += 1
                summary.bytes += bytes.count
                summary.tilesPerZoom[id.z - minZoom] += 1
                done += 1
                if done % 256 == 0 { progress?(done, fraction) }
            }
        }

        func fail(_ error: MapCoreError) { lock.withLock { failure = failure ?? error } }

        func finished(_ done: Int, of total: Int) {
            lock.withLock {
                fraction = Double(done) / Double(max(total, 1))
                progress?(self.done, fraction)
            }
        }
    }

    /// geojson-vt's tiles, made depth first on two threads by `TileIndex.walk` and kept by none.
    static func walk(
        _ snapshot: SourceSnapshot, zooms: ClosedRange<Int>, layer: String, gzip: Bool, into sink: TilesetSink,
        summary: inout TilesetSummary, progress: ((Int, Double) -> Void)?
    ) throws(MapCoreError) {
        let shared = Shared(sink, summary, zooms.lowerBound, progress)
        try TileIndex.walk(
            snapshot.indexedData, options: snapshot.options.tilingOptions, minZoom: zooms.lowerBound,
            maxZoom: zooms.upperBound, finished: { done, total in shared.finished(done, of: total) }
        ) { z, x, y, tile in
            let mvt = placedInArray { placement in
                tile.mvt(
                    layer: layer, extent: SourceTiling.extent, version: snapshot.options.tileCompatibility.mvtVersion,
                    into: placement)
            }
            guard !mvt.isEmpty else { return }
            do throws(MapCoreError) {
                shared.add(TileID(z: z, x: x, y: y), gzip ? try Gzip.compress(mvt) : mvt)
            } catch {
                shared.fail(error)
            }
        }
        if let failure = shared.failure { throw failure }
        summary = shared.summary
    }

    /// Cluster tiles, zoom by zoom: every tile an item of the zoom reaches, in batches on two
    /// threads.
    static func clusterLevels(
        _ snapshot: SourceSnapshot, zooms: ClosedRange<Int>, layer: String, gzip: Bool, into sink: TilesetSink,
        summary: inout TilesetSummary, progress: ((Int, Double) -> Void)?
    ) throws(MapCoreError) {
        for (level, z) in zooms.enumerated() {
            let candidates = try clusterTiles(snapshot, zoom: z)
            var start = 0
            while start < candidates.count {
                let chunk = Array(candidates[start..<min(start + batch, candidates.count)])
                start += chunk.count
                for (id, bytes) in try make(chunk, snapshot: snapshot, layer: layer, gzip: gzip) where !bytes.isEmpty {
                    try sink.add(id, bytes)
                    summary.tiles += 1
                    summary.bytes += bytes.count
                    summary.tilesPerZoom[z - zooms.lowerBound] += 1
                }
                let share = Double(start) / Double(max(candidates.count, 1))
                progress?(summary.tiles, (Double(level) + share) / Double(zooms.count))
            }
        }
    }

    /// The tiles whose area and buffer (supercluster's radius / extent) hold an item of the
    /// zoom: a cluster's position may leave its points' parent tile, so a zoom's tiles are not
    /// found from the tiles above.
    static func clusterTiles(_ snapshot: SourceSnapshot, zoom: Int) throws(MapCoreError) -> [TileID] {
        guard let clusters = try snapshot.clusters() else { return [] }
        let n = 1 << zoom
        let p = clusters.options.radius / clusters.options.extent
        var found = Set<TileID>()
        for item in try clusters.clusters(west: -180, south: -90, east: 180, north: 90, zoom: Double(zoom)) {
            let (lng, lat) = clusters.position(item)
            let px = Projection.x(lng: lng) * Double(n), py = Projection.y(lat: lat, clusters.math) * Double(n)
            let y0 = max(Int(floor(py - p)), 0), y1 = min(Int(floor(py + p)), n - 1)
            guard y0 <= y1 else { continue }
            for xi in Int(floor(px - p))...Int(floor(px + p)) {
                let x = ((xi % n) + n) % n
                for y in y0...y1 { found.insert(TileID(z: zoom, x: x, y: y)) }
            }
        }
        return found.sorted { ($0.x, $0.y) < ($1.x, $1.y) }
    }

    /// The MVT bytes (gzip-compressed when asked) of each tile, made on two threads.
    static func make(
        _ tiles: [TileID], snapshot: SourceSnapshot, layer: String, gzip: Bool
    ) throws(MapCoreError)
        -> [(TileID, [UInt8])]
    {
        var out = [[UInt8]](repeating: [], count: tiles.count)
        var failure: MapCoreError? = nil
        let half = tiles.count / 2
        out.withUnsafeMutableBufferPointer { results in
            let failures = UnsafeMutablePointer<MapCoreError?>.allocate(capacity: 2)
            failures.initialize(repeating: nil, count: 2)
            defer { failures.deinitialize(count: 2); failures.deallocate() }
            func run(_ range: Range<Int>, _ slot: Int) {
                for i in range {
                    do {
                        let t = tiles[i]
                        let mvt = try snapshot.tileMVT(z: t.z, x: t.x, y: t.y, layer: layer)
                        results[i] = gzip && !mvt.isEmpty ? try Gzip.compress(mvt) : mvt
                    } catch {
                        failures[slot] = error
                        return
                    }
                }
            }
            runConcurrently({ run(half..<tiles.count, 1) }, { run(0..<half, 0) })
            failure = failures[0] ?? failures[1]
        }
        if let failure { throw failure }
        return Array(zip(tiles, out))
    }

    /// TileJSON-style metadata: vector_layers with field types, bounds, center, zooms.
    static func metadata(
        _ snapshot: SourceSnapshot, options: TilesetWriteOptions, zooms: ClosedRange<Int>, format: TilesetFormat
    ) -> JSONObject {
        var fields: [(String, String)] = []
        var index: [String: Int] = [:]
        func note(_ key: String, _ value: JSONValue) {
            let type: String
            switch value {
            case .string: type = "String"
            case .int, .uint, .double: type = "Number"
            case .bool: type = "Boolean"
            default: type = "String"  // arrays and objects travel as their JSON text
            }
            if let i = index[key] {
                if fields[i].1 != type { fields[i].1 = "Mixed" }
            } else {
                index[key] = fields.count
                fields.append((key, type))
            }
        }
        var box: BoundingBox? = nil
        for f in snapshot.indexedFeatures {
            for (k, v) in f.properties ?? JSONObject() where v != .null { note(k, v) }
            if let g = f.geometry, let b = BoundingBox.of(.geometry(g)) { box = box.map { $0.union(b) } ?? b }
        }
        if snapshot.options.cluster {
            note("cluster", .bool(true))
            note("cluster_id", .int(0))
            note("point_count", .int(0))
            note("point_count_abbreviated", .string(""))
            for property in snapshot.options.clusterProperties?.properties ?? [] { note(property.name, .double(0)) }
        }
        // Within the Web Mercator world: data past the antimeridian wraps onto tiles inside it.
        let world = BoundingBox(west: -180, south: -85.051129, east: 180, north: 85.051129)
        var b = box ?? world
        b = BoundingBox(
            west: max(b.west, world.west), south: max(b.south, world.south), east: min(b.east, world.east),
            north: min(b.north, world.north))
        if b.west > b.east || b.south > b.north { b = world }
        var layer = JSONObject()
        layer["id"] = .string(options.layer)
        layer["fields"] = .object(JSONObject(fields.map { ($0.0, JSONValue.string($0.1)) }))
        layer["minzoom"] = .int(Int64(zooms.lowerBound))
        layer["maxzoom"] = .int(Int64(zooms.upperBound))
        var o = JSONObject()
        o["tilejson"] = .string("3.0.0")
        o["name"] = .string(options.name)
        o["format"] = .string("pbf")
        o["type"] = .string("overlay")
        o["generator"] = .string("MapCore \(MapCoreVersion.string)")
        o["minzoom"] = .int(Int64(zooms.lowerBound))
        o["maxzoom"] = .int(Int64(zooms.upperBound))
        o["bounds"] = .array([b.west, b.south, b.east, b.north].map { .double($0) })
        o["center"] = .array([
            .double((b.west + b.east) / 2), .double((b.south + b.north) / 2),
            .int(Int64(zooms.lowerBound)),
        ])
        o["vector_layers"] = .array([.object(layer)])
        if format == .directory { o["tiles"] = .array([.string("{z}/{x}/{y}.pbf")]) }
        return o
    }
}

/// z/x/y.pbf files under a directory, and metadata.json (a TileJSON whose relative template a
/// VectorTileSource resolves against it).
final class DirectorySink: TilesetSink {
    let root: String
    private var made = Set<String>()

    init(path: String) throws(MapCoreError) {
        root = path
        try makeDirectory(path)
    }

    private func makeDirectory(_ path: String) throws(MapCoreError) {
        if made.contains(path) { return }
        if mkdir(path, 0o755) != 0 && errno != EEXIST {
            throw MapCoreError(.io, "Cannot create directory \(path): \(String(cString: strerror(errno))).")
        }
        made.insert(path)
    }

    func add(_ id: TileID, _ bytes: [UInt8]) throws(MapCoreError) {
        try makeDirectory("\(root)/\(id.z)")
        try makeDirectory("\(root)/\(id.z)/\(id.x)")
        try FileIO.write(path: "\(root)/\(id.z)/\(id.x)/\(id.y).pbf", bytes: bytes)
    }

    func finish(metadata: JSONObject) throws(MapCoreError) {
        try FileIO.write(
            path: "\(root)/metadata.json", bytes: Array(JSON.serialize(.object(metadata), pretty: true).utf8))
    }
}

/// An MBTiles 1.3 archive: tiles in one transaction, metadata as the spec's name/value rows
/// (bounds and center as comma lists, vector_layers inside `json`).
final class MBTilesSink: TilesetSink {
    let archive: MBTiles
    private var open = false

    init(path: String) throws(MapCoreError) { archive = try MBTiles(path: path, create: true) }

    func add(_ id: TileID, _ bytes: [UInt8]) throws(MapCoreError) {
        if !open {
            try archive.begin()
            open = true
        }
        try archive.write(id, bytes: bytes)
    }

    func finish(metadata: JSONObject) throws(MapCoreError) {
        if !open { try archive.begin() }
        for (key, value) in metadata.members {
            switch key {
            case "tilejson", "tiles": continue
            case "bounds", "center":
                let text = (value.arrayValue ?? []).map { JSNumber.format($0.doubleValue ?? 0) }.joined(separator: ",")
                try archive.setMetadata(key, text)
            case "vector_layers":
                var json = JSONObject()
                json["vector_layers"] = value
                try archive.setMetadata("json", JSON.serialize(.object(json)))
            default:
                try archive.setMetadata(key, value.stringValue ?? JSON.serialize(value))
            }
        }
        try archive.commit()
    }
}
