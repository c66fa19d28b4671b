// Tiling: the input features' ids and tags as vector tiles write them, interned once per index.
// Every tile of a drill-down writes each feature again (once per zoom), and looking its
// properties up, hashing and comparing each value in a per-tile table was most of encoding a
// property-heavy tile (1M points of five properties: 8 of 10 s over their z0-8 tiles). Interned,
// a feature's tags are a few numbers, and a tile's tables are made by numbers, not by values.

import CMapCoreKernels

/// The MVT ids and tags of a `TileInputs`' features, each feature interned the first time a
/// tile holding it is encoded: its id as MVT writes it and its non-null properties as
/// (key, value) numbers into tables of every key and value seen, values held as the messages
/// they are written as. A tile's layer tables are then those numbers renumbered in the tile's
/// first-seen order, which is what vt-pbf's per-layer tables give: the bytes are the same.
/// Thread safe: encoders on several threads share one (a lock around interning and
/// renumbering; the geometry is written outside it).
final class TileTags: @unchecked Sendable {
    private let lock = Lock()
    private var state = State()

    /// The heads (id and tags fields) of the features of inputs `refs`, in order, and the
    /// tables they index.
    func layer(_ refs: [Int32], inputs: TileInputs) -> LayerHeads {
        lock.withLock { state.layer(refs, inputs: inputs) }
    }
}

/// What a `TileTags` holds, a value its lock guards (so the loops below run on local storage,
/// without the class's per-access exclusivity checks and reference counting).
private struct State {
    /// Per input: where its entry starts in `entries`, or -1 until it is interned.
    private var starts: [Int] = []
    /// Per interned input: (tag count << 1 | has id); the id's low and high halves when it has
    /// one; then per tag: (key number << 2 | the value is written here << 1 | the value is used
    /// once so far), the value's shared number (once it is used twice), and, in the entry that
    /// met the value first, its message (its length in bytes, in one word or, from 2^31 bytes,
    /// two; then its bytes in words). Values used once (names, ids) are most of a big source's
    /// values: a tile numbers them without looking them up (each is new, and met once) and
    /// copies them from beside the tag (a value table elsewhere costs a cache miss or two per
    /// value).
    private var entries: [UInt32] = []
    /// Per value number: where in `entries` the first word of its first use (which holds its
    /// message) is. Needed only while inputs are interned.
    private var firstUse: [Int] = []
    /// The messages of the values used more than once, by shared number: value s is
    /// `sharedBytes[sharedStarts[s]..<sharedStarts[s + 1]]`. Numbered apart from all values, so
    /// that a tile's lookups of them stay in a few hot pages (of 1M points' 2.2M values, 0.2M
    /// are shared; the values' own numbers scattered each lookup over megabytes).
    private var sharedBytes: [UInt8] = []
    private var sharedStarts: [Int] = [0]
    private var keys: [String] = []
    /// How many inputs are interned. Once all are, the tables that intern more (about half the
    /// memory) are let go.
    private var interned = 0
    private var keyNumbers: [String: UInt32] = [:]
    private var values = VectorTileEncoder.ValueTable(expected: 0)
    /// The key numbers of the last object's keys (objects of one source mostly share theirs).
    private var lastKeys: [String] = [], lastKeyNumbers: [UInt32] = []
    /// Per key and shared number: its index + 1 in the tile being renumbered, 0 if not in it.
    /// Only entries set for that tile are set back to 0 after it.
    private var keyInTile: [UInt32] = [], valueInTile: [UInt32] = []
    /// Per input, a bit: whether it is in the tile being renumbered, then whether it is in it
    /// twice (all 0 between tiles).
    private var inTile: [UInt64] = []

    mutating func layer(_ refs: [Int32], inputs: TileInputs) -> LayerHeads {
        if starts.isEmpty {
            starts = Array(repeating: -1, count: inputs.count)
            inTile = Array(repeating: 0, count: (inputs.count + 63) / 64)
        }
        // Every feature is interned before any is renumbered, so a value marked as used once is
        // used by one feature of this tile, and once unless that feature is in the tile twice
        // (a copy wrapped across the antimeridian): those features are listed in `twice`.
        var at: [Int] = []
        at.reserveCapacity(refs.count)
        var twice = Set<Int32>()
        for (i, ref) in refs.enumerated() {
            if i + 16 < refs.count {
                let next = Int(refs[i + 16])
                starts.withUnsafeBufferPointer { s in
                    if next >= 0, next < s.count, let base = s.baseAddress { mc_prefetch(base + next) }
                }
            }
            guard ref >= 0, Int(ref) < starts.count else {
                at.append(-1)
                continue
            }
            let r = Int(ref)
            if starts[r] < 0 {
                starts[r] = intern(ref, inputs)
                interned += 1
                if interned == starts.count { letInterningTablesGo() }
            }
            at.append(starts[r])
            if inTile[r >> 6] & 1 << (r & 63) != 0 { twice.insert(ref) }
            inTile[r >> 6] |= 1 << (r & 63)
        }
        for ref in refs where ref >= 0 && Int(ref) < starts.count { inTile[Int(ref) >> 6] = 0 }
        // From here on, `inTile` marks the features in the tile twice (a bit is cheaper to test
        // than a set; big tiles at low zooms hold the wrapped copies).
        for ref in twice { inTile[Int(ref) >> 6] |= 1 << (Int(ref) & 63) }
        defer { for ref in twice { inTile[Int(ref) >> 6] = 0 } }

        var out = LayerHeads()
        out.ends.reserveCapacity(refs.count)
        out.heads.bytes.reserveCapacity(16 * refs.count)
        var tileKeys: [Int] = [], tileShared: [Int] = []
        var tileValues: UInt32 = 0
        var tags: [UInt32] = []
        // A feature in the tile twice numbers its once-used values by where their message is
        // (they have no shared number).
        var onceInTile: [Int: UInt32] = [:]
        let entries = self.entries, sharedBytes = self.sharedBytes, sharedStarts = self.sharedStarts
        entries.withUnsafeBufferPointer { e in
            sharedBytes.withUnsafeBytes { shared in
                let bytes = UnsafeRawBufferPointer(e)
                // A deep tile's features are scattered through the entries (input order), so each
                // entry is a cache miss; they are asked for `ahead` features early, to overlap.
                let ahead = 8
                for (i, var p) in at.enumerated() {
                    if i + ahead < at.count, at[i + ahead] >= 0, let base = e.baseAddress {
                        let next = base + at[i + ahead]
                        mc_prefetch(next)
                        mc_prefetch(UnsafeRawPointer(next) + 64)
                    }
                    guard p >= 0 else {
                        out.ends.append(out.heads.bytes.count)
                        continue
                    }
                    let head = e[p]
                    p += 1
                    let r = Int(refs[i])
                    let once = twice.isEmpty || inTile[r >> 6] & 1 << (r & 63) == 0
                    if head & 1 != 0 {
                        out.heads.varintField(1, UInt64(e[p]) | UInt64(e[p + 1]) << 32)
                        p += 2
                    }
                    tags.removeAll(keepingCapacity: true)
                    for _ in 0..<Int(head >> 1) {
                        let word = e[p], value = Int(e[p + 1]), tagAt = p
                        let key = Int(word >> 2)
                        var k = keyInTile[key]
                        if k == 0 {
                            tileKeys.append(key)
                            k = UInt32(truncatingIfNeeded: tileKeys.count)
                            keyInTile[key] = k
                        }
                        tags.append(k - 1)
                        var message: UnsafeRawBufferPointer?
                        if word & 2 != 0 {
                            let written = Self.message(e, bytes, at: p)
                            message = written.bytes
                            p += written.words
                        } else {
                            p += 2
                        }
                        if word & 1 != 0, let message {
                            // Used once: new in this tile, and met once (unless its feature is in
                            // the tile twice).
                            if once {
                                out.tables.values.bytesField(4, message)
                                tags.append(tileValues)
                                tileValues += 1
                            } else if let v = onceInTile[tagAt] {
                                tags.append(v)
                            } else {
                                out.tables.values.bytesField(4, message)
                                onceInTile[tagAt] = tileValues
                                tags.append(tileValues)
                                tileValues += 1
                            }
                            continue
                        }
                        var v = valueInTile[value]
                        if v == 0 {
                            out.tables.values.bytesField(
                                4,
                                message
                                    ?? UnsafeRawBufferPointer(
                                        rebasing: shared[sharedStarts[value]..<sharedStarts[value + 1]]))
                            tileShared.append(value)
                            tileValues += 1
                            v = tileValues
                            valueInTile[value] = v
                        }
                        tags.append(v - 1)
                    }
                    if !tags.isEmpty { out.heads.packedUInt32Field(2, tags) }
                    out.ends.append(out.heads.bytes.count)
                }
            }
        }
        for key in tileKeys {
            out.tables.keys.stringField(3, keys[key])
            keyInTile[key] = 0
        }
        for value in tileShared { valueInTile[value] = 0 }
        return out
    }

    /// The message of the tag whose first word is at `p` (where the value is written), and how
    /// many words that tag takes.
    @inline(__always)
    private static func message(
        _ e: UnsafeBufferPointer<UInt32>, _ bytes: UnsafeRawBufferPointer, at p: Int
    ) -> (bytes: UnsafeRawBufferPointer, words: Int) {
        var length = Int(e[p + 2]), first = p + 3
        if length & 1 << 31 != 0 {
            length = length & (1 << 31 - 1) | Int(e[p + 3]) << 31
            first += 1
        }
        return (UnsafeRawBufferPointer(rebasing: bytes[4 * first..<4 * first + length]), first - p + (length + 3) / 4)
    }

    private mutating func letInterningTablesGo() {
        values = VectorTileEncoder.ValueTable(expected: 0)
        firstUse = []
        keyNumbers = [:]
        lastKeys = []
        lastKeyNumbers = []
    }

    /// Input `ref`'s entry, appended; returns where it starts.
    private mutating func intern(_ ref: Int32, _ inputs: TileInputs) -> Int {
        let start = entries.count
        entries.append(0)
        var head: UInt32 = 0
        if let id = inputs.id(ref).flatMap(VectorTileEncoder.mvtID) {
            head = 1
            entries.append(UInt32(truncatingIfNeeded: id))
            entries.append(UInt32(truncatingIfNeeded: id >> 32))
        }
        var count: UInt32 = 0
        if let object = inputs.tags(ref) {
            let objectKeys = object.keys
            if objectKeys != lastKeys {
                lastKeys = objectKeys
                lastKeyNumbers = []
                for key in objectKeys { lastKeyNumbers.append(keyNumber(key)) }
            }
            object.forEachMember { position, _, value in
                // A count beyond 31 bits would need an object of billions of members.
                guard count < UInt32.max >> 1, let v = values.index(of: value) else { return }
                let key = lastKeyNumbers[position] << 2
                if Int(v) == firstUse.count {
                    firstUse.append(entries.count)
                    entries.append(key | 3)
                    entries.append(0)  // its shared number, if it comes to have one
                    values.withMessage(Int(v)) { message in
                        if message.count < 1 << 31 {
                            entries.append(UInt32(truncatingIfNeeded: message.count))
                        } else {
                            entries.append(UInt32(truncatingIfNeeded: message.count & (1 << 31 - 1)) | 1 << 31)
                            entries.append(UInt32(truncatingIfNeeded: message.count >> 31))
                        }
                        var word: UInt32 = 0
                        for (i, byte) in message.enumerated() {
                            word |= UInt32(byte) << (8 * UInt32(i & 3))
                            if i & 3 == 3 {
                                entries.append(word)
                                word = 0
                            }
                        }
                        if message.count & 3 != 0 { entries.append(word) }
                    }
                } else {
                    let first = firstUse[Int(v)]
                    if entries[first] & 1 != 0 {
                        // Met a second time: it is shared from now on.
                        entries[first] &= ~1
                        entries[first + 1] = UInt32(truncatingIfNeeded: valueInTile.count)
                        values.withMessage(Int(v)) { sharedBytes.append(contentsOf: $0) }
                        sharedStarts.append(sharedBytes.count)
                        valueInTile.append(0)
                    }
                    entries.append(key)
                    entries.append(entries[first + 1])
                }
                count += 1
            }
        }
        entries[start] = count << 1 | head
        return start
    }

    private mutating func keyNumber(_ key: String) -> UInt32 {
        if let known = keyNumbers[key] { return known }
        let k = UInt32(truncatingIfNeeded: keys.count)
        keyNumbers[key] = k
        keys.append(key)
        keyInTile.append(0)
        return k
    }
}

/// A tile's features' heads (their id and tags fields: feature k's end at `ends[k]`, its start
/// where k - 1's ends) and the layer tables they index.
struct LayerHeads {
    var heads = ProtobufWriter()
    var ends: [Int] = []
    var tables = VectorTileEncoder.LayerTables()

    /// The bytes of the heads and tables.
    var byteCount: Int { heads.bytes.count + tables.keys.bytes.count + tables.values.bytes.count }
}
