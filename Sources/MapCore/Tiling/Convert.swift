// Tiling: GeoJSON to geojson-vt's intermediate form (its `convert`): positions projected to the
// unit square, lines and rings marked for simplification, GeometryCollections opened into one
// feature per member; ids and tags stay with the input features (`TileInputs`).

enum Convert {
    static func features(of data: GeoJSON, options: TilingOptions) -> [ProjectedFeature] {
        let tolerance = options.tolerance / (Double(1 << options.maxZoom) * options.extent)
        let converter = Converter(options: options, sqTolerance: tolerance * tolerance)
        switch data {
        case .featureCollection(let c):
            // Features convert independently: a large collection is converted in two halves on
            // two threads and joined in input order, which gives the same features.
            let features = c.features
            func convert(_ range: Range<Int>) -> [ProjectedFeature] {
                var out: [ProjectedFeature] = []
                out.reserveCapacity(range.count)
                // TileInputs refuses collections whose indexes do not fit an Int32.
                for i in range {
                    converter.convert(features[i].geometry, ref: Int32(truncatingIfNeeded: i), into: &out)
                }
                return out
            }
            guard features.count >= parallelFrom else { return convert(0..<features.count) }
            let half = features.count / 2
            var first: [ProjectedFeature] = [], second: [ProjectedFeature] = []
            runConcurrently({ first = convert(0..<half) }, { second = convert(half..<features.count) })
            return first + second
        case .feature(let f):
            var out: [ProjectedFeature] = []
            converter.convert(f.geometry, ref: 0, into: &out)
            return out
        case .geometry(let g):
            var out: [ProjectedFeature] = []
            converter.convert(g, ref: 0, into: &out)
            return out
        }
    }

    /// Collections at least this large are converted on two threads.
    static let parallelFrom = 4096

    private struct Converter {
        let options: TilingOptions
        let sqTolerance: Double

        /// `ref`: the input feature's index in the `TileInputs`, which holds its id and tags.
        func convert(_ geometry: Geometry?, ref: Int32, into out: inout [ProjectedFeature]) {
            guard let g = geometry else { return }
            // Members share the collection's id and properties. Nesting is bounded by the parser.
            if g.type == .geometryCollection {
                for member in g.geometries { convert(member, ref: ref, into: &out) }
                return
            }
            // Empty coordinates are treated as a null geometry.
            guard g.positionCount > 0 else { return }
            g.xy.withUnsafeBufferPointer { xy in convertPositions(g, xy, ref: ref, into: &out) }
        }

        private func convertPositions(
            _ g: Geometry, _ xy: UnsafeBufferPointer<Double>, ref: Int32, into out: inout [ProjectedFeature]
        ) {
            func line(_ range: Range<Int>, polygon: Bool) -> ProjectedLine {
                convertLine(xy, positions: range, polygon: polygon)
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
                        ref: ref, kind: .point, geometry: .point(Projection.x(lng: xy[0]), Projection.y(lat: xy[1]))))
            case .multiPoint:
                var c: [Double] = []
                c.reserveCapacity(3 * g.positionCount)
                for p in 0..<g.positionCount {
                    c.append(Projection.x(lng: xy[2 * p]))
                    c.append(Projection.y(lat: xy[2 * p + 1]))
                    c.append(0)
                }
                out.append(ProjectedFeature(ref: ref, kind: .multiPoint, geometry: .points(c)))
            case .lineString:
                out.append(
                    ProjectedFeature(
                        ref: ref, kind: .lineString, geometry: .line(line(0..<g.positionCount, polygon: false))))
            case .multiLineString:
                let lines = parts().map { line($0, polygon: false) }
                if options.lineMetrics {
                    // One feature per line, so each keeps its own metrics.
                    for l in lines {
                        out.append(ProjectedFeature(ref: ref, kind: .lineString, geometry: .line(l)))
                    }
                } else {
                    out.append(ProjectedFeature(ref: ref, kind: .multiLineString, geometry: .lines(lines)))
                }
            case .polygon:
                out.append(
                    ProjectedFeature(
                        ref: ref, kind: .polygon, geometry: .lines(parts().map { line($0, polygon: true) })))
            case .multiPolygon:
                let rings = parts()
                var polygons: [[ProjectedLine]] = []
                var first = 0
                for end in g.polygonEnds {
                    let upper = min(end, rings.count)
                    polygons.append(first < upper ? rings[first..<upper].map { line($0, polygon: true) } : [])
                    first = max(first, upper)
                }
                out.append(ProjectedFeature(ref: ref, kind: .multiPolygon, geometry: .polygons(polygons)))
            case .geometryCollection:
                return
            }
        }

        /// Projects positions `range` of `xy` into a line, with its length (or, for a ring, its
        /// area) and its simplification marks; the ends are always kept.
        func convertLine(
            _ xy: UnsafeBufferPointer<Double>, positions range: Range<Int>, polygon: Bool
        )
            -> ProjectedLine
        {
            var c: [Double] = []
            c.reserveCapacity(3 * range.count)
            var size = 0.0
            var x0 = 0.0, y0 = 0.0
            for (j, p) in range.enumerated() {
                let x = Projection.x(lng: xy[2 * p]), y = Projection.y(lat: xy[2 * p + 1])
                c.append(x)
                c.append(y)
                c.append(0)
                if j > 0 {
                    if polygon {
                        size += (x0 * y - x * y0) / 2
                    } else {
                        size += ((x - x0) * (x - x0) + (y - y0) * (y - y0)).squareRoot()
                    }
                }
                x0 = x
                y0 = y
            }
            guard !c.isEmpty else { return ProjectedLine() }
            let last = c.count - 3
            c[2] = 1
            Simplify.mark(&c, first: 0, last: last, sqTolerance: sqTolerance, tieBreak: options.compatibility)
            c[last + 2] = 1
            let total = abs(size)
            return ProjectedLine(coords: c, size: total, start: 0, end: total)
        }
    }
}
