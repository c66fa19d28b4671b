// Cluster: point clustering with the algorithm, ids, properties and result order of
// mapbox/supercluster 8 (see Tests/fixtures/supercluster/README.md for every rule reproduced).
//
// Storage differs from upstream to save memory: items (points and clusters) live once in flat
// tables, and a zoom level is only a KD tree of item references. Everything upstream keeps per
// level and per item (parent id, "handled at zoom") is a property of the item itself, because an
// item is merged into a cluster at most once.

import CMapCoreKernels
import Glibc

/// One result item: an input point (by input index) or a cluster (by cluster table index).
public enum ClusterItem: Equatable, Sendable {
    case point(Int)
    case cluster(Int)

    @inline(__always) init(ref: Int32) { self = ref >= 0 ? .point(Int(ref)) : .cluster(Int(-1 - ref)) }
}

/// One item of a flat result: a cluster's id or a point's input index, its position and count.
public struct ClusterRecord: Equatable, Sendable {
    public var id: Int
    public var lng: Double
    public var lat: Double
    public var pointCount: Int
}

/// A feature of `Supercluster.tile`: tile pixel coordinates of one item.
public struct TileItem: Sendable, Equatable {
    public var item: ClusterItem
    public var x: Double
    public var y: Double
}

/// A cluster's record. What a clustering pass reads and writes about a neighbouring cluster sits
/// together, so it costs one cache miss, not one per table.
struct ClusterNode {
    /// The weighted centre in the unit square (not rounded: the tree holds it as Float).
    var x: Double, y: Double
    var id: Int
    var count: Int32
    /// The table index of the cluster this one was merged into, or -1.
    var parent: Int32 = -1
    /// The item whose turn formed the cluster: its position in the level above is the centre of
    /// the children query.
    var leader: Int32
    /// Build state: the zoom whose pass claimed it.
    var zoom = Int8.max
}

public final class Supercluster: Sendable {
    public let options: SuperclusterOptions
    public let clusterProperties: ClusterProperties?
    /// The input features, as given; empty for an index of bare positions (`init(positions:)`).
    private let inputFeatures: [Feature]
    /// Number of inputs, null-geometry features included: the base of cluster ids.
    public let inputCount: Int

    // Input points (indexed by input index; unused for features without geometry). Longitude
    // and latitude are interleaved: flat queries read both for items in spatial order, which is
    // a random order of input indexes, so one cache line per point instead of two.
    private let pointLngLat: ContiguousArray<Double>
    /// Projected positions by input index, rounded to Float: the trees' coordinates of points
    /// (the trees keep only refs, `ItemPositions`).
    private let pointXY: ContiguousArray<Float>
    /// The table index of the cluster a point was merged into, or -1.
    private let pointParent: ContiguousArray<Int32>

    // Clusters, in creation order (by zoom, from maxZoom down; within a zoom by id).
    let clusters: ContiguousArray<ClusterNode>
    private let clusterProps: [JSONObject]
    /// Table indexes of the clusters formed at zoom z, at [z - minZoom]; ascending ids.
    private let clusterRanges: [Range<Int>]
    /// trees[z - minZoom] for z in minZoom...maxZoom+1 (the last one holds the raw points).
    private let trees: [KDBush]
    /// supercluster-cpp's levels instead of `trees` and `pointXY`, when the options ask for its
    /// output (`SuperclusterOptions.maplibreNativeOutput`).
    private let cpp: CppLevels?
    /// What a cluster id is counted from: the input count in supercluster JS, 0 in supercluster-cpp.
    private var idBase: Int { cpp == nil ? inputCount : 0 }
    /// Whose sin, log, exp and atan project: supercluster JS's (V8's) or supercluster-cpp's (C's).
    var math: MathLibrary { cpp == nil ? .javaScript : .c }

    /// Indexes `features`. Features without geometry are skipped; any other non-Point geometry
    /// is an error, as clustering only applies to points.
    public convenience init(
        features: [Feature], options: SuperclusterOptions = SuperclusterOptions(),
        clusterProperties: ClusterProperties? = nil
    ) throws(MapCoreError) {
        guard features.count < Int(Int32.max) else {
            throw MapCoreError(.limit, "At most \(Int32.max - 1) features can be clustered.")
        }
        var lngLat = ContiguousArray<Double>(repeating: 0, count: 2 * features.count)
        var located = ContiguousArray<Int32>()
        located.reserveCapacity(features.count)
        for (i, f) in features.enumerated() {
            guard let g = f.geometry else { continue }
            guard Supercluster.clusterable(g) else {
                throw MapCoreError(
                    .unsupported, "Clustering only applies to Point features; feature \(i) is a \(g.type.name).",
                    location: SourceLocation(offset: -1, line: 0, column: 0, path: "$.features[\(i)].geometry"))
            }
            lngLat[2 * i] = g.xy[0]
            lngLat[2 * i + 1] = g.xy[1]
            located.append(Int32(i))
        }
        try self.init(
            input: features, count: features.count, lngLat: lngLat, located: located,
            options: options, clusterProperties: clusterProperties)
    }

    /// Whether a geometry can be clustered: a Point (with its position).
    public static func clusterable(_ g: Geometry) -> Bool { g.type == .point && g.xy.count >= 2 }

    /// Whether a point's projection fits the index's Float coordinates (a longitude beyond about
    /// 1e41 does not).
    static func projectable(_ x: Float, _ y: Float) -> Bool { x.isFinite && y.isFinite }

    /// Whether the index can hold this Point: `clusterable` and `projectable` (whose answer no
    /// library's last bit changes: a latitude projects into [0, 1], or to NaN).
    public static func indexable(_ g: Geometry) -> Bool {
        clusterable(g) && projectable(Float(Projection.x(lng: g.xy[0])), Float(Projection.y(lat: g.xy[1], .c)))
    }

    /// Indexes bare points, given as interleaved longitude/latitude pairs, without making a
    /// feature for each: `feature(_:)` makes one on demand (a Point, no id, null properties).
    public convenience init(
        positions lngLat: UnsafeBufferPointer<Double>, options: SuperclusterOptions = SuperclusterOptions(),
        clusterProperties: ClusterProperties? = nil
    ) throws(MapCoreError) {
        let n = lngLat.count / 2
        guard n < Int(Int32.max) else {
            throw MapCoreError(.limit, "At most \(Int32.max - 1) points can be clustered.")
        }
        for i in 0..<n where !(lngLat[2 * i].isFinite && lngLat[2 * i + 1].isFinite) {
            throw MapCoreError(.invalidArgument, "Point \(i) has a non-finite coordinate.")
        }
        try self.init(
            input: [], count: n, lngLat: ContiguousArray(lngLat[0..<(2 * n)]), located: ContiguousArray(0..<Int32(n)),
            options: options, clusterProperties: clusterProperties)
    }

    /// `located`: the input indexes that have a position in `lngLat`, ascending.
    private init(
        input: [Feature], count n: Int, lngLat: ContiguousArray<Double>, located order: ContiguousArray<Int32>,
        options: SuperclusterOptions, clusterProperties: ClusterProperties?
    ) throws(MapCoreError) {
        try options.validate()
        let built =
            options.maplibreNativeOutput
            ? try Self.buildCpp(
                input: input, count: n, lngLat: lngLat, located: order, options: options, props: clusterProperties)
            : try Self.build(
                input: input, count: n, lngLat: lngLat, located: order, options: options,
                props: clusterProperties)
        self.options = options
        self.clusterProperties = clusterProperties
        inputFeatures = input
        inputCount = n
        pointLngLat = lngLat
        pointXY = built.pointXY
        pointParent = built.pointParent
        clusters = built.clusters
        clusterProps = built.clusterProps
        clusterRanges = built.clusterRanges
        trees = built.trees
        cpp = built.cpp
    }

    // MARK: item accessors

    /// The input feature at an input index (made on demand for an index of bare positions).
    public func feature(_ i: Int) -> Feature { Self.feature(i, inputFeatures, pointLngLat) }

    static func feature(_ i: Int, _ input: [Feature], _ lngLat: ContiguousArray<Double>) -> Feature {
        input.isEmpty ? Feature(geometry: .point(lngLat[2 * i], lngLat[2 * i + 1])) : input[i]
    }

    /// Number of input points an item stands for (1 for a point).
    public func pointCount(_ item: ClusterItem) -> Int {
        switch item {
        case .point: return 1
        case .cluster(let c): return Int(clusters[c].count)
        }
    }

    /// The cluster id of a cluster, the input index of a point.
    public func id(_ item: ClusterItem) -> Int {
        switch item {
        case .point(let i): return i
        case .cluster(let c): return clusters[c].id
        }
    }

    /// Longitude and latitude: a point's input position, a cluster's weighted centre.
    public func position(_ item: ClusterItem) -> (lng: Double, lat: Double) {
        switch item {
        case .point(let i): return (pointLngLat[2 * i], pointLngLat[2 * i + 1])
        case .cluster(let c): return (Projection.lng(x: clusters[c].x), Projection.lat(y: clusters[c].y, math))
        }
    }

    /// An item as one flat record (the C ABI's `mc_cluster_item`).
    public func record(_ item: ClusterItem) -> ClusterRecord {
        let (lng, lat) = position(item)
        return ClusterRecord(id: id(item), lng: lng, lat: lat, pointCount: pointCount(item))
    }

    /// The properties a cluster carries: aggregates first, then the four standard keys.
    public func clusterProperties(_ c: Int) -> JSONObject {
        var props = clusterProps.isEmpty ? JSONObject() : clusterProps[c]
        let count = Int(clusters[c].count)
        props["cluster"] = .bool(true)
        props["cluster_id"] = .int(Int64(clusters[c].id))
        props["point_count"] = .int(Int64(count))
        props["point_count_abbreviated"] = Self.abbreviated(count, cpp: options.maplibreNativeOutput)
        return props
    }

    /// supercluster's point_count_abbreviated: the count below 1000, else "1.2k" / "16k"; or
    /// supercluster-cpp's (`cpp`): the count as a string, else the thousands as C's "%.1f" writes
    /// them below 10,000 and "%f" from it (a stream set `fixed`, its precision left at 6), then "k".
    static func abbreviated(_ count: Int, cpp: Bool = false) -> JSONValue {
        if cpp {
            guard count >= 1000 else { return .string(String(count)) }
            return .string(fixed(Double(count) / 1000, decimals: count < 10000 ? 1 : 6) + "k")
        }
        if count >= 10000 { return .string(JSNumber.format((Double(count) / 1000).jsRounded) + "k") }
        if count >= 1000 { return .string(JSNumber.format((Double(count) / 100).jsRounded / 10) + "k") }
        return .int(Int64(count))
    }

    /// `value` with `decimals` (0...9) digits after the point as C's printf "%.*f" writes it in
    /// the "C" locale: the double's exact binary value rounded half to even. Not printf itself,
    /// whose decimal point is the host's LC_NUMERIC (a comma in some), where supercluster-cpp's
    /// stream keeps ".". For values from 1 to 2^53 (counts); others as Swift writes them.
    static func fixed(_ value: Double, decimals: Int) -> String {
        guard value.isFinite, value >= 1, value.exponent < 53, (0...9).contains(decimals) else { return "\(value)" }
        var scale: UInt128 = 1
        for _ in 0..<decimals { scale *= 10 }
        // value = m · 2^-shift exactly, 0 <= shift <= 52; times the scale at most 2^53 · 10^9.
        let m = UInt128((1 << 52) | value.significandBitPattern), shift = 52 - Int(value.exponent)
        let exact = m * scale
        var n = exact >> shift
        if shift > 0 {
            let rest = exact & ((1 << shift) - 1), half = UInt128(1) << (shift - 1)
            if rest > half || (rest == half && n & 1 == 1) { n += 1 }
        }
        let whole = String(n / scale)
        guard decimals > 0 else { return whole }
        let fraction = String(n % scale)
        return whole + "." + String(repeating: "0", count: decimals - fraction.count) + fraction
    }

    /// The item an id names: a point by its input index (0..<inputCount), the cluster with
    /// cluster id c by -1 - c, and in supercluster JS's numbering (ids above the input count) a
    /// cluster by its id too; anything else is not found. supercluster-cpp's ids overlap input
    /// indexes, so only the negative form names its clusters.
    public func item(id: Int) throws(MapCoreError) -> ClusterItem {
        if id < 0 { return .cluster(try cluster(withID: -1 - id)) }
        if id < inputCount { return .point(id) }
        guard cpp == nil else { throw MapCoreError(.notFound, "No point with the input index \(id).") }
        return .cluster(try cluster(withID: id))
    }

    /// The zoom field of a cluster id: the zoom it was formed at, plus 1.
    private func zoomField(_ id: Int) -> Int { (id - idBase) & 31 }

    /// The cluster table index of a cluster id, or a not-found error.
    public func cluster(withID id: Int) throws(MapCoreError) -> Int {
        let notFound = MapCoreError(.notFound, "No cluster with the specified id (\(id)).")
        guard id > idBase else { throw notFound }
        let formedAt = zoomField(id) - 1
        guard formedAt >= options.minZoom, formedAt <= options.maxZoom else { throw notFound }
        let range = clusterRanges[formedAt - options.minZoom]
        var lo = range.lowerBound, hi = range.upperBound
        while lo < hi {
            let mid = (lo + hi) >> 1
            if clusters[mid].id < id { lo = mid + 1 } else { hi = mid }
        }
        guard lo < range.upperBound, clusters[lo].id == id else { throw notFound }
        return lo
    }

    // MARK: queries

    /// A level item's tree position by ref: a point's projection as the trees hold it, a
    /// cluster's centre rounded to Float (what its level's tree was built from).
    struct ItemPositions: KDPositions {
        let points: UnsafeBufferPointer<Float>
        let clusters: UnsafeBufferPointer<ClusterNode>
        @inline(__always) func position(slot: Int, ref: Int32) -> (x: Float, y: Float) {
            if ref >= 0 { return (points[2 * Int(ref)], points[2 * Int(ref) + 1]) }
            let c = clusters[Int(-1 - ref)]
            return (Float(c.x), Float(c.y))
        }
    }

    private func withItemPositions<R>(_ body: (ItemPositions) -> R) -> R {
        pointXY.withUnsafeBufferPointer { points in
            clusters.withUnsafeBufferPointer { clusters in body(ItemPositions(points: points, clusters: clusters)) }
        }
    }

    /// The refs of level `level` (an index into the trees) in the box, in its tree's report order.
    private func forEachRef(
        level: Int, minX: Double, minY: Double, maxX: Double, maxY: Double, _ body: (Int32) -> Void
    ) {
        if let cpp {
            cpp.withPositions(clusters) { positions in
                cpp.trees[level].range(minX: minX, minY: minY, maxX: maxX, maxY: maxY, positions: positions, body)
            }
            return
        }
        let tree = trees[level]
        withItemPositions { positions in
            tree.range(minX: minX, minY: minY, maxX: maxX, maxY: maxY, positions: positions, body)
        }
    }

    /// The refs of level `level` within `r` of (x, y), in its tree's report order.
    private func forEachRef(level: Int, within r: Double, of x: Double, _ y: Double, _ body: (Int32) -> Void) {
        if let cpp {
            cpp.withPositions(clusters) { positions in cpp.trees[level].within(x, y, r, positions: positions, body) }
            return
        }
        let tree = trees[level]
        withItemPositions { positions in tree.within(x, y, r, positions: positions, body) }
    }

    /// The level a query zoom reads: floored and clamped to minZoom...maxZoom+1.
    func level(_ zoom: Double) throws(MapCoreError) -> Int {
        guard !zoom.isNaN else { throw MapCoreError(.invalidArgument, "zoom must be a number (got NaN).") }
        let z = zoom.rounded(.down)
        let clamped = max(Double(options.minZoom), min(z, Double(options.maxZoom + 1)))
        return Int(clamped) - options.minZoom
    }

    /// Clusters and points in `bbox` (west, south, east, north in degrees) at `zoom`, in
    /// supercluster's order. A box with west > east crosses the antimeridian.
    public func clusters(
        west: Double, south: Double, east: Double, north: Double, zoom: Double
    ) throws(MapCoreError) -> [ClusterItem] {
        try itemRefs(west: west, south: south, east: east, north: north, zoom: zoom).map(ClusterItem.init(ref:))
    }

    /// `clusters` for hot paths: counts the items and, only when `capacity` holds them all,
    /// calls `write` with each one's index and record, in order. Returns the count.
    public func clusterRecords(
        west: Double, south: Double, east: Double, north: Double, zoom: Double,
        capacity: Int, write: (Int, ClusterRecord) -> Void
    ) throws(MapCoreError) -> Int {
        let refs = try itemRefs(west: west, south: south, east: east, north: north, zoom: zoom)
        guard refs.count <= capacity else { return refs.count }
        // Refs come in tree order, a random order of the tables' rows: a row is fetched a few
        // items ahead so that the cache misses overlap instead of stalling one by one.
        let ahead = 24
        pointLngLat.withUnsafeBufferPointer { lngLat in
            clusters.withUnsafeBufferPointer { nodes in
                refs.withUnsafeBufferPointer { refs in
                    for k in refs.indices {
                        if k + ahead < refs.count {
                            let r = Int(refs[k + ahead])
                            if r >= 0 {
                                lngLat.baseAddress.map { mc_prefetch($0 + 2 * r) }
                            } else {
                                nodes.baseAddress.map { mc_prefetch($0 + (-1 - r)) }
                            }
                        }
                        write(k, record(ClusterItem(ref: refs[k])))
                    }
                }
            }
        }
        return refs.count
    }

    private func itemRefs(
        west: Double, south: Double, east: Double, north: Double, zoom: Double
    ) throws(MapCoreError) -> ContiguousArray<Int32> {
        guard west.isFinite, south.isFinite, east.isFinite, north.isFinite else {
            throw MapCoreError(.invalidArgument, "The bounding box must hold four finite numbers.")
        }
        let level = try level(zoom)
        var out = ContiguousArray<Int32>()
        func wrap(_ lng: Double) -> Double {
            ((lng + 180).truncatingRemainder(dividingBy: 360) + 360).truncatingRemainder(dividingBy: 360) - 180
        }
        var minLng = wrap(west)
        var maxLng = east == 180 ? 180 : wrap(east)
        let minLat = max(-90, min(90, south)), maxLat = max(-90, min(90, north))
        func collect(_ w: Double, _ e: Double) {
            forEachRef(
                level: level, minX: Projection.x(lng: w), minY: Projection.y(lat: maxLat, math),
                maxX: Projection.x(lng: e), maxY: Projection.y(lat: minLat, math)
            ) { out.append($0) }
        }
        if east - west >= 360 {
            minLng = -180
            maxLng = 180
        } else if minLng > maxLng {
            collect(minLng, 180)
            collect(-180, maxLng)
            return out
        }
        collect(minLng, maxLng)
        return out
    }

    /// supercluster's getTile: items of tile z/x/y with the tile's pixel coordinates (extent
    /// wide), including the `radius` margin and the antimeridian copies at the world's edges.
    public func tile(z: Int, x: Int, y: Int) throws(MapCoreError) -> [TileItem] {
        guard z >= 0, z <= 40 else {
            throw MapCoreError(.invalidArgument, "Tile zoom must be between 0 and 40 (got \(z)).")
        }
        let tilesPerSide = 1 << z
        guard x >= 0, x < tilesPerSide, y >= 0, y < tilesPerSide else {
            throw MapCoreError(
                .invalidArgument, "Tile \(z)/\(x)/\(y) is outside the \(tilesPerSide)x\(tilesPerSide) grid.")
        }
        let level = try level(Double(z))
        let z2 = Double(tilesPerSide)
        let p = options.radius / options.extent
        let top = (Double(y) - p) / z2, bottom = (Double(y) + 1 + p) / z2
        let cppRounding = options.maplibreNativeOutput
        // supercluster-cpp's points are their projections, which its levels keep; supercluster JS
        // projects a point's longitude and latitude again (its trees hold them rounded to Float).
        let cppPoints = cpp?.pointXY
        var out: [TileItem] = []
        func add(minX: Double, maxX: Double, shiftX: Double) {
            forEachRef(level: level, minX: minX, minY: top, maxX: maxX, maxY: bottom) { ref in
                let item = ClusterItem(ref: ref)
                let px: Double, py: Double
                switch item {
                case .point(let i):
                    if let cppPoints {
                        px = cppPoints[2 * i]
                        py = cppPoints[2 * i + 1]
                    } else {
                        px = Projection.x(lng: pointLngLat[2 * i])
                        py = Projection.y(lat: pointLngLat[2 * i + 1], .javaScript)
                    }
                case .cluster(let c):
                    px = clusters[c].x
                    py = clusters[c].y
                }
                let tx = options.extent * (px * z2 - shiftX), ty = options.extent * (py * z2 - Double(y))
                out.append(
                    cppRounding
                        ? TileItem(item: item, x: tx.rounded(), y: ty.rounded())
                        : TileItem(item: item, x: tx.jsRounded, y: ty.jsRounded))
            }
        }
        add(minX: (Double(x) - p) / z2, maxX: (Double(x) + 1 + p) / z2, shiftX: Double(x))
        if x == 0 { add(minX: 1 - p / z2, maxX: 1, shiftX: z2) }
        if x == tilesPerSide - 1 { add(minX: 0, maxX: p / z2, shiftX: -1) }
        return out
    }

    /// The items a cluster was formed from, in supercluster's order.
    public func children(of clusterID: Int) throws(MapCoreError) -> [ClusterItem] {
        let c = try cluster(withID: clusterID)
        let zoomField = zoomField(clusterID)
        let r = options.radius / (options.extent * pow(2, Double(zoomField - 1)))
        var out: [ClusterItem] = []
        // The leader's position as the pass saw it: a point's tree coordinates (its projection,
        // rounded to Float in supercluster JS), a cluster's exact centre.
        let leader = clusters[c].leader
        let (ox, oy) =
            leader < 0
            ? (clusters[Int(-1 - leader)].x, clusters[Int(-1 - leader)].y)
            : cpp.map { ($0.pointXY[2 * Int(leader)], $0.pointXY[2 * Int(leader) + 1]) }
                ?? (Double(pointXY[2 * Int(leader)]), Double(pointXY[2 * Int(leader) + 1]))
        forEachRef(level: zoomField - options.minZoom, within: r, of: ox, oy) { ref in
            let parent = ref >= 0 ? pointParent[Int(ref)] : clusters[Int(-1 - ref)].parent
            if parent == Int32(c) { out.append(ClusterItem(ref: ref)) }
        }
        guard !out.isEmpty else { throw MapCoreError(.notFound, "No cluster with the specified id (\(clusterID)).") }
        return out
    }

    /// Input indexes of a cluster's points, depth-first in children order, skipping `offset`
    /// and returning at most `limit`.
    public func leaves(of clusterID: Int, offset: Int, limit: Int) throws(MapCoreError) -> [Int] {
        guard offset >= 0, limit >= 0 else {
            throw MapCoreError(.invalidArgument, "offset and limit must not be negative.")
        }
        var out: [Int] = []
        guard limit > 0 else { _ = try cluster(withID: clusterID); return out }
        var skipped = 0
        try appendLeaves(clusterID, offset: offset, limit: limit, skipped: &skipped, into: &out)
        return out
    }

    private func appendLeaves(
        _ id: Int, offset: Int, limit: Int, skipped: inout Int, into out: inout [Int]
    ) throws(MapCoreError) {
        // Recursion depth is bounded by the number of zoom levels (at most 31).
        for child in try children(of: id) {
            switch child {
            case .cluster(let c):
                if skipped + Int(clusters[c].count) <= offset {
                    skipped += Int(clusters[c].count)
                } else {
                    try appendLeaves(clusters[c].id, offset: offset, limit: limit, skipped: &skipped, into: &out)
                }
            case .point(let i):
                if skipped < offset { skipped += 1 } else { out.append(i) }
            }
            if out.count == limit { break }
        }
    }

    /// The zoom at which a cluster splits into several items (can be maxZoom + 1).
    public func expansionZoom(of clusterID: Int) throws(MapCoreError) -> Int {
        var id = clusterID
        _ = try cluster(withID: id)
        var zoom = zoomField(id) - 1
        while zoom <= options.maxZoom {
            let children = try children(of: id)
            zoom += 1
            guard children.count == 1, case .cluster(let c) = children[0] else { break }
            id = clusters[c].id
        }
        return zoom
    }

    /// The convex hull of a cluster's points (the SDK's "show cluster area"): a Polygon, or a
    /// LineString / Point when the points are collinear / coincident.
    public func leafHull(of clusterID: Int) throws(MapCoreError) -> Geometry? {
        var xy = ContiguousArray<Double>()
        for i in try leaves(of: clusterID, offset: 0, limit: .max) {
            xy.append(pointLngLat[2 * i])
            xy.append(pointLngLat[2 * i + 1])
        }
        let hull = try xy.withUnsafeBufferPointer { (b) throws(MapCoreError) in try ConvexHull.vertices(xy: b) }
        return ConvexHull.geometry(fromVertices: hull)
    }

    /// Number of items at each zoom minZoom...maxZoom+1, and how many of them are clusters.
    public func levelCounts() -> [(zoom: Int, items: Int, clusters: Int)] {
        if let cpp {
            return cpp.trees.enumerated().map { (i, t) in
                (options.minZoom + i, t.count, t.ids.reduce(0) { $0 + ($1 < 0 ? 1 : 0) })
            }
        }
        return trees.enumerated().map { (i, t) in
            var clusters = 0
            for r in t.refs where r < 0 { clusters += 1 }
            return (options.minZoom + i, t.count, clusters)
        }
    }

    /// Items and clusters per zoom, the number of input features and the index's bytes.
    public var statsJSON: JSONValue {
        let levels = levelCounts().map { l in
            JSONValue.object(
                JSONObject([
                    ("zoom", .int(Int64(l.zoom))), ("items", .int(Int64(l.items))),
                    ("clusters", .int(Int64(l.clusters))),
                ]))
        }
        return .object(
            JSONObject([
                ("levels", .array(levels)), ("points", .int(Int64(inputCount))),
                ("indexBytes", .int(Int64(indexByteCount))),
            ]))
    }

    /// Bytes of the index's trees and tables (not the input features), counted from their
    /// element counts: array capacities follow malloc's usable sizes, which differ with the
    /// arena a block came from (the build's helper thread has its own), and a stat that changes
    /// between two builds of the same data would make identical indexes look different.
    public var indexByteCount: Int {
        trees.reduce(0) { $0 + $1.byteCount } + (cpp?.byteCount ?? 0) + pointLngLat.count * 8 + pointXY.count * 4
            + pointParent.count * 4
            + clusters.count * MemoryLayout<ClusterNode>.stride
    }
}
