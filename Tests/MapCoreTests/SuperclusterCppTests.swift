// Cluster: the index as supercluster-cpp 0.5.0 builds it (`maplibreNativeOutput`, a data source's
// maplibre-native compatibility). Every expected value below is supercluster-cpp's own answer:
// supercluster.hpp 0.5.0 with kdbush.hpp, built from their sources and given the same points
// (docs/NOTES.md, Clustering, "supercluster-cpp's index"). None comes from this code.

import Testing
import Glibc
@testable import MapCore

/// MapLibre Native's derivation for a clustered source with the default clusterRadius (50 px):
/// extent 8192, radius 800.
private func cppIndex(
    _ features: [Feature], maxZoom: Int = 16, properties: JSONValue? = nil
) throws -> Supercluster {
    var o = SuperclusterOptions()
    o.extent = 8192
    o.radius = 800
    o.maxZoom = maxZoom
    o.maplibreNativeOutput = true
    return try Supercluster(
        features: features, options: o,
        clusterProperties: try properties.map { v throws(MapCoreError) in try ClusterProperties(json: v) })
}

private func point(_ lng: Double, _ lat: Double, _ properties: JSONObject? = nil) -> Feature {
    var f = Feature(geometry: .point(lng, lat))
    f.properties = properties
    return f
}

/// Tile x, y of a position at zoom z (x wrapped, y clamped), as the harness enumerates them.
private func tileOf(_ lng: Double, _ lat: Double, _ z: Int) -> (Int, Int) {
    let n = Double(1 << z)
    let x = Int((Projection.x(lng: lng) * n).rounded(.down)), y = Int((Projection.y(lat: lat, .c) * n).rounded(.down))
    let m = 1 << z
    return (((x % m) + m) % m, min(m - 1, max(0, y)))
}

@Suite struct SuperclusterCppFacts {
    /// Two points 0.001° apart cluster at zoom 15, and the cluster takes in no one below: JS keeps
    /// one cluster (id (0 << 5) + 16 + 3 inputs = 19); supercluster-cpp forms it again at every
    /// zoom, as (index << 5) + zoom + 1 without the input count, so from z0 to z15 its ids run 1,
    /// 2, ..., 16, and 1 is also the input index of a point.
    @Test func idsWithoutTheInputCountAndALoneClusterFormedAgainAtEachZoom() throws {
        let sc = try cppIndex([point(10, 10), point(10.001, 10), point(-30, 20)])
        var ids: [Int] = []
        for z in 0...17 {
            let (x, y) = tileOf(10, 10, z)
            ids.append(
                contentsOf: try sc.tile(z: z, x: x, y: y).filter { sc.pointCount($0.item) == 2 }.map { sc.id($0.item) })
        }
        #expect(ids == Array(1...16))
        let z0 = try sc.tile(z: 0, x: 0, y: 0).map { [Int($0.x), Int($0.y), sc.id($0.item), sc.pointCount($0.item)] }
        #expect(z0 == [[4324, 3867, 1, 2], [3413, 3631, 2, 1]])
        // At z16 the two points are apart: supercluster-cpp's tile 16/34588/30938.
        let z16 = try sc.tile(z: 16, x: 34588, y: 30938).map { [Int($0.x), Int($0.y), sc.id($0.item)] }
        #expect(z16 == [[3641, 1984, 0], [5132, 1984, 1]])
        func children(_ id: Int) throws -> [String] {
            try sc.children(of: id).map { "\(sc.id($0)):\(sc.pointCount($0))" }
        }
        #expect(try children(1) == ["2:2"])
        #expect(try children(2) == ["3:2"])
        #expect(try children(15) == ["16:2"])
        #expect(try children(16) == ["0:1", "1:1"])
        #expect(try sc.expansionZoom(of: 1) == 16)
        #expect(try sc.expansionZoom(of: 15) == 16)
        #expect(try sc.leaves(of: 1, offset: 0, limit: 10) == [0, 1])
        for unknown in [33, 481, -1, 17, Int.max] {
            #expect(throws: MapCoreError.self) { try sc.children(of: unknown) }
            #expect(throws: MapCoreError.self) { try sc.expansionZoom(of: unknown) }
        }
        // supercluster-cpp answers getChildren(0) with the z0 items whose parent id was never set
        // (its default, 0); 0 is no cluster's id, and here it is not found.
        #expect(throws: MapCoreError.self) { try sc.children(of: 0) }
        // Ids overlap input indexes, so an item by id is a point, a cluster by -1 - id.
        #expect(try sc.item(id: 1) == .point(1))
        #expect(try sc.item(id: -2) == .cluster(try sc.cluster(withID: 1)))
        #expect(throws: MapCoreError.self) { try sc.item(id: 3) }
    }

    /// 3,000 points about five centres (one across the antimeridian), MapLibre Native's options
    /// with clusterMaxZoom 12: every tile holding a point at zooms 0–13 (2,715 tiles, 10,377
    /// features in supercluster-cpp's order, positions and ids), then children, leaves and
    /// expansion zoom of every cluster they show (1,402), written as text and hashed (FNV-1a).
    @Test func tilesAndClusterQueriesOfThreeThousandPoints() throws {
        var state: UInt64 = 42
        func unit() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) * 0x1p-53
        }
        let centres = [(-120.0, 40.0), (2.0, 48.0), (139.0, 35.0), (-46.0, -23.0), (179.9, -17.0)]
        let spreads = [0.01, 0.1, 1.0, 5.0, 0.3]
        var features: [Feature] = []
        for k in 0..<3000 {
            let u = unit(), v = unit()
            features.append(
                point(centres[k % 5].0 + (u - 0.5) * spreads[k % 5], centres[k % 5].1 + (v - 0.5) * spreads[k % 5]))
        }
        let sc = try cppIndex(features, maxZoom: 12)
        var tiles = Set<[Int]>()
        for f in features {
            for z in 0...13 {
                let (x, y) = tileOf(f.geometry?.xy[0] ?? 0, f.geometry?.xy[1] ?? 0, z)
                tiles.insert([z, x, y])
            }
        }
        var text = "", clusterIDs = Set<Int>(), count = 0
        for t in tiles.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
            text += "\(t[0])/\(t[1])/\(t[2]):"
            for item in try sc.tile(z: t[0], x: t[1], y: t[2]) {
                let n = sc.pointCount(item.item)
                text += "\(Int(item.x)),\(Int(item.y)),\(sc.id(item.item)),\(n);"
                if n > 1 { clusterIDs.insert(sc.id(item.item)) }
                count += 1
            }
            text += "\n"
        }
        for id in clusterIDs.sorted() {
            text +=
                "c\(id):" + (try sc.children(of: id).map { "\(sc.id($0)):\(sc.pointCount($0))" }.joined(separator: " "))
            text +=
                "\nl\(id):"
                + (try sc.leaves(of: id, offset: 0, limit: 1_000_000).map { "\($0):1" }.joined(separator: " "))
            text += "\ne\(id):\(try sc.expansionZoom(of: id))\n"
        }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        #expect(tiles.count == 2715)
        #expect(count == 10377)
        #expect(clusterIDs.count == 1402)
        #expect(hash == 0x68e6_7afe_ec37_409a)
    }

    /// MapLibre Native's map and reduce for {"s": ["+", ["get", "v"]]}: a point without properties
    /// maps to nothing and is not folded; a cluster whose leader had none starts from null, so the
    /// sum fails to null; a cluster of points without properties has no "s" at all.
    @Test func aggregatesFoldAsMapLibreNativeFoldsThem() throws {
        let cases: [(JSONObject?, JSONObject?, JSONValue?)] = [
            (nil, JSONObject(), nil),
            (JSONObject(), JSONObject([("v", .double(1.5))]), .null),
            (JSONObject([("v", .double(1.5))]), nil, .double(1.5)),
            (JSONObject([("w", .int(1))]), JSONObject([("v", .double(2.5))]), .null),
            (JSONObject([("v", .double(1.5))]), JSONObject([("v", .double(2.25))]), .double(3.75)),
        ]
        let sum: JSONValue = .object(
            JSONObject([("s", .array([.string("+"), .array([.string("get"), .string("v")])]))]))
        for (a, b, expected) in cases {
            let sc = try cppIndex([point(10, 10, a), point(10.001, 10, b)], properties: sum)
            let tile = try sc.tile(z: 0, x: 0, y: 0)
            guard tile.count == 1, case .cluster(let c) = tile[0].item else {
                Issue.record("expected one cluster")
                continue
            }
            #expect(sc.clusterProperties(c)["s"] == expected, "\(String(describing: a)), \(String(describing: b))")
        }
    }

    /// A tree of 70,000 positions (with repeats) sorted on two threads is the tree one thread
    /// sorts, and a query over it reports what a scan of every position finds.
    @Test func twoThreadTreeIsTheOneThreadTree() {
        var state: UInt64 = 7
        var xy = ContiguousArray<Double>()
        for k in 0..<70_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let u = Double(state >> 11) * 0x1p-53
            xy.append(k % 10 == 0 ? 0.5 : u)
            xy.append(k % 7 == 0 ? 0.25 : Double((state >> 3) & 1023) / 1024)
        }
        let two = KDBushCpp(xy: xy, parallelFrom: 1), one = KDBushCpp(xy: xy, parallelFrom: .max)
        #expect(two.ids == one.ids)
        #expect(Set(two.ids).count == 70_000)
        let room = UnsafeMutablePointer<Int32>.allocate(capacity: 70_000)
        defer { room.deallocate() }
        let found = two.withinOwn(0.5, 0.25, 0.01, into: room, limit: 70_000)
        #expect(two.withinOwn(0.5, 0.25, 0.01, into: room, limit: 3) == 3)
        let expected = (0..<70_000).filter { i in
            let dx = xy[2 * i] - 0.5, dy = xy[2 * i + 1] - 0.25
            return dx * dx + dy * dy <= 0.0001
        }
        #expect(Set((0..<found).map { Int(room[$0]) }) == Set(expected))
        #expect(found == expected.count)
    }

    /// MapLibre Native keeps a source's clusterRadius as an integer, so supercluster-cpp gets
    /// 16 × its whole pixels: 50.7 px clusters as 50 (radius 800), and 0.5 px as 0, which
    /// clusters exact duplicates only. supercluster JS (geojson-vt compatibility) scales the
    /// fraction.
    @Test func aDataSourceClustersWithWholePixelsAsMapLibreNativeDoes() throws {
        var options = DataSourceOptions()
        options.cluster = true
        options.clusterRadius = 50.7
        #expect(options.superclusterOptions.radius == 800)
        options.clusterRadius = 0.5
        #expect(options.superclusterOptions.radius == 0)
        var o = options.superclusterOptions
        o.maxZoom = 16
        let sc = try Supercluster(
            features: [point(10, 10), point(10, 10), point(10.000001, 10)], options: o, clusterProperties: nil)
        #expect(try sc.tile(z: 0, x: 0, y: 0).map { sc.pointCount($0.item) }.sorted() == [1, 2])
        options.tileCompatibility = .geojsonVT
        #expect(options.superclusterOptions.radius == 8)
    }

    /// The tree's sort (C, with vector partition scans) leaves every tree exactly as kdbush.hpp's
    /// scalar loops do: compared with a plain transcription of its `sortKD` and `select` (below)
    /// on inputs with many equal keys, presorted and reversed runs, NaN, sizes past 600 (its
    /// Floyd–Rivest bounds) and where the scans fall back to scalar tails, and two threads.
    @Test func treeEqualsScalarKDBushCpp() {
        var rng = SeededGenerator(seed: 12)
        let shapes: [(String, (Int, inout SeededGenerator) -> (Double, Double))] = [
            ("random", { _, g in (Double.random(in: 0...1, using: &g), Double.random(in: 0...1, using: &g)) }),
            (
                "few distinct values",
                { _, g in (Double(Int.random(in: 0..<5, using: &g)) / 4, Double(Int.random(in: 0..<3, using: &g)) / 2) }
            ),
            ("ascending", { k, _ in (Double(k), Double(k % 97)) }),
            ("descending", { k, _ in (Double(-k), Double(-(k % 89))) }),
            ("all equal", { _, _ in (0.25, 0.75) }),
            ("some NaN", { k, g in (k % 13 == 0 ? .nan : Double.random(in: 0...1, using: &g), Double(k % 7)) }),
            (
                "signed zeros and infinities",
                { k, _ in ([-0.0, 0.0, .infinity, -.infinity, .nan, 1][k % 6], Double(k % 5)) }
            ),
        ]
        for count in [66, 67, 130, 613, 1201, 20_000, 70_000] {
            for (shape, point) in shapes {
                var xy = ContiguousArray<Double>()
                for k in 0..<count { let (x, y) = point(k, &rng); xy.append(x); xy.append(y) }
                let tree = KDBushCpp(xy: xy), expected = ScalarKDBushCpp(xy: xy)
                let sameCoords = zip(tree.coords, expected.coords).allSatisfy {
                    $0.bitPattern == $1.bitPattern
                }
                #expect(tree.ids == expected.ids && sameCoords, "\(shape), count \(count)")
            }
        }
    }
}

/// kdbush.hpp's `sortKD` and `select` (node size 64), transcribed plainly (scalar scans, array
/// indexing, its Floyd–Rivest bounds truncated to its unsigned index type): the oracle for
/// `KDBushCpp`'s tree.
private struct ScalarKDBushCpp {
    var ids: ContiguousArray<Int32>
    var coords: ContiguousArray<Double>

    init(xy: ContiguousArray<Double>) {
        coords = xy
        ids = ContiguousArray((0..<Int32(xy.count / 2)).map { $0 })
        sort(left: 0, right: ids.count - 1, axis: 0)
    }

    mutating func sort(left: Int, right: Int, axis: Int) {
        guard right - left > 64 else { return }
        let m = (left + right) >> 1
        select(k: m, left: left, right: right, axis: axis)
        sort(left: left, right: m - 1, axis: 1 - axis)
        sort(left: m + 1, right: right, axis: 1 - axis)
    }

    mutating func select(k: Int, left: Int, right: Int, axis: Int) {
        var left = left, right = right
        while right > left {
            if right - left > 600 {
                let n = Double(right - left + 1), m = Double(k - left + 1), z = log(n)
                let s = 0.5 * exp(2 * z / 3)
                let r = Double(k) - m * s / n + 0.5 * (z * s * (1 - s / n)).squareRoot() * (2 * m < n ? -1 : 1)
                select(k: k, left: max(left, Int(max(0, r))), right: min(right, Int(max(0, r + s))), axis: axis)
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

    mutating func swapItems(_ a: Int, _ b: Int) {
        ids.swapAt(a, b)
        coords.swapAt(2 * a, 2 * b)
        coords.swapAt(2 * a + 1, 2 * b + 1)
    }
}
