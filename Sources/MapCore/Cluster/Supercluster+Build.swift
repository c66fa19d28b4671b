// Cluster: building a supercluster index, as supercluster's `load` does: the points projected,
// the raw points' level, then one clustering pass per zoom from maxZoom down (`_cluster`), each
// reading the level the previous one made.
//
// The words the build uses (docs/NOTES.md, "Clustering pass" and after, gives the reasons):
// - level: the items of one zoom as refs (>= 0 an input index, < 0 a cluster's table index) in
//   order, with their positions; the pass at zoom z reads level z + 1 and makes level z.
// - turn: one item's step of a pass, in level order: query the neighbours within the radius,
//   then form a cluster with them or keep them all (the body of supercluster's loop).
// - claim: a turn takes the neighbours no earlier turn took; a claimed item is "handled" at that
//   zoom and takes no turn of its own.
// - leader: the item whose turn formed a cluster; its position is the children query's centre.
// - reach: a zoom's radius in the unit square plus a rounding slack; nothing farther takes part.
// - gap: a lower bound of a point's distance to its nearest other item (`pointGap`); lowering
//   keeps it a bound as clusters form nearer to a point than the points they took.
// - near / alone: with / without another item within reach. Only near items go into the level's
//   grid; the alone ones are copied to the next level in runs, without a query.
// - crowded: a point beside a grid cell of more than `NeighborGrid.crowded` raw points: it has no
//   gap bound (0), and `markAlone` asks the level's grid whether it is alone.
// - pending turn: a turn that claimed two or more neighbours; its result depends on kdbush's
//   report order, so `finish` completes it once the tree of the level it read is built.

import Glibc

extension Supercluster {
    /// The tables a build makes, handed to the index.
    struct Built {
        var pointXY: ContiguousArray<Float>
        var pointParent: ContiguousArray<Int32>
        var clusters: ContiguousArray<ClusterNode>
        var clusterProps: [JSONObject]
        var clusterRanges: [Range<Int>]
        var trees: [KDBush]
        /// supercluster-cpp's levels, which replace `trees` and `pointXY` (`buildCpp`).
        var cpp: CppLevels? = nil
    }

    /// Builds the index of the inputs `located` (ascending input indexes with a position in
    /// `lngLat`) out of `n` inputs.
    static func build(
        input: [Feature], count n: Int, lngLat: ContiguousArray<Double>,
        located order: ContiguousArray<Int32>, options: SuperclusterOptions,
        props: ClusterProperties?
    ) throws(MapCoreError) -> Built {
        let (pointXY, xy) = try project(located: order, count: n, lngLat: lngLat)
        var b = Builder(n: n, options: options, props: props, input: input, lngLat: lngLat, pointXY: pointXY)
        // Each level's tree is submitted as soon as the level is complete and built by two
        // threads while the passes run ahead: a pass waits only for the tree of the level it
        // read, and only if it left turns pending. Nothing below throws, so `finish` is reached
        // and joins the helper thread.
        let levels = LevelTrees(
            levels: options.maxZoom - options.minZoom + 2, nodeSize: options.nodeSize,
            threaded: order.count >= KDBush.parallelBuildSize)
        var level = NextLevel(order: order, xy: xy)
        levels.submit(options.maxZoom + 1 - options.minZoom, order: level.order, xy: level.xy)
        b.boundNearestDistances(order: level.order, xy: level.xy)
        var clusterRanges = [Range<Int>](repeating: 0..<0, count: options.maxZoom - options.minZoom + 1)
        for z in stride(from: options.maxZoom, through: options.minZoom, by: -1) {
            let first = b.clusters.count
            var next = b.pass(order: level.order, xy: level.xy, zoom: z)
            if b.pending.isEmpty {
                levels.dropRanks(z + 1 - options.minZoom)
            } else {
                b.finish(ranks: levels.takeRanks(z + 1 - options.minZoom), next: &next)
            }
            clusterRanges[z - options.minZoom] = first..<b.clusters.count
            b.lowerGaps(around: first..<b.clusters.count, zoom: z)
            level = next
            levels.submit(z - options.minZoom, order: level.order, xy: level.xy)
        }
        levels.dropRanks(0)
        return Built(
            pointXY: pointXY, pointParent: b.pointParent, clusters: b.clusters,
            clusterProps: b.clusterProps, clusterRanges: clusterRanges, trees: levels.finish())
    }

    /// Projected positions by input index (unlocated inputs stay 0 and are never read), and the
    /// same positions in `located` order: the raw points' level.
    private static func project(
        located order: ContiguousArray<Int32>, count n: Int, lngLat: ContiguousArray<Double>
    )
        throws(MapCoreError) -> (byInput: ContiguousArray<Float>, level: ContiguousArray<Float>)
    {
        var pointXY = ContiguousArray<Float>(repeating: 0, count: 2 * n)
        for ref in order {
            let i = Int(ref)
            let px = Float(Projection.x(lng: lngLat[2 * i]))
            let py = Float(Projection.y(lat: lngLat[2 * i + 1], .javaScript))
            guard Supercluster.projectable(px, py) else {
                throw MapCoreError(
                    .invalidArgument,
                    "Feature \(i) has a position too large to project ([\(lngLat[2 * i]), \(lngLat[2 * i + 1])]).")
            }
            pointXY[2 * i] = px
            pointXY[2 * i + 1] = py
        }
        guard order.count < n else { return (pointXY, pointXY) }
        var xy = ContiguousArray<Float>()
        xy.reserveCapacity(2 * order.count)
        for ref in order { xy.append(pointXY[2 * Int(ref)]); xy.append(pointXY[2 * Int(ref) + 1]) }
        return (pointXY, xy)
    }

    /// The level a pass makes: refs in order and their positions.
    struct NextLevel {
        var order: ContiguousArray<Int32>
        var xy: ContiguousArray<Float>

        init(order: ContiguousArray<Int32>, xy: ContiguousArray<Float>) {
            self.order = order
            self.xy = xy
        }

        init(capacity: Int) {
            order = []
            xy = []
            order.reserveCapacity(capacity)
            xy.reserveCapacity(2 * capacity)
        }

        @inline(__always) mutating func keep(_ ref: Int32, _ x: Double, _ y: Double) {
            order.append(ref)
            xy.append(Float(x))
            xy.append(Float(y))
        }

        /// Copies the items `range` of a level as they are.
        @inline(__always) mutating func copy(
            _ range: Range<Int>, of level: ContiguousArray<Int32>,
            _ levelXY: ContiguousArray<Float>
        ) {
            guard !range.isEmpty else { return }
            order.append(contentsOf: level[range])
            xy.append(contentsOf: levelXY[(2 * range.lowerBound)..<(2 * range.upperBound)])
        }
    }

    /// The clustering passes, holding the mutable tables while the levels are built.
    struct Builder {
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

        init(
            n: Int, options: SuperclusterOptions, props: ClusterProperties?, input: [Feature],
            lngLat: ContiguousArray<Double>, pointXY: ContiguousArray<Float>
        ) {
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
        @inline(__always) func handledZoom(_ ref: Int32) -> Int8 {
            ref >= 0 ? pointZoom[Int(ref)] : clusters[Int(-1 - ref)].zoom
        }
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

        /// Clusters the level `order` (positions `xy`) at `zoom`, as supercluster's `_cluster`:
        /// each item not yet claimed takes its turn. Returns the next level, complete but for the
        /// turns left in `pending`, whose items hold placeholders until `finish`.
        mutating func pass(order: ContiguousArray<Int32>, xy: ContiguousArray<Float>, zoom: Int) -> NextLevel {
            let r = options.radius / (options.extent * pow(2, Double(zoom)))
            // Taken out of self for the pass (unique, so rebuilt in place), put back at the end.
            var grid = self.grid
            self.grid = NeighborGrid()
            defer { self.grid = grid }
            let crowdedAlone = indexNearItems(order: order, xy: xy, radius: r, into: &grid)
            pending.removeAll(keepingCapacity: true)
            pendingMembers.removeAll(keepingCapacity: true)
            let passZoom = Int8(zoom)
            var next = NextLevel(capacity: order.count)
            var neighbors: [NeighborGrid.Entry] = []
            var members: [Member] = []
            let indexed = grid.picked
            // Items alone are kept as they are, in the runs between the indexed items.
            var copied = 0
            for j in indexed.indices {
                prefetchTurns(after: j, of: indexed, order: order, zoom: passZoom, grid: grid)
                let i = Int(indexed[j]), ref = order[i]
                // Kept with the run of items alone around it.
                if crowdedAlone && alone[i] { continue }
                next.copy(copied..<i, of: order, xy)
                copied = i + 1
                // Claimed by an earlier turn. (An item's own turn is recorded only in the grid,
                // by its query.)
                if handledZoom(ref) <= passZoom { continue }
                let (x, y) = position(ref)
                let total = claimNeighbors(of: ref, at: x, y, grid: &grid, scratch: &neighbors, into: &members)
                if total > count(ref) && total >= options.minPoints {
                    formCluster(
                        leader: ref, levelIndex: i, at: x, y, total: total, members: members, zoom: zoom,
                        next: &next)
                } else {
                    keepWithNeighbors(ref, at: x, y, members: members, zoom: passZoom, next: &next)
                }
            }
            next.copy(copied..<order.count, of: order, xy)
            return next
        }

        /// Puts the level's near items (see the glossary) in the grid for queries within `radius`;
        /// true if crowded points were found, whose `alone` marks then say which are alone.
        private mutating func indexNearItems(
            order: ContiguousArray<Int32>, xy: ContiguousArray<Float>, radius r: Double,
            into grid: inout NeighborGrid
        ) -> Bool {
            // Only items with another item within reach can claim or be claimed (distances are
            // symmetric, and the slack covers a query centre's rounding), so only they are
            // indexed; an item alone keeps its place without a query. At high zooms that is
            // almost every item. Clusters count as near: they are few while it matters.
            let reach = r + NeighborGrid.roundingSlack
            let gaps = pointGap
            var crowded = 0
            grid.rebuild(order: order, xy: xy, radius: r) { ref in
                guard ref >= 0 else { return true }
                let gap = gaps[Int(ref)]
                if gap == 0 { crowded += 1 }
                return Double(gap) <= reach
            }
            if crowded > 0 { markAlone(order: order, grid: grid) }
            return crowded > 0
        }

        /// The queries jump about the grid in level order: the cell bounds of the query a few
        /// turns ahead, then its entries, start loading early (only for items not yet claimed).
        @inline(__always) private func prefetchTurns(
            after j: Int, of indexed: ContiguousArray<Int32>,
            order: ContiguousArray<Int32>, zoom: Int8, grid: NeighborGrid
        ) {
            let cellsAhead = 12, entriesAhead = 6
            if j + cellsAhead < indexed.count {
                let ref = order[Int(indexed[j + cellsAhead])]
                if handledZoom(ref) > zoom {
                    let (x, y) = position(ref)
                    grid.prefetchCells(around: x, y)
                }
            }
            if j + entriesAhead < indexed.count {
                let ref = order[Int(indexed[j + entriesAhead])]
                if handledZoom(ref) > zoom {
                    let (x, y) = position(ref)
                    grid.prefetchEntries(around: x, y)
                }
            }
        }

        /// The turn's query: claims the neighbours of `ref` at (x, y) no turn has claimed yet (the
        /// grid marks them), lists them in `members` and returns the points they and `ref` hold.
        @inline(__always) private func claimNeighbors(
            of ref: Int32, at x: Double, _ y: Double,
            grid: inout NeighborGrid, scratch: inout [NeighborGrid.Entry],
            into members: inout [Member]
        ) -> Int {
            grid.claim(around: x, y, me: ref, into: &scratch)
            var total = count(ref)
            members.removeAll(keepingCapacity: true)
            for nb in scratch {
                let weight = count(nb.ref)
                let (nx, ny) = position(nb)
                members.append(
                    Member(
                        x: nx, y: ny, weight: Int32(truncatingIfNeeded: weight), ref: nb.ref,
                        key: nb.index))
                total += weight
            }
            return total
        }

        /// The turn of `leader` (at index `levelIndex` of the level) forms a cluster of `total`
        /// points with its claimed `members`: supercluster's id, the members' parent, and the
        /// centre and properties now or, for two or more members, once the tree is built.
        @inline(__always) private mutating func formCluster(
            leader: Int32, levelIndex i: Int, at x: Double, _ y: Double,
            total: Int, members: [Member], zoom: Int,
            next: inout NextLevel
        ) {
            let id = (i << 5) + (zoom + 1) + n
            let parent = Int32(clusters.count)
            let passZoom = Int8(zoom)
            for m in members {
                setZoom(m.ref, passZoom)
                setParent(m.ref, parent)
            }
            setParent(leader, parent)
            clusters.append(ClusterNode(x: x, y: y, id: id, count: Int32(total), leader: leader))
            if props != nil { clusterProps.append(JSONObject()) }
            if members.count < 2 {
                complete(cluster: Int(parent), x, y, members[...])
                next.keep(-1 - parent, clusters[Int(parent)].x, clusters[Int(parent)].y)
            } else {
                pend(
                    PendingTurn(x: x, y: y, me: leader, cluster: parent, members: 0..<0, next: next.order.count),
                    members)
                next.keep(-1 - parent, x, y)
            }
        }

        /// The turn of `ref` forms no cluster: it and its claimed members stay as they are (in
        /// kdbush's order, so two or more members wait for the tree as pending turns).
        @inline(__always) private mutating func keepWithNeighbors(
            _ ref: Int32, at x: Double, _ y: Double,
            members: [Member], zoom: Int8, next: inout NextLevel
        ) {
            next.keep(ref, x, y)
            for m in members { setZoom(m.ref, zoom) }
            if members.count < 2 {
                for m in members { next.keep(m.ref, m.x, m.y) }
            } else {
                pend(PendingTurn(x: x, y: y, me: ref, cluster: -1, members: 0..<0, next: next.order.count), members)
                for m in members { next.keep(m.ref, 0, 0) }
            }
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
            let nearest =
                options.radius / (options.extent * pow(2, Double(options.maxZoom))) + NeighborGrid.roundingSlack
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
        mutating func finish(ranks: LevelRanks?, next: inout NextLevel) {
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
}
