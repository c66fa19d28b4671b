// Source: the SDKs' GeoJSON DataSource — features with stable identity, SDK options, and the
// cluster index that follows every change.
//
// Concurrency: the data lives in an immutable snapshot. Writers are serialised by one lock,
// build the next snapshot (index included) off to the side and publish it with a pointer swap;
// readers take the current snapshot under a short lock and query it without holding any lock.
// So a query sees the old or the new data, never a mix, and never waits for a rebuild.

/// The SDK options, with the names and defaults Azure Maps and MapLibre share. These
/// initial values are the one source of the data source's defaults: the C ABI, the bindings and
/// the CLI send only what their caller set, and `source.h` documents these values (a test checks
/// that the documented defaults are the effective ones).
public struct DataSourceOptions: Sendable {
    public var cluster = false
    /// Pixels at tile size 512.
    public var clusterRadius = 50.0
    /// nil means maxZoom − 1.
    public var clusterMaxZoom: Int? = nil
    public var clusterMinPoints = 2
    public var clusterProperties: ClusterProperties? = nil
    /// The style spec's GeoJSON source `maxzoom`.
    public var maxZoom = 18
    /// Pixels at tile size 512 (the style spec's `buffer`).
    public var buffer = 128
    /// Douglas-Peucker tolerance in pixels at tile size 512 (the style spec's `tolerance`).
    public var tolerance = 0.375
    public var lineMetrics = false
    public var generateId = false
    public var promoteId: String? = nil
    /// Features failing it are kept in the source but left out of the index and the queries.
    public var filter: StyleExpression? = nil
    /// Whose tiles `SourceSnapshot.tile` reproduces: MapLibre Native's GeoJSON source's, or
    /// geojson-vt JS's (see `TilingOptions.Compatibility`).
    public var tileCompatibility = TilingOptions.Compatibility.maplibreNative
    /// The most bytes an import may read (after decompression): a library inside another
    /// process must not allocate gigabytes on a URL's say-so.
    public var maxImportBytes = 512 << 20

    public init() {}

    /// Options from JSON with the SDK names; keys not present keep their value in `base`.
    public init(json: JSONValue, base: DataSourceOptions = DataSourceOptions()) throws(MapCoreError) {
        self = base
        let r = try OptionReader(json, of: "data source")
        for (key, v) in r.members {
            switch key {
            case "cluster": cluster = try r.bool(key, v)
            case "clusterRadius": clusterRadius = try r.number(key, v, .positive)
            case "clusterMaxZoom":
                clusterMaxZoom = v == .null ? nil : try r.int(key, v, 0...SuperclusterOptions.maxAllowedZoom)
            case "clusterMinPoints": clusterMinPoints = try r.int(key, v, 2...Int(Int32.max))
            case "clusterProperties": clusterProperties = v == .null ? nil : try ClusterProperties(json: v)
            case "maxZoom": maxZoom = try r.int(key, v, 0...SuperclusterOptions.maxAllowedZoom + 1)
            case "buffer": buffer = try r.int(key, v, 0...512)
            case "tolerance": tolerance = try r.number(key, v, .nonNegative)
            case "lineMetrics": lineMetrics = try r.bool(key, v)
            case "generateId": generateId = try r.bool(key, v)
            case "promoteId": promoteId = try r.stringOrNull(key, v, "a property name or null")
            case "filter":
                if v == .null { filter = nil; continue }
                filter = try StyleExpression.compiled(v, spec: .filter, legacyFilters: true, what: "filter")
            case "maxImportBytes": maxImportBytes = try r.int(key, v, 1...(1 << 40))
            case "tileCompatibility":
                tileCompatibility = try TilingOptions.Compatibility(option: key, v, r)
            default:
                throw r.unknown(key)
            }
        }
    }

    /// The options as JSON with the SDK names (clusterMaxZoom resolved).
    public var json: JSONValue {
        var o = JSONObject()
        o["cluster"] = .bool(cluster)
        o["clusterRadius"] = .double(clusterRadius)
        o["clusterMaxZoom"] = .int(Int64(effectiveClusterMaxZoom))
        o["clusterMinPoints"] = .int(Int64(clusterMinPoints))
        o["clusterProperties"] = clusterProperties?.json ?? .null
        o["maxZoom"] = .int(Int64(maxZoom))
        o["buffer"] = .int(Int64(buffer))
        o["tolerance"] = .double(tolerance)
        o["lineMetrics"] = .bool(lineMetrics)
        o["generateId"] = .bool(generateId)
        o["promoteId"] = promoteId.map { .string($0) } ?? .null
        o["filter"] = filter?.serialize() ?? .null
        o["tileCompatibility"] = .string(tileCompatibility.rawValue)
        o["maxImportBytes"] = .int(Int64(maxImportBytes))
        return .object(o)
    }

    public var effectiveClusterMaxZoom: Int {
        min(clusterMaxZoom ?? max(0, maxZoom - 1), SuperclusterOptions.maxAllowedZoom)
    }

    /// Supercluster options as GL JS derives them: tile extent 8192, radius scaled from 512 px.
    public var superclusterOptions: SuperclusterOptions {
        var o = SuperclusterOptions()
        o.extent = 8192
        o.radius = clusterRadius * 8192 / 512
        o.minZoom = 0
        o.maxZoom = effectiveClusterMaxZoom
        o.minPoints = clusterMinPoints
        o.generateId = generateId
        return o
    }
}

/// A feature id normalised so that 7, 7.0 and 7u are one key.
public enum FeatureKey: Hashable, Sendable {
    case string(String)
    case int(Int64)
    case uint(UInt64)
    case double(Double)

    public init(_ id: FeatureID) {
        switch id {
        case .string(let s): self = .string(s)
        case .int(let v): self = .int(v)
        case .uint(let v): self = v <= UInt64(Int64.max) ? .int(Int64(v)) : .uint(v)
        case .double(let d):
            if d == d.rounded(), abs(d) < 9.2e18 { self = .int(Int64(d)) } else { self = .double(d) }
        }
    }

    /// A key from a JSON id value (string or number), or nil for other JSON.
    public init?(json: JSONValue) {
        switch json {
        case .string(let s): self.init(.string(s))
        case .int(let v): self.init(.int(v))
        case .uint(let v): self.init(.uint(v))
        case .double(let d): self.init(.double(d))
        default: return nil
        }
    }
}

/// One published state of a data source. Immutable.
public final class SourceSnapshot: Sendable {
    public let options: DataSourceOptions
    /// Every feature, in insertion order, ids already promoted or generated.
    public let features: [Feature]
    let positionsByKey: [FeatureKey: [Int]]
    /// Indexes into `features` of the features that pass the filter.
    let indexed: [Int]
    /// The cluster index over the indexed features when clustering is on.
    public let clusters: Supercluster?
    /// The geojson-vt index of the indexed features, made on the first tile request.
    let tiles = LazyTileIndex()

    init(options: DataSourceOptions, features: [Feature]) throws(MapCoreError) {
        self.options = options
        self.features = features
        var keys: [FeatureKey: [Int]] = [:]
        for (i, f) in features.enumerated() {
            if let id = f.id { keys[FeatureKey(id), default: []].append(i) }
        }
        positionsByKey = keys
        var indexed: [Int] = []
        if let filter = options.filter {
            var ctx = EvaluationContext(zoom: 0)
            for (i, f) in features.enumerated() {
                ctx.setFeature(f)
                if case .boolean(true)? = try? filter.evaluate(ctx) { indexed.append(i) }
            }
        } else {
            indexed = Array(features.indices)
        }
        self.indexed = indexed
        if options.cluster {
            let input = indexed.count == features.count ? features : indexed.map { features[$0] }
            do {
                clusters = try Supercluster(
                    features: input, options: options.superclusterOptions,
                    clusterProperties: options.clusterProperties)
            } catch let e where e.code == .unsupported {
                throw MapCoreError(
                    .unsupported, e.message + " Turn clustering off or remove non-point features.", location: e.location
                )
            }
        } else {
            clusters = nil
        }
    }

    public func feature(withID id: FeatureKey) -> Feature? {
        positionsByKey[id]?.first.map { features[$0] }
    }

    public func requireClusters() throws(MapCoreError) -> Supercluster {
        guard let clusters else {
            throw MapCoreError(
                .notFound, "The source does not cluster (option cluster is false): it has no cluster ids.")
        }
        return clusters
    }

    /// Clusters and points in the box at a zoom; without clustering, the indexed features whose
    /// own box intersects it.
    public func clusterItemsJSON(
        west: Double, south: Double, east: Double, north: Double, zoom: Double, pretty: Bool = false
    ) throws(MapCoreError) -> [UInt8] {
        if let clusters {
            return clusters.featureCollection(
                try clusters.clusters(west: west, south: south, east: east, north: north, zoom: zoom), pretty: pretty)
        }
        guard west.isFinite, south.isFinite, east.isFinite, north.isFinite, !zoom.isNaN else {
            throw MapCoreError(.invalidArgument, "The bounding box and zoom must be numbers.")
        }
        let query = BoundingBox(west: west, south: south, east: east, north: north)
        var matching: [Feature] = []
        for i in indexed {
            if let box = BoundingBox.of(.feature(features[i])), query.intersects(box) { matching.append(features[i]) }
        }
        return GeoJSON.featureCollection(FeatureCollection(features: matching)).serialize(pretty: pretty)
    }
}

public final class DataSource: @unchecked Sendable {
    private let publishLock = Lock()
    private let writeLock = Lock()
    private var current: SourceSnapshot
    /// Next id handed out by generateId; never reused, so ids stay stable across removals.
    private var nextGeneratedID: Int64 = 0

    public init(options: DataSourceOptions = DataSourceOptions()) throws(MapCoreError) {
        current = try SourceSnapshot(options: options, features: [])
    }

    /// The current state: query it freely; later writes do not change it.
    public var snapshot: SourceSnapshot { publishLock.withLock { current } }

    /// Builds and publishes the next state from the current one; on error nothing changes.
    private func update(
        _ change: (SourceSnapshot, inout Int64) throws(MapCoreError) -> (DataSourceOptions, [Feature])
    ) throws(MapCoreError) {
        try writeLock.withLock { () throws(MapCoreError) in
            let base = snapshot
            var nextID = nextGeneratedID
            let (options, features) = try change(base, &nextID)
            let next = try SourceSnapshot(options: options, features: features)
            nextGeneratedID = nextID
            publishLock.withLock { current = next }
        }
    }

    /// Features of a GeoJSON value as the source stores them: a bare geometry becomes a feature,
    /// ids are promoted or generated.
    private static func prepare(
        _ value: GeoJSON, _ options: DataSourceOptions, _ nextID: inout Int64
    ) throws(MapCoreError) -> [Feature] {
        var features: [Feature]
        switch value {
        case .geometry(let g): features = [Feature(geometry: g, properties: JSONObject())]
        case .feature(let f): features = [f]
        case .featureCollection(let c): features = c.features
        }
        for i in features.indices {
            if options.generateId {
                features[i].id = .int(nextID)
                nextID += 1
            } else if let key = options.promoteId, let v = features[i].properties?[key] {
                switch v {
                case .string(let s): features[i].id = .string(s)
                case .int(let n): features[i].id = .int(n)
                case .uint(let n): features[i].id = .uint(n)
                case .double(let d): features[i].id = .double(d)
                default: break
                }
            }
        }
        return features
    }

    public func add(_ value: GeoJSON) throws(MapCoreError) {
        try update { (s, nextID) throws(MapCoreError) in
            (s.options, s.features + (try Self.prepare(value, s.options, &nextID)))
        }
    }

    /// Replaces every feature.
    public func set(_ value: GeoJSON) throws(MapCoreError) {
        try update { (s, nextID) throws(MapCoreError) in (s.options, try Self.prepare(value, s.options, &nextID)) }
    }

    /// Removes every feature with this id; returns how many.
    @discardableResult
    public func remove(id: FeatureKey) throws(MapCoreError) -> Int {
        var removed = 0
        try update { (s, _) throws(MapCoreError) in
            guard let positions = s.positionsByKey[id] else { return (s.options, s.features) }
            removed = positions.count
            var keep = s.features
            for p in positions.reversed() { keep.remove(at: p) }
            return (s.options, keep)
        }
        return removed
    }

    /// Removes the feature at an insertion-order index (the web SDK's remove by index).
    public func remove(at index: Int) throws(MapCoreError) {
        try update { (s, _) throws(MapCoreError) in
            guard index >= 0, index < s.features.count else {
                throw MapCoreError(.notFound, "No feature at index \(index) (the source holds \(s.features.count)).")
            }
            var keep = s.features
            keep.remove(at: index)
            return (s.options, keep)
        }
    }

    public func clear() throws(MapCoreError) {
        try update { (s, _) throws(MapCoreError) in (s.options, []) }
    }

    /// Changes options (keys absent from `json` keep their value); the index is rebuilt.
    public func setOptions(_ json: JSONValue) throws(MapCoreError) {
        try update { (s, _) throws(MapCoreError) in (try DataSourceOptions(json: json, base: s.options), s.features) }
    }

    public var count: Int { snapshot.features.count }
}
