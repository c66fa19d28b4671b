// Cluster: the index as supercluster-cpp 0.5.0 builds it, the clustering MapLibre Native runs for
// a clustered GeoJSON source (a data source's `maplibre-native` compatibility). It takes the same
// greedy turns as supercluster JS (`Supercluster+Build.swift`), but:
// - positions stay doubles (JS rounds every tree coordinate to Float32), in kdbush.hpp's trees
//   (`KDBushCpp`), whose report order sums a centre and folds aggregates in another order;
// - a cluster's id is (index in the level above << 5) + zoom + 1, without JS's + input count, so
//   cluster ids and input indexes overlap;
// - a cluster that takes in no neighbour is formed again at the next zoom down (a new id, its
//   centre recomputed as (centre · count) / count), where JS keeps it as it is;
// - aggregates fold as MapLibre Native's map and reduce do (`ClusterProperties.mapNative`).
// The tables are the JS build's (`Built`), so items, records and output need no second form.

import Glibc

extension Supercluster {
    /// supercluster-cpp's levels: one tree per zoom over refs, positions from the tables.
    struct CppLevels: Sendable {
        /// Projected positions by input index, as doubles (unlocated inputs stay 0).
        let pointXY: ContiguousArray<Double>
        /// trees[z - minZoom] for z in minZoom...maxZoom+1, holding refs (see `Built`).
        let trees: [KDBushCpp]

        /// Runs `body` with the positions of refs: a point's projection, a cluster's centre.
        func withPositions<R>(_ clusters: ContiguousArray<ClusterNode>, _ body: (Positions) -> R) -> R {
            pointXY.withUnsafeBufferPointer { points in
                clusters.withUnsafeBufferPointer { nodes in body(Positions(points: points, clusters: nodes)) }
            }
        }

        struct Positions: KDCppPositions {
            let points: UnsafeBufferPointer<Double>
            let clusters: UnsafeBufferPointer<ClusterNode>
            @inline(__always) func position(slot: Int, id ref: Int32) -> (Double, Double) {
                if ref >= 0 { return (points[2 * Int(ref)], points[2 * Int(ref) + 1]) }
                let c = clusters[Int(-1 - ref)]
                return (c.x, c.y)
            }
        }

        var byteCount: Int { trees.reduce(0) { $0 + $1.byteCount } + pointXY.count * 8 }
    }

    /// supercluster-cpp clamps a level's turns to the items its 27 index bits can number.
    static let cppLevelLimit = 0x7ff_ffff

    /// Builds the index of `located` (ascending input indexes) as supercluster-cpp does.
    static func buildCpp(
        input: [Feature], count n: Int, lngLat: ContiguousArray<Double>,
        located order: ContiguousArray<Int32>, options: SuperclusterOptions, props: ClusterProperties?
    ) throws(MapCoreError) -> Built {
        var pointXY = ContiguousArray<Double>(repeating: 0, count: 2 * n)
        var xy = ContiguousArray<Double>()
        xy.reserveCapacity(2 * order.count)
        for ref in order {
            let i = Int(ref)
            let px = Projection.x(lng: lngLat[2 * i]), py = Projection.y(lat: lngLat[2 * i + 1], .c)
            // The JS build's bound (Float range), so both take the same points, and centres
            // (a position times a count, summed) stay finite.
            guard Supercluster.projectable(Float(px), Float(py)) else {
                throw MapCoreError(
                    .invalidArgument,
                    "Feature \(i) has a position too large to project ([\(lngLat[2 * i]), \(lngLat[2 * i + 1])]).")
            }
            pointXY[2 * i] = px
            pointXY[2 * i + 1] = py
            xy.append(px)
            xy.append(py)
        }
        var b = CppBuilder(n: n, options: options, props: props, input: input, lngLat: lngLat)
        var refs = order
        var trees: [KDBushCpp] = []
        var clusterRanges = [Range<Int>](repeating: 0..<0, count: options.maxZoom - options.minZoom + 1)
        for z in stride(from: options.maxZoom, through: options.minZoom, by: -1) {
            // A pass adds at most one cluster an item; the table is indexed by Int32 refs.
            guard b.clusters.count + refs.count < Int(Int32.max) else {
                throw MapCoreError(.limit, "Too many clusters to index (\(b.clusters.count) at zoom \(z)).")
            }
            var tree = KDBushCpp(xy: xy)
            if z == options.maxZoom { b.boundGaps(tree: tree, refs: refs, xy: xy) }
            let first = b.clusters.count
            let next = b.pass(refs: refs, xy: xy, tree: tree, zoom: z)
            clusterRanges[z - options.minZoom] = first..<b.clusters.count
            tree.placeRefs(refs)
            trees.append(tree)
            (refs, xy) = next
        }
        var last = KDBushCpp(xy: xy)
        last.placeRefs(refs)
        trees.append(last)
        return Built(
            pointXY: [], pointParent: b.pointParent, clusters: b.clusters, clusterProps: b.clusterProps,
            clusterRanges: clusterRanges, trees: [],
            cpp: CppLevels(pointXY: pointXY, trees: trees.reversed()))
    }

    /// The clustering passes of supercluster-cpp's `Zoom` constructor.
    struct CppBuilder {
        let n: Int
        let options: SuperclusterOptions
        let props: ClusterProperties?
        let input: [Feature]
        let lngLat: ContiguousArray<Double>
        var pointParent: ContiguousArray<Int32>
        var clusters = ContiguousArray<ClusterNode>()
        /// Aggregates by table index (empty without `props`); an empty object stands for
        /// supercluster-cpp's absent properties.
        var clusterProps: [JSONObject] = []
        /// The mapped properties of each point, made at its first fold (nil: not yet).
        var pointProps: [JSONObject?] = []

        /// Per input index, the squared distance from a point to its nearest other raw point when
        /// it is within `gapReach`, else +infinity (`boundGaps`): what lets a turn skip its query.
        var gap2 = ContiguousArray<Double>()
        var gapReach = 0.0

        init(
            n: Int, options: SuperclusterOptions, props: ClusterProperties?, input: [Feature],
            lngLat: ContiguousArray<Double>
        ) {
            self.n = n
            self.options = options
            self.props = props
            self.input = input
            self.lngLat = lngLat
            pointParent = ContiguousArray(repeating: -1, count: n)
            if props != nil { pointProps = Array(repeating: nil, count: n) }
        }

        @inline(__always) func count(_ ref: Int32) -> Int { ref >= 0 ? 1 : Int(clusters[Int(-1 - ref)].count) }

        @inline(__always) mutating func setParent(_ ref: Int32, _ parent: Int32) {
            if ref >= 0 { pointParent[Int(ref)] = parent } else { clusters[Int(-1 - ref)].parent = parent }
        }

        /// An item's properties as supercluster-cpp holds them (empty: none).
        mutating func mapped(_ ref: Int32, _ props: ClusterProperties) -> JSONObject {
            guard ref >= 0 else { return clusterProps[Int(-1 - ref)] }
            if let done = pointProps[Int(ref)] { return done }
            let m = props.mapNative(Supercluster.feature(Int(ref), input, lngLat).properties)
            pointProps[Int(ref)] = m
            return m
        }

        /// The neighbour radius at `zoom`, as supercluster-cpp computes it.
        func radius(_ zoom: Int) -> Double { options.radius / (options.extent * pow(2, Double(zoom))) }

        /// Finds each raw point's nearest other raw point within reach of the zooms from
        /// maxZoom - 7 up (one query each, over the raw level's tree), so that at those zooms a
        /// point far from every other skips its turn's query (`provablyAlone`). A query stops at
        /// `gapHits` points: a point that crowded has no gap (0) and never skips, and dense data
        /// costs no more than sparse.
        mutating func boundGaps(tree: KDBushCpp, refs: ContiguousArray<Int32>, xy: ContiguousArray<Double>) {
            gapReach = 2 * radius(max(options.minZoom, options.maxZoom - 7)) + Self.slack(1, 1, n)
            gap2 = ContiguousArray(repeating: .infinity, count: n)
            let gapHits = 16
            let room = UnsafeMutablePointer<Int32>.allocate(capacity: gapHits)
            defer { room.deallocate() }
            for i in refs.indices {
                let x = xy[2 * i], y = xy[2 * i + 1]
                let found = tree.withinOwn(x, y, gapReach, into: room, limit: gapHits)
                var nearest = found == gapHits ? 0 : Double.infinity
                for k in 0..<found where Int(room[k]) != i {
                    let j = Int(room[k]), dx = xy[2 * j] - x, dy = xy[2 * j + 1] - y
                    nearest = min(nearest, dx * dx + dy * dy)
                }
                gap2[Int(refs[i])] = nearest
            }
        }

        /// What rounding can move a cluster's centre from where exact sums would put it, near
        /// (x, y), with at most `n` points: a centre is a weighted mean of at most n terms (error
        /// below (n + 1) ulps of the largest coordinate), made again at each of at most 32 zooms;
        /// 128 n ulps bounds that with room to spare.
        static func slack(_ x: Double, _ y: Double, _ n: Int) -> Double {
            128 * Double(max(n, 1)) * Double.ulpOfOne * max(1, abs(x), abs(y))
        }

        /// Whether the point `ref` at (x, y) has no item within `r` at a level, so its turn's query
        /// would find nothing: no other raw point lies within 2r plus the slack. A cluster's
        /// centre lies within r of one of its points (within the radii of the zooms above, which
        /// halve: r/2 + r/4 + ...), plus rounding (`slack`), so no cluster lies within r either.
        @inline(__always) func provablyAlone(_ ref: Int32, _ x: Double, _ y: Double, _ r: Double) -> Bool {
            guard ref >= 0, !gap2.isEmpty else { return false }
            let bound = 2 * r + Self.slack(x, y, n)
            return bound <= gapReach && gap2[Int(ref)] > bound * bound
        }

        /// Clusters the level `refs` (positions `xy`, tree `tree` over its indexes) at `zoom`;
        /// returns the next level.
        mutating func pass(
            refs: ContiguousArray<Int32>, xy: ContiguousArray<Double>, tree: KDBushCpp, zoom: Int
        ) -> (ContiguousArray<Int32>, ContiguousArray<Double>) {
            let r = radius(zoom)
            var visited = [Bool](repeating: false, count: refs.count)
            var nextRefs = ContiguousArray<Int32>(), nextXY = ContiguousArray<Double>()
            nextRefs.reserveCapacity(refs.count)
            nextXY.reserveCapacity(xy.count)
            // supercluster-cpp queries a turn's neighbours twice, to count and then to take them;
            // nothing changes between the two, so the first query's list serves both.
            let room = UnsafeMutablePointer<Int32>.allocate(capacity: max(1, refs.count))
            defer { room.deallocate() }
            for i in 0..<min(refs.count, Supercluster.cppLevelLimit) where !visited[i] {
                visited[i] = true
                let ref = refs[i], px = xy[2 * i], py = xy[2 * i + 1]
                if provablyAlone(ref, px, py, r) {
                    nextRefs.append(ref)
                    nextXY.append(px)
                    nextXY.append(py)
                    continue
                }
                let origin = count(ref)
                var total = origin
                let found = tree.withinOwn(px, py, r, into: room, limit: refs.count)
                var kept = 0
                for k in 0..<found where !visited[Int(room[k])] {
                    total += count(refs[Int(room[k])])
                    room[kept] = room[k]
                    kept += 1
                }
                let near = UnsafeBufferPointer(start: room, count: kept)
                guard total >= options.minPoints else {
                    nextRefs.append(ref)
                    nextXY.append(px)
                    nextXY.append(py)
                    for j in near {
                        let j = Int(j)
                        visited[j] = true
                        nextRefs.append(refs[j])
                        nextXY.append(xy[2 * j])
                        nextXY.append(xy[2 * j + 1])
                    }
                    continue
                }
                let c = Int32(clusters.count)
                var wx = px * Double(origin), wy = py * Double(origin)
                var folded = props.map { mapped(ref, $0) } ?? JSONObject()
                for j in near {
                    let j = Int(j)
                    visited[j] = true
                    let member = refs[j]
                    setParent(member, c)
                    let weight = Double(count(member))
                    wx += xy[2 * j] * weight
                    wy += xy[2 * j + 1] * weight
                    if let props {
                        let other = mapped(member, props)
                        if !other.isEmpty { props.reduceNative(&folded, other) }
                    }
                }
                setParent(ref, c)
                let x = wx / Double(total), y = wy / Double(total)
                clusters.append(
                    ClusterNode(x: x, y: y, id: (i << 5) + zoom + 1, count: Int32(clamping: total), leader: ref))
                if props != nil { clusterProps.append(folded) }
                nextRefs.append(-1 - c)
                nextXY.append(x)
                nextXY.append(y)
            }
            return (nextRefs, nextXY)
        }
    }
}
