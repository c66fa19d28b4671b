// TileSource: which tiles a view needs, as MapLibre Native decides (util::tileCover over a
// longitude/latitude box, coveringZoomLevel, the source's zoom range and bounds), and the SDK's
// camera helper that fits a box into a viewport.

import Glibc

public enum TileCover {
    /// The latitude where the Web Mercator square ends (MapLibre's util::LATITUDE_MAX).
    public static let maxLatitude = 85.051128779806604
    /// The most tiles one cover lists; a world-wide box at a high zoom would otherwise ask for
    /// billions.
    public static let maxTiles = 1 << 20

    /// The tiles at `zoom` that a longitude/latitude box touches, closest to the box's centre
    /// first (then by x, then y), as MapLibre Native's `tileCover(LatLngBounds, z)` scans the two
    /// triangles of the box. A box with `west > east` crosses the antimeridian. Tiles past the
    /// antimeridian are wrapped into the grid; each tile appears once.
    public static func tiles(covering box: BoundingBox, zoom: Int) throws(MapCoreError) -> [TileID] {
        guard zoom >= 0, zoom <= TileID.maxZoom else {
            throw MapCoreError(.invalidArgument, "Zoom must be 0...\(TileID.maxZoom); got \(zoom).")
        }
        guard box.west.isFinite, box.east.isFinite, box.south.isFinite, box.north.isFinite else {
            throw MapCoreError(.invalidArgument, "A bounding box needs finite numbers.")
        }
        guard box.south <= box.north else {
            throw MapCoreError(.invalidArgument, "A bounding box needs south <= north.")
        }
        let south = max(box.south, -maxLatitude), north = min(box.north, maxLatitude)
        guard south <= north else { return [] }
        var west = box.west, east = box.east
        if west > east { east += 360 }
        guard west <= east else {
            // Found by the tilejson fuzz target: bounds [2.7e60, -85, 181, 85] projected past any
            // integer tile column.
            throw MapCoreError(
                .invalidArgument,
                "A bounding box's west (\(JSNumber.format(box.west))) lies more than a world east of its east "
                    + "(\(JSNumber.format(box.east))).")
        }
        // More than one world across covers the world once; a box in another world copy is
        // moved into this one (its tiles are the same, wrapped).
        if east - west >= 360 {
            west = -180
            east = 180
        } else {
            let shift = ((west + 180) / 360).rounded(.down) * 360
            west -= shift
            east -= shift
        }
        let n = Double(1 << zoom)
        func project(_ lng: Double, _ lat: Double) -> (x: Double, y: Double) {
            (Projection.MapLibre.x(lng: lng) * n, Projection.MapLibre.y(lat: lat) * n)
        }
        let tl = project(west, north), tr = project(east, north)
        let br = project(east, south), bl = project(west, south)
        let c = project((west + east) / 2, (south + north) / 2)
        let columns = ceil(br.x) - floor(tl.x), rows = ceil(br.y) - floor(tl.y)
        guard columns * rows <= Double(maxTiles) else {
            throw MapCoreError(
                .limit,
                "The box covers about \(JSNumber.format(columns * rows)) tiles at zoom \(zoom); "
                    + "at most \(maxTiles) are listed.")
        }
        let tiles = Int32(1 << min(zoom, 30))
        var found: [(x: Int32, y: Int32, d: Double)] = []
        let scan: (Int32, Int32, Int32) -> Void = { x0, x1, y in
            guard y >= 0, y <= tiles else { return }
            var x = x0
            while x < x1 {
                let dx = Double(x) + 0.5 - c.x, dy = Double(y) + 0.5 - c.y
                found.append((x, y, dx * dx + dy * dy))
                x += 1
            }
        }
        scanTriangle(tl, tr, br, 0, tiles, scan)
        scanTriangle(br, bl, tl, 0, tiles, scan)
        found.sort { ($0.d, $0.x, $0.y) < ($1.d, $1.x, $1.y) }
        var out: [TileID] = []
        out.reserveCapacity(found.count)
        let size = Int(tiles)
        var wrapped = false
        for (i, t) in found.enumerated() where t.y < tiles {
            // The triangles' shared edge gives the same tile twice, side by side once sorted.
            if i > 0, found[i - 1].x == t.x, found[i - 1].y == t.y { continue }
            // Rows past the grid's south edge are dropped; columns past the antimeridian wrap.
            wrapped = wrapped || t.x < 0 || t.x >= tiles
            out.append(TileID(z: zoom, x: ((Int(t.x) % size) + size) % size, y: Int(t.y)))
        }
        guard wrapped else { return out }
        // A wrapped column can meet its unwrapped twin far apart in the order: keep the first.
        var seen = Set<TileID>()
        return out.filter { seen.insert($0).inserted }
    }

    private struct Edge {
        var x0: Double, y0: Double, x1: Double, y1: Double, dx: Double, dy: Double
        init(_ a: (x: Double, y: Double), _ b: (x: Double, y: Double)) {
            let (p, q) = a.y > b.y ? (b, a) : (a, b)
            x0 = p.x
            y0 = p.y
            x1 = q.x
            y1 = q.y
            dx = q.x - p.x
            dy = q.y - p.y
        }
    }

    private static func scanTriangle(
        _ a: (x: Double, y: Double), _ b: (x: Double, y: Double), _ c: (x: Double, y: Double),
        _ ymin: Int32, _ ymax: Int32, _ scan: (Int32, Int32, Int32) -> Void
    ) {
        var ab = Edge(a, b), bc = Edge(b, c), ca = Edge(c, a)
        if ab.dy > bc.dy { swap(&ab, &bc) }
        if ab.dy > ca.dy { swap(&ab, &ca) }
        if bc.dy > ca.dy { swap(&bc, &ca) }
        if ab.dy != 0 { scanSpans(ca, ab, ymin, ymax, scan) }
        if bc.dy != 0 { scanSpans(ca, bc, ymin, ymax, scan) }
    }

    /// A tile column from a projected x, clamped into Int32 (an x past any integer would trap).
    private static func column(_ x: Double) -> Int32 {
        x.isNaN ? 0 : Int32(Glibc.fmax(Double(Int32.min), Glibc.fmin(Double(Int32.max), x)))
    }

    private static func scanSpans(
        _ first: Edge, _ second: Edge, _ ymin: Int32, _ ymax: Int32, _ scan: (Int32, Int32, Int32) -> Void
    ) {
        var e0 = first, e1 = second
        let y0 = Glibc.fmax(Double(ymin), floor(e1.y0))
        let y1 = Glibc.fmin(Double(ymax), ceil(e1.y1))
        let sameStart = e0.x0 == e1.x0 && e0.y0 == e1.y0
        if sameStart ? (e0.x0 + e1.dy / e0.dy * e0.dx < e1.x1) : (e0.x1 - e1.dy / e0.dy * e0.dx < e1.x0) {
            swap(&e0, &e1)
        }
        let m0 = e0.dx / e0.dy, m1 = e1.dx / e1.dy
        let d0: Double = e0.dx > 0 ? 1 : 0
        let d1: Double = e1.dx < 0 ? 1 : 0
        var y = y0
        while y < y1 {
            let x0 = m0 * Glibc.fmax(0, Glibc.fmin(e0.dy, y + d0 - e0.y0)) + e0.x0
            let x1 = m1 * Glibc.fmax(0, Glibc.fmin(e1.dy, y + d1 - e1.y0)) + e1.x0
            scan(column(floor(x1)), column(ceil(x0)), Int32(y))
            y += 1
        }
    }

    /// The zoom of the tiles a map at `zoom` draws from a source of `tileSize`-pixel tiles:
    /// MapLibre's coveringZoomLevel for vector data (a 256-pixel source asks for zoom + 1).
    public static func coveringZoom(mapZoom: Double, tileSize: Int) -> Int {
        Int(floor(mapZoom + log2(512 / Double(tileSize))))
    }

    /// A camera that shows a box: the zoom at which the box fills the viewport less its padding
    /// (the world is 512 pixels wide at zoom 0, as in MapLibre), clamped to `zoomRange`, and the
    /// box's centre in Mercator. As MapLibre Native's cameraForLatLngBounds, the padding is meant
    /// to be set on the camera too, which shifts where the centre is drawn.
    public static func camera(
        fitting box: BoundingBox, width: Double, height: Double,
        padding: (top: Double, left: Double, bottom: Double, right: Double) = (0, 0, 0, 0),
        zoomRange: ClosedRange<Double> = 0...22
    ) throws(MapCoreError) -> (longitude: Double, latitude: Double, zoom: Double) {
        guard
            [
                box.west, box.east, box.south, box.north, width, height, padding.top, padding.left,
                padding.bottom, padding.right,
            ].allSatisfy(\.isFinite), box.south <= box.north
        else { throw MapCoreError(.invalidArgument, "Camera fit needs finite numbers and south <= north.") }
        let innerWidth = width - padding.left - padding.right
        let innerHeight = height - padding.top - padding.bottom
        guard innerWidth > 0, innerHeight > 0 else {
            throw MapCoreError(.invalidArgument, "The padding leaves no room in a \(width)x\(height) viewport.")
        }
        let east = box.west > box.east ? box.east + 360 : box.east
        let south = max(box.south, -maxLatitude), north = min(box.north, maxLatitude)
        let x0 = Projection.MapLibre.x(lng: box.west) * 512, x1 = Projection.MapLibre.x(lng: east) * 512
        let y0 = Projection.MapLibre.y(lat: north) * 512, y1 = Projection.MapLibre.y(lat: south) * 512
        let spanX = x1 - x0, spanY = y1 - y0
        var zoom = zoomRange.upperBound
        if spanX > 0 || spanY > 0 {
            let scale = min(spanX > 0 ? innerWidth / spanX : .infinity, spanY > 0 ? innerHeight / spanY : .infinity)
            zoom = min(max(log2(scale), zoomRange.lowerBound), zoomRange.upperBound)
        }
        var lng = Projection.MapLibre.lng(x: (x0 + x1) / 2 / 512)
        if lng > 180 { lng -= 360 }
        return (lng, Projection.MapLibre.lat(y: (y0 + y1) / 2 / 512), zoom)
    }
}
