// Index: a uniform grid answering the radius queries of the clustering passes with the KD
// tree's distance test, and bounding each point's distance to its nearest neighbour (its gap).

import CMapCoreKernels
import Glibc

/// Radius queries for the clustering passes, answered from a uniform grid instead of the tree, with
/// the tree's distance test; the caller puts the results in the tree's `within` order (by
/// `KDBush.reportRanks`) where that order matters. A kdbush query walks about log(n / nodeSize)
/// nodes plus whole 64-item buckets; a grid cell no smaller than the radius holds a handful, so
/// each query reads 4 to 9 small cells. It is built from a level's items, not its tree, so the
/// tree can be built while the pass runs. One grid serves every level of a build (`rebuild`),
/// so its memory is allocated once.
struct NeighborGrid {
    /// An item in cell order: what a query reads about a candidate, in one 16-byte record.
    struct Entry {
        var x: Float
        var y: Float
        var ref: Int32
        /// The item's index in the level, or `claimed` once the pass has taken it.
        var index: Int32
    }
    static let claimed: Int32 = -1

    private var side = 1
    private var r = 0.0
    /// Cell c's entries are entries[cellStart[c]..<cellStart[c + 1]]; cells run row by row.
    private var cellStart = ContiguousArray<Int32>()
    private var entries = ContiguousArray<Entry>()
    /// The level indexes of the indexed items, ascending.
    private(set) var picked = ContiguousArray<Int32>()
    /// Scratch of `rebuild` (the indexed items' cells), kept for the next level.
    private var cellOf = ContiguousArray<Int32>()

    /// Indexes those of a level's items (`order`, positions `xy` interleaved) that `including`
    /// accepts, for queries of `radius`, reusing the memory of the previous level.
    mutating func rebuild(
        order: ContiguousArray<Int32>, xy: ContiguousArray<Float>, radius: Double,
        including: (Int32) -> Bool
    ) {
        r = radius
        picked.removeAll(keepingCapacity: true)
        for (i, ref) in order.enumerated() where including(ref) { picked.append(Int32(truncatingIfNeeded: i)) }
        let n = picked.count
        // Cells at least `radius` wide (so neighbours are in adjacent cells), and about one per
        // item of the level at most: more cells only add memory to clear, level after level.
        // (Sized by the level, not the indexed items: those crowd where the data is dense.)
        let byRadius = radius > 0 ? (0.99 / radius).rounded(.down) : 1
        let byCount = Double(order.count).squareRoot().rounded(.up)
        side = max(1, Int(min(byRadius, byCount, 16384)))
        let cells = side * side
        cellStart.removeAll(keepingCapacity: true)
        cellStart.append(contentsOf: repeatElement(0, count: cells + 1))
        cellOf.removeAll(keepingCapacity: true)
        entries.removeAll(keepingCapacity: true)
        entries.append(contentsOf: repeatElement(Entry(x: 0, y: 0, ref: 0, index: 0), count: n))
        let side = side
        // Level order is spatially random: the counts and the fill each touch a random cell per
        // item, so both load their lines a few items ahead.
        let ahead = 16
        xy.withUnsafeBufferPointer { coords in
            for i in picked {
                let i = Int(i)
                cellOf.append(
                    Int32(Self.cell(Double(coords[2 * i]), side) + side * Self.cell(Double(coords[2 * i + 1]), side)))
            }
            cellOf.withUnsafeBufferPointer { cellOf in
                cellStart.withUnsafeMutableBufferPointer { start in
                    guard let startBase = start.baseAddress else { return }
                    for k in 0..<n {
                        if k + ahead < n { mc_prefetch_write(startBase + Int(cellOf[k + ahead])) }
                        start[Int(cellOf[k])] += 1
                    }
                    // Inclusive sums make start[c] the end of cell c; filling backwards moves it
                    // down to the cell's beginning.
                    for c in 0..<cells { start[c + 1] += start[c] }
                    order.withUnsafeBufferPointer { refs in
                        entries.withUnsafeMutableBufferPointer { entries in
                            guard let entryBase = entries.baseAddress else { return }
                            for k in stride(from: n - 1, through: 0, by: -1) {
                                if k >= ahead {
                                    let c = Int(cellOf[k - ahead])
                                    mc_prefetch_write(startBase + c)
                                    mc_prefetch_write(entryBase + max(0, Int(start[c]) - 1))
                                }
                                let c = Int(cellOf[k]), i = Int(picked[k])
                                start[c] -= 1
                                entries[Int(start[c])] = Entry(
                                    x: coords[2 * i], y: coords[2 * i + 1], ref: refs[i], index: picked[k])
                            }
                        }
                    }
                }
            }
        }
        // Where the data is dense a cell holds many items: those keep their entries sorted by x,
        // so a query narrower than a cell reads only its slice of them (`forEachCandidate`).
        for c in 0..<cells where cellStart[c + 1] - cellStart[c] > Int32(Self.sortedFrom) {
            entries[Int(cellStart[c])..<Int(cellStart[c + 1])].sort { $0.x < $1.x }
        }
    }

    /// Cells with more entries than this are sorted by x.
    static let sortedFrom = 16

    /// The entries of row `cy`, columns x0...x1, that can lie within minX...maxX: the whole run
    /// of the row when its cells are small, else each sorted cell's slice, found by bisection.
    @inline(__always)
    private static func forEachCandidate(
        row cy: Int, _ x0: Int, _ x1: Int, side: Int, minX: Double, maxX: Double,
        _ start: UnsafeBufferPointer<Int32>, _ entries: UnsafeBufferPointer<Entry>,
        _ body: (Int) -> Void
    ) {
        let first = Int(start[x0 + side * cy]), last = Int(start[x1 + side * cy + 1])
        guard last - first > Self.sortedFrom else {
            for k in first..<last { body(k) }
            return
        }
        for c in (x0 + side * cy)...(x1 + side * cy) {
            var lo = Int(start[c]), hi = Int(start[c + 1])
            if hi - lo > Self.sortedFrom {
                // Widened far beyond any rounding of the bounds, so no entry the distance test
                // would take is cut off.
                lo = Self.firstIndex(in: entries, lo, hi) { Double($0.x) >= minX - 1e-9 }
                hi = Self.firstIndex(in: entries, lo, hi) { Double($0.x) > maxX + 1e-9 }
            }
            for k in lo..<hi { body(k) }
        }
    }

    /// The first index in lo..<hi whose entry satisfies `above` (which holds for a suffix), or hi.
    @inline(__always)
    private static func firstIndex(
        in entries: UnsafeBufferPointer<Entry>, _ lo: Int, _ hi: Int,
        _ above: (Entry) -> Bool
    ) -> Int {
        var lo = lo, hi = hi
        while lo < hi {
            let mid = (lo + hi) >> 1
            if above(entries[mid]) { hi = mid } else { lo = mid + 1 }
        }
        return lo
    }

    /// Frees what only `rebuild` and the pass's walk over `picked` use, for a grid built once.
    mutating func releaseScratch() {
        picked = []
        cellOf = []
    }

    /// The width of a cell (queries of this reach read at most 3 × 3 cells).
    var cellWidth: Double { 1 / Double(side) }

    @inline(__always) private static func cell(_ v: Double, _ side: Int) -> Int {
        let c = v * Double(side)
        guard c >= 0 else { return 0 }  // also NaN
        // Truncation is the floor here (c >= 0) and, unlike `rounded(.down)`, no libm call.
        return c < Double(side) ? Int(c) : side - 1
    }

    var entryCount: Int { entries.count }

    /// Calls `body` with the items at `positions` of the cell-by-cell order (a part of
    /// 0..<entryCount), each with its level index, ref and position.
    func forEachEntry(in positions: Range<Int>, _ body: (Int, Int32, Double, Double) -> Void) {
        for k in positions.clamped(to: entries.indices) {
            let e = entries[k]
            body(Int(e.index), e.ref, Double(e.x), Double(e.y))
        }
    }

    /// The cells a radius query around (qx, qy) must read: rows y0...y1, columns x0...x1.
    @inline(__always)
    private func cells(around qx: Double, _ qy: Double, _ r: Double) -> (x0: Int, x1: Int, y0: Int, y1: Int) {
        (Self.cell(qx - r, side), Self.cell(qx + r, side), Self.cell(qy - r, side), Self.cell(qy + r, side))
    }

    /// Added to the radius to decide which items a level indexes: more than twice the largest
    /// distance between an item's query centre and its Float-rounded position in [0, 1] (about
    /// 1e-7), so that every item another item's query can find within the radius is indexed.
    static let roundingSlack = 1e-6

    var cellCount: Int { side * side }

    /// Cells holding more entries than this are crowded: a point whose 3 × 3 cells include one
    /// gets no distance bound (0), so that neither its bound nor the bounds around a new cluster
    /// cost a scan of a crowded cell; the pass asks the level's grid about it instead (`hasOther`).
    static let crowded = 32

    /// For every entry of `cells` (a part of 0..<cellCount), stores at `gaps[ref]` the distance to
    /// its nearest other entry if one is within a cell width, else the cell width, rounded down
    /// to a Float; 0 in and next to crowded cells. The first one found within `enough` ends an
    /// entry's search.
    func nearestOthers(cells: Range<Int>, enough: Double, into gaps: UnsafeMutableBufferPointer<Float>) {
        let cap = cellWidth, side = side
        let cap2 = cap * cap, enough2 = enough * enough
        guard let gapBase = gaps.baseAddress else { return }
        cellStart.withUnsafeBufferPointer { start in
            entries.withUnsafeBufferPointer { entries in
                for c in cells.clamped(to: 0..<side * side) {
                    let own = Int(start[c])..<Int(start[c + 1])
                    guard !own.isEmpty else { continue }
                    // Everything within a cell width lies in the 3 × 3 cells around; each row of
                    // them is one run of entries.
                    let cx = c % side, cy = c / side
                    let x0 = max(cx - 1, 0), x1 = min(cx + 1, side - 1)
                    let y0 = max(cy - 1, 0), y1 = min(cy + 1, side - 1)
                    var crowd = false
                    for row in y0...y1 {
                        for column in x0...x1
                        where Int(start[column + side * row + 1] - start[column + side * row]) > Self.crowded {
                            crowd = true
                        }
                    }
                    for k in own {
                        // Refs are in input order, so the stores land at random: start them early.
                        if k + 8 < entries.count { mc_prefetch_write(gapBase + Int(entries[k + 8].ref)) }
                        guard !crowd else {
                            gaps[Int(entries[k].ref)] = 0
                            continue
                        }
                        let qx = Double(entries[k].x), qy = Double(entries[k].y)
                        var best = cap2
                        search: for row in y0...y1 {
                            for o in Int(start[x0 + side * row])..<Int(start[x1 + side * row + 1]) where o != k {
                                let dx = Double(entries[o].x) - qx, dy = Double(entries[o].y) - qy
                                let d2 = dx * dx + dy * dy
                                if d2 < best {
                                    best = d2
                                    if d2 <= enough2 { break search }
                                }
                            }
                        }
                        gaps[Int(entries[k].ref)] = Self.roundedDown(best.squareRoot())
                    }
                }
            }
        }
    }

    /// Whether an item other than the one at level index `index` lies within the radius plus
    /// `roundingSlack` of (qx, qy).
    func hasOther(than index: Int, near qx: Double, _ qy: Double) -> Bool {
        let reach = r + Self.roundingSlack
        let (x0, x1, y0, y1) = cells(around: qx, qy, reach), r2 = reach * reach
        let side = side
        var found = false
        cellStart.withUnsafeBufferPointer { start in
            entries.withUnsafeBufferPointer { entries in
                for cy in y0...y1 where !found {
                    Self.forEachCandidate(
                        row: cy, x0, x1, side: side, minX: qx - reach, maxX: qx + reach, start, entries
                    ) { k in
                        let e = entries[k]
                        let dx = Double(e.x) - qx, dy = Double(e.y) - qy
                        if dx * dx + dy * dy <= r2 && Int(e.index) != index { found = true }
                    }
                }
            }
        }
        return found
    }

    /// The largest Float not above `d`, so a lower bound stays one.
    static func roundedDown(_ d: Double) -> Float {
        let f = Float(d)
        return Double(f) > d ? f.nextDown : f
    }

    /// Lowers `gaps[ref]` of every entry within `reach` (at most a cell width) of (qx, qy) to its
    /// distance, rounded down; crowded cells are skipped (their points' gaps are 0).
    func lowerGaps(within reach: Double, of qx: Double, _ qy: Double, _ gaps: UnsafeMutableBufferPointer<Float>) {
        let (x0, x1, y0, y1) = cells(around: qx, qy, reach), reach2 = reach * reach
        for cy in y0...y1 {
            for c in (x0 + side * cy)...(x1 + side * cy) {
                let run = Int(cellStart[c])..<Int(cellStart[c + 1])
                guard run.count <= Self.crowded else { continue }
                for k in run {
                    let e = entries[k]
                    let dx = Double(e.x) - qx, dy = Double(e.y) - qy
                    let d2 = dx * dx + dy * dy
                    guard d2 <= reach2 else { continue }
                    let gap = Self.roundedDown(d2.squareRoot())
                    if gap < gaps[Int(e.ref)] { gaps[Int(e.ref)] = gap }
                }
            }
        }
    }

    /// Starts loading the cell bounds a query around (qx, qy) will read (of the grid's radius,
    /// or `reach`): the pass asks this a few items ahead, as its queries jump about the grid in
    /// data order.
    func prefetchCells(around qx: Double, _ qy: Double, within reach: Double? = nil) {
        let (x0, x1, y0, y1) = cells(around: qx, qy, reach ?? r)
        cellStart.withUnsafeBufferPointer { start in
            guard let base = start.baseAddress else { return }
            for cy in y0...y1 {
                mc_prefetch(base + x0 + side * cy)
                mc_prefetch(base + x1 + side * cy + 1)
            }
        }
    }

    /// Starts loading the entries a query around (qx, qy) will read (after `prefetchCells`).
    func prefetchEntries(around qx: Double, _ qy: Double, within reach: Double? = nil) {
        let (x0, _, y0, y1) = cells(around: qx, qy, reach ?? r)
        entries.withUnsafeBufferPointer { entries in
            guard let base = entries.baseAddress else { return }
            for cy in y0...y1 { mc_prefetch(base + Int(cellStart[x0 + side * cy])) }
        }
    }

    /// The pass's query: replaces `out` with the entries within the radius of (qx, qy) that
    /// nothing has claimed yet, in no particular order, and marks them and the querying item
    /// `me` claimed. The caller must hand every returned item to a cluster or keep it at this
    /// zoom. Every item a query can reach is indexed and has a query of its own, which marks it
    /// at its turn, so the marks are the whole record of turns taken. The returned entries keep
    /// their level index.
    mutating func claim(around qx: Double, _ qy: Double, me: Int32, into out: inout [Entry]) {
        out.removeAll(keepingCapacity: true)
        let (x0, x1, y0, y1) = cells(around: qx, qy, r), r2 = r * r
        let side = side
        cellStart.withUnsafeBufferPointer { start in
            entries.withUnsafeMutableBufferPointer { entries in
                for cy in y0...y1 {
                    // The cells of one row are adjacent in cell order, so a row is one run.
                    Self.forEachCandidate(
                        row: cy, x0, x1, side: side, minX: qx - r, maxX: qx + r, start, UnsafeBufferPointer(entries)
                    ) { k in
                        let e = entries[k]
                        let dx = Double(e.x) - qx, dy = Double(e.y) - qy
                        guard dx * dx + dy * dy <= r2, e.index != Self.claimed else { return }
                        if e.ref != me { out.append(e) }
                        entries[k].index = Self.claimed
                    }
                }
            }
        }
    }
}
