// Tiling: one tile as geojson-vt's `createTile` makes it (the features simplified for the tile's
// zoom, tiny lines and rings dropped, rings rewound) and its `transform` to integer tile
// coordinates.

/// A feature of a tile, as geojson-vt gives it: `type` 1 (points), 2 (lines) or 3 (polygons);
/// `geometry` one run of x, y pairs for points, else one run per line or ring; `tags` the
/// feature's properties; `id` when it has one.
public struct TileFeature: Sendable, Equatable {
    public var type: UInt8
    public var geometry: [[Double]]
    public var tags: JSONObject?
    public var id: JSONValue?
}

/// A tile of the index. Its features are in the unit square until first asked for, then in tile
/// coordinates (geojson-vt transforms in place, once).
final class IndexedTile {
    let z: Int, x: Int, y: Int
    private(set) var features: [TileFeature] = []
    private(set) var numPoints = 0
    private(set) var numSimplified = 0
    let numFeatures: Int
    private(set) var transformed = false
    var minX = 2.0, minY = 1.0, maxX = -1.0, maxY = 0.0
    /// The clipped features this tile was made from, kept while no child has been cut from
    /// them, so a deeper tile can be cut on demand.
    var source: [ProjectedFeature]?

    init(_ features: [ProjectedFeature], z: Int, x: Int, y: Int, options: TilingOptions) {
        self.z = z
        self.x = x
        self.y = y
        numFeatures = features.count
        let tolerance = z == options.maxZoom ? 0 : options.tolerance / (Double(1 << z) * options.extent)
        // geojson-vt JS rewinds polygon rings; geojson-vt-cpp keeps them as given, and MapLibre
        // Native's polygon fix-up (a wagyu union) outputs rings that depend on that orientation.
        // MapCore keeps them too, but winds them consistently (see windConsistently).
        let rewinds = options.compatibility == .geojsonVT
        for f in features { add(f, tolerance: tolerance, lineMetrics: options.lineMetrics, rewinds: rewinds) }
    }

    private func add(_ feature: ProjectedFeature, tolerance: Double, lineMetrics: Bool, rewinds: Bool) {
        minX = jsMin(minX, feature.minX)
        minY = jsMin(minY, feature.minY)
        maxX = jsMax(maxX, feature.maxX)
        maxY = jsMax(maxY, feature.maxY)
        var simplified: [[Double]] = []
        var outerRings: [Bool] = []  // per kept polygon ring, when rings are not rewound
        switch feature.geometry {
        case .points(let c):
            var run: [Double] = []
            run.reserveCapacity(c.count / 3 * 2)
            var i = 0
            while i + 1 < c.count {
                run.append(c[i])
                run.append(c[i + 1])
                numPoints += 1
                numSimplified += 1
                i += 3
            }
            if !run.isEmpty { simplified.append(run) }
        case .line(let l):
            addLine(&simplified, l, tolerance: tolerance, polygon: false, outer: false, rewinds: rewinds)
        case .lines(let lines):
            let polygon = feature.kind == .polygon
            for (i, l) in lines.enumerated() {
                let kept = simplified.count
                addLine(&simplified, l, tolerance: tolerance, polygon: polygon, outer: i == 0, rewinds: rewinds)
                if polygon && !rewinds && simplified.count > kept { outerRings.append(i == 0) }
            }
        case .polygons(let polygons):
            for polygon in polygons {
                for (i, ring) in polygon.enumerated() {
                    let kept = simplified.count
                    addLine(
                        &simplified, ring, tolerance: tolerance, polygon: true, outer: i == 0, rewinds: rewinds)
                    if !rewinds && simplified.count > kept { outerRings.append(i == 0) }
                }
            }
        }
        guard !simplified.isEmpty else { return }
        if !outerRings.isEmpty { Self.windConsistently(&simplified, outer: outerRings) }
        var tags = feature.tags
        if lineMetrics, feature.kind == .lineString, case .line(let l) = feature.geometry {
            var t = feature.tags ?? JSONObject()
            t["mapbox_clip_start"] = .double(l.start / l.size)
            t["mapbox_clip_end"] = .double(l.end / l.size)
            tags = t
        }
        features.append(TileFeature(type: feature.kind.tileType, geometry: simplified, tags: tags, id: feature.id))
    }

    /// Keeps the vertices important at this tolerance; drops a line shorter than the tolerance
    /// and a ring smaller than its square, counting their points.
    private func addLine(
        _ result: inout [[Double]], _ line: ProjectedLine, tolerance: Double, polygon: Bool,
        outer: Bool, rewinds: Bool
    ) {
        let sqTolerance = tolerance * tolerance
        let count = line.coords.count / 3
        if tolerance > 0 && line.size < (polygon ? sqTolerance : tolerance) {
            numPoints += count
            return
        }
        var ring: [Double] = []
        ring.reserveCapacity(2 * count)
        let c = line.coords
        var i = 0
        while i + 2 < c.count {
            if tolerance == 0 || c[i + 2] > sqTolerance {
                numSimplified += 1
                ring.append(c[i])
                ring.append(c[i + 1])
            }
            numPoints += 1
            i += 3
        }
        if polygon && rewinds { Self.rewind(&ring, clockwise: outer) }
        result.append(ring)
    }

    /// Outer rings clockwise and holes counter-clockwise on screen (y down), by the sign of the
    /// shoelace sum geojson-vt computes.
    private static func rewind(_ ring: inout [Double], clockwise: Bool) {
        guard (shoelace(ring) > 0) == clockwise else { return }
        reverse(&ring)
    }

    /// Rings kept in their input orientation (geojson-vt-cpp's), but each outer ring wound as the
    /// feature's first one and each hole the other way, when the input mixes them: decoders that
    /// group rings by winding (vector-tile-js in GL JS, MapCore's) would otherwise read such a
    /// hole as another polygon. Consistent input, which RFC 7946 asks for, is left as it is.
    private static func windConsistently(_ rings: inout [[Double]], outer: [Bool]) {
        var outerPositive: Bool?
        for k in rings.indices {
            let area = shoelace(rings[k])
            guard area != 0 else { continue }
            let isOuter = k < outer.count && outer[k]
            guard let reference = outerPositive else {
                outerPositive = (area > 0) == isOuter
                continue
            }
            if (area > 0) != (isOuter == reference) { reverse(&rings[k]) }
        }
    }

    /// geojson-vt's shoelace sum over a run of x, y pairs: its sign is the winding.
    private static func shoelace(_ ring: [Double]) -> Double {
        let n = ring.count
        guard n >= 2 else { return 0 }
        var area = 0.0
        var j = n - 2
        var i = 0
        while i < n {
            area += (ring[i] - ring[j]) * (ring[i + 1] + ring[j + 1])
            j = i
            i += 2
        }
        return area
    }

    private static func reverse(_ ring: inout [Double]) {
        let n = ring.count
        var k = 0
        while k < n / 2 {
            ring.swapAt(k, n - 2 - k)
            ring.swapAt(k + 1, n - 1 - k)
            k += 2
        }
    }

    /// The features in integer tile coordinates of `extent` (geojson-vt's `transform`, once).
    func transform(extent: Double) -> [TileFeature] {
        guard !transformed else { return features }
        let z2 = Double(1 << z), tx = Double(x), ty = Double(y)
        for f in features.indices {
            for r in features[f].geometry.indices {
                features[f].geometry[r].withUnsafeMutableBufferPointer { run in
                    var i = 0
                    while i + 1 < run.count {
                        run[i] = (extent * (run[i] * z2 - tx)).jsRounded
                        run[i + 1] = (extent * (run[i + 1] * z2 - ty)).jsRounded
                        i += 2
                    }
                }
            }
        }
        transformed = true
        return features
    }
}
