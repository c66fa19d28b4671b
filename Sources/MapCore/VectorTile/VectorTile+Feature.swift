// VectorTile: a decoded feature as a GeoJSON model feature (the types vector-tile-js's
// `toGeoJSON` gives), so filters, geometry operations and writers work on tile data without a
// detour through text.

extension VectorTileFeature {
    /// The feature with positions in tile coordinates (`tile` nil) or longitude/latitude of the
    /// tile `tile` of a layer with `extent`. Multi* types only for more than one part; polygon
    /// rings grouped by winding as vector-tile-js groups them. An unknown geometry type gives a
    /// feature without geometry.
    public func feature(extent: Double, tile: TileID?) throws(MapCoreError) -> Feature {
        let rings = try self.rings()
        let size = tile.map { extent * Double(1 << $0.z) } ?? 0
        let x0 = tile.map { extent * Double($0.x) } ?? 0, y0 = tile.map { extent * Double($0.y) } ?? 0
        var xy = ContiguousArray<Double>()
        xy.reserveCapacity(rings.reduce(0) { $0 + $1.count } * 2)
        func add(_ p: (x: Int64, y: Int64)) {
            if tile != nil {
                let (lng, lat) = Projection.VectorTile.lngLat(Double(p.x), Double(p.y), x0: x0, y0: y0, size: size)
                xy.append(lng)
                xy.append(lat)
            } else {
                xy.append(Double(p.x))
                xy.append(Double(p.y))
            }
        }
        var partEnds = ContiguousArray<Int>()
        var polygonEnds = ContiguousArray<Int>()
        let type: GeometryType?
        switch self.type {
        case 1:
            let points = rings.compactMap { $0.first }
            for p in points { add(p) }
            type = points.count == 1 ? .point : .multiPoint
        case 2:
            for r in rings {
                for p in r { add(p) }
                partEnds.append(xy.count / 2)
            }
            type = rings.count == 1 ? .lineString : .multiLineString
            if rings.count == 1 { partEnds = [] }
        case 3:
            let polygons = VectorTile.classifyRings(rings)
            for polygon in polygons {
                for r in polygon {
                    for p in r { add(p) }
                    partEnds.append(xy.count / 2)
                }
                polygonEnds.append(partEnds.count)
            }
            type = polygons.count == 1 ? .polygon : .multiPolygon
            if polygons.count == 1 { polygonEnds = [] }
        default:
            type = nil
        }
        let geometry = type.map {
            Geometry(type: $0, xy: CoordinateList(xy), partEnds: partEnds, polygonEnds: polygonEnds)
        }
        return Feature(
            geometry: geometry, properties: properties,
            id: id.map { $0 <= UInt64(Int64.max) ? .int(Int64($0)) : .uint($0) })
    }
}
