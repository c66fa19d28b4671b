// The facts mapbox/supercluster's own test suite asserts (Tests/fixtures/supercluster/README.md,
// tests 1–15), plus the derived cross-checks observed from supercluster 8.0.1 itself.
import Testing
import Glibc
@testable import MapCore

private let fixtures =
    "/" + #filePath.split(separator: "/").dropLast(3).joined(separator: "/") + "/Tests/fixtures/supercluster/"

private func fixture(_ name: String) throws -> JSONValue {
    let bytes = try FileIO.read(path: fixtures + name)
    return try bytes.withUnsafeBufferPointer { b throws(MapCoreError) in try JSON.parse(b) }
}

private func places() throws -> [Feature] {
    let bytes = try FileIO.read(path: fixtures + "places.json")
    return try bytes.withUnsafeBufferPointer { b throws(MapCoreError) in try GeoJSONParser.parse(b) }.features
}

private func index(
    _ features: [Feature], _ configure: (inout SuperclusterOptions) -> Void = { _ in },
    properties: JSONValue? = nil
) throws -> Supercluster {
    var o = SuperclusterOptions()
    configure(&o)
    return try Supercluster(
        features: features, options: o,
        clusterProperties: try properties.map { v throws(MapCoreError) in try ClusterProperties(json: v) })
}

/// The tile as JSON, to compare with upstream's expected tiles.
private func tileJSON(_ sc: Supercluster, _ z: Int, _ x: Int, _ y: Int) throws -> JSONValue {
    let bytes = sc.tileJSON(try sc.tile(z: z, x: x, y: y))
    return try bytes.withUnsafeBufferPointer { b throws(MapCoreError) in try JSON.parse(b) }
}

private func tileFeatures(_ v: JSONValue) -> [JSONObject] {
    (v.objectValue?["features"]?.arrayValue ?? []).compactMap(\.objectValue)
}

private func name(_ sc: Supercluster, _ i: Int) -> String? { sc.feature(i).properties?["name"]?.stringValue }

@Suite struct SuperclusterFacts {
    /// The report rank of every slot equals its position in a whole-tree query, for sizes around
    /// the bucket boundaries (where the shape of the tree changes); a level tree's ranks by
    /// level index are the same ranks.
    @Test func reportRankIsTheQueryOrder() throws {
        var rng = SeededGenerator(seed: 3)
        for (count, nodeSize) in [
            (1, 64), (64, 64), (65, 64), (66, 64), (129, 64), (1000, 2), (1000, 3), (5000, 64), (4097, 16),
        ] {
            var xy = ContiguousArray<Float>()
            for _ in 0..<count {
                xy.append(Float.random(in: 0...1, using: &rng)); xy.append(Float.random(in: 0...1, using: &rng))
            }
            let tree = KDBush(refs: ContiguousArray((0..<count).map(Int32.init)), xy: xy, nodeSize: nodeSize)
            var reported: [Int] = []
            // A box holding every region reports whole nodes; one just short of the edges
            // reports item by item: both in the ranks' order.
            tree.range(minX: -1, minY: -1, maxX: 2, maxY: 2, positions: try #require(tree.ownPositions)) {
                reported.append(Int($0))
            }
            var tested: [Int] = []
            tree.range(
                minX: -1, minY: -1, maxX: 2, maxY: Double(tree.storage.bounds.maxY.nextDown),
                positions: try #require(tree.ownPositions)
            ) { tested.append(Int($0)) }
            #expect(tested == reported.filter { xy[2 * $0 + 1] < tree.storage.bounds.maxY })
            // refs were the input indices; map each reported ref back to its slot.
            var slotOf = [Int](repeating: 0, count: count)
            for slot in 0..<count { slotOf[Int(tree.refs[slot])] = slot }
            let slotRanks = tree.reportRanks()
            let ranks = reported.map { Int(slotRanks[slotOf[$0]]) }
            #expect(ranks == Array(0..<count), "count \(count), nodeSize \(nodeSize)")
            let order = ContiguousArray((0..<count).map { Int32(-1 - $0) })
            let levels = LevelTrees(levels: 1, nodeSize: nodeSize, threaded: false)
            levels.submit(0, order: order, xy: xy)
            let levelRanks = levels.takeRanks(0)
            let levelTree = levels.finish()[0]
            #expect(levelTree.refs == ContiguousArray(tree.refs.map { -1 - $0 }))
            #expect(
                (0..<count).allSatisfy { levelRanks?[$0] == slotRanks[slotOf[$0]] },
                "count \(count), nodeSize \(nodeSize)")
        }
    }

    /// A tree built on two threads (split below the root, or in tasks by `LevelTrees`) is the
    /// same array as one built on one, at the sizes where the splits start (and where kdbush does
    /// not split at all).
    @Test func twoThreadBuildIsTheSameTree() {
        var rng = SeededGenerator(seed: 5)
        for (count, nodeSize) in [(70_000, 64), (3, 2), (65, 64), (66, 64), (1000, 999), (1000, 998), (5000, 2)] {
            var xy = ContiguousArray<Float>()
            for k in 0..<count {  // some duplicates, as equal keys take the other partition branch
                let v = k % 7 == 0 ? Float(0.5) : Float.random(in: 0...1, using: &rng)
                xy.append(v); xy.append(Float.random(in: 0...1, using: &rng))
            }
            let refs = ContiguousArray((0..<count).map(Int32.init))
            let serial = KDBush(refs: refs, xy: xy, nodeSize: nodeSize, parallelFrom: .max)
            let parallel = KDBush(refs: refs, xy: xy, nodeSize: nodeSize, parallelFrom: 2)
            #expect(
                serial.refs == parallel.refs && serial.coords == parallel.coords, "count \(count), nodeSize \(nodeSize)"
            )
            // The same tree again from the build's task scheduler, with its helper thread.
            let levels = LevelTrees(levels: 2, nodeSize: nodeSize, threaded: true)
            levels.submit(1, order: refs, xy: xy)
            levels.submit(0, order: refs, xy: xy)
            _ = levels.takeRanks(1)
            for tree in levels.finish() {
                #expect(tree.refs == serial.refs, "count \(count), nodeSize \(nodeSize)")
            }
        }
    }

    /// A level's tree keeps only refs (positions come from the index by ref) and reports a
    /// node whose region lies in the box without testing its items; range and radius queries
    /// still give exactly kdbush's items in kdbush's order. Boxes include ones whose edges pass
    /// through item positions (inclusive bounds), ones inside one node and ones holding all.
    @Test func queriesByRefEqualKDBush() throws {
        var rng = SeededGenerator(seed: 13)
        struct ByRef: KDPositions {
            let xy: ContiguousArray<Float>
            func position(slot: Int, ref: Int32) -> (x: Float, y: Float) { (xy[2 * Int(ref)], xy[2 * Int(ref) + 1]) }
        }
        for (count, nodeSize, grid) in [
            (5000, 64, false), (5000, 8, true), (700, 2, false), (66, 64, true), (1, 64, false),
        ] {
            var xy = ContiguousArray<Float>()
            for _ in 0..<count {  // on a grid, many items share each coordinate
                let x = grid ? Float(Int.random(in: 0...20, using: &rng)) / 20 : Float.random(in: 0...1, using: &rng)
                xy.append(x);
                xy.append(grid ? Float(Int.random(in: 0...20, using: &rng)) / 20 : Float.random(in: 0...1, using: &rng))
            }
            let refs = ContiguousArray((0..<count).map(Int32.init))
            let levels = LevelTrees(levels: 1, nodeSize: nodeSize, threaded: false)
            levels.submit(0, order: refs, xy: xy)
            let tree = levels.finish()[0]
            #expect(tree.ownPositions == nil && tree.byteCount == 4 * count)
            let oracle = ScalarKDBush(refs: refs, coords: xy, nodeSize: nodeSize)
            /// An item's coordinate on `axis`, or one Float step off it either way.
            func edge(_ axis: Int) -> Double {
                let v = xy[2 * Int.random(in: 0..<count, using: &rng) + axis]
                return Double([v, v.nextDown, v.nextUp][Int.random(in: 0...2, using: &rng)])
            }
            for q in 0..<400 {
                var box: [Double]
                switch q % 4 {
                case 0:
                    let x = Double.random(in: -0.1...1, using: &rng), y = Double.random(in: -0.1...1, using: &rng)
                    let w = pow(10, Double.random(in: -3...0.3, using: &rng))
                    box = [x, y, x + w, y + (q % 8 == 0 ? w : pow(10, Double.random(in: -3...0.3, using: &rng)))]
                case 1: box = [edge(0), edge(1), edge(0) + 0.2, edge(1) + 0.2]
                default: box = [edge(0), edge(1), edge(0), edge(1)]
                }
                if box[2] < box[0] { box.swapAt(0, 2) }
                if box[3] < box[1] { box.swapAt(1, 3) }
                var got: [Int32] = []
                tree.range(minX: box[0], minY: box[1], maxX: box[2], maxY: box[3], positions: ByRef(xy: xy)) {
                    got.append($0)
                }
                #expect(
                    got == oracle.range(box[0], box[1], box[2], box[3]),
                    "range, count \(count), nodeSize \(nodeSize), box \(box)")
                var near: [Int32] = []
                let r = (box[2] - box[0]) / 2
                tree.within(box[0], box[1], r, positions: ByRef(xy: xy)) { near.append($0) }
                #expect(near == oracle.within(box[0], box[1], r), "within, count \(count), nodeSize \(nodeSize)")
            }
        }
    }

    /// The vector partition scans (CMapCoreKernels) leave every tree exactly as kdbush's scalar
    /// loops do: compared with a plain transcription of kdbush 4's sort on inputs with many equal
    /// keys, presorted and reversed runs, and sizes where the scans fall back to scalar tails.
    @Test func treeEqualsScalarKDBush() {
        var rng = SeededGenerator(seed: 11)
        let shapes: [(String, (Int, inout SeededGenerator) -> (Float, Float))] = [
            ("random", { _, g in (Float.random(in: 0...1, using: &g), Float.random(in: 0...1, using: &g)) }),
            (
                "few distinct values",
                { _, g in (Float(Int.random(in: 0..<5, using: &g)) / 4, Float(Int.random(in: 0..<3, using: &g)) / 2) }
            ),
            ("ascending", { k, _ in (Float(k), Float(k % 97)) }),
            ("descending", { k, _ in (Float(-k), Float(-(k % 89))) }),
            ("all equal", { _, _ in (0.25, 0.75) }),
        ]
        for (count, nodeSize) in [(20_000, 64), (70_000, 64), (700, 2), (9, 2), (613, 8), (1201, 600)] {
            for (shape, point) in shapes {
                var xy = ContiguousArray<Float>()
                for k in 0..<count { let (x, y) = point(k, &rng); xy.append(x); xy.append(y) }
                let refs = ContiguousArray((0..<count).map(Int32.init))
                let tree = KDBush(refs: refs, xy: xy, nodeSize: nodeSize)
                let expected = ScalarKDBush(refs: refs, coords: xy, nodeSize: nodeSize)
                #expect(
                    tree.refs == expected.refs && tree.coords == expected.coords,
                    "\(shape), count \(count), nodeSize \(nodeSize)")
            }
        }
    }

    /// The index's fast build (a neighbour grid of the near items, claims, turns completed once
    /// their level's tree is built, trees built on two threads in tasks, prefetch) gives exactly
    /// supercluster's levels: every level's items in order with ids, counts and positions, every
    /// cluster's children and its float sum (folded in supercluster's order), compared with a
    /// plain transcription of supercluster's `_cluster` over kdbush queries.
    /// The data mixes uniform points with tight groups and repeated positions, so clusters have
    /// many neighbours at every zoom; 70,000 points take the two-thread paths; the dense set
    /// crowds grid cells.
    @Test func buildEqualsReferenceSupercluster() throws {
        var rng = SeededGenerator(seed: 21)
        /// `dense`: most points in a 2° square (crowded grid cells, kept sorted by x).
        func features(_ count: Int, dense: Bool = false) -> [Feature] {
            var out: [Feature] = []
            var centre = (0.0, 0.0)
            for i in 0..<count {
                let lng: Double, lat: Double
                switch i % 10 {
                case 0..<3 where dense:
                    lng = Double.random(in: 2...4, using: &rng)
                    lat = Double.random(in: 47...49, using: &rng)
                case 0..<5:
                    lng = Double.random(in: -180...180, using: &rng)
                    lat = Double.random(in: -85...85, using: &rng)
                case 5:
                    centre =
                        dense
                        ? (Double.random(in: 2...4, using: &rng), Double.random(in: 47...49, using: &rng))
                        : (Double.random(in: -170...170, using: &rng), Double.random(in: -80...80, using: &rng))
                    (lng, lat) = centre
                case 6, 7:
                    (lng, lat) = centre
                default:
                    lng = centre.0 + Double.random(in: -0.01...0.01, using: &rng)
                    lat = centre.1 + Double.random(in: -0.01...0.01, using: &rng)
                }
                let w = Double.random(in: 0..<1, using: &rng)
                out.append(Feature(geometry: .point(lng, lat), properties: JSONObject([("w", .double(w))])))
            }
            return out
        }
        let sum = JSONValue.object(
            JSONObject([("w", .array([.string("+"), .array([.string("get"), .string("w")])]))]))
        for (count, minPoints, nodeSize, dense) in [
            (70_000, 2, 64, false), (20_000, 5, 16, false), (3_000, 3, 64, false),
            (30_000, 2, 64, true),
        ] {
            let input = features(count, dense: dense)
            let sc = try index(
                input,
                {
                    $0.minPoints = minPoints; $0.nodeSize = nodeSize
                }, properties: sum)
            let reference = ReferenceSupercluster(
                input, options: sc.options, properties: try ClusterProperties(json: sum))
            var mismatches = 0
            for z in 0...(sc.options.maxZoom + 1) where mismatches == 0 {
                let got = try sc.clusters(west: -180, south: -90, east: 180, north: 90, zoom: Double(z)).map { item in
                    let r = sc.record(item)
                    var w = 0.0
                    if case .cluster(let c) = item { w = sc.clusterProperties(c)["w"]?.doubleValue ?? .nan }
                    return [Double(r.id), r.lng, r.lat, Double(r.pointCount), w]
                }
                let expected = reference.level(z)
                // Reported by first difference: a whole level is too long to print.
                if let k = (0..<min(got.count, expected.count)).first(where: { got[$0] != expected[$0] })
                    ?? (got.count == expected.count ? nil : min(got.count, expected.count))
                {
                    mismatches += 1
                    let gotItem = k < got.count ? got[k] : [], expectedItem = k < expected.count ? expected[k] : []
                    Issue.record(
                        """
                        count \(count), minPoints \(minPoints), dense \(dense), level \(z), item \(k) of \
                        \(expected.count): got \(gotItem), expected \(expectedItem)
                        """)
                }
                // Boxes from a few pixels to most of the world: nodes wholly inside, straddling
                // and outside, reported in kdbush's order.
                for _ in 0..<(z % 3 == 0 ? 12 : 0) {
                    let w = Double.random(in: -180...170, using: &rng), s = Double.random(in: -85...80, using: &rng)
                    let span = pow(10, Double.random(in: -3...2.5, using: &rng))
                    let e = min(180, w + span), n = min(85, s + span / 2)
                    let inBox = try sc.clusters(west: w, south: s, east: e, north: n, zoom: Double(z)).map { item in
                        let r = sc.record(item)
                        var w = 0.0
                        if case .cluster(let c) = item { w = sc.clusterProperties(c)["w"]?.doubleValue ?? .nan }
                        return [Double(r.id), r.lng, r.lat, Double(r.pointCount), w]
                    }
                    let expectedInBox = reference.level(
                        z, minX: Projection.x(lng: w), minY: Projection.y(lat: n, .javaScript),
                        maxX: Projection.x(lng: e), maxY: Projection.y(lat: s, .javaScript))
                    #expect(inBox == expectedInBox, "count \(count), level \(z), box \([w, s, e, n])")
                }
                for item in got where item[3] > 1 && z <= sc.options.maxZoom && z % 4 == 0 {
                    let children = try sc.children(of: Int(item[0])).map { Double(sc.id($0)) }
                    #expect(children == reference.children(of: Int(item[0])), "children of \(Int(item[0]))")
                }
            }
        }
    }

    /// A point farther than the radius from every other point, but within it of a cluster formed
    /// one zoom higher, joins that cluster. (A pass indexes only items with another item within
    /// reach, judged by a bound on each point's distance to its nearest neighbour, which every
    /// new cluster must lower around it.)
    @Test func pointJoinsClusterFormedAboveIt() throws {
        let z = 10
        let r = 40.0 / (512 * pow(2, Double(z)))
        // A and B (0.48 r apart) merge at zoom 11 into M halfway; C is 0.995 r from M but
        // 1.02 r from A and B.
        let a = 0.24 * r, h = 0.995 * r
        let positions = [(0.5, 0.5), (0.5 + 2 * a, 0.5), (0.5 + a, 0.5 + h)]
        let input = positions.map {
            Feature(
                geometry: .point(Projection.lng(x: $0.0), Projection.lat(y: $0.1, .javaScript)),
                properties: JSONObject())
        }
        let sc = try index(input)
        func counts(_ zoom: Int) throws -> [Int] {
            try sc.clusters(west: -180, south: -90, east: 180, north: 90, zoom: Double(zoom)).map { sc.pointCount($0) }
                .sorted()
        }
        #expect(try counts(12) == [1, 1, 1])
        #expect(try counts(11) == [1, 2])
        #expect(try counts(z) == [3])
        let reference = ReferenceSupercluster(
            input, options: sc.options, properties: try ClusterProperties(json: .object(JSONObject())))
        for zoom in 0...17 {
            let got = try sc.clusters(west: -180, south: -90, east: 180, north: 90, zoom: Double(zoom)).map { item in
                let record = sc.record(item)
                return [Double(record.id), record.lng, record.lat, Double(record.pointCount)]
            }
            #expect(got == reference.level(zoom).map { Array($0.prefix(4)) }, "zoom \(zoom)")
        }
    }

    /// An index of bare positions (no Feature per point) answers exactly as one of features.
    @Test func positionsIndexEqualsFeaturesIndex() throws {
        let features = Array(try places().prefix(162))
        var lngLat: [Double] = []
        for f in features { lngLat += [f.geometry?.xy[0] ?? .nan, f.geometry?.xy[1] ?? .nan] }
        let a = try index(features)
        let b = try lngLat.withUnsafeBufferPointer { p throws(MapCoreError) in try Supercluster(positions: p) }
        #expect(b.inputCount == 162)
        for z in 0...17 {
            let ra = try a.clusters(west: -180, south: -90, east: 180, north: 90, zoom: Double(z)).map(a.record)
            let rb = try b.clusters(west: -180, south: -90, east: 180, north: 90, zoom: Double(z)).map(b.record)
            #expect(ra == rb, "zoom \(z)")
        }
        #expect(b.feature(7) == Feature(geometry: .point(lngLat[14], lngLat[15])))
        #expect(try a.leaves(of: 164, offset: 0, limit: .max) == b.leaves(of: 164, offset: 0, limit: .max))
        #expect(throws: MapCoreError.self) {
            try [0.0, .nan].withUnsafeBufferPointer { p throws(MapCoreError) in _ = try Supercluster(positions: p) }
        }
    }

    @Test func generatesClustersProperly() throws {  // upstream test 1
        let sc = try index(try places())
        let expected = try fixture("places-z0-0-0.json")
        let actual = try tileJSON(sc, 0, 0, 0)
        #expect(tileFeatures(actual).count == 39)
        #expect(actual == expected)
        let first = tileFeatures(actual)[0]
        #expect(first["geometry"] == .array([.array([.int(150), .int(205)])]))
        #expect(first["id"] == .int(164))
    }

    @Test func supportsMinPoints() throws {  // 2
        let sc = try index(try places()) { $0.minPoints = 5 }
        let actual = try tileJSON(sc, 0, 0, 0)
        #expect(tileFeatures(actual).count == 49)
        #expect(actual == (try fixture("places-z0-0-0-min5.json")))
    }

    @Test func childrenOfACluster() throws {  // 3
        let sc = try index(try places())
        #expect(try sc.children(of: 164).map { sc.pointCount($0) } == [6, 7, 2, 1])
    }

    /// An id names a point by its input index or a cluster by its cluster id; ids between
    /// (N itself, ids of no cluster) and negative ones name nothing.
    @Test func itemsByID() throws {
        let sc = try index(try places())
        #expect(try sc.item(id: 0) == .point(0))
        #expect(try sc.item(id: sc.inputCount - 1) == .point(sc.inputCount - 1))
        let cluster = try sc.item(id: 164)
        #expect(sc.id(cluster) == 164 && sc.pointCount(cluster) == 16)
        // inputCount + 18: formed at zoom 17, above maxZoom 16.
        for bad in [-1, sc.inputCount, sc.inputCount + 18, Int.max, Int.min] {
            #expect(throws: MapCoreError.self) { try sc.item(id: bad) }
        }
    }

    /// Results of many items are written on two threads in halves joined into one text: the
    /// bytes must be those one thread writes, at every size around the threshold and the
    /// halves' seam (clusters and points, properties with escapes, ids and null properties).
    @Test func parallelFeatureCollectionEqualsSerial() throws {
        var rng = SeededGenerator(seed: 11)
        var features: [Feature] = []
        for i in 0..<(Supercluster.parallelWritingFrom + 500) {
            let lng = Double(rng.next() % 3_600_000) / 10_000 - 180, lat = Double(rng.next() % 1_700_000) / 10_000 - 85
            let properties = i % 7 == 0 ? nil : JSONObject([("i", .int(Int64(i))), ("s", .string("q\"\(i)\n"))])
            var f = Feature(geometry: .point(lng, lat), properties: properties)
            if i % 3 == 0 { f.id = .int(Int64(i)) }
            features.append(f)
        }
        let sc = try index(features)
        let points = try sc.clusters(west: -180, south: -85, east: 180, north: 85, zoom: 20)
        let mixed = try sc.clusters(west: -180, south: -85, east: 180, north: 85, zoom: 4)
        #expect(points.count == features.count && mixed.contains { sc.pointCount($0) > 1 })
        let threshold = Supercluster.parallelWritingFrom
        for items in [points, Array(points.prefix(threshold)), Array(points.prefix(threshold + 1)), mixed + points] {
            // Compared first: a failure then names the sizes, not megabytes of bytes.
            let same =
                sc.featureCollection(items, pretty: false, parallel: true)
                == sc.featureCollection(items, pretty: false, parallel: false)
            #expect(same, "\(items.count) items")
        }
    }

    @Test func leavesOfACluster() throws {  // 4
        let sc = try index(try places())
        let names = try sc.leaves(of: 164, offset: 5, limit: 10).map { name(sc, $0) }
        #expect(
            names == [
                "Niagara Falls", "Cape San Blas", "Cape Sable", "Cape Canaveral", "San  Salvador",
                "Cabo Gracias a Dios", "I. de Cozumel", "Grand Cayman", "Miquelon", "Cape Bauld",
            ])
    }

    @Test func generateIdGivesInputIndexes() throws {  // 5
        let sc = try index(try places()) { $0.generateId = true }
        let ids = tileFeatures(try tileJSON(sc, 0, 0, 0))
            .filter { $0["tags"]?.objectValue?["cluster"] == nil }
            .map { $0["id"] }
        #expect(ids == [12, 20, 21, 22, 24, 28, 30, 62, 81, 118, 119, 125, 81, 118].map { JSONValue.int($0) })
    }

    @Test func leavesWithNullProperties() throws {  // 6
        var features = try places()
        features.append(Feature(geometry: .point(-79.04411780507252, 43.08771393436908), properties: nil))
        let sc = try index(features)
        let leaves = try sc.leaves(of: 165, offset: 6, limit: 1)
        #expect(leaves.count == 1)
        #expect(sc.feature(leaves[0]).properties == nil)
        #expect(leaves[0] == features.count - 1)
    }

    @Test func expansionZoom() throws {  // 7
        let sc = try index(try places())
        #expect(
            try [164, 196, 581, 1157, 4134].map { id throws(MapCoreError) in try sc.expansionZoom(of: id) } == [
                1, 1, 2, 2, 3,
            ])
    }

    @Test func expansionZoomForMaxZoom() throws {  // 8
        let sc = try index(try places()) {
            $0.radius = 60; $0.extent = 256; $0.maxZoom = 4
        }
        #expect(try sc.expansionZoom(of: 2504) == 5)
    }

    @Test func aggregatesWithReduce() throws {  // 9: map {sum: scalerank}, reduce sum += sum
        let props = JSONValue.object(
            JSONObject([("sum", .array([.string("+"), .array([.string("get"), .string("scalerank")])]))]))
        let sc = try index(try places(), { $0.radius = 100 }, properties: props)
        func sums(_ z: Int, _ x: Int, _ y: Int) throws -> [Double] {
            tileFeatures(try tileJSON(sc, z, x, y)).compactMap { $0["tags"]?.objectValue?["sum"]?.doubleValue }.filter {
                $0 != 0
            }
        }
        #expect(try sums(1, 0, 0) == [146, 84, 63, 23, 34, 12, 19, 29, 8, 8, 80, 35])
        #expect(try sums(0, 0, 0) == [298, 122, 12, 36, 98, 7, 24, 8, 125, 98, 125, 12, 36, 8])
        // Every point is in exactly one top-level item: the z0 sums plus the lone points' ranks are the total.
        let items = try sc.clusters(west: -180, south: -90, east: 180, north: 90, zoom: 0)
        var total = 0.0
        for item in items {
            switch item {
            case .cluster(let c): total += sc.clusterProperties(c)["sum"]?.doubleValue ?? .nan
            case .point(let i): total += sc.feature(i).properties?["scalerank"]?.doubleValue ?? .nan
            }
        }
        #expect(total == 740)
    }

    @Test func reduceExpressionFormAndOtherOperators() throws {
        // The iOS form: an explicit reduce expression over ["accumulated"] and ["get", name].
        let props = try JSON.parse(
            """
            {"total": [["+", ["accumulated"], ["get", "total"]], ["get", "scalerank"]],
             "top": ["max", ["get", "scalerank"]], "low": ["min", ["get", "scalerank"]],
             "allNamed": ["all", ["has", "name"]], "anyZero": ["any", ["==", ["get", "scalerank"], 0]],
             "product": ["*", 1]}
            """)
        let sc = try index(try places(), properties: props)
        let features = try places()
        for item in try sc.clusters(west: -180, south: -90, east: 180, north: 90, zoom: 0) {
            guard case .cluster(let c) = item else { continue }
            let p = sc.clusterProperties(c)
            let ranks = try sc.leaves(of: sc.id(item), offset: 0, limit: Int.max).compactMap {
                features[$0].properties?["scalerank"]?.doubleValue
            }
            #expect(ranks.count == sc.pointCount(item))
            #expect(p["total"]?.doubleValue == ranks.reduce(0, +))
            #expect(p["top"]?.doubleValue == ranks.max())
            #expect(p["low"]?.doubleValue == ranks.min())
            #expect(p["allNamed"] == .bool(true))
            #expect(p["anyZero"] == .bool(ranks.contains(0)))
            #expect(p["product"]?.doubleValue == 1)
        }
    }

    @Test func queryAcrossTheAntimeridian() throws {  // 10
        let features = [-178.989, -178.990, -178.991, -178.992].map { Feature(geometry: .point($0, 0)) }
        let sc = try index(features)
        let a = try sc.clusters(west: -179, south: -10, east: -177, north: 10, zoom: 1)
        let b = try sc.clusters(west: 179, south: -10, east: -177, north: 10, zoom: 1)
        #expect(!a.isEmpty)
        #expect(a.count == b.count)
    }

    @Test func weirdBoundingBoxes() throws {  // 11
        let sc = try index(try places())
        let cases: [([Double], Int)] = [
            ([129.426390, -103.720017, -445.930843, 114.518236], 26),
            ([112.207836, -84.578666, -463.149397, 120.169159], 27),
            ([129.886277, -82.332680, -445.470956, 120.390930], 26),
            ([458.220043, -84.239039, -117.137190, 120.206585], 25),
            ([456.713058, -80.354196, -118.644175, 120.539148], 25),
            ([453.105328, -75.857422, -122.251904, 120.732760], 25),
            ([-180, -90, 180, 90], 61),
        ]
        for (b, n) in cases {
            #expect(try sc.clusters(west: b[0], south: b[1], east: b[2], north: b[3], zoom: 1).count == n, "\(b)")
        }
    }

    @Test func nonIntegerZoom() throws {  // 12
        let sc = try index(try places())
        #expect(
            try sc.clusters(west: 179, south: -10, east: -177, north: 10, zoom: 1.25)
                == (try sc.clusters(west: 179, south: -10, east: -177, north: 10, zoom: 1)))
    }

    @Test func sameLocationPointsCluster() throws {  // 13
        let p = Feature(geometry: .point(-1.426798, 53.943034))
        let sc = try index([p, p]) {
            $0.maxZoom = 20; $0.extent = 8192; $0.radius = 16
        }
        #expect(sc.levelCounts().first { $0.zoom == 20 }?.items == 1)
    }

    @Test func unclusteredPointsAreNotRounded() throws {  // 14
        let sc = try index([Feature(geometry: .point(173.19150559062456, -41.340357424709275))]) { $0.maxZoom = 19 }
        let f = tileFeatures(try tileJSON(sc, 20, 1028744, 656754))
        #expect(f.first?["geometry"] == .array([.array([.int(421), .int(281)])]))
    }

    @Test func zeroItems() throws {  // 15
        let sc = try index([])
        #expect(try sc.clusters(west: -180, south: -85, east: 180, north: 85, zoom: 0).isEmpty)
        #expect(sc.tileJSON(try sc.tile(z: 0, x: 0, y: 0)) == Array("null".utf8))
    }

    // MARK: derived cross-checks (derived-places-facts.json)

    @Test func derivedCountsByZoom() throws {
        let facts = try fixture("derived-places-facts.json").objectValue ?? JSONObject()
        let sc = try index(try places())
        let byZoom = facts["defaultOptions_getClusters_counts_by_zoom"]?.objectValue
        let totals = byZoom?["total_features"]?.arrayValue?.compactMap(\.doubleValue) ?? []
        let clusters = byZoom?["cluster_features"]?.arrayValue?.compactMap(\.doubleValue) ?? []
        #expect(totals.count == 18)
        for z in 0..<18 {
            for south in [-85.0, -90] {
                let items = try sc.clusters(west: -180, south: south, east: 180, north: -south, zoom: Double(z))
                #expect(Double(items.count) == totals[z], "zoom \(z)")
                #expect(
                    Double(items.filter { if case .cluster = $0 { return true } else { return false } }.count)
                        == clusters[z])
            }
        }
        let min5 = try index(try places()) { $0.minPoints = 5 }
        let min5Totals =
            facts["minPoints5_getClusters_counts_by_zoom"]?.objectValue?["total_features"]?.arrayValue?.compactMap(
                \.doubleValue) ?? []
        #expect(min5Totals.count == 18)
        for (z, n) in min5Totals.enumerated() {
            #expect(Double(try min5.clusters(west: -180, south: -90, east: 180, north: 90, zoom: Double(z)).count) == n)
        }
        for (key, n) in facts["defaultOptions_getTile_feature_counts"]?.objectValue ?? JSONObject() {
            let zxy = key.split(separator: "/").compactMap { Int($0) }
            #expect(tileFeatures(try tileJSON(sc, zxy[0], zxy[1], zxy[2])).count == Int(n.doubleValue ?? -1), "\(key)")
        }
    }

    @Test func derivedZ0Clusters() throws {
        let facts = try fixture("derived-places-facts.json").objectValue ?? JSONObject()
        let sc = try index(try places())
        let rows = facts["defaultOptions_z0_clusters"]?.arrayValue?.compactMap(\.objectValue) ?? []
        #expect(rows.count == 20)
        for row in rows {
            guard let id = row["cluster_id"]?.doubleValue.map({ Int($0) }) else { Issue.record("no id"); continue }
            let c = try sc.cluster(withID: id)
            let item = ClusterItem.cluster(c)
            #expect(Double(sc.pointCount(item)) == row["point_count"]?.doubleValue)
            let lngLat = row["lng_lat"]?.arrayValue?.compactMap(\.doubleValue) ?? []
            let (lng, lat) = sc.position(item)
            #expect(
                approximatelyEqual(lng, lngLat[0], tolerance: 1e-12)
                    && approximatelyEqual(lat, lngLat[1], tolerance: 1e-12), "\(id)")
            #expect(Double(try sc.expansionZoom(of: id)) == row["expansion_zoom"]?.doubleValue)
            #expect(
                try sc.children(of: id).map { JSONValue.int(Int64(sc.pointCount($0))) }
                    == row["children_point_counts"]?.arrayValue)
            #expect(Double(try sc.leaves(of: id, offset: 0, limit: .max).count) == row["leaves_total"]?.doubleValue)
        }
        let allNames = facts["defaultOptions_getLeaves_164_all_names_in_order"]?.arrayValue?.compactMap(\.stringValue)
        #expect(try sc.leaves(of: 164, offset: 0, limit: .max).map { name(sc, $0) ?? "" } == allNames)

        let wide = try index(try places()) {
            $0.radius = 60; $0.extent = 256; $0.maxZoom = 4
        }
        for row in facts["radius60_extent256_maxZoom4_z0_clusters"]?.arrayValue?.compactMap(\.objectValue) ?? [] {
            let id = Int(row["cluster_id"]?.doubleValue ?? -1)
            #expect(Double(wide.pointCount(.cluster(try wide.cluster(withID: id)))) == row["point_count"]?.doubleValue)
            #expect(Double(try wide.expansionZoom(of: id)) == row["expansion_zoom"]?.doubleValue)
        }
    }

    @Test func abbreviatedCounts() throws {
        let facts =
            try fixture("derived-places-facts.json").objectValue?["point_count_abbreviated_examples"]?.objectValue
            ?? JSONObject()
        #expect(facts.count == 10)
        for (count, expected) in facts {
            #expect(Supercluster.abbreviated(Int(count) ?? -1) == expected, "\(count)")
        }
    }

    /// supercluster-cpp's point_count_abbreviated (MapLibre Native's clustered sources): always a
    /// string; from 1,000 a stream set `fixed` writes the thousands with one decimal below
    /// 10,000 (C's "%.1f": the double's exact value rounded, so 1.25 gives "1.2" and 9.95,
    /// stored just below, "9.9") and with six from 10,000.
    @Test func abbreviatedCountsAsSuperclusterCppWritesThem() {
        let expected: [(Int, String)] = [
            (2, "2"), (999, "999"), (1000, "1.0k"), (1250, "1.2k"), (1350, "1.4k"), (1450, "1.4k"),
            (9950, "9.9k"), (9999, "10.0k"), (10000, "10.000000k"), (12000, "12.000000k"),
            (123_456, "123.456000k"), (2_147_483_646, "2147483.646000k"),
        ]
        for (count, text) in expected {
            #expect(Supercluster.abbreviated(count, cpp: true) == .string(text), "\(count)")
        }
    }

    /// The locale-free fixed-point writer against glibc's printf in this process's "C" locale: every
    /// count to 10,100 (past both formats' edges), then a sparse sweep and the largest.
    @Test func fixedWritesAsPrintfDoesInTheCLocale() {
        func printf(_ value: Double, _ decimals: Int) -> String {
            var buffer = [CChar](repeating: 0, count: 64)
            let n = withVaList([value]) { vsnprintf(&buffer, buffer.count, "%.\(decimals)f", $0) }
            return String(decoding: buffer.prefix(Int(n)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        var counts = Array(1000...10_100) + Array(stride(from: 10_101, to: 100_000_000, by: 9_973))
        counts += [Int(Int32.max), 999_999_999_999, (1 << 53) - 1]
        var differing: [Int] = []
        for count in counts {
            let value = Double(count) / 1000
            for decimals in [1, 6] where Supercluster.fixed(value, decimals: decimals) != printf(value, decimals) {
                differing.append(count)
            }
        }
        #expect(differing.isEmpty, "\(differing.prefix(10))")
        #expect(Supercluster.fixed(2.5, decimals: 0) == "2" && Supercluster.fixed(3.5, decimals: 0) == "4")
    }

    /// getTile rounds as JS's Math.round (halves up) or, with `maplibreNativeOutput`, as
    /// supercluster-cpp's C round (halves away from zero): longitude -360 / 2^15 lies half a unit
    /// left of tile 1/1/1 at extent 8192, in its radius margin.
    @Test func tileRoundingPerOutput() throws {
        for (native, x) in [(false, 0.0), (true, -1.0)] {
            let sc = try index([Feature(geometry: .point(-360.0 / 32768, 0))]) {
                $0.extent = 8192
                $0.radius = 640
                $0.maplibreNativeOutput = native
            }
            #expect(try sc.tile(z: 1, x: 1, y: 1).map { [$0.x, $0.y] } == [[x, 0]], "\(native)")
            #expect(try sc.tile(z: 1, x: 0, y: 1).map { [$0.x, $0.y] } == [[8192, 0]], "\(native)")
        }
    }

    // MARK: errors

    @Test func unknownClusterIDs() throws {
        let sc = try index(try places())
        for id in [-1, 0, 5, 162, 163, 195, 100_000, Int.max, Int.min] {
            #expect(throws: MapCoreError.self) { try sc.children(of: id) }
            #expect(throws: MapCoreError.self) { try sc.leaves(of: id, offset: 0, limit: 10) }
            #expect(throws: MapCoreError.self) { try sc.expansionZoom(of: id) }
        }
        #expect(throws: MapCoreError.self) { try sc.clusters(west: .nan, south: 0, east: 1, north: 1, zoom: 0) }
        #expect(throws: MapCoreError.self) { try sc.clusters(west: 0, south: 0, east: 1, north: 1, zoom: .nan) }
        #expect(throws: MapCoreError.self) { try sc.tile(z: 2, x: 4, y: 0) }
        #expect(throws: MapCoreError.self) { try sc.tile(z: -1, x: 0, y: 0) }
        #expect(try sc.clusters(west: 0, south: 0, east: 1, north: 1, zoom: .infinity).count >= 0)
    }

    @Test func extremeCoordinatesNeverTrap() throws {
        // Beyond Float range after projection: refused with a clear error.
        #expect(throws: MapCoreError.self) { try Supercluster(features: [Feature(geometry: .point(1e300, 0))]) }
        // Projectable but far outside the world: indexed; tile coordinates stay doubles.
        let far = [
            Feature(geometry: .point(1e30, 95)), Feature(geometry: .point(1e30, 95)),
            Feature(geometry: .point(-1e30, -95)),
        ]
        let sc = try index(far)
        for z in [0, 1, 20, 40] {
            let tiles = try sc.tile(z: z, x: 0, y: 0)
            #expect(tiles.allSatisfy { !$0.x.isNaN && !$0.y.isNaN })
        }
        #expect(try sc.clusters(west: -180, south: -90, east: 180, north: 90, zoom: 0).count <= 3)
    }

    @Test func nonPointFeaturesAreRefused() throws {
        let line = Feature(geometry: Geometry(type: .lineString, xy: [0, 0, 1, 1]))
        #expect(throws: MapCoreError.self) { try Supercluster(features: [Feature(geometry: .point(0, 0)), line]) }
        var o = SuperclusterOptions()
        o.maxZoom = 31
        #expect(throws: MapCoreError.self) { try Supercluster(features: [], options: o) }
    }
}

/// kdbush 4's `sort` and Floyd–Rivest `select`, transcribed plainly (scalar scans, array
/// indexing): the oracle for the library's tree.
private struct ScalarKDBush {
    var refs: ContiguousArray<Int32>
    var coords: ContiguousArray<Float>
    let nodeSize: Int

    init(refs: ContiguousArray<Int32>, coords: ContiguousArray<Float>, nodeSize: Int) {
        self.refs = refs
        self.coords = coords
        self.nodeSize = nodeSize
        sort(0, refs.count - 1, 0)
    }

    mutating func sort(_ left: Int, _ right: Int, _ axis: Int) {
        if right - left <= nodeSize { return }
        let m = (left + right) >> 1
        select(m, left, right, axis)
        sort(left, m - 1, 1 - axis)
        sort(m + 1, right, 1 - axis)
    }

    mutating func select(_ k: Int, _ left: Int, _ right: Int, _ axis: Int) {
        var left = left, right = right
        while right > left {
            if right - left > 600 {
                let n = Double(right - left + 1), m = Double(k - left + 1), z = JSMath.log(n)
                let s = 0.5 * JSMath.exp(2 * z / 3)
                let sd = 0.5 * (z * s * (n - s) / n).squareRoot() * (m - n / 2 < 0 ? -1 : 1)
                select(
                    k, max(left, Int((Double(k) - m * s / n + sd).rounded(.down))),
                    min(right, Int((Double(k) + (n - m) * s / n + sd).rounded(.down))), axis)
            }
            let t = coords[2 * k + axis]
            var i = left, j = right
            swapItems(left, k)
            if coords[2 * right + axis] > t { swapItems(left, right) }
            while i < j {
                swapItems(i, j)
                i += 1
                j -= 1
                while coords[2 * i + axis] < t { i += 1 }
                while coords[2 * j + axis] > t { j -= 1 }
            }
            if coords[2 * left + axis] == t {
                swapItems(left, j)
            } else {
                j += 1
                swapItems(j, right)
            }
            if j <= k { left = j + 1 }
            if k <= j { right = j - 1 }
        }
    }

    mutating func swapItems(_ i: Int, _ j: Int) {
        refs.swapAt(i, j)
        coords.swapAt(2 * i, 2 * j)
        coords.swapAt(2 * i + 1, 2 * j + 1)
    }

    /// kdbush 4's `range`: every item's position is tested, node by node.
    func range(_ minX: Double, _ minY: Double, _ maxX: Double, _ maxY: Double) -> [Int32] {
        search(minX, minY, maxX, maxY) { x, y in x >= minX && x <= maxX && y >= minY && y <= maxY }
    }

    /// kdbush 4's `within`.
    func within(_ qx: Double, _ qy: Double, _ r: Double) -> [Int32] {
        search(qx - r, qy - r, qx + r, qy + r) { x, y in (x - qx) * (x - qx) + (y - qy) * (y - qy) <= r * r }
    }

    private func search(
        _ minX: Double, _ minY: Double, _ maxX: Double, _ maxY: Double, _ accept: (Double, Double) -> Bool
    ) -> [Int32] {
        var result: [Int32] = []
        guard !refs.isEmpty else { return result }
        var stack = [0, refs.count - 1, 0]
        while !stack.isEmpty {
            let axis = stack.removeLast(), right = stack.removeLast(), left = stack.removeLast()
            if right - left <= nodeSize {
                for i in left...right where accept(Double(coords[2 * i]), Double(coords[2 * i + 1])) {
                    result.append(refs[i])
                }
                continue
            }
            let m = (left + right) >> 1
            let x = Double(coords[2 * m]), y = Double(coords[2 * m + 1])
            if accept(x, y) { result.append(refs[m]) }
            if axis == 0 ? minX <= x : minY <= y { stack += [left, m - 1, 1 - axis] }
            if axis == 0 ? maxX >= x : maxY >= y { stack += [m + 1, right, 1 - axis] }
        }
        return result
    }
}

/// supercluster 8's `load` and `_cluster`, transcribed with one data array per level as upstream
/// keeps them and kdbush's plain queries (`ScalarKDBush`): the oracle for the index.
private struct ReferenceSupercluster {
    struct Item {
        var x: Double, y: Double
        var zoom = Int.max
        var id: Int  // input index of a point, id of a cluster
        var count: Int
        var parent = -1
        var props: JSONObject?
    }
    private var levels: [[Item]] = []
    private var trees: [ScalarKDBush] = []
    private let input: [Feature]
    private let options: SuperclusterOptions

    init(_ input: [Feature], options: SuperclusterOptions, properties: ClusterProperties) {
        self.input = input
        self.options = options
        var data = input.enumerated().map { i, f in
            Item(
                x: Double(Float(Projection.x(lng: f.geometry?.xy[0] ?? 0))),
                y: Double(Float(Projection.y(lat: f.geometry?.xy[1] ?? 0, .javaScript))),
                id: i, count: 1)
        }
        func tree(_ d: [Item]) -> ScalarKDBush {
            var xy = ContiguousArray<Float>()
            for item in d { xy.append(Float(item.x)); xy.append(Float(item.y)) }
            return ScalarKDBush(
                refs: ContiguousArray((0..<d.count).map(Int32.init)), coords: xy, nodeSize: options.nodeSize)
        }
        var levels: [[Item]] = [data]
        var trees = [tree(data)]
        for zoom in stride(from: options.maxZoom, through: options.minZoom, by: -1) {
            let r = options.radius / (options.extent * pow(2, Double(zoom)))
            let t = trees[0]
            var next: [Item] = []
            for i in data.indices {
                if data[i].zoom <= zoom { continue }
                data[i].zoom = zoom
                let neighbours = t.within(data[i].x, data[i].y, r).map(Int.init)
                let origin = data[i].count
                var total = origin
                for k in neighbours where data[k].zoom > zoom { total += data[k].count }
                if total > origin && total >= options.minPoints {
                    var wx = data[i].x * Double(origin), wy = data[i].y * Double(origin)
                    var props: JSONObject? = nil
                    let id = (i << 5) + (zoom + 1) + input.count
                    for k in neighbours where data[k].zoom > zoom {
                        data[k].zoom = zoom
                        wx += data[k].x * Double(data[k].count)
                        wy += data[k].y * Double(data[k].count)
                        data[k].parent = id
                        var folded = props ?? data[i].props ?? properties.map(input[data[i].id])
                        properties.reduce(&folded, data[k].props ?? properties.map(input[data[k].id]))
                        props = folded
                    }
                    data[i].parent = id
                    next.append(
                        Item(
                            x: wx / Double(total), y: wy / Double(total), id: id, count: total,
                            props: props ?? JSONObject()))
                } else {
                    next.append(data[i])
                    if total > 1 {
                        for k in neighbours where data[k].zoom > zoom {
                            data[k].zoom = zoom
                            next.append(data[k])
                        }
                    }
                }
            }
            levels[0] = data
            for k in next.indices { next[k].zoom = .max; next[k].parent = -1 }
            levels.insert(next, at: 0)
            trees.insert(tree(next), at: 0)
            data = next
        }
        self.levels = levels
        self.trees = trees
    }

    /// supercluster's getChildren: the items of the level above within the radius of the
    /// cluster's first item whose parent is the cluster, as ids.
    func children(of id: Int) -> [Double] {
        let zoomField = (id - input.count) & 31
        let k = zoomField - options.minZoom
        let origin = levels[k][(id - input.count) >> 5]
        let r = options.radius / (options.extent * pow(2, Double(zoomField - 1)))
        var out: [Double] = []
        for ref in trees[k].within(origin.x, origin.y, r) where levels[k][Int(ref)].parent == id {
            out.append(Double(levels[k][Int(ref)].id))
        }
        return out
    }

    /// The items in a box of the unit square at `zoom` (the whole world by default):
    /// [id, lng, lat, count, sum of w] per item, in query order.
    func level(_ zoom: Int, minX: Double = 0, minY: Double = 0, maxX: Double = 1, maxY: Double = 1) -> [[Double]] {
        let k = zoom - options.minZoom
        var out: [[Double]] = []
        for ref in trees[k].range(minX, minY, maxX, maxY) {
            let item = levels[k][Int(ref)]
            if item.count == 1 && item.props == nil {
                let f = input[item.id]
                out.append([Double(item.id), f.geometry?.xy[0] ?? .nan, f.geometry?.xy[1] ?? .nan, 1, 0])
            } else {
                out.append([
                    Double(item.id), Projection.lng(x: item.x), Projection.lat(y: item.y, .javaScript),
                    Double(item.count),
                    item.props?["w"]?.doubleValue ?? .nan,
                ])
            }
        }
        return out
    }
}
