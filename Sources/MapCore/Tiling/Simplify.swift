// Tiling: Douglas-Peucker importance of each vertex, as geojson-vt's `simplify` marks it: a
// vertex keeps the squared distance at which it stops being dropped, so every zoom simplifies
// with one comparison.

import CMapCoreKernels

enum Simplify {
    /// Ranges at least this long (in array offsets) are scanned by `mc_dp_farthest`; shorter
    /// ones cost more to set up than they scan (4 vertices between the ends with AVX2, else 8).
    static let vectorFrom = mc_dp_vector_from()

    /// The squared tolerance an index marks its lines with: maxZoom's, in the unit square.
    static func sqTolerance(_ options: TilingOptions) -> Double {
        let tolerance = options.tolerance / (Double(1 << options.maxZoom) * options.extent)
        return tolerance * tolerance
    }

    /// Marks the importance of the vertices strictly between the triples at `first` and `last`
    /// (array indexes of their x). geojson-vt recurses; the ranges are independent, so an
    /// explicit stack gives the same marks without a stack depth that input could choose.
    ///
    /// `tieBreak` picks among equally distant pivots: geojson-vt 4.0.2 measures the distance to
    /// the middle in array offsets (three per vertex) from the range's start; geojson-vt-cpp
    /// 6.6.5, which MapLibre Native vendors, in vertex indexes from the range's length alone
    /// (`mid = (last - first) >> 1`, fixed after 6.6.5). They differ only between equal distances.
    static func mark(
        _ coords: inout [Double], first: Int, last: Int, sqTolerance: Double,
        tieBreak: TilingOptions.Compatibility = .geojsonVT
    ) {
        guard last - first > 3 else { return }
        coords.withUnsafeMutableBufferPointer { c in
            guard let base = c.baseAddress else { return }
            mark(
                UnsafeBufferPointer(c), first: first, last: last, sqTolerance: sqTolerance, tieBreak: tieBreak,
                into: InPlace(base: base))
        }
    }

    /// Where `mark` puts a vertex's importance.
    protocol Sink {
        /// The vertex whose x is at array index `i` has `importance` (past the tolerance).
        func mark(_ i: Int, _ importance: Double)
    }

    /// Into the triple itself, as geojson-vt marks.
    struct InPlace: Sink {
        let base: UnsafeMutablePointer<Double>
        @inline(__always) func mark(_ i: Int, _ importance: Double) { base[i + 2] = importance }
    }

    /// The same marks, of the triples of `c` (whose marks it does not read), each given to
    /// `sink`. Inlined, so that each sink is specialised.
    @inline(__always) static func mark<S: Sink>(
        _ c: UnsafeBufferPointer<Double>, first: Int, last: Int, sqTolerance: Double,
        tieBreak: TilingOptions.Compatibility, into sink: S
    ) {
        guard last - first > 3 else { return }
        let cpp = tieBreak == .maplibreNative
        let vectorFrom = Self.vectorFrom
        // Each range on the stack has a vertex between its ends that no other range holds, so
        // the stack never holds more ranges than there are vertices.
        let capacity = (last - first) / 3
        withUnsafeTemporaryAllocation(of: (Int, Int).self, capacity: capacity) { stack in
            var depth = 1
            stack.initializeElement(at: 0, to: (first, last))
            while depth > 0 {
                depth -= 1
                let (first, last) = stack[depth]
                var maxSqDist = sqTolerance
                let mid = cpp ? ((last - first) / 3) >> 1 : first + ((last - first) >> 1)
                var minPosToMid = cpp ? (last - first) / 3 : last - first
                var index = -1
                let ax = c[first], ay = c[first + 1], bx = c[last], by = c[last + 1]
                let dx = bx - ax, dy = by - ay
                // The segment's terms are the same for every vertex of the range; the clamping is
                // written as selects, as the projection falls either side of the ends at random.
                let degenerate = dx == 0 && dy == 0
                let sqLength = dx * dx + dy * dy
                @inline(__always) func distance(_ i: Int) -> Double {
                    let px = c[i], py = c[i + 1]
                    var x = ax, y = ay
                    if !degenerate {
                        let t = ((px - ax) * dx + (py - ay) * dy) / sqLength
                        let inside = t > 0
                        x = t > 1 ? bx : inside ? ax + dx * t : ax
                        y = t > 1 ? by : inside ? ay + dy * t : ay
                    }
                    let ex = px - x, ey = py - y
                    return ex * ex + ey * ey
                }
                // One vertex between the ends (most ranges, deep down): it is the pivot if it
                // is beyond the tolerance, and an equal distance leaves it unmarked.
                if last - first == 6 {
                    let d = distance(first + 3)
                    if d > sqTolerance { sink.mark(first + 3, d) }
                    continue
                }
                // A long range (real coastlines have ranges of thousands of vertices, and scanning
                // them was most of an index build) is scanned four (AVX2) or two (SSE2) vertices
                // a step; the ranges where the farthest distance is met twice come back to the
                // tie-break below.
                var found: Int32 = -1
                if last - first >= vectorFrom && !degenerate, let base = c.baseAddress {
                    found = mc_dp_farthest(base, first, last, sqTolerance, &index, &maxSqDist)
                    if found == 0 { continue }
                }
                // The farthest vertex, without branches (which vertex is farthest is random); a
                // distance equal to the farthest so far makes the tie-break decide, once more in
                // geojson-vt's order.
                var tie = false
                var i = found == 1 ? last : first + 3
                while i < last {
                    let d = distance(i)
                    tie = tie || d == maxSqDist
                    let farther = d > maxSqDist
                    index = farther ? i : index
                    maxSqDist = farther ? d : maxSqDist
                    i += 3
                }
                if tie {
                    maxSqDist = sqTolerance
                    index = -1
                    i = first + 3
                    while i < last {
                        let d = distance(i)
                        if d > maxSqDist {
                            index = i
                            maxSqDist = d
                        } else if d == maxSqDist {
                            // geojson-vt's tie-break: the pivot nearest the middle keeps
                            // degenerate (collinear, equidistant) input shallow.
                            let posToMid = abs((cpp ? i / 3 : i) - mid)
                            if posToMid < minPosToMid {
                                index = i
                                minPosToMid = posToMid
                            }
                        }
                        i += 3
                    }
                }
                guard maxSqDist > sqTolerance, index >= 0 else { continue }
                sink.mark(index, maxSqDist)
                if last - index > 3 {
                    stack.initializeElement(at: depth, to: (index, last))
                    depth += 1
                }
                if index - first > 3 {
                    stack.initializeElement(at: depth, to: (first, index))
                    depth += 1
                }
            }
        }
    }
}
