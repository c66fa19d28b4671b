// Tiling: the antimeridian, as geojson-vt's `wrap` handles it: what reaches past the world's
// west or east edge (plus the buffer) is clipped off and shifted one world east or west, so a
// tile near either edge holds what crosses it. Order: west copy, centre, east copy.

enum Wrap {
    /// `parallel`: the west and east copies are clipped on two threads (a country set's polar
    /// and Pacific coasts are long).
    static func wrap(_ features: [ProjectedFeature], options: TilingOptions, parallel: Bool) -> [ProjectedFeature] {
        let buffer = options.buffer / options.extent
        let rules = Clip.Rules(options)
        var left: [ProjectedFeature]?, right: [ProjectedFeature]?
        var westHolds = false, eastHolds = false
        let west = {
            left = Clip.clip(
                features, scale: 1, -1 - buffer, buffer, axis: 0, minAll: -1, maxAll: 2, rules: rules,
                cppHolds: &westHolds)
        }
        let east = {
            right = Clip.clip(
                features, scale: 1, 1 - buffer, 2 + buffer, axis: 0, minAll: -1, maxAll: 2, rules: rules,
                cppHolds: &eastHolds)
        }
        if parallel {
            runConcurrently(west, east)
        } else {
            west()
            east()
        }
        // geojson-vt-cpp's copy of a world may hold a feature its clip cut to nothing (see Clip),
        // and then it clips the centre too; that happens only to features boxed from past 540°.
        guard left != nil || right != nil || (rules.cpp && (westHolds || eastHolds)) else { return features }
        // Written into one array: the west copy, the world clipped to its buffer, the east copy.
        var merged: [ProjectedFeature] = []
        merged.reserveCapacity(features.count + (left?.count ?? 0) + (right?.count ?? 0))
        if let left { merged += shifted(left, by: 1) }
        // geojson-vt's clip of the centre takes every feature whole when its bounds for all of
        // them (x from -1 to 2) lie inside the stripe: a buffer past the tile's extent, which keeps
        // a position past 540° that the stripe itself would cut.
        if -1 >= -buffer && 2 < 1 + buffer {
            merged += features
        } else {
            features.withUnsafeBufferPointer { all in
                for i in all.indices {
                    ProjectedFeature.prefetchGeometry(ofNext: i, in: all)
                    Clip.clip(all[i], -buffer, 1 + buffer, axis: 0, rules: rules, into: &merged)
                }
            }
        }
        if let right { merged += shifted(right, by: -1) }
        return merged
    }

    private static func shifted(_ features: [ProjectedFeature], by offset: Double) -> [ProjectedFeature] {
        features.map { f in
            let geometry: ProjectedGeometry
            switch f.geometry {
            case .point(let x, let y): geometry = .point(x + offset, y)
            case .points(let c): geometry = .points(shift(c, offset))
            case .line(let l): geometry = .line(shift(l, offset))
            case .lines(let lines): geometry = .lines(lines.map { shift($0, offset) })
            case .polygons(let polygons): geometry = .polygons(polygons.map { $0.map { shift($0, offset) } })
            case .collection(let members): geometry = .collection(shifted(members, by: offset))
            }
            // The box moves with the positions (each x + offset rounds in the same order as the
            // extremes do), as geojson-vt-cpp moves it.
            let box = ProjectedBox(minX: f.minX + offset, minY: f.minY, maxX: f.maxX + offset, maxY: f.maxY)
            return ProjectedFeature(ref: f.ref, kind: f.kind, geometry: geometry, box: box)
        }
    }

    private static func shift(_ line: ProjectedLine, _ offset: Double) -> ProjectedLine {
        ProjectedLine(coords: shift(line.coords, offset), size: line.size, start: line.start, end: line.end)
    }

    private static func shift(_ c: [Double], _ offset: Double) -> [Double] {
        var out = c
        var i = 0
        while i < out.count {
            out[i] += offset
            i += 3
        }
        return out
    }
}
