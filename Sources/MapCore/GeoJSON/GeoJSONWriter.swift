// GeoJSON: writes the model back to text. Standard members first, then foreign members.

extension GeoJSON {
    /// GeoJSON text; `GeoJSONParser.parse(serialize())` gives back an equal value.
    public func serialize(pretty: Bool = false) -> [UInt8] {
        var w = JSONWriter(pretty: pretty, reserve: 1024)
        w.writeGeoJSON(self)
        return w.bytes
    }

    /// The same value as MessagePack (`MessagePackWriter`): the members, in the order and with
    /// the value types the text reads back as.
    /// MC_E_LIMIT for a string of 4 GiB or more or a container past UInt32.max items.
    public func serializeMessagePack() throws(MapCoreError) -> [UInt8] {
        var w = MessagePackWriter(reserve: 1024)
        w.writeGeoJSON(self)
        return try w.finished()
    }

    public func serializedString(pretty: Bool = false) -> String {
        String(decoding: serialize(pretty: pretty), as: UTF8.self)
    }
}

extension StructuredWriter {
    public mutating func writeGeoJSON(_ value: GeoJSON) {
        switch value {
        case .geometry(let g): writeGeometry(g)
        case .feature(let f): writeFeature(f)
        case .featureCollection(let c): writeFeatureCollection(c)
        }
    }

    public mutating func writeFeatureCollection(_ c: FeatureCollection) {
        openObject()
        key(ascii: "type"); writeString(ascii: "FeatureCollection")
        writeBBoxMember(c.bbox)
        key(ascii: "features")
        openArray()
        for f in c.features { element(); writeFeature(f) }
        closeArray()
        writeForeign(c.foreignMembers)
        closeObject()
    }

    public mutating func writeFeature(_ f: Feature) {
        openObject()
        key(ascii: "type"); writeString(ascii: "Feature")
        if let id = f.id { key(ascii: "id"); writeValue(id.jsonValue) }
        writeBBoxMember(f.bbox)
        key(ascii: "geometry")
        if let g = f.geometry { writeGeometry(g) } else { writeNull() }
        key(ascii: "properties")
        if let p = f.properties { writeObject(p) } else { writeNull() }
        writeForeign(f.foreignMembers)
        closeObject()
    }

    public mutating func writeGeometry(_ g: Geometry) {
        openObject()
        key(ascii: "type"); writeString(g.type.name)
        writeBBoxMember(g.bbox)
        if g.type == .geometryCollection {
            key(ascii: "geometries")
            openArray()
            for member in g.geometries { element(); writeGeometry(member) }
            closeArray()
        } else {
            key(ascii: "coordinates")
            writeCoordinates(g)
        }
        writeForeign(g.foreignMembers)
        closeObject()
    }

    private mutating func writeCoordinates(_ g: Geometry) {
        switch g.type {
        case .point:
            if g.positionCount == 0 { openArray(inline: true); closeArray() } else { writePosition(g, 0) }
        case .multiPoint, .lineString:
            writePositions(g, 0, g.positionCount)
        case .multiLineString, .polygon:
            writeParts(g, 0, g.partEnds.count)
        case .multiPolygon:
            openArray()
            var firstPart = 0
            for end in g.polygonEnds {
                element()
                writeParts(g, firstPart, end)
                firstPart = end
            }
            closeArray()
        case .geometryCollection:
            break
        }
    }

    /// Writes parts `from..<to` (lines or rings) as arrays of positions.
    private mutating func writeParts(_ g: Geometry, _ from: Int, _ to: Int) {
        openArray()
        for part in from..<to {
            element()
            let start = part == 0 ? 0 : g.partEnds[part - 1]
            writePositions(g, start, g.partEnds[part])
        }
        closeArray()
    }

    private mutating func writePositions(_ g: Geometry, _ from: Int, _ to: Int) {
        openArray()
        for i in from..<to { element(); writePosition(g, i) }
        closeArray()
    }

    private mutating func writePosition(_ g: Geometry, _ i: Int) {
        openArray(inline: true)
        element(); writeCoordinate(g.xy[2 * i])
        element(); writeCoordinate(g.xy[2 * i + 1])
        if let z = g.z, !z[i].isNaN { element(); writeCoordinate(z[i]) }
        closeArray()
    }

    private mutating func writeBBoxMember(_ bbox: [Double]?) {
        guard let bbox else { return }
        key(ascii: "bbox")
        openArray(inline: true)
        for v in bbox { element(); writeCoordinate(v) }
        closeArray()
    }

    private mutating func writeForeign(_ members: JSONObject) {
        members.forEachMember { _, name, value in
            key(name)
            writeValue(value)
        }
    }
}
