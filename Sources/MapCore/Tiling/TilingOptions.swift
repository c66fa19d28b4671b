// Tiling: geojson-vt's options, their defaults (the one home of those facts: tile.h's table is
// checked against them) and their JSON form.

/// The options of geojson-vt 4.0.2, with its names and defaults.
public struct TilingOptions: Sendable, Equatable {
    /// Max zoom to preserve detail on: tiles at this zoom are not simplified.
    public var maxZoom = 14
    /// Max zoom of the tiles made when the index is created.
    public var indexMaxZoom = 5
    /// A tile with more points than this is split when the index is created.
    public var indexMaxPoints = 100_000
    /// Simplification tolerance in tile pixels (higher means simpler).
    public var tolerance = 3.0
    /// Tile extent: tile coordinates run 0…extent.
    public var extent = 4096.0
    /// Tile buffer on each side, in tile pixels.
    public var buffer = 64.0
    /// Keep every line whole in its tiles and tag its parts with `mapbox_clip_start`/`_end`.
    public var lineMetrics = false
    /// A property whose value becomes the tile feature's id.
    public var promoteId: String? = nil
    /// Each feature's index in the input becomes its tile feature's id.
    public var generateId = false
    /// Whose tiles to reproduce (MapCore's option, not geojson-vt's; see `Compatibility`).
    public var compatibility = Compatibility.geojsonVT

    /// geojson-vt JS 4.0.2 (its tests' tiles), or what MapLibre Native's GeoJSON source makes:
    /// geojson-vt-cpp 6.6.5's simplification tie-break, polygon rings kept in their input
    /// orientation (geojson-vt-cpp does not rewind them), and vector tiles written as MVT version
    /// 1, which tells MapLibre Native to fix polygons up as it fixes the polygons of its own
    /// GeoJSON tiles (it does not for version 2).
    public enum Compatibility: String, Sendable, CaseIterable {
        case geojsonVT = "geojson-vt"
        case maplibreNative = "maplibre-native"

        /// The MVT layer version the tiles are written with.
        public var mvtVersion: Int { self == .maplibreNative ? 1 : 2 }

        init(option key: String, _ value: JSONValue, _ r: OptionReader) throws(MapCoreError) {
            guard let s = value.stringValue, let c = Compatibility(rawValue: s) else {
                throw r.bad(key, "\"geojson-vt\" or \"maplibre-native\"")
            }
            self = c
        }
    }

    public init() {}

    /// geojson-vt refuses a maxZoom outside 0…24 (tile ids and 1 << z are exact up to there).
    public static let maxAllowedZoom = 24

    /// Reads geojson-vt's options object; unset options keep their defaults. `debug` is accepted
    /// and ignored (it only logs in geojson-vt); `total` is always kept here.
    public init(json: JSONValue) throws(MapCoreError) {
        let r = try OptionReader(json, of: "tile index")
        for (key, v) in r.members {
            switch key {
            case "maxZoom": maxZoom = try r.int(key, v, 0...Self.maxAllowedZoom)
            case "indexMaxZoom": indexMaxZoom = try r.int(key, v, 0...Self.maxAllowedZoom)
            case "indexMaxPoints": indexMaxPoints = try r.int(key, v, 0...Int(Int32.max))
            case "tolerance": tolerance = try r.number(key, v, .nonNegative)
            case "extent": extent = try r.number(key, v, .positive)
            case "buffer": buffer = try r.number(key, v, .nonNegative)
            case "lineMetrics": lineMetrics = try r.bool(key, v)
            case "promoteId": promoteId = try r.stringOrNull(key, v, "a property name or null")
            case "generateId": generateId = try r.bool(key, v)
            case "compatibility": compatibility = try Compatibility(option: key, v, r)
            case "debug": _ = try r.int(key, v, 0...2)
            default: throw r.unknown(key)
            }
        }
        try validate()
    }

    func validate() throws(MapCoreError) {
        guard (0...Self.maxAllowedZoom).contains(maxZoom) else {
            throw MapCoreError(.invalidArgument, "Option maxZoom must be an integer in 0...24.")
        }
        guard promoteId == nil || !generateId else {
            throw MapCoreError(.invalidArgument, "Options promoteId and generateId cannot be used together.")
        }
        guard extent.isFinite, extent > 0, buffer.isFinite, buffer >= 0, tolerance.isFinite, tolerance >= 0 else {
            throw MapCoreError(
                .invalidArgument, "Options extent, buffer and tolerance must be finite, extent positive.")
        }
    }

    /// Refuses options whose tiles an MVT cannot hold (geojson-vt's JSON tiles can): a layer's
    /// extent is a uint32 and its geometry's parameters are sint32 steps between vertices, so every
    /// coordinate, within the buffer on either side and a unit past it where rounding puts a
    /// clipped vertex, and every step between two must fit 31 bits.
    public func validateForMVT() throws(MapCoreError) {
        guard extent + 2 * buffer + 2 <= Double(Int32.max) else {
            throw MapCoreError(
                .invalidArgument,
                "Options extent \(extent) and buffer \(buffer) make tile coordinates an MVT cannot hold: "
                    + "extent + 2 × buffer must be at most 2^31 - 3 for MVT tiles.")
        }
    }

    /// The effective options as JSON, with geojson-vt's names.
    public var json: JSONValue {
        var o = JSONObject()
        o["maxZoom"] = .int(Int64(maxZoom))
        o["indexMaxZoom"] = .int(Int64(indexMaxZoom))
        o["indexMaxPoints"] = .int(Int64(indexMaxPoints))
        o["tolerance"] = .double(tolerance)
        o["extent"] = .double(extent)
        o["buffer"] = .double(buffer)
        o["lineMetrics"] = .bool(lineMetrics)
        o["promoteId"] = promoteId.map { .string($0) } ?? .null
        o["generateId"] = .bool(generateId)
        o["compatibility"] = .string(compatibility.rawValue)
        return .object(o)
    }
}
