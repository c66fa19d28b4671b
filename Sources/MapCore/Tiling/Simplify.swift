// Tiling: Douglas-Peucker importance of each vertex, as geojson-vt's `simplify` marks it: a
// vertex keeps the squared distance at which it stops being dropped, so every zoom simplifies
// with one comparison.

enum Simplify {
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
        var stack = [(first, last)]
        let cpp = tieBreak == .maplibreNative
        coords.withUnsafeMutableBufferPointer { c in
            while let (first, last) = stack.popLast() {
                var maxSqDist = sqTolerance
                let mid = cpp ? (last - first) / 3 >> 1 : first + ((last - first) >> 1)
                var minPosToMid = cpp ? (last - first) / 3 : last - first
                var index = -1
                let ax = c[first], ay = c[first + 1], bx = c[last], by = c[last + 1]
                var i = first + 3
                while i < last {
                    let d = squaredSegmentDistance(c[i], c[i + 1], ax, ay, bx, by)
                    if d > maxSqDist {
                        index = i
                        maxSqDist = d
                    } else if d == maxSqDist {
                        // geojson-vt's tie-break: the pivot nearest the middle keeps degenerate
                        // (collinear, equidistant) input shallow.
                        let posToMid = abs((cpp ? i / 3 : i) - mid)
                        if posToMid < minPosToMid {
                            index = i
                            minPosToMid = posToMid
                        }
                    }
                    i += 3
                }
                guard maxSqDist > sqTolerance, index >= 0 else { continue }
                c[index + 2] = maxSqDist
                if last - index > 3 { stack.append((index, last)) }
                if index - first > 3 { stack.append((first, index)) }
            }
        }
    }

    /// Squared distance from (px, py) to the segment (x, y)-(bx, by), as geojson-vt computes it.
    @inline(__always) static func squaredSegmentDistance(
        _ px: Double, _ py: Double, _ ax: Double, _ ay: Double,
        _ bx: Double, _ by: Double
    ) -> Double {
        var x = ax, y = ay
        var dx = bx - x, dy = by - y
        if dx != 0 || dy != 0 {
            let t = ((px - x) * dx + (py - y) * dy) / (dx * dx + dy * dy)
            if t > 1 {
                x = bx
                y = by
            } else if t > 0 {
                x += dx * t
                y += dy * t
            }
        }
        dx = px - x
        dy = py - y
        return dx * dx + dy * dy
    }
}
