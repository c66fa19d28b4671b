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
    /// Per key number k: the key as a layer's keys table holds it (its field 3), at
    /// `keyFields[keyStarts[k]..<keyStarts[k + 1]]`.
    private var keyFields: [UInt8] = []
    private var keyStarts: [Int] = [0]
    /// Scratch of `layer`, kept from tile to tile: the keys and shared values met in the tile,
    /// and where each feature's entry starts (let go after a tile of more than `keptAtMost`).
    private var tileKeys: [Int] = [], tileShared: [Int] = [], at: [Int] = []
    private static let keptAtMost = 1 << 16
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
        if interned < starts.count {
            for ref in refs where ref >= 0 && Int(ref) < starts.count && starts[Int(ref)] < 0 {
                starts[Int(ref)] = intern(ref, inputs)
                interned += 1
                if interned == starts.count { letInterningTablesGo() }
            }
        }
        let n = refs.count
        // The per-tile tables are moved out while they are written through pointers (and put
        // back after), so no access to them goes through `self`. Swapped, not copied: a copy is
        // a retain and a release each, and a copy of the kept `at` left it shared, so emptying it
        // for this tile made new storage instead of reusing it.
        var at: [Int] = [], inTile: [UInt64] = [], keyInTile: [UInt32] = [], valueInTile: [UInt32] = []
        var tileKeys: [Int] = [], tileShared: [Int] = []
        exchangeScratch(&at, &inTile, &keyInTile, &valueInTile, &tileKeys, &tileShared)
        defer {
            tileKeys.removeAll(keepingCapacity: true)
            tileShared.removeAll(keepingCapacity: true)
            if at.capacity > Self.keptAtMost { at = [] }
            exchangeScratch(&at, &inTile, &keyInTile, &valueInTile, &tileKeys, &tileShared)
        }
        // Per feature, where its entry starts (-1: none); kept from tile to tile unless big.
        at.removeAll(keepingCapacity: true)
        at.append(contentsOf: repeatElement(-1, count: n))
        var twice: [Int] = []
        starts.withUnsafeBufferPointer { starts in
            inTile.withUnsafeMutableBufferPointer { inTile in
                at.withUnsafeMutableBufferPointer { at in
                    for i in 0..<n {
                        if i + 16 < n {
                            let next = Int(refs[i + 16])
                            if next >= 0, next < starts.count, let base = starts.baseAddress {
                                mc_prefetch(base + next)
                            }
                        }
                        let r = Int(refs[i])
                        guard r >= 0, r < starts.count else { continue }
                        at[i] = starts[r]
                        if inTile[r >> 6] & 1 << (r & 63) != 0 { twice.append(r) }
                        inTile[r >> 6] |= 1 << (r & 63)
                    }
                    for ref in refs where ref >= 0 && Int(ref) < starts.count { inTile[Int(ref) >> 6] = 0 }
                    // From here on, `inTile` marks the features in the tile twice (a bit is cheaper
                    // to test than a set; big tiles at low zooms hold the wrapped copies).
                    for r in twice { inTile[r >> 6] |= 1 << (r & 63) }
                }
            }
        }

        var heads = RawBytes(capacity: 24 * n)
        var values = RawBytes(capacity: 16 * n)
        var ends = [Int](repeating: 0, count: n)
        var tileValues: UInt32 = 0
        // A feature in the tile twice numbers its once-used values by where their message is
        // (they have no shared number).
        var onceInTile: [Int: UInt32] = [:]
        var entries: [UInt32] = [], sharedBytes: [UInt8] = [], sharedStarts: [Int] = []
        swap(&entries, &self.entries)
        swap(&sharedBytes, &self.sharedBytes)
        swap(&sharedStarts, &self.sharedStarts)
        defer {
            swap(&entries, &self.entries)
            swap(&sharedBytes, &self.sharedBytes)
            swap(&sharedStarts, &self.sharedStarts)
        }
        // A deep tile's features are scattered through the entries (input order), so each entry
        // is a cache miss; they are asked for `ahead` features early, to overlap.
        let ahead = 8
        let anyTwice = !twice.isEmpty
        entries.withUnsafeBufferPointer { e in
            sharedBytes.withUnsafeBytes { shared in
                keyInTile.withUnsafeMutableBufferPointer { keyInTile in
                    valueInTile.withUnsafeMutableBufferPointer { valueInTile in
                        inTile.withUnsafeBufferPointer { inTile in
                            ends.withUnsafeMutableBufferPointer { ends in
                                at.withUnsafeBufferPointer { at in
                                    let bytes = UnsafeRawBufferPointer(e)
                                    for i in 0..<n {
                                        if i + ahead < n, at[i + ahead] >= 0, let base = e.baseAddress {
                                            let next = base + at[i + ahead]
                                            mc_prefetch(next)
                                            mc_prefetch(UnsafeRawPointer(next) + 64)
                                        }
                                        var p = at[i]
                                        guard p >= 0 else {
                                            ends[i] = heads.count
                                            continue
                                        }
                                        let head = e[p]
                                        p += 1
                                        let tagCount = Int(head >> 1)
                                        let r = Int(refs[i])
                                        let once = !anyTwice || inTile[r >> 6] & 1 << (r & 63) == 0
                                        // The id's field, the tags' key and length, and two varints of
                                        // at most 5 bytes a tag.
                                        var w = heads.room(17 + 10 * tagCount)
                                        if head & 1 != 0 {
                                            w = RawBytes.byte(0x08, at: w)
                                            w = RawBytes.varint(UInt64(e[p]) | UInt64(e[p + 1]) << 32, at: w)
                                            p += 2
                                        }
                                        if tagCount > 0 {
                                            w = RawBytes.byte(0x12, at: w)
                                            // Up to 12 tags take at most 120 bytes: a one-byte length.
                                            let lengthAt = w
                                            w += tagCount <= 12 ? 1 : 5
                                            let tagsAt = w
                                            for _ in 0..<tagCount {
                                                let word = e[p], value = Int(e[p + 1]), tagAt = p
                                                let key = Int(word >> 2)
                                                var k = keyInTile[key]
                                                if k == 0 {
                                                    tileKeys.append(key)
                                                    k = UInt32(truncatingIfNeeded: tileKeys.count)
                                                    keyInTile[key] = k
                                                }
                                                w = RawBytes.varint(UInt64(k - 1), at: w)
                                                var message: UnsafeRawBufferPointer?
                                                if word & 2 != 0 {
                                                    let written = Self.message(e, bytes, at: p)
                                                    message = written.bytes
                                                    p += written.words
                                                } else {
                                                    p += 2
                                                }
                                                if word & 1 != 0, let message {
                                                    // Used once: new in this tile, and met once
                                                    // (unless its feature is in the tile twice).
                                                    if !once, let v = onceInTile[tagAt] {
                                                        w = RawBytes.varint(UInt64(v), at: w)
                                                        continue
                                                    }
                                                    if !once { onceInTile[tagAt] = tileValues }
                                                    Self.writeValue(message, to: &values)
                                                    w = RawBytes.varint(UInt64(tileValues), at: w)
                                                    tileValues += 1
                                                    continue
                                                }
                                                var v = valueInTile[value]
                                                if v == 0 {
                                                    Self.writeValue(
                                                        message
                                                            ?? UnsafeRawBufferPointer(
                                                                rebasing: shared[
                                                                    sharedStarts[value]..<sharedStarts[value + 1]]),
                                                        to: &values)
                                                    tileShared.append(value)
                                                    tileValues += 1
                                                    v = tileValues
                                                    valueInTile[value] = v
                                                }
                                                w = RawBytes.varint(UInt64(v - 1), at: w)
                                            }
                                            let length = w - tagsAt
                                            let lengthEnd = RawBytes.varint(UInt64(length), at: lengthAt)
                                            if lengthEnd != tagsAt {
                                                // The two overlap: copyMemory is a memmove.
                                                lengthEnd.copyMemory(from: tagsAt, byteCount: length)
                                                w = lengthEnd + length
                                            }
                                        }
                                        heads.commit(w)
                                        ends[i] = heads.count
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        for r in twice { inTile[r >> 6] = 0 }
        var keysLength = 0
        for key in tileKeys {
            keysLength += keyStarts[key + 1] - keyStarts[key]
            keyInTile[key] = 0
        }
        var keysTable: [UInt8] = []
        keysTable.reserveCapacity(keysLength)
        for key in tileKeys { keysTable += keyFields[keyStarts[key]..<keyStarts[key + 1]] }
        for value in tileShared { valueInTile[value] = 0 }
        return LayerHeads(heads: heads, ends: ends, keys: keysTable, values: values)
    }

    /// Exchanges the per-tile scratch with `layer`'s locals (a second exchange puts it back).
    private mutating func exchangeScratch(
        _ at: inout [Int], _ inTile: inout [UInt64], _ keyInTile: inout [UInt32], _ valueInTile: inout [UInt32],
        _ tileKeys: inout [Int], _ tileShared: inout [Int]
    ) {
        swap(&at, &self.at)
        swap(&inTile, &self.inTile)
        swap(&keyInTile, &self.keyInTile)
        swap(&valueInTile, &self.valueInTile)
        swap(&tileKeys, &self.tileKeys)
        swap(&tileShared, &self.tileShared)
    }

    /// A value of the layer's table (its field 4) from its message.
    @inline(__always) private static func writeValue(_ message: UnsafeRawBufferPointer, to values: inout RawBytes) {
        var w = values.room(11 + message.count)
        w = RawBytes.byte(0x22, at: w)
        w = RawBytes.varint(UInt64(message.count), at: w)
        values.commit(RawBytes.copy(message, to: w))
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
        let k = UInt32(truncatingIfNeeded: keyStarts.count - 1)
        keyNumbers[key] = k
        var field = ProtobufWriter()
        field.stringField(3, key)
        keyFields += field.bytes
        keyStarts.append(keyFields.count)
        keyInTile.append(0)
        return k
    }
}

/// A tile's features' heads (their id and tags fields: feature k's end at `ends[k]`, its start
/// where k - 1's ends) and the layer tables they index, as the layer holds them: `keys` its
/// fields 3, `values` its fields 4.
struct LayerHeads: ~Copyable {
    var heads: RawBytes
    var ends: [Int]
    var keys: [UInt8]
    var values: RawBytes
}
