// Cluster: a static 2-D KD tree with the exact construction and traversal order of
// mourner/kdbush 4, so that supercluster's level order, cluster ids and result order come out the
// same. Coordinates are Float32 as in kdbush's Float32Array; queries compare in Double, as
// JavaScript reads Float32Array elements as doubles.

import CMapCoreKernels
import Glibc

struct KDBush {
    /// The caller's item references, permuted into tree order.
    private(set) var refs: ContiguousArray<Int32>
    /// Interleaved x, y of each entry of `refs`.
    private(set) var coords: ContiguousArray<Float>
    let nodeSize: Int

    /// Builds the tree over `refs` with their positions (`xy` interleaved, one pair per ref);
    /// trees of `parallelFrom` items or more are built on two threads.
    init(refs: ContiguousArray<Int32>, xy: ContiguousArray<Float>, nodeSize: Int, parallelFrom: Int = KDBush.parallelBuildSize) {
        self.refs = refs
        self.coords = xy
        self.nodeSize = max(2, nodeSize)
        guard refs.count > 1 else { return }
        let size = self.nodeSize
        self.refs.withUnsafeMutableBufferPointer { r in
            self.coords.withUnsafeMutableBufferPointer { c in
                guard let rb = r.baseAddress, let cb = c.baseAddress else { return }
                let sorter = Sorter(refs: rb, coords: cb, nodeSize: size)
                let right = r.count - 1
                // The two halves below the root are disjoint ranges sorted independently, so a
                // helper thread can take one: the result is the same array.
                guard right + 1 >= parallelFrom, right > size else { return sorter.sort(left: 0, right: right, axis: 0) }
                let m = right >> 1
                sorter.select(k: m, left: 0, right: right, axis: 0)
                runConcurrently({ sorter.sort(left: 0, right: m - 1, axis: 1) },
                                { sorter.sort(left: m + 1, right: right, axis: 1) })
            }
        }
    }

    var count: Int { refs.count }

    /// Trees at least this large are built on two threads (below it, starting one costs more).
    static let parallelBuildSize = 1 << 16

    // MARK: construction (kdbush `sort` and Floyd–Rivest `select`)

    /// Works on raw buffers: the build moves every item about log(n / nodeSize) times.
    private struct Sorter {
        let refs: UnsafeMutablePointer<Int32>
        let coords: UnsafeMutablePointer<Float>
        let nodeSize: Int

        init(refs: UnsafeMutablePointer<Int32>, coords: UnsafeMutablePointer<Float>, nodeSize: Int) {
            self.refs = refs
            self.coords = coords
            self.nodeSize = nodeSize
        }

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
                    let z = log(n)
                    let s = 0.5 * exp(2 * z / 3)
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

    /// The position of a tree slot in the order `range` and `within` report items: the middle
    /// item of a node, then its right half, then its left half; buckets in array order. It
    /// depends on the slot's index alone (the tree's shape is implicit in the array), so it is
    /// computed by descending, with no table. Sorting any subset of slots by it reproduces a
    /// query's output order.
    @inline(__always)
    func reportRank(_ slot: Int) -> Int {
        var left = 0, right = refs.count - 1, base = 0
        while right - left > nodeSize {
            let m = (left + right) >> 1
            if slot == m { return base }
            if slot > m {
                base += 1
                left = m + 1
            } else {
                base += 1 + (right - m)
                right = m - 1
            }
        }
        return base + (slot - left)
    }

    // MARK: queries (explicit stack; the right half is pushed last and so visited first)

    /// Calls `body` with every ref whose position lies in the box (inclusive), in kdbush order.
    func range(minX: Double, minY: Double, maxX: Double, maxY: Double, _ body: (Int32) -> Void) {
        search(minX: minX, minY: minY, maxX: maxX, maxY: maxY,
               accept: { x, y in x >= minX && x <= maxX && y >= minY && y <= maxY }) { body(refs[$0]) }
    }

    /// Calls `body` with every ref within distance `r` of (qx, qy) (inclusive), in kdbush order.
    /// kdbush prunes a radius query exactly as a range query over the square around the circle.
    func within(_ qx: Double, _ qy: Double, _ r: Double, _ body: (Int32) -> Void) {
        let r2 = r * r
        search(minX: qx - r, minY: qy - r, maxX: qx + r, maxY: qy + r,
               accept: { x, y in (x - qx) * (x - qx) + (y - qy) * (y - qy) <= r2 }) { body(refs[$0]) }
    }

    /// kdbush's traversal (explicit stack; the right half is pushed last and so visited first):
    /// prunes halves outside the box and reports the slots whose position `accept`s.
    @inline(__always)
    private func search(minX: Double, minY: Double, maxX: Double, maxY: Double,
                        accept: (Double, Double) -> Bool, _ report: (Int) -> Void) {
        guard !refs.isEmpty else { return }
        coords.withUnsafeBufferPointer { c in
            var stack: [Int] = [0, refs.count - 1, 0]
            stack.reserveCapacity(96)
            while stack.count >= 3 {
                let axis = stack.removeLast(), right = stack.removeLast(), left = stack.removeLast()
                if right - left <= nodeSize {
                    for i in left...right where accept(Double(c[2 * i]), Double(c[2 * i + 1])) { report(i) }
                    continue
                }
                let m = (left + right) >> 1
                let x = Double(c[2 * m]), y = Double(c[2 * m + 1])
                if accept(x, y) { report(m) }
                if axis == 0 ? minX <= x : minY <= y { stack.append(left); stack.append(m - 1); stack.append(1 - axis) }
                if axis == 0 ? maxX >= x : maxY >= y { stack.append(m + 1); stack.append(right); stack.append(1 - axis) }
            }
        }
    }

    /// Bytes held, for memory accounting.
    var byteCount: Int { refs.capacity * 4 + coords.capacity * 4 }
}

/// Radius queries for the clustering passes, answered from a uniform grid instead of the tree but
/// in the tree's `within` order (sorted by `KDBush.reportRank`), with the same distance test.
/// A kdbush query walks about log(n / nodeSize) nodes plus whole 64-item buckets; a grid cell
/// no smaller than the radius holds a handful, so each query reads 4 to 9 small cells.
/// One grid serves every level of a build (`rebuild`), so its memory is allocated once.
struct NeighborGrid {
    /// An item in cell order: what a query reads about a candidate, in one 16-byte record.
    struct Entry {
        var x: Float
        var y: Float
        var ref: Int32
        /// The item's tree slot (for `reportRank`), or `claimed` once the pass has taken it.
        var slot: Int32
    }
    static let claimed: Int32 = -1

    private var tree = KDBush(refs: [], xy: [], nodeSize: 64)
    private var side = 1
    private var r = 0.0
    /// Cell c's entries are entries[cellStart[c]..<cellStart[c + 1]]; cells run row by row.
    private var cellStart = ContiguousArray<Int32>()
    private var entries = ContiguousArray<Entry>()
    private var cellOf = ContiguousArray<Int32>()

    /// Indexes `tree`'s items for queries of `radius`, reusing the memory of the previous level.
    mutating func rebuild(tree: KDBush, radius: Double) {
        self.tree = tree
        r = radius
        let n = tree.count
        // Cells at least `radius` wide (so neighbours are in adjacent cells), and about one per
        // item at most: more cells only add memory to clear, level after level.
        let byRadius = radius > 0 ? (0.99 / radius).rounded(.down) : 1
        let byCount = Double(n).squareRoot().rounded(.up)
        side = max(1, Int(min(byRadius, byCount, 16384)))
        let cells = side * side
        cellStart.removeAll(keepingCapacity: true)
        cellStart.append(contentsOf: repeatElement(0, count: cells + 1))
        cellOf.removeAll(keepingCapacity: true)
        cellOf.reserveCapacity(n)
        entries.removeAll(keepingCapacity: true)
        entries.append(contentsOf: repeatElement(Entry(x: 0, y: 0, ref: 0, slot: 0), count: n))
        let side = side
        tree.coords.withUnsafeBufferPointer { coords in
            cellStart.withUnsafeMutableBufferPointer { start in
                for i in 0..<n {
                    let c = Self.cell(Double(coords[2 * i]), side) + side * Self.cell(Double(coords[2 * i + 1]), side)
                    cellOf.append(Int32(c))
                    start[c] += 1
                }
                // Inclusive sums make start[c] the end of cell c; filling backwards moves it down
                // to the cell's beginning, and a cell's entries stay in slot order.
                for c in 0..<cells { start[c + 1] += start[c] }
                tree.refs.withUnsafeBufferPointer { refs in
                    entries.withUnsafeMutableBufferPointer { entries in
                        for i in stride(from: n - 1, through: 0, by: -1) {
                            let c = Int(cellOf[i])
                            start[c] -= 1
                            entries[Int(start[c])] = Entry(x: coords[2 * i], y: coords[2 * i + 1], ref: refs[i], slot: Int32(i))
                        }
                    }
                }
            }
        }
    }

    @inline(__always) private static func cell(_ v: Double, _ side: Int) -> Int {
        let c = v * Double(side)
        guard c >= 0 else { return 0 }  // also NaN
        // Truncation is the floor here (c >= 0) and, unlike `rounded(.down)`, no libm call.
        return c < Double(side) ? Int(c) : side - 1
    }

    var entryCount: Int { entries.count }

    /// Calls `body` with the items at `positions` of the cell-by-cell order (a part of
    /// 0..<entryCount), each with its tree slot, ref and position.
    func forEachEntry(in positions: Range<Int>, _ body: (Int, Int32, Double, Double) -> Void) {
        for k in positions.clamped(to: entries.indices) {
            let e = entries[k]
            body(Int(e.slot), e.ref, Double(e.x), Double(e.y))
        }
    }

    /// The cells a radius query around (qx, qy) must read: rows y0...y1, columns x0...x1.
    @inline(__always)
    private func cells(around qx: Double, _ qy: Double, _ r: Double) -> (x0: Int, x1: Int, y0: Int, y1: Int) {
        (Self.cell(qx - r, side), Self.cell(qx + r, side), Self.cell(qy - r, side), Self.cell(qy + r, side))
    }

    /// Added to the radius by `hasOther`: more than twice the largest distance between an item's
    /// query centre and its Float-rounded position in [0, 1] (about 1e-7), so that every item
    /// another item's query can find within the radius is found near.
    static let roundingSlack = 1e-6

    /// Whether an item other than tree slot `slot` lies within the radius plus `roundingSlack`
    /// of (qx, qy). Asked before the pass claims anything. An item with no other that close is
    /// beyond the reach of every query of the pass, so the pass need not record its turn.
    func hasOther(than slot: Int, near qx: Double, _ qy: Double) -> Bool {
        let reach = r + Self.roundingSlack
        let (x0, x1, y0, y1) = cells(around: qx, qy, reach), r2 = reach * reach
        for cy in y0...y1 {
            for k in Int(cellStart[x0 + side * cy])..<Int(cellStart[x1 + side * cy + 1]) {
                let e = entries[k]
                let dx = Double(e.x) - qx, dy = Double(e.y) - qy
                if dx * dx + dy * dy <= r2 && Int(e.slot) != slot { return true }
            }
        }
        return false
    }

    /// Starts loading the cell bounds a query around (qx, qy) will read: the pass asks this a
    /// few items ahead, as its queries jump about the grid in data order.
    func prefetchCells(around qx: Double, _ qy: Double) {
        let (x0, x1, y0, y1) = cells(around: qx, qy, r)
        cellStart.withUnsafeBufferPointer { start in
            guard let base = start.baseAddress else { return }
            for cy in y0...y1 {
                mc_prefetch(base + x0 + side * cy)
                mc_prefetch(base + x1 + side * cy + 1)
            }
        }
    }

    /// Starts loading the entries a query around (qx, qy) will read (after `prefetchCells`).
    func prefetchEntries(around qx: Double, _ qy: Double) {
        let (x0, _, y0, y1) = cells(around: qx, qy, r)
        entries.withUnsafeBufferPointer { entries in
            guard let base = entries.baseAddress else { return }
            for cy in y0...y1 { mc_prefetch(base + Int(cellStart[x0 + side * cy])) }
        }
    }

    /// The pass's query: replaces `out` with the entries within the radius of (qx, qy) that
    /// nothing has claimed yet, in kdbush `within` order, and marks them and the querying item
    /// `me` claimed. The caller must hand every returned item to a cluster or keep it at this
    /// zoom. Every item a query can reach has a query of its own (`hasOther`), which marks it at
    /// its turn, so the marks are the whole record of turns taken. The `slot` of returned
    /// entries is meaningless.
    mutating func claim(around qx: Double, _ qy: Double, me: Int32, into out: inout [Entry]) {
        out.removeAll(keepingCapacity: true)
        let (x0, x1, y0, y1) = cells(around: qx, qy, r), r2 = r * r
        let side = side
        cellStart.withUnsafeBufferPointer { start in
            entries.withUnsafeMutableBufferPointer { entries in
                for cy in y0...y1 {
                    // The cells of one row are adjacent in cell order, so a row is one run.
                    for k in Int(start[x0 + side * cy])..<Int(start[x1 + side * cy + 1]) {
                        let e = entries[k]
                        let dx = Double(e.x) - qx, dy = Double(e.y) - qy
                        guard dx * dx + dy * dy <= r2, e.slot != Self.claimed else { continue }
                        if e.ref != me { out.append(e) }
                        entries[k].slot = Self.claimed
                    }
                }
            }
        }
        if out.count > 1 {
            for k in out.indices { out[k].slot = Int32(truncatingIfNeeded: tree.reportRank(Int(out[k].slot))) }
            out.sort { $0.slot < $1.slot }
        }
    }
}
