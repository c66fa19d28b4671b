// Index: a static 2-D KD tree with the exact construction and traversal order of
// mourner/kdbush 4, so that supercluster's level order, cluster ids and result order come out the
// same. Coordinates are Float32 as in kdbush's Float32Array; queries compare in Double, as
// JavaScript reads Float32Array elements as doubles.

import CMapCoreKernels
import Glibc

/// A level's report ranks by level index (`KDBush.placeLevelRefs`): allocated by the thread that
/// submits the level and filled by the one that completes its tree.
final class LevelRanks: @unchecked Sendable {
    let base: UnsafeMutablePointer<Int32>
    let count: Int

    /// Room for `count` ranks; `placeLevelRefs` initialises them (so the pages are first
    /// touched by the thread that fills them).
    init(count: Int) {
        self.count = max(0, count)
        base = .allocate(capacity: self.count)
    }

    deinit {
        base.deinitialize(count: count)
        base.deallocate()
    }

    /// The rank of level index `i`, or Int32.max outside the level.
    subscript(i: Int) -> Int32 { i >= 0 && i < count ? base[i] : Int32.max }
}

/// A tree's arrays: allocated once at their final size and never moved, so that builders on
/// several threads can work on disjoint ranges through raw pointers.
final class KDStorage: @unchecked Sendable {
    /// The caller's item references, permuted into tree order.
    let refs: UnsafeMutablePointer<Int32>
    /// Interleaved x, y of each entry of `refs`, until `releaseCoords`: a tree whose owner can
    /// tell an item's position from its ref keeps only the refs (a third of the memory).
    private(set) var coords: UnsafeMutablePointer<Float>?
    let count: Int
    /// The smallest box holding every position (set by `fill`): the region of the root node.
    private(set) var bounds = KDBox.empty

    /// `refs` and their positions (`xy` interleaved, at least one pair per ref), in input order.
    convenience init<Refs: Collection<Int32>>(refs: Refs, xy: ContiguousArray<Float>) {
        self.init(count: min(refs.count, xy.count / 2))
        fill(refs: refs, xy: xy)
    }

    /// Room for `count` entries, to be filled (`fill`) before anything reads them.
    init(count: Int) {
        self.count = max(0, count)
        refs = .allocate(capacity: self.count)
        coords = .allocate(capacity: 2 * self.count)
    }

    /// Puts the first `count` refs and their positions in, in input order.
    func fill<Refs: Collection<Int32>>(refs: Refs, xy: ContiguousArray<Float>) {
        var slot = 0
        for ref in refs.prefix(count) {
            self.refs.advanced(by: slot).initialize(to: ref)
            slot += 1
        }
        self.refs.advanced(by: slot).initialize(repeating: 0, count: count - slot)
        guard let coords else { return }
        xy.withUnsafeBufferPointer { xy in
            let filled = min(2 * count, xy.count)
            if let base = xy.baseAddress { coords.initialize(from: base, count: filled) }
            coords.advanced(by: filled).initialize(repeating: 0, count: 2 * count - filled)
        }
        var box = KDBox.empty
        for i in 0..<count { box.add(coords[2 * i], coords[2 * i + 1]) }
        bounds = box
    }

    /// Frees the positions once the tree is sorted; queries then take them from the owner.
    func releaseCoords() {
        guard let coords else { return }
        coords.deinitialize(count: 2 * count)
        coords.deallocate()
        self.coords = nil
    }

    deinit {
        refs.deinitialize(count: count)
        refs.deallocate()
        releaseCoords()
    }
}

/// A box of tree positions (inclusive): a node's region, bounded by its ancestors' middle items.
struct KDBox {
    var minX: Float, minY: Float, maxX: Float, maxY: Float
    static let empty = KDBox(minX: .infinity, minY: .infinity, maxX: -.infinity, maxY: -.infinity)

    @inline(__always) mutating func add(_ x: Float, _ y: Float) {
        minX = min(minX, x); minY = min(minY, y)
        maxX = max(maxX, x); maxY = max(maxY, y)
    }

    /// Whether every position of the box lies in minX...maxX × minY...maxY.
    @inline(__always) func isInside(minX: Double, minY: Double, maxX: Double, maxY: Double) -> Bool {
        Double(self.minX) >= minX && Double(self.maxX) <= maxX && Double(self.minY) >= minY && Double(self.maxY) <= maxY
    }
}

/// Where a tree query reads an item's position: the tree's own coordinates, or its owner's
/// tables by ref (a tree that released its coordinates).
protocol KDPositions {
    func position(slot: Int, ref: Int32) -> (x: Float, y: Float)
}

/// The tree's own coordinates (valid while the storage holds them).
struct KDOwnPositions: KDPositions {
    let coords: UnsafePointer<Float>
    @inline(__always) func position(slot: Int, ref: Int32) -> (x: Float, y: Float) {
        (coords[2 * slot], coords[2 * slot + 1])
    }
}

struct KDBush: Sendable {
    let storage: KDStorage
    let nodeSize: Int

    /// Builds the tree over `refs` with their positions (`xy` interleaved, one pair per ref);
    /// trees of `parallelFrom` items or more are built on two threads.
    init(
        refs: ContiguousArray<Int32>, xy: ContiguousArray<Float>, nodeSize: Int,
        parallelFrom: Int = KDBush.parallelBuildSize
    ) {
        self.init(unsorted: KDStorage(refs: refs, xy: xy), nodeSize: nodeSize)
        guard count > 1, let sorter else { return }
        let right = count - 1
        // The two halves below the root are disjoint ranges sorted independently, so a
        // helper thread can take one: the result is the same array.
        guard count >= parallelFrom, right > self.nodeSize else {
            sorter.sort(left: 0, right: right, axis: 0)
            return
        }
        let m = right >> 1
        sorter.select(k: m, left: 0, right: right, axis: 0)
        runConcurrently(
            { sorter.sort(left: 0, right: m - 1, axis: 1) },
            { sorter.sort(left: m + 1, right: right, axis: 1) })
    }

    /// A tree over `storage`, which its builder sorts (`Sorter`) before the tree is queried.
    init(unsorted storage: KDStorage, nodeSize: Int) {
        self.storage = storage
        self.nodeSize = max(2, nodeSize)
    }

    var count: Int { storage.count }
    /// Copies of the arrays in tree order (for tests and statistics).
    var refs: ContiguousArray<Int32> { ContiguousArray(UnsafeBufferPointer(start: storage.refs, count: count)) }
    var coords: ContiguousArray<Float> {
        guard let c = storage.coords else { return [] }
        return ContiguousArray(UnsafeBufferPointer(start: c, count: 2 * count))
    }
    /// The tree's sort, while it holds its coordinates.
    var sorter: Sorter? { storage.coords.map { Sorter(refs: storage.refs, coords: $0, nodeSize: nodeSize) } }
    /// Its own coordinates, for queries, while it holds them.
    var ownPositions: KDOwnPositions? { storage.coords.map { KDOwnPositions(coords: $0) } }

    /// For a tree built over level indexes: stores the report rank of each level index in
    /// `ranks` (when given), then puts `order[i]` in place of each index i.
    func placeLevelRefs(_ order: ContiguousArray<Int32>, ranks: LevelRanks?) {
        if let ranks, ranks.count == count {
            ranks.base.initialize(repeating: Int32.max, count: count)
            var next: Int32 = 0
            forEachSlotInReportOrder { slot in
                let i = Int(storage.refs[slot])
                if i >= 0 && i < count { ranks.base[i] = next }
                next &+= 1
            }
        }
        order.withUnsafeBufferPointer { order in
            for s in 0..<count {
                let i = Int(storage.refs[s])
                if i >= 0, i < order.count { storage.refs[s] = order[i] }
            }
        }
    }

    /// Trees at least this large are built on two threads (below it, starting one costs more).
    static let parallelBuildSize = 1 << 16

    // MARK: construction (kdbush `sort` and Floyd–Rivest `select`)

    /// Works on raw buffers: the build moves every item about log(n / nodeSize) times. Ranges
    /// sorted at the same time must be disjoint.
    struct Sorter {
        let refs: UnsafeMutablePointer<Int32>
        let coords: UnsafeMutablePointer<Float>
        let nodeSize: Int

        func sort(left: Int, right: Int, axis: Int) {
            // Iterative over the right half, recursive over the left: depth stays O(log n).
            var left = left, axis = axis
            while right - left > nodeSize {
                let m = (left + right) >> 1
                select(k: m, left: left, right: right, axis: axis)
                sort(left: left, right: m - 1, axis: 1 - axis)
                left = m + 1
                axis = 1 - axis
            }
        }

        func select(k: Int, left: Int, right: Int, axis: Int) {
            var left = left, right = right
            while right > left {
                if right - left > 600 {
                    let n = Double(right - left + 1)
                    let m = Double(k - left + 1)
                    // kdbush JS's Math.log and Math.exp: the bounds are floors of their results.
                    let z = JSMath.log(n)
                    let s = 0.5 * JSMath.exp(2 * z / 3)
                    let sd = 0.5 * (z * s * (n - s) / n).squareRoot() * (m - n / 2 < 0 ? -1 : 1)
                    let newLeft = max(left, Int((Double(k) - m * s / n + sd).rounded(.down)))
                    let newRight = min(right, Int((Double(k) + (n - m) * s / n + sd).rounded(.down)))
                    select(k: k, left: newLeft, right: newRight, axis: axis)
                }
                let t = coords[2 * k + axis]
                var i = left
                var j = right
                swapItems(left, k)
                if coords[2 * right + axis] > t { swapItems(left, right) }
                while i < j {
                    swapItems(i, j)
                    i += 1
                    j -= 1
                    i = mc_kd_scan_up(coords, i, right + 1, Int32(axis), t)
                    j = mc_kd_scan_down(coords, j, left, Int32(axis), t)
                }
                if coords[2 * left + axis] == t {
                    swapItems(left, j)
                } else {
                    j += 1
                    swapItems(j, right)
                }
                if j <= k { left = j + 1 }
                if k <= j { right = j - 1 }
            }
        }

        @inline(__always)
        func swapItems(_ i: Int, _ j: Int) {
            let r = refs[i]; refs[i] = refs[j]; refs[j] = r
            let x = coords[2 * i]; coords[2 * i] = coords[2 * j]; coords[2 * j] = x
            let y = coords[2 * i + 1]; coords[2 * i + 1] = coords[2 * j + 1]; coords[2 * j + 1] = y
        }
    }

    /// The order `range` and `within` report slots in: `ranks[slot]` is the slot's position in
    /// the output of a query that matches every item (the middle item of a node, then its right
    /// half, then its left half; buckets in array order). Sorting any subset of slots by it
    /// reproduces a query's output order. One walk of the implicit tree, writing mostly in
    /// array order.
    func reportRanks() -> ContiguousArray<Int32> {
        var ranks = ContiguousArray<Int32>(repeating: 0, count: count)
        var next: Int32 = 0
        forEachSlotInReportOrder { slot in
            ranks[slot] = next
            next &+= 1
        }
        return ranks
    }

    /// Calls `body` with every slot, in the order a query matching every item reports them:
    /// one walk of the implicit tree.
    private func forEachSlotInReportOrder(_ body: (Int) -> Void) {
        guard count > 0 else { return }
        forEachSlotInReportOrder(left: 0, right: count - 1, body)
    }

    /// The same within the node over slots left...right.
    @inline(__always)
    private func forEachSlotInReportOrder(left: Int, right: Int, _ body: (Int) -> Void) {
        var stack: [Int] = [left, right]
        stack.reserveCapacity(96)
        while let right = stack.popLast(), let left = stack.popLast() {
            if right - left <= nodeSize {
                for i in left...right { body(i) }
                continue
            }
            let m = (left + right) >> 1
            body(m)
            // Pushed last, so popped first: the right half is reported before the left.
            stack.append(left); stack.append(m - 1)
            stack.append(m + 1); stack.append(right)
        }
    }

    // MARK: queries (explicit stack; the right half is pushed last and so visited first)

    /// Calls `body` with every ref whose position (read through `positions`) lies in the box
    /// (inclusive), in kdbush order. A node whose whole region lies in the box is reported
    /// without reading its positions.
    func range<P: KDPositions>(
        minX: Double, minY: Double, maxX: Double, maxY: Double, positions: P, _ body: (Int32) -> Void
    ) {
        search(
            minX: minX, minY: minY, maxX: maxX, maxY: maxY, positions: positions, reportsWholeRegions: true,
            accept: { x, y in x >= minX && x <= maxX && y >= minY && y <= maxY }
        ) { body(storage.refs[$0]) }
    }

    /// Calls `body` with every ref within distance `r` of (qx, qy) (inclusive), in kdbush order.
    /// kdbush prunes a radius query exactly as a range query over the square around the circle.
    func within<P: KDPositions>(_ qx: Double, _ qy: Double, _ r: Double, positions: P, _ body: (Int32) -> Void) {
        let r2 = r * r
        search(
            minX: qx - r, minY: qy - r, maxX: qx + r, maxY: qy + r, positions: positions, reportsWholeRegions: false,
            accept: { x, y in (x - qx) * (x - qx) + (y - qy) * (y - qy) <= r2 }
        ) { body(storage.refs[$0]) }
    }

    /// kdbush's traversal (explicit stack; the right half is pushed last and so visited first):
    /// prunes halves outside the box and reports the slots whose position `accept`s. With
    /// `reportsWholeRegions` (`accept` is the box test), a node whose region lies in the box is
    /// reported whole in the same order. Regions are exact: kdbush's select leaves a node's
    /// left half at or below its middle item on the split axis and the right half at or above.
    @inline(__always)
    private func search<P: KDPositions>(
        minX: Double, minY: Double, maxX: Double, maxY: Double, positions: P,
        reportsWholeRegions: Bool, accept: (Double, Double) -> Bool, _ report: (Int) -> Void
    ) {
        guard count > 0 else { return }
        var stack: [SearchNode] = [SearchNode(left: 0, right: count - 1, axis: 0, region: storage.bounds)]
        stack.reserveCapacity(64)
        let refs = storage.refs
        while let node = stack.popLast() {
            let left = node.left, right = node.right, axis = node.axis
            if reportsWholeRegions && node.region.isInside(minX: minX, minY: minY, maxX: maxX, maxY: maxY) {
                forEachSlotInReportOrder(left: left, right: right, report)
                continue
            }
            if right - left <= nodeSize {
                for i in left...right {
                    let p = positions.position(slot: i, ref: refs[i])
                    if accept(Double(p.x), Double(p.y)) { report(i) }
                }
                continue
            }
            let m = (left + right) >> 1
            let p = positions.position(slot: m, ref: refs[m])
            let x = Double(p.x), y = Double(p.y)
            if accept(x, y) { report(m) }
            if axis == 0 ? minX <= x : minY <= y {
                var region = node.region
                if axis == 0 { region.maxX = p.x } else { region.maxY = p.y }
                stack.append(SearchNode(left: left, right: m - 1, axis: 1 - axis, region: region))
            }
            if axis == 0 ? maxX >= x : maxY >= y {
                var region = node.region
                if axis == 0 { region.minX = p.x } else { region.minY = p.y }
                stack.append(SearchNode(left: m + 1, right: right, axis: 1 - axis, region: region))
            }
        }
    }

    /// A node waiting on a query's stack.
    private struct SearchNode { var left: Int, right: Int, axis: Int, region: KDBox }

    /// Bytes held, for memory accounting.
    var byteCount: Int { count * (storage.coords == nil ? 4 : 12) }
}
