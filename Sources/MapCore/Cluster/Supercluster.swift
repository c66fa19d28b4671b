// Cluster: point clustering with the algorithm, ids, properties and result order of
// mapbox/supercluster 8 (see Tests/fixtures/supercluster/README.md for every rule reproduced).
//
// Storage differs from upstream to save memory: items (points and clusters) live once in flat
// tables, and a zoom level is only a KD tree of item references. Everything upstream keeps per
// level and per item (parent id, "handled at zoom") is a property of the item itself, because an
// item is merged into a cluster at most once.

import CMapCoreKernels
import Glibc

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

    public init() {}

    /// The cluster id keeps the formation zoom in 5 bits.
    public static let maxAllowedZoom = 30

    func validate() throws(MapCoreError) {
        func bad(_ m: String) -> MapCoreError { MapCoreError(.invalidArgument, m) }
        guard minZoom >= 0, maxZoom <= Self.maxAllowedZoom, minZoom <= maxZoom else {
            throw bad("minZoom and maxZoom must satisfy 0 <= minZoom <= maxZoom <= \(Self.maxAllowedZoom) (got \(minZoom), \(maxZoom)).")
        }
        guard radius.isFinite, radius > 0 else { throw bad("radius must be a positive number (got \(radius)).") }
        guard extent.isFinite, extent > 0 else { throw bad("extent must be a positive number (got \(extent)).") }
        guard minPoints >= 2, minPoints <= Int(Int32.max) else { throw bad("minPoints must be at least 2 (got \(minPoints)).") }
        guard nodeSize >= 2, nodeSize <= 1 << 16 else { throw bad("nodeSize must be between 2 and 65536 (got \(nodeSize)).") }
    }
}

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
    private let clusters: ContiguousArray<ClusterNode>
    private let clusterProps: [JSONObject]
    /// Table indexes of the clusters formed at zoom z, at [z - minZoom]; ascending ids.
    private let clusterRanges: [Range<Int>]
    /// trees[z - minZoom] for z in minZoom...maxZoom+1 (the last one holds the raw points).
    private let trees: [KDBush]

    /// Indexes `features`. Features without geometry are skipped; any other non-Point geometry
    /// is an error, as clustering only applies to points.
    public convenience init(features: [Feature], options: SuperclusterOptions = SuperclusterOptions(),
                            clusterProperties: ClusterProperties? = nil) throws(MapCoreError) {
        guard features.count < Int(Int32.max) else {
            throw MapCoreError(.limit, "At most \(Int32.max - 1) features can be clustered.")
        }
        var lngLat = ContiguousArray<Double>(repeating: 0, count: 2 * features.count)
        var located = ContiguousArray<Int32>()
        located.reserveCapacity(features.count)
        for (i, f) in features.enumerated() {
            guard let g = f.geometry else { continue }
            guard g.type == .point, g.xy.count >= 2 else {
                throw MapCoreError(.unsupported, "Clustering only applies to Point features; feature \(i) is a \(g.type.name).",
                                   location: SourceLocation(offset: -1, line: 0, column: 0, path: "$.features[\(i)].geometry"))
            }
            lngLat[2 * i] = g.xy[0]
            lngLat[2 * i + 1] = g.xy[1]
            located.append(Int32(i))
        }
        try self.init(input: features, count: features.count, lngLat: lngLat, located: located,
                      options: options, clusterProperties: clusterProperties)
    }

    /// Indexes bare points, given as interleaved longitude/latitude pairs, without making a
    /// feature for each: `feature(_:)` makes one on demand (a Point, no id, null properties).
    public convenience init(positions lngLat: UnsafeBufferPointer<Double>, options: SuperclusterOptions = SuperclusterOptions(),
                            clusterProperties: ClusterProperties? = nil) throws(MapCoreError) {
        let n = lngLat.count / 2
        guard n < Int(Int32.max) else { throw MapCoreError(.limit, "At most \(Int32.max - 1) points can be clustered.") }
        for i in 0..<n where !(lngLat[2 * i].isFinite && lngLat[2 * i + 1].isFinite) {
            throw MapCoreError(.invalidArgument, "Point \(i) has a non-finite coordinate.")
        }
        try self.init(input: [], count: n, lngLat: ContiguousArray(lngLat[0..<(2 * n)]), located: ContiguousArray(0..<Int32(n)),
                      options: options, clusterProperties: clusterProperties)
    }

    /// `located`: the input indexes that have a position in `lngLat`, ascending.
    private init(input: [Feature], count n: Int, lngLat: ContiguousArray<Double>, located order: ContiguousArray<Int32>,
                 options: SuperclusterOptions, clusterProperties: ClusterProperties?) throws(MapCoreError) {
        try options.validate()
        self.options = options
        self.clusterProperties = clusterProperties
        inputFeatures = input
        inputCount = n
        // Projected positions by input index (unlocated inputs stay 0 and are never read), and
        // the same positions in `located` order for the raw points' tree.
        var pointXY = ContiguousArray<Float>(repeating: 0, count: 2 * n)
        for ref in order {
            let i = Int(ref)
            let px = Float(Projection.x(lng: lngLat[2 * i])), py = Float(Projection.y(lat: lngLat[2 * i + 1]))
            guard px.isFinite, py.isFinite else {
                throw MapCoreError(.invalidArgument, "Feature \(i) has a longitude too large to project (\(lngLat[2 * i])).")
            }
            pointXY[2 * i] = px
            pointXY[2 * i + 1] = py
        }
        var xy = pointXY
        if order.count < n {
            xy = ContiguousArray()
            xy.reserveCapacity(2 * order.count)
            for ref in order { xy.append(pointXY[2 * Int(ref)]); xy.append(pointXY[2 * Int(ref) + 1]) }
        }
        pointLngLat = lngLat
        self.pointXY = pointXY

        var b = Builder(n: n, options: options, props: clusterProperties, input: input, lngLat: lngLat, pointXY: pointXY)
        // Each level's tree is submitted as soon as the level is complete and built by two
        // threads while the passes run ahead: a pass waits only for the tree of the level it
        // read, and only if it left turns pending. Nothing below throws, so `finish` is reached
        // and joins the helper thread.
        let levels = LevelTrees(levels: options.maxZoom - options.minZoom + 2, nodeSize: options.nodeSize,
                                threaded: order.count >= KDBush.parallelBuildSize)
        var levelOrder = order, levelXY = xy
        levels.submit(options.maxZoom + 1 - options.minZoom, order: levelOrder, xy: levelXY)
        b.boundNearestDistances(order: levelOrder, xy: levelXY)
        var clusterRanges = [Range<Int>](repeating: 0..<0, count: options.maxZoom - options.minZoom + 1)
        for z in stride(from: options.maxZoom, through: options.minZoom, by: -1) {
            let first = b.clusters.count
            var next = b.pass(order: levelOrder, xy: levelXY, zoom: z)
            if b.pending.isEmpty {
                levels.dropRanks(z + 1 - options.minZoom)
            } else {
                b.finish(ranks: levels.takeRanks(z + 1 - options.minZoom), next: &next)
            }
            clusterRanges[z - options.minZoom] = first..<b.clusters.count
            b.lowerGaps(around: first..<b.clusters.count, zoom: z)
            levelOrder = next.order
            levelXY = next.xy
            levels.submit(z - options.minZoom, order: levelOrder, xy: levelXY)
        }
        levels.dropRanks(0)
        self.trees = levels.finish()
        self.clusterRanges = clusterRanges
        pointParent = b.pointParent
        clusters = b.clusters
        clusterProps = b.clusterProps
    }

    /// The clustering pass, holding the mutable tables while the levels are built.
    private struct Builder {
        let n: Int
        let options: SuperclusterOptions
        let props: ClusterProperties?
        let input: [Feature]
        let lngLat: ContiguousArray<Double>
        /// Projected positions by input index, rounded to Float as the trees hold them.
        let pointXY: ContiguousArray<Float>
        var pointParent: ContiguousArray<Int32>
        var pointZoom: ContiguousArray<Int8>
        /// For each point, a lower bound of the distance to the nearest other item of the level
        /// being clustered (see `boundNearestDistances`).
        var pointGap: ContiguousArray<Float>
        /// The raw points, indexed once to lower `pointGap` around each new cluster while the
        /// bounds can still tell a point alone (`gapCap`); released after that.
        var pointGrid = NeighborGrid()
        var gapCap = 0.0, gapReach = 0.0
        /// Per level index: a crowded point found alone at this level (`markAlone`).
        var alone = ContiguousArray<Bool>()
        var clusters = ContiguousArray<ClusterNode>()
        var clusterProps: [JSONObject] = []
        /// The neighbour grid, rebuilt for each level in the same memory.
        var grid = NeighborGrid()

        static let unhandled = Int8.max

        init(n: Int, options: SuperclusterOptions, props: ClusterProperties?, input: [Feature],
             lngLat: ContiguousArray<Double>, pointXY: ContiguousArray<Float>) {
            self.n = n
            self.options = options
            self.props = props
            self.input = input
            self.lngLat = lngLat
            self.pointXY = pointXY
            pointParent = ContiguousArray(repeating: -1, count: n)
            pointZoom = ContiguousArray(repeating: Self.unhandled, count: n)
            pointGap = ContiguousArray(repeating: 0, count: n)
        }

        @inline(__always) func position(_ ref: Int32) -> (Double, Double) {
            if ref >= 0 {
                return (Double(pointXY[2 * Int(ref)]), Double(pointXY[2 * Int(ref) + 1]))
            }
            let c = Int(-1 - ref)
            return (clusters[c].x, clusters[c].y)
        }
        /// A neighbour's position: a point's is its grid entry's (the tree coordinates); a
        /// cluster's is its exact centre, which the entry only holds rounded.
        @inline(__always) func position(_ e: NeighborGrid.Entry) -> (Double, Double) {
            e.ref >= 0 ? (Double(e.x), Double(e.y)) : (clusters[Int(-1 - e.ref)].x, clusters[Int(-1 - e.ref)].y)
        }
        @inline(__always) func count(_ ref: Int32) -> Int { ref >= 0 ? 1 : Int(clusters[Int(-1 - ref)].count) }
        @inline(__always) func handledZoom(_ ref: Int32) -> Int8 { ref >= 0 ? pointZoom[Int(ref)] : clusters[Int(-1 - ref)].zoom }
        @inline(__always) mutating func setZoom(_ ref: Int32, _ z: Int8) {
            if ref >= 0 { pointZoom[Int(ref)] = z } else { clusters[Int(-1 - ref)].zoom = z }
        }
        @inline(__always) mutating func setParent(_ ref: Int32, _ parent: Int32) {
            if ref >= 0 { pointParent[Int(ref)] = parent } else { clusters[Int(-1 - ref)].parent = parent }
        }
        func mapped(_ ref: Int32, _ props: ClusterProperties) -> JSONObject {
            ref >= 0 ? props.map(Supercluster.feature(Int(ref), input, lngLat)) : clusterProps[Int(-1 - ref)]
        }

        /// A neighbour a turn claimed, with what its cluster's centre needs (read while its
        /// record is in cache).
        struct Member {
            var x: Double, y: Double
            var weight: Int32
            var ref: Int32
            /// Its index in the level; in `finish`, the rank the tree's `within` reports it at.
            var key: Int32
        }
        /// A turn that claimed two or more neighbours: what it yields depends on the order
        /// kdbush's `within` reports them in (the centre's float sums, the reduce folds, the order
        /// of kept neighbours), so `finish` completes it once the level's tree is built.
        struct PendingTurn {
            var x: Double, y: Double
            var me: Int32
            /// The table index of the cluster it formed, or -1 if it kept its neighbours.
            var cluster: Int32
            /// Its neighbours in `pendingMembers`.
            var members: Range<Int>
            /// The next level's index of that cluster, or of the first kept neighbour.
            var next: Int
        }
        var pending: [PendingTurn] = []
        var pendingMembers: [Member] = []

        /// Clusters the level `order` (positions `xy`) at `zoom`: returns the next level, complete
        /// but for the turns left in `pending`, whose items hold placeholders until `finish`.
        mutating func pass(order: ContiguousArray<Int32>, xy: ContiguousArray<Float>, zoom: Int) -> (order: ContiguousArray<Int32>, xy: ContiguousArray<Float>) {
            let r = options.radius / (options.extent * pow(2, Double(zoom)))
            // Taken out of self for the pass (unique, so rebuilt in place), put back at the end.
            var grid = self.grid
            self.grid = NeighborGrid()
            defer { self.grid = grid }
            // Only items with another item within reach can claim or be claimed (distances are
            // symmetric, and the slack covers a query centre's rounding), so only they are
            // indexed; an item alone keeps its place without a query. At high zooms that is
            // almost every item. Clusters count as near: they are few while it matters.
            let reach = r + NeighborGrid.roundingSlack
            @inline(__always) func isNear(_ ref: Int32) -> Bool { ref < 0 || Double(pointGap[Int(ref)]) <= reach }
            var crowded = 0
            grid.rebuild(order: order, xy: xy, radius: r) { ref in
                if ref >= 0 && pointGap[Int(ref)] == 0 { crowded += 1 }
                return isNear(ref)
            }
            if crowded > 0 { markAlone(order: order, grid: grid) }
            pending.removeAll(keepingCapacity: true)
            pendingMembers.removeAll(keepingCapacity: true)
            let z8 = Int8(zoom)
            var nextOrder = ContiguousArray<Int32>()
            var nextXY = ContiguousArray<Float>()
            nextOrder.reserveCapacity(order.count)
            nextXY.reserveCapacity(2 * order.count)
            func keep(_ ref: Int32, _ x: Double, _ y: Double) {
                nextOrder.append(ref)
                nextXY.append(Float(x))
                nextXY.append(Float(y))
            }
            var neighbors: [NeighborGrid.Entry] = []
            var members: [Member] = []
            // Items alone are kept as they are, in runs copied between the indexed items.
            let indexed = grid.picked
            var copied = 0
            func keepAlone(upTo end: Int) {
                guard copied < end else { return }
                nextOrder.append(contentsOf: order[copied..<end])
                nextXY.append(contentsOf: xy[(2 * copied)..<(2 * end)])
            }
            // The queries jump about the grid in data order: the cell bounds of the query a few
            // items ahead, then its entries, start loading early.
            let cellsAhead = 12, entriesAhead = 6
            func prefetch(_ j: Int, entries: Bool) {
                guard j < indexed.count else { return }
                let ref = order[Int(indexed[j])]
                guard handledZoom(ref) > z8 else { return }
                let (x, y) = position(ref)
                if entries { grid.prefetchEntries(around: x, y) } else { grid.prefetchCells(around: x, y) }
            }
            let crowdedAlone = crowded > 0
            for j in indexed.indices {
                prefetch(j + cellsAhead, entries: false)
                prefetch(j + entriesAhead, entries: true)
                let i = Int(indexed[j]), ref = order[i]
                // Kept with the run of items alone around it.
                if crowdedAlone && alone[i] { continue }
                keepAlone(upTo: i)
                copied = i + 1
                // Claimed by an earlier turn. (An item's own turn is recorded only in the grid, by
                // its query.)
                if handledZoom(ref) <= z8 { continue }
                let (x, y) = position(ref)
                // Only the neighbours no pass has handled yet take part; the grid marks them
                // claimed, and every one of them is merged or kept below.
                grid.claim(around: x, y, me: ref, into: &neighbors)
                let originCount = count(ref)
                var total = originCount
                members.removeAll(keepingCapacity: true)
                for nb in neighbors {
                    let weight = count(nb.ref)
                    let (nx, ny) = position(nb)
                    members.append(Member(x: nx, y: ny, weight: Int32(truncatingIfNeeded: weight), ref: nb.ref, key: nb.index))
                    total += weight
                }
                let ordered = members.count < 2

                if total > originCount && total >= options.minPoints {
                    let id = (i << 5) + (zoom + 1) + n
                    let parent = Int32(clusters.count)
                    for m in members {
                        setZoom(m.ref, z8)
                        setParent(m.ref, parent)
                    }
                    setParent(ref, parent)
                    clusters.append(ClusterNode(x: x, y: y, id: id, count: Int32(total), leader: ref))
                    if props != nil { clusterProps.append(JSONObject()) }
                    if ordered {
                        complete(cluster: Int(parent), x, y, members[...])
                        keep(-1 - parent, clusters[Int(parent)].x, clusters[Int(parent)].y)
                    } else {
                        pend(PendingTurn(x: x, y: y, me: ref, cluster: parent, members: 0..<0, next: nextOrder.count), members)
                        keep(-1 - parent, x, y)
                    }
                } else {
                    keep(ref, x, y)
                    for m in members { setZoom(m.ref, z8) }
                    if ordered {
                        for m in members { keep(m.ref, m.x, m.y) }
                    } else {
                        pend(PendingTurn(x: x, y: y, me: ref, cluster: -1, members: 0..<0, next: nextOrder.count), members)
                        for m in members { keep(m.ref, 0, 0) }
                    }
                }
            }
            keepAlone(upTo: order.count)
            return (nextOrder, nextXY)
        }

        /// Sets `alone[i]` for the points of the level that have no bound (crowded, see
        /// `NeighborGrid.crowded`) and no other item within reach: asked cell by cell, so memory
        /// is read in spatial order, on two threads for large levels (every entry is one index).
        mutating func markAlone(order: ContiguousArray<Int32>, grid: NeighborGrid) {
            alone.removeAll(keepingCapacity: true)
            alone.append(contentsOf: repeatElement(false, count: order.count))
            let gaps = pointGap
            alone.withUnsafeMutableBufferPointer { alone in
                func mark(_ entries: Range<Int>) {
                    grid.forEachEntry(in: entries) { index, ref, x, y in
                        guard ref >= 0, gaps[Int(ref)] == 0, !grid.hasOther(than: index, near: x, y) else { return }
                        alone[index] = true
                    }
                }
                let count = grid.entryCount
                if count >= KDBush.parallelBuildSize {
                    runConcurrently({ mark(0..<count / 2) }, { mark(count / 2..<count) })
                } else {
                    mark(0..<count)
                }
            }
        }

        /// Sets `pointGap` for the raw points (`order`, positions `xy`): the distance to the
        /// nearest other point, capped at `gapCap` (about the cell width of a grid with one cell
        /// per point, so each is one query of at most 3 × 3 cells). Points never move and merges
        /// only take items away, so it stays a lower bound of the distance to the nearest other
        /// item as long as each new cluster lowers the bounds around it (`lowerGaps`): a point
        /// whose bound exceeds a level's reach is alone there.
        mutating func boundNearestDistances(order: ContiguousArray<Int32>, xy: ContiguousArray<Float>) {
            let nearest = options.radius / (options.extent * pow(2, Double(options.maxZoom))) + NeighborGrid.roundingSlack
            pointGrid.rebuild(order: order, xy: xy, radius: nearest, including: { _ in true })
            pointGrid.releaseScratch()
            gapCap = pointGrid.cellWidth
            // A bound is consulted only at zooms whose reach is below the cap, so a new cluster
            // need only lower the bounds within the largest of those reaches.
            gapReach = 0
            for zoom in options.minZoom...options.maxZoom {
                let reach = options.radius / (options.extent * pow(2, Double(zoom))) + NeighborGrid.roundingSlack
                if reach < gapCap { gapReach = max(gapReach, reach) }
            }
            let grid = pointGrid
            pointGap.withUnsafeMutableBufferPointer { gaps in
                func bound(_ cells: Range<Int>) {
                    // Anything within the highest zoom's reach makes a point near at every zoom.
                    grid.nearestOthers(cells: cells, enough: nearest, into: gaps)
                }
                let count = grid.cellCount
                if grid.entryCount >= KDBush.parallelBuildSize {
                    runConcurrently({ bound(0..<count / 2) }, { bound(count / 2..<count) })
                } else {
                    bound(0..<count)
                }
            }
        }

        /// Lowers `pointGap` around the clusters formed at `zoom` (table indexes `formed`), as
        /// long as a later level's reach is below `gapCap` (from there on every point counts as
        /// near, and the raw points' grid is released).
        mutating func lowerGaps(around formed: Range<Int>, zoom: Int) {
            let nextReach = options.radius / (options.extent * pow(2, Double(zoom - 1))) + NeighborGrid.roundingSlack
            guard zoom > options.minZoom, nextReach < gapCap else {
                pointGrid = NeighborGrid()
                return
            }
            let grid = pointGrid, reach = gapReach
            // From the position the next level holds (its grid entry's).
            func position(_ c: Int) -> (Double, Double) { (Double(Float(clusters[c].x)), Double(Float(clusters[c].y))) }
            // Clusters are in formation order, a random order of the grid: as in the pass, the
            // cells and entries of the queries a few clusters ahead start loading early.
            let cellsAhead = 12, entriesAhead = 6
            pointGap.withUnsafeMutableBufferPointer { gaps in
                for c in formed {
                    if c + cellsAhead < formed.upperBound {
                        let (x, y) = position(c + cellsAhead)
                        grid.prefetchCells(around: x, y, within: reach)
                    }
                    if c + entriesAhead < formed.upperBound {
                        let (x, y) = position(c + entriesAhead)
                        grid.prefetchEntries(around: x, y, within: reach)
                    }
                    let (x, y) = position(c)
                    grid.lowerGaps(within: reach, of: x, y, gaps)
                }
            }
        }

        mutating func pend(_ turn: PendingTurn, _ members: [Member]) {
            var turn = turn
            let start = pendingMembers.count
            pendingMembers.append(contentsOf: members)
            turn.members = start..<pendingMembers.count
            pending.append(turn)
        }

        /// The centre and reduced properties of cluster `c`, formed by the turn of its leader at
        /// (x, y) with `members` in kdbush's order, summed and folded as supercluster does.
        mutating func complete(cluster c: Int, _ x: Double, _ y: Double, _ members: ArraySlice<Member>) {
            let me = clusters[c].leader
            let originCount = Double(count(me))
            var wx = x * originCount, wy = y * originCount
            for m in members {
                wx += m.x * Double(m.weight)
                wy += m.y * Double(m.weight)
            }
            let total = Double(clusters[c].count)
            clusters[c].x = wx / total
            clusters[c].y = wy / total
            if let props {
                var folded = mapped(me, props)
                for m in members { props.reduce(&folded, mapped(m.ref, props)) }
                clusterProps[c] = folded
            }
        }

        /// Completes the pending turns of the last pass, given the report ranks of the level it
        /// read (`LevelTrees.takeRanks`), and fills in their items in `next`.
        mutating func finish(ranks: LevelRanks?, next: inout (order: ContiguousArray<Int32>, xy: ContiguousArray<Float>)) {
            var members = pendingMembers
            pendingMembers = []
            defer { pendingMembers = members }
            for turn in pending {
                for k in turn.members {
                    members[k].key = ranks?[Int(members[k].key)] ?? Int32.max
                }
                members[turn.members].sort { $0.key < $1.key }
                if turn.cluster >= 0 {
                    let c = Int(turn.cluster)
                    complete(cluster: c, turn.x, turn.y, members[turn.members])
                    next.xy[2 * turn.next] = Float(clusters[c].x)
                    next.xy[2 * turn.next + 1] = Float(clusters[c].y)
                } else {
                    for (k, m) in members[turn.members].enumerated() {
                        next.order[turn.next + k] = m.ref
                        next.xy[2 * (turn.next + k)] = Float(m.x)
                        next.xy[2 * (turn.next + k) + 1] = Float(m.y)
                    }
                }
            }
        }
    }

    // MARK: item accessors

    /// The input feature at an input index (made on demand for an index of bare positions).
    public func feature(_ i: Int) -> Feature { Self.feature(i, inputFeatures, pointLngLat) }

    fileprivate static func feature(_ i: Int, _ input: [Feature], _ lngLat: ContiguousArray<Double>) -> Feature {
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
        case .cluster(let c): return (Projection.lng(x: clusters[c].x), Projection.lat(y: clusters[c].y))
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
        props["point_count_abbreviated"] = Self.abbreviated(count)
        return props
    }

    /// supercluster's point_count_abbreviated: the count below 1000, else "1.2k" / "16k".
    static func abbreviated(_ count: Int) -> JSONValue {
        if count >= 10000 { return .string(JSNumber.format((Double(count) / 1000).jsRounded) + "k") }
        if count >= 1000 { return .string(JSNumber.format((Double(count) / 100).jsRounded / 10) + "k") }
        return .int(Int64(count))
    }

    /// The cluster table index of a cluster id, or a not-found error.
    public func cluster(withID id: Int) throws(MapCoreError) -> Int {
        let notFound = MapCoreError(.notFound, "No cluster with the specified id (\(id)).")
        let base = inputCount
        guard id > base else { throw notFound }
        let zoomField = (id - base) & 31
        let formedAt = zoomField - 1
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

    /// The level a query zoom reads: floored and clamped to minZoom...maxZoom+1.
    func level(_ zoom: Double) throws(MapCoreError) -> Int {
        guard !zoom.isNaN else { throw MapCoreError(.invalidArgument, "zoom must be a number (got NaN).") }
        let z = zoom.rounded(.down)
        let clamped = max(Double(options.minZoom), min(z, Double(options.maxZoom + 1)))
        return Int(clamped) - options.minZoom
    }

    /// Clusters and points in `bbox` (west, south, east, north in degrees) at `zoom`, in
    /// supercluster's order. A box with west > east crosses the antimeridian.
    public func clusters(west: Double, south: Double, east: Double, north: Double, zoom: Double) throws(MapCoreError) -> [ClusterItem] {
        try itemRefs(west: west, south: south, east: east, north: north, zoom: zoom).map(ClusterItem.init(ref:))
    }

    /// `clusters` for hot paths: counts the items and, only when `capacity` holds them all,
    /// calls `write` with each one's index and record, in order. Returns the count.
    public func clusterRecords(west: Double, south: Double, east: Double, north: Double, zoom: Double,
                               capacity: Int, write: (Int, ClusterRecord) -> Void) throws(MapCoreError) -> Int {
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
                            if r >= 0 { lngLat.baseAddress.map { mc_prefetch($0 + 2 * r) } } else { nodes.baseAddress.map { mc_prefetch($0 + (-1 - r)) } }
                        }
                        write(k, record(ClusterItem(ref: refs[k])))
                    }
                }
            }
        }
        return refs.count
    }

    private func itemRefs(west: Double, south: Double, east: Double, north: Double, zoom: Double) throws(MapCoreError) -> ContiguousArray<Int32> {
        guard west.isFinite, south.isFinite, east.isFinite, north.isFinite else {
            throw MapCoreError(.invalidArgument, "The bounding box must hold four finite numbers.")
        }
        let tree = trees[try level(zoom)]
        var out = ContiguousArray<Int32>()
        func wrap(_ lng: Double) -> Double { ((lng + 180).truncatingRemainder(dividingBy: 360) + 360).truncatingRemainder(dividingBy: 360) - 180 }
        var minLng = wrap(west)
        var maxLng = east == 180 ? 180 : wrap(east)
        let minLat = max(-90, min(90, south)), maxLat = max(-90, min(90, north))
        func collect(_ w: Double, _ e: Double) {
            withItemPositions { positions in
                tree.range(minX: Projection.x(lng: w), minY: Projection.y(lat: maxLat),
                           maxX: Projection.x(lng: e), maxY: Projection.y(lat: minLat), positions: positions) { out.append($0) }
            }
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
        guard z >= 0, z <= 40 else { throw MapCoreError(.invalidArgument, "Tile zoom must be between 0 and 40 (got \(z)).") }
        let tilesPerSide = 1 << z
        guard x >= 0, x < tilesPerSide, y >= 0, y < tilesPerSide else {
            throw MapCoreError(.invalidArgument, "Tile \(z)/\(x)/\(y) is outside the \(tilesPerSide)x\(tilesPerSide) grid.")
        }
        let tree = trees[try level(Double(z))]
        let z2 = Double(tilesPerSide)
        let p = options.radius / options.extent
        let top = (Double(y) - p) / z2, bottom = (Double(y) + 1 + p) / z2
        var out: [TileItem] = []
        func add(minX: Double, maxX: Double, shiftX: Double) {
            withItemPositions { positions in tree.range(minX: minX, minY: top, maxX: maxX, maxY: bottom, positions: positions) { ref in
                let item = ClusterItem(ref: ref)
                let px: Double, py: Double
                switch item {
                case .point(let i):
                    px = Projection.x(lng: pointLngLat[2 * i])
                    py = Projection.y(lat: pointLngLat[2 * i + 1])
                case .cluster(let c):
                    px = clusters[c].x
                    py = clusters[c].y
                }
                out.append(TileItem(item: item,
                                    x: (options.extent * (px * z2 - shiftX)).jsRounded,
                                    y: (options.extent * (py * z2 - Double(y))).jsRounded))
            } }
        }
        add(minX: (Double(x) - p) / z2, maxX: (Double(x) + 1 + p) / z2, shiftX: Double(x))
        if x == 0 { add(minX: 1 - p / z2, maxX: 1, shiftX: z2) }
        if x == tilesPerSide - 1 { add(minX: 0, maxX: p / z2, shiftX: -1) }
        return out
    }

    /// The items a cluster was formed from, in supercluster's order.
    public func children(of clusterID: Int) throws(MapCoreError) -> [ClusterItem] {
        let c = try cluster(withID: clusterID)
        let zoomField = (clusterID - inputCount) & 31
        let tree = trees[zoomField - options.minZoom]
        let r = options.radius / (options.extent * pow(2, Double(zoomField - 1)))
        var out: [ClusterItem] = []
        // The leader's position as the pass saw it: a point's tree coordinates (its projection
        // rounded to Float), a cluster's exact centre.
        let leader = clusters[c].leader
        let (ox, oy) = leader >= 0
            ? (Double(pointXY[2 * Int(leader)]), Double(pointXY[2 * Int(leader) + 1]))
            : (clusters[Int(-1 - leader)].x, clusters[Int(-1 - leader)].y)
        withItemPositions { positions in
            tree.within(ox, oy, r, positions: positions) { ref in
                let parent = ref >= 0 ? pointParent[Int(ref)] : clusters[Int(-1 - ref)].parent
                if parent == Int32(c) { out.append(ClusterItem(ref: ref)) }
            }
        }
        guard !out.isEmpty else { throw MapCoreError(.notFound, "No cluster with the specified id (\(clusterID)).") }
        return out
    }

    /// Input indexes of a cluster's points, depth-first in children order, skipping `offset`
    /// and returning at most `limit`.
    public func leaves(of clusterID: Int, offset: Int, limit: Int) throws(MapCoreError) -> [Int] {
        guard offset >= 0, limit >= 0 else { throw MapCoreError(.invalidArgument, "offset and limit must not be negative.") }
        var out: [Int] = []
        guard limit > 0 else { _ = try cluster(withID: clusterID); return out }
        var skipped = 0
        try appendLeaves(clusterID, offset: offset, limit: limit, skipped: &skipped, into: &out)
        return out
    }

    private func appendLeaves(_ id: Int, offset: Int, limit: Int, skipped: inout Int, into out: inout [Int]) throws(MapCoreError) {
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
        var zoom = ((id - inputCount) & 31) - 1
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
        trees.enumerated().map { (i, t) in
            var clusters = 0
            for r in t.refs where r < 0 { clusters += 1 }
            return (options.minZoom + i, t.count, clusters)
        }
    }

    /// Items and clusters per zoom, the number of input features and the index's bytes.
    public var statsJSON: JSONValue {
        let levels = levelCounts().map { l in
            JSONValue.object(JSONObject([("zoom", .int(Int64(l.zoom))), ("items", .int(Int64(l.items))), ("clusters", .int(Int64(l.clusters)))]))
        }
        return .object(JSONObject([("levels", .array(levels)), ("points", .int(Int64(inputCount))),
                                   ("indexBytes", .int(Int64(indexByteCount)))]))
    }

    /// Bytes held by the index (trees and tables, not the input features).
    public var indexByteCount: Int {
        trees.reduce(0) { $0 + $1.byteCount } + pointLngLat.capacity * 8 + pointXY.capacity * 4 + pointParent.capacity * 4
            + clusters.capacity * MemoryLayout<ClusterNode>.stride
    }

    // MARK: GeoJSON output

    /// A cluster as supercluster's getClusters gives it; a point as its input feature.
    public func writeFeature(_ item: ClusterItem, into w: inout JSONWriter) {
        switch item {
        case .point(let i):
            w.writeFeature(feature(i))
        case .cluster(let c):
            w.openObject()
            w.key("type"); w.writeString("Feature")
            w.key("id"); w.writeInt(Int64(clusters[c].id))
            w.key("properties"); w.writeObject(clusterProperties(c))
            w.key("geometry")
            w.openObject()
            w.key("type"); w.writeString("Point")
            w.key("coordinates")
            w.openArray(inline: true)
            let (lng, lat) = position(item)
            w.element(); w.writeCoordinate(lng)
            w.element(); w.writeCoordinate(lat)
            w.closeArray()
            w.closeObject()
            w.closeObject()
        }
    }

    /// A FeatureCollection of items.
    public func featureCollection(_ items: [ClusterItem], pretty: Bool = false) -> [UInt8] {
        var w = JSONWriter(pretty: pretty, reserve: 64 + items.count * 160)
        w.openObject()
        w.key("type"); w.writeString("FeatureCollection")
        w.key("features")
        w.openArray()
        for item in items { w.element(); writeFeature(item, into: &w) }
        w.closeArray()
        w.closeObject()
        return w.bytes
    }

    /// supercluster's tile JSON: `{"features":[{"type":1,"geometry":[[x,y]],"tags":{…},"id":…}]}`,
    /// or `null` for an empty tile.
    public func tileJSON(_ items: [TileItem], pretty: Bool = false) -> [UInt8] {
        var w = JSONWriter(pretty: pretty, reserve: 64 + items.count * 160)
        guard !items.isEmpty else { w.writeNull(); return w.bytes }
        w.openObject()
        w.key("features")
        w.openArray()
        for t in items {
            w.element()
            w.openObject()
            w.key("type"); w.writeInt(1)
            w.key("geometry")
            w.openArray(inline: true)
            w.element()
            w.openArray(inline: true)
            w.element(); w.writeCoordinate(t.x)
            w.element(); w.writeCoordinate(t.y)
            w.closeArray()
            w.closeArray()
            w.key("tags")
            switch t.item {
            case .cluster(let c):
                w.writeObject(clusterProperties(c))
                w.key("id"); w.writeInt(Int64(clusters[c].id))
            case .point(let i):
                let f = feature(i)
                if let p = f.properties { w.writeObject(p) } else { w.writeNull() }
                if options.generateId {
                    w.key("id"); w.writeInt(Int64(i))
                } else if let id = f.id {
                    w.key("id"); w.writeValue(id.jsonValue)
                }
            }
            w.closeObject()
        }
        w.closeArray()
        w.closeObject()
        return w.bytes
    }
}
