// Source: a data source's features in insertion order, as a persistent B-tree. A write copies
// only the path to what it changes (O(log n) nodes of at most 64 entries), so every earlier
// state stays whole for the readers that hold it and a one-feature write on a million features
// costs microseconds instead of a copy of the million.
//
// Each feature carries a sequence number handed out at insertion, ascending in insertion order:
// it is the key the tree is searched by (ids map to it), and it never changes while the feature
// stays. Nodes keep their counts (all and filtered), so positions (the web SDK's remove by
// index) are found in O(log n) too. Leaves keep the features in one array and the sequence
// numbers and filter results beside them, so the tree holds 8 bytes per feature more than a
// plain array of features.

/// One node; immutable once made, so readers share it without locks.
final class FeatureStoreNode: Sendable {
    /// Leaves: the features, their sequence numbers (ascending) and filter results.
    let features: [Feature]
    let seqs: [UInt64]
    let passes: [Bool]
    /// Branches: the children, all of one height.
    let children: [FeatureStoreNode]
    /// Features below, and of those the ones passing the filter.
    let count: Int
    let indexedCount: Int
    /// The largest sequence number below (the search key of this subtree).
    let lastSeq: UInt64

    init(features: [Feature], seqs: [UInt64], passes: [Bool]) {
        self.features = features
        self.seqs = seqs
        self.passes = passes
        children = []
        count = features.count
        indexedCount = passes.reduce(0) { $0 + ($1 ? 1 : 0) }
        lastSeq = seqs.last ?? 0
    }

    init(children: [FeatureStoreNode]) {
        features = []
        seqs = []
        passes = []
        self.children = children
        var n = 0
        var k = 0
        for c in children {
            n += c.count
            k += c.indexedCount
        }
        count = n
        indexedCount = k
        lastSeq = children.last?.lastSeq ?? 0
    }

    var isLeaf: Bool { children.isEmpty }
    /// Entries of a leaf, children of a branch.
    var width: Int { isLeaf ? features.count : children.count }
}

/// One stored feature as the store hands it out.
struct StoredFeature: Sendable {
    var seq: UInt64
    var feature: Feature
    /// Whether it passes the source filter (is indexed, clustered and tiled).
    var passes: Bool
}

struct FeatureStore: Sendable {
    typealias Node = FeatureStoreNode
    /// Entries per leaf and children per branch: a path copy is a few hundred words, and a leaf's
    /// features are one array a scan reads in order.
    static let capacity = 64
    /// A node with fewer is merged into a neighbour when both fit in one.
    static let mergeBelow = capacity / 4

    private(set) var root: Node?

    init() {}

    /// A tree of these features in this order, with sequence numbers from `firstSeq` on and
    /// their filter results (`passes[i]` for `features[i]`); leaves filled. Made leaf by leaf
    /// from the arrays, so a million features are never copied twice on the way in.
    init(_ features: [Feature], passes: [Bool], firstSeq: UInt64) {
        var level = Self.leaves(features, passes: passes, firstSeq: firstSeq, from: 0)
        while level.count > 1 {
            var next: [Node] = []
            next.reserveCapacity(level.count / Self.capacity + 1)
            var start = 0
            while start < level.count {
                let end = min(start + Self.capacity, level.count)
                next.append(Node(children: Array(level[start..<end])))
                start = end
            }
            level = next
        }
        root = level.first
    }

    /// Full leaves of `features[from...]` (the last one as full as what is left).
    private static func leaves(_ features: [Feature], passes: [Bool], firstSeq: UInt64, from: Int) -> [Node] {
        var out: [Node] = []
        out.reserveCapacity((features.count - from) / capacity + 1)
        var start = from
        while start < features.count {
            let end = min(start + capacity, features.count)
            out.append(
                Node(
                    features: Array(features[start..<end]),
                    seqs: (start..<end).map { firstSeq + UInt64($0) }, passes: Array(passes[start..<end])))
            start = end
        }
        return out
    }

    var count: Int { root?.count ?? 0 }
    var indexedCount: Int { root?.indexedCount ?? 0 }
    /// The largest sequence number held, 0 when empty.
    var lastSeq: UInt64 { root?.lastSeq ?? 0 }

    // MARK: reading

    /// The entry with this sequence number.
    func entry(seq: UInt64) -> StoredFeature? {
        var node = root
        while let n = node {
            if n.isLeaf {
                guard let i = Self.position(of: seq, in: n.seqs) else { return nil }
                return StoredFeature(seq: seq, feature: n.features[i], passes: n.passes[i])
            }
            guard let c = Self.child(for: seq, in: n) else { return nil }
            node = n.children[c]
        }
        return nil
    }

    /// The entry at an insertion-order position (0-based), counting every feature.
    func entry(at position: Int) -> StoredFeature? {
        guard var node = root, position >= 0, position < node.count else { return nil }
        var rest = position
        while !node.isLeaf {
            var next: Node? = nil
            for c in node.children {
                if rest < c.count {
                    next = c
                    break
                }
                rest -= c.count
            }
            guard let n = next else { return nil }
            node = n
        }
        guard rest < node.features.count else { return nil }
        return StoredFeature(seq: node.seqs[rest], feature: node.features[rest], passes: node.passes[rest])
    }

    /// Calls `body` with every entry in insertion order.
    func forEach(_ body: (StoredFeature) throws(MapCoreError) -> Void) throws(MapCoreError) {
        guard let root else { return }
        try Self.walk(root, body)
    }

    private static func walk(
        _ node: Node, _ body: (StoredFeature) throws(MapCoreError) -> Void
    ) throws(MapCoreError) {
        if node.isLeaf {
            for i in node.features.indices {
                try body(StoredFeature(seq: node.seqs[i], feature: node.features[i], passes: node.passes[i]))
            }
        } else {
            for c in node.children { try walk(c, body) }
        }
    }

    /// Every feature, in insertion order.
    var features: [Feature] { collect(onlyPassing: false) }
    /// The features that pass the filter, in insertion order.
    var indexedFeatures: [Feature] { collect(onlyPassing: true) }

    private func collect(onlyPassing: Bool) -> [Feature] {
        var out: [Feature] = []
        out.reserveCapacity(onlyPassing ? indexedCount : count)
        func add(_ node: Node) {
            if node.isLeaf {
                if !onlyPassing || node.indexedCount == node.count {
                    out.append(contentsOf: node.features)
                } else {
                    for i in node.features.indices where node.passes[i] { out.append(node.features[i]) }
                }
            } else {
                for c in node.children where !onlyPassing || c.indexedCount > 0 { add(c) }
            }
        }
        if let root { add(root) }
        return out
    }

    // MARK: writing (each copies the path it changes; other states keep the old nodes)

    /// Appends an entry whose sequence number is larger than every one held.
    mutating func append(_ e: StoredFeature) {
        guard let root else {
            self.root = Node(features: [e.feature], seqs: [e.seq], passes: [e.passes])
            return
        }
        let (node, overflow) = Self.appending(e, to: root)
        self.root = overflow.map { Node(children: [node, $0]) } ?? node
    }

    /// Appends features with sequence numbers from `firstSeq` on (above every one held) and their
    /// filter results: the last leaf is topped up, then whole leaves are attached, so leaves stay
    /// full and a large batch costs about as much as building it.
    mutating func append(_ features: [Feature], passes: [Bool], firstSeq: UInt64) {
        guard let root else {
            self = FeatureStore(features, passes: passes, firstSeq: firstSeq)
            return
        }
        var i = 0
        var room = Self.capacity - Self.lastLeaf(of: root).features.count
        while i < features.count, room > 0 {
            append(StoredFeature(seq: firstSeq + UInt64(i), feature: features[i], passes: passes[i]))
            i += 1
            room -= 1
        }
        guard i < features.count else { return }
        for leaf in Self.leaves(features, passes: passes, firstSeq: firstSeq, from: i) {
            if let r = self.root {
                let (node, overflow) = Self.attaching(leaf, to: r)
                self.root = overflow.map { Node(children: [node, $0]) } ?? node
            }
        }
    }

    /// Replaces the entry with this sequence number (its sequence number stays); false if absent.
    @discardableResult
    mutating func replace(seq: UInt64, with feature: Feature, passes: Bool) -> Bool {
        guard let root, let node = Self.replacing(seq, feature, passes, in: root) else { return false }
        self.root = node
        return true
    }

    /// Removes the entry with this sequence number and returns it; nil if absent.
    mutating func remove(seq: UInt64) -> StoredFeature? {
        guard let root, let (node, removed) = Self.removing(seq, from: root) else { return nil }
        var r = node
        while let n = r, !n.isLeaf, n.children.count == 1 { r = n.children[0] }
        self.root = r
        return removed
    }

    // MARK: node operations

    /// Index of `seq` in a leaf's ascending sequence numbers.
    private static func position(of seq: UInt64, in seqs: [UInt64]) -> Int? {
        var lo = 0
        var hi = seqs.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if seqs[mid] < seq { lo = mid + 1 } else { hi = mid }
        }
        return lo < seqs.count && seqs[lo] == seq ? lo : nil
    }

    /// The child of a branch whose range holds `seq`: the first whose last key is at least it.
    private static func child(for seq: UInt64, in node: Node) -> Int? {
        var lo = 0
        var hi = node.children.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if node.children[mid].lastSeq < seq { lo = mid + 1 } else { hi = mid }
        }
        return lo < node.children.count ? lo : nil
    }

    private static func lastLeaf(of node: Node) -> Node {
        var n = node
        while let last = n.children.last { n = last }
        return n
    }

    /// The node with `e` appended, and a new right sibling when it had no room.
    private static func appending(_ e: StoredFeature, to node: Node) -> (Node, Node?) {
        if node.isLeaf {
            if node.features.count < capacity {
                return (
                    Node(
                        features: node.features + [e.feature], seqs: node.seqs + [e.seq],
                        passes: node.passes + [e.passes]), nil
                )
            }
            return (node, Node(features: [e.feature], seqs: [e.seq], passes: [e.passes]))
        }
        guard let last = node.children.last else { return (node, nil) }
        let (child, overflow) = appending(e, to: last)
        return adopt(child, overflow, in: node)
    }

    /// The node with a whole leaf attached at its right end, and a new right sibling when full.
    private static func attaching(_ leaf: Node, to node: Node) -> (Node, Node?) {
        if node.isLeaf { return (node, leaf) }
        guard let last = node.children.last else { return (node, nil) }
        let (child, overflow) = attaching(leaf, to: last)
        return adopt(child, overflow, in: node)
    }

    /// A branch whose last child became `child` (plus `overflow`, a new sibling of it).
    private static func adopt(_ child: Node, _ overflow: Node?, in node: Node) -> (Node, Node?) {
        var children = node.children
        children[children.count - 1] = child
        guard let overflow else { return (Node(children: children), nil) }
        if children.count < capacity {
            children.append(overflow)
            return (Node(children: children), nil)
        }
        return (Node(children: children), Node(children: [overflow]))
    }

    private static func replacing(_ seq: UInt64, _ feature: Feature, _ passes: Bool, in node: Node) -> Node? {
        if node.isLeaf {
            guard let i = position(of: seq, in: node.seqs) else { return nil }
            var features = node.features
            var flags = node.passes
            features[i] = feature
            flags[i] = passes
            return Node(features: features, seqs: node.seqs, passes: flags)
        }
        guard let c = child(for: seq, in: node), let changed = replacing(seq, feature, passes, in: node.children[c])
        else { return nil }
        var children = node.children
        children[c] = changed
        return Node(children: children)
    }

    /// The node without `seq` (nil when nothing is left in it) and the removed entry; nil when
    /// `seq` is not below `node`.
    private static func removing(_ seq: UInt64, from node: Node) -> (Node?, StoredFeature)? {
        if node.isLeaf {
            guard let i = position(of: seq, in: node.seqs) else { return nil }
            let removed = StoredFeature(seq: seq, feature: node.features[i], passes: node.passes[i])
            guard node.features.count > 1 else { return (nil, removed) }
            var features = node.features
            var seqs = node.seqs
            var flags = node.passes
            features.remove(at: i)
            seqs.remove(at: i)
            flags.remove(at: i)
            return (Node(features: features, seqs: seqs, passes: flags), removed)
        }
        guard let c = child(for: seq, in: node), let (changed, removed) = removing(seq, from: node.children[c])
        else { return nil }
        var children = node.children
        if let changed {
            children[c] = changed
            mergeIfSmall(&children, at: c)
        } else {
            children.remove(at: c)
        }
        return (children.isEmpty ? nil : Node(children: children), removed)
    }

    /// Merges a child that fell below `mergeBelow` into a neighbour when the two fit in one
    /// node, so deletions do not leave a tree of near-empty leaves.
    private static func mergeIfSmall(_ children: inout [Node], at c: Int) {
        guard children[c].width < mergeBelow, children.count > 1 else { return }
        let left = c > 0 ? c - 1 : c
        let a = children[left]
        let b = children[left + 1]
        guard a.width + b.width <= capacity else { return }
        let merged =
            a.isLeaf
            ? Node(features: a.features + b.features, seqs: a.seqs + b.seqs, passes: a.passes + b.passes)
            : Node(children: a.children + b.children)
        children.replaceSubrange(left...(left + 1), with: [merged])
    }
}
