// TileSource: the options of a vector tile source, with the style spec's names (and the iOS SDKs'
// names from their option tables), their defaults, and how a TileJSON document fills the ones the
// caller left out.

/// The style spec's vector source options. These initial values are the one source of the
/// defaults; `tilesource.h` documents them.
public struct TileSourceOptions: Sendable {
    /// Tile URL templates (`tiles`; the SDK's tileURLTemplates).
    public var tiles: [String] = []
    /// A TileJSON document (path, file://, http(s)://) or an archive (`mbtiles://`, `pmtiles://`,
    /// or a path ending in .mbtiles / .pmtiles) describing the tiles (`url`; configurationURL).
    public var url: String? = nil
    public var minZoom = 0
    public var maxZoom = 22
    /// The style spec's default: the Web Mercator world.
    public var bounds = BoundingBox(west: -180, south: -85.051129, east: 180, north: 85.051129)
    public var scheme = TileScheme.xyz
    public var tileSize = 512
    public var attribution: String? = nil
    /// Kept for raster-dem sources (`mapbox` or `terrarium`); vector tiles do not use it.
    public var encoding: String? = nil
    /// The property whose value becomes the feature id in queries.
    public var promoteId: String? = nil

    /// The canonical names of the options the caller set; a TileJSON fills only the others.
    public private(set) var explicit: Set<String> = []

    public init() {}

    /// Options from JSON. Accepts the style spec names and the SDK names (`minimumZoomLevel`,
    /// `maximumZoomLevel`, `coordinateBounds`, `attributionHTMLString`, `tileCoordinateSystem`,
    /// `demEncoding`, `tileURLTemplates`, `configurationURL`, Azure's `minSourceZoom` and
    /// `maxSourceZoom`).
    public init(json: JSONValue) throws(MapCoreError) {
        let r = try OptionReader(json, of: "tile source")
        for (key, v) in r.members {
            let name = Self.canonicalName[key] ?? key
            try set(name, v, reader: r, key: key)
            explicit.insert(name)
        }
        try validate()
    }

    /// The options as JSON with the style spec's names.
    public var json: JSONValue {
        var o = JSONObject()
        o["tiles"] = .array(tiles.map { .string($0) })
        o["url"] = url.map { .string($0) } ?? .null
        o["minzoom"] = .int(Int64(minZoom))
        o["maxzoom"] = .int(Int64(maxZoom))
        o["bounds"] = .array([bounds.west, bounds.south, bounds.east, bounds.north].map { .double($0) })
        o["scheme"] = .string(scheme.rawValue)
        o["tileSize"] = .int(Int64(tileSize))
        o["attribution"] = attribution.map { .string($0) } ?? .null
        o["encoding"] = encoding.map { .string($0) } ?? .null
        o["promoteId"] = promoteId.map { .string($0) } ?? .null
        return .object(o)
    }

    static let canonicalName: [String: String] = [
        "tileURLTemplates": "tiles", "configurationURL": "url",
        "minimumZoomLevel": "minzoom", "minSourceZoom": "minzoom",
        "maximumZoomLevel": "maxzoom", "maxSourceZoom": "maxzoom",
        "coordinateBounds": "bounds", "attributionHTMLString": "attribution",
        "tileCoordinateSystem": "scheme", "demEncoding": "encoding",
    ]

    private mutating func set(_ name: String, _ v: JSONValue, reader r: OptionReader, key: String) throws(MapCoreError)
    {
        switch name {
        case "tiles":
            guard let a = v.arrayValue else { throw r.bad(key, "an array of URL templates") }
            var templates: [String] = []
            for t in a {
                guard let s = t.stringValue else { throw r.bad(key, "an array of URL templates") }
                templates.append(s)
            }
            tiles = templates
        case "url": url = try r.stringOrNull(key, v, "a URL or path")
        case "minzoom": minZoom = try r.int(key, v, 0...TileID.maxZoom)
        case "maxzoom": maxZoom = try r.int(key, v, 0...TileID.maxZoom)
        case "bounds": bounds = try Self.bounds(v, reader: r, key: key)
        case "scheme":
            guard let s = v.stringValue, let scheme = TileScheme(rawValue: s) else {
                throw r.bad(key, "\"xyz\" or \"tms\"")
            }
            self.scheme = scheme
        case "tileSize": tileSize = try r.int(key, v, 1...(1 << 16))
        case "attribution": attribution = try r.stringOrNull(key, v)
        case "encoding": encoding = try r.stringOrNull(key, v)
        case "promoteId": promoteId = try r.stringOrNull(key, v, "a property name or null")
        default: throw r.unknown(key)
        }
    }

    /// `[west, south, east, north]`, south <= north, latitudes within ±90.
    static func bounds(_ v: JSONValue, reader r: OptionReader, key: String) throws(MapCoreError) -> BoundingBox {
        guard let a = v.arrayValue, a.count == 4 else { throw r.bad(key, "[west, south, east, north]") }
        var n: [Double] = []
        for e in a { n.append(try r.number(key, e)) }
        guard n[1] <= n[3], n[1] >= -90, n[3] <= 90 else {
            throw r.bad(key, "[west, south, east, north] with -90 <= south <= north <= 90")
        }
        return BoundingBox(west: n[0], south: n[1], east: n[2], north: n[3])
    }

    func validate() throws(MapCoreError) {
        guard minZoom <= maxZoom else {
            throw MapCoreError(.invalidArgument, "Option minzoom (\(minZoom)) must not exceed maxzoom (\(maxZoom)).")
        }
    }

    /// These options with the values of a TileJSON document for every option the caller did not
    /// set, as MapLibre merges a source's options over its TileJSON. Relative tile templates are
    /// resolved against `base`, the document's location.
    public func filled(fromTileJSON doc: JSONValue, base: String?) throws(MapCoreError) -> TileSourceOptions {
        guard case .object(let o) = doc else { throw MapCoreError(.parse, "A TileJSON document must be an object.") }
        let r = try OptionReader(doc, of: "TileJSON")
        var out = self
        for (key, value) in o.members {
            let known = ["tiles", "minzoom", "maxzoom", "bounds", "scheme", "attribution", "encoding"]
            guard known.contains(key), !explicit.contains(key), value != .null else { continue }
            try out.set(key, value, reader: r, key: key)
        }
        if !explicit.contains("tiles") {
            guard !out.tiles.isEmpty else {
                throw MapCoreError(.parse, "The TileJSON document has no tiles (a non-empty array of URL templates).")
            }
            out.tiles = out.tiles.map { TileSourceOptions.resolve($0, against: base) }
        }
        try out.validate()
        return out
    }

    /// A template relative to the document resolved against the document's directory; absolute
    /// URLs and paths are kept.
    static func resolve(_ template: String, against base: String?) -> String {
        guard let base, !template.hasPrefix("/"), !template.contains("://"),
            let slash = base.lastIndex(of: "/")
        else { return template }
        return String(base[...slash]) + template
    }
}
