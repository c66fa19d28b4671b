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
        var layer = LayerWriter(name: name, version: version, features: features.count)
        for f in features {
            layer.add(type: f.type, id: f.id, tags: f.tags) { commands in
                for run in f.geometry { run.withUnsafeBufferPointer { commands.run(type: f.type, $0) } }
            }
        }
        return layer.finish(extent: extent)
    }

    /// One layer, written a feature at a time (from `TileFeature`s, or straight from a tile's
    /// flat arrays), its key and value tables at the end.
    struct LayerWriter {
        private var layer = ProtobufWriter()
        private var keys: [String] = []
        private var keyIndex: [String: UInt32] = [:]
        private var values: ValueTable
        // Features of one source mostly have the same keys in the same order: their indexes
        // are looked up once per run of such features. A key enters the table with its first
        // value that is written (not null), as vt-pbf enters it.
        private static let unassigned = UInt32.max
        private var lastKeys: [String] = [], lastKeyIndexes: [UInt32] = []
        // Scratch reused by every feature.
        private var tags: [UInt32] = []
        private var commands = CommandWriter()
        private var feature = ProtobufWriter()

        /// `features`: about how many will be added (sizes the value table).
        init(name: String, version: Int, features: Int) {
            values = ValueTable(expected: features)
            layer.varintField(15, UInt64(max(1, version)))
            layer.stringField(1, name)
        }

        /// Adds a feature of `type` (1 points, 2 lines, 3 polygons) whose `geometry` writes its
        /// runs of x, y pairs, in tile coordinates, to the command writer it is given.
        mutating func add(
            type: UInt8, id: JSONValue?, tags object: JSONObject?, geometry: (inout CommandWriter) -> Void
        ) {
            feature.bytes.removeAll(keepingCapacity: true)
            if let id = id.flatMap(VectorTileEncoder.mvtID) { feature.varintField(1, id) }
            tags.removeAll(keepingCapacity: true)
            if let object {
                let objectKeys = object.keys
                if objectKeys != lastKeys {
                    lastKeys = objectKeys
                    lastKeyIndexes = objectKeys.map { keyIndex[$0] ?? Self.unassigned }
                }
                object.forEachMember { position, key, value in
                    guard let encoded = EncodedValue(value) else { return }
                    var k = lastKeyIndexes[position]
                    if k == Self.unassigned {
                        if let known = keyIndex[key] {
                            k = known
                        } else {
                            k = UInt32(truncatingIfNeeded: keys.count)
                            keyIndex[key] = k
                            keys.append(key)
                        }
                        lastKeyIndexes[position] = k
                    }
                    tags.append(k)
                    tags.append(values.index(of: encoded))
                }
            }
            if !tags.isEmpty { feature.packedUInt32Field(2, tags) }
            feature.varintField(3, UInt64(type))
            commands.reset()
            geometry(&commands)
            feature.packedUInt32Field(4, commands.out)
            layer.bytesField(2, feature.bytes)
        }

        /// The layer's tables and extent, and the tile holding the layer.
        mutating func finish(extent: Int) -> [UInt8] {
            for key in keys { layer.stringField(3, key) }
            for value in values.values { layer.bytesField(4, value.message) }
            layer.varintField(5, UInt64(max(1, extent)))
            var tile = ProtobufWriter()
            tile.bytesField(3, layer.bytes)
            return tile.bytes
        }
    }

    private static func mvtID(_ id: JSONValue) -> UInt64? {
        switch id {
        case .int(let v): return v >= 0 ? UInt64(v) : nil
        case .uint(let v): return v
        case .double(let d): return d >= 0 && d == d.rounded() && d < 18446744073709551616.0 ? UInt64(d) : nil
        default: return nil
        }
    }

    /// A layer's values, each once, in first-seen order. An open-addressing table on a seeded
    /// multiply-mix hash of each value's bytes: a tile of a million features looks values up
    /// five million times, and Dictionary's SipHash and lookups were a third of its encoding.
    /// Strings are equal when their UTF-8 is, as JavaScript strings are in vt-pbf's cache (not
    /// by canonical equivalence, as Swift's `==`). The seed is random per process, so input
    /// cannot choose values that collide.
    struct ValueTable {
        private(set) var values: [EncodedValue] = []
        private var hashes: [UInt64] = []
        /// Per slot: the value's index + 1 in the low half (0: empty), its hash's high half in
        /// the high half, so a probe reads one slot, not the value's hash elsewhere (a cache
        /// miss each on a table of millions). Kept at most half full.
        private var slots: [UInt64]

        private static let seed = UInt64.random(in: 0...UInt64.max)

        init(expected: Int) {
            var size = 16
            while size < 2 * min(expected, 1 << 16) { size <<= 1 }
            slots = Array(repeating: 0, count: size)
        }

        @inline(__always) private static func slot(_ k: Int, _ h: UInt64) -> UInt64 {
            h & 0xFFFF_FFFF_0000_0000 | UInt64(truncatingIfNeeded: k + 1) & 0xFFFF_FFFF
        }

        mutating func index(of value: EncodedValue) -> UInt32 {
            let h = Self.hash(value)
            let tag = h & 0xFFFF_FFFF_0000_0000
            let mask = slots.count - 1
            var i = Int(truncatingIfNeeded: h) & mask
            while true {
                let slot = slots[i]
                if slot == 0 { break }
                if slot & 0xFFFF_FFFF_0000_0000 == tag {
                    let k = Int(slot & 0xFFFF_FFFF) - 1
                    if Self.same(values[k], value) { return UInt32(truncatingIfNeeded: k) }
                }
                i = (i + 1) & mask
            }
            let k = values.count
            values.append(value)
            hashes.append(h)
            slots[i] = Self.slot(k, h)
            if 2 * values.count > slots.count { grow() }
            return UInt32(truncatingIfNeeded: k)
        }

        /// Twice the slots, refilled from the kept hashes.
        private mutating func grow() {
            var bigger = [UInt64](repeating: 0, count: 2 * slots.count)
            let mask = bigger.count - 1
            for (k, h) in hashes.enumerated() {
                var i = Int(truncatingIfNeeded: h) & mask
                while bigger[i] != 0 { i = (i + 1) & mask }
                bigger[i] = Self.slot(k, h)
            }
            slots = bigger
        }

        private static func same(_ a: EncodedValue, _ b: EncodedValue) -> Bool {
            if case .string(let x) = a, case .string(let y) = b { return x.utf8.elementsEqual(y.utf8) }
            return a == b
        }

        @inline(__always) private static func mix(_ a: UInt64, _ b: UInt64) -> UInt64 {
            let p = a.multipliedFullWidth(by: b)
            return p.high ^ p.low
        }

        static func hash(_ value: EncodedValue) -> UInt64 {
            let k0: UInt64 = 0xa076_1d64_78bd_642f, k1: UInt64 = 0xe703_7ed1_a0b4_28db
            switch value {
            case .string(var s):
                return s.withUTF8 { bytes in
                    var h = mix(seed ^ k0, UInt64(bytes.count) ^ k1)
                    var i = 0
                    while i + 8 <= bytes.count {
                        let word = UnsafeRawBufferPointer(bytes).loadUnaligned(fromByteOffset: i, as: UInt64.self)
                        h = mix(word ^ k0, h ^ k1)
                        i += 8
                    }
                    var tail: UInt64 = 0
                    var shift: UInt64 = 0
                    while i < bytes.count {
                        tail |= UInt64(bytes[i]) << shift
                        shift += 8
                        i += 1
                    }
                    return mix(tail ^ k0, h ^ k1)
                }
            case .double(let bits): return mix(bits ^ k0, seed ^ 3)
            case .uint(let v): return mix(v ^ k0, seed ^ 5)
            case .sint(let v): return mix(UInt64(bitPattern: v) ^ k0, seed ^ 6)
            case .bool(let b): return mix((b ? 1 : 0) ^ k0, seed ^ 7)
            }
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
        var writer = CommandWriter()
        for run in f.geometry { run.withUnsafeBufferPointer { writer.run(type: f.type, $0) } }
        return writer.out
    }

    /// A feature's geometry commands, a run (a feature's points, a line or a ring: x, y pairs)
    /// at a time, the cursor carried from run to run.
    struct CommandWriter {
        private(set) var out: [UInt32] = []
        private var cx: Int64 = 0, cy: Int64 = 0

        /// Empties it for the next feature (keeping its buffer).
        mutating func reset() {
            out.removeAll(keepingCapacity: true)
            cx = 0
            cy = 0
        }

        mutating func run<C: TileCoordinate>(type: UInt8, _ r: UnsafeBufferPointer<C>) {
            let n = r.count / 2
            switch type {
            case 1:
                positions(1, r, 0..<n)
            case 2:
                guard n >= 1 else { return }
                positions(1, r, 0..<1)
                positions(2, r, 1..<n)
            default:
                guard n >= 2 else { return }
                positions(1, r, 0..<1)
                positions(2, r, 1..<(n - 1))
                out.append(command(7, 1))
            }
        }

        @inline(__always) private func command(_ id: UInt32, _ count: Int) -> UInt32 {
            id | UInt32(truncatingIfNeeded: count) << 3
        }

        /// A command's count has 29 bits: longer runs take several commands.
        private mutating func positions<C: TileCoordinate>(
            _ id: UInt32, _ r: UnsafeBufferPointer<C>, _ range: Range<Int>
        ) {
            let maxCount = (1 << 29) - 1
            var start = range.lowerBound
            while start < range.upperBound {
                let end = min(range.upperBound, start + maxCount)
                out.append(command(id, end - start))
                for i in start..<end {
                    let x = r[2 * i].mvtCoordinate, y = r[2 * i + 1].mvtCoordinate
                    out.append(UInt32(truncatingIfNeeded: ProtobufWriter.zigzag(x &- cx)))
                    out.append(UInt32(truncatingIfNeeded: ProtobufWriter.zigzag(y &- cy)))
                    cx = x
                    cy = y
                }
                start = end
            }
        }
    }
}

/// A tile coordinate as the geometry writer reads it: a Double (a `TileFeature`'s), or an Int16
/// or Int32 (a written tile's, already integral).
protocol TileCoordinate {
    /// The sint32 an MVT holds.
    var mvtCoordinate: Int64 { get }
}

extension Double: TileCoordinate {
    /// Rounded (already integral in tiles); far-off ones clamped, a NaN 0.
    @inline(__always) var mvtCoordinate: Int64 {
        guard isFinite else { return 0 }
        return Int64(max(Double(Int32.min), min(Double(Int32.max), rounded())))
    }
}

extension Int32: TileCoordinate {
    @inline(__always) var mvtCoordinate: Int64 { Int64(self) }
}

extension Int16: TileCoordinate {
    @inline(__always) var mvtCoordinate: Int64 { Int64(self) }
}
