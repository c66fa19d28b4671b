// Source: one published state of a data source, with its version. Immutable; its indexes (the
// cluster index, the geojson-vt tile index) are made on the first query that needs them and
// kept with it, so a burst of writes between two frames costs one index build, not one per
// write, and every answer from one state agrees with every other.

public final class SourceSnapshot: Sendable {
    public let options: DataSourceOptions
    /// Counts the writes that changed the source: 0 for a new source, one more per change.
    public let version: UInt64
    let state: SourceState
    private let clusterIndex = Lazy<Supercluster>()
    /// The geojson-vt index of the features passing the filter, made on the first tile request.
    let tiles = Lazy<TileIndex>()

    init(options: DataSourceOptions, state: SourceState, version: UInt64) {
        self.options = options
        self.state = state
        self.version = version
    }

    /// Features held, filtered-out ones included.
    public var count: Int { state.count }

    /// Every feature, in insertion order (an O(n) copy: for export, not for per-frame reads).
    public var features: [Feature] { state.store.features }

    /// The features that pass the filter, in insertion order.
    public var indexedFeatures: [Feature] { state.store.indexedFeatures }

    /// The feature at an insertion-order position.
    public func feature(at position: Int) -> Feature? { state.store.entry(at: position)?.feature }

    /// The first feature (in insertion order) with this id.
    public func feature(withID id: FeatureKey) -> Feature? { state.first(withID: id) }

    /// Calls `body` with every feature and whether it passes the filter, in insertion order.
    public func forEachFeature(_ body: (Feature, _ passes: Bool) throws(MapCoreError) -> Void) throws(MapCoreError) {
        try state.forEach { (e) throws(MapCoreError) in try body(e.feature, e.passes) }
    }

    /// The cluster index over the features passing the filter; nil when the source does not
    /// cluster. Built on the first call for this state (writes checked that every such feature
    /// is a Point the index can project, and options that the radius scales to a number, so the
    /// build does not fail on the data).
    public func clusters() throws(MapCoreError) -> Supercluster? {
        guard options.cluster else { return nil }
        return try clusterIndex.get { () throws(MapCoreError) in
            try Supercluster(
                features: indexedFeatures, options: options.superclusterOptions,
                clusterProperties: options.clusterProperties)
        }
    }

    public func requireClusters() throws(MapCoreError) -> Supercluster {
        guard let clusters = try clusters() else {
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
        if let clusters = try clusters() {
            return clusters.featureCollection(
                try clusters.clusters(west: west, south: south, east: east, north: north, zoom: zoom), pretty: pretty)
        }
        guard west.isFinite, south.isFinite, east.isFinite, north.isFinite, !zoom.isNaN else {
            throw MapCoreError(.invalidArgument, "The bounding box and zoom must be numbers.")
        }
        let query = BoundingBox(west: west, south: south, east: east, north: north)
        var matching: [Feature] = []
        try forEachFeature { (f, passes) throws(MapCoreError) in
            if passes, let box = BoundingBox.of(.feature(f)), query.intersects(box) { matching.append(f) }
        }
        return GeoJSON.featureCollection(FeatureCollection(features: matching)).serialize(pretty: pretty)
    }
}
