// Geometry stage: bounding boxes and convex hulls, checked against brute-force references.
import Testing
@testable import MapCore

@Suite struct GeometryTests {
    @Test func boxMatchesBruteForceOnRandomInput() throws {
        var rng = SeededGenerator(seed: 42)
        for n in [1, 2, 3, 7, 8, 9, 15, 16, 17, 1000] {
            var xy = [Double]()
            for _ in 0..<n {
                xy.append(Double.random(in: -180...180, using: &rng));
                xy.append(Double.random(in: -90...90, using: &rng))
            }
            let box = try xy.withUnsafeBufferPointer { (b) throws(MapCoreError) in try BoundingBox.of(xy: b) }
            let xs = stride(from: 0, to: xy.count, by: 2).map { xy[$0] }
            let ys = stride(from: 1, to: xy.count, by: 2).map { xy[$0] }
            #expect(box == BoundingBox(west: xs.min()!, south: ys.min()!, east: xs.max()!, north: ys.max()!))
        }
    }

    @Test func nonFiniteInputIsRejected() {
        // At every index: the vector loop and the scalar tail each check their own values.
        for bad in [Double.nan, .infinity, -.infinity] {
            for index in 0..<10 {
                var xy = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0]
                xy[index] = bad
                let r = xy.withUnsafeBufferPointer { b in
                    Result { () throws(MapCoreError) in try BoundingBox.of(xy: b) }
                }
                guard case .failure(let e) = r else { Issue.record("accepted \(bad) at \(index)"); continue }
                #expect(e.code == .invalidArgument)
            }
        }
    }

    @Test func mergeGoesTheShortWayAroundTheAntimeridian() {
        let cross = BoundingBox(west: 170, south: 0, east: -170, north: 1)
        let farWest = BoundingBox(west: -100, south: 0, east: -90, north: 1)
        // From 170 east to -90 is 100 degrees; from -100 east to -170 is 290: the first wins.
        #expect(cross.merged(with: farWest) == BoundingBox(west: 170, south: 0, east: -90, north: 1))
        // Covering everything collapses to the whole world.
        let wide = BoundingBox(west: 10, south: 0, east: -20, north: 1)
        let other = BoundingBox(west: -25, south: 0, east: 15, north: 1)
        #expect(wide.merged(with: other) == BoundingBox(west: -180, south: 0, east: 180, north: 1))
    }

    /// Reference hull vertices by gift wrapping (O(n·h), independent of the monotone chain),
    /// taking the farthest point on ties so collinear edge points are not vertices.
    func giftWrap(_ pts: [SIMD2<Double>]) -> Set<SIMD2<Double>> {
        let unique = Array(Set(pts))
        guard unique.count > 2, let start = unique.min(by: { ($0.x, $0.y) < ($1.x, $1.y) }) else { return Set(unique) }
        var hull: [SIMD2<Double>] = []
        var current = start
        repeat {
            hull.append(current)
            var candidate = unique[0] == current ? unique[1] : unique[0]
            for q in unique where q != current {
                let o = exactOrientation(current.x, current.y, candidate.x, candidate.y, q.x, q.y)
                let farther = simd_length2(q - current) > simd_length2(candidate - current)
                if o < 0 || (o == 0 && farther) { candidate = q }
            }
            current = candidate
        } while current != start && hull.count <= unique.count
        return Set(hull)
    }

    func simd_length2(_ v: SIMD2<Double>) -> Double { v.x * v.x + v.y * v.y }

    @Test func hullMatchesGiftWrappingOnRandomInput() throws {
        var rng = SeededGenerator(seed: 2024)
        for trial in 0..<300 {
            let n = 1 + Int(rng.next() % 60)
            var pts: [SIMD2<Double>] = []
            for _ in 0..<n {
                // A coarse grid makes duplicates and collinear runs common.
                let grid = trial % 2 == 0
                let x = grid ? Double(rng.next() % 8) : Double.random(in: -10...10, using: &rng)
                let y = grid ? Double(rng.next() % 8) : Double.random(in: -10...10, using: &rng)
                pts.append(SIMD2(x, y))
            }
            let xy = pts.flatMap { [$0.x, $0.y] }
            let hull = try xy.withUnsafeBufferPointer { (b) throws(MapCoreError) in try ConvexHull.vertices(xy: b) }
            var vertices: [SIMD2<Double>] = []
            for i in stride(from: 0, to: hull.count, by: 2) { vertices.append(SIMD2(hull[i], hull[i + 1])) }
            let expected = giftWrap(pts)
            if expected.count >= 3 {
                #expect(vertices.first == vertices.last)
                vertices.removeLast()
                #expect(Set(vertices) == expected && vertices.count == expected.count, "trial \(trial)")
                // Counter-clockwise: positive signed area.
                var area = 0.0
                for i in vertices.indices {
                    let a = vertices[i], b = vertices[(i + 1) % vertices.count]
                    area += a.x * b.y - b.x * a.y
                }
                #expect(area > 0)
            } else if expected.count == 2 {
                // Collinear input: the two extremes.
                let sorted = Array(Set(pts)).sorted { ($0.x, $0.y) < ($1.x, $1.y) }
                #expect(vertices == [sorted.first!, sorted.last!], "trial \(trial)")
            } else {
                #expect(vertices.count == 1)
            }
        }
    }

    @Test func nearlyCollinearPointsAreDecidedExactly() throws {
        // Points on a line with slope 1 at magnitudes where naive orientation rounds wrongly.
        let base = 0.5 + 1e-15
        let xy: [Double] = [0.5, 0.5, 12, 12, 24, 24, base, 0.5, 0.5 + 2e-15, 0.5 + 2e-15]
        let hull = try xy.withUnsafeBufferPointer { (b) throws(MapCoreError) in try ConvexHull.vertices(xy: b) }
        // Every vertex reported must be a strict turn: check with the exact predicate.
        let count = hull.count / 2 - 1
        for i in 0..<count {
            let a = i, b = (i + 1) % count, c = (i + 2) % count
            #expect(
                exactOrientation(
                    hull[2 * a], hull[2 * a + 1], hull[2 * b], hull[2 * b + 1], hull[2 * c], hull[2 * c + 1]) > 0)
        }
    }

    @Test func exactOrientationAgreesWithRationalArithmetic() {
        // Integer coordinates below 2^25: products and sums are exact in Int64.
        var rng = SeededGenerator(seed: 99)
        for _ in 0..<5000 {
            let v = (0..<6).map { _ in Int64(rng.next() % (1 << 25)) - (1 << 24) }
            let det = (v[2] - v[0]) * (v[5] - v[1]) - (v[3] - v[1]) * (v[4] - v[0])
            let d = v.map(Double.init)
            #expect(exactOrientation(d[0], d[1], d[2], d[3], d[4], d[5]) == det.signum())
            #expect(orientation(d[0], d[1], d[2], d[3], d[4], d[5]) == det.signum())
        }
    }

    @Test func positionsFollowDocumentOrder() throws {
        let v = try GeoJSONParser.parse(
            #"{"type":"GeometryCollection","geometries":[{"type":"Point","coordinates":[1,2]},"#
                + #"{"type":"GeometryCollection","geometries":[{"type":"LineString","coordinates":[[3,4],[5,6]]}]},"#
                + #"{"type":"Point","coordinates":[7,8]}]}"#
        )
        #expect(Array(Positions.of(v)) == [1, 2, 3, 4, 5, 6, 7, 8])
        #expect(BoundingBox.of(v) == BoundingBox(west: 1, south: 2, east: 7, north: 8))
    }
}
