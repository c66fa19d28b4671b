// Tiling: geojson-vt's intermediate form. Features are projected to the unit square; each line
// or ring is a flat run of (x, y, importance) triples that knows the length (or area) of the
// original line and which stretch of it the run covers, so clipping keeps line metrics.

import CMapCoreKernels

/// A line or ring: (x, y, importance) triples in the unit square. Importance is the squared
/// Douglas-Peucker distance that keeps the vertex (1 for the ends and for clip intersections).
struct ProjectedLine: Sendable {
    var coords: [Double]
    /// The whole original line's length, or its ring's absolute area.
    var size = 0.0
    /// Where this run starts and ends along the original line (lineMetrics).
    var start = 0.0
    var end = 0.0

    init(coords: [Double] = [], size: Double = 0, start: Double = 0, end: Double = 0) {
        self.coords = coords
        self.size = size
        self.start = start
        self.end = end
    }

    /// An empty run with the metrics of `line` (geojson-vt's `newSlice`).
    init(metricsOf line: ProjectedLine) {
        self.init(coords: [], size: line.size, start: line.start, end: line.end)
    }

    @inline(__always) mutating func append(_ x: Double, _ y: Double, _ importance: Double) {
        coords.append(x)
        coords.append(y)
        coords.append(importance)
    }
}

/// geojson-vt's geometry types: what a feature is decides how it is clipped and written.
enum ProjectedKind: UInt8, Sendable {
    case point, multiPoint, lineString, multiLineString, polygon, multiPolygon
    /// A GeometryCollection kept as one feature (maplibre-native compatibility only).
    case collection
    /// A collection's Point member that a clip found outside its stripe: geojson-vt-cpp never
    /// clips such a point, so it stays in the collection and in its box (which decides later
    /// clips) and is written outside every tile below; MapCore writes it only where its tile
    /// coordinates fit geojson-vt-cpp's int16 (`TileRules.writes(pointAt:)`), and keeps no
    /// collection left with far points alone (`Clip`).
    case farPoint

    /// The tile feature type: 1 point, 2 line, 3 polygon. A collection is never written as
    /// one feature (each member is), so it has none: 0.
    var tileType: UInt8 {
        switch self {
        case .point, .multiPoint, .farPoint: return 1
        case .lineString, .multiLineString: return 2
        case .polygon, .multiPolygon: return 3
        case .collection: return 0
        }
    }
}

/// The coordinates of a projected feature, nested as its kind needs.
enum ProjectedGeometry: Sendable {
    /// Point: its position, inline (no array to allocate and count references to for each of
    /// the millions of points a source can hold; a point's importance is never read).
    case point(Double, Double)
    /// MultiPoint: triples.
    case points([Double])
    /// LineString: boxed, so the enum, and every projected point with it, is 16 bytes smaller
    /// than a line's four words.
    indirect case line(ProjectedLine)
    /// MultiLineString lines, or Polygon rings (outer first).
    case lines([ProjectedLine])
    /// MultiPolygon: rings per polygon.
    case polygons([[ProjectedLine]])
    /// A GeometryCollection as geojson-vt-cpp keeps it: one feature, whose box is all its
    /// members' and which a clip cuts as one (see `Clip`); its members share its `ref`. Only in
    /// maplibre-native compatibility: geojson-vt JS makes a feature of each member.
    case collection([ProjectedFeature])
}

/// A feature in the unit square with its bounding box (geojson-vt's `createFeature`).
/// The fields are declared in this order so that kind, ref and the count fill the geometry's
/// padding: 64 bytes a feature.
struct ProjectedFeature: Sendable {
    let geometry: ProjectedGeometry
    let kind: ProjectedKind
    /// The input feature this was made from, in the index's `TileInputs` (its id and tags).
    let ref: Int32
    /// Positions in the geometry, counted where it is made (its arrays are then in cache; a tile
    /// counting them later read two cold lines a feature). Saturates at Int32.max, which only
    /// an input of billions of positions in one feature reaches: its tiles would then be split
    /// as if it had fewer.
    private let positions: Int32
    let minX: Double, minY: Double
    let maxX: Double, maxY: Double

    /// With the box of its positions already known (`Convert` finds it while projecting).
    init(ref: Int32, kind: ProjectedKind, geometry: ProjectedGeometry, box: ProjectedBox) {
        self.ref = ref
        self.kind = kind
        self.geometry = geometry
        positions = Int32(clamping: Self.count(geometry))
        (minX, minY, maxX, maxY) = (box.minX, box.minY, box.maxX, box.maxY)
    }

    /// `cpp`: boxed as geojson-vt-cpp boxes a feature: a polygon by all its rings, grown from
    /// `ProjectedBox.geojsonVTStart`; else as geojson-vt JS does: a polygon by its outer rings (an
    /// outer ring holds its holes, unless the polygon is invalid, and then a clip's trivial cases
    /// differ), grown from nothing.
    init(ref: Int32, kind: ProjectedKind, geometry: ProjectedGeometry, cpp: Bool) {
        var box = cpp ? ProjectedBox.geojsonVTStart : ProjectedBox()
        switch geometry {
        case .point(let x, let y): box.extend(x, y)
        case .points(let c): box.extend(c)
        case .line(let l): box.extend(l.coords)
        case .lines(let lines):
            if kind == .polygon && !cpp {
                if let outer = lines.first { box.extend(outer.coords) }
            } else {
                for l in lines { box.extend(l.coords) }
            }
        case .polygons(let polygons):
            for p in polygons {
                if cpp {
                    for ring in p { box.extend(ring.coords) }
                } else if let outer = p.first {
                    box.extend(outer.coords)
                }
            }
        case .collection(let members):
            for m in members { box.extend(m.box) }
        }
        self.init(ref: ref, kind: kind, geometry: geometry, box: box)
    }

    /// For a loop over `features` that copies feature i (into a child tile, or a wrapped world):
    /// asks for the cache line that the copy of a feature a few places on will retain. Each copy
    /// retains the feature's geometry, whose count lives in a heap object of its own: a cache
    /// miss, then an atomic add that waits for it; asked for early, the misses overlap (those
    /// retains were a twelfth of a first build of 100k polygons). The object's address is the
    /// first word of the enum's payload for every case that holds one; a point's payload is its
    /// x, and a prefetch of any address is only a hint: it never faults.
    @inline(__always) static func prefetchGeometry(ofNext i: Int, in features: UnsafeBufferPointer<ProjectedFeature>) {
        let ahead = 8
        guard i + ahead < features.count else { return }
        mc_prefetch_write(UnsafeRawPointer(bitPattern: geometryWord(i + ahead, in: features)))
    }

    /// The first word of feature i's geometry: for every case that holds an object (all but a
    /// point, whose x it is), the object's address. Copies of a feature share it; a clip that cuts
    /// the feature makes a new one.
    @inline(__always) static func geometryWord(_ i: Int, in features: UnsafeBufferPointer<ProjectedFeature>) -> UInt {
        guard let base = features.baseAddress, let offset = MemoryLayout<ProjectedFeature>.offset(of: \.geometry)
        else { return 0 }
        return UnsafeRawPointer(base + i).load(fromByteOffset: offset, as: UInt.self)
    }

    /// The feature's box.
    var box: ProjectedBox { ProjectedBox(minX: minX, minY: minY, maxX: maxX, maxY: maxY) }

    /// Positions in the geometry (a tile's `numPoints` counts them whether simplified away or not).
    var positionCount: Int { Int(positions) }

    private static func count(_ geometry: ProjectedGeometry) -> Int {
        switch geometry {
        case .point: return 1
        case .points(let c): return c.count / 3
        case .line(let l): return l.coords.count / 3
        case .lines(let lines): return lines.reduce(0) { $0 + $1.coords.count / 3 }
        case .polygons(let polygons):
            return polygons.reduce(0) { n, p in p.reduce(n) { $0 + $1.coords.count / 3 } }
        case .collection(let members): return members.reduce(0) { $0 + $1.positionCount }
        }
    }
}

/// A box grown a position at a time, as geojson-vt grows a feature's (Math.min, Math.max).
struct ProjectedBox {
    var minX = Double.infinity, minY = Double.infinity
    var maxX = -Double.infinity, maxY = -Double.infinity

    /// Where geojson-vt starts a tile's box, and geojson-vt-cpp a feature's too (JS starts a
    /// feature's from nothing): west and north at 2 and 1, east and south at -1 and 0, the far
    /// sides of the world and its wrapped copies. Every projected y lies in [0, 1], and every x of
    /// a longitude within ±540° in [-1, 2], so the box is its positions' for those; a feature
    /// lying wholly past 540° east keeps 2 as its west edge (past 540° west, -1 as its east), which
    /// decides where geojson-vt-cpp's wrap and clips take it.
    static let geojsonVTStart = ProjectedBox(minX: 2, minY: 1, maxX: -1, maxY: 0)

    @inline(__always) mutating func extend(_ x: Double, _ y: Double) {
        minX = jsMin(minX, x)
        minY = jsMin(minY, y)
        maxX = jsMax(maxX, x)
        maxY = jsMax(maxY, y)
    }

    /// Grown by another box: the same as by the positions that grew it.
    @inline(__always) mutating func extend(_ other: ProjectedBox) {
        minX = jsMin(minX, other.minX)
        minY = jsMin(minY, other.minY)
        maxX = jsMax(maxX, other.maxX)
        maxY = jsMax(maxY, other.maxY)
    }

    /// Math.min/Math.max over the x and y of each triple: what `extend(x, y)` per triple gives,
    /// with the NaN test taken out of the loop (a NaN x or y makes both sides of its axis NaN,
    /// and otherwise the first of equal extremes stays), so that the loop is four compares a
    /// triple (growing the boxes of clipped features was a twentieth of an index build).
    mutating func extend(_ c: [Double]) {
        // (x, y) as one SIMD2 lane pair: both axes in one compare and select.
        var low = SIMD2<Double>(repeating: .infinity), high = SIMD2<Double>(repeating: -.infinity)
        var nan = SIMDMask<SIMD2<Int64>>(repeating: false)
        c.withUnsafeBufferPointer { c in
            guard let base = c.baseAddress else { return }
            let raw = UnsafeRawPointer(base)
            var i = 0
            while i + 1 < c.count {
                let p = raw.loadUnaligned(fromByteOffset: 8 * i, as: SIMD2<Double>.self)
                nan .|= p .!= p
                low.replace(with: p, where: p .< low)
                high.replace(with: p, where: p .> high)
                i += 3
            }
        }
        if nan[0] { (low[0], high[0]) = (.nan, .nan) }
        if nan[1] { (low[1], high[1]) = (.nan, .nan) }
        extend(ProjectedBox(minX: low[0], minY: low[1], maxX: high[0], maxY: high[1]))
    }
}
