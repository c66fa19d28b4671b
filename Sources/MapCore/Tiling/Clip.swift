// Tiling: geojson-vt's stripe clipping: features cut between two axis-parallel lines k1 and k2
// (in units of the tile grid at `scale`), lines split where they leave the stripe, rings closed
// again, line metrics carried along.

enum Clip {
    /// The parts of `features` between k1/scale and k2/scale on `axis` (0 x, 1 y); nil when none.
    /// `minAll`/`maxAll` bound every feature on that axis, for the trivial cases.
    static func clip(
        _ features: [ProjectedFeature], scale: Double, _ k1: Double, _ k2: Double, axis: Int,
        minAll: Double, maxAll: Double, lineMetrics: Bool
    ) -> [ProjectedFeature]? {
        let k1 = k1 / scale, k2 = k2 / scale
        if minAll >= k1 && maxAll < k2 { return features }
        if maxAll < k1 || minAll >= k2 { return nil }
        var clipped: [ProjectedFeature] = []
        for feature in features { clip(feature, k1, k2, axis: axis, lineMetrics: lineMetrics, into: &clipped) }
        return clipped.isEmpty ? nil : clipped
    }

    /// The parts of one feature between k1 and k2 (already scaled) on `axis`, appended to `out`:
    /// the feature itself when it lies inside, nothing when outside.
    @inline(__always) static func clip(
        _ feature: ProjectedFeature, _ k1: Double, _ k2: Double, axis: Int, lineMetrics: Bool,
        into clipped: inout [ProjectedFeature]
    ) {
        let lo = axis == 0 ? feature.minX : feature.minY
        let hi = axis == 0 ? feature.maxX : feature.maxY
        if lo >= k1 && hi < k2 {
            clipped.append(feature)
            return
        }
        if hi < k1 || lo >= k2 { return }
        clipGeometry(feature, k1, k2, axis: axis, lineMetrics: lineMetrics, into: &clipped)
    }

    static func clipGeometry(
        _ feature: ProjectedFeature, _ k1: Double, _ k2: Double, axis: Int, lineMetrics: Bool,
        into clipped: inout [ProjectedFeature]
    ) {
        switch feature.geometry {
        case .point(let x, let y):
            let a = axis == 0 ? x : y
            if a >= k1 && a <= k2 { clipped.append(feature) }
        case .points(let c):
            let kept = clipPoints(c, k1, k2, axis)
            guard !kept.isEmpty else { return }
            clipped.append(
                ProjectedFeature(
                    ref: feature.ref, kind: kept.count == 3 ? .point : .multiPoint, geometry: .points(kept)))
        case .line(let line):
            var parts: [ProjectedLine] = []
            clipLine(line, into: &parts, k1, k2, axis, polygon: false, trackMetrics: lineMetrics)
            guard !parts.isEmpty else { return }
            if lineMetrics {
                for part in parts {
                    clipped.append(ProjectedFeature(ref: feature.ref, kind: .lineString, geometry: .line(part)))
                }
            } else {
                clipped.append(lines(parts, of: feature))
            }
        case .lines(let lines):
            var parts: [ProjectedLine] = []
            let polygon = feature.kind == .polygon
            // With line metrics, a MultiLineString reaches here only in maplibre-native
            // compatibility (geojson-vt JS made one feature of each line): as geojson-vt-cpp
            // does, a clip that is not a trivial accept makes one line feature of each part, with
            // its line's metrics, as it does of a LineString's parts. (geojson-vt-cpp clips a
            // GeometryCollection as one feature, which MapCore opens: docs/NOTES.md, Known gaps.)
            let metrics = lineMetrics && !polygon
            for line in lines {
                clipLine(line, into: &parts, k1, k2, axis, polygon: polygon, trackMetrics: metrics)
            }
            guard !parts.isEmpty else { return }
            if metrics {
                for part in parts {
                    clipped.append(ProjectedFeature(ref: feature.ref, kind: .lineString, geometry: .line(part)))
                }
                return
            }
            clipped.append(
                polygon
                    ? ProjectedFeature(ref: feature.ref, kind: .polygon, geometry: .lines(parts))
                    : self.lines(parts, of: feature))
        case .polygons(let polygons):
            var kept: [[ProjectedLine]] = []
            for polygon in polygons {
                var rings: [ProjectedLine] = []
                for ring in polygon {
                    clipLine(ring, into: &rings, k1, k2, axis, polygon: true, trackMetrics: false)
                }
                if !rings.isEmpty { kept.append(rings) }
            }
            guard !kept.isEmpty else { return }
            clipped.append(ProjectedFeature(ref: feature.ref, kind: .multiPolygon, geometry: .polygons(kept)))
        }
    }

    /// Line parts as geojson-vt types them: one part is a LineString, more a MultiLineString.
    private static func lines(_ parts: [ProjectedLine], of feature: ProjectedFeature) -> ProjectedFeature {
        parts.count == 1
            ? ProjectedFeature(ref: feature.ref, kind: .lineString, geometry: .line(parts[0]))
            : ProjectedFeature(ref: feature.ref, kind: .multiLineString, geometry: .lines(parts))
    }

    /// The points within [k1, k2] (both ends included).
    private static func clipPoints(_ c: [Double], _ k1: Double, _ k2: Double, _ axis: Int) -> [Double] {
        var out: [Double] = []
        var i = 0
        while i + 2 < c.count {
            let a = c[i + axis]
            if a >= k1 && a <= k2 {
                out.append(c[i])
                out.append(c[i + 1])
                out.append(c[i + 2])
            }
            i += 3
        }
        return out
    }

    /// geojson-vt's `clipLine`: the runs of `line` inside the stripe, appended to `out`. A line
    /// is cut where it leaves the stripe; a ring stays one run, closed again if clipping opened it.
    static func clipLine(
        _ line: ProjectedLine, into out: inout [ProjectedLine], _ k1: Double, _ k2: Double,
        _ axis: Int, polygon: Bool, trackMetrics: Bool
    ) {
        let g = line.coords
        var slice = ProjectedLine(metricsOf: line)
        var len = line.start
        var segLen = 0.0, t = 0.0
        // `slice` is passed in, not captured: a local var a nested function captures and
        // changes is checked for exclusive access at run time on every use (a tenth of an index
        // build over Natural Earth's 1:10m countries).
        @inline(__always) func intersect(
            _ slice: inout ProjectedLine, _ ax: Double, _ ay: Double, _ bx: Double, _ by: Double,
            _ k: Double
        ) -> Double {
            if axis == 0 {
                let t = (k - ax) / (bx - ax)
                slice.append(k, ay + (by - ay) * t, 1)
                return t
            }
            let t = (k - ay) / (by - ay)
            slice.append(ax + (bx - ax) * t, k, 1)
            return t
        }
        var i = 0
        while i < g.count - 3 {
            // Runs the loop below would only copy or skip, taken whole: vertices inside the
            // stripe whose next vertex is inside too are copied at once; vertices below (above)
            // it whose next vertex is below (above) too are skipped. (Line metrics count each
            // segment's length, so they take the loop.)
            if !trackMetrics {
                var j = i
                while j < g.count - 3 {
                    let a = g[j + axis], b = g[j + 3 + axis]
                    guard a >= k1 && a <= k2 && b >= k1 && b <= k2 else { break }
                    j += 3
                }
                if j > i {
                    // Room for the run and a few vertices after it (an exit, a ring's closing
                    // vertex): appended to a run's exact capacity, they would double the
                    // allocation of most clipped rings. Grown at least twofold, so that runs
                    // alternating with crossings stay linear.
                    let needed = slice.coords.count + (j - i) + 12
                    if slice.coords.capacity < needed {
                        slice.coords.reserveCapacity(max(needed, 2 * slice.coords.capacity))
                    }
                    slice.coords.append(contentsOf: g[i..<j])
                    i = j
                    continue
                }
                while j < g.count - 3 {
                    let a = g[j + axis], b = g[j + 3 + axis]
                    guard (a < k1 && b < k1) || (a > k2 && b > k2) else { break }
                    j += 3
                }
                if j > i {
                    i = j
                    continue
                }
            }
            let ax = g[i], ay = g[i + 1], az = g[i + 2], bx = g[i + 3], by = g[i + 4]
            let a = axis == 0 ? ax : ay
            let b = axis == 0 ? bx : by
            var exited = false
            if trackMetrics { segLen = ((ax - bx) * (ax - bx) + (ay - by) * (ay - by)).squareRoot() }
            if a < k1 {
                // Enters the stripe from below k1.
                if b > k1 {
                    t = intersect(&slice, ax, ay, bx, by, k1)
                    if trackMetrics { slice.start = len + segLen * t }
                }
            } else if a > k2 {
                // Enters the stripe from above k2.
                if b < k2 {
                    t = intersect(&slice, ax, ay, bx, by, k2)
                    if trackMetrics { slice.start = len + segLen * t }
                }
            } else {
                slice.append(ax, ay, az)
            }
            if b < k1 && a >= k1 {
                t = intersect(&slice, ax, ay, bx, by, k1)
                exited = true
            }
            if b > k2 && a <= k2 {
                t = intersect(&slice, ax, ay, bx, by, k2)
                exited = true
            }
            if !polygon && exited {
                if trackMetrics { slice.end = len + segLen * t }
                out.append(slice)
                slice = ProjectedLine(metricsOf: line)
            }
            if trackMetrics { len += segLen }
            i += 3
        }
        // The last point.
        if g.count >= 3 {
            let last = g.count - 3
            let a = axis == 0 ? g[last] : g[last + 1]
            if a >= k1 && a <= k2 { slice.append(g[last], g[last + 1], g[last + 2]) }
        }
        // Close a ring whose ends clipping moved apart.
        let end = slice.coords.count - 3
        if polygon && end >= 3 && (slice.coords[end] != slice.coords[0] || slice.coords[end + 1] != slice.coords[1]) {
            slice.append(slice.coords[0], slice.coords[1], slice.coords[2])
        }
        if !slice.coords.isEmpty { out.append(slice) }
    }
}
