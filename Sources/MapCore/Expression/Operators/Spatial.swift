// Expression: `within` and `distance`, computed by GEOS (through Spatial/, which alone calls it).
//
// Semantics (documented in include/mapcore/expression.h):
// - `within`: true when every position of the feature lies in the interior of the shape; a
//   position on the shape's boundary is not within. Works for every geometry type (the
//   reference renderers only handle points and lines). No geometry, or an empty one: false.
// - `distance`: the shortest distance in meters from the feature to the shape (0 when they
//   touch or one contains the other), measured in the "cheap ruler" local flat frame at the
//   latitude of the feature's first position, as the reference does. No geometry: NaN.
// - With a canonical tile id in the context, the feature is first quantized to that tile's
//   8192-unit grid (as renderers see it), which the reference test suite relies on; without
//   one, coordinates are used as given.

import Glibc

private let tileExtent = 8192.0

private typealias Mercator = Projection.MapLibre

/// Reads the `within`/`distance` argument into a geometry (lon/lat). Collections of features
/// become one GeometryCollection. The value goes through text so that the one GeoJSON parser
/// (and its validation rules) reads it; this runs once per compile, never per evaluation.
private func shapeGeometry(_ json: JSONValue) -> GeoJSON? {
    guard case .object = json else { return nil }
    return try? GeoJSONParser.parse(JSON.serialize(json))
}

extension Geometry {
    /// A copy with every position mapped.
    func mapped(_ f: (Double, Double) -> (Double, Double)) -> Geometry {
        var out = self
        out.xy.withUnsafeMutableBufferPointer { xy in
            var i = 0
            while i + 1 < xy.count {
                (xy[i], xy[i + 1]) = f(xy[i], xy[i + 1])
                i += 2
            }
        }
        if type == .geometryCollection { out.geometries = geometries.map { $0.mapped(f) } }
        return out
    }

    /// Every position, GeometryCollections opened.
    func forEachPosition(_ body: (Double, Double) -> Void) {
        Geometry.walk(self) { g in
            var i = 0
            while i + 1 < g.xy.count { body(g.xy[i], g.xy[i + 1]); i += 2 }
        }
    }

    var firstPosition: (Double, Double)? {
        var first: (Double, Double)?
        forEachPosition { x, y in if first == nil { first = (x, y) } }
        return first
    }
}

/// Rounds a feature's positions to the tile grid and back to lon/lat, as a renderer sees it.
private func quantized(_ g: Geometry, _ tile: CanonicalTileID) -> Geometry {
    let scale = pow(2, Double(tile.z))
    return g.mapped { lng, lat in
        let tx = ((Mercator.x(lng: lng) * scale - Double(tile.x)) * tileExtent).jsRounded
        let ty = ((Mercator.y(lat: lat) * scale - Double(tile.y)) * tileExtent).jsRounded
        return (
            Mercator.lng(x: (tx / tileExtent + Double(tile.x)) / scale),
            Mercator.lat(y: (ty / tileExtent + Double(tile.y)) / scale)
        )
    }
}

final class WithinNode: ExprNode, @unchecked Sendable {
    /// Reads the feature's geometry; a shape test is never folded.
    override var reads: NodeReads { .feature }
    override var isFoldable: Bool { false }
    let geojson: JSONValue
    /// All polygons of the argument as one MultiPolygon (lon/lat).
    let shape: Geometry
    /// Points and MultiPoints are located without GEOS (same answers, no geometry per point).
    let locator: PointInPolygonIndex?
    private let lonLatPool: PreparedShapePool
    /// Per zoom: the prepared shape in world coordinates and its x extent (for antimeridian shifts).
    private var tileShapes: [Int: (pool: PreparedShapePool, minX: Double, maxX: Double)] = [:]
    private var poolLock = pthread_mutex_t()

    init(geojson: JSONValue, shape: Geometry) {
        self.geojson = geojson
        self.shape = shape
        locator = PointInPolygonIndex(shape)
        lonLatPool = PreparedShapePool { (s) throws(MapCoreError) in try s.make(shape) { ($0, $1) } }
        pthread_mutex_init(&poolLock, nil)
        super.init(type: .boolean)
    }
    deinit { pthread_mutex_destroy(&poolLock) }

    override func serialize() -> JSONValue { .array([.string("within"), geojson]) }

    static func parse(_ items: [JSONValue], _ ctx: ParsingContext) -> ExprNode? {
        guard items.count == 2 else {
            return ctx.error("'within' expression requires exactly one argument, but found \(items.count - 1) instead.")
        }
        var polygons: [Geometry] = []
        func collect(_ g: Geometry?) {
            guard let g else { return }
            if g.type == .polygon || g.type == .multiPolygon { polygons.append(g) }
        }
        switch shapeGeometry(items[1]) {
        case .featureCollection(let c)?: for f in c.features { collect(f.geometry) }
        case .feature(let f)?: collect(f.geometry)
        case .geometry(let g)?: collect(g)
        case nil: break
        }
        guard !polygons.isEmpty else {
            return ctx.error("'within' expression requires valid geojson object that contains polygon geometry type.")
        }
        return WithinNode(geojson: items[1], shape: WithinNode.multiPolygon(polygons))
    }

    static func multiPolygon(_ polygons: [Geometry]) -> Geometry {
        var out = Geometry(type: .multiPolygon)
        for p in polygons {
            let base = out.xy.count / 2, ringBase = out.partEnds.count
            out.xy.append(contentsOf: p.xy)
            out.partEnds.append(contentsOf: p.partEnds.map { $0 + base })
            if p.type == .polygon {
                out.polygonEnds.append(out.partEnds.count)
            } else {
                out.polygonEnds.append(contentsOf: p.polygonEnds.map { $0 + ringBase })
            }
        }
        return out
    }

    /// The prepared shape in world tile coordinates at zoom z (independent of tile x/y).
    private func tileShape(forZoom z: Int) -> (pool: PreparedShapePool, minX: Double, maxX: Double) {
        pthread_mutex_lock(&poolLock)
        defer { pthread_mutex_unlock(&poolLock) }
        if let t = tileShapes[z] { return t }
        let world = worldCoordinates(shape, z: z)
        var minX = Double.infinity, maxX = -Double.infinity
        world.forEachPosition { x, _ in
            minX = min(minX, x); maxX = max(maxX, x)
        }
        let t = (
            pool: PreparedShapePool { (s) throws(MapCoreError) in try s.make(world) { ($0, $1) } }, minX: minX,
            maxX: maxX
        )
        tileShapes[z] = t
        return t
    }

    private func worldCoordinates(_ g: Geometry, z: Int) -> Geometry {
        let size = pow(2, Double(z)) * tileExtent
        return g.mapped { lng, lat in ((Mercator.x(lng: lng) * size).jsRounded, (Mercator.y(lat: lat) * size).jsRounded)
        }
    }

    override func evaluate(_ ctx: EvaluationContext) throws(EvaluationError) -> ExpressionValue {
        guard let g = ctx.geometry, g.firstPosition != nil else { return .boolean(false) }
        do throws(MapCoreError) {
            if let tile = ctx.canonical {
                guard (0...30).contains(tile.z) else { return .boolean(false) }
                let scale = pow(2, Double(tile.z))
                let worldSize = scale * tileExtent
                var feature = g.mapped { lng, lat in
                    (
                        ((Mercator.x(lng: lng) * scale - Double(tile.x)) * tileExtent).jsRounded + Double(tile.x)
                            * tileExtent,
                        ((Mercator.y(lat: lat) * scale - Double(tile.y)) * tileExtent).jsRounded + Double(tile.y)
                            * tileExtent
                    )
                }
                let target = tileShape(forZoom: tile.z)
                feature = wrapNearShape(feature, worldSize: worldSize, minX: target.minX, maxX: target.maxX)
                return .boolean(
                    try target.pool.withEntry { (e) throws(MapCoreError) -> Bool in
                        try e.containsProperly(feature) { ($0, $1) }
                    })
            }
            if let locator, g.type == .point || g.type == .multiPoint {
                var inside = true
                g.forEachPosition { x, y in inside = inside && locator.locate(x, y) == .interior }
                return .boolean(inside)
            }
            return .boolean(
                try lonLatPool.withEntry { (e) throws(MapCoreError) -> Bool in
                    try e.containsProperly(g) { ($0, $1) }
                })
        } catch {
            throw EvaluationError(error.message)
        }
    }

    /// GEOS's own answer for a point (prepared `containsProperly`): what `locator` reproduces,
    /// kept as the reference the tests compare it with.
    func geosContainsProperly(_ x: Double, _ y: Double) throws(MapCoreError) -> Bool {
        try lonLatPool.withEntry { (e) throws(MapCoreError) -> Bool in try e.containsProperly(x, y) }
    }

    /// Shifts positions by a world width so features near the antimeridian meet a shape written
    /// across it (longitudes beyond ±180), as the reference does.
    private func wrapNearShape(_ feature: Geometry, worldSize: Double, minX: Double, maxX: Double) -> Geometry {
        let half = worldSize / 2
        func shift(_ x: Double) -> Double {
            guard x < minX || x > maxX else { return x }
            var s = x - minX > half ? -worldSize : (minX - x > half ? worldSize : 0)
            if s == 0 { s = x - maxX > half ? -worldSize : (maxX - x > half ? worldSize : 0) }
            return x + s
        }
        if feature.type == .point || feature.type == .multiPoint {
            return feature.mapped { (shift($0), $1) }
        }
        var lo = Double.infinity, hi = -Double.infinity
        feature.forEachPosition { x, _ in
            lo = min(lo, x); hi = max(hi, x)
        }
        guard hi - lo <= half else { return feature }
        return feature.mapped { (shift($0), $1) }
    }
}

/// The "cheap ruler" factors (meters per degree of longitude and latitude) at a latitude,
/// on the WGS84 ellipsoid.
struct CheapRuler {
    let kx: Double, ky: Double
    init(latitude: Double) {
        let re = 6378.137, fe = 1 / 298.257223563
        let e2 = fe * (2 - fe)
        let m = Double.pi / 180 * re * 1000
        let coslat = cos(latitude * Double.pi / 180)
        let w2 = 1 / (1 - e2 * (1 - coslat * coslat))
        let w = w2.squareRoot()
        kx = m * w * coslat
        ky = m * w * w2 * (1 - e2)
    }
}

final class DistanceNode: ExprNode, @unchecked Sendable {
    /// Reads the feature's geometry; a distance is never folded.
    override var reads: NodeReads { .feature }
    override var isFoldable: Bool { false }
    let geojson: JSONValue
    let shape: Geometry

    init(geojson: JSONValue, shape: Geometry) {
        self.geojson = geojson
        self.shape = shape
        super.init(type: .number)
    }
    override func serialize() -> JSONValue { .array([.string("distance"), geojson]) }

    static func parse(_ items: [JSONValue], _ ctx: ParsingContext) -> ExprNode? {
        guard items.count == 2 else {
            return ctx.error(
                "'distance' expression requires exactly one argument, but found \(items.count - 1) instead.")
        }
        var parts: [Geometry] = []
        switch shapeGeometry(items[1]) {
        case .featureCollection(let c)?: parts = c.features.compactMap(\.geometry)
        case .feature(let f)?: if let g = f.geometry { parts = [g] }
        case .geometry(let g)?: parts = [g]
        case nil: break
        }
        guard !parts.isEmpty else {
            return ctx.error("'distance' expression requires valid geojson object that contains polygon geometry type.")
        }
        return DistanceNode(
            geojson: items[1],
            shape: parts.count == 1 ? parts[0] : Geometry(type: .geometryCollection, geometries: parts))
    }

    override func evaluate(_ ctx: EvaluationContext) throws(EvaluationError) -> ExpressionValue {
        guard var g = ctx.geometry else { return .number(.nan) }
        if let tile = ctx.canonical, (0...30).contains(tile.z) { g = quantized(g, tile) }
        guard let (_, lat0) = g.firstPosition else { return .number(.nan) }
        let ruler = CheapRuler(latitude: lat0)
        let toLocal: (Double, Double) -> (Double, Double) = { ($0 * ruler.kx, $1 * ruler.ky) }
        let shape = self.shape
        do throws(MapCoreError) {
            return .number(
                try GEOSSessions.with { (session) throws(MapCoreError) -> Double in
                    let a = try session.make(g, transform: toLocal)
                    let b = try session.make(shape, transform: toLocal)
                    if try session.isEmpty(a) { return .nan }
                    if try session.isEmpty(b) { return .nan }
                    return try session.distance(a, b)
                })
        } catch {
            throw EvaluationError(error.message)
        }
    }
}
