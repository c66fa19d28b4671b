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
/// below (unless the build splits it: `letFeaturesGo`; where the build stops splitting, it keeps
/// them packed: `pack`). Once written, they are in tile coordinates (geojson-vt transforms in
/// place, once).
final class IndexedTile {
    let z: Int, x: Int, y: Int
    let numFeatures: Int
    /// Every position of the features, simplified away or not (geojson-vt's `numPoints`).
    let numPoints: Int
    let minX: Double, minY: Double, maxX: Double, maxY: Double
    /// The clipped features this tile was made from, kept while no child has been cut from
    /// them, so a deeper tile can be cut on demand.
    var source: [ProjectedFeature]? {
        get {
            unpack()
            return kept
        }
        set { kept = newValue }
    }
    private var kept: [ProjectedFeature]?
    private let inputs: TileInputs
    private let options: TilingOptions
    private var pending: [ProjectedFeature]?
    /// Both `kept` and `pending`, packed (`pack`).
    private var packed: PackedFeatures?
    private var features: Written?

    init(_ features: [ProjectedFeature], inputs: TileInputs, z: Int, x: Int, y: Int, options: TilingOptions) {
        self.z = z
        self.x = x
        self.y = y
        self.inputs = inputs
        self.options = options
        numFeatures = features.count
        var points = 0
        let start = ProjectedBox.geojsonVTStart
        var (minX, minY, maxX, maxY) = (start.minX, start.minY, start.maxX, start.maxY)
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

    /// Whether it let go of the clipped features it was made from before it was written: the
    /// index cuts them again (`restore`) before writing it.
    var lostFeatures: Bool { features == nil && pending == nil && packed == nil }

    /// The clipped features it was made from, while it holds them (until written).
    var pendingFeatures: [ProjectedFeature]? {
        unpack()
        return pending
    }

    /// Packs the clipped features it was made from, which it holds to be written and to cut
    /// deeper tiles from (`PackedFeatures`): called by the build on a tile it stops splitting.
    func pack(_ locator: LineLocator) {
        guard features == nil, packed == nil, let all = pending,
            let p = PackedFeatures(all, locator: locator)
        else { return }
        packed = p
        pending = nil
        kept = nil
    }

    /// Its features packed, while they are (tests).
    var packedFeatures: PackedFeatures? { packed }

    /// Its features back from their packed form, where they are packed.
    private func unpack() {
        guard let p = packed else { return }
        packed = nil
        let all = p.unpacked()
        pending = all
        kept = all
    }

    /// Lets go of the clipped features it was made from (if it is not written yet): called when
    /// it is split, as its children then hold what deeper tiles are cut from. Kept, the copies
    /// of the tiles above the leaves were most of an index's memory (1M points: an array of a
    /// million features in each of zooms 0, 1 and 2), for tiles a caller may never ask for.
    func letFeaturesGo() { pending = nil }

    /// The clipped features it let go, cut again.
    func restore(_ features: [ProjectedFeature]) { pending = features }

    /// The features in integer tile coordinates of `extent`: on the first call simplified for the
    /// tile's zoom and transformed (geojson-vt's `createTile` and `transform`). The value is
    /// immutable, so it can be read after the index's lock is let go. `scratch` is where the
    /// tile is made (see `TileScratch`), one per thread.
    func written(extent: Double, scratch: inout TileScratch) -> WrittenTile {
        if let features { return WrittenTile(written: features, inputs: inputs) }
        unpack()
        let made = Written(
            Self.flatten(
                pending ?? [], positions: numPoints, z: z, x: x, y: y, extent: extent, options: options,
                marks: inputs.marks, scratch: &scratch))
        features = made
        pending = nil
        return WrittenTile(written: made, inputs: inputs)
    }

    /// `positions`: how many the features have (the tile's numPoints); `marks`: where their lines'
    /// marks are made, if they are deferred.
    private static func flatten(
        _ features: [ProjectedFeature], positions: Int, z: Int, x: Int, y: Int, extent: Double,
        options: TilingOptions, marks: DeferredMarks?, scratch: inout TileScratch
    ) -> FlatFeatures {
        var flat = FlatFeatures(features: features.count, positions: positions, room: scratch.take(for: 2 * positions))
        let rule = TileRules(
            options.compatibility, tolerance: TileRules.tolerance(z: z, options: options), z: z, x: x, y: y,
            extent: extent)
        // Through a pointer: iterating the array copied each feature (a retain and a release).
        features.withUnsafeBufferPointer { all in
            guard let marks, !rule.keepsEveryVertex else {
                for i in all.indices { flat.add(all[i], rule: rule, lineMetrics: options.lineMetrics, marks: .empty) }
                return
            }
            marks.withMarks(of: all) { made in
                for i in all.indices { flat.add(all[i], rule: rule, lineMetrics: options.lineMetrics, marks: made) }
            }
        }
        flat.transform(extent: extent, z: z, x: x, y: y, cppRounding: rule.cpp)
        scratch.give(flat.compact())
        return flat
    }
}

/// A written tile's arrays, held by reference: a `WrittenTile` handed out of the index's lock
/// retains this once, not each array (a cost paid on every request of a small tile).
private final class Written: Sendable {
    let features: FlatFeatures

    init(_ features: FlatFeatures) { self.features = features }
}

/// A tile's features in tile coordinates, as `TileFeature`s or as a vector tile layer.
struct WrittenTile: Sendable {
    fileprivate let written: Written
    let inputs: TileInputs

    var isEmpty: Bool { written.features.types.isEmpty }

    var tileFeatures: [TileFeature] { written.features.tileFeatures(inputs) }

    /// geojson-vt's tile object (`TileFeature.tileJSON`), written from the flat arrays.
    func json(pretty: Bool) -> [UInt8] { written.features.json(inputs, pretty: pretty) }

    /// The tile as one MVT layer, written from the flat arrays (no `TileFeature`s made) and
    /// handed to `placement`; no bytes when it has no features.
    func mvt(layer: String, extent: Int, version: Int, into placement: BytePlacement) {
        guard !isEmpty else { return place([], placement) }
        written.features.mvt(layer: layer, extent: extent, version: version, inputs: inputs, into: placement)
    }
}

/// How a tile is made of its features (geojson-vt JS's `createTile`, or geojson-vt-cpp 6.6.5's
/// `InternalTile`, which MapLibre Native runs): what it keeps of their lines and rings at the
/// tile's tolerance (0 at the index's maxZoom, else `tolerance / (2^z · extent)` in the unit
/// square), whether it rewinds rings, and how it rounds to tile coordinates.
struct TileRules {
    let tolerance: Double
    let sqTolerance: Double
    /// Whether tiles are made as geojson-vt-cpp makes them: coordinates rounded as C's `round`,
    /// and a line kept when longer than the tolerance, a ring when larger than its square and a
    /// vertex when more important than that square, also at tolerance 0 (every tile at maxZoom,
    /// and every tile when the tolerance option is 0), where geojson-vt JS keeps every line, ring
    /// and vertex. So at tolerance 0 geojson-vt-cpp drops lines and rings of no size and the
    /// vertices Douglas-Peucker left unmarked (within maxZoom's tolerance of the simplified line);
    /// at a positive tolerance the two differ only where a size equals it exactly (JS keeps it).
    let cpp: Bool
    /// geojson-vt JS rewinds polygon rings; geojson-vt-cpp keeps them as given, and MapLibre
    /// Native's polygon fix-up (a wagyu union) outputs rings that depend on that orientation.
    /// MapCore keeps them too, but winds them consistently (see windConsistently).
    let rewinds: Bool

    /// The tile, for `writes(pointAt:)`.
    private let z2: Double, tx: Double, ty: Double, extent: Double

    /// The zoom, for the deferred marks (`DeferredMarks.kept`).
    let zoom: UInt8

    /// A tile's tolerance in the unit square: 0 at the index's maxZoom.
    static func tolerance(z: Int, options: TilingOptions) -> Double {
        z == options.maxZoom ? 0 : options.tolerance / (Double(1 << z) * options.extent)
    }

    init(_ compatibility: TilingOptions.Compatibility, tolerance: Double, z: Int, x: Int, y: Int, extent: Double) {
        self.tolerance = tolerance
        sqTolerance = tolerance * tolerance
        zoom = UInt8(clamping: z)
        cpp = compatibility == .maplibreNative
        rewinds = compatibility == .geojsonVT
        z2 = Double(1 << z)
        (tx, ty, self.extent) = (Double(x), Double(y), extent)
    }

    /// Whether a point is written (maplibre-native compatibility): where its tile coordinates fit
    /// geojson-vt-cpp's int16, as geojson-vt-cpp writes it there; past them its cast is
    /// undefined, and MapCore writes nothing. Points geojson-vt-cpp never cuts lie so far: a
    /// collection's far points (`ProjectedKind.farPoint`), and Points boxed from past 540°
    /// (`ProjectedBox.geojsonVTStart`). Other geometry lies past int16 only with a buffer past
    /// the extent (every clip takes it whole) and positions far past 540°: geojson-vt-cpp's casts
    /// are undefined there too, and MapCore writes the coordinates as they are (as Int32).
    func writes(pointAt x: Double, _ y: Double) -> Bool {
        let tileX = (extent * (x * z2 - tx)).rounded(), tileY = (extent * (y * z2 - ty)).rounded()
        return tileX >= -32768 && tileX <= 32767 && tileY >= -32768 && tileY <= 32767
    }

    /// Whether the vertices are kept whatever their importance (geojson-vt JS at maxZoom).
    var keepsEveryVertex: Bool { !cpp && tolerance == 0 }

    /// Whether a line (its length) or ring (its area) is big enough to be kept at all.
    func keeps(_ line: ProjectedLine, polygon: Bool) -> Bool {
        let limit = polygon ? sqTolerance : tolerance
        return cpp ? line.size > limit : !(tolerance > 0 && line.size < limit)
    }
}

/// Where tiles are made: the x, y pairs of a tile in the unit square before `compact` stores them
/// in tile coordinates. Kept from tile to tile (one per thread that makes tiles), so making one
/// writes pages already faulted in, not fresh ones the kernel must zero; more than `keptAtMost`
/// doubles (a big tile near the top) are let go rather than held for the index's life.
struct TileScratch {
    private var room: [Double] = []
    static let keptAtMost = 1 << 19

    /// Empty room for `doubles` doubles: the kept room, unless a bigger tile needs its own.
    mutating func take(for doubles: Int) -> [Double] {
        guard doubles <= Self.keptAtMost else { return [] }
        defer { room = [] }
        return room
    }

    mutating func give(_ used: [Double]) {
        if used.capacity <= Self.keptAtMost && used.capacity >= room.capacity { room = used }
    }
}

/// The tile coordinates a written tile stores (`FlatFeatures.compact`).
enum TileCoordinates {
    /// The least and greatest of `c` (NaN, NaN if one is NaN; +inf, -inf if empty), four at a
    /// time: the tests per value of a branching loop were most of `compact`.
    static func range(_ c: UnsafeBufferPointer<Double>) -> (low: Double, high: Double) {
        var low = SIMD4<Double>(repeating: .infinity), high = SIMD4<Double>(repeating: -.infinity)
        var nan = SIMDMask<SIMD4<Int64>>(repeating: false)
        guard let base = c.baseAddress else { return (.infinity, -.infinity) }
        let raw = UnsafeRawPointer(base)
        var i = 0
        while i + 4 <= c.count {
            let v = raw.loadUnaligned(fromByteOffset: 8 * i, as: SIMD4<Double>.self)
            nan .|= v .!= v
            low.replace(with: v, where: v .< low)
            high.replace(with: v, where: v .> high)
            i += 4
        }
        var l = low.min(), h = high.max()
        while i < c.count {
            nan[0] = nan[0] || c[i].isNaN
            l = Swift.min(l, c[i])
            h = Swift.max(h, c[i])
            i += 1
        }
        return any(nan) ? (.nan, .nan) : (l, h)
    }
}

/// A tile's features in a few flat arrays: per feature its type, its input (ids and tags in the
/// index's `TileInputs`) and the end of its runs in `runEnds`; per run (a feature's points, a
/// line or a ring) the end of its x, y pairs in `coords` (`shorts` or `ints` once written out). A
/// feature's or run's start is the previous one's end.
private struct FlatFeatures: Sendable {
    var types: [UInt8] = []
    var refs: [Int32] = []
    var featureEnds: [Int] = []
    var runEnds: [Int] = []
    /// x, y pairs in the unit square while the tile is made, then in tile coordinates; empty
    /// once `compact` moved them to `shorts` or `ints` (unless one does not fit an Int32).
    var coords: [Double] = []
    /// The tile coordinates, integers once transformed, in the smallest of Int16 (extents to
    /// 32,767 with their buffer: 4096 and 8192 tiles), Int32 or Double that holds them all: a
    /// tile lives as long as the index, and each written tile's coordinates were most of its
    /// memory and of the fresh pages a drill-down faulted in.
    var shorts: [Int16] = []
    var ints: [Int32] = []
    /// lineMetrics: mapbox_clip_start and mapbox_clip_end of the line features, by feature.
    var clipMetrics: [Int: (start: Double, end: Double)] = [:]

    /// Room for `features` features of `positions` positions in all: no run or x, y pair is added
    /// beyond them, so no array grows while the tile is made (each growth copied it into fresh
    /// pages, which the kernel must fault in and zero). `room`: an empty array whose capacity the
    /// x, y pairs are made in.
    init(features: Int, positions: Int, room: [Double]) {
        types.reserveCapacity(features)
        refs.reserveCapacity(features)
        featureEnds.reserveCapacity(features)
        runEnds.reserveCapacity(positions)
        coords = room
        coords.reserveCapacity(2 * positions)
    }

    /// After `transform`: the coordinates into `shorts` or `ints`, exactly sized, and `runEnds`
    /// without the room simplification left unused. Coordinates beyond an Int32 (an extent of
    /// billions) stay Doubles, copied out of the room. Returns the room the x, y pairs were made
    /// in, emptied, for the next tile.
    mutating func compact() -> [Double] {
        var room = coords
        let (low, high) = room.withUnsafeBufferPointer(TileCoordinates.range)
        // A NaN makes both NaN, which fits neither.
        let fits16 = low >= -32768 && high <= 32767
        let fits32 = low >= -2_147_483_648 && high <= 2_147_483_647
        if fits16 {
            shorts = room.withUnsafeBufferPointer { Self.converted($0) { Int16($0) } }
            coords = []
        } else if fits32 {
            ints = room.withUnsafeBufferPointer { Self.converted($0) { Int32($0) } }
            coords = []
        } else {
            coords = room.withUnsafeBufferPointer { Array($0) }
        }
        runEnds = runEnds.withUnsafeBufferPointer { Array($0) }
        room.removeAll(keepingCapacity: true)
        return room
    }

    /// `c` as integers of a width that holds every value (checked by the caller with `range`),
    /// each by `convert` (the concrete conversion: the generic one is a slow path).
    @inline(__always)
    private static func converted<I>(_ c: UnsafeBufferPointer<Double>, _ convert: (Double) -> I) -> [I] {
        [I](unsafeUninitializedCapacity: c.count) { out, count in
            for i in c.indices { out[i] = convert(c[i]) }
            count = c.count
        }
    }

    /// `marks`: the made marks of the inputs' lines, which their lines' placeholders name.
    mutating func add(_ feature: borrowing ProjectedFeature, rule: TileRules, lineMetrics: Bool, marks: MarkTable) {
        let rewinds = rule.rewinds
        let firstRun = runEnds.count
        var outerRings: [Bool] = []  // per kept polygon ring, when rings are not rewound
        switch feature.geometry {
        case .point(let x, let y):
            if rule.cpp && !rule.writes(pointAt: x, y) { return }
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
            let start = coords.count
            addLine(l, rule: rule, polygon: false, outer: false, marks: marks.of(feature.ref))
            // geojson-vt-cpp writes no LineString that keeps none of its vertices, where JS writes
            // it empty (as both write a MultiLineString's or polygon's empty parts). Only a
            // tolerance square past 1, the ends' importance, keeps a long enough line so: an extent
            // below the tolerance.
            if rule.cpp && runEnds.count > firstRun && coords.count == start { runEnds.removeLast() }
        case .lines(let lines):
            let polygon = feature.kind == .polygon
            for (i, l) in lines.enumerated() {
                let kept = runEnds.count
                addLine(l, rule: rule, polygon: polygon, outer: i == 0, marks: marks.of(feature.ref))
                if polygon && !rewinds && runEnds.count > kept { outerRings.append(i == 0) }
            }
        case .polygons(let polygons):
            for polygon in polygons {
                for (i, ring) in polygon.enumerated() {
                    let kept = runEnds.count
                    addLine(ring, rule: rule, polygon: true, outer: i == 0, marks: marks.of(feature.ref))
                    if !rewinds && runEnds.count > kept { outerRings.append(i == 0) }
                }
            }
        case .collection(let members):
            // geojson-vt-cpp writes each member as a feature of its own, with the collection's
            // id and tags (far points where geojson-vt-cpp's int16 holds them: see `TileRules`).
            for m in members { add(m, rule: rule, lineMetrics: lineMetrics, marks: marks) }
            return
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

    /// Keeps the vertices `rule` keeps; drops a line or ring it finds too small. `marks`: what
    /// the line's placeholders name (`DeferredMarks.kept`).
    private mutating func addLine(
        _ line: ProjectedLine, rule: TileRules, polygon: Bool, outer: Bool, marks made: UnsafeBufferPointer<UInt8>
    ) {
        guard rule.keeps(line, polygon: polygon) else { return }
        let start = coords.count
        // Room for every pair, then each pair written and kept or not without a branch (which
        // vertices a zoom keeps is random to the CPU), then what was not kept taken off again.
        let pairs = line.coords.count / 3
        coords.append(contentsOf: repeatElement(0, count: 2 * pairs))
        var end = start
        let keepAll = rule.keepsEveryVertex, sqTolerance = rule.sqTolerance, zoom = rule.zoom
        line.coords.withUnsafeBufferPointer { c in
            coords.withUnsafeMutableBufferPointer { out in
                for p in 0..<pairs {
                    out[end] = c[3 * p]
                    out[end + 1] = c[3 * p + 1]
                    end += keepAll || DeferredMarks.kept(c[3 * p + 2], made, sqTolerance, zoom) ? 2 : 0
                }
            }
        }
        coords.removeLast(coords.count - end)
        if polygon && rule.rewinds && (shoelace(start..<coords.count) > 0) == outer { reverse(start..<coords.count) }
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
    /// To integer tile coordinates: rounded as JS's Math.round (halves up), or as C's round
    /// (halves away from zero: geojson-vt-cpp's), which differ at negative halves, in the buffer.
    mutating func transform(extent: Double, z: Int, x: Int, y: Int, cppRounding: Bool) {
        let z2 = Double(1 << z), tx = Double(x), ty = Double(y)
        coords.withUnsafeMutableBufferPointer { c in
            var i = 0
            if cppRounding {
                while i + 1 < c.count {
                    c[i] = (extent * (c[i] * z2 - tx)).rounded()
                    c[i + 1] = (extent * (c[i + 1] * z2 - ty)).rounded()
                    i += 2
                }
                return
            }
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
            for r in firstRun..<featureEnds[f] {
                let range = run(r)
                geometry.append(
                    !shorts.isEmpty
                        ? shorts[range].map(Double.init)
                        : !ints.isEmpty ? ints[range].map(Double.init) : Array(coords[range]))
            }
            firstRun = featureEnds[f]
            out.append(TileFeature(type: types[f], geometry: geometry, tags: tags(f, inputs), id: inputs.id(refs[f])))
        }
        return out
    }

    /// The tile as geojson-vt's tile object, its runs read in place: the bytes
    /// `TileFeature.tileJSON(tileFeatures(inputs))` gives, without making the features.
    func json(_ inputs: TileInputs, pretty: Bool) -> [UInt8] {
        var t = TileJSONWriter(pretty: pretty, features: types.count)
        func write<C>(_ c: UnsafeBufferPointer<C>, _ pairs: (inout JSONWriter, UnsafeBufferPointer<C>) -> Void) {
            var firstRun = 0
            for f in types.indices {
                let runs = featureEnds[f] - firstRun, base = firstRun
                firstRun = featureEnds[f]
                t.feature(type: types[f], runs: runs, tags: tags(f, inputs), id: inputs.id(refs[f])) { k, w in
                    pairs(&w, UnsafeBufferPointer(rebasing: c[run(base + k)]))
                }
            }
        }
        if !shorts.isEmpty {
            shorts.withUnsafeBufferPointer { write($0) { w, p in w.writeCoordinatePairs(p) } }
        } else if !ints.isEmpty {
            ints.withUnsafeBufferPointer { write($0) { w, p in w.writeCoordinatePairs(p) } }
        } else {
            coords.withUnsafeBufferPointer { write($0) { w, p in w.writeCoordinatePairs(p) } }
        }
        return t.finish()
    }

    /// The tile as one MVT layer, its runs read in place. Ids and tags come from the inputs'
    /// interned ones, unless line metrics (which differ from tile to tile) are among them.
    func mvt(layer: String, extent: Int, version: Int, inputs: TileInputs, into placement: BytePlacement) {
        guard clipMetrics.isEmpty else {
            return place(mvtWithOwnTables(layer: layer, extent: extent, version: version, inputs), placement)
        }
        let heads = inputs.interned.layer(refs, inputs: inputs)
        let header = LayerHeader(name: layer, version: version, extent: extent)
        if !shorts.isEmpty {
            return shorts.withUnsafeBufferPointer { mvt($0, heads: heads, header: header, into: placement) }
        } else if !ints.isEmpty {
            return ints.withUnsafeBufferPointer { mvt($0, heads: heads, header: header, into: placement) }
        }
        return coords.withUnsafeBufferPointer { mvt($0, heads: heads, header: header, into: placement) }
    }

    /// A layer's fields other than its features and tables: its version (15) and name (1), written
    /// first, and its extent (5), written last (as `VectorTileEncoder.LayerWriter` writes them).
    private struct LayerHeader {
        let name: String, version: UInt64, extent: UInt64

        init(name: String, version: Int, extent: Int) {
            self.name = name
            self.version = UInt64(max(1, version))
            self.extent = UInt64(max(1, extent))
        }

        var count: Int {
            1 + RawBytes.size(varint: version) + 1 + RawBytes.size(varint: UInt64(name.utf8.count))
                + name.utf8.count + 1 + RawBytes.size(varint: extent)
        }
    }

    /// The tile written where it stays: each feature's geometry is measured first (the same
    /// command words, counted), so the tile's size is known before a byte is written, and it is
    /// written once, through a pointer, with the heads and tables the interned tags gave.
    private func mvt<C: TileCoordinate>(
        _ c: UnsafeBufferPointer<C>, heads: borrowing LayerHeads, header: LayerHeader, into placement: BytePlacement
    ) {
        // The arrays through pointers: a closure reading them through the tile retained and
        // released each of them once per feature.
        types.withUnsafeBufferPointer { types in
            runEnds.withUnsafeBufferPointer { runEnds in
                featureEnds.withUnsafeBufferPointer { featureEnds in
                    heads.ends.withUnsafeBufferPointer { headEnds in
                        let runs = Runs(
                            c: c, types: types, runEnds: runEnds, featureEnds: featureEnds, headEnds: headEnds)
                        // Each feature's geometry bytes, on the stack for a small tile.
                        return withUnsafeTemporaryAllocation(of: Int.self, capacity: types.count) { geometryBytes in
                            Self.mvt(
                                runs, heads: heads, header: header, geometryBytes: geometryBytes, into: placement)
                        }
                    }
                }
            }
        }
    }

    /// A tile's arrays, read through pointers while its layer is written.
    private struct Runs<C: TileCoordinate> {
        let c: UnsafeBufferPointer<C>, types: UnsafeBufferPointer<UInt8>, runEnds: UnsafeBufferPointer<Int>
        let featureEnds: UnsafeBufferPointer<Int>, headEnds: UnsafeBufferPointer<Int>

        /// Feature `f`'s command words, given to `sink`.
        @inline(__always) func geometry<S: CommandSink>(_ f: Int, into sink: S) -> S {
            var commands = VectorTileEncoder.CommandWriter(sink)
            for r in (f == 0 ? 0 : featureEnds[f - 1])..<featureEnds[f] {
                commands.run(
                    type: types[f], UnsafeBufferPointer(rebasing: c[(r == 0 ? 0 : runEnds[r - 1])..<runEnds[r]]))
            }
            return commands.sink
        }

        /// Feature `f`'s head, as a range of the heads' bytes.
        @inline(__always) func head(_ f: Int) -> Range<Int> { (f == 0 ? 0 : headEnds[f - 1])..<headEnds[f] }

        /// Whether every feature is one point, feature f's at c[2f], c[2f + 1].
        var singlePoints: Bool {
            let n = types.count
            guard c.count == 2 * n, runEnds.count == n, featureEnds.count == n else { return false }
            for f in 0..<n where types[f] != 1 || runEnds[f] != 2 * f + 2 || featureEnds[f] != f + 1 { return false }
            return true
        }

        /// Point `f`'s coordinate `k` (0: x, 1: y) as its command word: zigzag of the move from
        /// (0, 0), where each feature's cursor starts (`CommandWriter`).
        @inline(__always) private func word(_ f: Int, _ k: Int) -> UInt64 {
            UInt64(UInt32(truncatingIfNeeded: ProtobufWriter.zigzag(c[2 * f + k].mvtCoordinate)))
        }

        /// The packed bytes of point feature `f` (`singlePoints`): MoveTo of one position (the command
        /// word 1 | 1 << 3, one byte), then x and y.
        @inline(__always) func pointBytes(_ f: Int) -> Int {
            1 + RawBytes.size(varint: word(f, 0)) + RawBytes.size(varint: word(f, 1))
        }

        /// Writes them at `w`; returns where they end.
        @inline(__always) func writePoint(_ f: Int, at w: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer {
            RawBytes.varint(word(f, 1), at: RawBytes.varint(word(f, 0), at: RawBytes.byte(1 | 1 << 3, at: w)))
        }
    }

    /// A feature's bytes: its head (id and tags fields), its type's field (a one-byte key and the
    /// type) and its geometry's (a one-byte key, the length, the packed commands).
    @inline(__always) private static func featureLength(head: Int, type: UInt8, geometry: Int) -> Int {
        head + 1 + RawBytes.size(varint: UInt64(type)) + 1 + RawBytes.size(varint: UInt64(geometry)) + geometry
    }

    /// The two passes: every feature's geometry counted, then the tile written at its size. A tile
    /// whose features are each one point (a point source's) takes a way of its own, the same bytes:
    /// its geometry is a MoveTo and two zigzag varints, and going through the command writer (its
    /// runs, counts and cursor) made encoding such a tile about 1.1 times as long.
    private static func mvt<C: TileCoordinate>(
        _ runs: Runs<C>, heads: borrowing LayerHeads, header: LayerHeader,
        geometryBytes: UnsafeMutableBufferPointer<Int>, into placement: BytePlacement
    ) {
        let n = runs.types.count
        let points = runs.singlePoints
        var layerLength = header.count + heads.keys.count + heads.values.count
        for f in 0..<n {
            let g = points ? runs.pointBytes(f) : runs.geometry(f, into: CommandLength()).bytes
            geometryBytes.initializeElement(at: f, to: g)
            let feature = featureLength(head: runs.head(f).count, type: runs.types[f], geometry: g)
            layerLength += 1 + RawBytes.size(varint: UInt64(feature)) + feature
        }
        let total = 1 + RawBytes.size(varint: UInt64(layerLength)) + layerLength
        placement(total) { base in
            var w = base
            w = RawBytes.byte(0x1A, at: w)  // the tile's layer: field 3, bytes
            w = RawBytes.varint(UInt64(layerLength), at: w)
            w = RawBytes.byte(0x78, at: w)  // version: field 15, varint
            w = RawBytes.varint(header.version, at: w)
            w = RawBytes.byte(0x0A, at: w)  // name: field 1, bytes
            var name = header.name
            w = RawBytes.varint(UInt64(name.utf8.count), at: w)
            w = name.withUTF8 { RawBytes.copy(UnsafeRawBufferPointer($0), to: w) }
            let headBytes = heads.heads.bytes
            if points {
                for f in 0..<n {
                    let head = UnsafeRawBufferPointer(rebasing: headBytes[runs.head(f)])
                    let g = geometryBytes[f]  // at most 11 bytes: a one-byte length
                    w = RawBytes.byte(0x12, at: w)  // a feature: field 2, bytes
                    w = RawBytes.varint(UInt64(head.count + 4 + g), at: w)
                    w = RawBytes.copy(head, to: w)
                    w = RawBytes.byte(0x18, at: w)  // type: field 3, varint: 1, point
                    w = RawBytes.byte(1, at: w)
                    w = RawBytes.byte(0x22, at: w)  // geometry: field 4, packed
                    w = RawBytes.byte(UInt8(truncatingIfNeeded: g), at: w)
                    w = runs.writePoint(f, at: w)
                }
            } else {
                for f in 0..<n {
                    let head = UnsafeRawBufferPointer(rebasing: headBytes[runs.head(f)])
                    let g = geometryBytes[f]
                    let type = UInt64(runs.types[f])
                    w = RawBytes.byte(0x12, at: w)  // a feature: field 2, bytes
                    w = RawBytes.varint(
                        UInt64(featureLength(head: head.count, type: runs.types[f], geometry: g)), at: w)
                    w = RawBytes.copy(head, to: w)
                    w = RawBytes.byte(0x18, at: w)  // type: field 3, varint
                    w = RawBytes.varint(type, at: w)
                    w = RawBytes.byte(0x22, at: w)  // geometry: field 4, packed
                    w = RawBytes.varint(UInt64(g), at: w)
                    w = runs.geometry(f, into: CommandBytes(at: w)).at
                }
            }
            w = heads.keys.withUnsafeBytes { RawBytes.copy($0, to: w) }
            w = RawBytes.copy(heads.values.bytes, to: w)
            w = RawBytes.byte(0x28, at: w)  // extent: field 5, varint
            w = RawBytes.varint(header.extent, at: w)
            return base.distance(to: w)
        }
    }

    /// The tile as one MVT layer with tables of its own (line metrics: tags that differ from tile
    /// to tile).
    private func mvtWithOwnTables(layer: String, extent: Int, version: Int, _ inputs: TileInputs) -> [UInt8] {
        var writer = VectorTileEncoder.LayerWriter(name: layer, version: version, features: types.count)
        func encode<C: TileCoordinate>(_ c: UnsafeBufferPointer<C>) {
            runEnds.withUnsafeBufferPointer { runEnds in
                var firstRun = 0
                for f in types.indices {
                    let runs = firstRun..<featureEnds[f]
                    firstRun = featureEnds[f]
                    let type = types[f]
                    writer.add(type: type, id: inputs.id(refs[f]), tags: tags(f, inputs)) { commands in
                        for r in runs {
                            commands.run(
                                type: type, UnsafeBufferPointer(rebasing: c[(r == 0 ? 0 : runEnds[r - 1])..<runEnds[r]])
                            )
                        }
                    }
                }
            }
        }
        if !shorts.isEmpty {
            shorts.withUnsafeBufferPointer { encode($0) }
        } else if !ints.isEmpty {
            ints.withUnsafeBufferPointer { encode($0) }
        } else {
            coords.withUnsafeBufferPointer { encode($0) }
        }
        return writer.finish(extent: extent)
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
