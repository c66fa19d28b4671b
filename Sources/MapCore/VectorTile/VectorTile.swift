// VectorTile: Mapbox Vector Tile 2.1 read into layers and features (vector-tile-js semantics:
// unknown fields skipped, commands decoded into rings, polygons grouped by ring winding), with
// every index, count and length checked against the bytes that are there.

/// A decoded tile: its layers in tile order.
public struct VectorTile: Sendable {
    public var layers: [VectorTileLayer]

    /// Decodes MVT bytes (not compressed; see `Gzip` for gzip data).
    public init(decoding bytes: UnsafeRawBufferPointer) throws(MapCoreError) {
        var reader = ProtobufReader(bytes)
        layers = []
        while let (number, wire) = try reader.field() {
            if number == 3 {
                try ProtobufReader.expect(wire, .bytes, "layer")
                var sub = try reader.message()
                layers.append(try VectorTileLayer(reading: &sub))
            } else {
                try reader.skip(wire)
            }
        }
    }
}

extension VectorTile {
    /// Decodes MVT bytes, inflating them first when they are gzip data (at most `limit` bytes).
    public init(
        decodingMaybeCompressed bytes: UnsafeRawBufferPointer, limit: Int = Gzip.defaultLimit
    )
        throws(MapCoreError)
    {
        guard Gzip.isCompressed(bytes) else {
            try self.init(decoding: bytes)
            return
        }
        let inflated = try Gzip.inflate(bytes, limit: limit)
        self = try inflated.withUnsafeBufferPointer { b throws(MapCoreError) in
            try VectorTile(decoding: UnsafeRawBufferPointer(b))
        }
    }
}

public struct VectorTileLayer: Sendable {
    public var name = ""
    public var version: UInt64 = 1
    public var extent: UInt64 = 4096
    public var features: [VectorTileFeature] = []

    init(reading r: inout ProtobufReader) throws(MapCoreError) {
        var keys: [String] = []
        var values: [JSONValue] = []
        var rawFeatures: [ProtobufReader] = []
        var named = false
        while let (number, wire) = try r.field() {
            switch number {
            case 15:
                try ProtobufReader.expect(wire, .varint, "layer version")
                version = try r.varint()
            case 1:
                try ProtobufReader.expect(wire, .bytes, "layer name")
                name = try r.string()
                named = true
            case 2:
                try ProtobufReader.expect(wire, .bytes, "feature")
                rawFeatures.append(try r.message())
            case 3:
                try ProtobufReader.expect(wire, .bytes, "key")
                keys.append(try r.string())
            case 4:
                try ProtobufReader.expect(wire, .bytes, "value")
                var sub = try r.message()
                values.append(try Self.value(&sub))
            case 5:
                try ProtobufReader.expect(wire, .varint, "layer extent")
                extent = try r.varint()
            default:
                try r.skip(wire)
            }
        }
        guard named else { throw ProtobufReader.error("a layer has no name") }
        guard extent > 0, extent <= 1 << 31 else { throw ProtobufReader.error("layer \(name) has extent \(extent)") }
        features.reserveCapacity(rawFeatures.count)
        for var raw in rawFeatures {
            features.append(try VectorTileFeature(reading: &raw, keys: keys, values: values, layer: name))
        }
    }

    /// A `Value` message: the last of its typed fields wins; none at all is null.
    private static func value(_ r: inout ProtobufReader) throws(MapCoreError) -> JSONValue {
        var value = JSONValue.null
        while let (number, wire) = try r.field() {
            switch (number, wire) {
            case (1, .bytes): value = .string(try r.string())
            case (2, .fixed32): value = .double(Double(Float(bitPattern: try r.fixed32())))
            case (3, .fixed64): value = .double(Double(bitPattern: try r.fixed64()))
            case (4, .varint): value = .int(Int64(bitPattern: try r.varint()))
            case (5, .varint):
                let v = try r.varint()
                value = v <= UInt64(Int64.max) ? .int(Int64(v)) : .uint(v)
            case (6, .varint): value = .int(ProtobufWriter.unzigzag(try r.varint()))
            case (7, .varint): value = .bool(try r.varint() != 0)
            default: try r.skip(wire)
            }
        }
        if case .double(let d) = value, !d.isFinite { return .null }
        return value
    }
}

public struct VectorTileFeature: Sendable {
    /// Only MVT ids (uint64) exist; nil when the feature has none.
    public var id: UInt64?
    /// 0 unknown, 1 point, 2 line, 3 polygon.
    public var type: UInt8 = 0
    public var properties = JSONObject()
    /// The geometry commands as stored (decode them with `rings()`).
    public var commands: [UInt32] = []

    init(reading r: inout ProtobufReader, keys: [String], values: [JSONValue], layer: String) throws(MapCoreError) {
        var tags: [UInt32] = []
        while let (number, wire) = try r.field() {
            switch number {
            case 1:
                try ProtobufReader.expect(wire, .varint, "feature id")
                id = try r.varint()
            case 2:
                try ProtobufReader.expect(wire, .bytes, "feature tags")
                tags = try r.packedUInt32()
            case 3:
                try ProtobufReader.expect(wire, .varint, "feature type")
                let t = try r.varint()
                type = t <= 3 ? UInt8(t) : 0
            case 4:
                try ProtobufReader.expect(wire, .bytes, "feature geometry")
                commands = try r.packedUInt32()
            default:
                try r.skip(wire)
            }
        }
        guard tags.count % 2 == 0 else { throw ProtobufReader.error("odd tag count in layer \(layer)") }
        var i = 0
        while i < tags.count {
            let k = Int(tags[i]), v = Int(tags[i + 1])
            guard k < keys.count else {
                throw ProtobufReader.error("key index \(k) of \(keys.count) in layer \(layer)")
            }
            guard v < values.count else {
                throw ProtobufReader.error("value index \(v) of \(values.count) in layer \(layer)")
            }
            properties[keys[k]] = values[v]
            i += 2
        }
    }

    /// The geometry as vector-tile-js's `loadGeometry` reads it: each MoveTo starts a ring (a
    /// point is a one-position ring), LineTo extends it, ClosePath repeats its first position.
    public func rings() throws(MapCoreError) -> [[(x: Int64, y: Int64)]] {
        var rings: [[(x: Int64, y: Int64)]] = []
        var ring: [(x: Int64, y: Int64)] = []
        var started = false
        var x: Int64 = 0, y: Int64 = 0
        var i = 0
        while i < commands.count {
            let command = commands[i] & 7, count = Int(commands[i] >> 3)
            i += 1
            switch command {
            case 1, 2:
                guard count <= (commands.count - i) / 2 else {
                    throw ProtobufReader.error("a geometry command wants \(count) positions past the end")
                }
                guard command == 1 || started else { throw ProtobufReader.error("LineTo before MoveTo") }
                for _ in 0..<count {
                    x &+= ProtobufWriter.unzigzag(UInt64(commands[i]))
                    y &+= ProtobufWriter.unzigzag(UInt64(commands[i + 1]))
                    i += 2
                    if command == 1 {
                        if started { rings.append(ring) }
                        ring = []
                        started = true
                    }
                    ring.append((x, y))
                }
            case 7:
                guard count == 1 else { throw ProtobufReader.error("ClosePath with count \(count)") }
                if let first = ring.first { ring.append(first) }
            default:
                throw ProtobufReader.error("unknown geometry command \(command)")
            }
        }
        if started { rings.append(ring) }
        return rings
    }
}
