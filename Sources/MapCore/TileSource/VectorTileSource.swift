// TileSource: a vector tile source as MapLibre keeps one — options resolved with their TileJSON,
// the tiles a view needs, their URLs, their bytes (HTTP, files, MBTiles, PMTiles), their features,
// and the features a filter keeps — without drawing anything.
//
// Thread safety: immutable after init; fetching and decoding may run on several threads at once.

import Glibc

public final class VectorTileSource: Sendable {
    /// The options after the TileJSON (or archive metadata) filled what the caller left out.
    public let options: TileSourceOptions
    /// The TileJSON document the source was described by (archive metadata included), if any.
    public let tileJSON: JSONObject?
    let archive: (any TileArchive)?
    /// The most bytes one tile may take, fetched or inflated.
    public static let maxTileBytes = 64 << 20
    /// The most bytes a TileJSON document may take.
    static let maxTileJSONBytes = 16 << 20

    public init(options: TileSourceOptions) throws(MapCoreError) {
        var resolved = options
        var document: JSONObject? = nil
        var archive: (any TileArchive)? = nil
        if let url = options.url {
            if let opened = try Self.openArchive(url) {
                archive = opened.archive
                let meta = try opened.archive.tileJSON()
                document = meta
                // The archive serves the tiles; the template only names them.
                var withTiles = meta.members
                withTiles.append(("tiles", .array([.string(opened.location + "/{z}/{x}/{y}")])))
                resolved = try options.filled(fromTileJSON: .object(JSONObject(withTiles)), base: nil)
            } else {
                let bytes = try Fetch.bytes(from: url, limit: Self.maxTileJSONBytes)
                let parsed = try bytes.withUnsafeBufferPointer { (b) throws(MapCoreError) -> JSONValue in
                    try JSON.parse(b)
                }
                guard case .object(let o) = parsed else {
                    throw MapCoreError(.parse, "The TileJSON at \(url) is not a JSON object.")
                }
                document = o
                resolved = try options.filled(fromTileJSON: parsed, base: url)
            }
        } else if options.tiles.isEmpty {
            throw MapCoreError(.invalidArgument, "A tile source needs tiles (URL templates) or a url (TileJSON).")
        }
        self.options = resolved
        self.tileJSON = document
        self.archive = archive
    }

    /// An archive named by `mbtiles://`, `pmtiles://` or a path ending in .mbtiles / .pmtiles.
    static func openArchive(_ url: String) throws(MapCoreError) -> (archive: any TileArchive, location: String)? {
        let lower = url.lowercased()
        var kind: String
        var rest: String
        if lower.hasPrefix("mbtiles://") || lower.hasPrefix("pmtiles://") {
            kind = String(lower.prefix(7))
            rest = String(url.dropFirst(10))
        } else if lower.hasSuffix(".mbtiles") || lower.hasSuffix(".pmtiles"), !lower.hasPrefix("http") {
            kind = String(lower.suffix(7))
            rest = url
        } else {
            return nil
        }
        if rest.lowercased().hasPrefix("http://") || rest.lowercased().hasPrefix("https://") {
            throw MapCoreError(.unsupported, "Archives are read from local files; \(url) is remote.")
        }
        let path = try Fetch.localPath(rest)
        guard FileIO.exists(path) else { throw MapCoreError(.notFound, "No archive at \(path).") }
        let archive: any TileArchive = kind == "mbtiles" ? try MBTiles(path: path) : try PMTilesArchive(path: path)
        return (archive, "\(kind)://\(path)")
    }

    /// The URL of a tile: the template GL JS would pick among several, expanded as MapLibre
    /// Native expands it (see `TileURL`).
    public func url(for tile: TileID, pixelRatio: Double = 1) -> String {
        let template = TileURL.template(for: tile, among: options.tiles) ?? ""
        return TileURL.expand(
            template, tile: tile, scheme: archive == nil ? options.scheme : .xyz, pixelRatio: pixelRatio)
    }

    /// Whether MapLibre would ask this source for `tile`: within the zoom range and the bounds.
    public func serves(_ tile: TileID) -> Bool {
        guard tile.z >= options.minZoom, tile.z <= options.maxZoom else { return false }
        return Self.boundsContain(options.bounds, tile)
    }

    /// MapLibre Native's TileRange for the source bounds at the tile's zoom: the tile's column
    /// and row must lie within those of the bounds' corners (wrapping when the bounds cross the
    /// antimeridian).
    static func boundsContain(_ b: BoundingBox, _ tile: TileID) -> Bool {
        if tile.z == 0 { return true }
        let n = Double(1 << tile.z)
        func wrap(_ lng: Double) -> Double {
            let w = (lng + 180).truncatingRemainder(dividingBy: 360)
            return (w < 0 ? w + 360 : w) - 180
        }
        let lat = { (v: Double) in min(max(v, -TileCover.maxLatitude), TileCover.maxLatitude) }
        let minX = floor(Projection.MapLibre.x(lng: wrap(b.west)) * n)
        let maxX = floor(Projection.MapLibre.x(lng: b.east > 180 ? wrap(b.east) : b.east) * n)
        let minY = min(max(floor(Projection.MapLibre.y(lat: lat(b.north)) * n), 0), n)
        let maxY = min(max(floor(Projection.MapLibre.y(lat: lat(b.south)) * n), 0), n)
        let x = Double(tile.x), y = Double(tile.y)
        let inX = minX > maxX ? (x >= minX || x <= maxX) : (x >= minX && x <= maxX)
        return inX && y >= minY && y <= maxY
    }

    /// A tile MapLibre loads for a view, and the zoom it draws it at (above `tile.z` when the map
    /// is zoomed past the source's maxzoom: the tile is overzoomed).
    public struct CoveredTile: Equatable, Sendable {
        public var tile: TileID
        public var overscaledZoom: Int
    }

    /// The tiles a map at `mapZoom` showing `box` loads from this source, closest to the centre
    /// first: MapLibre's covering zoom for the source's tile size, nothing below minzoom, capped
    /// at maxzoom (overzoomed beyond), tiles outside the source bounds left out.
    public func cover(_ box: BoundingBox, mapZoom: Double) throws(MapCoreError) -> [CoveredTile] {
        guard mapZoom.isFinite, mapZoom >= 0, mapZoom <= Double(TileID.maxZoom) else {
            throw MapCoreError(.invalidArgument, "Zoom must be a number in 0...\(TileID.maxZoom).")
        }
        let overscaled = TileCover.coveringZoom(mapZoom: mapZoom, tileSize: options.tileSize)
        guard overscaled >= options.minZoom else { return [] }
        let zoom = min(max(overscaled, 0), options.maxZoom)
        return try TileCover.tiles(covering: box, zoom: zoom).filter(serves).map {
            CoveredTile(tile: $0, overscaledZoom: max(overscaled, zoom))
        }
    }

    /// The bytes of a tile, inflated when gzip-compressed (`inflate`), or nil when there is no
    /// tile: outside the zoom range or bounds, absent from the archive or directory, HTTP 404/204.
    public func fetch(_ tile: TileID, inflate: Bool = true) throws(MapCoreError) -> [UInt8]? {
        guard serves(tile) else { return nil }
        let stored: [UInt8]?
        if let archive {
            stored = try archive.tile(tile)
        } else {
            stored = try Fetch.tile(from: url(for: tile), limit: Self.maxTileBytes)
        }
        guard let bytes = stored, !bytes.isEmpty else { return nil }
        guard inflate else { return bytes }
        return try bytes.withUnsafeBufferPointer { b throws(MapCoreError) -> [UInt8] in
            let raw = UnsafeRawBufferPointer(b)
            return Gzip.isCompressed(raw) ? try Gzip.inflate(raw, limit: Self.maxTileBytes) : bytes
        }
    }

    /// The decoded tile, or nil when there is none.
    public func vectorTile(_ tile: TileID) throws(MapCoreError) -> VectorTile? {
        guard let bytes = try fetch(tile) else { return nil }
        return try bytes.withUnsafeBufferPointer { b throws(MapCoreError) in
            try VectorTile(decoding: UnsafeRawBufferPointer(b))
        }
    }

    /// The features of a tile, in one source layer or all, with positions in longitude/latitude
    /// (`geographic`) or tile coordinates. `promoteId` makes a property the feature id.
    public func features(
        _ tile: TileID, sourceLayer: String? = nil, geographic: Bool = true
    ) throws(MapCoreError) -> [(layer: String, feature: Feature)] {
        guard let decoded = try vectorTile(tile) else { return [] }
        var out: [(layer: String, feature: Feature)] = []
        for layer in decoded.layers where sourceLayer == nil || layer.name == sourceLayer {
            for f in layer.features {
                var feature = try f.feature(extent: Double(layer.extent), tile: geographic ? tile : nil)
                if let key = options.promoteId { feature.id = Self.promotedID(feature.properties?[key]) }
                out.append((layer.name, feature))
            }
        }
        return out
    }

    static func promotedID(_ value: JSONValue?) -> FeatureID? {
        switch value {
        case .string(let s)?: return .string(s)
        case .int(let v)?: return .int(v)
        case .uint(let v)?: return .uint(v)
        case .double(let v)?: return .double(v)
        default: return nil
        }
    }

    /// The features of the tiles covering `box` at `mapZoom` in `sourceLayer` that `filter`
    /// keeps (evaluated at that zoom; an evaluation error is no match, as in MapLibre), each once:
    /// MapLibre's querySourceFeatures. Features with an id appear once however many tiles hold
    /// them (the first tile's copy, closest to the centre); geometries are those of the tile they
    /// came from, clipped to its buffer.
    public func query(
        _ box: BoundingBox, mapZoom: Double, sourceLayer: String?, filter: StyleExpression? = nil
    ) throws(MapCoreError) -> [Feature] {
        var seen = Set<FeatureID>()
        var out: [Feature] = []
        var ctx = EvaluationContext(zoom: mapZoom)
        for covered in try cover(box, mapZoom: mapZoom) {
            for (_, feature) in try features(covered.tile, sourceLayer: sourceLayer) {
                if let filter {
                    ctx.setFeature(feature)
                    ctx.canonical = CanonicalTileID(z: covered.tile.z, x: covered.tile.x, y: covered.tile.y)
                    guard case .boolean(true)? = try? filter.evaluate(ctx) else { continue }
                }
                if let id = feature.id, !seen.insert(id).inserted { continue }
                out.append(feature)
            }
        }
        return out
    }
}
