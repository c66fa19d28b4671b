// Source: what one state of a data source holds (the features in insertion order and the
// feature ids that find them), both persistent: a write changes its own copy in O(log n) and
// shares everything else with the state it came from.
import HashTreeCollections

/// The sequence numbers of the features with one id, ascending (ids may repeat in a source).
enum IDSlot: Sendable {
    case one(UInt64)
    case many([UInt64])

    var seqs: [UInt64] {
        switch self {
        case .one(let s): return [s]
        case .many(let list): return list
        }
    }

    init?(_ seqs: [UInt64]) {
        switch seqs.count {
        case 0: return nil
        case 1: self = .one(seqs[0])
        default: self = .many(seqs)
        }
    }
}

struct SourceState: Sendable {
    private(set) var store = FeatureStore()
    /// A persistent hash trie (swift-collections' CHAMP): an insert or removal copies one path.
    private(set) var ids = TreeDictionary<FeatureKey, IDSlot>()
    /// The next sequence number, above every one ever handed out.
    private var nextSeq: UInt64 = 1

    init() {}

    /// A state of these features in this order, `passes[i]` the filter result of `features[i]`.
    init(_ features: [Feature], passes: [Bool]) {
        append(features, passes: passes)
    }

    var count: Int { store.count }

    func seqs(of key: FeatureKey) -> [UInt64] { ids[key]?.seqs ?? [] }

    func first(withID key: FeatureKey) -> Feature? {
        guard let seq = seqs(of: key).first else { return nil }
        return store.entry(seq: seq)?.feature
    }

    /// Appends features after every one held, `passes[i]` the filter result of `features[i]`.
    mutating func append(_ features: [Feature], passes: [Bool]) {
        for (i, f) in features.enumerated() {
            if let id = f.id { link(FeatureKey(id), nextSeq + UInt64(i)) }
        }
        store.append(features, passes: passes, firstSeq: nextSeq)
        nextSeq += UInt64(features.count)
    }

    /// Removes every feature with this id but the one with sequence number `kept`; returns them.
    mutating func removeOthers(withID key: FeatureKey, keeping kept: UInt64) -> [StoredFeature] {
        let others = seqs(of: key).filter { $0 != kept }
        guard !others.isEmpty else { return [] }
        ids[key] = .one(kept)
        return others.compactMap { store.remove(seq: $0) }
    }

    /// Removes every feature with this id (the id dropped once); returns them.
    mutating func removeAll(withID key: FeatureKey) -> [StoredFeature] {
        let seqs = self.seqs(of: key)
        ids[key] = nil
        return seqs.compactMap { store.remove(seq: $0) }
    }

    /// Removes the feature with this sequence number; returns it.
    @discardableResult
    mutating func remove(seq: UInt64) -> StoredFeature? {
        guard let removed = store.remove(seq: seq) else { return nil }
        if let id = removed.feature.id { unlink(FeatureKey(id), seq) }
        return removed
    }

    /// Removes the feature at an insertion-order position; returns it.
    mutating func remove(at position: Int) -> StoredFeature? {
        guard let e = store.entry(at: position) else { return nil }
        return remove(seq: e.seq)
    }

    /// Puts `feature` in the place of the feature with this sequence number (its position stays);
    /// returns the feature it replaced.
    @discardableResult
    mutating func replace(seq: UInt64, with feature: Feature, passes: Bool) -> StoredFeature? {
        guard let old = store.entry(seq: seq) else { return nil }
        store.replace(seq: seq, with: feature, passes: passes)
        let oldKey = old.feature.id.map(FeatureKey.init)
        let newKey = feature.id.map(FeatureKey.init)
        if oldKey != newKey {
            if let oldKey { unlink(oldKey, seq) }
            if let newKey { link(newKey, seq) }
        }
        return old
    }

    /// Every feature with its filter result, in insertion order.
    func forEach(_ body: (StoredFeature) throws(MapCoreError) -> Void) throws(MapCoreError) {
        try store.forEach(body)
    }

    /// Adds a sequence number under an id; the list stays ascending. An append to a list this
    /// write already copied happens in place (the slot is emptied first so the list is the only
    /// reference), so a batch of n features sharing an id costs O(n), not O(n²).
    private mutating func link(_ key: FeatureKey, _ seq: UInt64) {
        guard var list = ids[key]?.seqs else {
            ids[key] = .one(seq)
            return
        }
        ids[key] = .one(0)
        if let last = list.last, last < seq {
            list.append(seq)  // appended features: the usual case
        } else {
            // A replacement can bring an older feature under this id.
            list.insert(seq, at: list.firstIndex { $0 > seq } ?? list.count)
        }
        ids[key] = .many(list)
    }

    private mutating func unlink(_ key: FeatureKey, _ seq: UInt64) {
        guard let slot = ids[key] else { return }
        ids[key] = IDSlot(slot.seqs.filter { $0 != seq })
    }
}
