// Tiling: geojson-vt's intermediate form. Features are projected to the unit square; each line
// or ring is a flat run of (x, y, importance) triples that knows the length (or area) of the
// original line and which stretch of it the run covers, so clipping keeps line metrics.

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

    /// The tile feature type: 1 point, 2 line, 3 polygon.
    var tileType: UInt8 {
        switch self {
        case .point, .multiPoint: return 1
        case .lineString, .multiLineString: return 2
        case .polygon, .multiPolygon: return 3
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
}

/// A feature in the unit square with its bounding box (geojson-vt's `createFeature`).
struct ProjectedFeature: Sendable {
    /// The input feature this was made from, in the index's `TileInputs` (its id and tags).
    var ref: Int32
    var kind: ProjectedKind
    var geometry: ProjectedGeometry
    var minX = Double.infinity, minY = Double.infinity
    var maxX = -Double.infinity, maxY = -Double.infinity

    init(ref: Int32, kind: ProjectedKind, geometry: ProjectedGeometry) {
        self.ref = ref
        self.kind = kind
        self.geometry = geometry
        // The box of the points, lines, or outer rings (an outer ring holds its holes).
        switch geometry {
        case .point(let x, let y): extend(x, y)
        case .points(let c): extend(c)
        case .line(let l): extend(l.coords)
        case .lines(let lines):
            if kind == .polygon {
                if let outer = lines.first { extend(outer.coords) }
            } else {
                for l in lines { extend(l.coords) }
            }
        case .polygons(let polygons):
            for p in polygons { if let outer = p.first { extend(outer.coords) } }
        }
    }

    /// Math.min/Math.max over the x and y of each triple.
    private mutating func extend(_ c: [Double]) {
        var i = 0
        while i + 1 < c.count {
            extend(c[i], c[i + 1])
            i += 3
        }
    }

    @inline(__always) private mutating func extend(_ x: Double, _ y: Double) {
        minX = jsMin(minX, x)
        minY = jsMin(minY, y)
        maxX = jsMax(maxX, x)
        maxY = jsMax(maxY, y)
    }
}
