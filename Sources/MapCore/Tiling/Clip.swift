// Tiling: geojson-vt's stripe clipping: features cut between two axis-parallel lines k1 and k2
// (in units of the tile grid at `scale`), lines split where they leave the stripe, rings closed
// again, line metrics carried along.

import Glibc

enum Clip {
    /// What a clip keeps besides the geometry, from the index's options.
    struct Rules {
        /// lineMetrics: each line part keeps where it lies along its line, and (but in a
        /// collection) becomes a feature of its own.
        let lineMetrics: Bool
        /// Whether the clip is geojson-vt-cpp 6.6.5's (maplibre-native compatibility): a clipped
        /// feature boxed from `ProjectedBox.geojsonVTStart` and a polygon by all its rings (JS:
        /// from nothing, and by its outer rings; the box decides the next clip's trivial cases),
        /// a Point never cut (kept whenever its box straddles the stripe), and its line and ring
        /// clip (`clipLineCpp`).
        let cpp: Bool
        /// Whether the parts become a tile's features (the y clips of `TileIndex.half`; its x
        /// clips' parts are a step on the way): long rings are then clipped into room reserved
        /// for them (`ringRoom`).
        var partsKept = false

        init(_ options: TilingOptions) {
            lineMetrics = options.lineMetrics
            cpp = options.compatibility == .maplibreNative
        }

        init(lineMetrics: Bool, cpp: Bool = false) {
            self.lineMetrics = lineMetrics
            self.cpp = cpp
        }
    }

    /// The parts of `features` between k1/scale and k2/scale on `axis` (0 x, 1 y); nil when none.
    /// `minAll`/`maxAll` bound every feature on that axis, for the trivial cases.
    static func clip(
        _ features: [ProjectedFeature], scale: Double, _ k1: Double, _ k2: Double, axis: Int,
        minAll: Double, maxAll: Double, rules: Rules
    ) -> [ProjectedFeature]? {
        var holds = false
        return clip(
            features, scale: scale, k1, k2, axis: axis, minAll: minAll, maxAll: maxAll, rules: rules,
            cppHolds: &holds)
    }

    /// As above; `cppHolds` is set when geojson-vt-cpp's clip would hold a feature for one of
    /// `features` (see the single feature's clip), which may be a feature cut to nothing (`Wrap`).
    static func clip(
        _ features: [ProjectedFeature], scale: Double, _ k1: Double, _ k2: Double, axis: Int,
        minAll: Double, maxAll: Double, rules: Rules, cppHolds: inout Bool
    ) -> [ProjectedFeature]? {
        let k1 = k1 / scale, k2 = k2 / scale
        if minAll >= k1 && maxAll < k2 { return features }
        if maxAll < k1 || minAll >= k2 { return nil }
        var clipped: [ProjectedFeature] = []
        for feature in features {
            cppHolds = clip(feature, k1, k2, axis: axis, rules: rules, into: &clipped) || cppHolds
        }
        return clipped.isEmpty ? nil : clipped
    }

    /// The parts of one feature between k1 and k2 (already scaled) on `axis`, appended to `out`:
    /// the feature itself when it lies inside, nothing when outside. Returns whether
    /// geojson-vt-cpp's clip holds a feature for it: what was appended, and also a feature whose
    /// geometry was cut to nothing (geojson-vt-cpp keeps it, empty), but for a line under
    /// lineMetrics (geojson-vt-cpp makes a feature of each part, and there is none).
    @inline(__always) @discardableResult static func clip(
        _ feature: ProjectedFeature, _ k1: Double, _ k2: Double, axis: Int, rules: Rules,
        into clipped: inout [ProjectedFeature]
    ) -> Bool {
        let lo = axis == 0 ? feature.minX : feature.minY
        let hi = axis == 0 ? feature.maxX : feature.maxY
        if lo >= k1 && hi < k2 {
            clipped.append(feature)
            return true
        }
        if hi < k1 || lo >= k2 { return false }
        let count = clipped.count
        clipGeometry(feature, k1, k2, axis: axis, rules: rules, into: &clipped)
        let line = feature.kind == .lineString || feature.kind == .multiLineString
        return clipped.count > count || !(rules.lineMetrics && line)
    }

    static func clipGeometry(
        _ feature: ProjectedFeature, _ k1: Double, _ k2: Double, axis: Int, rules: Rules,
        into clipped: inout [ProjectedFeature]
    ) {
        clipGeometry(feature, k1, k2, axis: axis, rules: rules, splitLines: rules.lineMetrics, into: &clipped)
    }

    /// `splitLines`: whether the parts of a line cut in several become line features of their
    /// own (each with its metrics), as a feature's do under lineMetrics; a collection's members
    /// stay one MultiLineString, as geojson-vt-cpp keeps them (which it writes without metrics).
    private static func clipGeometry(
        _ feature: ProjectedFeature, _ k1: Double, _ k2: Double, axis: Int, rules: Rules, splitLines: Bool,
        into clipped: inout [ProjectedFeature]
    ) {
        let lineMetrics = rules.lineMetrics
        switch feature.geometry {
        case .point(let x, let y):
            if rules.cpp {
                // geojson-vt-cpp never cuts a Point: one whose box neither lies inside the
                // stripe nor outside it (a box from past 540°: `ProjectedBox.geojsonVTStart`) is
                // kept, boxed again by its position.
                clipped.append(
                    ProjectedFeature(ref: feature.ref, kind: feature.kind, geometry: feature.geometry, cpp: true))
                return
            }
            let a = axis == 0 ? x : y
            if a >= k1 && a <= k2 { clipped.append(feature) }
        case .points(let c):
            let kept = clipPoints(c, k1, k2, axis)
            guard !kept.isEmpty else { return }
            clipped.append(
                ProjectedFeature(
                    ref: feature.ref, kind: kept.count == 3 ? .point : .multiPoint, geometry: .points(kept),
                    cpp: rules.cpp))
        case .line(let line):
            var parts: [ProjectedLine] = []
            cut(line, into: &parts, k1, k2, axis, polygon: false, trackMetrics: lineMetrics, rules)
            guard !parts.isEmpty else { return }
            if splitLines {
                for part in parts {
                    clipped.append(
                        ProjectedFeature(ref: feature.ref, kind: .lineString, geometry: .line(part), cpp: rules.cpp))
                }
            } else {
                clipped.append(lines(parts, of: feature, cpp: rules.cpp))
            }
        case .lines(let lines):
            var parts: [ProjectedLine] = []
            let polygon = feature.kind == .polygon
            // With line metrics, a MultiLineString reaches here only in maplibre-native
            // compatibility (geojson-vt JS made one feature of each line): as geojson-vt-cpp
            // does, a clip that is not a trivial accept makes one line feature of each part, with
            // its line's metrics, as it does of a LineString's parts (not of a collection's).
            let metrics = lineMetrics && !polygon
            for line in lines {
                cut(line, into: &parts, k1, k2, axis, polygon: polygon, trackMetrics: metrics, rules)
            }
            guard !parts.isEmpty else { return }
            if metrics && splitLines {
                for part in parts {
                    clipped.append(
                        ProjectedFeature(ref: feature.ref, kind: .lineString, geometry: .line(part), cpp: rules.cpp))
                }
                return
            }
            clipped.append(
                polygon
                    ? ProjectedFeature(
                        ref: feature.ref, kind: .polygon, geometry: .lines(parts), cpp: rules.cpp)
                    : self.lines(parts, of: feature, cpp: rules.cpp))
        case .polygons(let polygons):
            var kept: [[ProjectedLine]] = []
            for polygon in polygons {
                var rings: [ProjectedLine] = []
                for ring in polygon {
                    cut(ring, into: &rings, k1, k2, axis, polygon: true, trackMetrics: false, rules)
                }
                if !rings.isEmpty { kept.append(rings) }
            }
            guard !kept.isEmpty else { return }
            clipped.append(
                ProjectedFeature(
                    ref: feature.ref, kind: .multiPolygon, geometry: .polygons(kept), cpp: rules.cpp))
        case .collection(let members):
            let (kept, writes) = clipCollection(members, k1, k2, axis: axis, rules: rules)
            guard writes else { return }
            clipped.append(
                ProjectedFeature(ref: feature.ref, kind: .collection, geometry: .collection(kept), cpp: rules.cpp))
        }
    }

    /// A collection's members cut as geojson-vt-cpp cuts them, and whether any of them lies
    /// inside the stripe. geojson-vt-cpp cuts every member, with no trivial case of its own, and
    /// never cuts a Point member: it stays in the collection's box, and so decides the trivial
    /// cases of later clips, wherever the collection goes, and is written in every tile the
    /// collection reaches, outside the tile. MapCore keeps such a point as a far point (see
    /// `ProjectedKind.farPoint`), and drops a feature whose collection has nothing inside the
    /// stripe: geojson-vt-cpp would carry it into every tile its box reaches, at every zoom, with
    /// nothing but far points (a collection of two far-apart points fills the tiles between them:
    /// a tileset of millions of tiles). A nested collection with nothing inside is kept for its
    /// far points' place in the box. A member cut to nothing is dropped.
    private static func clipCollection(
        _ members: [ProjectedFeature], _ k1: Double, _ k2: Double, axis: Int, rules: Rules
    ) -> (kept: [ProjectedFeature], writes: Bool) {
        var kept: [ProjectedFeature] = []
        var writes = false
        for m in members {
            switch m.geometry {
            case .point(let x, let y):
                let a = axis == 0 ? x : y
                // A far point stays far: every stripe below lies inside this one.
                let inside = m.kind == .point && a >= k1 && a <= k2
                writes = writes || inside
                kept.append(
                    inside || m.kind == .farPoint
                        ? m : ProjectedFeature(ref: m.ref, kind: .farPoint, geometry: m.geometry, box: m.box))
            case .collection(let inner):
                let (parts, innerWrites) = clipCollection(inner, k1, k2, axis: axis, rules: rules)
                writes = writes || innerWrites
                if !parts.isEmpty {
                    kept.append(
                        ProjectedFeature(ref: m.ref, kind: .collection, geometry: .collection(parts), cpp: rules.cpp))
                }
            default:
                let count = kept.count
                clipGeometry(m, k1, k2, axis: axis, rules: rules, splitLines: false, into: &kept)
                writes = writes || kept.count > count
            }
        }
        return (kept, writes)
    }

    /// Line parts as geojson-vt types them: one part is a LineString, more a MultiLineString.
    private static func lines(_ parts: [ProjectedLine], of feature: ProjectedFeature, cpp: Bool) -> ProjectedFeature {
        parts.count == 1
            ? ProjectedFeature(ref: feature.ref, kind: .lineString, geometry: .line(parts[0]), cpp: cpp)
            : ProjectedFeature(ref: feature.ref, kind: .multiLineString, geometry: .lines(parts), cpp: cpp)
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

    /// `clipLine` or `clipLineCpp`, as `rules` ask.
    @inline(__always) private static func cut(
        _ line: ProjectedLine, into out: inout [ProjectedLine], _ k1: Double, _ k2: Double,
        _ axis: Int, polygon: Bool, trackMetrics: Bool, _ rules: Rules
    ) {
        let room =
            rules.partsKept && polygon && line.coords.count >= 3 * ringRoomFrom
            ? ringRoom(line.coords, k1, k2, axis) : 0
        if rules.cpp {
            clipLineCpp(line, into: &out, k1, k2, axis, polygon: polygon, trackMetrics: trackMetrics, room: room)
        } else {
            clipLine(line, into: &out, k1, k2, axis, polygon: polygon, trackMetrics: trackMetrics, room: room)
        }
    }

    /// Rings at least this long (in vertices) are clipped into room reserved for them at once.
    private static let ringRoomFrom = 512

    /// Room (in doubles) for a ring's clipped copy, which is one slice: its vertices in the
    /// stripe, a crossing for each segment that changes side (two for one that passes over the
    /// stripe), and a closing vertex. Reserved at once, a clipped ring keeps no slack from growing
    /// twofold (an index keeps the copies of the features its leaves were cut into) and makes no
    /// copies on the way.
    static func ringRoom(_ c: [Double], _ k1: Double, _ k2: Double, _ axis: Int) -> Int {
        guard axis < c.count else { return 0 }
        return c.withUnsafeBufferPointer { c in
            // Sides: 0 below the stripe, 1 in it, 2 above; from 0 to 2 or back (xor 2) crosses twice.
            var inside = 0, crossings = 0
            var i = axis
            var side = c[i] < k1 ? 0 : c[i] > k2 ? 2 : 1
            while i < c.count {
                let a = c[i]
                let s = a < k1 ? 0 : a > k2 ? 2 : 1
                inside += s == 1 ? 1 : 0
                crossings += s == side ? 0 : s ^ side == 2 ? 2 : 1
                side = s
                i += 3
            }
            return 3 * (inside + crossings + 1)
        }
    }

    /// geojson-vt-cpp 6.6.5's line and ring clip (an older algorithm than JS 4's `clipLine`),
    /// which differs from it where a vertex lies exactly on k1 or k2, and in its metrics:
    /// - a line reaching an edge exactly from outside takes that vertex, as the start of its next
    ///   slice (whose metrics start there), and again as the next segment's start; JS takes it
    ///   once, at the next segment;
    /// - the last vertex is added only by the last segment's branch (a line's from inside, or
    ///   entering across an edge), so one lying exactly on an edge reached from outside is not;
    /// - a ring never takes its last vertex from an inside segment, and is closed with a copy of
    ///   its first when the two differ: a ring ending in repeated vertices may come out open once
    ///   simplification drops the repeat (JS takes the last vertex, with its own importance);
    /// - lengths are sums of `hypot`, the last slice's end that sum (JS keeps the line's end).
    static func clipLineCpp(
        _ line: ProjectedLine, into out: inout [ProjectedLine], _ k1: Double, _ k2: Double,
        _ axis: Int, polygon: Bool, trackMetrics: Bool, room: Int = 0
    ) {
        let g = line.coords
        let n = g.count / 3
        guard n >= 2 else { return }
        var slice = ProjectedLine(metricsOf: line)
        slice.coords.reserveCapacity(room)
        var len = line.start
        var segLen = 0.0
        @inline(__always) func cross(_ slice: inout ProjectedLine, _ i: Int, _ k: Double) -> Double {
            let ax = g[3 * i], ay = g[3 * i + 1], bx = g[3 * i + 3], by = g[3 * i + 4]
            if axis == 0 {
                let t = (k - ax) / (bx - ax)
                slice.append(k, (by - ay) * t + ay, 1)
                return t
            }
            let t = (k - ay) / (by - ay)
            slice.append((bx - ax) * t + ax, k, 1)
            return t
        }
        @inline(__always) func take(_ slice: inout ProjectedLine, _ v: Int) {
            slice.append(g[3 * v], g[3 * v + 1], g[3 * v + 2])
        }
        var i = 0
        while i < n - 1 {
            // Runs of segments inside the stripe, whose first vertices are taken, and runs
            // below or above it, which take nothing, at once (not the last segment, which has
            // branches of its own, nor with metrics, which count every segment).
            if !trackMetrics {
                var j = i
                while j < n - 2 {
                    let a = g[3 * j + axis], b = g[3 * j + 3 + axis]
                    guard a >= k1 && a <= k2 && b >= k1 && b <= k2 else { break }
                    j += 1
                }
                if j > i {
                    let needed = slice.coords.count + 3 * (j - i)
                    if slice.coords.capacity < needed {
                        slice.coords.reserveCapacity(max(needed + 12, 2 * slice.coords.capacity))
                    }
                    slice.coords.append(contentsOf: g[(3 * i)..<(3 * j)])
                    i = j
                    continue
                }
                while j < n - 2 {
                    let a = g[3 * j + axis], b = g[3 * j + 3 + axis]
                    guard (a < k1 && b < k1) || (a > k2 && b > k2) else { break }
                    j += 1
                }
                if j > i {
                    i = j
                    continue
                }
            }
            let a = g[3 * i + axis], b = g[3 * i + 3 + axis]
            let last = i == n - 2
            if trackMetrics {
                segLen = hypot(g[3 * i + 3] - g[3 * i], g[3 * i + 4] - g[3 * i + 1])
            }
            if a < k1 || a > k2 {
                // Outside: `near` the edge it would enter across, `far` the one beyond.
                let (near, far) = a < k1 ? (k1, k2) : (k2, k1)
                let enters = a < k1 ? b > k1 : b < k2
                let passes = a < k1 ? b > k2 : b < k1
                if polygon {
                    if enters {
                        _ = cross(&slice, i, near)
                        if passes {
                            _ = cross(&slice, i, far)
                        } else if last {
                            take(&slice, i + 1)
                        }
                    }
                } else if passes {
                    var t = cross(&slice, i, near)
                    if trackMetrics { slice.start = len + segLen * t }
                    t = cross(&slice, i, far)
                    if trackMetrics { slice.end = len + segLen * t }
                    out.append(slice)
                    slice = ProjectedLine(metricsOf: line)
                } else if enters {
                    let t = cross(&slice, i, near)
                    if trackMetrics { slice.start = len + segLen * t }
                    if last { take(&slice, i + 1) }
                } else if b == near && !last {
                    if trackMetrics { slice.start = len + segLen }
                    take(&slice, i + 1)
                }
            } else {
                take(&slice, i)
                if b < k1 || b > k2 {
                    let t = cross(&slice, i, b < k1 ? k1 : k2)
                    if !polygon {
                        if trackMetrics { slice.end = len + segLen * t }
                        out.append(slice)
                        slice = ProjectedLine(metricsOf: line)
                    }
                } else if last && !polygon {
                    take(&slice, i + 1)
                }
            }
            if trackMetrics { len += segLen }
            i += 1
        }
        guard !slice.coords.isEmpty else { return }
        if polygon {
            let end = slice.coords.count - 3
            if slice.coords[end] != slice.coords[0] || slice.coords[end + 1] != slice.coords[1] {
                slice.append(slice.coords[0], slice.coords[1], slice.coords[2])
            }
        } else if trackMetrics {
            slice.end = len
        }
        out.append(slice)
    }

    /// geojson-vt's `clipLine`: the runs of `line` inside the stripe, appended to `out`. A line
    /// is cut where it leaves the stripe; a ring stays one run, closed again if clipping opened it.
    static func clipLine(
        _ line: ProjectedLine, into out: inout [ProjectedLine], _ k1: Double, _ k2: Double,
        _ axis: Int, polygon: Bool, trackMetrics: Bool, room: Int = 0
    ) {
        let g = line.coords
        var slice = ProjectedLine(metricsOf: line)
        slice.coords.reserveCapacity(room)
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
                    // Grown (if it must be) for the run and a few vertices after it (an exit, a
                    // ring's closing vertex): appended to a run's exact capacity, they would
                    // double the allocation of most clipped rings. At least twofold, so that runs
                    // alternating with crossings stay linear. A long ring's room (`ringRoom`)
                    // holds them already.
                    let needed = slice.coords.count + (j - i)
                    if slice.coords.capacity < needed {
                        slice.coords.reserveCapacity(max(needed + 12, 2 * slice.coords.capacity))
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
