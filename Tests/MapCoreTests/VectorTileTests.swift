// Mapbox Vector Tiles: the geometry encodings the MVT 2.1 specification works through (its
// section 4.3.5 examples), round trips, shared keys and values, and hostile bytes: every
// truncation, bad indexes and counts, gzip bombs.
import Testing
@testable import MapCore

private func feature(_ type: UInt8, _ runs: [[Double]], tags: JSONObject? = nil, id: JSONValue? = nil) -> TileFeature {
    TileFeature(type: type, geometry: runs, tags: tags, id: id)
}

private func decode(_ bytes: [UInt8]) throws(MapCoreError) -> VectorTile {
    try bytes.withUnsafeBufferPointer { b throws(MapCoreError) in
        try VectorTile(decodingMaybeCompressed: UnsafeRawBufferPointer(b))
    }
}

struct VectorTileFacts {
    /// vector-tile-spec 2.1, 4.3.5 "Example Geometry Encodings".
    @Test func specGeometryExamples() {
        #expect(VectorTileEncoder.commands(feature(1, [[25, 17]])) == [9, 50, 34])
        #expect(VectorTileEncoder.commands(feature(1, [[5, 7, 3, 2]])) == [17, 10, 14, 3, 9])
        #expect(VectorTileEncoder.commands(feature(2, [[2, 2, 2, 10, 10, 10]])) == [9, 4, 4, 18, 0, 16, 16, 0])
        #expect(
            VectorTileEncoder.commands(feature(2, [[2, 2, 2, 10, 10, 10], [1, 1, 3, 5]]))
                == [9, 4, 4, 18, 0, 16, 16, 0, 9, 17, 17, 10, 4, 8])
        #expect(
            VectorTileEncoder.commands(feature(3, [[3, 6, 8, 12, 20, 34, 3, 6]])) == [9, 6, 12, 18, 10, 12, 24, 44, 15])
        // The multipolygon example: an outer ring, a second outer ring with a hole.
        let multi = feature(
            3,
            [
                [0, 0, 10, 0, 10, 10, 0, 10, 0, 0], [11, 11, 20, 11, 20, 20, 11, 20, 11, 11],
                [13, 13, 13, 17, 17, 17, 17, 13, 13, 13],
            ])
        #expect(
            VectorTileEncoder.commands(multi) == [
                9, 0, 0, 26, 20, 0, 0, 20, 19, 0, 15, 9, 22, 2, 26, 18, 0, 0,
                18, 17, 0, 15, 9, 4, 13, 26, 0, 8, 8, 0, 0, 7, 15,
            ])
    }

    @Test func roundTripKeepsGeometryPropertiesAndIds() throws {
        var tags = JSONObject()
        tags["name"] = .string("a")
        tags["n"] = .int(-3)
        tags["big"] = .uint(18_000_000_000_000_000_000)
        tags["x"] = .double(2.5)
        tags["whole"] = .double(4)
        tags["ok"] = .bool(true)
        tags["none"] = .null
        tags["list"] = .array([.int(1), .string("b")])
        let features = [
            feature(1, [[1, 2]], tags: tags, id: .int(7)),
            feature(2, [[0, 0, 4096, 4096]], tags: tags, id: .string("not an MVT id")),
            feature(3, [[0, 0, 10, 0, 10, 10, 0, 0]], id: .int(-1)),
        ]
        let tile = try decode(VectorTileEncoder.encode(layer: "things", extent: 4096, features: features))
        #expect(tile.layers.count == 1)
        let layer = tile.layers[0]
        #expect(layer.name == "things" && layer.extent == 4096 && layer.version == 2)
        #expect(layer.features.map(\.id) == [7, nil, nil])
        #expect(layer.features.map(\.type) == [1, 2, 3])
        let p = layer.features[0].properties
        #expect(p["name"] == .string("a") && p["n"] == .int(-3) && p["x"] == .double(2.5) && p["whole"] == .int(4))
        #expect(p["big"] == .uint(18_000_000_000_000_000_000) && p["ok"] == .bool(true) && p["none"] == nil)
        #expect(p["list"] == .string(#"[1,"b"]"#))
        #expect(
            try layer.features[2].rings().map { $0.map { [$0.x, $0.y] } } == [[[0, 0], [10, 0], [10, 10], [0, 0]]])
        // Keys and values are stored once per layer: 7 keys, 7 values for two features.
        let bytes = VectorTileEncoder.encode(layer: "things", extent: 4096, features: features)
        var keyCount = 0
        let key: [UInt8] = Array("name".utf8)
        for i in 0..<(bytes.count - key.count) where Array(bytes[i..<(i + key.count)]) == key { keyCount += 1 }
        #expect(keyCount == 1)
    }

    /// vt-pbf's tables: a key enters with its first value that is written (a null one is left
    /// out), a value once however many features hold it, strings told apart by their UTF-8 as
    /// JavaScript tells them apart (é and e + U+0301 are two values). 3,000 features with 4,002
    /// distinct values make the value table grow several times.
    @Test func keysAndValuesAreSharedInFirstSeenOrder() throws {
        var features: [TileFeature] = []
        for i in 0..<3000 {
            var tags = JSONObject()
            tags["late"] = i < 10 ? .null : .bool(i % 2 == 0)
            tags["name"] = .string("n\(i % 1000)")
            tags["i"] = .int(Int64(i))
            features.append(feature(1, [[Double(i % 4096), 0]], tags: tags))
        }
        var composed = JSONObject(), decomposed = JSONObject()
        composed["name"] = .string("caf\u{E9}")
        decomposed["name"] = .string("cafe\u{301}")
        features += [feature(1, [[1, 1]], tags: composed), feature(1, [[2, 2]], tags: decomposed)]
        let bytes = VectorTileEncoder.encode(layer: "l", extent: 4096, features: features)
        // The layer's own tables, read field by field.
        var keys: [String] = [], valueCount = 0
        try bytes.withUnsafeBufferPointer { b throws(MapCoreError) in
            var tile = ProtobufReader(UnsafeRawBufferPointer(b))
            while let (number, _) = try tile.field() {
                #expect(number == 3)
                var layer = try tile.message()
                while let (field, wire) = try layer.field() {
                    switch field {
                    case 3: keys.append(try layer.string())
                    case 4:
                        valueCount += 1
                        try layer.skip(wire)
                    default: try layer.skip(wire)
                    }
                }
            }
        }
        #expect(keys == ["name", "i", "late"])
        // 1,000 names, 3,000 ints (0 and 1 among them), true and false, and the two cafés.
        #expect(valueCount == 1000 + 3000 + 2 + 2)
        let decoded = try decode(bytes).layers[0].features
        #expect(decoded.count == features.count)
        for (f, d) in zip(features, decoded) {
            var expected = JSONObject()
            for (key, value) in f.tags ?? JSONObject() where value != .null { expected[key] = value }
            #expect(d.properties == expected)
            if d.properties != expected { break }
        }
    }

    @Test func geoJSONInTileCoordinatesAndLongitudeLatitude() throws {
        let polygons = feature(3, [[0, 0, 10, 0, 10, 10, 0, 10, 0, 0], [20, 20, 30, 20, 30, 30, 20, 30, 20, 20]])
        let tile = try decode(
            VectorTileEncoder.encode(
                layer: "l", extent: 4096,
                features: [polygons, feature(1, [[2048, 2048]]), feature(1, [[0, 97], [0, 146]])]))
        let text = String(decoding: try tile.geoJSON(tile: nil), as: UTF8.self)
        #expect(text.contains(#""type":"MultiPolygon""#))
        let lngLat = try JSON.parse(String(decoding: try tile.geoJSON(tile: (1, 1, 0)), as: UTF8.self))
        // The centre of tile 1/1/0 is 90°E, 66.51°N.
        let point = lngLat.objectValue?["layers"]?.objectValue?["l"]?.objectValue?["features"]?.objectValue?[
            "features"]?
            .arrayValue?[1].objectValue?["geometry"]?.objectValue?["coordinates"]?.arrayValue
        #expect(point?[0] == .double(90))
        #expect(abs((point?[1].doubleValue ?? 0) - 66.51326044311186) < 1e-9)
        // Latitudes as vector-tile-js computes them in node (C's atan and exp give ...691 and
        // ...627 for these two).
        let points = lngLat.objectValue?["layers"]?.objectValue?["l"]?.objectValue?["features"]?.objectValue?[
            "features"]?
            .arrayValue?[2].objectValue?["geometry"]?.objectValue?["coordinates"]?.arrayValue
        #expect(points?.map { $0.arrayValue?[1].doubleValue } == [84.66943152535694, 84.46559457654624])
        #expect(thrown { () throws(MapCoreError) in _ = try tile.geoJSON(tile: (1, 2, 0)) }?.code == .invalidArgument)
    }

    @Test func everyTruncationIsAnErrorNotACrash() {
        let bytes = VectorTileEncoder.encode(
            layer: "l", extent: 4096,
            features: [
                feature(3, [[0, 0, 10, 0, 10, 10, 0, 0]], tags: JSONObject([("k", .string("v"))]), id: .int(1))
            ])
        var refused = 0, accepted = 0
        for cut in 1..<bytes.count {
            if (try? decode(Array(bytes[0..<cut]))) == nil { refused += 1 } else { accepted += 1 }
        }
        // A cut at a field boundary inside the layer is a shorter valid message only if no
        // length runs past it; here every cut falls inside the one length-delimited layer.
        #expect(refused == bytes.count - 1 && accepted == 0)
    }

    /// Varints as protobuf's encoding defines them (seven bits a byte, low first, the high bit
    /// set on all but the last byte), one at a time and packed. The writer makes them on the
    /// stack and appends them a batch at a time, so no batch's edge may show; a feature is
    /// written straight into its layer with a length worked out beforehand, so a long geometry
    /// and a type of two bytes must come back whole.
    @Test func varintsAndFeatureLengthsAsProtobufDefinesThem() throws {
        func reference(_ v: UInt64) -> [UInt8] {
            var v = v, out: [UInt8] = []
            repeat {
                let low = UInt8(v & 0x7F)
                v >>= 7
                out.append(v == 0 ? low : low | 0x80)
            } while v != 0
            return out
        }
        #expect(reference(300) == [0xAC, 0x02])  // the protobuf documentation's example
        for v: UInt64 in [0, 1, 127, 128, 300, 16_383, 16_384, 1 << 32, UInt64.max] {
            var w = ProtobufWriter()
            w.varint(v)
            #expect(w.bytes == reference(v), "\(v)")
        }
        // 2,000 values of one to five bytes, so that varints straddle every batch's edge.
        let values = (0..<2000).map { i in UInt32(truncatingIfNeeded: (i &* 2_654_435_761) >> (i % 29)) }
        #expect(Set(values.map { reference(UInt64($0)).count }) == [1, 2, 3, 4, 5])
        var packed = ProtobufWriter()
        packed.packedUInt32Field(4, values)
        let body = values.flatMap { reference(UInt64($0)) }
        #expect(packed.bytes == [0x22] + reference(UInt64(body.count)) + body)

        // A line of 3,000 vertices (about 12 KB of commands) and a feature of type 200.
        let line = (0..<3000).flatMap { i in [Double(i % 4096), Double((i * 7) % 4096)] }
        let tile = try decode(
            VectorTileEncoder.encode(
                layer: "l", extent: 4096,
                features: [feature(2, [line], id: .int(1)), feature(200, [[5, 5]], id: .int(2))]))
        let features = tile.layers.first?.features ?? []
        #expect(features.map(\.id) == [1, 2])
        #expect(try features.first?.rings().first?.flatMap { [Double($0.x), Double($0.y)] } == line)
        // MVT knows types 0-3: the decoder reads any other as 0 (unknown), after its whole field.
        #expect(features.last?.type == 0)
    }

    @Test func hostileMessagesAreRefused() {
        func refused(_ bytes: [UInt8]) -> MapCoreError? { thrown { () throws(MapCoreError) in _ = try decode(bytes) } }
        // A layer whose length runs past the end.
        #expect(refused([0x1A, 0x7F, 0x0A, 0x01, 0x61])?.code == .parse)
        // A varint of 11 bytes.
        #expect(refused([0x08] + [UInt8](repeating: 0xFF, count: 10) + [0x01])?.code == .parse)
        // Wire type 3 (groups) is not supported.
        #expect(refused([0x0B])?.code == .parse)
        // A feature whose tag points past the keys.
        var layer = ProtobufWriter()
        layer.stringField(1, "l")
        var f = ProtobufWriter()
        f.packedUInt32Field(2, [5, 0])
        f.varintField(3, 1)
        f.packedUInt32Field(4, [9, 0, 0])
        layer.bytesField(2, f.bytes)
        var tile = ProtobufWriter()
        tile.bytesField(3, layer.bytes)
        #expect(refused(tile.bytes)?.message.contains("key index 5") == true)
        // A MoveTo wanting a million positions from three numbers.
        var g = ProtobufWriter()
        g.varintField(3, 1)
        g.packedUInt32Field(4, [UInt32(1 | 1_000_000 << 3), 0, 0])
        let rings = try? decode(wrap(g.bytes)).layers[0].features[0].rings()
        #expect(rings == nil)
        // A layer without a name.
        var nameless = ProtobufWriter()
        nameless.bytesField(3, [0x28, 0x80, 0x20])
        #expect(refused(nameless.bytes)?.message.contains("no name") == true)
    }

    @Test func gzipRoundTripAndBomb() throws {
        let bytes = VectorTileEncoder.encode(layer: "l", extent: 4096, features: [feature(1, [[1, 2]])])
        let packed = try Gzip.compress(bytes)
        #expect(packed[0] == 0x1F && packed[1] == 0x8B)
        #expect(try decode(packed).layers.first?.name == "l")
        // 64 MiB + 1 of zeros compress to about 65 KB; inflating them is refused at the cap.
        let bomb = try Gzip.compress([UInt8](repeating: 0, count: Gzip.defaultLimit + 1))
        #expect(bomb.count < 200_000)
        #expect(thrown { () throws(MapCoreError) in _ = try decode(bomb) }?.code == .limit)
        // Truncated gzip data.
        #expect(thrown { () throws(MapCoreError) in _ = try decode(Array(packed.dropLast(6))) }?.code == .parse)
    }
}

private func wrap(_ feature: [UInt8]) -> [UInt8] {
    var layer = ProtobufWriter()
    layer.stringField(1, "l")
    layer.bytesField(2, feature)
    var tile = ProtobufWriter()
    tile.bytesField(3, layer.bytes)
    return tile.bytes
}
