// Tiling: one tile as geojson-vt's `createTile` makes it (the features simplified for the tile's
// zoom, tiny lines and rings dropped, rings rewound) and its `transform` to integer tile
// coordinates. The tile keeps its features in a few flat arrays, not as `TileFeature`s: an index
// over a million points holds a million features in each of its top tiles, and an array (or two)
// per feature made those tiles most of its memory and much of its build time.

/// A feature of a tile, as geojson-vt gives it: `type` 1 (points), 2 (lines) or 3 (polygons);
/// `geometry` one run of x, y pairs for points, else one run per line or ring; `tags` the
/// feature's properties; `id` when it has one.
public struct TileFeature: Sendable, Equatable {
    public var type: UInt8
    public var geometry: [[Double]]
    public var tags: JSONObject?
    public var id: JSONValue?
}

/// A tile of the index. What splitting needs (its counts and box) is known when it is made; its
/// features are simplified and written out only when the tile is first asked for, since an index
/// is built down to indexMaxZoom and a caller asks for few of those tiles. Until then it keeps
/// the clipped features it was made from, which share their rings with the tiles above and
/// below. Then they are in tile coordinates (geojson-vt transforms in place, once).
final class IndexedTile {
    let z: Int, x: Int, y: Int
    let numFeatures: Int
    /// Every position of the features, simplified away or not (geojson-vt's `numPoints`).
    let numPoints: Int
    let minX: Double, minY: Double, maxX: Double, maxY: Double
    /// The clipped features this tile was made from, kept while no child has been cut from
    /// them, so a deeper tile can be cut on demand.
    var source: [ProjectedFeature]?
    private let inputs: TileInputs
    private let options: TilingOptions
    private var pending: [ProjectedFeature]?
    private var features: FlatFeatures?

    init(_ features: [ProjectedFeature], inputs: TileInputs, z: Int, x: Int, y: Int, options: TilingOptions) {
        self.z = z
        self.x = x
        self.y = y
        self.inputs = inputs
        self.options = options
        numFeatures = features.count
        var points = 0
        var minX = 2.0, minY = 1.0, maxX = -1.0, maxY = 0.0
        for f in features {
            minX = jsMin(minX, f.minX)
            minY = jsMin(minY, f.minY)
            maxX = jsMax(maxX, f.maxX)
            maxY = jsMax(maxY, f.maxY)
            points += f.positionCount
        }
        numPoints = points
        (self.minX, self.minY, self.maxX, self.maxY) = (minX, minY, maxX, maxY)
        pending = features
    }

    /// The features in integer tile coordinates of `extent`: on the first call simplified for the
    /// tile's zoom and transformed (geojson-vt's `createTile` and `transform`). The value is
    /// immutable, so it can be read after the index's lock is let go.
    func written(extent: Double) -> WrittenTile {
        if let features { return WrittenTile(features: features, inputs: inputs) }
        let made = Self.flatten(pending ?? [], z: z, x: x, y: y, extent: extent, options: options)
        features = made
        pending = nil
        return WrittenTile(features: made, inputs: inputs)
    }

    private static func flatten(
        _ features: [ProjectedFeature], z: Int, x: Int, y: Int, extent: Double, options: TilingOptions
    ) -> FlatFeatures {
        var flat = FlatFeatures(capacity: features.count)
        let tolerance = z == options.maxZoom ? 0 : options.tolerance / (Double(1 << z) * options.extent)
        // geojson-vt JS rewinds polygon rings; geojson-vt-cpp keeps them as given, and MapLibre
        // Native's polygon fix-up (a wagyu union) outputs rings that depend on that orientation.
        // MapCore keeps them too, but winds them consistently (see windConsistently).
        let rewinds = options.compatibility == .geojsonVT
        for f in features { flat.add(f, tolerance: tolerance, lineMetrics: options.lineMetrics, rewinds: rewinds) }
        flat.trim()
        flat.transform(extent: extent, z: z, x: x, y: y)
        return flat
    }
}

/// A tile's features in tile coordinates, as `TileFeature`s or as a vector tile layer.
struct WrittenTile: Sendable {
    fileprivate let features: FlatFeatures
    let inputs: TileInputs

    var isEmpty: Bool { features.types.isEmpty }

    var tileFeatures: [TileFeature] { features.tileFeatures(inputs) }

    /// The tile as one MVT layer, written from the flat arrays (no `TileFeature`s made); no
    /// bytes when it has no features.
    func mvt(layer: String, extent: Int, version: Int) -> [UInt8] {
        guard !isEmpty else { return [] }
        var writer = VectorTileEncoder.LayerWriter(name: layer, version: version, features: features.types.count)
        features.encode(into: &writer, inputs: inputs)
        return writer.finish(extent: extent)
    }
}

/// A tile's features in a few flat arrays: per feature its type, its input (ids and tags in the
/// index's `TileInputs`) and the end of its runs in `runEnds`; per run (a feature's points, a
/// line or a ring) the end of its x, y pairs in `coords`. A feature's or run's start is the
/// previous one's end.
private struct FlatFeatures: Sendable {
    var types: [UInt8] = []
    var refs: [Int32] = []
    var featureEnds: [Int] = []
    var runEnds: [Int] = []
    var coords: [Double] = []
    /// lineMetrics: mapbox_clip_start and mapbox_clip_end of the line features, by feature.
    var clipMetrics: [Int: (start: Double, end: Double)] = [:]

    init(capacity: Int) {
        types.reserveCapacity(capacity)
        refs.reserveCapacity(capacity)
        featureEnds.reserveCapacity(capacity)
    }

    /// Growth leaves up to half of each array unused; a tile lives as long as the index.
    mutating func trim() {
        coords = coords.withUnsafeBufferPointer { Array($0) }
        runEnds = runEnds.withUnsafeBufferPointer { Array($0) }
    }

    mutating func add(_ feature: ProjectedFeature, tolerance: Double, lineMetrics: Bool, rewinds: Bool) {
        let firstRun = runEnds.count
        var outerRings: [Bool] = []  // per kept polygon ring, when rings are not rewound
        switch feature.geometry {
        case .point(let x, let y):
            coords.append(x)
            coords.append(y)
            runEnds.append(coords.count)
        case .points(let c):
            let start = coords.count
            var i = 0
            while i + 1 < c.count {
                coords.append(c[i])
                coords.append(c[i + 1])
                i += 3
            }
            if coords.count > start { runEnds.append(coords.count) }
        case .line(let l):
            addLine(l, tolerance: tolerance, polygon: false, outer: false, rewinds: rewinds)
        case .lines(let lines):
            let polygon = feature.kind == .polygon
            for (i, l) in lines.enumerated() {
                let kept = runEnds.count
                addLine(l, tolerance: tolerance, polygon: polygon, outer: i == 0, rewinds: rewinds)
                if polygon && !rewinds && runEnds.count > kept { outerRings.append(i == 0) }
            }
        case .polygons(let polygons):
            for polygon in polygons {
                for (i, ring) in polygon.enumerated() {
                    let kept = runEnds.count
                    addLine(ring, tolerance: tolerance, polygon: true, outer: i == 0, rewinds: rewinds)
                    if !rewinds && runEnds.count > kept { outerRings.append(i == 0) }
                }
            }
        }
        guard runEnds.count > firstRun else { return }
        if !outerRings.isEmpty { windConsistently(runs: firstRun..<runEnds.count, outer: outerRings) }
        if lineMetrics, feature.kind == .lineString, case .line(let l) = feature.geometry {
            clipMetrics[types.count] = (l.start / l.size, l.end / l.size)
        }
        types.append(feature.kind.tileType)
        refs.append(feature.ref)
        featureEnds.append(runEnds.count)
    }

    /// Keeps the vertices important at this tolerance; drops a line shorter than the tolerance
    /// and a ring smaller than its square.
    private mutating func addLine(_ line: ProjectedLine, tolerance: Double, polygon: Bool, outer: Bool, rewinds: Bool) {
        let sqTolerance = tolerance * tolerance
        let c = line.coords
        if tolerance > 0 && line.size < (polygon ? sqTolerance : tolerance) { return }
        let start = coords.count
        var i = 0
        while i + 2 < c.count {
            if tolerance == 0 || c[i + 2] > sqTolerance {
                coords.append(c[i])
                coords.append(c[i + 1])
            }
            i += 3
        }
        if polygon && rewinds && (shoelace(start..<coords.count) > 0) == outer { reverse(start..<coords.count) }
        runEnds.append(coords.count)
    }

    /// The x, y pairs of run `r`, as a range of `coords`.
    @inline(__always) private func run(_ r: Int) -> Range<Int> { (r == 0 ? 0 : runEnds[r - 1])..<runEnds[r] }

    /// Rings kept in their input orientation (geojson-vt-cpp's), but each outer ring wound as the
    /// feature's first one and each hole the other way, when the input mixes them: decoders that
    /// group rings by winding (vector-tile-js in GL JS, MapCore's) would otherwise read such a
    /// hole as another polygon. Consistent input, which RFC 7946 asks for, is left as it is.
    private mutating func windConsistently(runs: Range<Int>, outer: [Bool]) {
        var outerPositive: Bool?
        for (k, r) in runs.enumerated() {
            let area = shoelace(run(r))
            guard area != 0 else { continue }
            let isOuter = k < outer.count && outer[k]
            guard let reference = outerPositive else {
                outerPositive = (area > 0) == isOuter
                continue
            }
            if (area > 0) != (isOuter == reference) { reverse(run(r)) }
        }
    }

    /// geojson-vt's shoelace sum over a run of x, y pairs: its sign is the winding.
    private func shoelace(_ range: Range<Int>) -> Double {
        let n = range.count
        guard n >= 2 else { return 0 }
        let base = range.lowerBound
        var area = 0.0
        var j = n - 2
        var i = 0
        while i < n {
            area += (coords[base + i] - coords[base + j]) * (coords[base + i + 1] + coords[base + j + 1])
            j = i
            i += 2
        }
        return area
    }

    /// Reverses the order of a run's x, y pairs.
    private mutating func reverse(_ range: Range<Int>) {
        let n = range.count, base = range.lowerBound
        var k = 0
        while k < n / 2 {
            coords.swapAt(base + k, base + n - 2 - k)
            coords.swapAt(base + k + 1, base + n - 1 - k)
            k += 2
        }
    }

    /// geojson-vt's `transform`: x, y from the unit square to integer tile coordinates.
    mutating func transform(extent: Double, z: Int, x: Int, y: Int) {
        let z2 = Double(1 << z), tx = Double(x), ty = Double(y)
        coords.withUnsafeMutableBufferPointer { c in
            var i = 0
            while i + 1 < c.count {
                c[i] = (extent * (c[i] * z2 - tx)).jsRounded
                c[i + 1] = (extent * (c[i + 1] * z2 - ty)).jsRounded
                i += 2
            }
        }
    }

    func tileFeatures(_ inputs: TileInputs) -> [TileFeature] {
        var out: [TileFeature] = []
        out.reserveCapacity(types.count)
        var firstRun = 0
        for f in types.indices {
            var geometry: [[Double]] = []
            geometry.reserveCapacity(featureEnds[f] - firstRun)
            for r in firstRun..<featureEnds[f] { geometry.append(Array(coords[run(r)])) }
            firstRun = featureEnds[f]
            out.append(TileFeature(type: types[f], geometry: geometry, tags: tags(f, inputs), id: inputs.id(refs[f])))
        }
        return out
    }

    /// Every feature added to `writer`, its runs read in place.
    func encode(into writer: inout VectorTileEncoder.LayerWriter, inputs: TileInputs) {
        coords.withUnsafeBufferPointer { c in
            var firstRun = 0
            for f in types.indices {
                let runs = firstRun..<featureEnds[f]
                firstRun = featureEnds[f]
                let type = types[f]
                writer.add(type: type, id: inputs.id(refs[f]), tags: tags(f, inputs)) { commands in
                    for r in runs { commands.run(type: type, UnsafeBufferPointer(rebasing: c[run(r)])) }
                }
            }
        }
    }

    /// Feature `f`'s tags: its input's properties, with its line metrics.
    private func tags(_ f: Int, _ inputs: TileInputs) -> JSONObject? {
        var tags = inputs.tags(refs[f])
        if let m = clipMetrics[f] {
            var t = tags ?? JSONObject()
            t["mapbox_clip_start"] = .double(m.start)
            t["mapbox_clip_end"] = .double(m.end)
            tags = t
        }
        return tags
    }
}
