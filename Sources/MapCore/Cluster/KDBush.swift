// Cluster: a static 2-D KD tree with the exact construction and traversal order of
// mourner/kdbush 4, so that supercluster's level order, cluster ids and result order come out the
// same. Coordinates are Float32 as in kdbush's Float32Array; queries compare in Double, as
// JavaScript reads Float32Array elements as doubles.

import Glibc

struct KDBush {
    /// The caller's item references, permuted into tree order.
    private(set) var refs: ContiguousArray<Int32>
    /// Interleaved x, y of each entry of `refs`.
    private(set) var coords: ContiguousArray<Float>
    let nodeSize: Int

    /// Builds the tree over `refs` with their positions (`xy` interleaved, one pair per ref).
    init(refs: ContiguousArray<Int32>, xy: ContiguousArray<Float>, nodeSize: Int) {
        self.refs = refs
        self.coords = xy
        self.nodeSize = max(2, nodeSize)
        if refs.count > 1 { sort(left: 0, right: refs.count - 1, axis: 0) }
    }

    var count: Int { refs.count }

    // MARK: construction (kdbush `sort` and Floyd–Rivest `select`)

    private mutating func sort(left: Int, right: Int, axis: Int) {
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

    private mutating func select(k: Int, left: Int, right: Int, axis: Int) {
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
                while coords[2 * i + axis] < t { i += 1 }
                while coords[2 * j + axis] > t { j -= 1 }
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
    private mutating func swapItems(_ i: Int, _ j: Int) {
        refs.swapAt(i, j)
        coords.swapAt(2 * i, 2 * j)
        coords.swapAt(2 * i + 1, 2 * j + 1)
    }

    // MARK: queries (explicit stack; the right half is pushed last and so visited first)

    /// Calls `body` with every ref whose position lies in the box (inclusive), in kdbush order.
    func range(minX: Double, minY: Double, maxX: Double, maxY: Double, _ body: (Int32) -> Void) {
        guard !refs.isEmpty else { return }
        refs.withUnsafeBufferPointer { refs in
            coords.withUnsafeBufferPointer { c in
                var stack: [Int] = [0, refs.count - 1, 0]
                stack.reserveCapacity(96)
                while stack.count >= 3 {
                    let axis = stack.removeLast(), right = stack.removeLast(), left = stack.removeLast()
                    if right - left <= nodeSize {
                        for i in left...right {
                            let x = Double(c[2 * i]), y = Double(c[2 * i + 1])
                            if x >= minX && x <= maxX && y >= minY && y <= maxY { body(refs[i]) }
                        }
                        continue
                    }
                    let m = (left + right) >> 1
                    let x = Double(c[2 * m]), y = Double(c[2 * m + 1])
                    if x >= minX && x <= maxX && y >= minY && y <= maxY { body(refs[m]) }
                    if axis == 0 ? minX <= x : minY <= y { stack.append(left); stack.append(m - 1); stack.append(1 - axis) }
                    if axis == 0 ? maxX >= x : maxY >= y { stack.append(m + 1); stack.append(right); stack.append(1 - axis) }
                }
            }
        }
    }

    /// Calls `body` with every ref within distance `r` of (qx, qy) (inclusive), in kdbush order.
    func within(_ qx: Double, _ qy: Double, _ r: Double, _ body: (Int32) -> Void) {
        guard !refs.isEmpty else { return }
        let r2 = r * r
        refs.withUnsafeBufferPointer { refs in
            coords.withUnsafeBufferPointer { c in
                var stack: [Int] = [0, refs.count - 1, 0]
                stack.reserveCapacity(96)
                while stack.count >= 3 {
                    let axis = stack.removeLast(), right = stack.removeLast(), left = stack.removeLast()
                    if right - left <= nodeSize {
                        for i in left...right {
                            let dx = Double(c[2 * i]) - qx, dy = Double(c[2 * i + 1]) - qy
                            if dx * dx + dy * dy <= r2 { body(refs[i]) }
                        }
                        continue
                    }
                    let m = (left + right) >> 1
                    let x = Double(c[2 * m]), y = Double(c[2 * m + 1])
                    let dx = x - qx, dy = y - qy
                    if dx * dx + dy * dy <= r2 { body(refs[m]) }
                    if axis == 0 ? qx - r <= x : qy - r <= y { stack.append(left); stack.append(m - 1); stack.append(1 - axis) }
                    if axis == 0 ? qx + r >= x : qy + r >= y { stack.append(m + 1); stack.append(right); stack.append(1 - axis) }
                }
            }
        }
    }

    /// Bytes held, for memory accounting.
    var byteCount: Int { refs.capacity * 4 + coords.capacity * 4 }
}
