// Index: the KD tree of mourner/kdbush.hpp, which supercluster-cpp (MapLibre Native's clustered
// GeoJSON sources) builds at every zoom. It differs from kdbush JS (`KDBush`) in what decides a
// query's report order: coordinates are doubles, not Float32; Floyd–Rivest's narrowed bounds are
// computed by its own expressions and truncated to its unsigned index type; and a query visits a
// node's lower half before its upper (kdbush JS pops the upper half first). So a tile's features,
// a cluster's children and the folds that make a cluster come out in MapLibre Native's order.

import CMapCoreKernels
import Glibc

/// Where a `KDBushCpp` query reads a slot's position once the tree's ids became refs: its owner's
/// tables (`withinOwn` reads the tree's own coordinates during the build).
protocol KDCppPositions {
    func position(slot: Int, id: Int32) -> (Double, Double)
}

struct KDBushCpp: Sendable {
    /// kdbush.hpp's default, which supercluster-cpp does not change.
    static let nodeSize = 64

    /// Item ids in tree order: level indexes while the level is clustered, refs after `placeRefs`.
    private(set) var ids: ContiguousArray<Int32>
    /// x, y interleaved in tree order; empty after `placeRefs` (queries then read the owner's
    /// tables by ref).
    private(set) var coords: ContiguousArray<Double>

    /// A tree over level indexes 0..<n at `xy` (interleaved, in level order), as kdbush.hpp's `fill`;
    /// trees of `parallelFrom` items or more are sorted on two threads.
    init(xy: ContiguousArray<Double>, parallelFrom: Int = KDBush.parallelBuildSize) {
        let n = xy.count / 2
        ids = ContiguousArray((0..<Int32(truncatingIfNeeded: n)).map { $0 })
        coords = xy
        guard n > 0 else { return }
        ids.withUnsafeMutableBufferPointer { ids in
            coords.withUnsafeMutableBufferPointer { coords in
                let sorter = Sorter(ids: ids, coords: coords), right = n - 1
                // The halves below the root are disjoint ranges sorted independently, so a second
                // thread can take one: the same tree as one thread's.
                guard n >= parallelFrom, right > Self.nodeSize else {
                    sorter.sort(left: 0, right: right, axis: 0)
                    return
                }
                let m = right >> 1
                sorter.select(k: m, left: 0, right: right, axis: 0)
                runConcurrently(
                    { sorter.sort(left: 0, right: m - 1, axis: 1) }, { sorter.sort(left: m + 1, right: right, axis: 1) }
                )
            }
        }
    }

    var count: Int { ids.count }

    /// Replaces each level index i by `order[i]` and drops the coordinates.
    mutating func placeRefs(_ order: ContiguousArray<Int32>) {
        for s in ids.indices {
            let i = Int(ids[s])
            if i >= 0, i < order.count { ids[s] = order[i] }
        }
        coords = []
    }

    // MARK: construction

    /// Sorts slots left...right as kdbush.hpp's `sortKD` (`mc_kdcpp_sort`: in C, where the
    /// partition scans are vector compares that stop where its scalar loops stop).
    private struct Sorter {
        let ids: UnsafeMutableBufferPointer<Int32>
        let coords: UnsafeMutableBufferPointer<Double>

        func sort(left: Int, right: Int, axis: Int) {
            guard let ids = ids.baseAddress, let coords = coords.baseAddress else { return }
            mc_kdcpp_sort(ids, coords, left, right, Int32(axis), KDBushCpp.nodeSize)
        }

        func select(k: Int, left: Int, right: Int, axis: Int) {
            guard let ids = ids.baseAddress, let coords = coords.baseAddress else { return }
            mc_kdcpp_select(ids, coords, k, left, right, Int32(axis))
        }
    }

    // MARK: queries, in kdbush.hpp's order

    /// Calls `body` with each id whose position lies in the box (inclusive).
    func range<P: KDCppPositions>(
        minX: Double, minY: Double, maxX: Double, maxY: Double, positions: P, _ body: (Int32) -> Void
    ) {
        guard !ids.isEmpty else { return }
        ids.withUnsafeBufferPointer { ids in
            Self.range(ids, minX, minY, maxX, maxY, positions, 0, ids.count - 1, 0, body)
        }
    }

    /// Recursion depth is log2(n / nodeSize): each call halves its range.
    private static func range<P: KDCppPositions>(
        _ ids: UnsafeBufferPointer<Int32>, _ minX: Double, _ minY: Double, _ maxX: Double, _ maxY: Double,
        _ positions: P, _ left: Int, _ right: Int, _ axis: Int, _ body: (Int32) -> Void
    ) {
        if right - left <= nodeSize {
            for i in left...right {
                let (x, y) = positions.position(slot: i, id: ids[i])
                if x >= minX && x <= maxX && y >= minY && y <= maxY { body(ids[i]) }
            }
            return
        }
        let m = (left + right) >> 1
        let (x, y) = positions.position(slot: m, id: ids[m])
        if x >= minX && x <= maxX && y >= minY && y <= maxY { body(ids[m]) }
        if axis == 0 ? minX <= x : minY <= y {
            range(ids, minX, minY, maxX, maxY, positions, left, m - 1, 1 - axis, body)
        }
        if axis == 0 ? maxX >= x : maxY >= y {
            range(ids, minX, minY, maxX, maxY, positions, m + 1, right, 1 - axis, body)
        }
    }

    /// Calls `body` with each id within `r` of (qx, qy).
    func within<P: KDCppPositions>(
        _ qx: Double, _ qy: Double, _ r: Double, positions: P, _ body: (Int32) -> Void
    ) {
        guard !ids.isEmpty else { return }
        ids.withUnsafeBufferPointer { ids in
            Self.within(ids, qx, qy, r, r * r, positions, 0, ids.count - 1, 0, body)
        }
    }

    private static func within<P: KDCppPositions>(
        _ ids: UnsafeBufferPointer<Int32>, _ qx: Double, _ qy: Double, _ r: Double, _ r2: Double,
        _ positions: P, _ left: Int, _ right: Int, _ axis: Int, _ body: (Int32) -> Void
    ) {
        if right - left <= nodeSize {
            for i in left...right {
                let (x, y) = positions.position(slot: i, id: ids[i])
                let dx = x - qx, dy = y - qy
                if dx * dx + dy * dy <= r2 { body(ids[i]) }
            }
            return
        }
        let m = (left + right) >> 1
        let (x, y) = positions.position(slot: m, id: ids[m])
        let dx = x - qx, dy = y - qy
        if dx * dx + dy * dy <= r2 { body(ids[m]) }
        if axis == 0 ? qx - r <= x : qy - r <= y { within(ids, qx, qy, r, r2, positions, left, m - 1, 1 - axis, body) }
        if axis == 0 ? qx + r >= x : qy + r >= y { within(ids, qx, qy, r, r2, positions, m + 1, right, 1 - axis, body) }
    }

    /// `within` over the tree's own coordinates (the build's hot loop, `mc_kdcpp_within`): writes
    /// the ids to `out`, which has room for `limit` ids (at most `count`), and returns how many,
    /// stopping at `limit`.
    func withinOwn(
        _ qx: Double, _ qy: Double, _ r: Double, into out: UnsafeMutablePointer<Int32>, limit: Int
    ) -> Int {
        guard !ids.isEmpty, coords.count == 2 * ids.count, limit > 0 else { return 0 }
        return ids.withUnsafeBufferPointer { ids in
            coords.withUnsafeBufferPointer { c in
                guard let idBase = ids.baseAddress, let cBase = c.baseAddress else { return 0 }
                return mc_kdcpp_within(idBase, cBase, ids.count, Self.nodeSize, qx, qy, r, out, min(limit, ids.count))
            }
        }
    }

    /// Bytes of the tree's arrays.
    var byteCount: Int { ids.count * 4 + coords.count * 8 }
}
