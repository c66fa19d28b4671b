// Geometry: convex hull (the SDK's `Math.convexHull(from:)`).
//
// Result shape, matching GEOS/shapely so the two can be compared:
//   no positions        -> no hull (nil)
//   one distinct point  -> Point
//   all collinear       -> LineString between the two extreme points
//   otherwise           -> Polygon, one closed counter-clockwise ring (RFC 7946 right-hand rule)
//                          starting at the vertex with the smallest longitude (then latitude)
// Collinear points on hull edges and duplicates are dropped.

public enum ConvexHull {
    /// Hull vertices of interleaved longitude/latitude pairs: empty for no input, one position for
    /// a point, two for a segment, or a closed counter-clockwise ring (first position repeated
    /// last) starting at the smallest (x, y) vertex. Throws `invalidArgument` for non-finite
    /// values or magnitudes above 1e100.
    public static func vertices(xy: UnsafeBufferPointer<Double>) throws(MapCoreError) -> ContiguousArray<Double> {
        guard xy.count % 2 == 0 else {
            throw MapCoreError(.invalidArgument, "Positions need an even count of numbers.")
        }
        let n = xy.count / 2
        guard n > 0, let p = xy.baseAddress else { return [] }
        for v in xy where !(abs(v) <= maxRobustCoordinate) {
            throw MapCoreError(
                .invalidArgument,
                v.isFinite
                    ? "Coordinates above 1e100 in magnitude are not supported by the convex hull."
                    : "Positions must be finite numbers (found NaN or infinity).")
        }
        var candidates = filterInterior(p, n)
        sortAndDeduplicate(&candidates)
        return monotoneChain(candidates)
    }

    /// The hull of every position in a GeoJSON value as a Point, LineString or Polygon, or nil
    /// when it has no positions.
    public static func geometry(of value: GeoJSON) throws(MapCoreError) -> Geometry? {
        let xy = Positions.of(value)
        let hull = try xy.withUnsafeBufferPointer { (b) throws(MapCoreError) in try vertices(xy: b) }
        return geometry(fromVertices: hull)
    }

    /// Wraps `vertices(xy:)` output in the geometry its count stands for.
    public static func geometry(fromVertices hull: ContiguousArray<Double>) -> Geometry? {
        switch hull.count / 2 {
        case 0: return nil
        case 1: return Geometry(type: .point, xy: CoordinateList(hull))
        case 2: return Geometry(type: .lineString, xy: CoordinateList(hull))
        default: return Geometry(type: .polygon, xy: CoordinateList(hull), partEnds: [hull.count / 2])
        }
    }

    /// Keeps only points that can be hull vertices. Six extreme points (lowest x+y, y, x−y;
    /// highest x+y, y, y−x) bound an axis-aligned rectangle that lies inside the hull: its
    /// bottom edge is above the chain through the three low points, which spans its width, and
    /// likewise for the top. Points strictly inside it are interior to the hull. Only exact
    /// comparisons decide, so the filter is correct whatever the extremes' rounding.
    private static func filterInterior(_ p: UnsafePointer<Double>, _ n: Int) -> [SIMD2<Double>] {
        var sw = 0, s = 0, se = 0, nw = 0, no = 0, ne = 0
        var minSum = p[0] + p[1], maxSum = minSum, minDiff = p[0] - p[1], maxDiff = minDiff
        var minY = p[1], maxY = p[1]
        for i in 1..<n {
            let x = p[2 * i], y = p[2 * i + 1]
            let sum = x + y, diff = x - y
            if sum < minSum { minSum = sum; sw = i }
            if sum > maxSum { maxSum = sum; ne = i }
            if diff > maxDiff { maxDiff = diff; se = i }
            if diff < minDiff { minDiff = diff; nw = i }
            if y < minY { minY = y; s = i }
            if y > maxY { maxY = y; no = i }
        }
        let left = max(p[2 * sw], p[2 * nw])
        let right = min(p[2 * se], p[2 * ne])
        let bottom = max(p[2 * sw + 1], p[2 * s + 1], p[2 * se + 1])
        let top = min(p[2 * nw + 1], p[2 * no + 1], p[2 * ne + 1])
        var out: [SIMD2<Double>] = []
        guard left < right && bottom < top else {
            out.reserveCapacity(n)
            for i in 0..<n { out.append(SIMD2(p[2 * i], p[2 * i + 1])) }
            return out
        }
        for i in 0..<n {
            let x = p[2 * i], y = p[2 * i + 1]
            if x > left && x < right && y > bottom && y < top { continue }
            out.append(SIMD2(x, y))
        }
        return out
    }

    private static func sortAndDeduplicate(_ points: inout [SIMD2<Double>]) {
        points.sort { $0.x < $1.x || ($0.x == $1.x && $0.y < $1.y) }
        var write = 0
        for read in points.indices where read == 0 || points[read] != points[write - 1] {
            points[write] = points[read]
            write += 1
        }
        points.removeLast(points.count - write)
    }

    /// Andrew's monotone chain over sorted, distinct points.
    private static func monotoneChain(_ pts: [SIMD2<Double>]) -> ContiguousArray<Double> {
        guard pts.count > 2 else {
            var out = ContiguousArray<Double>()
            for q in pts { out.append(q.x); out.append(q.y) }
            return out
        }
        var hull: [SIMD2<Double>] = []
        hull.reserveCapacity(pts.count + 1)
        func turnsLeft(_ a: SIMD2<Double>, _ b: SIMD2<Double>, _ c: SIMD2<Double>) -> Bool {
            orientation(a.x, a.y, b.x, b.y, c.x, c.y) > 0
        }
        for q in pts {
            while hull.count >= 2 && !turnsLeft(hull[hull.count - 2], hull[hull.count - 1], q) { hull.removeLast() }
            hull.append(q)
        }
        let lowerCount = hull.count
        for q in pts.reversed().dropFirst() {
            while hull.count > lowerCount && !turnsLeft(hull[hull.count - 2], hull[hull.count - 1], q) {
                hull.removeLast()
            }
            hull.append(q)
        }
        // All points collinear: the chain went out and straight back.
        if hull.count <= 3 {
            return [pts[0].x, pts[0].y, pts[pts.count - 1].x, pts[pts.count - 1].y]
        }
        var out = ContiguousArray<Double>()
        out.reserveCapacity(hull.count * 2)
        for q in hull { out.append(q.x); out.append(q.y) }
        return out
    }
}
