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
    /// nil means the renderer's default (`effectiveClusterMaxZoom`).
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
        try checkClustering()
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

    /// With clustering on, the derived supercluster options must be valid now, so the index a
    /// query builds later cannot fail on them (a clusterRadius of 1e308 scales to infinity).
    public func checkClustering() throws(MapCoreError) {
        guard cluster else { return }
        do {
            try superclusterOptions.validate()
        } catch {
            throw MapCoreError(
                .invalidArgument, "data source: clusterRadius \(clusterRadius) is too large to cluster with.")
        }
    }

    /// MapLibre Native's clusterMaxZoom when a source names none (mbgl's `GeoJSONOptions`): its style
    /// conversion keeps it whatever the source's maxzoom, where the style spec and GL JS say maxzoom − 1.
    static let maplibreNativeClusterMaxZoom = 17

    /// clusterMaxZoom, or when unset the default of the renderer whose tiles the source makes:
    /// MapLibre Native's 17, or GL JS's maxZoom − 1 (geojson-vt compatibility). The two agree at the
    /// default maxZoom, 18.
    public var effectiveClusterMaxZoom: Int {
        let unset = tileCompatibility == .maplibreNative ? Self.maplibreNativeClusterMaxZoom : max(0, maxZoom - 1)
        return min(clusterMaxZoom ?? unset, SuperclusterOptions.maxAllowedZoom)
    }

    /// Supercluster options as GL JS derives them: tile extent 8192, radius scaled from 512 px;
    /// in `maplibre-native` compatibility as MapLibre Native does: its clusterRadius is an
    /// integer (the SDK's `integerValue`, the style's uint16), so a fraction is cut off before
    /// the scaling (50.7 px clusters as 50, 0.5 px as 0: exact duplicates only).
    public var superclusterOptions: SuperclusterOptions {
        var o = SuperclusterOptions()
        o.extent = 8192
        o.radius =
            tileCompatibility == .maplibreNative
            ? clusterRadius.rounded(.towardZero) * 8192 / 512 : clusterRadius * 8192 / 512
        o.minZoom = 0
        o.maxZoom = effectiveClusterMaxZoom
        o.minPoints = clusterMinPoints
        o.generateId = generateId
        o.maplibreNativeOutput = tileCompatibility == .maplibreNative
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

public final class DataSource: @unchecked Sendable {
    private let publishLock = Lock()
    private let writeLock = Lock()
    private var current: SourceSnapshot
    /// Next id handed out by generateId; never reused, so ids stay stable across removals.
    private var nextGeneratedID: Int64 = 0
    /// What each write touched, for `changes(since:)`; shared with the frozen views.
    private let log: ChangeLog
    /// A frozen view made by `frozen()`: it answers every read at one version and refuses writes.
    public let isReadOnly: Bool

    public init(options: DataSourceOptions = DataSourceOptions()) throws(MapCoreError) {
        try options.checkClustering()
        current = SourceSnapshot(options: options, state: SourceState(), version: 0)
        log = ChangeLog()
        isReadOnly = false
    }

    private init(frozen snapshot: SourceSnapshot, log: ChangeLog) {
        current = snapshot
        self.log = log
        isReadOnly = true
    }

    /// The current state: query it freely; later writes do not change it.
    public var snapshot: SourceSnapshot { publishLock.withLock { current } }

    /// The current state's version (0 for a new source, one more per write that changed it).
    public var version: UInt64 { snapshot.version }

    /// A read-only source frozen at the current state: every read on it answers from that one
    /// version, whatever is written to this source meanwhile.
    public func frozen() -> DataSource { DataSource(frozen: snapshot, log: log) }

    /// What the writes after version `since` changed, up to this source's (or view's) version.
    public func changes(since: UInt64) throws(MapCoreError) -> SourceChanges {
        try log.changes(since: since, upTo: snapshot.version)
    }

    /// What the writes after version `since` changed, up to the version of `state` (a snapshot of
    /// this source), so an answer and the state it describes are one.
    public func changes(since: UInt64, upTo state: SourceSnapshot) throws(MapCoreError) -> SourceChanges {
        try log.changes(since: since, upTo: state.version)
    }

    /// Throws unless writes are allowed (a frozen view refuses them): callers with costly work
    /// before a write (an import's fetch) ask first.
    public func requireWritable() throws(MapCoreError) {
        guard !isReadOnly else {
            throw MapCoreError(
                .unsupported,
                "This source is a read-only snapshot (mc_source_snapshot); write to the source it came from.")
        }
    }

    /// Runs `body` on a copy of the current state and publishes the result as the next version
    /// when it changed anything; on error nothing changes. Writes are serialised; readers never
    /// wait for one.
    @discardableResult
    private func write<R>(_ body: (inout SourceWrite) throws(MapCoreError) -> R) throws(MapCoreError) -> R {
        try requireWritable()
        return try writeLock.withLock { () throws(MapCoreError) -> R in
            let base = snapshot
            var w = SourceWrite(state: base.state, options: base.options, nextGeneratedID: nextGeneratedID)
            let result = try body(&w)
            nextGeneratedID = w.nextGeneratedID
            guard w.changed else { return result }
            let next = SourceSnapshot(options: w.options, state: w.state, version: base.version + 1)
            // Logged before it is published, so a reader of the new version finds its changes.
            log.record(version: next.version, bounds: base.options.cluster || w.options.cluster ? nil : w.touched)
            publishLock.withLock { current = next }
            return result
        }
    }

    public func add(_ value: GeoJSON) throws(MapCoreError) {
        try write { (w) throws(MapCoreError) in try w.add(value) }
    }

    /// Replaces every feature.
    public func set(_ value: GeoJSON) throws(MapCoreError) {
        try write { (w) throws(MapCoreError) in try w.replaceAll(with: value) }
    }

    /// Removes every feature with this id; returns how many.
    @discardableResult
    public func remove(id: FeatureKey) throws(MapCoreError) -> Int {
        try write { (w) throws(MapCoreError) in w.remove(id: id) }
    }

    /// Removes the feature at an insertion-order index (the web SDK's remove by index).
    public func remove(at index: Int) throws(MapCoreError) {
        try write { (w) throws(MapCoreError) in try w.remove(at: index) }
    }

    public func clear() throws(MapCoreError) {
        try write { (w) throws(MapCoreError) in w.removeAll() }
    }

    /// Applies a GL JS source diff (`SourceDiff`) as one write: all of it, or on error none of it.
    public func updateData(_ diff: SourceDiff) throws(MapCoreError) {
        try write { (w) throws(MapCoreError) in try w.apply(diff) }
    }

    /// Changes options (keys absent from `json` keep their value); the index is rebuilt.
    public func setOptions(_ json: JSONValue) throws(MapCoreError) {
        try write { (w) throws(MapCoreError) in try w.setOptions(try DataSourceOptions(json: json, base: w.options)) }
    }

    public var count: Int { snapshot.count }
}
