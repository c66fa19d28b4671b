// GeoJSON: reads GeoJSON text straight into the model in one pass, validating RFC 7946 as it goes.
//
// Decisions (documented in include/mapcore/geojson.h):
// - Unclosed rings and rings of fewer than 4 positions are errors; MapCore never edits data.
//   The lenient mode (`ParseLimits.lenient`, MapLibre's reading) keeps them as given; a ring
//   still needs one position.
// - Empty coordinates (`[]`) are accepted for every type as the empty geometry; a lone position
//   in a LineString or an empty line/polygon inside a Multi* is an error.
// - Positions have 2 or 3 numbers; more is reported as unsupported, never silently dropped.
// - Members MapCore does not know are kept as foreign members and written back out.
// - A Feature without "geometry" or "properties" reads as null for that member.
// - GeometryCollections nest at most 16 deep (RFC 7946 advises against nesting them at all).

public enum GeoJSONParser {
    public static func parse(
        _ bytes: UnsafeBufferPointer<UInt8>, limits: ParseLimits = ParseLimits()
    ) throws(MapCoreError) -> GeoJSON {
        var p = GeoJSONReader(reader: JSONReader(bytes, limits: limits), lenient: limits.lenient)
        do {
            let value = try p.readRoot()
            try p.r.expectEnd()
            return value
        } catch {
            throw error.located(in: bytes)
        }
    }

    public static func parse(_ text: String, limits: ParseLimits = ParseLimits()) throws(MapCoreError) -> GeoJSON {
        try withBytes(of: text) { (b) throws(MapCoreError) -> GeoJSON in try parse(b, limits: limits) }
    }
}

struct GeoJSONReader {
    var r: JSONReader
    /// GeometryCollections inside GeometryCollections, counted because reading them recurses
    /// (about 2 KB of stack per level, measured) while everything else reads iteratively.
    private var collectionNesting = 0
    static let maxCollectionNesting = 16

    /// Rings as MapLibre takes them (`ParseLimits.lenient`).
    private let lenient: Bool

    init(reader: JSONReader, lenient: Bool = false) {
        r = reader
        self.lenient = lenient
    }

    func invalid(_ message: String, at offset: Int? = nil) -> PositionedError {
        r.fail(message, at: offset, code: .invalidGeoJSON)
    }

    /// Names what sits at the current position, for "expected X, found Y" messages.
    private func foundDescription() -> String {
        switch r.current {
        case 0x22: return "a string"
        case 0x7B: return "an object"
        case 0x5B: return "an array"
        case 0x74, 0x66: return "a boolean"
        case 0x6E: return "null"
        case 0x2D, 0x30...0x39: return "a number"
        default: return "no value"
        }
    }

    /// Whether the current byte starts some JSON value; used to tell a GeoJSON structure error
    /// (valid JSON of the wrong shape) from a JSON syntax error.
    private var atJSONValue: Bool {
        switch r.current {
        case 0x22, 0x7B, 0x5B, 0x2D, 0x30...0x39: return true
        case 0x74, 0x66, 0x6E: return true
        default: return false
        }
    }

    func wrongShape(_ expected: String) -> PositionedError {
        atJSONValue ? invalid("Expected \(expected), found \(foundDescription()).") : r.unexpected(expecting: expected)
    }

    // MARK: objects

    mutating func readRoot() throws(PositionedError) -> GeoJSON {
        r.skipWhitespace()
        guard r.current == 0x7B else { throw wrongShape("a GeoJSON object") }
        let (typeKey, typeOffset, typeEnd) = try lookAheadType()
        let type = try r.keyString(typeKey)
        switch type {
        case "FeatureCollection": return .featureCollection(try readFeatureCollection())
        case "Feature": return .feature(try readFeature(typeEnd: typeEnd))
        default:
            guard let kind = GeometryType(name: type) else {
                throw invalid("Unknown GeoJSON type \"\(type)\".", at: typeOffset)
            }
            return .geometry(try readGeometry(kind, typeEnd: typeEnd))
        }
    }

    /// Finds the "type" member of the object starting at the current position without moving.
    /// Returns the raw range of its string value (compared with `keyEquals`, decoded only when
    /// needed: a million features should not make three million Strings), its offset, and when
    /// "type" is the object's first member, where that member ends (the reader resumes there
    /// instead of reading it twice).
    private mutating func lookAheadType() throws(PositionedError) -> (
        type: (start: Int, count: Int, escaped: Bool), offset: Int, firstMemberEnd: Int?
    ) {
        let objectStart = r.pos
        defer { r.pos = objectStart }
        r.pos += 1
        r.skipWhitespace()
        var first = true
        if r.current != 0x7D {
            repeat {
                let key = try r.readKeyRange()
                try r.expect(0x3A, "':'")
                r.skipWhitespace()
                if r.keyEquals(key, "type") {
                    let offset = r.pos
                    guard r.current == 0x22 else { throw invalid("The \"type\" member must be a string.") }
                    let type = try r.readKeyRange()
                    return (type, offset, first ? r.pos : nil)
                }
                try r.skipValue()
                first = false
            } while try r.nextInContainer(close: 0x7D)
        }
        throw invalid("GeoJSON object has no \"type\" member.", at: objectStart)
    }

    private mutating func readFeatureCollection() throws(PositionedError) -> FeatureCollection {
        var collection = FeatureCollection()
        var sawFeatures = false
        let start = r.pos
        try forEachMember { (me, key) throws(PositionedError) in
            if me.r.keyEquals(key, "type") {
                try me.r.skipStringValue()
            } else if me.r.keyEquals(key, "features") {
                collection.features = try me.readFeatureArray()
                sawFeatures = true
            } else if me.r.keyEquals(key, "bbox") {
                collection.bbox = try me.readBBox()
            } else {
                collection.foreignMembers[try me.r.keyString(key)] = try me.r.readValue()
            }
        }
        guard sawFeatures else { throw invalid("FeatureCollection has no \"features\" member.", at: start) }
        return collection
    }

    mutating func readFeatureArray() throws(PositionedError) -> [Feature] {
        var features: [Feature] = []
        let arrayStart = r.pos
        try forEachElement({ $0.wrongShape("an array of features") }) { (me) throws(PositionedError) in
            if features.count == 16 {
                // Room for as many features as the rest of the text holds at the size of the
                // first ones: no doubling copies of a large array. Never more bytes than the
                // rest of the text, so a misleading start cannot ask for outsized memory.
                let averageSize = max((me.r.pos - arrayStart) / 16, MemoryLayout<Feature>.stride)
                features.reserveCapacity(16 + (me.r.end - me.r.pos) / averageSize)
            }
            me.r.skipWhitespace()
            guard me.r.current == 0x7B else { throw me.wrongShape("a Feature object") }
            let (type, offset, typeEnd) = try me.lookAheadType()
            guard me.r.keyEquals(type, "Feature") else {
                throw me.invalid(
                    "Expected a Feature in \"features\", found type \"\(try me.r.keyString(type))\".", at: offset)
            }
            features.append(try me.readFeature(typeEnd: typeEnd))
        }
        return features
    }

    /// `typeEnd`: from `lookAheadType`, where a leading "type" member ends.
    private mutating func readFeature(typeEnd: Int?) throws(PositionedError) -> Feature {
        // Filled in place (no closure captures it), so it is returned without a copy.
        var feature = Feature(geometry: nil)
        if try openObject(typeEnd: typeEnd) {
            repeat {
                let key = try memberKey()
                r.skipWhitespace()
                if r.keyEquals(key, "type") {
                    try r.skipStringValue()
                } else if r.keyEquals(key, "geometry") {
                    feature.geometry = try readNullableGeometry()
                } else if r.keyEquals(key, "properties") {
                    guard r.current == 0x7B || r.current == 0x6E else {
                        throw wrongShape("an object or null for \"properties\"")
                    }
                    if let packed = try r.readPackedObject() {
                        feature.properties = packed
                    } else if case .object(let o) = try r.readValue() {
                        feature.properties = o
                    } else {
                        feature.properties = nil
                    }
                } else if r.keyEquals(key, "id") {
                    feature.id = try readFeatureID()
                } else if r.keyEquals(key, "bbox") {
                    feature.bbox = try readBBox()
                } else {
                    feature.foreignMembers[try r.keyString(key)] = try r.readValue()
                }
            } while try nextMember()
        }
        return feature
    }

    mutating func readFeatureID() throws(PositionedError) -> FeatureID {
        switch r.current {
        case 0x22: return .string(try r.readString())
        case 0x2D, 0x30...0x39:
            switch try r.readNumber() {
            case .int(let v): return .int(v)
            case .uint(let v): return .uint(v)
            case .double(let v): return .double(v)
            default: break
            }
        default: break
        }
        throw wrongShape("a string or a number for the feature \"id\"")
    }

    mutating func readNullableGeometry() throws(PositionedError) -> Geometry? {
        r.skipWhitespace()
        if r.current == 0x6E {
            guard case .null = try r.readValue() else { throw wrongShape("a geometry object or null") }
            return nil
        }
        return try readGeometryObject()
    }

    private mutating func readGeometryObject() throws(PositionedError) -> Geometry {
        r.skipWhitespace()
        guard r.current == 0x7B else { throw wrongShape("a geometry object") }
        let (typeKey, offset, typeEnd) = try lookAheadType()
        guard let kind = GeometryType.allCases.first(where: { r.keyEquals(typeKey, $0.staticName) }) else {
            let type = try r.keyString(typeKey)
            if type == "Feature" || type == "FeatureCollection" {
                throw invalid("Expected a geometry, found a \(type).", at: offset)
            }
            throw invalid("Unknown geometry type \"\(type)\".", at: offset)
        }
        return try readGeometry(kind, typeEnd: typeEnd)
    }

    private mutating func readGeometry(_ kind: GeometryType, typeEnd: Int?) throws(PositionedError) -> Geometry {
        var g = Geometry(type: kind)
        var sawContent = false
        let start = r.pos
        if try openObject(typeEnd: typeEnd) {
            repeat {
                let key = try memberKey()
                if r.keyEquals(key, "type") {
                    try r.skipStringValue()
                } else if kind != .geometryCollection && r.keyEquals(key, "coordinates") {
                    g.removeAllPositions()
                    try readCoordinates(into: &g)
                    sawContent = true
                } else if kind == .geometryCollection && r.keyEquals(key, "geometries") {
                    guard collectionNesting < GeoJSONReader.maxCollectionNesting else {
                        throw r.fail(
                            "GeometryCollections nested more than \(GeoJSONReader.maxCollectionNesting) deep.",
                            code: .limit)
                    }
                    collectionNesting += 1
                    defer { collectionNesting -= 1 }
                    g.geometries = try readGeometryArray()
                    sawContent = true
                } else if r.keyEquals(key, "bbox") {
                    g.bbox = try readBBox()
                } else {
                    g.foreignMembers[try r.keyString(key)] = try r.readValue()
                }
            } while try nextMember()
        }
        guard sawContent else {
            let member = kind == .geometryCollection ? "geometries" : "coordinates"
            throw invalid("\(kind.name) has no \"\(member)\" member.", at: start)
        }
        return g
    }

    private mutating func readGeometryArray() throws(PositionedError) -> [Geometry] {
        var members: [Geometry] = []
        try forEachElement({ $0.wrongShape("an array of geometries") }) { (me) throws(PositionedError) in
            members.append(try me.readGeometryObject())
        }
        return members
    }

    /// Walks the members of the object at the current position, calling `member` with each key
    /// once its ':' is consumed; `member` must read the value.
    mutating func forEachMember(
        _ member: (inout GeoJSONReader, (start: Int, count: Int, escaped: Bool)) throws(PositionedError) -> Void
    ) throws(PositionedError) {
        if try openObject() {
            repeat { try member(&self, try memberKey()) } while try nextMember()
        }
    }

    // The three steps of `forEachMember`, for the hot readers: values gathered in a closure's
    // captured variables are copied out and then destroyed, plain locals move.

    /// Enters the object at the current position ('{'); false when no member is left to read
    /// (the object is then left). `typeEnd`: where a leading "type" member already checked by
    /// `lookAheadType` ends; reading resumes after it.
    private mutating func openObject(typeEnd: Int? = nil) throws(PositionedError) -> Bool {
        try r.enterContainer()
        if let typeEnd {
            r.pos = typeEnd
            return try nextMember()
        }
        r.pos += 1
        r.skipWhitespace()
        guard r.current != 0x7D else {
            r.pos += 1
            r.leaveContainer()
            return false
        }
        return true
    }

    /// Reads a member's key and its ':'.
    private mutating func memberKey() throws(PositionedError) -> (start: Int, count: Int, escaped: Bool) {
        let key = try r.readKeyRange()
        try r.expect(0x3A, "':'")
        return key
    }

    /// After a member's value: true when another member follows, false when the object closed.
    private mutating func nextMember() throws(PositionedError) -> Bool {
        if try r.nextInContainer(close: 0x7D) { return true }
        r.leaveContainer()
        return false
    }

    /// Walks `[ element, … ]` at the current position, calling `element` for each; returns how
    /// many there were. `notAnArray` is the error when no array stands there.
    @discardableResult
    mutating func forEachElement(
        _ notAnArray: (GeoJSONReader) -> PositionedError,
        _ element: (inout GeoJSONReader) throws(PositionedError) -> Void
    ) throws(PositionedError) -> Int {
        r.skipWhitespace()
        guard r.current == 0x5B else { throw notAnArray(self) }
        try r.enterContainer()
        r.pos += 1
        r.skipWhitespace()
        var count = 0
        if r.current == 0x5D {
            r.pos += 1
        } else {
            repeat {
                try element(&self)
                count += 1
            } while try r.nextInContainer(close: 0x5D)
        }
        r.leaveContainer()
        return count
    }

    private mutating func readBBox() throws(PositionedError) -> [Double] {
        r.skipWhitespace()
        let start = r.pos
        var values: [Double] = []
        try forEachElement({ $0.wrongShape("an array of numbers for \"bbox\"") }) { (me) throws(PositionedError) in
            me.r.skipWhitespace()
            guard me.r.current == 0x2D || (me.r.current &- 0x30) < 10 else {
                throw me.wrongShape("a number in \"bbox\"")
            }
            values.append(try me.r.readDouble())
        }
        guard values.count == 4 || values.count == 6 else {
            throw invalid("\"bbox\" must hold 4 or 6 numbers, found \(values.count).", at: start)
        }
        return values
    }

    // MARK: coordinates

    private mutating func readCoordinates(into g: inout Geometry) throws(PositionedError) {
        r.skipWhitespace()
        let start = r.pos
        switch g.type {
        case .point:
            guard r.current == 0x5B else { throw nesting(g.type, "a position") }
            // `[]` is the empty Point; anything else must be one position.
            var p = r.pos + 1
            while r.byte(p) == 0x20 || r.byte(p) == 0x0A || r.byte(p) == 0x0D || r.byte(p) == 0x09 { p += 1 }
            if r.byte(p) == 0x5D { r.pos = p + 1; return }
            try readPosition(into: &g)
        case .multiPoint, .lineString:
            let n = try readPositionList(into: &g)
            if g.type == .lineString && n == 1 {
                throw invalid("A LineString needs at least 2 positions, found 1.", at: start)
            }
        case .multiLineString, .polygon:
            try readList(g.type, "an array of \(g.type == .polygon ? "rings" : "lines")") {
                (me) throws(PositionedError) in
                try me.readPart(into: &g)
            }
        case .multiPolygon:
            try readList(g.type, "an array of polygons") { (me) throws(PositionedError) in
                let polygonStart = me.r.pos
                let ringsBefore = g.partEnds.count
                try me.readList(g.type, "an array of rings") { (me) throws(PositionedError) in
                    try me.readPart(into: &g)
                }
                if g.partEnds.count == ringsBefore {
                    throw me.invalid("A polygon of a MultiPolygon needs at least one ring.", at: polygonStart)
                }
                g.polygonEnds.append(g.partEnds.count)
            }
        case .geometryCollection:
            break
        }
    }

    /// Reads one line or ring and records where it ends.
    private mutating func readPart(into g: inout Geometry) throws(PositionedError) {
        r.skipWhitespace()
        let start = r.pos
        let n = try readPositionList(into: &g)
        g.partEnds.append(g.positionCount)
        if g.type == .multiLineString {
            if n < 2 { throw invalid("A line of a MultiLineString needs at least 2 positions, found \(n).", at: start) }
            return
        }
        if lenient {
            if n < 1 { throw invalid("A linear ring needs at least 1 position, found none.", at: start) }
            return
        }
        if n < 4 { throw invalid("A linear ring needs at least 4 positions, found \(n).", at: start) }
        let first = (g.positionCount - n) * 2
        let last = (g.positionCount - 1) * 2
        let zClosed =
            g.z.map { z in
                let a = z[first / 2], b = z[last / 2]
                return a == b || (a.isNaN && b.isNaN)
            } ?? true
        guard g.xy[first] == g.xy[last] && g.xy[first + 1] == g.xy[last + 1] && zClosed else {
            throw invalid("A linear ring must be closed: its first and last positions differ.", at: start)
        }
    }

    @discardableResult
    private mutating func readList(
        _ type: GeometryType, _ expected: String,
        _ element: (inout GeoJSONReader) throws(PositionedError) -> Void
    ) throws(PositionedError) -> Int {
        try forEachElement({ $0.nesting(type, expected) }, element)
    }

    private mutating func readPositionList(into g: inout Geometry) throws(PositionedError) -> Int {
        try readList(g.type, "an array of positions") { (me) throws(PositionedError) in
            try me.readPosition(into: &g)
        }
    }

    private mutating func readPosition(into g: inout Geometry) throws(PositionedError) {
        r.skipWhitespace()
        guard r.current == 0x5B else { throw nesting(g.type, "a position") }
        let start = r.pos
        try r.enterContainer()
        r.pos += 1
        let x = try readCoordinate(g.type)
        r.skipWhitespace()
        if r.current == 0x5D { throw invalid("A position needs at least 2 numbers (longitude, latitude).", at: start) }
        try r.expect(0x2C, "','")
        let y = try readCoordinate(g.type)
        var z = Double.nan
        if try r.nextInContainer(close: 0x5D) {
            z = try readCoordinate(g.type)
            if try r.nextInContainer(close: 0x5D) {
                throw r.fail("Positions with more than 3 numbers are not supported.", at: start, code: .unsupported)
            }
        }
        r.leaveContainer()
        g.xy.appendPosition(x, y)
        // Altitudes are stored only once some position has one (NaN marks the others).
        if !z.isNaN && g.z == nil {
            g.z = ContiguousArray(repeating: .nan, count: g.positionCount - 1)
        }
        if g.z != nil { g.z?.append(z) }
    }

    private mutating func readCoordinate(_ type: GeometryType) throws(PositionedError) -> Double {
        r.skipWhitespace()
        let c = r.current
        if c == 0x5D { throw invalid("A position needs at least 2 numbers (longitude, latitude).") }
        guard c == 0x2D || (c &- 0x30) < 10 else {
            if c == 0x5B {
                throw invalid(
                    "Wrong coordinate nesting for a \(type.name): found an array where a position's number belongs.")
            }
            throw wrongShape("a number in a position")
        }
        return try r.readDouble()
    }

    private func nesting(_ type: GeometryType, _ expected: String) -> PositionedError {
        if atJSONValue {
            return invalid(
                "Wrong coordinate nesting for a \(type.name): expected \(expected), found \(foundDescription()).")
        }
        return r.unexpected(expecting: expected)
    }
}
