// VectorTile: a decoded tile as GeoJSON, as vector-tile-js's `toGeoJSON` gives each feature:
// Multi* types only for more than one part, polygon rings grouped by their winding, positions in
// tile coordinates or, given the tile's z/x/y, in longitude/latitude.

extension VectorTile {
    /// `{"layers":{"<name>":{"version":…,"extent":…,"features":FeatureCollection}}}`.
    /// `tile`: the tile's z/x/y for longitude/latitude, nil for tile coordinates.
    public func geoJSON(tile: (z: Int, x: Int, y: Int)?, pretty: Bool = false) throws(MapCoreError) -> [UInt8] {
        if let t = tile {
            guard (0...30).contains(t.z), (0..<(1 << t.z)).contains(t.x), (0..<(1 << t.z)).contains(t.y) else {
                throw MapCoreError(
                    .invalidArgument, "Tile \(t.z)/\(t.x)/\(t.y) is not a tile: z in 0...30, x and y in 0..<2^z.")
            }
        }
        var w = JSONWriter(pretty: pretty, reserve: 1024)
        w.openObject()
        w.key(ascii: "layers")
        w.openObject()
        for layer in layers {
            w.key(layer.name)
            w.openObject()
            w.key(ascii: "version"); w.writeUInt(layer.version)
            w.key(ascii: "extent"); w.writeUInt(layer.extent)
            w.key(ascii: "features")
            w.openObject()
            w.key(ascii: "type"); w.writeString(ascii: "FeatureCollection")
            w.key(ascii: "features")
            w.openArray()
            for feature in layer.features {
                w.element()
                try write(feature, extent: Double(layer.extent), tile: tile, into: &w)
            }
            w.closeArray()
            w.closeObject()
            w.closeObject()
        }
        w.closeObject()
        w.closeObject()
        return w.bytes
    }

    private func write(
        _ f: VectorTileFeature, extent: Double, tile: (z: Int, x: Int, y: Int)?,
        into w: inout JSONWriter
    ) throws(MapCoreError) {
        let rings = try f.rings()
        w.openObject()
        w.key(ascii: "type"); w.writeString(ascii: "Feature")
        if let id = f.id { w.key(ascii: "id"); w.writeUInt(id) }
        w.key(ascii: "properties"); w.writeObject(f.properties)
        w.key(ascii: "geometry")
        let size = tile.map { extent * Double(1 << $0.z) } ?? 0
        let x0 = tile.map { extent * Double($0.x) } ?? 0, y0 = tile.map { extent * Double($0.y) } ?? 0
        func position(_ p: (x: Int64, y: Int64)) {
            w.openArray(inline: true)
            if tile != nil {
                let (lng, lat) = Projection.VectorTile.lngLat(Double(p.x), Double(p.y), x0: x0, y0: y0, size: size)
                w.element(); w.writeCoordinate(lng)
                w.element(); w.writeCoordinate(lat)
            } else {
                w.element(); w.writeInt(p.x)
                w.element(); w.writeInt(p.y)
            }
            w.closeArray()
        }
        func line(_ ring: [(x: Int64, y: Int64)]) {
            w.element()
            w.openArray(inline: true)
            for p in ring { w.element(); position(p) }
            w.closeArray()
        }
        func geometry(_ type: StaticString, _ body: () -> Void) {
            w.openObject()
            w.key(ascii: "type"); w.writeString(type.description)
            w.key(ascii: "coordinates")
            body()
            w.closeObject()
        }
        switch f.type {
        case 1:
            // Each ring of a point geometry is one position (its first).
            let points = rings.compactMap { $0.first }
            if points.count == 1 {
                geometry("Point") { position(points[0]) }
            } else {
                geometry("MultiPoint") {
                    w.openArray(); for p in points { w.element(); position(p) }; w.closeArray()
                }
            }
        case 2:
            if rings.count == 1 {
                geometry("LineString") {
                    w.openArray(); for p in rings[0] { w.element(); position(p) }; w.closeArray()
                }
            } else {
                geometry("MultiLineString") {
                    w.openArray(); for r in rings { line(r) }; w.closeArray()
                }
            }
        case 3:
            let polygons = Self.classifyRings(rings)
            if polygons.count == 1 {
                geometry("Polygon") {
                    w.openArray(); for r in polygons[0] { line(r) }; w.closeArray()
                }
            } else {
                geometry("MultiPolygon") {
                    w.openArray()
                    for p in polygons {
                        w.element()
                        w.openArray()
                        for r in p { line(r) }
                        w.closeArray()
                    }
                    w.closeArray()
                }
            }
        default:
            w.writeNull()
        }
        w.closeObject()
    }

    /// vector-tile-js's `classifyRings`: a ring wound as the first one opens a polygon, a ring
    /// wound the other way is a hole of the current one; rings of zero area are dropped. One
    /// ring or none is one polygon as it is.
    static func classifyRings(_ rings: [[(x: Int64, y: Int64)]]) -> [[[(x: Int64, y: Int64)]]] {
        guard rings.count > 1 else { return [rings] }
        var polygons: [[[(x: Int64, y: Int64)]]] = []
        var polygon: [[(x: Int64, y: Int64)]] = []
        var outerIsNegative: Bool?
        for ring in rings {
            let area = signedArea(ring)
            if area == 0 { continue }
            if outerIsNegative == nil { outerIsNegative = area < 0 }
            if outerIsNegative == (area < 0) {
                if !polygon.isEmpty { polygons.append(polygon) }
                polygon = [ring]
            } else {
                polygon.append(ring)
            }
        }
        if !polygon.isEmpty { polygons.append(polygon) }
        return polygons
    }

    private static func signedArea(_ ring: [(x: Int64, y: Int64)]) -> Double {
        var sum = 0.0
        var j = ring.count - 1
        for i in ring.indices {
            sum += (Double(ring[j].x) - Double(ring[i].x)) * (Double(ring[i].y) + Double(ring[j].y))
            j = i
        }
        return sum
    }
}
