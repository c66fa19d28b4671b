// Tiling: GeoJSON to geojson-vt's intermediate form (its `convert`): positions projected to the
// unit square, lines and rings marked for simplification, GeometryCollections opened into one
// feature per member (geojson-vt JS) or kept one (geojson-vt-cpp); ids and tags stay with the
// input features (`TileInputs`).

import Glibc

enum Convert {
    static func features(of data: GeoJSON, options: TilingOptions) -> [ProjectedFeature] {
        converted(data, options: options, deferMarks: false).features
    }

    /// The features, and whether any has a line (or ring) with positions. `deferMarks`: lines are
    /// not marked for simplification; each inner vertex's mark is a placeholder (`DeferredMarks`),
    /// marked when a tile first needs it.
    static func converted(
        _ data: GeoJSON, options: TilingOptions, deferMarks: Bool
    ) -> (features: [ProjectedFeature], lines: Bool) {
        let converter = Converter(options: options, sqTolerance: Simplify.sqTolerance(options), deferMarks: deferMarks)
        switch data {
        case .featureCollection(let c):
            // Features convert independently: a large collection is converted in blocks on two
            // threads, one from each end, and joined in input order, which gives the same
            // features. Many features are cut into blocks by count; a few big ones (a country
            // set's coastlines) by positions, which are the work: projecting and Douglas-Peucker.
            let features = c.features
            /// Returns whether a line was made.
            func convert(_ range: Range<Int>, into out: inout [ProjectedFeature]) -> Bool {
                // TileInputs refuses collections whose indexes do not fit an Int32. Through a
                // pointer: the array's subscript copied each geometry (a retain and a release of
                // each of its arrays, cold).
                features.withUnsafeBufferPointer { all in
                    var lines = false
                    for i in range {
                        let made = converter.convert(all[i].geometry, ref: Int32(truncatingIfNeeded: i), into: &out)
                        lines = lines || made
                    }
                    return lines
                }
            }
            guard let starts = blocks(features) else {
                var out: [ProjectedFeature] = []
                out.reserveCapacity(features.count)
                let lines = convert(0..<features.count, into: &out)
                return (out, lines)
            }
            let ends = TwoEnds(starts.count - 1)
            // The front thread's array takes room for all, so that joining copies only the back
            // thread's features. Those are kept an array per block, in the order taken (last
            // first): each the size of its block, where one array for all of them took more than
            // half its room in some builds, and grew into a copy and an allocation past glibc's
            // largest mmap threshold for 1M points (fresh pages in every build).
            var front: [ProjectedFeature] = [], back: [[ProjectedFeature]] = []
            var frontLines = false, backLines = false
            runConcurrently(
                {
                    while let b = ends.takeBack() {
                        var block: [ProjectedFeature] = []
                        block.reserveCapacity(starts[b + 1] - starts[b])
                        if convert(starts[b]..<starts[b + 1], into: &block) { backLines = true }
                        back.append(block)
                    }
                },
                {
                    front.reserveCapacity(features.count)
                    while let b = ends.takeFront() {
                        if convert(starts[b]..<starts[b + 1], into: &front) { frontLines = true }
                    }
                })
            for block in back.reversed() { front += block }
            return (front, frontLines || backLines)
        case .feature(let f):
            var out: [ProjectedFeature] = []
            let lines = converter.convert(f.geometry, ref: 0, into: &out)
            return (out, lines)
        case .geometry(let g):
            var out: [ProjectedFeature] = []
            let lines = converter.convert(g, ref: 0, into: &out)
            return (out, lines)
        }
    }

    /// Collections of at least this many features, or of fewer with at least
    /// `parallelPositionsFrom` positions in all, are converted (and their index cut) on two
    /// threads.
    static let parallelFrom = 4096
    static let parallelPositionsFrom = 65_536

    /// Blocks a thread takes at a time, about this many in all: few enough that taking one is
    /// nothing beside converting it, many enough that the threads end close together.
    static let blockCount = 64

    /// Where each block of a collection worth two threads starts (and, last, its end), or nil
    /// for one worth one thread.
    static func blocks(_ features: [Feature]) -> [Int]? {
        let n = features.count
        if n >= parallelFrom {
            let size = (n + blockCount - 1) / blockCount
            return Array(stride(from: 0, to: n, by: size)) + [n]
        }
        let sizes = features.map { positions(of: $0.geometry) }
        let total = sizes.reduce(0, +)
        guard total >= parallelPositionsFrom else { return nil }
        // A block ends once the positions so far pass the next of `blockCount` equal shares of
        // the total; after a big feature, which passes several at once, blocks of one feature
        // each follow until the count catches up.
        var starts = [0], sum = 0
        for (i, size) in sizes.enumerated().dropLast() {
            sum += size
            if sum * blockCount >= total * starts.count { starts.append(i + 1) }
        }
        return starts + [n]
    }

    /// Whether cutting these (converted) features is worth two threads, by the rule above.
    static func worthTwoThreads(_ features: [ProjectedFeature]) -> Bool {
        features.count >= parallelFrom || features.reduce(0) { $0 + $1.positionCount } >= parallelPositionsFrom
    }

    /// The positions of `geometry` and of its members.
    static func positions(of geometry: Geometry?) -> Int {
        guard let g = geometry else { return 0 }
        return g.type == .geometryCollection ? g.geometries.reduce(0) { $0 + positions(of: $1) } : g.positionCount
    }

    private struct Converter {
        let options: TilingOptions
        let sqTolerance: Double
        let deferMarks: Bool
        /// geojson-vt projects with V8's Math, geojson-vt-cpp with C's.
        var math: MathLibrary { options.compatibility == .geojsonVT ? .javaScript : .c }

        /// `ref`: the input feature's index in the `TileInputs`, which holds its id and tags.
        /// Returns whether it made a line (or ring) with positions.
        func convert(_ geometry: Geometry?, ref: Int32, into out: inout [ProjectedFeature]) -> Bool {
            var positions = 0
            convert(geometry, ref: ref, into: &out, positions: &positions)
            return positions > 0
        }

        /// `positions`: how many vertices the input's lines before this geometry's have (the
        /// deferred marks' placeholders count on from there).
        private func convert(
            _ geometry: Geometry?, ref: Int32, into out: inout [ProjectedFeature], positions: inout Int
        ) {
            guard let g = geometry else { return }
            // Members share the collection's id and properties. Nesting is bounded by the parser.
            if g.type == .geometryCollection {
                guard options.compatibility == .maplibreNative else {
                    for member in g.geometries { convert(member, ref: ref, into: &out, positions: &positions) }
                    return
                }
                // geojson-vt-cpp keeps the collection one feature (see `ProjectedGeometry`).
                var members: [ProjectedFeature] = []
                for member in g.geometries { convert(member, ref: ref, into: &members, positions: &positions) }
                if !members.isEmpty {
                    out.append(ProjectedFeature(ref: ref, kind: .collection, geometry: .collection(members), cpp: true))
                }
                return
            }
            // Empty coordinates are treated as a null geometry.
            guard g.positionCount > 0 else { return }
            g.xy.withUnsafeBufferPointer { xy in convertPositions(g, xy, ref: ref, into: &out, positions: &positions) }
        }

        private func convertPositions(
            _ g: Geometry, _ xy: UnsafeBufferPointer<Double>, ref: Int32, into out: inout [ProjectedFeature],
            positions: inout Int
        ) {
            // Each feature's box is grown while its lines are projected: the box of its points,
            // lines, or rings (outer rings only for geojson-vt JS, and from geojson-vt-cpp's start
            // for it: see ProjectedFeature's init).
            let cpp = options.compatibility == .maplibreNative
            var box = cpp ? ProjectedBox.geojsonVTStart : ProjectedBox()
            func line(_ range: Range<Int>, polygon: Bool, bounds: Bool) -> ProjectedLine {
                var lineBox = ProjectedBox()
                let l = convertLine(xy, positions: range, polygon: polygon, box: &lineBox, first: positions)
                positions += range.count
                if bounds { box.extend(lineBox) }
                return l
            }
            func parts() -> [Range<Int>] {
                var start = 0
                return g.partEnds.map { end in
                    defer { start = end }; return start..<end
                }
            }
            switch g.type {
            case .point:
                out.append(
                    ProjectedFeature(
                        ref: ref, kind: .point,
                        geometry: .point(Projection.x(lng: xy[0]), Projection.y(lat: xy[1], math)), cpp: cpp))
            case .multiPoint:
                let n = g.positionCount
                let c = [Double](unsafeUninitializedCapacity: 3 * n) { buffer, count in
                    for p in 0..<n {
                        buffer[3 * p] = Projection.x(lng: xy[2 * p])
                        buffer[3 * p + 1] = xy[2 * p + 1]
                        buffer[3 * p + 2] = 0
                    }
                    count = 3 * n
                    if let base = buffer.baseAddress { Projection.ys(base + 1, stride: 3, count: n, math) }
                }
                out.append(ProjectedFeature(ref: ref, kind: .multiPoint, geometry: .points(c), cpp: cpp))
            case .lineString:
                let l = line(0..<g.positionCount, polygon: false, bounds: true)
                out.append(ProjectedFeature(ref: ref, kind: .lineString, geometry: .line(l), box: box))
            case .multiLineString:
                if options.lineMetrics && options.compatibility == .geojsonVT {
                    // One feature per line, so each keeps its own metrics. geojson-vt-cpp keeps
                    // the feature whole: its tiles hold it without metrics where every clip so
                    // far took it whole, and its parts as line features with their metrics once
                    // a clip's edge crossed its box (see Clip).
                    for range in parts() {
                        box = ProjectedBox()
                        let l = line(range, polygon: false, bounds: true)
                        out.append(ProjectedFeature(ref: ref, kind: .lineString, geometry: .line(l), box: box))
                    }
                } else {
                    let lines = parts().map { line($0, polygon: false, bounds: true) }
                    out.append(ProjectedFeature(ref: ref, kind: .multiLineString, geometry: .lines(lines), box: box))
                }
            case .polygon:
                var first = true
                let rings = parts().map { range in
                    defer { first = false }
                    return line(range, polygon: true, bounds: first || cpp)
                }
                out.append(ProjectedFeature(ref: ref, kind: .polygon, geometry: .lines(rings), box: box))
            case .multiPolygon:
                let rings = parts()
                var polygons: [[ProjectedLine]] = []
                var first = 0
                for end in g.polygonEnds {
                    let upper = min(end, rings.count)
                    polygons.append(
                        first < upper
                            ? (first..<upper).map { line(rings[$0], polygon: true, bounds: $0 == first || cpp) }
                            : []
                    )
                    first = max(first, upper)
                }
                out.append(ProjectedFeature(ref: ref, kind: .multiPolygon, geometry: .polygons(polygons), box: box))
            case .geometryCollection:
                return
            }
        }

        /// Projects positions `range` of `xy` into a line, with its length (or, for a ring, its
        /// area) and its simplification marks (the ends are always kept; with `deferMarks` the
        /// others are placeholders numbered from `first`), growing `box` by them.
        func convertLine(
            _ xy: UnsafeBufferPointer<Double>, positions range: Range<Int>, polygon: Bool, box: inout ProjectedBox,
            first: Int
        )
            -> ProjectedLine
        {
            guard !range.isEmpty else { return ProjectedLine() }
            var size = 0.0
            // geojson-vt-cpp sums `hypot` (a line's length decides whether a tile keeps it, and
            // its metrics are shares of it).
            let hypotLengths = options.compatibility == .maplibreNative
            // Filled in place: every triple is written, so none is read uninitialised. y is made
            // from the latitude in the slot it ends in, over the whole line (`Projection.ys`).
            var c = [Double](unsafeUninitializedCapacity: 3 * range.count) { out, count in
                var k = 0
                for p in range {
                    out[k] = Projection.x(lng: xy[2 * p])
                    out[k + 1] = xy[2 * p + 1]
                    out[k + 2] = 0
                    k += 3
                }
                count = k
                if let base = out.baseAddress { Projection.ys(base + 1, stride: 3, count: range.count, math) }
                if deferMarks {
                    var mark = DeferredMarks.placeholder(first)
                    k = 2
                    while k < count {
                        out[k] = mark
                        mark -= 1  // exact: placeholders stay below 2^53
                        k += 3
                    }
                }
                // Summed in a local: `size` is captured by this closure, and adding to it would store
                // and reload it at each vertex, a chain through memory.
                var x0 = 0.0, y0 = 0.0, sum = 0.0
                k = 0
                while k < count {
                    let x = out[k], y = out[k + 1]
                    if k > 0 {
                        if polygon {
                            sum += (x0 * y - x * y0) / 2
                        } else if hypotLengths {
                            sum += hypot(x - x0, y - y0)
                        } else {
                            sum += ((x - x0) * (x - x0) + (y - y0) * (y - y0)).squareRoot()
                        }
                    }
                    x0 = x
                    y0 = y
                    k += 3
                }
                size = sum
            }
            box.extend(c)
            let last = c.count - 3
            c[2] = 1
            if !deferMarks {
                Simplify.mark(&c, first: 0, last: last, sqTolerance: sqTolerance, tieBreak: options.compatibility)
            }
            c[last + 2] = 1
            let total = abs(size)
            return ProjectedLine(coords: c, size: total, start: 0, end: total)
        }
    }
}
