// VectorTile: tile features written as a Mapbox Vector Tile 2.1 layer, as vt-pbf writes
// geojson-vt's tiles: keys and values shared per layer in first-seen order, null properties left
// out, objects and arrays as their JSON text, integers as uint/sint and other numbers as double.

import Glibc

public enum VectorTileEncoder {
    /// One layer named `name` holding `features` (tile coordinates of a tile `extent` wide).
    /// MVT ids are uint64: a feature id that is a non-negative integer is written, others are
    /// left out. Coordinates are clamped to the sint32 range a tile can hold, and a step between
    /// two vertices is written as a sint32 (readers misread steps beyond it, as they refuse an
    /// extent beyond 2^31): a tile index's options are checked for both first
    /// (`TilingOptions.validateForMVT`); callers of this one keep within them. `version` is the
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

    /// One layer, written a feature at a time, its key and value tables (the features' ids and
    /// tags looked up here) at the end: for `TileFeature`s and tiles with line metrics. A tile of
    /// an index is written with the index's interned tags instead (`TileTags`, `FlatFeatures.mvt`).
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
        private var commands = CommandWriter(CommandWords())
        private var feature = ProtobufWriter()

        /// `features`: about how many will be added (sizes the value table).
        init(name: String, version: Int, features: Int) {
            values = ValueTable(expected: features)
            layer.bytes = Array(repeating: 0, count: Self.prefix)
            layer.varintField(15, UInt64(max(1, version)))
            layer.stringField(1, name)
        }

        /// Adds a feature of `type` (1 points, 2 lines, 3 polygons) whose `geometry` writes its
        /// runs of x, y pairs, in tile coordinates, to the command writer it is given.
        mutating func add(
            type: UInt8, id: JSONValue?, tags object: JSONObject?,
            geometry: (inout CommandWriter<CommandWords>) -> Void
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
                    guard let v = values.index(of: value) else { return }
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
                    tags.append(v)
                }
            }
            if !tags.isEmpty { feature.packedUInt32Field(2, tags) }
            let head = feature.bytes
            head.withUnsafeBytes { add(type: type, head: $0, geometry: geometry) }
        }

        /// Adds a feature whose id and tags fields are written already (`head`). The feature is
        /// written straight into the layer: its length is known once its geometry's commands are.
        private mutating func add(
            type: UInt8, head: UnsafeRawBufferPointer, geometry: (inout CommandWriter<CommandWords>) -> Void
        ) {
            commands.sink.words.removeAll(keepingCapacity: true)
            commands.restart()
            geometry(&commands)
            let geometryLength = ProtobufWriter.packedLength(commands.sink.words)
            // The type's field (a one-byte key and the type), the geometry's key (one byte) and
            // length, and the geometry.
            let length =
                UInt64(head.count) + 1 + ProtobufWriter.varintSize(UInt64(type)) + 1
                + ProtobufWriter.varintSize(geometryLength) + geometryLength
            layer.key(2, .bytes)
            layer.varint(length)
            layer.bytes.append(contentsOf: head)
            layer.varintField(3, UInt64(type))
            layer.packedUInt32Field(4, commands.sink.words, length: geometryLength)
        }

        /// The layer's tables (of the features whose tags were looked up here) and extent, and
        /// the tile holding the layer.
        mutating func finish(extent: Int) -> [UInt8] {
            for key in keys { layer.stringField(3, key) }
            values.forEachMessage { layer.bytesField(4, $0) }
            return finish(extent)
        }

        /// Room left at the start for the tile's field holding the layer (its key and length):
        /// written there at the end, the layer is not copied into a tile.
        private static let prefix = 6

        private mutating func finish(_ extent: Int) -> [UInt8] {
            layer.varintField(5, UInt64(max(1, extent)))
            var field = ProtobufWriter()
            field.key(3, .bytes)
            field.varint(UInt64(layer.bytes.count - Self.prefix))
            guard field.bytes.count <= Self.prefix else {
                // A layer of 32 GiB or more.
                field.bytes.append(contentsOf: layer.bytes[Self.prefix...])
                return field.bytes
            }
            let start = Self.prefix - field.bytes.count
            layer.bytes.replaceSubrange(start..<Self.prefix, with: field.bytes)
            layer.bytes.removeFirst(start)
            return layer.bytes
        }
    }

    /// An id as MVT holds it (uint64): a non-negative integer; other ids are left out.
    static func mvtID(_ id: JSONValue) -> UInt64? {
        switch id {
        case .int(let v): return v >= 0 ? UInt64(v) : nil
        case .uint(let v): return v
        case .double(let d): return d >= 0 && d == d.rounded() && d < 18446744073709551616.0 ? UInt64(d) : nil
        default: return nil
        }
    }

    /// Values, each once, in first-seen order, held as the Value messages they are written as:
    /// so 1 and 1.0 are one entry, as in vt-pbf, and strings are equal when their UTF-8 is, as
    /// JavaScript strings are in vt-pbf's cache (not by canonical equivalence, as Swift's `==`).
    /// An open-addressing table on a seeded multiply-mix hash of the message: a tile of a million
    /// features looks values up five million times, and Dictionary's SipHash and lookups were a
    /// third of its encoding. The seed is random per process, so input cannot choose values that
    /// collide.
    struct ValueTable {
        /// The messages one after another: value k ends at `ends[k]`, and starts where k - 1 ends.
        private var messages = ProtobufWriter()
        private var ends: [Int] = []
        /// Per slot: the value's index + 1 in the low half (0: empty), its hash's high half in
        /// the high half, so a probe reads one slot, not the value's hash elsewhere (a cache
        /// miss each on a table of millions). Kept at most half full.
        private var slots: [UInt64]

        private static let seed = UInt64.random(in: 0...UInt64.max)

        var count: Int { ends.count }

        init(expected: Int) {
            var size = 16
            while size < 2 * min(expected, 1 << 16) { size <<= 1 }
            slots = Array(repeating: 0, count: size)
        }

        @inline(__always) private static func slot(_ k: Int, _ h: UInt64) -> UInt64 {
            h & 0xFFFF_FFFF_0000_0000 | UInt64(truncatingIfNeeded: k + 1) & 0xFFFF_FFFF
        }

        /// `value`'s index, entered if it is new; nil for null, which is never written. The value
        /// is written at the end of the messages and taken off again if it is there already.
        mutating func index(of value: JSONValue) -> UInt32? {
            let start = messages.bytes.count
            guard messages.mvtValue(value) else { return nil }
            let end = messages.bytes.count
            let h = messages.bytes.withUnsafeBytes { Self.hash(UnsafeRawBufferPointer(rebasing: $0[start..<end])) }
            let tag = h & 0xFFFF_FFFF_0000_0000
            let mask = slots.count - 1
            var i = Int(truncatingIfNeeded: h) & mask
            while true {
                let slot = slots[i]
                if slot == 0 { break }
                if slot & 0xFFFF_FFFF_0000_0000 == tag {
                    let k = Int(slot & 0xFFFF_FFFF) - 1
                    if same(k, start..<end) {
                        messages.bytes.removeLast(end - start)
                        return UInt32(truncatingIfNeeded: k)
                    }
                }
                i = (i + 1) & mask
            }
            let k = ends.count
            ends.append(end)
            slots[i] = Self.slot(k, h)
            if 2 * ends.count > slots.count { grow() }
            return UInt32(truncatingIfNeeded: k)
        }

        /// Whether value `k`'s message is the bytes at `range`.
        private func same(_ k: Int, _ range: Range<Int>) -> Bool {
            let from = k == 0 ? 0 : ends[k - 1]
            guard ends[k] - from == range.count else { return false }
            return messages.bytes.withUnsafeBytes { all in
                guard let base = all.baseAddress else { return true }
                return memcmp(base + from, base + range.lowerBound, range.count) == 0
            }
        }

        /// Value `k`'s message.
        func withMessage<R>(_ k: Int, _ body: (UnsafeRawBufferPointer) -> R) -> R {
            let from = k == 0 ? 0 : ends[k - 1]
            return messages.bytes.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[from..<ends[k]])) }
        }

        /// Each value's message, in order.
        func forEachMessage(_ body: (UnsafeRawBufferPointer) -> Void) {
            messages.bytes.withUnsafeBytes { all in
                var from = 0
                for end in ends {
                    body(UnsafeRawBufferPointer(rebasing: all[from..<end]))
                    from = end
                }
            }
        }

        /// Twice the slots, refilled by hashing the messages again (in order, so reading them
        /// is sequential; keeping each hash cost 8 bytes a value for a source's life).
        private mutating func grow() {
            var bigger = [UInt64](repeating: 0, count: 2 * slots.count)
            let mask = bigger.count - 1
            messages.bytes.withUnsafeBytes { all in
                var from = 0
                for (k, end) in ends.enumerated() {
                    let h = Self.hash(UnsafeRawBufferPointer(rebasing: all[from..<end]))
                    from = end
                    var i = Int(truncatingIfNeeded: h) & mask
                    while bigger[i] != 0 { i = (i + 1) & mask }
                    bigger[i] = Self.slot(k, h)
                }
            }
            slots = bigger
        }

        @inline(__always) private static func mix(_ a: UInt64, _ b: UInt64) -> UInt64 {
            let p = a.multipliedFullWidth(by: b)
            return p.high ^ p.low
        }

        static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
            let k0: UInt64 = 0xa076_1d64_78bd_642f, k1: UInt64 = 0xe703_7ed1_a0b4_28db
            var h = mix(seed ^ k0, UInt64(bytes.count) ^ k1)
            var i = 0
            while i + 8 <= bytes.count {
                h = mix(bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self) ^ k0, h ^ k1)
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
    }

    /// MoveTo/LineTo/ClosePath with zigzag deltas. Points: one MoveTo for all. Lines: MoveTo the
    /// first position, LineTo the rest. Rings: the closing position is not written; ClosePath is.
    static func commands(_ f: TileFeature) -> [UInt32] {
        var writer = CommandWriter(CommandWords())
        for run in f.geometry { run.withUnsafeBufferPointer { writer.run(type: f.type, $0) } }
        return writer.sink.words
    }

    /// A feature's geometry commands, a run (a feature's points, a line or a ring: x, y pairs)
    /// at a time, the cursor carried from run to run, each command word given to `sink`: the
    /// same words whether they are kept, counted or written.
    struct CommandWriter<Sink: CommandSink> {
        var sink: Sink
        private var cx: Int64 = 0, cy: Int64 = 0

        init(_ sink: Sink) { self.sink = sink }

        /// The next feature's cursor starts at (0, 0).
        mutating func restart() {
            cx = 0
            cy = 0
        }

        @inline(__always) mutating func run<C: TileCoordinate>(type: UInt8, _ r: UnsafeBufferPointer<C>) {
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
                sink.put(command(7, 1))
            }
        }

        @inline(__always) private func command(_ id: UInt32, _ count: Int) -> UInt32 {
            id | UInt32(truncatingIfNeeded: count) << 3
        }

        /// A command's count has 29 bits: longer runs take several commands.
        @inline(__always) private mutating func positions<C: TileCoordinate>(
            _ id: UInt32, _ r: UnsafeBufferPointer<C>, _ range: Range<Int>
        ) {
            let maxCount = (1 << 29) - 1
            var start = range.lowerBound
            while start < range.upperBound {
                let end = min(range.upperBound, start + maxCount)
                sink.put(command(id, end - start))
                for i in start..<end {
                    let x = r[2 * i].mvtCoordinate, y = r[2 * i + 1].mvtCoordinate
                    sink.put(UInt32(truncatingIfNeeded: ProtobufWriter.zigzag(x &- cx)))
                    sink.put(UInt32(truncatingIfNeeded: ProtobufWriter.zigzag(y &- cy)))
                    cx = x
                    cy = y
                }
                start = end
            }
        }
    }
}

/// Where a feature's geometry command words go (see `VectorTileEncoder.CommandWriter`).
protocol CommandSink {
    mutating func put(_ word: UInt32)
}

/// The words kept, to be packed once their length is known.
struct CommandWords: CommandSink {
    var words: [UInt32] = []
    @inline(__always) mutating func put(_ word: UInt32) { words.append(word) }
}

/// Only how many bytes the words take as packed varints.
struct CommandLength: CommandSink {
    var bytes = 0
    @inline(__always) mutating func put(_ word: UInt32) {
        bytes += Int(truncatingIfNeeded: ProtobufWriter.varintSize(UInt64(word)))
    }
}

/// The words written as packed varints at `at`, which moves on (room is the caller's: what a
/// `CommandLength` counted for the same feature).
struct CommandBytes: CommandSink {
    var at: UnsafeMutableRawPointer
    @inline(__always) mutating func put(_ word: UInt32) { at = RawBytes.varint(UInt64(word), at: at) }
}

extension ProtobufWriter {
    /// `value` as an MVT Value message (vt-pbf's choice of field); nothing and false for null.
    /// Integral numbers are uint or sint (so 1 and 1.0 are written alike), arrays and objects
    /// their JSON text.
    mutating func mvtValue(_ value: JSONValue) -> Bool {
        switch value {
        case .null: return false
        case .string(let s): stringField(1, s)
        case .bool(let b): varintField(7, b ? 1 : 0)
        case .int(let v): if v >= 0 { varintField(5, UInt64(v)) } else { varintField(6, Self.zigzag(v)) }
        case .uint(let v): varintField(5, v)
        case .double(let d):
            if d == d.rounded() && d >= 0 && d < 18446744073709551616.0 {
                varintField(5, UInt64(d))
            } else if d == d.rounded() && d < 0 && d >= -9223372036854775808.0 {
                varintField(6, Self.zigzag(Int64(d)))
            } else {
                doubleField(3, d)
            }
        case .array, .object:
            var w = JSONWriter()
            w.writeValue(value)
            stringField(1, w.string)
        }
        return true
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
