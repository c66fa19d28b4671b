// Interned tags (`TileTags`): a tile's MVT written from the index's interned ids and tags holds
// the layer tables vt-pbf would make from that tile's features alone, whichever tiles were
// encoded before it, on however many threads; and a value met once is written once, even in a
// tile holding its feature twice (wrapped across the antimeridian).
import Testing
@testable import MapCore

private func parse(_ text: String) throws -> GeoJSON { try GeoJSONParser.parse(text) }

/// Every tile of zooms 0...maxZoom holding features, parents before children.
private func tilesWithData(_ index: TileIndex, maxZoom: Int) -> [(Int, Int, Int)] {
    var out: [(Int, Int, Int)] = [], frontier = [(0, 0, 0)]
    while let (z, x, y) = frontier.popLast() {
        guard index.tile(z: z, x: x, y: y)?.isEmpty == false else { continue }
        out.append((z, x, y))
        if z < maxZoom { frontier += [(0, 0), (1, 0), (0, 1), (1, 1)].map { (z + 1, 2 * x + $0.0, 2 * y + $0.1) } }
    }
    return out
}

/// Points with every kind of tag: names met once, kinds shared, 1 and 1.0 (one MVT value), null
/// (left out), arrays and objects (their JSON text), a value twice in one feature, a feature
/// without properties; ids of every kind; some within the buffer of the antimeridian.
private func variedPoints(_ count: Int) throws -> GeoJSON {
    var rng = SeededGenerator(seed: 23)
    var features: [String] = []
    for i in 0..<count {
        let lng = i % 7 == 0 ? 179.5 + Double(i % 5) * 0.1 : Double.random(in: -180...180, using: &rng)
        let lat = Double.random(in: -80...80, using: &rng)
        let id = [#""id": \#(i), "#, #""id": -\#(i), "#, #""id": "s\#(i)", "#, #""id": \#(i).5, "#, ""][i % 5]
        let properties =
            i % 11 == 0
            ? "null"
            : #"{"name": "p\#(i)", "kind": "k\#(i % 3)", "n": \#(i % 2 == 0 ? "1" : "1.0"), "#
                + #""gone": null, "list": [\#(i % 4), "x"], "same": "\#(i % 3 == 0 ? "p\(i)" : "q")", "#
                + #""o": {"a": \#(i % 2 == 0)}}"#
        features.append(
            #"{"type": "Feature", \#(id)"geometry": {"type": "Point", "coordinates": [\#(lng), \#(lat)]}, "#
                + #""properties": \#(properties)}"#)
    }
    return try parse(#"{"type": "FeatureCollection", "features": [\#(features.joined(separator: ","))]}"#)
}

/// The layer's keys and value messages, read field by field.
private func tables(_ mvt: [UInt8]) throws -> (keys: [String], values: [[UInt8]]) {
    var keys: [String] = [], values: [[UInt8]] = []
    try mvt.withUnsafeBufferPointer { b throws(MapCoreError) in
        var tile = ProtobufReader(UnsafeRawBufferPointer(b))
        while let (number, wire) = try tile.field() {
            guard number == 3 else {
                try tile.skip(wire)
                continue
            }
            var layer = try tile.message()
            while let (field, wire) = try layer.field() {
                switch field {
                case 3: keys.append(try layer.string())
                case 4:
                    let value = try layer.message()
                    values.append(Array(UnsafeRawBufferPointer(rebasing: value.data[value.position..<value.end])))
                default: try layer.skip(wire)
                }
            }
        }
    }
    return (keys, values)
}

struct TileTagsFacts {
    /// Each tile's MVT equals the one encoded from its `TileFeature`s (a value table per tile),
    /// asked for top down, bottom up (so features are interned in another order), and by two
    /// threads at once.
    @Test func internedTagsWriteEachTilesOwnTables() throws {
        let data = try variedPoints(3000)
        for promote in ["", #", "promoteId": "name""#, #", "generateId": true"#] {
            let options = try TilingOptions(json: try JSON.parse(#"{"indexMaxZoom": 2\#(promote)}"#))
            let tiles = tilesWithData(try TileIndex(data, options: options), maxZoom: 4)
            #expect(tiles.count > 100)
            func check(_ index: TileIndex, _ order: [(Int, Int, Int)]) -> Int {
                var differing = 0
                for (z, x, y) in order {
                    let perTile = VectorTileEncoder.encode(
                        layer: "l", extent: 4096, features: index.tile(z: z, x: x, y: y) ?? [],
                        version: options.compatibility.mvtVersion)
                    if (try? index.mvt(z: z, x: x, y: y, layer: "l")) != perTile { differing += 1 }
                }
                return differing
            }
            #expect(check(try TileIndex(data, options: options), tiles) == 0)
            #expect(check(try TileIndex(data, options: options), tiles.reversed()) == 0)
            let shared = try TileIndex(data, options: options)
            var a = -1, b = -1
            runConcurrently({ a = check(shared, tiles) }, { b = check(shared, tiles.reversed()) })
            #expect(a == 0 && b == 0)
        }
    }

    /// The interned writer (each tile's size worked out first, then written through a pointer)
    /// against the per-tile encoder on every shape it writes: lines and polygons with holes,
    /// geometries of hundreds of bytes (multi-byte lengths), 0, 12, 13 and 70 tags (a one-byte
    /// tags length, and the five-byte room moved back), ids past 2^32, a 200-byte layer name,
    /// and tile coordinates held as Int16 and Int32 (extents 4096, 2^20 and 2^30; an extent whose
    /// coordinates need Doubles has no MVT, `TilingOptions.validateForMVT`).
    @Test func internedWriterWritesEveryShapeAsThePerTileEncoder() throws {
        var rng = SeededGenerator(seed: 5)
        var features: [String] = []
        for i in 0..<400 {
            let lng = Double.random(in: -170...170, using: &rng), lat = Double.random(in: -70...70, using: &rng)
            let count = [0, 12, 13, 70, 3][i % 5]
            let properties = (0..<count).map { #""k\#($0)": "v\#(i % 7 == 0 ? i : $0 % 3)""# }.joined(separator: ", ")
            let id = i % 3 == 0 ? #""id": \#(UInt64(1) << 40 + UInt64(i)), "# : ""
            let geometry: String
            switch i % 4 {
            case 0: geometry = #"{"type": "Point", "coordinates": [\#(lng), \#(lat)]}"#
            case 1:
                let line = (0..<(i % 8 == 1 ? 300 : 3)).map { k in
                    "[\(lng + Double(k) * 0.013), \(lat + (k % 2 == 0 ? 0.0 : 0.011))]"
                }
                geometry = #"{"type": "LineString", "coordinates": [\#(line.joined(separator: ","))]}"#
            case 2:
                let (a, b) = (lng, lat)
                geometry =
                    #"{"type": "Polygon", "coordinates": [[[\#(a),\#(b)],[\#(a + 4),\#(b)],[\#(a + 4),\#(b + 4)],"#
                    + #"[\#(a),\#(b + 4)],[\#(a),\#(b)]], [[\#(a + 1),\#(b + 1)],[\#(a + 1),\#(b + 2)],"#
                    + #"[\#(a + 2),\#(b + 2)],[\#(a + 1),\#(b + 1)]]]}"#
            default:
                geometry = #"{"type": "MultiPoint", "coordinates": [[\#(lng), \#(lat)], [\#(lng + 0.5), \#(lat)]]}"#
            }
            features.append(
                #"{"type": "Feature", \#(id)"geometry": \#(geometry), "properties": {\#(properties)}}"#)
        }
        let data = try parse(#"{"type": "FeatureCollection", "features": [\#(features.joined(separator: ","))]}"#)
        let name = String(repeating: "n", count: 200)
        for extent in ["4096", "1048576", "1073741824"] {
            let options = try TilingOptions(json: try JSON.parse(#"{"indexMaxZoom": 1, "extent": \#(extent)}"#))
            let index = try TileIndex(data, options: options)
            let tiles = tilesWithData(index, maxZoom: 3)
            #expect(tiles.count > 20)
            var differing = 0
            for (z, x, y) in tiles {
                let perTile = VectorTileEncoder.encode(
                    layer: name, extent: Int(options.extent), features: index.tile(z: z, x: x, y: y) ?? [],
                    version: options.compatibility.mvtVersion)
                if try index.mvt(z: z, x: x, y: y, layer: name) != perTile { differing += 1 }
            }
            #expect(differing == 0, "extent \(extent)")
        }
    }

    /// Tiles whose features are each one point take a writer of their own (`FlatFeatures.mvt`):
    /// the same bytes as the per-tile encoder, for points with every kind of tag and id, copies
    /// wrapped across the antimeridian (in the z0 tile twice), coordinates in the buffer (negative,
    /// and past the extent) and of up to five-byte varints (extents 2^20 and 2^30), both MVT
    /// versions; and a tile that also holds a MultiPoint (the common writer) beside it.
    @Test func pointTilesWriteAsThePerTileEncoder() throws {
        let points = try variedPoints(600)
        let mixed = try parse(
            #"{"type": "FeatureCollection", "features": [{"type": "Feature", "properties": {"a": 1}, "#
                + #""geometry": {"type": "Point", "coordinates": [10, 10]}}, {"type": "Feature", "#
                + #""properties": {"a": 2}, "geometry": {"type": "MultiPoint", "coordinates": [[11, 11], [12, 12]]}}]}"#
        )
        var compared = 0
        for (data, maxZoom) in [(points, 5), (mixed, 2)] {
            for extent in ["4096", "1048576", "1073741824"] {
                for compatibility in ["geojson-vt", "maplibre-native"] {
                    let options = try TilingOptions(
                        json: try JSON.parse(
                            #"{"indexMaxZoom": 2, "extent": \#(extent), "compatibility": "\#(compatibility)"}"#))
                    let index = try TileIndex(data, options: options)
                    for (z, x, y) in tilesWithData(index, maxZoom: maxZoom) {
                        let perTile = VectorTileEncoder.encode(
                            layer: "points", extent: Int(options.extent), features: index.tile(z: z, x: x, y: y) ?? [],
                            version: options.compatibility.mvtVersion)
                        #expect(
                            try index.mvt(z: z, x: x, y: y, layer: "points") == perTile,
                            "tile \(z)/\(x)/\(y), extent \(extent), \(compatibility)")
                        compared += 1
                    }
                }
            }
        }
        #expect(compared > 300)
    }

    /// A point within the buffer of the antimeridian is in the z0 tile twice (geojson-vt wraps a
    /// copy to the other side). Its name, met by no other feature, is one value, which both
    /// copies index; 1 and 1.0 are one value too; null is left out. Expected by hand, in vt-pbf's
    /// first-seen order: features A, B, C, D, then A's wrapped copy.
    @Test func aFeatureInATileTwiceWritesItsValuesOnce() throws {
        let data = try parse(
            #"""
            {"type": "FeatureCollection", "features": [
             {"type": "Feature", "geometry": {"type": "Point", "coordinates": [179.99, 0]},
              "properties": {"name": "only"}},
             {"type": "Feature", "geometry": {"type": "Point", "coordinates": [0, 0]},
              "properties": {"name": "shared"}},
             {"type": "Feature", "geometry": {"type": "Point", "coordinates": [1, 0]},
              "properties": {"name": "shared", "n": 1, "gone": null}},
             {"type": "Feature", "geometry": {"type": "Point", "coordinates": [2, 0]},
              "properties": {"n": 1.0, "list": [1, 2]}}
            ]}
            """#)
        let index = try TileIndex(data, options: TilingOptions())
        let mvt = try index.mvt(z: 0, x: 0, y: 0, layer: "l")
        let (keys, values) = try tables(mvt)
        #expect(keys == ["name", "n", "list"])
        let string = { (s: String) -> [UInt8] in [0x0A, UInt8(s.utf8.count)] + Array(s.utf8) }
        #expect(values == [string("only"), string("shared"), [0x28, 1], string("[1,2]")])
        let decoded = try mvt.withUnsafeBytes { b throws(MapCoreError) in try VectorTile(decodingMaybeCompressed: b) }
        let names = decoded.layers.first?.features.map { $0.properties["name"] ?? .null }
        #expect(names == [.string("only"), .string("shared"), .string("shared"), .null, .string("only")])
    }
}
