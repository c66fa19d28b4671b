// The facts mapbox/geojson-vt 4.0.2's own test suite asserts (Tests/fixtures/geojson-vt/README.md):
// full tilings compared whole (every tile, features in order, exact coordinates), getTile
// drill-down and its nulls, ids, line metrics, the antimeridian, and the inline cases.
import CMapCoreKernels
import Glibc
import Testing
@testable import MapCore

private let fixtures =
    "/" + #filePath.split(separator: "/").dropLast(3).joined(separator: "/")
    + "/Tests/fixtures/geojson-vt/"

private func fixtureJSON(_ name: String) throws -> JSONValue {
    let bytes = try FileIO.read(path: fixtures + name)
    return try bytes.withUnsafeBufferPointer { b throws(MapCoreError) in try JSON.parse(b) }
}

private func fixtureGeoJSON(_ name: String) throws -> GeoJSON {
    let bytes = try FileIO.read(path: fixtures + name)
    return try bytes.withUnsafeBufferPointer { b throws(MapCoreError) in try GeoJSONParser.parse(b) }
}

private func options(_ json: String) throws -> TilingOptions {
    try TilingOptions(json: try JSON.parse(json))
}

/// A tile's features as geojson-vt's JSON (parsed back, so numbers compare by value).
private func tileValue(_ features: [TileFeature]?) throws -> JSONValue {
    let bytes = TileFeature.tileJSON(features)
    let value = try bytes.withUnsafeBufferPointer { b throws(MapCoreError) in try JSON.parse(b) }
    return value.objectValue?["features"] ?? .null
}

/// The index's JSON written from a tile's flat arrays (what the C API and the CLI print) is
/// the JSON of its `TileFeature`s, compact and pretty.
private func expectFlatJSON(_ index: TileIndex, _ z: Int, _ x: Int, _ y: Int) {
    for pretty in [false, true] {
        #expect(
            index.tileJSON(z: z, x: x, y: y, pretty: pretty)
                == TileFeature.tileJSON(index.tile(z: z, x: x, y: y), pretty: pretty), "\(z)/\(x)/\(y)")
    }
}

/// test-full.js: every tile made at indexing, keyed z{z}-{x}-{y}, with getTile's features.
private func fullTiling(_ input: String, _ extra: String) throws -> JSONValue {
    let base = #"{"indexMaxZoom": 0, "indexMaxPoints": 10000"#
    let index = try TileIndex(try fixtureGeoJSON(input), options: try options(base + extra + "}"))
    var out = JSONObject()
    for (z, x, y) in index.madeTiles {
        out["z\(z)-\(x)-\(y)"] = try tileValue(index.tile(z: z, x: x, y: y))
        expectFlatJSON(index, z, x, y)
    }
    return .object(out)
}

struct TilingFacts {
    @Test(arguments: [
        ("us-states.json", #", "indexMaxZoom": 7, "indexMaxPoints": 200"#, "us-states-tiles.json"),
        ("dateline.json", "", "dateline-tiles.json"),
        ("dateline.json", #", "lineMetrics": true"#, "dateline-metrics-tiles.json"),
        ("feature.json", "", "feature-tiles.json"),
        ("collection.json", "", "collection-tiles.json"),
        ("single-geom.json", "", "single-geom-tiles.json"),
        ("ids.json", #", "promoteId": "prop0""#, "ids-promote-id-tiles.json"),
        ("ids.json", #", "generateId": true"#, "ids-generate-id-tiles.json"),
    ])
    func fullTilingEqualsGeojsonVT(input: String, options: String, expected: String) throws {
        let actual = try fullTiling(input, options)
        let reference = try fixtureJSON(expected)
        let actualTiles = actual.objectValue ?? JSONObject(), referenceTiles = reference.objectValue ?? JSONObject()
        #expect(Set(actualTiles.keys) == Set(referenceTiles.keys), "\(input)\(options): tile keys differ")
        for key in referenceTiles.keys {
            #expect(actualTiles[key] == referenceTiles[key], "\(input)\(options): tile \(key) differs")
        }
    }

    /// A tile's MVT is written from its flat arrays, not from the `TileFeature`s `tile(z:x:y:)`
    /// gives: the two must be the same bytes, for every tile of each fixture, both
    /// compatibilities (MVT versions), with line metrics (the clip tags are added per feature).
    @Test(arguments: [
        ("us-states.json", #"{"maxZoom": 6}"#),
        ("us-states.json", #"{"maxZoom": 6, "compatibility": "maplibre-native"}"#),
        ("dateline.json", #"{"maxZoom": 4, "lineMetrics": true}"#),
        ("ids.json", #"{"maxZoom": 3, "promoteId": "prop0"}"#),
        ("collection.json", #"{"maxZoom": 4, "generateId": true}"#),
    ])
    func mvtFromTheTileArraysEqualsMVTOfTheTileFeatures(input: String, json: String) throws {
        let tiling = try options(json)
        let index = try TileIndex(try fixtureGeoJSON(input), options: tiling)
        var compared = 0
        for z in 0...tiling.maxZoom {
            for x in 0..<(1 << z) {
                for y in 0..<(1 << z) {
                    let features = index.tile(z: z, x: x, y: y) ?? []
                    let expected =
                        features.isEmpty
                        ? []
                        : VectorTileEncoder.encode(
                            layer: "l", extent: Int(tiling.extent), features: features,
                            version: tiling.compatibility.mvtVersion)
                    let mvt = try index.mvt(z: z, x: x, y: y, layer: "l")
                    #expect(mvt == expected, "\(input) \(json): tile \(z)/\(x)/\(y) differs")
                    if !mvt.isEmpty { compared += 1 }
                }
            }
        }
        #expect(compared >= 5, "\(input): only \(compared) tiles with features")
    }

    @Test func usStatesTileCountsByZoom() throws {
        let tiles = try fullTiling("us-states.json", #", "indexMaxZoom": 7, "indexMaxPoints": 200"#)
        let keys = tiles.objectValue?.keys ?? []
        #expect(keys.count == 105)
        let perZoom = (0...7).map { z in keys.filter { $0.hasPrefix("z\(z)-") }.count }
        #expect(perZoom == [1, 4, 4, 8, 20, 32, 32, 4])
        let features = (tiles.objectValue?.members ?? []).map { $0.value.arrayValue?.count ?? 0 }
        #expect(features.reduce(0, +) == 601)
        #expect(features.filter { $0 == 0 }.count == 19)
    }

    @Test func datelineMetricsOfTheFirstTwoLines() throws {
        let tile = try fullTiling("dateline.json", #", "lineMetrics": true"#).objectValue?["z0-0-0"]?.arrayValue ?? []
        #expect(tile.count == 20)
        let lines = tile.compactMap { $0.objectValue }.filter { $0["type"] == .int(2) }
        #expect(lines.count == 12)
        let tags = lines.prefix(2).map { $0["tags"]?.objectValue }
        #expect(tags[0]?["mapbox_clip_start"] == .int(0))
        #expect(tags[0]?["mapbox_clip_end"] == .double(0.24216869845698458))
        #expect(tags[1]?["mapbox_clip_start"] == .double(0.5368896071622057))
        #expect(tags[1]?["mapbox_clip_end"] == .double(0.802430932087145))
    }

    @Test func emptyInputsMakeNoTiles() throws {
        for name in ["empty.json", "feature-null-geometry.json", "empty-coords.json"] {
            let index = try TileIndex(try fixtureGeoJSON(name), options: try options(#"{"indexMaxZoom": 0}"#))
            #expect(index.madeTiles.isEmpty, "\(name)")
            #expect(index.tile(z: 0, x: 0, y: 0) == nil, "\(name)")
        }
    }

    /// test-get-tile.js, in its order: drill-down, the clipped square, nulls, total 37.
    @Test func getTileDrillsDownAndCounts() throws {
        let index = try TileIndex(try fixtureGeoJSON("us-states.json"))
        #expect(try tileValue(index.tile(z: 7, x: 37, y: 48)) == (try fixtureJSON("us-states-z7-37-48.json")))
        let square = try tileValue(index.tile(z: 9, x: 148, y: 192))
        let expected = try JSON.parse(
            #"""
            [{"geometry": [[[-64, 4160], [-64, -64], [4160, -64], [4160, 4160], [-64, 4160]]], "type": 3,
              "tags": {"name": "Pennsylvania", "density": 284.3}, "id": "42"}]
            """#)
        #expect(square == expected)
        // The text itself, as geojson-vt's tile object is printed by JSON.stringify.
        #expect(
            String(decoding: index.tileJSON(z: 9, x: 148, y: 192), as: UTF8.self)
                == #"{"features":[{"geometry":[[[-64,4160],[-64,-64],[4160,-64],[4160,4160],[-64,4160]]],"type":3,"#
                + #""tags":{"name":"Pennsylvania","density":284.3},"id":"42"}]}"#)
        #expect(index.tile(z: 11, x: 800, y: 400) == nil)
        #expect(index.tile(z: -5, x: 123, y: 400) == nil)
        #expect(index.tile(z: 25, x: 200, y: 200) == nil)
        for (z, x, y) in [(11, 800, 400), (-5, 123, 400), (25, 200, 200)] {
            #expect(index.tileJSON(z: z, x: x, y: y) == Array("null".utf8))
        }
        #expect(index.madeTiles.count == 37)
    }

    @Test func indexHoldsOnlyTheRootUntilAsked() throws {
        let index = try TileIndex(try fixtureGeoJSON("us-states.json"))
        #expect(index.madeTiles.count == 1)
        _ = index.tile(z: 7, x: 37, y: 48)
        #expect(index.madeTiles.count == 29)
    }

    @Test func unbufferedTileEdges() throws {
        let meridian = try GeoJSONParser.parse(#"{"type": "LineString", "coordinates": [[0, 90], [0, -90]]}"#)
        let index = try TileIndex(meridian, options: try options(#"{"buffer": 0}"#))
        #expect(index.tile(z: 2, x: 1, y: 1) == nil)
        #expect(
            try tileValue(index.tile(z: 2, x: 2, y: 1))
                == (try JSON.parse(#"[{"geometry": [[[0, 0], [0, 4096]]], "type": 2, "tags": null}]"#)))
        let parallel = try GeoJSONParser.parse(
            #"{"type": "LineString", "coordinates": [[-90, 66.51326044311188], [90, 66.51326044311188]]}"#)
        let index2 = try TileIndex(parallel, options: try options(#"{"buffer": 0}"#))
        #expect(
            try tileValue(index2.tile(z: 2, x: 1, y: 0))
                == (try JSON.parse(#"[{"geometry": [[[0, 4096], [4096, 4096]]], "type": 2, "tags": null}]"#)))
        #expect(try tileValue(index2.tile(z: 2, x: 1, y: 1)) == .array([]))
    }

    @Test func polygonClippedOnTheBoundary() throws {
        let square = try GeoJSONParser.parse(
            #"""
            {"type": "Polygon", "coordinates": [[[42.1875, 57.32652122521708], [47.8125, 57.32652122521708],
             [47.8125, 54.16243396806781], [42.1875, 54.16243396806781], [42.1875, 57.32652122521708]]]}
            """#)
        let index = try TileIndex(square, options: try options(#"{"buffer": 1024}"#))
        let expected = try JSON.parse(
            #"""
            [{"geometry": [[[3072, 3072], [5120, 3072], [5120, 5120], [3072, 5120], [3072, 3072]]], "type": 3,
              "tags": null}]
            """#)
        #expect(try tileValue(index.tile(z: 5, x: 19, y: 9)) == expected)
    }

    /// Written tiles keep their coordinates as Int16 up to 32,767, else Int32, else Doubles: each
    /// width gives geojson-vt's coordinates, round(extent · (x · 2^z − tx)), and the MVT the same.
    @Test(arguments: [
        (4096.0, 2048.0, 1024.0), (65534.0, 32767.0, 16383.5), (65536.0, 32768.0, 16384.0),
        (1e10, 5e9, 2.5e9), (3e10, 1.5e10, 7.5e9),
    ])
    func writtenCoordinatesOfEveryWidth(extent: Double, centre: Double, quarter: Double) throws {
        // Two points on the equator: lng 0 (x = 0.5) and lng -90 (x = 0.25); y = 0.5.
        let points = try GeoJSONParser.parse(#"{"type": "MultiPoint", "coordinates": [[0, 0], [-90, 0]]}"#)
        let index = try TileIndex(points, options: try options(#"{"extent": \#(extent), "buffer": 0}"#))
        let q = quarter.rounded(.toNearestOrAwayFromZero)
        let expected = try JSON.parse(
            #"[{"geometry": [[\#(centre), \#(centre)], [\#(q), \#(centre)]], "type": 1, "tags": null}]"#)
        #expect(try tileValue(index.tile(z: 0, x: 0, y: 0)) == expected)
        expectFlatJSON(index, 0, 0, 0)
        // An MVT's coordinates are sint32 steps and its extent a uint32: an extent in the billions
        // has JSON tiles only (MVT readers, MapCore's too, refuse such layers).
        guard extent <= 65536 else {
            #expect(throws: MapCoreError.self) { try index.mvt(z: 0, x: 0, y: 0, layer: "l") }
            return
        }
        let bytes = try index.mvt(z: 0, x: 0, y: 0, layer: "l")
        let tile = try bytes.withUnsafeBytes { b throws(MapCoreError) in try VectorTile(decodingMaybeCompressed: b) }
        let decoded = try tile.layers.first?.features.first?.rings().flatMap { $0 }.map { [$0.x, $0.y] }
        #expect(decoded == [[Int64(centre), Int64(centre)], [Int64(q), Int64(centre)]])
    }

    /// The range a written tile's coordinates are stored by (Int16, Int32 or Double): the least
    /// and greatest value, NaN wherever one is, four at a time and then the rest.
    @Test func tileCoordinateRangeIsTheFoldOfItsValues() {
        var rng = SeededGenerator(seed: 5)
        for n in 0..<40 {
            for trial in 0..<30 {
                var values = (0..<n).map { _ in Double(Int64(bitPattern: rng.next()) % 80_000) }
                if n > 0 && trial % 3 != 0 {
                    let special: [Double] = [.nan, .infinity, -.infinity, 32767, -32768, 32768, 2_147_483_648]
                    values[Int(rng.next() % UInt64(n))] = special[Int(rng.next() % UInt64(special.count))]
                }
                let (low, high) = values.withUnsafeBufferPointer(TileCoordinates.range)
                if values.contains(where: \.isNaN) {
                    #expect(low.isNaN && high.isNaN, "\(values)")
                } else {
                    #expect(low == values.min() ?? .infinity && high == values.max() ?? -.infinity, "\(values)")
                }
            }
        }
    }

    @Test func pointsBeyondTheAntimeridianFoldBack() throws {
        for (lng, x) in [(540.0, 1.0), (-540.0, 0.0)] {
            let point = try GeoJSONParser.parse(#"{"type": "Point", "coordinates": [\#(lng), 0]}"#)
            let features = Wrap.wrap(
                Convert.features(of: point, options: TilingOptions()), options: TilingOptions(), parallel: false)
            guard case .point(let px, let py)? = features.first?.geometry else { Issue.record("no point"); continue }
            #expect(px == x && py == 0.5)
        }
    }

    /// test-clip.js: the stripe clipper on geojson-vt's flat arrays (x ∈ [10, 40]).
    @Test func clipLinesAndRings() {
        let coords1: [Double] = [
            0, 0, 0, 50, 0, 0, 50, 10, 0, 20, 10, 0, 20, 20, 0, 30, 20, 0, 30, 30, 0,
            50, 30, 0, 50, 40, 0, 25, 40, 0, 25, 50, 0, 0, 50, 0, 0, 60, 0, 25, 60, 0,
        ]
        let coords2: [Double] = [0, 0, 0, 50, 0, 0, 50, 10, 0, 0, 10, 0]
        func xy(_ l: ProjectedLine) -> [Double] {
            stride(from: 0, to: l.coords.count, by: 3).flatMap { [l.coords[$0], l.coords[$0 + 1]] }
        }
        var parts: [ProjectedLine] = []
        Clip.clipLine(ProjectedLine(coords: coords1), into: &parts, 10, 40, 0, polygon: false, trackMetrics: false)
        #expect(
            parts.map(xy) == [
                [10, 0, 40, 0], [40, 10, 20, 10, 20, 20, 30, 20, 30, 30, 40, 30],
                [40, 40, 25, 40, 25, 50, 10, 50], [10, 60, 25, 60],
            ])
        parts = []
        Clip.clipLine(ProjectedLine(coords: coords2), into: &parts, 10, 40, 0, polygon: false, trackMetrics: false)
        #expect(parts.map(xy) == [[10, 0, 40, 0], [40, 10, 10, 10]])
        // Line metrics: the length along the original line where each part starts and ends.
        var length = 0.0
        for i in stride(from: 3, to: coords1.count, by: 3) {
            let dx = coords1[i] - coords1[i - 3], dy = coords1[i + 1] - coords1[i - 2]
            length += (dx * dx + dy * dy).squareRoot()
        }
        parts = []
        Clip.clipLine(
            ProjectedLine(coords: coords1, size: length, start: 0, end: length), into: &parts, 10, 40, 0,
            polygon: false, trackMetrics: true)
        #expect(parts.map { [$0.start, $0.end] } == [[10, 40], [70, 130], [160, 200], [230, 245]])
        // As rings, each input stays one closed ring.
        for coords in [coords1, coords2] {
            var rings: [ProjectedLine] = []
            Clip.clipLine(ProjectedLine(coords: coords), into: &rings, 10, 40, 0, polygon: true, trackMetrics: false)
            #expect(rings.count == 1)
            let r = xy(rings[0])
            #expect(r.count >= 4 && r[0] == r[r.count - 2] && r[1] == r[r.count - 1])
        }
    }

    @Test func clipPoints() {
        let coords1: [Double] = [
            0, 0, 0, 50, 0, 0, 50, 10, 0, 20, 10, 0, 20, 20, 0, 30, 20, 0, 30, 30, 0,
            50, 30, 0, 50, 40, 0, 25, 40, 0, 25, 50, 0, 0, 50, 0, 0, 60, 0, 25, 60, 0,
        ]
        let coords2: [Double] = [0, 0, 0, 50, 0, 0, 50, 10, 0, 0, 10, 0]
        func clipped(_ c: [Double]) -> Int {
            let f = ProjectedFeature(ref: 0, kind: .multiPoint, geometry: .points(c), cpp: false)
            let out = Clip.clip(
                [f], scale: 1, 10, 40, axis: 0, minAll: -1000, maxAll: 1000, rules: Clip.Rules(lineMetrics: false))
            guard case .points(let kept)? = out?.first?.geometry else { return 0 }
            return kept.count / 3
        }
        #expect(clipped(coords1) == 7)
        #expect(clipped(coords2) == 0)
    }

    /// A projected feature counts its positions when made (a tile's numPoints sums them, which
    /// decides where the index stops splitting), clipped or not, and stays 64 bytes.
    @Test func projectedFeaturesCountTheirPositions() {
        let ring = ProjectedLine(coords: [0, 0, 1, 40, 0, 0, 50, 0, 0, 50, 50, 0, 40, 50, 0, 0, 50, 0, 0, 0, 1])
        let line = ProjectedLine(coords: [0, 0, 1, 20, 5, 0, 40, 0, 0, 45, 5, 1])
        let features = [
            ProjectedFeature(ref: 0, kind: .point, geometry: .point(0.5, 0.5), cpp: false),
            ProjectedFeature(ref: 1, kind: .multiPoint, geometry: .points([0, 0, 0, 1, 1, 0, 35, 1, 0]), cpp: false),
            ProjectedFeature(ref: 2, kind: .lineString, geometry: .line(line), cpp: false),
            ProjectedFeature(ref: 3, kind: .multiLineString, geometry: .lines([line, line]), cpp: false),
            ProjectedFeature(ref: 4, kind: .polygon, geometry: .lines([ring, ring]), cpp: false),
            ProjectedFeature(ref: 5, kind: .multiPolygon, geometry: .polygons([[ring], [ring, ring]]), cpp: false),
        ]
        #expect(features.map(\.positionCount) == [1, 3, 4, 8, 14, 21])
        // Clipped at x = 30: the points at 0 and 1; the line 0, 20 and its crossing; each ring
        // 0, its two crossings, 0 and its closing vertex.
        let clipped =
            Clip.clip(
                features, scale: 1, -10, 30, axis: 0, minAll: 0, maxAll: 50, rules: Clip.Rules(lineMetrics: false))
            ?? []
        #expect(clipped.map(\.positionCount) == [1, 2, 3, 6, 10, 15])
        #expect(MemoryLayout<ProjectedFeature>.stride == 64)
    }

    /// test-simplify.js: after marking with squared tolerance 0.001², the vertices whose
    /// importance exceeds 0.005² are exactly the 34 upstream lists.
    @Test func simplifyMarksDouglasPeuckerImportance() throws {
        let fixture = try fixtureJSON("simplify-line.json").objectValue
        let points = pairs(fixture?["points"]), expected = pairs(fixture?["simplified"])
        #expect(points.count == 100 && expected.count == 34)
        var c: [Double] = []
        for p in points { c += [p[0], p[1], 0] }
        c[2] = 1
        c[c.count - 1] = 1
        Simplify.mark(&c, first: 0, last: c.count - 3, sqTolerance: 0.001 * 0.001)
        let kept = stride(from: 0, to: c.count, by: 3).filter { c[$0 + 2] > 0.005 * 0.005 }.map { [c[$0], c[$0 + 1]] }
        #expect(kept == expected)
    }

    /// geojson-vt 4.0.2's `simplify` and `getSqSegDist`, transcribed as they are (recursive, a
    /// scalar loop, the tie-break inline): what `Simplify.mark` and its vector scans must equal.
    /// `cpp`: geojson-vt-cpp 6.6.5's tie-break instead (`mid` and the distance to it in vertexes
    /// from the range's length), which MapLibre Native mode uses.
    private func geojsonVTMark(
        _ c: inout [Double], _ first: Int, _ last: Int, _ sqTolerance: Double, cpp: Bool = false
    ) {
        var maxSqDist = sqTolerance
        // Parenthesised: Swift's >> binds tighter than /.
        let mid = cpp ? ((last - first) / 3) >> 1 : first + ((last - first) >> 1)
        var minPosToMid = cpp ? (last - first) / 3 : last - first
        var index = -1
        let ax = c[first], ay = c[first + 1], bx = c[last], by = c[last + 1]
        var i = first + 3
        while i < last {
            var x = ax, y = ay
            let dx = bx - x, dy = by - y
            if dx != 0 || dy != 0 {
                let t = ((c[i] - x) * dx + (c[i + 1] - y) * dy) / (dx * dx + dy * dy)
                if t > 1 {
                    x = bx
                    y = by
                } else if t > 0 {
                    x += dx * t
                    y += dy * t
                }
            }
            let d = (c[i] - x) * (c[i] - x) + (c[i + 1] - y) * (c[i + 1] - y)
            if d > maxSqDist {
                index = i
                maxSqDist = d
            } else if d == maxSqDist {
                let posToMid = abs((cpp ? i / 3 : i) - mid)
                if posToMid < minPosToMid {
                    index = i
                    minPosToMid = posToMid
                }
            }
            i += 3
        }
        if maxSqDist > sqTolerance {
            if index - first > 3 { geojsonVTMark(&c, first, index, sqTolerance, cpp: cpp) }
            c[index + 2] = maxSqDist
            if last - index > 3 { geojsonVTMark(&c, index, last, sqTolerance, cpp: cpp) }
        }
    }

    /// A tie geojson-vt-cpp 6.6.5 breaks by `mid = (last - first) >> 1` (vertexes): the tile is
    /// geojson-vt-cpp's own, built from source, for the same line and options. (MapCore's `mid`
    /// once read `(last - first) / 3 >> 1`, which Swift parses as a division by 1, and kept the
    /// other vertex.)
    @Test func geojsonVTCppBreaksATieAtItsMiddle() throws {
        let text = #"""
            {"type": "LineString", "coordinates": [[10.1953125, 28.5625], [10.01953125, 28.5625],
             [10.01953125, 28.625], [9.84375, 28.625]]}
            """#
        let index = try TileIndex(
            try GeoJSONParser.parse(text),
            options: try options(#"{"maxZoom": 6, "buffer": 0, "compatibility": "maplibre-native"}"#))
        #expect(index.tile(z: 2, x: 2, y: 1)?.map(\.geometry) == [[[464, 2739, 456, 2739, 448, 2735]]])
    }

    /// Douglas-Peucker's marks, whose long ranges are scanned by `mc_dp_farthest` (two or four
    /// vertices a step), bit for bit those of geojson-vt's scalar recursion: on lines of every
    /// length around the vector steps, of random doubles and of points on a coarse grid (where
    /// equal distances, and so the tie-break, are common), repeated points and lines doubling
    /// back. A kernel that took the last of two equal distances, or lost the odd vertex, fails.
    @Test func simplifyVectorScansEqualGeojsonVTsRecursion() {
        var rng = SeededGenerator(seed: 23)
        var compared = 0
        for n in Array(3...80) + [127, 128, 129, 500, 1001, 2048] {
            for kind in 0..<4 {
                var c: [Double] = []
                for k in 0..<n {
                    let x: Double, y: Double
                    switch kind {
                    case 0: (x, y) = (Double(rng.next() % 1_000_000) / 1e6, Double(rng.next() % 1_000_000) / 1e6)
                    case 1: (x, y) = (Double(rng.next() % 8) / 64, Double(rng.next() % 8) / 64)
                    case 2: (x, y) = (Double(k % 7) / 16, Double((k * 3) % 5) / 16)
                    default: (x, y) = k % 5 == 0 ? (0.25, 0.25) : (Double(k) / Double(n), Double(k % 2) / 32)
                    }
                    c += [x, y, 0]
                }
                c[2] = 1
                c[c.count - 1] = 1
                for sqTolerance in [0.0, 1e-9, 1.0 / 4096] {
                    for tieBreak in [TilingOptions.Compatibility.geojsonVT, .maplibreNative] {
                        var expected = c, actual = c
                        geojsonVTMark(&expected, 0, c.count - 3, sqTolerance, cpp: tieBreak == .maplibreNative)
                        Simplify.mark(
                            &actual, first: 0, last: c.count - 3, sqTolerance: sqTolerance, tieBreak: tieBreak)
                        let same = zip(expected, actual).allSatisfy { $0.bitPattern == $1.bitPattern }
                        #expect(same, "n \(n), kind \(kind), tolerance \(sqTolerance), \(tieBreak)")
                        compared += 1
                    }
                }
            }
        }
        #expect(compared == 84 * 4 * 3 * 2)
    }

    /// Both vector scans (the one this CPU runs, AVX2 here, and the two-lane one every x86-64 has)
    /// answer every range of a random and of a grid line as a scalar scan in geojson-vt's order
    /// does: 0 when no vertex is beyond the tolerance, 1 and the farthest vertex when its distance
    /// is met once, -1 (the tie-break decides) when it is met more than once.
    @Test func simplifyVectorScansAnswerAsTheScalarScan() {
        var rng = SeededGenerator(seed: 5)
        var lines: [[Double]] = [[], []]
        for _ in 0..<300 {
            lines[0] += [Double(rng.next() % 16) / 32, Double(rng.next() % 16) / 32, 0]
            lines[1] += [Double(rng.next() % 1_000_000) / 1e6, Double(rng.next() % 1_000_000) / 1e6, 0]
        }
        var checked = 0, answers = [Int32: Int]()
        for c in lines {
            for first in stride(from: 0, to: 120, by: 3) {
                // Every count of vertices between the ends up to 24 (each remainder of the
                // four-lane steps), then longer ranges.
                let short = Array(stride(from: first + 6, to: first + 78, by: 3))
                for last in short + Array(stride(from: first + 78, to: c.count, by: 21)) {
                    let (ax, ay, bx, by) = (c[first], c[first + 1], c[last], c[last + 1])
                    let (dx, dy) = (bx - ax, by - ay)
                    for tolerance in [0, 1e-6] {
                        var farthest = tolerance, at = -1, times = 0
                        for i in stride(from: first + 3, to: last, by: 3) {
                            let t = ((c[i] - ax) * dx + (c[i + 1] - ay) * dy) / (dx * dx + dy * dy)
                            let x = t > 1 ? bx : t > 0 ? ax + dx * t : ax
                            let y = t > 1 ? by : t > 0 ? ay + dy * t : ay
                            let d = (c[i] - x) * (c[i] - x) + (c[i + 1] - y) * (c[i + 1] - y)
                            if d > farthest {
                                (farthest, at, times) = (d, i, 1)
                            } else if d == farthest {
                                times += 1
                            }
                        }
                        let expected: Int32 = at < 0 ? 0 : times == 1 ? 1 : -1
                        for twoLanes in [false, true] {
                            var index = -7
                            var distance = -1.0
                            let found = c.withUnsafeBufferPointer { b in
                                twoLanes
                                    ? mc_dp_farthest_two_lanes(b.baseAddress, first, last, tolerance, &index, &distance)
                                    : mc_dp_farthest(b.baseAddress, first, last, tolerance, &index, &distance)
                            }
                            #if arch(x86_64)
                                #expect(found == expected, "range \(first)...\(last), two lanes \(twoLanes)")
                            #else
                                #expect(found == -1)  // no vector scan here: the scalar loop decides
                            #endif
                            if found == 1 {
                                #expect(index == at && distance.bitPattern == farthest.bitPattern)
                            }
                            checked += 1
                        }
                        answers[expected, default: 0] += 1
                    }
                }
            }
        }
        #expect(checked > 1000)
        // Both kinds of line give every answer somewhere.
        #expect(answers[1, default: 0] > 50 && answers[-1, default: 0] > 10)
    }

    /// A box grown by a run of triples at once is the box grown a triple at a time with
    /// `Math.min`/`Math.max`'s rules: a NaN x (y) makes both x (y) sides NaN, infinities and
    /// signed zeros stay as they come. Runs of 0 to 9 triples drawn from such values.
    @Test func boxOfARunIsTheBoxOfItsTriples() {
        var rng = SeededGenerator(seed: 17)
        let values: [Double] = [0, -0.0, 1, -1, 0.5, .infinity, -.infinity, .nan, 1e300, -1e-300]
        var compared = 0, withNaN = 0
        for _ in 0..<3000 {
            let count = Int(rng.next() % 10)
            var c: [Double] = []
            for _ in 0..<count {
                c += (0..<3).map { _ in
                    rng.next() % 4 == 0 ? values[Int(rng.next() % 10)] : Double(rng.next() % 100) / 7
                }
            }
            var start = ProjectedBox()
            if rng.next() % 2 == 0 { start.extend(Double(rng.next() % 9), Double(rng.next() % 9)) }
            var expected = start, actual = start
            for k in stride(from: 0, to: c.count, by: 3) { expected.extend(c[k], c[k + 1]) }
            actual.extend(c)
            let sides = [
                (expected.minX, actual.minX), (expected.minY, actual.minY), (expected.maxX, actual.maxX),
                (expected.maxY, actual.maxY),
            ]
            #expect(sides.allSatisfy { $0.bitPattern == $1.bitPattern || $0.isNaN && $1.isNaN }, "\(c)")
            if sides.contains(where: { $0.0.isNaN }) { withNaN += 1 }
            compared += 1
        }
        #expect(compared == 3000 && withNaN > 100)
    }

    @Test func simplifyOfDegenerateInputTerminates() {
        // 5,600 numbers of collinear, equidistant points: the tie-break keeps the depth small, and
        // the explicit stack bounds it anyway.
        var c: [Double] = []
        for i in 0..<(5600 / 3) { c += [Double(i), 0, 0] }
        c[2] = 1
        c[c.count - 1] = 1
        Simplify.mark(&c, first: 0, last: c.count - 3, sqTolerance: 0)
        #expect(c.count == 5598)
    }

    /// `count` seeded small triangles (and, with `pointsEvery`, a point instead at every such
    /// index), with ids and an `i` property: inputs large enough for the two-thread paths.
    /// `westOnly`: all west of Greenwich (in the root's left half).
    private func seededFeatures(
        _ count: Int, seed: UInt64, pointsEvery: Int? = nil, westOnly: Bool = false
    )
        -> [Feature]
    {
        var features: [Feature] = []
        var rng = SeededGenerator(seed: seed)
        for i in 0..<count {
            let x = Double(rng.next() % (westOnly ? 1780 : 3580)) / 10 - 179, y = Double(rng.next() % 1600) / 10 - 80
            let ring: CoordinateList = [x, y, x + 0.7, y, x + 0.7, y + 0.4, x, y]
            let geometry =
                pointsEvery.map { i % $0 == 0 } ?? false
                ? Geometry.point(x, y) : Geometry(type: .polygon, xy: ring, partEnds: [4])
            var f = Feature(geometry: geometry, properties: JSONObject([("i", .int(Int64(i)))]))
            f.id = .int(Int64(i))
            features.append(f)
        }
        return features
    }

    /// Large collections convert on two threads; the result must be the serial one, in order.
    @Test func parallelConversionEqualsSerial() throws {
        let features = seededFeatures(Convert.parallelFrom + 1000, seed: 7)
        func flat(_ list: [ProjectedFeature], firstRef: Int32 = 0) -> [[Double]] {
            list.map { f -> [Double] in
                guard case .lines(let rings) = f.geometry else { return [] }
                return [Double(f.ref + firstRef)] + rings.flatMap(\.coords)
            }
        }
        let all = Convert.features(
            of: .featureCollection(FeatureCollection(features: features)),
            options: TilingOptions())
        let split = 2000
        let first = Convert.features(
            of: .featureCollection(FeatureCollection(features: Array(features[..<split]))),
            options: TilingOptions())
        let second = Convert.features(
            of: .featureCollection(FeatureCollection(features: Array(features[split...]))),
            options: TilingOptions())
        #expect(all.count == features.count)
        #expect(flat(all) == flat(first) + flat(second, firstRef: Int32(split)))
    }

    /// A large input's index is cut on two threads below the root; it must make the same tiles,
    /// in the same order, as one thread does.
    @Test func parallelIndexEqualsSerial() throws {
        let features = seededFeatures(Convert.parallelFrom + 3000, seed: 11, pointsEvery: 3)
        let data = GeoJSON.featureCollection(FeatureCollection(features: features))
        let (parallel, serial) = try expectTwoThreadIndexEqualsOneThread(data, indexMaxPoints: 500)
        #expect(parallel.tile(z: 9, x: 300, y: 200) == serial.tile(z: 9, x: 300, y: 200))
    }

    /// Data in one half of the world: the thread whose half is empty takes tiles of the other's
    /// from the shared stack, and the tiles still come out as one thread makes them.
    @Test func parallelIndexOfOneHalfEqualsSerial() throws {
        let features = seededFeatures(Convert.parallelFrom + 1000, seed: 13, pointsEvery: 4, westOnly: true)
        try expectTwoThreadIndexEqualsOneThread(
            .featureCollection(FeatureCollection(features: features)), indexMaxPoints: 300)
    }

    /// `WorkStack` hands out a tree's items until none is left: on two threads, each starting
    /// with a subtree of its own, every item is taken once; and when the two run one after the
    /// other (as `runConcurrently` runs them when no thread can be started), the first finishes
    /// without waiting for the second.
    @Test func workStackSharesATreeOnTwoThreads() {
        final class Counts: @unchecked Sendable {
            let lock = Lock()
            var taken: [Int: Int] = [:]
        }
        /// Item n has children 4n+1...4n+4 while under 4^6 (a full tree of depth 6 under each root).
        func run(sequentially: Bool) -> [Int: Int] {
            let stack = WorkStack<Int>(), counts = Counts()
            func work(root: Int) {
                stack.hold()
                stack.done(pushing: [root])
                while let n = stack.take() {
                    counts.lock.withLock { counts.taken[n, default: 0] += 1 }
                    stack.done(pushing: n < 1365 ? (1...4).map { 4 * n + $0 } : [])
                }
            }
            if sequentially {
                work(root: 0)
                work(root: 0)
            } else {
                runConcurrently({ work(root: 0) }, { work(root: 0) })
            }
            return counts.taken
        }
        for sequentially in [false, true] {
            let taken = run(sequentially: sequentially)
            // Two roots 0, each with its tree: every item of the tree taken twice, no other.
            #expect(taken.count == 5461 && taken.values.allSatisfy { $0 == 2 }, "sequentially \(sequentially)")
        }
    }

    /// `TwoEnds` hands every block out once, the front ones in ascending order and the back ones
    /// in descending order, however the two threads interleave; and all to the first when they
    /// run one after the other.
    @Test func twoEndsHandsEveryBlockOutOnce() {
        for count in [0, 1, 2, 7, 64, 1000] {
            for sequentially in [false, true] {
                let ends = TwoEnds(count)
                var front: [Int] = [], back: [Int] = []
                let a = { while let b = ends.takeFront() { front.append(b) } }
                let b = { while let b = ends.takeBack() { back.append(b) } }
                if sequentially {
                    a()
                    b()
                } else {
                    runConcurrently(a, b)
                }
                #expect(front == Array(0..<front.count), "count \(count)")
                #expect(back == Array((front.count..<count).reversed()), "count \(count)")
                if sequentially { #expect(front.count == count) }
            }
        }
    }

    /// The blocks of a conversion on two threads cover the features in order, none empty: about
    /// `blockCount` of equal counts for many features; for a few big ones, cut by positions, at
    /// most `blockCount`, the k-th boundary where k shares of the positions are passed, and a
    /// feature of many positions the last of its block. A small input has none (one thread).
    @Test func conversionBlocksCoverTheFeatures() {
        func valid(_ starts: [Int], _ n: Int) -> Bool {
            starts.first == 0 && starts.last == n && zip(starts, starts.dropFirst()).allSatisfy { $0 < $1 }
        }
        let many = seededFeatures(Convert.parallelFrom + 1000, seed: 5)
        let byCount = Convert.blocks(many) ?? []
        #expect(valid(byCount, many.count))
        #expect((Convert.blockCount - 1...Convert.blockCount + 1).contains(byCount.count - 1))

        // 40 rings of 2,000 positions, the 11th of 60,000.
        var few = bigRings(40, vertices: 1999, seed: 31)
        few[10] = bigRings(1, vertices: 59_999, seed: 37)[0]
        let sizes = few.map { Convert.positions(of: $0.geometry) }
        let total = sizes.reduce(0, +)
        let byPositions = Convert.blocks(few) ?? []
        #expect(valid(byPositions, few.count))
        #expect(byPositions.count - 1 <= Convert.blockCount)
        for (k, start) in byPositions.enumerated().dropFirst().dropLast() {
            #expect(sizes[..<start].reduce(0, +) * Convert.blockCount >= total * k, "boundary \(k)")
        }
        #expect(byPositions.contains(11))

        #expect(Convert.blocks(Array(few.prefix(2))) == nil)
        #expect(Convert.blocks([]) == nil)
    }

    /// The two-thread index lists its tiles sorted by `TileIndex.madeBefore`: that order is the
    /// one loop's (pop a tile, push its children top left, bottom left, top right, bottom right)
    /// over every tile of zooms 0-4, and over a tree that stops at some tiles.
    @Test func madeBeforeIsTheOrderOfOneLoop() {
        var rng = SeededGenerator(seed: 3)
        for pruned in [false, true] {
            var stack = [(z: 0, x: 0, y: 0)], made: [(z: Int, x: Int, y: Int)] = []
            while let t = stack.popLast() {
                made.append(t)
                guard t.z < 4, !pruned || t.z == 0 || rng.next() % 3 != 0 else { continue }
                let (z, x, y) = (t.z + 1, 2 * t.x, 2 * t.y)
                stack += [(z, x, y), (z, x, y + 1), (z, x + 1, y), (z, x + 1, y + 1)]
            }
            var shuffled = made
            for i in shuffled.indices.reversed() { shuffled.swapAt(i, Int(rng.next() % UInt64(i + 1))) }
            let sorted = shuffled.sorted { TileIndex.madeBefore($0, $1) }
            #expect(sorted.map { [$0.z, $0.x, $0.y] } == made.map { [$0.z, $0.x, $0.y] }, "pruned \(pruned)")
            #expect(made.count > (pruned ? 40 : 340))
        }
    }

    /// Builds `data`'s index on two threads and on one, and expects the same tiles, made in the
    /// same order, past the root and its four children.
    @discardableResult
    private func expectTwoThreadIndexEqualsOneThread(
        _ data: GeoJSON, indexMaxPoints: Int
    ) throws -> (TileIndex, TileIndex) {
        var options = TilingOptions()
        options.indexMaxPoints = indexMaxPoints
        let parallel = try TileIndex(data, options: options, parallel: true)
        let serial = try TileIndex(data, options: options, parallel: false)
        let made = parallel.madeTiles
        #expect(made.count > 21)
        #expect(made.map { [$0.z, $0.x, $0.y] } == serial.madeTiles.map { [$0.z, $0.x, $0.y] })
        for (z, x, y) in made {
            #expect(parallel.tile(z: z, x: x, y: y) == serial.tile(z: z, x: x, y: y), "\(z)/\(x)/\(y)")
        }
        return (parallel, serial)
    }

    /// A few big features (a country set's shape: 250 features, half a million positions) are
    /// converted and cut on two threads too, split by positions: `count` seeded wiggly rings of
    /// `vertices` positions each, one of them across the antimeridian, one in a
    /// GeometryCollection.
    private func bigRings(_ count: Int, vertices: Int, seed: UInt64) -> [Feature] {
        var rng = SeededGenerator(seed: seed)
        return (0..<count).map { i in
            let cx = i == 0 ? 179.0 : Double(rng.next() % 300) - 150, cy = Double(rng.next() % 120) - 60
            var ring = ContiguousArray<Double>()
            for k in 0..<vertices {
                let a = 2 * Double.pi * Double(k) / Double(vertices)
                let r = 5 + Double(rng.next() % 1000) / 500
                ring += [cx + r * cos(a), cy + r * sin(a)]
            }
            ring += [ring[0], ring[1]]
            let polygon = Geometry(type: .polygon, xy: CoordinateList(ring), partEnds: [vertices + 1])
            var geometry = polygon
            if i == 1 {
                geometry = Geometry(type: .geometryCollection, xy: [], partEnds: [])
                geometry.geometries = [polygon, .point(cx, cy)]
            }
            return Feature(geometry: geometry, properties: JSONObject([("i", .int(Int64(i)))]))
        }
    }

    @Test func fewBigFeaturesConvertAndCutOnTwoThreadsAsOnOne() throws {
        let features = bigRings(9, vertices: 9000, seed: 29)
        #expect(features.count < Convert.parallelFrom)
        #expect(features.reduce(0) { $0 + Convert.positions(of: $1.geometry) } >= Convert.parallelPositionsFrom)
        func flat(_ list: [ProjectedFeature], ref: Int32 = 0) -> [[Double]] {
            list.map { f -> [Double] in
                switch f.geometry {
                case .lines(let rings): return [Double(f.ref + ref)] + rings.flatMap(\.coords)
                case .point(let x, let y): return [Double(f.ref + ref), x, y]
                default: return []
                }
            }
        }
        let all = Convert.features(
            of: .featureCollection(FeatureCollection(features: features)), options: TilingOptions())
        // One feature at a time is below both thresholds: converted on this thread.
        let one = features.indices.flatMap { i in
            flat(
                Convert.features(
                    of: .featureCollection(FeatureCollection(features: [features[i]])), options: TilingOptions()),
                ref: Int32(i))
        }
        #expect(all.count == features.count + 1)  // the collection's point is a feature of its own
        let two = flat(all)
        // Compared whole, but a failure names the first feature that differs (not 10 MB of both).
        let differs =
            (0..<min(two.count, one.count)).first { two[$0] != one[$0] }
            ?? (two.count == one.count ? nil : min(two.count, one.count))
        #expect(differs == nil, "the two-thread conversion differs from feature \(differs ?? -1) on")

        try expectTwoThreadIndexEqualsOneThread(
            .featureCollection(FeatureCollection(features: features)), indexMaxPoints: 2000)
    }

    /// A tile split at load lets its clipped features go, and they are cut again when it is asked
    /// for (`TileIndex.recut`: from the nearest ancestor holding its own, giving every waiting tile
    /// on the way its features): asked for deepest first, then in a shuffled order, on one thread
    /// and on two, in both compatibilities, every tile is the one a top-down drill-down of an
    /// index that splits nothing at load writes (no tile of that one is ever split before it is
    /// written).
    @Test func tilesSplitBeforeTheyAreAskedForAreCutAgainAsMade() throws {
        let data = GeoJSON.featureCollection(FeatureCollection(features: bigRings(9, vertices: 9000, seed: 31)))
        for compatibility in [TilingOptions.Compatibility.geojsonVT, .maplibreNative] {
            var flat = TilingOptions()
            flat.compatibility = compatibility
            flat.indexMaxZoom = 0
            let reference = try TileIndex(data, options: flat, parallel: false)
            #expect(reference.tilesToRecut == 0)
            var tiles: [(z: Int, x: Int, y: Int)] = [], expected: [[TileFeature]] = []
            var stack = [(z: 0, x: 0, y: 0)]
            while let t = stack.popLast() {
                guard let tile = reference.tile(z: t.z, x: t.x, y: t.y), !tile.isEmpty else { continue }
                tiles.append(t)
                expected.append(tile)
                guard t.z < 6 else { continue }
                let (z, x, y) = (t.z + 1, 2 * t.x, 2 * t.y)
                stack += [(z, x, y), (z, x, y + 1), (z, x + 1, y), (z, x + 1, y + 1)]
            }
            #expect(reference.tilesToRecut == 0)
            #expect(tiles.count > 60)
            var options = flat
            options.indexMaxZoom = 4
            options.indexMaxPoints = 3000
            for parallel in [false, true] {
                let index = try TileIndex(data, options: options, parallel: parallel)
                let split = index.tilesToRecut
                #expect(split >= 5, "\(compatibility) parallel \(parallel)")
                var order = Array(tiles.indices).sorted { tiles[$0].z > tiles[$1].z }
                var rng = SeededGenerator(seed: 37)
                for i in order.indices.dropFirst(4).reversed() {
                    order.swapAt(i, 4 + Int(rng.next() % UInt64(i - 3)))
                }
                for i in order {
                    let (z, x, y) = tiles[i]
                    let same = index.tile(z: z, x: x, y: y) == expected[i]  // not the tiles in a failure
                    #expect(same, "\(compatibility) parallel \(parallel): \(z)/\(x)/\(y)")
                }
                #expect(index.tilesToRecut == 0, "\(compatibility) parallel \(parallel): \(split) split")
            }
        }
    }

    /// `Clip.ringRoom` is room enough for the ring either clip makes (so it never grows twofold
    /// past it), and not much more: random rings, many of whose vertices lie on the stripe's edges
    /// or cross it, against stripes at random.
    @Test func ringRoomHoldsEitherClipsRing() {
        var rng = SeededGenerator(seed: 41)
        var tight = 0
        for _ in 0..<400 {
            let n = 3 + Int(rng.next() % 200)
            var coords: [Double] = []
            for _ in 0..<n { coords += [Double(rng.next() % 9), Double(rng.next() % 9), 0] }
            coords += coords[0..<3]
            let k1 = Double(rng.next() % 8), k2 = k1 + Double(rng.next() % 4)
            let axis = Int(rng.next() % 2)
            let room = Clip.ringRoom(coords, k1, k2, axis)
            #expect(room <= 3 * (3 * (n + 1) + 1))
            for cpp in [false, true] {
                var rings: [ProjectedLine] = []
                if cpp {
                    Clip.clipLineCpp(
                        ProjectedLine(coords: coords), into: &rings, k1, k2, axis, polygon: true, trackMetrics: false)
                } else {
                    Clip.clipLine(
                        ProjectedLine(coords: coords), into: &rings, k1, k2, axis, polygon: true, trackMetrics: false)
                }
                let count = rings.first?.coords.count ?? 0
                #expect(rings.count <= 1 && count <= room, "cpp \(cpp): \(count) > \(room)")
                if count == room { tight += 1 }
            }
        }
        #expect(tight > 0)  // the bound is met exactly somewhere: no slack where none is needed
    }

    @Test func badOptionsNameTheOption() throws {
        for (text, fragment) in [
            (#"{"maxZoom": 25}"#, "maxZoom"), (#"{"maxZoom": -1}"#, "maxZoom"),
            (#"{"extent": 0}"#, "extent"), (#"{"buffer": "x"}"#, "buffer"),
            (#"{"tolerance": -1}"#, "tolerance"), (#"{"lineMetrics": 1}"#, "lineMetrics"),
            (#"{"promoteId": "a", "generateId": true}"#, "promoteId"),
            (#"{"colour": 1}"#, "colour"), ("[]", "must be a JSON object"),
        ] {
            let e = thrown { () throws(MapCoreError) in _ = try TilingOptions(json: try JSON.parse(text)) }
            #expect(e?.code == .invalidArgument, "\(text)")
            #expect(e?.message.contains(fragment) == true, "\(text): \(e?.message ?? "no error")")
        }
    }

    /// geojson-vt JS rewinds polygon rings (outer clockwise on screen); MapLibre Native's
    /// geojson-vt-cpp keeps them as given, and its polygon fix-up returns rings that follow that
    /// orientation, so `maplibre-native` keeps it too (the render test's fill outlines need it),
    /// winding a hole that runs like its outer ring the other way so that decoders which group
    /// rings by winding still read it as a hole.
    @Test func ringOrientationPerCompatibility() throws {
        func rings(_ holeLikeOuter: Bool, _ compatibility: String) throws -> [[Double]] {
            let outer = "[0,0],[10,0],[10,10],[0,10],[0,0]"  // counter-clockwise in lon/lat (RFC 7946)
            let hole = holeLikeOuter ? "[2,2],[4,2],[4,4],[2,4],[2,2]" : "[2,2],[2,4],[4,4],[4,2],[2,2]"
            let text = #"{"type": "Polygon", "coordinates": [[\#(outer)], [\#(hole)]]}"#
            let index = try TileIndex(
                try GeoJSONParser.parse(text), options: try options(#"{"compatibility": "\#(compatibility)"}"#))
            return try #require(index.tile(z: 0, x: 0, y: 0)?.first).geometry
        }
        func area(_ r: [Double]) -> Double {  // the shoelace sum on screen (y down)
            var sum = 0.0
            var k = 0
            while k + 3 < r.count {
                sum += r[k] * r[k + 3] - r[k + 2] * r[k + 1]
                k += 2
            }
            return sum
        }
        for holeLikeOuter in [false, true] {
            let js = try rings(holeLikeOuter, "geojson-vt")
            #expect(area(js[0]) > 0 && area(js[1]) < 0)  // rewound: outer clockwise on screen
            let native = try rings(holeLikeOuter, "maplibre-native")
            #expect(area(native[0]) < 0, "the input's outer orientation is kept")
            #expect(area(native[1]) > 0, "the hole runs against its outer ring")
            #expect(
                Array(native[0].prefix(4)) == [2048, 2048, 2162, 2048], "the input's order, from its first position")
        }
    }

    /// At the index's maxZoom (tolerance 0) geojson-vt JS keeps every line, ring and vertex;
    /// geojson-vt-cpp 6.6.5, which MapLibre Native runs, keeps only lines and rings of some size
    /// and vertices Douglas-Peucker marked at maxZoom's tolerance. Above maxZoom both drop them.
    @Test func theDeepestZoomKeepsWhatEachCompatibilityKeeps() throws {
        // A line with a vertex 1e-7 degrees off its chord (inside maxZoom 4's tolerance), a line
        // and a ring of no size, and a ring of some size with one such vertex.
        let text = #"""
            {"type": "FeatureCollection", "features": [
              {"type": "Feature", "properties": {"n": 0},
               "geometry": {"type": "LineString", "coordinates": [[1, 1], [2, 1.0000001], [3, 1]]}},
              {"type": "Feature", "properties": {"n": 1},
               "geometry": {"type": "LineString", "coordinates": [[5, 5], [5, 5]]}},
              {"type": "Feature", "properties": {"n": 2},
               "geometry": {"type": "Polygon", "coordinates": [[[6, 6], [6, 6], [6, 6], [6, 6]]]}},
              {"type": "Feature", "properties": {"n": 3},
               "geometry": {"type": "Polygon", "coordinates": [[[8, 8], [9, 8.0000001], [10, 8], [9, 9], [8, 8]]]}}
            ]}
            """#
        func tile(_ compatibility: String, z: Int) throws -> [String: Int] {
            let index = try TileIndex(
                try GeoJSONParser.parse(text),
                options: try options(#"{"maxZoom": 4, "compatibility": "\#(compatibility)"}"#))
            let x = z == 4 ? 8 : 0, y = z == 4 ? 7 : 0
            // Feature n → how many positions it keeps.
            var kept: [String: Int] = [:]
            for f in index.tile(z: z, x: x, y: y) ?? [] {
                let n = f.tags?["n"]?.doubleValue.map { String(Int($0)) } ?? "?"
                kept[n] = f.geometry.reduce(0) { $0 + $1.count / 2 }
            }
            return kept
        }
        #expect(try tile("geojson-vt", z: 4) == ["0": 3, "1": 2, "2": 4, "3": 5])
        #expect(try tile("maplibre-native", z: 4) == ["0": 2, "3": 4])
        for compatibility in ["geojson-vt", "maplibre-native"] {
            #expect(try tile(compatibility, z: 0) == ["0": 2, "3": 4], "\(compatibility)")
        }
    }

    /// With lineMetrics, geojson-vt JS makes one feature of each line of a MultiLineString, each
    /// tagged with its clip metrics; geojson-vt-cpp keeps the feature whole, untagged, in tiles no
    /// clip cut it for, and makes a tagged line feature of each part where a clip cut it.
    @Test func lineMetricsOfAMultiLineStringPerCompatibility() throws {
        let text = #"""
            {"type": "Feature", "properties": {"n": 0}, "geometry": {"type": "MultiLineString",
             "coordinates": [[[0, 0], [10, 5], [20, 0]], [[0, 10], [20, 12]]]}}
            """#
        func tile(_ compatibility: String, _ z: Int, _ x: Int, _ y: Int) throws -> [TileFeature] {
            let index = try TileIndex(
                try GeoJSONParser.parse(text),
                options: try options(#"{"maxZoom": 2, "lineMetrics": true, "compatibility": "\#(compatibility)"}"#))
            return index.tile(z: z, x: x, y: y) ?? []
        }
        func metrics(_ f: TileFeature) -> [Double]? {
            guard let s = f.tags?["mapbox_clip_start"]?.doubleValue, let e = f.tags?["mapbox_clip_end"]?.doubleValue
            else { return nil }
            return [s, e]
        }
        let js = try tile("geojson-vt", 0, 0, 0)
        #expect(js.map { $0.geometry.count } == [1, 1])
        #expect(js.map(metrics) == [[0, 1], [0, 1]])
        // z0: no clip cuts it. z1 1/1/0 (the north-east quarter, to 1/128 of the world below
        // the equator) holds it whole too. 1/1/1 (the south-east, from 1/128 above the equator)
        // cuts the first line, which leaves it and comes back, and holds nothing of the second:
        // two parts, each a line feature with its share of the first line.
        for (z, y) in [(0, 0), (1, 0)] {
            let whole = try tile("maplibre-native", z, z, y)
            #expect(whole.count == 1 && whole.first?.geometry.count == 2, "\(z)/\(z)/\(y)")
            #expect(whole.first.map(metrics) == .some(nil), "\(z)/\(z)/\(y)")
        }
        let cut = try tile("maplibre-native", 1, 1, 1)
        #expect(cut.map { $0.geometry.count } == [1, 1])
        let first = try #require(cut.first.flatMap(metrics)), second = try #require(cut.last.flatMap(metrics))
        #expect(first[0] == 0 && first[1] > 0.1 && first[1] < 0.5, "from the line's start to where it leaves")
        #expect(second[0] > 0.5 && second[0] < 0.9 && abs(second[1] - 1) < 1e-12, "from where it comes back")
    }

    /// A line of length zero, tolerance 0: geojson-vt JS keeps it (it drops lines shorter than
    /// the tolerance only when the tolerance is above 0) and divides by its length
    /// (`geom.start / geom.size`), so its metrics are NaN, which JSON writes as null (as
    /// `JSON.stringify` does) and an MVT as the double NaN. geojson-vt-cpp keeps a line only if
    /// longer than the tolerance (`line.dist > tolerance`), so it has no such line.
    @Test func lineMetricsOfALineOfLengthZero() throws {
        let text = #"{"type": "LineString", "coordinates": [[102, 1], [102, 1.0]]}"#
        func index(_ compatibility: String) throws -> TileIndex {
            try TileIndex(
                try GeoJSONParser.parse(text),
                options: try options(#"{"lineMetrics": true, "tolerance": 0, "compatibility": "\#(compatibility)"}"#))
        }
        let js = try index("geojson-vt")
        let features = js.tile(z: 1, x: 1, y: 0) ?? []
        #expect(features.count == 1)
        let start = features.first?.tags?["mapbox_clip_start"]?.doubleValue
        let end = features.first?.tags?["mapbox_clip_end"]?.doubleValue
        #expect(start?.isNaN == true && end?.isNaN == true)
        let json = String(decoding: TileFeature.tileJSON(features), as: UTF8.self)
        #expect(json.contains(#""tags":{"mapbox_clip_start":null,"mapbox_clip_end":null}"#), "\(json)")
        let mvt = try js.mvt(z: 1, x: 1, y: 0, layer: "l")
        let decoded = mvt.withUnsafeBytes { try? VectorTile(decoding: $0) }
        let tags = decoded?.layers.first?.features.first?.properties
        // Written as a double (field 3, fixed64; a NaN's exponent bits), read back as null: MapCore's
        // decoder gives JSON values, and JSON has no NaN.
        let nanValues = (0..<max(0, mvt.count - 9)).filter { i in
            mvt[i] == 0x19 && Double(bitPattern: (0..<8).reduce(0) { $0 | UInt64(mvt[i + 1 + $1]) << (8 * $1) }).isNaN
        }
        #expect(nanValues.count == 1, "one value, used by both tags")
        #expect(tags?["mapbox_clip_start"] == .null)
        #expect(try index("maplibre-native").tile(z: 1, x: 1, y: 0) == [])
    }

    /// geojson-vt projects with V8's Math.sin and Math.log: line metrics are shares of lengths in
    /// the projection, and with C's functions 5 of these 8 shares came out a bit apart. Expected:
    /// geojson-vt 4.0.2's tiles in node 20 (`getTile(...).features`, JSON.stringify).
    @Test func lineMetricsAreTheSharesNodeComputes() throws {
        let line = #"""
            {"type": "LineString", "coordinates": [[-18.8398, -4.1253], [17.7343, 17.8769], [16.036, -46.4153]]}
            """#
        let index = try TileIndex(
            try GeoJSONParser.parse(line),
            options: try options(#"{"lineMetrics": true, "maxZoom": 2, "indexMaxZoom": 2}"#))
        let node = [
            (
                0, 0,
                #"[{"geometry":[[[3716,4160],[4160,3889]]],"type":2,"tags":{"mapbox_clip_start":0.022264967919147713,"#
                    + #""mapbox_clip_end":0.22332629819795696}}]"#
            ),
            (
                1, 0,
                #"[{"geometry":[[[-64,3968],[404,3682],[392,4160]]],"type":2,"tags":{"#
                    + #""mapbox_clip_start":0.16530888538899405,"mapbox_clip_end":0.5620959667520433}}]"#
            ),
            (
                0, 1,
                #"[{"geometry":[[[3667,94],[3926,-64]]],"type":2,"tags":{"mapbox_clip_start":0,"#
                    + #""mapbox_clip_end":0.1174058097386776}}]"#
            ),
            (
                1, 1,
                #"[{"geometry":[[[395,-64],[365,1195]]],"type":2,"tags":{"mapbox_clip_start":0.5125477213696921,"#
                    + #""mapbox_clip_end":1}}]"#
            ),
        ]
        for (x, y, features) in node {
            #expect(try tileValue(index.tile(z: 1, x: x, y: y)) == JSON.parse(features), "1/\(x)/\(y)")
        }
    }

    /// geojson-vt JS makes a feature of each member of a GeometryCollection; geojson-vt-cpp clips
    /// the collection as one feature: its Point members are never clipped (they go wherever its
    /// box, which holds them, goes), and a member line cut in several parts stays one
    /// MultiLineString, without metrics. The maplibre-native tiles are geojson-vt-cpp 6.6.5's,
    /// built from source, for the same input and options.
    @Test func geometryCollectionsPerCompatibility() throws {
        let text = #"""
            {"type": "Feature", "properties": {"n": 0}, "geometry": {"type": "GeometryCollection", "geometries": [
             {"type": "Point", "coordinates": [-4, 1]},
             {"type": "LineString", "coordinates": [[-5, 0], [5, 2], [-5, 4], [5, 6]]}]}}
            """#
        func tile(_ compatibility: String, _ z: Int, _ x: Int, _ y: Int) throws -> [TileFeature] {
            let index = try TileIndex(
                try GeoJSONParser.parse(text),
                options: try options(#"{"maxZoom": 2, "lineMetrics": true, "compatibility": "\#(compatibility)"}"#))
            return index.tile(z: z, x: x, y: y) ?? []
        }
        let n = JSONObject([("n", .int(0))])
        func metrics(_ start: Double, _ end: Double) -> JSONObject {
            JSONObject([("n", .int(0)), ("mapbox_clip_start", .double(start)), ("mapbox_clip_end", .double(end))])
        }
        func feature(_ type: UInt8, _ geometry: [[Double]], _ tags: JSONObject) -> TileFeature {
            TileFeature(type: type, geometry: geometry, tags: tags, id: nil)
        }
        #expect(
            try tile("maplibre-native", 0, 0, 0) == [
                feature(1, [[2002, 2037]], n),
                feature(2, [[1991, 2048, 2105, 2025, 1991, 2002, 2105, 1980]], metrics(0, 1)),
            ])
        #expect(
            try tile("maplibre-native", 1, 1, 0) == [
                feature(1, [[-91, 4073]], n),
                feature(2, [[-64, 4086, 114, 4050, -64, 4015], [-64, 3995, 114, 3959]], n),
            ])
        #expect(
            try tile("maplibre-native", 2, 2, 1) == [
                feature(1, [[-182, 4050]], n),
                feature(2, [[-64, 4063, 228, 4005, -64, 3947], [-64, 3881, 228, 3822]], n),
            ])
        // A nested collection gives the same tiles.
        let nested = #"""
            {"type": "Feature", "properties": {"n": 0}, "geometry": {"type": "GeometryCollection", "geometries": [
             {"type": "GeometryCollection", "geometries": [{"type": "Point", "coordinates": [-4, 1]}]},
             {"type": "LineString", "coordinates": [[-5, 0], [5, 2], [-5, 4], [5, 6]]}]}}
            """#
        for (z, x, y) in [(0, 0, 0), (1, 1, 0), (2, 2, 1)] {
            let flat = try tile("maplibre-native", z, x, y)
            let index = try TileIndex(
                try GeoJSONParser.parse(nested),
                options: try options(#"{"maxZoom": 2, "lineMetrics": true, "compatibility": "maplibre-native"}"#))
            #expect(index.tile(z: z, x: x, y: y) ?? [] == flat, "\(z)/\(x)/\(y)")
        }
        // geojson-vt JS: the point is clipped away; the parts are lines with their metrics.
        let js = try tile("geojson-vt", 1, 1, 0)
        #expect(js.map(\.type) == [2, 2])
        #expect(js.map(\.geometry) == [[[-64, 4086, 114, 4050, -64, 4015]], [[-64, 3995, 114, 3959]]])
        #expect(js.allSatisfy { $0.tags?["mapbox_clip_start"] != nil })
    }

    /// A collection left with nothing but points outside a clip (far points) goes no further:
    /// geojson-vt-cpp carries it into every tile its box reaches, writing the points outside each
    /// of them, which made a tileset of two far-apart points hold every tile between them.
    @Test func aCollectionOfFarApartPointsStaysWithItsPoints() throws {
        let text = #"""
            {"type": "GeometryCollection", "geometries": [
             {"type": "Point", "coordinates": [-170, -80]}, {"type": "Point", "coordinates": [170, 80]}]}
            """#
        let data = try GeoJSONParser.parse(text)
        let tiling = try options(#"{"maxZoom": 6, "compatibility": "maplibre-native"}"#)
        let index = try TileIndex(data, options: tiling)
        #expect(index.tile(z: 0, x: 0, y: 0)?.map(\.type) == [1, 1])
        // Tile 3/4/3 lies between them, within geojson-vt-cpp's int16 of both: it writes two points.
        #expect(index.tile(z: 3, x: 4, y: 3)?.isEmpty ?? true)
        final class Count: @unchecked Sendable {
            let lock = Lock()
            var tiles = 0
        }
        let count = Count()
        try TileIndex.walk(data, options: tiling, maxZoom: 6) { _, _, _, _ in count.lock.withLock { count.tiles += 1 } }
        #expect(count.tiles > 2 && count.tiles < 50)
    }

    /// geojson-vt JS boxes a polygon by its outer ring, geojson-vt-cpp by all its rings: they
    /// differ when a ring lies outside the outer one (an invalid polygon). The maplibre-native
    /// tiles are geojson-vt-cpp 6.6.5's for the same input.
    @Test func polygonBoxesPerCompatibility() throws {
        let text = #"""
            {"type": "Polygon", "coordinates": [[[-10, -10], [-10, 10], [-2, 10], [-2, -10], [-10, -10]],
             [[3, 1], [8, 1], [8, 6], [3, 6], [3, 1]]]}
            """#
        func tile(_ compatibility: String, _ z: Int, _ x: Int, _ y: Int) throws -> [[[Double]]] {
            let index = try TileIndex(
                try GeoJSONParser.parse(text),
                options: try options(#"{"maxZoom": 4, "compatibility": "\#(compatibility)"}"#))
            return (index.tile(z: z, x: x, y: y) ?? []).map(\.geometry)
        }
        // 1/0/0: the outer ring's box lies inside the stripe, so JS takes the polygon whole (the
        // hole beyond the buffer); geojson-vt-cpp's box reaches past it, so it clips the hole away.
        #expect(
            try tile("maplibre-native", 1, 0, 0) == [[[3868, 4160, 3868, 3867, 4050, 3867, 4050, 4160, 3868, 4160]]])
        #expect(try tile("geojson-vt", 1, 0, 0).first?.count == 2)
        // 2/2/1: the outer ring misses its stripe; JS drops the polygon, geojson-vt-cpp keeps the hole.
        #expect(try tile("maplibre-native", 2, 2, 1) == [[[137, 4050, 364, 4050, 364, 3822, 137, 3822, 137, 4050]]])
        #expect(try tile("geojson-vt", 2, 2, 1) == [])
    }

    /// Positions past 540° (valid JSON that MapLibre Native takes): geojson-vt-cpp starts a box at
    /// x 2 and -1 (`ProjectedBox.geojsonVTStart`) and never cuts a Point, so a Point past 540° east
    /// reaches the east copy whole and is written a world west; a MultiPoint's or line's far part
    /// makes the east copy hold something (cut to nothing), so the centre is clipped too. Every
    /// tile below is geojson-vt-cpp 6.6.5's (tools/differential/geojson_vt_cpp.py's build).
    @Test func positionsPast540DegreesAsGeojsonVTCppTilesThem() throws {
        func tile(_ geometry: String, _ z: Int, _ x: Int, _ y: Int, maxZoom: Int = 3) throws -> [[[Double]]] {
            let index = try TileIndex(
                try GeoJSONParser.parse(geometry),
                options: try options(#"{"maxZoom": \#(maxZoom), "compatibility": "maplibre-native"}"#))
            return (index.tile(z: z, x: x, y: y) ?? []).map(\.geometry)
        }
        let east = #"{"type": "Point", "coordinates": [600, 10]}"#
        #expect(try tile(east, 0, 0, 0) == [[[4779, 1934]]])
        #expect(try tile(east, 1, 1, 0) == [[[5461, 3867]]])
        #expect(try tile(east, 2, 3, 1) == [])
        let west = #"{"type": "Point", "coordinates": [-600, 10]}"#
        #expect(try tile(west, 0, 0, 0) == [[[-683, 1934]]])
        #expect(try tile(west, 1, 0, 0) == [[[-1365, 3867]]])
        let multi = #"{"type": "MultiPoint", "coordinates": [[100, 10], [600, 20]]}"#
        #expect(try tile(multi, 0, 0, 0) == [[[3186, 1934]]])
        #expect(try tile(multi, 3, 6, 3) == [[[910, 3181]]])
        let line = #"{"type": "LineString", "coordinates": [[560, 10], [600, 20]]}"#
        #expect(try tile(line, 0, 0, 0) == [])
        // Under lineMetrics geojson-vt-cpp makes a feature of each part of a cut line, so a line cut
        // to nothing leaves the east copy empty, and the centre keeps the line whole.
        let metrics = try TileIndex(
            try GeoJSONParser.parse(#"{"type": "LineString", "coordinates": [[600, 0], [700, 10]]}"#),
            options: try options(#"{"maxZoom": 4, "lineMetrics": true, "compatibility": "maplibre-native"}"#))
        #expect(metrics.tile(z: 0, x: 0, y: 0)?.map(\.geometry) == [[[8875, 2048, 10012, 1934]]])
        // Past int16 (where geojson-vt-cpp's cast is undefined: it wrote -28217 for 37318), nothing.
        let far = #"{"type": "Point", "coordinates": [2000, 20]}"#
        #expect(try tile(far, 0, 0, 0, maxZoom: 2) == [[[20708, 1816]]])
        #expect(try tile(far, 1, 1, 0, maxZoom: 2) == [])
        // geojson-vt JS boxes from nothing: the Point stays where it is, past the z0 tile.
        let js = try TileIndex(try GeoJSONParser.parse(east), options: try options(#"{"maxZoom": 3}"#))
        #expect(js.tile(z: 0, x: 0, y: 0)?.map(\.geometry) == [[[8875, 1934]]])
    }

    /// Extents below the tolerance and buffers that are no binary fraction of the extent, as
    /// geojson-vt-cpp 6.6.5 tiles them (tools/differential/geojson_vt_cpp.py's build). At extent
    /// 3 the tolerance square at z0 is 1, the importance of a line's ends: geojson-vt-cpp writes no
    /// LineString that keeps no vertex, geojson-vt JS writes it empty. And a child's stripe is
    /// (x + 0.5) + k1 in geojson-vt-cpp, x + (0.5 + k1) in JS, which round apart at extent 7,
    /// buffer 1: the line metrics of the clipped parts show it.
    @Test func smallExtentsAndOddBuffersAsGeojsonVTCppTilesThem() throws {
        func index(_ text: String, _ settings: String, _ compatibility: String) throws -> TileIndex {
            try TileIndex(
                try GeoJSONParser.parse(text),
                options: try options(#"{\#(settings), "compatibility": "\#(compatibility)"}"#))
        }
        let loop = #"{"type": "LineString", "coordinates": [[-170, 0], [170, 10], [-170, 20]]}"#
        #expect(try index(loop, #""maxZoom": 2, "extent": 3"#, "maplibre-native").tile(z: 0, x: 0, y: 0) ?? [] == [])
        #expect(
            try index(loop, #""maxZoom": 2, "extent": 3"#, "geojson-vt").tile(z: 0, x: 0, y: 0)?.map(\.geometry)
                == [[[]], [[]], [[]]])
        let zigzag = #"{"type": "LineString", "coordinates": [[-100, 10], [100, 10.5], [-120, 11], [120, 12]]}"#
        let odd = try index(zigzag, #""maxZoom": 3, "extent": 7, "buffer": 1, "lineMetrics": true"#, "maplibre-native")
        let metrics = (odd.tile(z: 3, x: 3, y: 3) ?? []).map {
            [$0.tags?["mapbox_clip_start"]?.doubleValue ?? -1, $0.tags?["mapbox_clip_end"]?.doubleValue ?? -1]
        }
        #expect(
            metrics == [
                [0.07359293156244429, 0.16125510004123822], [0.4448042581739281, 0.5324663783115303],
                [0.7402587317146717, 0.82792140976097],
            ])
    }

    /// A buffer past the tile's extent: geojson-vt's clip of the centre world takes every feature
    /// whole (its bounds, x from -1 to 2, lie inside the stripe), keeping a position past 540°
    /// that the stripe would cut. Tiles as geojson-vt 4.0.2 makes them in node (geojson-vt-cpp
    /// makes the same).
    @Test func aBufferPastTheExtentKeepsTheCentreWorldWhole() throws {
        let text = #"{"type": "MultiPoint", "coordinates": [[100, 10], [1000, 20]]}"#
        for compatibility in ["geojson-vt", "maplibre-native"] {
            let index = try TileIndex(
                try GeoJSONParser.parse(text),
                options: try options(
                    #"{"maxZoom": 4, "extent": 1000, "buffer": 2048, "compatibility": "\#(compatibility)"}"#))
            func tile(_ z: Int, _ x: Int, _ y: Int) -> [[[Double]]] {
                (index.tile(z: z, x: x, y: y) ?? []).map(\.geometry)
            }
            #expect(tile(0, 0, 0) == [[[1778, 472, 4278, 443]], [[778, 472, 3278, 443]], [[-222, 472, 2278, 443]]])
            #expect(tile(1, 0, 0) == [[[1556, 944]], [[-444, 944]]])
            #expect(tile(1, 1, 0) == [[[2556, 944]], [[556, 944]], [[-1444, 944]]])
            #expect(tile(1, 0, 1) == [[[1556, -56]], [[-444, -56]]])
        }
    }

    /// geojson-vt-cpp's line clip where a vertex lies exactly on a clip edge (here lng 0, the
    /// edge of z1's tiles with no buffer): the line reaching it from outside takes the vertex as
    /// its next slice's start, twice, and that slice's metrics start there; geojson-vt JS starts
    /// the slice at the next segment with the earlier start. The maplibre-native tiles are
    /// geojson-vt-cpp 6.6.5's, built from source, for the same input and options.
    @Test func clipEdgesPerCompatibility() throws {
        let text = #"""
            {"type": "Feature", "properties": {"n": 0}, "geometry": {"type": "LineString",
             "coordinates": [[-10, 10], [0, 10], [10, 12], [0, 14], [-10, 16]]}}
            """#
        func tile(_ compatibility: String, _ z: Int, _ x: Int, _ y: Int) throws -> [TileFeature] {
            let index = try TileIndex(
                try GeoJSONParser.parse(text),
                options: try options(
                    #"{"maxZoom": 1, "buffer": 0, "lineMetrics": true, "compatibility": "\#(compatibility)"}"#))
            return index.tile(z: z, x: x, y: y) ?? []
        }
        func metrics(_ f: TileFeature) -> [Double] {
            [f.tags?["mapbox_clip_start"]?.doubleValue ?? -1, f.tags?["mapbox_clip_end"]?.doubleValue ?? -1]
        }
        func close(_ a: [Double], _ b: [Double]) -> Bool { zip(a, b).allSatisfy { abs($0 - $1) < 1e-15 } }
        let east = try tile("maplibre-native", 1, 1, 0)
        #expect(east.map(\.geometry) == [[[0, 3867, 0, 3867, 228, 3821, 0, 3774]]])
        #expect(east.count == 1 && close(metrics(east[0]), [0.24614710474355009, 0.74863127328402801]))
        let west = try tile("maplibre-native", 1, 0, 0)
        #expect(west.map(\.geometry) == [[[3868, 3867, 4096, 3867, 4096, 3867]], [[3868, 3727]]])
        #expect(west.count == 2 && close(metrics(west[0]), [0, 0.24614710474355009]))
        #expect(west.count == 2 && close(metrics(west[1]), [0.74863127328402801, 1]))
        let js = try tile("geojson-vt", 1, 1, 0)
        #expect(js.count == 1 && metrics(js[0])[0] == 0)
    }

    /// Tile coordinates are rounded as JS's Math.round (halves up) or, as geojson-vt-cpp does, as
    /// C's round (halves away from zero): they differ at negative halves. Longitude -360 / 2^15
    /// lies half a unit left of tile 1/1/1 of extent 8192, in its buffer.
    @Test func negativeHalvesAreRoundedPerCompatibility() throws {
        let lng = -360.0 / 32768
        let text = #"{"type": "Point", "coordinates": [\#(lng), 0]}"#
        for (compatibility, x) in [("geojson-vt", 0.0), ("maplibre-native", -1.0)] {
            let index = try TileIndex(
                try GeoJSONParser.parse(text),
                options: try options(#"{"extent": 8192, "compatibility": "\#(compatibility)"}"#))
            #expect(index.tile(z: 1, x: 1, y: 1)?.first?.geometry == [[x, 0]], "\(compatibility)")
            #expect(index.tile(z: 1, x: 0, y: 1)?.first?.geometry == [[8192, 0]], "\(compatibility)")
        }
    }

    @Test func extremeCoordinatesDoNotTrap() throws {
        let text = #"{"type": "LineString", "coordinates": [[-1e300, 89.99999999], [1e300, -89.9999999], [0, 0]]}"#
        let index = try TileIndex(try GeoJSONParser.parse(text), options: try options(#"{"indexMaxZoom": 2}"#))
        for (z, x, y) in index.madeTiles {
            _ = TileFeature.tileJSON(index.tile(z: z, x: x, y: y))
            _ = index.tileJSON(z: z, x: x, y: y, pretty: true)
        }
        _ = index.tile(z: 24, x: Int(Int32.max), y: 1 << 23)
        _ = index.tile(z: 24, x: Int(Int32.min), y: (1 << 24) - 1)
    }
}

private func pairs(_ value: JSONValue?) -> [[Double]] {
    (value?.arrayValue ?? []).map { ($0.arrayValue ?? []).compactMap { $0.doubleValue } }
}
