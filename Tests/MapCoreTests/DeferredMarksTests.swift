import Glibc
import Testing

@testable import MapCore

/// Douglas-Peucker marks made when a tile first needs them (`DeferredMarks`) write the tiles that
/// marks made while building write (geojson-vt's way, `TileIndex(deferMarks: false)`).
struct DeferredMarksFacts {
    /// Seeded random data of every geometry type that holds lines: wiggly lines and rings (with a
    /// hole), multi-geometries, a collection, a line across the antimeridian, and points between
    /// (`PackedFeaturesFacts` cuts it too).
    static func data(seed: UInt64) throws -> GeoJSON {
        var rng = SeededGenerator(seed: seed)
        func unit() -> Double { Double(rng.next() % 1_000_000) / 1_000_000 }
        func walk(_ n: Int, from x: Double, _ y: Double, step: Double) -> [[Double]] {
            var (x, y) = (x, y)
            return (0..<n).map { _ in
                x += (unit() - 0.5) * step
                y = min(80, max(-80, y + (unit() - 0.5) * step))
                return [x, y]
            }
        }
        func ring(_ n: Int, _ cx: Double, _ cy: Double, _ r: Double) -> [[Double]] {
            var points = (0..<n).map { k -> [Double] in
                let a = 2 * Double.pi * Double(k) / Double(n), s = r * (0.6 + 0.4 * unit())
                return [cx + s * cos(a), cy + s * sin(a)]
            }
            points.append(points[0])
            return points
        }
        func text(_ value: Any) -> String {
            if let list = value as? [Any] { return "[" + list.map(text).joined(separator: ",") + "]" }
            if let d = value as? Double { return "\(d)" }
            return "\(value)"
        }
        var features: [String] = []
        func add(_ type: String, _ coordinates: Any) {
            features.append(
                #"{"type":"Feature","properties":{"n":\#(features.count)},"geometry":"#
                    + #"{"type":"\#(type)","coordinates":\#(text(coordinates))}}"#)
        }
        for i in 0..<24 {
            let cx = unit() * 300 - 150, cy = unit() * 120 - 60
            switch i % 6 {
            case 0: add("LineString", walk(400, from: cx, cy, step: 2))
            case 1: add("MultiLineString", [walk(150, from: cx, cy, step: 3), walk(150, from: cy, cx / 3, step: 1)])
            case 2: add("Polygon", [ring(300, cx, cy, 12), ring(60, cx, cy, 3)])
            case 3: add("MultiPolygon", [[ring(120, cx, cy, 8)], [ring(90, cx + 20, cy, 5)]])
            case 4:
                features.append(
                    #"{"type":"Feature","properties":{"n":\#(features.count)},"geometry":{"type":"#
                        + #""GeometryCollection","geometries":[{"type":"LineString","coordinates":"#
                        + #"\#(text(walk(200, from: cx, cy, step: 2)))},{"type":"Point","coordinates":"#
                        + #"[\#(cx),\#(cy)]},{"type":"Polygon","coordinates":\#(text([ring(80, cy, cx / 3, 6)]))}]}}"#)
            default: add("MultiPoint", walk(30, from: cx, cy, step: 4))
            }
        }
        add("LineString", walk(300, from: 175, 10, step: 1.5))  // across the antimeridian, back and forth
        // Every other vertex on a z6 tile's west edge (longitude is linear in x): clips keep such a
        // vertex itself, so slices of one or two inner vertices and no crossing come out.
        let snapped = walk(400, from: 10, -20, step: 6).enumerated().map { k, p in
            k % 2 == 0 ? [(p[0] / 5.625).rounded() * 5.625, p[1]] : p
        }
        add("LineString", snapped)
        add("Polygon", [snapped[0..<120] + [snapped[0]]])
        let json = #"{"type":"FeatureCollection","features":["# + features.joined(separator: ",") + "]}"
        return try GeoJSONParser.parse(json)
    }

    /// Every tile to z6 that marks made at once give, asked for in a shuffled order (so a feature's
    /// marks are made from deep tiles as often as from the top), in both compatibilities, with
    /// tolerances high enough that marks decide what a tile keeps, buffers small enough that clips
    /// leave slices of a few inner vertices, and tiles split at load past maxZoom: the same tiles.
    /// Then every input with lines is marked and the converted features are let go.
    @Test func deferredMarksWriteTheTilesOfMarksMadeAtOnce() throws {
        var rng = SeededGenerator(seed: 53)
        var compared = 0
        for seed in [UInt64(1), 2] {
            let data = try Self.data(seed: seed)
            for compatibility in [TilingOptions.Compatibility.geojsonVT, .maplibreNative] {
                // The last splits at load past maxZoom (indexMaxZoom deeper): those tiles' tolerances
                // are below the one Douglas-Peucker marks with.
                for (tolerance, buffer, lineMetrics, maxZoom, indexMaxZoom) in [
                    (3.0, 64.0, false, 6, 2), (40, 0, false, 6, 2), (10, 0, true, 6, 2), (300, 0, false, 6, 2),
                    (40, 8, false, 3, 6),
                ] {
                    var options = TilingOptions()
                    options.compatibility = compatibility
                    options.maxZoom = maxZoom
                    options.indexMaxZoom = indexMaxZoom
                    options.indexMaxPoints = 200
                    options.tolerance = tolerance
                    options.buffer = buffer
                    options.lineMetrics = lineMetrics
                    let atOnce = try TileIndex(data, options: options, parallel: false, deferMarks: false)
                    #expect(atOnce.deferredMarks == nil)
                    var tiles: [(z: Int, x: Int, y: Int)] = [], expected: [[TileFeature]] = []
                    var stack = [(z: 0, x: 0, y: 0)]
                    while let t = stack.popLast() {
                        guard let tile = atOnce.tile(z: t.z, x: t.x, y: t.y), !tile.isEmpty else { continue }
                        tiles.append(t)
                        expected.append(tile)
                        guard t.z < max(options.maxZoom, options.indexMaxZoom) else { continue }
                        let (z, x, y) = (t.z + 1, 2 * t.x, 2 * t.y)
                        stack += [(z, x, y), (z, x, y + 1), (z, x + 1, y), (z, x + 1, y + 1)]
                    }
                    #expect(tiles.count > 100)
                    #expect(indexMaxZoom < maxZoom || tiles.contains { $0.z > maxZoom })
                    let deferred = try TileIndex(data, options: options, parallel: true)
                    let marks = try #require(deferred.deferredMarks)
                    #expect(marks.unmarked.inputs == 23)  // all but the MultiPoints
                    var order = Array(tiles.indices)
                    order.shuffle(using: &rng)
                    for i in order {
                        let (z, x, y) = tiles[i]
                        let same = deferred.tile(z: z, x: x, y: y) == expected[i]  // not the tiles in a failure
                        #expect(same, "\(compatibility) \(tolerance) \(buffer) \(lineMetrics): \(z)/\(x)/\(y)")
                        compared += 1
                    }
                    #expect(marks.unmarked.inputs == 0 && !marks.unmarked.holdsFeatures)
                }
            }
        }
        #expect(compared > 1000)
    }

    /// A placeholder names a made mark by its position, and a made mark is the first zoom that
    /// keeps the vertex; one naming none keeps it, and no value traps.
    @Test func placeholdersAndMadeMarks() {
        let made: [UInt8] = [0, 255, 3, 7]
        made.withUnsafeBufferPointer { made in
            func kept(_ mark: Double, zoom: UInt8) -> Bool { DeferredMarks.kept(mark, made, 0.01, zoom) }
            #expect(kept(DeferredMarks.placeholder(2), zoom: 3) && !kept(DeferredMarks.placeholder(2), zoom: 2))
            #expect(kept(DeferredMarks.placeholder(0), zoom: 0))
            #expect(!kept(DeferredMarks.placeholder(1), zoom: 24))
            #expect(kept(DeferredMarks.placeholder(4), zoom: 0))  // names no made mark
            #expect(kept(0.5, zoom: 0) && !kept(0.01, zoom: 24) && !kept(.nan, zoom: 24))
            for mark in [-Double.infinity, -0.5, -1e300, -Double.greatestFiniteMagnitude] {
                #expect(kept(mark, zoom: 0))
            }
        }
        // Tolerances by zoom as tiles have them (never growing): the first zoom above which a
        // vertex's importance lies, or 255.
        let sqTolerances: [Double] = [0.5, 0.25, 0.25, 0.01, 0]
        sqTolerances.withUnsafeBufferPointer { zooms in
            let cases: [(Double, UInt8)] = [
                (1, 0), (0.5, 1), (0.3, 1), (0.25, 3), (0.02, 3), (0.01, 4), (1e-300, 4),
                (0, 255), (-1, 255), (.nan, 255), (.infinity, 0),
            ]
            for (importance, zoom) in cases {
                #expect(DeferredMarks.firstZoom(importance, zooms) == zoom, "\(importance)")
            }
        }
        #expect(DeferredMarks.firstZoom(1, UnsafeBufferPointer(start: nil, count: 0)) == 255)
    }
}
