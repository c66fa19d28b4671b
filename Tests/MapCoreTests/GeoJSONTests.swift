// GeoJSON stage: the model, parse decisions, round trips.
import Testing
@testable import MapCore

@Suite struct GeoJSONTests {
    @Test func everyGeometryTypeRoundTrips() throws {
        let samples = [
            #"{"type":"Point","coordinates":[1,2]}"#,
            #"{"type":"Point","coordinates":[1,2,3]}"#,
            #"{"type":"Point","coordinates":[]}"#,
            #"{"type":"MultiPoint","coordinates":[[1,2],[3,4,5]]}"#,
            #"{"type":"LineString","coordinates":[[1,2],[3,4]]}"#,
            #"{"type":"MultiLineString","coordinates":[[[1,2],[3,4]],[[5,6],[7,8],[9,10]]]}"#,
            #"{"type":"Polygon","coordinates":[[[0,0],[10,0],[10,10],[0,0]],[[1,1],[2,1],[2,2],[1,1]]]}"#,
            #"{"type":"Polygon","coordinates":[]}"#,
            #"{"type":"MultiPolygon","coordinates":[[[[0,0],[1,0],[1,1],[0,0]]],[[[5,5],[6,5],[6,6],[5,5]],[[5.1,5.1],[5.2,5.1],[5.2,5.2],[5.1,5.1]]]]}"#,
            #"{"type":"GeometryCollection","geometries":[{"type":"Point","coordinates":[1,2]},{"type":"GeometryCollection","geometries":[]}]}"#,
            #"{"type":"Feature","id":"a","bbox":[0,0,1,1],"geometry":null,"properties":{"x":[1,{"y":null}]},"extra":true}"#,
            #"{"type":"FeatureCollection","features":[],"name":"empty"}"#,
        ]
        for text in samples {
            let value = try GeoJSONParser.parse(text)
            let out = value.serializedString()
            #expect(out == text, "\(text)")
            #expect(try GeoJSONParser.parse(out) == value)
            #expect(try GeoJSONParser.parse(value.serializedString(pretty: true)) == value)
        }
    }

    @Test func coordinatesAreFlat() throws {
        let v = try GeoJSONParser.parse(#"{"type":"MultiPolygon","coordinates":[[[[0,0],[1,0],[1,1],[0,0]]],[[[5,5],[6,5],[6,6],[5,5]],[[5.1,5.1],[5.2,5.1],[5.2,5.2],[5.1,5.1]]]]}"#)
        guard case .geometry(let g) = v else { Issue.record("not a geometry"); return }
        #expect(g.positionCount == 12)
        #expect(g.partEnds == [4, 8, 12])
        #expect(g.polygonEnds == [1, 3])
        #expect(g.z == nil)
    }

    @Test func coordinateListHoldsOnePositionInlineAndBehavesLikeAnArray() {
        var list = CoordinateList()
        list.appendPosition(1, 2)
        #expect(Array(list) == [1, 2])
        var copy = list
        copy[1] = 9
        #expect(Array(list) == [1, 2] && Array(copy) == [1, 9])
        list.appendPosition(3, 4)
        list.append(contentsOf: [5, 6])
        #expect(Array(list) == [1, 2, 3, 4, 5, 6] && list.count == 6)
        // Equal by value whichever way each side is stored.
        #expect(CoordinateList([1, 9] as ContiguousArray<Double>) == copy)
        var grown: CoordinateList = [1, 2, 3, 4]
        let before = grown
        grown.withUnsafeMutableBufferPointer { b in for i in b.indices { b[i] *= 10 } }
        #expect(Array(grown) == [10, 20, 30, 40] && Array(before) == [1, 2, 3, 4])
        grown.removeAll(keepingCapacity: true)
        #expect(grown.isEmpty)
        let sum = copy.withUnsafeBufferPointer { $0.reduce(0, +) }
        #expect(sum == 10)
    }

    @Test func rareMembersAreCopiedOnWrite() throws {
        let parsed = try GeoJSONParser.parse(#"{"type":"Feature","bbox":[0,0,1,1],"geometry":{"type":"LineString","coordinates":[[0,0,5],[1,1]],"name":"l"},"properties":null,"x":1}"#)
        guard case .feature(let original) = parsed, let line = original.geometry else { Issue.record("not a feature"); return }
        var changed = original
        changed.foreignMembers["x"] = .int(2)
        changed.bbox = nil
        changed.geometry?.z?[0] = 7
        changed.geometry?.foreignMembers["name"] = nil
        #expect(original.foreignMembers["x"] == .int(1) && original.bbox == [0, 0, 1, 1])
        #expect(line.z?[0] == 5 && line.foreignMembers["name"] == .string("l"))
        #expect(changed.foreignMembers["x"] == .int(2) && changed.bbox == nil)
        #expect(changed.geometry?.z?[0] == 7 && changed.geometry?.foreignMembers.isEmpty == true)
        #expect(changed != original)
        // Setting a member back to its absent value equals never having had it.
        var plain = Feature(geometry: .point(1, 2))
        plain.bbox = [1, 2, 1, 2]
        plain.bbox = nil
        #expect(plain == Feature(geometry: .point(1, 2)))
    }

    @Test func mixedAltitudesKeepTheirShape() throws {
        let text = #"{"type":"LineString","coordinates":[[1,2],[3,4,5],[6,7]]}"#
        let v = try GeoJSONParser.parse(text)
        #expect(v.serializedString() == text)
    }

    @Test func memberOrderDoesNotMatter() throws {
        let a = try GeoJSONParser.parse(#"{"coordinates":[[1,2],[3,4]],"bbox":[1,2,3,4],"type":"LineString"}"#)
        let b = try GeoJSONParser.parse(#"{"type":"LineString","bbox":[1,2,3,4],"coordinates":[[1,2],[3,4]]}"#)
        #expect(a == b)
    }

    @Test func featureDecisions() throws {
        // Missing geometry/properties read as null; ids keep their JSON type.
        guard case .feature(let f) = try GeoJSONParser.parse(#"{"type":"Feature","id":12}"#) else { Issue.record("kind"); return }
        #expect(f.geometry == nil && f.properties == nil && f.id == .int(12))
        guard case .feature(let g) = try GeoJSONParser.parse(#"{"type":"Feature","id":1.5,"geometry":null,"properties":{}}"#) else { return }
        #expect(g.id == .double(1.5))
        #expect(g.properties == JSONObject())
    }

    @Test func structuralErrorsAreGeoJSONErrors() {
        let cases: [(String, ErrorCode)] = [
            (#"{"type":"Point"}"#, .invalidGeoJSON),
            (#"{"type":"GeometryCollection"}"#, .invalidGeoJSON),
            (#"{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1]]]}"#, .invalidGeoJSON),
            (#"{"type":"MultiPolygon","coordinates":[[]]}"#, .invalidGeoJSON),
            (#"{"type":"MultiLineString","coordinates":[[[0,0]]]}"#, .invalidGeoJSON),
            (#"{"type":"Polygon","coordinates":[[0,0],[1,0],[1,1],[0,0]]}"#, .invalidGeoJSON),
            (#"{"type":"Point","coordinates":[1,2],"bbox":[1,2]}"#, .invalidGeoJSON),
            (#"{"type":"Point","coordinates":[1,2,3,4]}"#, .unsupported),
            (#"{"type":"Point","coordinates":[1,2}"#, .parse),
            (#"{"type":"Point","coordinates":[1 2]}"#, .parse),
        ]
        for (text, code) in cases {
            #expect(parseError(text)?.code == code, "\(text)")
        }
    }

    @Test func ringsMustBeClosedIncludingAltitude() {
        #expect(parseError(#"{"type":"Polygon","coordinates":[[[0,0,1],[1,0,1],[1,1,1],[0,0,2]]]}"#)?.code == .invalidGeoJSON)
        #expect(parseError(#"{"type":"Polygon","coordinates":[[[0,0,1],[1,0,1],[1,1,1],[0,0,1]]]}"#) == nil)
    }

    @Test func realFixtureRoundTrips() throws {
        let bytes = try FileIO.read(path: dataFile("places.geojson"))
        let value = try bytes.withUnsafeBufferPointer { (b) throws(MapCoreError) in try GeoJSONParser.parse(b) }
        #expect(value.features.count == 163)
        #expect(value.features[81].id == .int(737))  // Cape Reinga, per the fixture README
        #expect(value.features[162].geometry == nil)
        #expect(try GeoJSONParser.parse(value.serializedString()) == value)
    }
}

/// A file under the repository's data/ folder, found from this source file's location.
func dataFile(_ name: String) -> String {
    let parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
    guard let tests = parts.lastIndex(of: "Tests") else { return "data/\(name)" }
    return parts[..<tests].joined(separator: "/") + "/data/" + name
}
