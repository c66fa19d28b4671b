// C boundary for include/mapcore/geometry.h: bounding boxes, positions, convex hulls.
import CMapCoreABI
import MapCore

extension BoundingBox {
    init(_ b: mc_bbox) { self.init(west: b.west, south: b.south, east: b.east, north: b.north) }
    var c: mc_bbox { mc_bbox(west: west, south: south, east: east, north: north) }
}

/// A caller box, checked: no NaN, south not above north.
func inputBox(_ box: UnsafePointer<mc_bbox>?, _ name: StaticString) throws(MapCoreError) -> BoundingBox {
    guard let box else { throw MapCoreError(.invalidArgument, "\(name) must not be NULL.") }
    let b = box.pointee
    guard !b.west.isNaN, !b.south.isNaN, !b.east.isNaN, !b.north.isNaN else {
        throw MapCoreError(.invalidArgument, "\(name) holds NaN.")
    }
    guard b.south <= b.north else { throw MapCoreError(.invalidArgument, "\(name) has south above north.") }
    return BoundingBox(b)
}

@_cdecl("mc_geojson_bbox")
public func mc_geojson_bbox(
    _ handle: OpaquePointer?, _ outBox: UnsafeMutablePointer<mc_bbox>?,
    _ outFound: UnsafeMutablePointer<Int32>?
) -> Int32 {
    boundary { () throws(MapCoreError) in
        let h = try geojsonHandle(handle)
        let outBox = try required(outBox, "out_box"), outFound = try required(outFound, "out_found")
        if let box = BoundingBox.of(h.value) {
            outBox.pointee = box.c; outFound.pointee = 1
        } else {
            outFound.pointee = 0
        }
    }
}

@_cdecl("mc_bbox_of_positions")
public func mc_bbox_of_positions(
    _ xy: UnsafePointer<Double>?, _ count: Int, _ outBox: UnsafeMutablePointer<mc_bbox>?,
    _ outFound: UnsafeMutablePointer<Int32>?
) -> Int32 {
    boundary { () throws(MapCoreError) in
        let outBox = try required(outBox, "out_box"), outFound = try required(outFound, "out_found")
        if let box = try BoundingBox.of(xy: try inputPositions(xy, count, "xy")) {
            outBox.pointee = box.c
            outFound.pointee = 1
        } else {
            outFound.pointee = 0
        }
    }
}

@_cdecl("mc_bbox_merge")
public func mc_bbox_merge(
    _ a: UnsafePointer<mc_bbox>?, _ b: UnsafePointer<mc_bbox>?, _ out: UnsafeMutablePointer<mc_bbox>?
) -> Int32 {
    boundary { () throws(MapCoreError) in
        let merged = try inputBox(a, "a").merged(with: try inputBox(b, "b"))
        try required(out, "out_box").pointee = merged.c
    }
}

@_cdecl("mc_bbox_contains")
public func mc_bbox_contains(
    _ box: UnsafePointer<mc_bbox>?, _ lon: Double, _ lat: Double, _ out: UnsafeMutablePointer<Int32>?
) -> Int32 {
    boundary { () throws(MapCoreError) in
        let b = try inputBox(box, "box")
        guard !lon.isNaN, !lat.isNaN else { throw MapCoreError(.invalidArgument, "The position holds NaN.") }
        try required(out, "out_contains").pointee = b.contains(longitude: lon, latitude: lat) ? 1 : 0
    }
}

@_cdecl("mc_bbox_intersects")
public func mc_bbox_intersects(
    _ a: UnsafePointer<mc_bbox>?, _ b: UnsafePointer<mc_bbox>?, _ out: UnsafeMutablePointer<Int32>?
) -> Int32 {
    boundary { () throws(MapCoreError) in
        let hit = try inputBox(a, "a").intersects(try inputBox(b, "b"))
        try required(out, "out_intersects").pointee = hit ? 1 : 0
    }
}

@_cdecl("mc_bbox_crosses_antimeridian")
public func mc_bbox_crosses_antimeridian(_ box: UnsafePointer<mc_bbox>?, _ out: UnsafeMutablePointer<Int32>?) -> Int32 {
    boundary { () throws(MapCoreError) in
        let crosses = try inputBox(box, "box").crossesAntimeridian
        try required(out, "out_crosses").pointee = crosses ? 1 : 0
    }
}

@_cdecl("mc_bbox_split_antimeridian")
public func mc_bbox_split_antimeridian(
    _ box: UnsafePointer<mc_bbox>?, _ outParts: UnsafeMutablePointer<mc_bbox>?,
    _ outCount: UnsafeMutablePointer<Int>?
) -> Int32 {
    boundary { () throws(MapCoreError) in
        let parts = try inputBox(box, "box").splitAtAntimeridian()
        let outParts = try required(outParts, "out_parts"), outCount = try required(outCount, "out_count")
        for (i, p) in parts.enumerated() { outParts[i] = p.c }
        outCount.pointee = parts.count
    }
}

@_cdecl("mc_geojson_position_count")
public func mc_geojson_position_count(_ handle: OpaquePointer?, _ out: UnsafeMutablePointer<Int>?) -> Int32 {
    boundary { () throws(MapCoreError) in
        let h = try geojsonHandle(handle)
        try required(out, "out_count").pointee = Positions.count(of: h.value)
    }
}

@_cdecl("mc_geojson_positions")
public func mc_geojson_positions(
    _ handle: OpaquePointer?, _ outXY: UnsafeMutablePointer<Double>?, _ capacity: Int,
    _ outCount: UnsafeMutablePointer<Int>?
) -> Int32 {
    boundary { () throws(MapCoreError) in
        let h = try geojsonHandle(handle)
        let outCount = try required(outCount, "out_count")
        let n = Positions.count(of: h.value)
        try checkCapacity(outXY, capacity, needed: n, outCount)
        Positions.copy(of: h.value, into: UnsafeMutableBufferPointer(start: outXY, count: n * 2))
        outCount.pointee = n
    }
}

/// The allocation-free output convention: report the needed size and refuse to write partially.
func checkCapacity(
    _ out: UnsafeMutablePointer<Double>?, _ capacity: Int, needed: Int,
    _ outCount: UnsafeMutablePointer<Int>
) throws(MapCoreError) {
    guard out != nil || capacity == 0 else {
        throw MapCoreError(.invalidArgument, "out_xy is NULL but capacity is \(capacity).")
    }
    // A size_t capacity above Int.max arrives negative: it is plenty, not too small.
    guard capacity < 0 || capacity >= needed else {
        outCount.pointee = needed
        throw MapCoreError(.bufferTooSmall, "The buffer holds \(capacity) positions; \(needed) are needed.")
    }
}

@_cdecl("mc_geojson_convex_hull")
public func mc_geojson_convex_hull(_ handle: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    boundary { () throws(MapCoreError) in
        let h = try geojsonHandle(handle)
        let out = try required(out, "out_hull")
        out.pointee = try ConvexHull.geometry(of: h.value).map { newGeoJSONHandle(.geometry($0)) }
    }
}

@_cdecl("mc_convex_hull_positions")
public func mc_convex_hull_positions(
    _ xy: UnsafePointer<Double>?, _ count: Int, _ outXY: UnsafeMutablePointer<Double>?,
    _ capacity: Int, _ outCount: UnsafeMutablePointer<Int>?
) -> Int32 {
    boundary { () throws(MapCoreError) in
        let outCount = try required(outCount, "out_count")
        let hull = try ConvexHull.vertices(xy: try inputPositions(xy, count, "xy"))
        let n = hull.count / 2
        try checkCapacity(outXY, capacity, needed: n, outCount)
        hull.withUnsafeBufferPointer { src in
            if let s = src.baseAddress, let d = outXY { d.update(from: s, count: src.count) }
        }
        outCount.pointee = n
    }
}
