// VectorTile: tile features written as a Mapbox Vector Tile 2.1 layer, as vt-pbf writes
// geojson-vt's tiles: keys and values shared per layer in first-seen order, null properties left
// out, objects and arrays as their JSON text, integers as uint/sint and other numbers as double.

public enum VectorTileEncoder {
    /// One layer named `name` holding `features` (tile coordinates of a tile `extent` wide).
    /// MVT ids are uint64: a feature id that is a non-negative integer is written, others are
    /// left out. Coordinates are clamped to the sint32 range a tile can hold. `version` is the
    /// layer's MVT version (2; 1 asks MapLibre Native to fix polygons up, see
    /// `TilingOptions.Compatibility`).
    public static func encode(layer name: String, extent: Int, features: [TileFeature], version: Int = 2) -> [UInt8] {
        var layer = ProtobufWriter()
        layer.varintField(15, UInt64(max(1, version)))
        layer.stringField(1, name)
        var keys: [String] = []
        var keyIndex: [String: UInt32] = [:]
        var values: [EncodedValue] = []
        var valueIndex: [EncodedValue: UInt32] = [:]
        for f in features {
            var feature = ProtobufWriter()
            if let id = f.id.flatMap(mvtID) { feature.varintField(1, id) }
            var tags: [UInt32] = []
            for (key, value) in f.tags ?? JSONObject() {
                guard let encoded = EncodedValue(value) else { continue }
                let k: UInt32
                if let known = keyIndex[key] {
                    k = known
                } else {
                    k = UInt32(truncatingIfNeeded: keys.count)
                    keyIndex[key] = k
                    keys.append(key)
                }
                let v: UInt32
                if let known = valueIndex[encoded] {
                    v = known
                } else {
                    v = UInt32(truncatingIfNeeded: values.count)
                    valueIndex[encoded] = v
                    values.append(encoded)
                }
                tags.append(k)
                tags.append(v)
            }
            if !tags.isEmpty { feature.packedUInt32Field(2, tags) }
            feature.varintField(3, UInt64(f.type))
            feature.packedUInt32Field(4, commands(f))
            layer.bytesField(2, feature.bytes)
        }
        for key in keys { layer.stringField(3, key) }
        for value in values { layer.bytesField(4, value.message) }
        layer.varintField(5, UInt64(max(1, extent)))
        var tile = ProtobufWriter()
        tile.bytesField(3, layer.bytes)
        return tile.bytes
    }

    private static func mvtID(_ id: JSONValue) -> UInt64? {
        switch id {
        case .int(let v): return v >= 0 ? UInt64(v) : nil
        case .uint(let v): return v
        case .double(let d): return d >= 0 && d == d.rounded() && d < 18446744073709551616.0 ? UInt64(d) : nil
        default: return nil
        }
    }

    /// A property value as it is written (so 1 and 1.0 share one entry, as they do in vt-pbf).
    enum EncodedValue: Hashable {
        case string(String)
        case double(UInt64)
        case uint(UInt64)
        case sint(Int64)
        case bool(Bool)

        init?(_ value: JSONValue) {
            switch value {
            case .null: return nil
            case .string(let s): self = .string(s)
            case .bool(let b): self = .bool(b)
            case .int(let v): self = v >= 0 ? .uint(UInt64(v)) : .sint(v)
            case .uint(let v): self = .uint(v)
            case .double(let d):
                if d == d.rounded() && d >= 0 && d < 18446744073709551616.0 {
                    self = .uint(UInt64(d))
                } else if d == d.rounded() && d < 0 && d >= -9223372036854775808.0 {
                    self = .sint(Int64(d))
                } else {
                    self = .double(d.bitPattern)
                }
            case .array, .object:
                var w = JSONWriter()
                w.writeValue(value)
                self = .string(w.string)
            }
        }

        var message: [UInt8] {
            var w = ProtobufWriter()
            switch self {
            case .string(let s): w.stringField(1, s)
            case .double(let bits): w.doubleField(3, Double(bitPattern: bits))
            case .uint(let v): w.varintField(5, v)
            case .sint(let v): w.varintField(6, ProtobufWriter.zigzag(v))
            case .bool(let b): w.varintField(7, b ? 1 : 0)
            }
            return w.bytes
        }
    }

    /// MoveTo/LineTo/ClosePath with zigzag deltas. Points: one MoveTo for all. Lines: MoveTo the
    /// first position, LineTo the rest. Rings: the closing position is not written; ClosePath is.
    static func commands(_ f: TileFeature) -> [UInt32] {
        var out: [UInt32] = []
        var cx: Int64 = 0, cy: Int64 = 0
        func command(_ id: UInt32, _ count: Int) -> UInt32 { id | UInt32(truncatingIfNeeded: count) << 3 }
        func position(_ run: [Double], _ i: Int) {
            let x = coordinate(run[2 * i]), y = coordinate(run[2 * i + 1])
            out.append(UInt32(truncatingIfNeeded: ProtobufWriter.zigzag(x &- cx)))
            out.append(UInt32(truncatingIfNeeded: ProtobufWriter.zigzag(y &- cy)))
            cx = x
            cy = y
        }
        // A command's count has 29 bits.
        let maxCount = (1 << 29) - 1
        func run(_ id: UInt32, _ run: [Double], _ range: Range<Int>) {
            var start = range.lowerBound
            while start < range.upperBound {
                let end = min(range.upperBound, start + maxCount)
                out.append(command(id, end - start))
                for i in start..<end { position(run, i) }
                start = end
            }
        }
        switch f.type {
        case 1:
            for r in f.geometry { run(1, r, 0..<(r.count / 2)) }
        case 2:
            for r in f.geometry where r.count >= 2 {
                run(1, r, 0..<1)
                run(2, r, 1..<(r.count / 2))
            }
        default:
            for r in f.geometry where r.count >= 4 {
                let n = r.count / 2 - 1
                run(1, r, 0..<1)
                run(2, r, 1..<n)
                out.append(command(7, 1))
            }
        }
        return out
    }

    /// A tile coordinate as the sint32 an MVT holds (already integral; far-off ones clamped).
    private static func coordinate(_ d: Double) -> Int64 {
        guard d.isFinite else { return 0 }
        return Int64(max(Double(Int32.min), min(Double(Int32.max), d.rounded())))
    }
}
