// Cluster: supercluster's options, their defaults (the one home of those facts: the C header's
// table and the CLI's help are checked against them) and their JSON form.

public struct SuperclusterOptions: Sendable, Equatable {
    public var minZoom = 0
    public var maxZoom = 16
    public var minPoints = 2
    /// Cluster radius in pixels of a tile `extent` wide.
    public var radius = 40.0
    public var extent = 512.0
    public var nodeSize = 64
    /// Tile features of points get their input index as id.
    public var generateId = false
    /// Build and answer as supercluster-cpp 0.5.0 does (MapLibre Native's clustered GeoJSON
    /// sources; `Supercluster+Cpp.swift`): its index, ids, orders and folds, point_count_abbreviated
    /// always a string, "%.1fk" from 1,000 and "%fk" from 10,000 as its stream formats them
    /// ("1.2k", "12.000000k"), and tile coordinates rounded as C's round. Set by a data source in
    /// its `maplibre-native` compatibility; not in the JSON form. `nodeSize` does not apply
    /// (kdbush.hpp's 64).
    public var maplibreNativeOutput = false

    public init() {}

    /// The cluster id keeps the formation zoom in 5 bits.
    public static let maxAllowedZoom = 30

    func validate() throws(MapCoreError) {
        func bad(_ m: String) -> MapCoreError { MapCoreError(.invalidArgument, m) }
        guard minZoom >= 0, maxZoom <= Self.maxAllowedZoom, minZoom <= maxZoom else {
            throw bad(
                "minZoom and maxZoom must satisfy 0 <= minZoom <= maxZoom <= \(Self.maxAllowedZoom) (got "
                    + "\(minZoom), \(maxZoom))."
            )
        }
        // supercluster-cpp also clusters with radius 0 (exact duplicates), which a data source's
        // integer clusterRadius below 1 px gives.
        guard radius.isFinite, radius > 0 || (maplibreNativeOutput && radius == 0) else {
            throw bad("radius must be a positive number (got \(radius)).")
        }
        guard extent.isFinite, extent > 0 else { throw bad("extent must be a positive number (got \(extent)).") }
        guard minPoints >= 2, minPoints <= Int(Int32.max) else {
            throw bad("minPoints must be at least 2 (got \(minPoints)).")
        }
        guard nodeSize >= 2, nodeSize <= 1 << 16 else {
            throw bad("nodeSize must be between 2 and 65536 (got \(nodeSize)).")
        }
    }
}

extension SuperclusterOptions {
    /// Reads supercluster's options object (`radius`, `extent`, `minZoom`, `maxZoom`,
    /// `minPoints`, `nodeSize`, `generateId`, `clusterProperties`; `log` accepted and ignored, as
    /// it only times supercluster's console output). Unset options keep their defaults.
    public static func read(
        json: JSONValue
    ) throws(MapCoreError) -> (
        options: SuperclusterOptions,
        properties: ClusterProperties?
    ) {
        let r = try OptionReader(json, of: "cluster index")
        var options = SuperclusterOptions()
        var properties: ClusterProperties?
        for (key, v) in r.members {
            switch key {
            case "radius": options.radius = try r.number(key, v, .positive)
            case "extent": options.extent = try r.number(key, v, .positive)
            case "minZoom": options.minZoom = try r.int(key, v, 0...maxAllowedZoom)
            case "maxZoom": options.maxZoom = try r.int(key, v, 0...maxAllowedZoom)
            case "minPoints": options.minPoints = try r.int(key, v, 2...Int(Int32.max))
            case "nodeSize": options.nodeSize = try r.int(key, v, 2...(1 << 16))
            case "generateId": options.generateId = try r.bool(key, v)
            case "clusterProperties": properties = v == .null ? nil : try ClusterProperties(json: v)
            case "log": continue
            default: throw r.unknown(key)
            }
        }
        try options.validate()
        return (options, properties)
    }
}
