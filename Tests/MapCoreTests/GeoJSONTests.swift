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
            #"{"type":"MultiPolygon","coordinates":[[[[0,0],[1,0],[1,1],[0,0]]],[[[5,5],[6,5],[6,6],[5,5]],[[5.1,5.1],"#
                + #"[5.2,5.1],[5.2,5.2],[5.1,5.1]]]]}"#,
            #"{"type":"GeometryCollection","geometries":[{"type":"Point","coordinates":[1,2]},"#
                + #"{"type":"GeometryCollection","geometries":[]}]}"#,
            #"{"type":"Feature","id":"a","bbox":[0,0,1,1],"geometry":null,"properties":{"x":[1,{"y":null}]},"#
                + #""extra":true}"#,
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
        let v = try GeoJSONParser.parse(
            #"{"type":"MultiPolygon","coordinates":[[[[0,0],[1,0],[1,1],[0,0]]],[[[5,5],[6,5],[6,6],[5,5]],[[5.1,5.1],"#
                + #"[5.2,5.1],[5.2,5.2],[5.1,5.1]]]]}"#
        )
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

    @Test func featureIDsOfEveryKindSurviveChangesAndCopies() throws {
        // A million parsed features are a million of these: the layout is part of the memory budget.
        #expect(MemoryLayout<Feature>.stride == 64)
        let ids: [FeatureID?] = [
            nil, .int(-7), .int(.min), .uint(.max), .double(-0.0), .double(2.5), .string(""),
            .string("a long string id, off the inline form"),
        ]
        for first in ids {
            for second in ids {
                var f = Feature(geometry: .point(1, 2), id: first, bbox: [1, 2, 1, 2])
                let copy = f
                f.id = second
                #expect(f.id == second && copy.id == first)
                #expect(f.bbox == [1, 2, 1, 2])
                if case .double(let d)? = second, case .double(let e)? = f.id { #expect(d.sign == e.sign) }
            }
        }
        var stringOnly = Feature(geometry: nil, id: .string("s"))
        stringOnly.id = .int(1)
        #expect(stringOnly == Feature(geometry: nil, id: .int(1)))
        let parsed = try GeoJSONParser.parse(
            #"{"type":"FeatureCollection","features":[{"type":"Feature","id":"abc","geometry":null,"properties":null},"#
                + #"{"type":"Feature","id":18446744073709551615,"geometry":null,"properties":null},{"type":"Feature","#
                + #""id":-1.5,"geometry":null,"properties":null}]}"#
        )
        guard case .featureCollection(let c) = parsed else { Issue.record("not a collection"); return }
        #expect(c.features.map(\.id) == [.string("abc"), .uint(.max), .double(-1.5)])
    }

    @Test func rareMembersAreCopiedOnWrite() throws {
        let parsed = try GeoJSONParser.parse(
            #"{"type":"Feature","bbox":[0,0,1,1],"geometry":{"type":"LineString","coordinates":[[0,0,5],[1,1]],"#
                + #""name":"l"},"properties":null,"x":1}"#
        )
        guard case .feature(let original) = parsed, let line = original.geometry else {
            Issue.record("not a feature"); return
        }
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
        guard case .feature(let f) = try GeoJSONParser.parse(#"{"type":"Feature","id":12}"#) else {
            Issue.record("kind"); return
        }
        #expect(f.geometry == nil && f.properties == nil && f.id == .int(12))
        guard
            case .feature(let g) = try GeoJSONParser.parse(
                #"{"type":"Feature","id":1.5,"geometry":null,"properties":{}}"#)
        else { return }
        #expect(g.id == .double(1.5))
        #expect(g.properties == JSONObject())
    }

    /// Properties of scalars are read straight into packed objects. Every value kind reads back
    /// exactly as the general reader gives it (same members, order, types and serialization);
    /// objects it cannot pack (nested values, repeated keys, over 64 members) fall back to it;
    /// shapes change from feature to feature; a packed object changes like any other.
    @Test func packedPropertiesReadAsTheGeneralReaderReadsThem() throws {
        let long = String(repeating: "é", count: 200)  // 400 bytes: the long-string tag
        let wide = (0..<70).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        // Each width of the int and decimal payloads, on both sides of its limits, and doubles
        // the decimal form must refuse (too many places or digits, 2^53, zeros, -0.0 above).
        let widths = (1...8).flatMap { n -> [Int64] in
            let limit = n == 8 ? Int64.max : (Int64(1) << (8 * n - 1)) - 1
            return [limit, -limit - 1] + (n < 8 ? [limit + 1, -limit - 2] : [])
        }
        let ints = widths.enumerated().map { "\"i\($0.offset)\":\($0.element)" }.joined(separator: ",")
        let doubles = [
            "2.37", "-2.37", "0.1", "0.3", "3.0", "1e2", "-1.005", "0.12345678", "1234567.1234567",
            "9007199254740992.0", "9007199254740991.0", "4503599627370497.5", "123456789012345.6",
            "36028797018963967.0", "-1e-7", "1.7976931348623157e308", "2.5e-8", "0.0000001",
            "1.00000001", "12.5e-3", "5e-1", "-0.5", "0.0", "2.370", "1e2",
        ]
        let decimals = doubles.enumerated().map { "\"d\($0.offset)\":\($0.element)" }.joined(separator: ",")
        let edges =
            "\"s127\":\"\(String(repeating: "x", count: 127))\",\"s128\":\"\(String(repeating: "y", count: 128))\""
        var generator = SeededGenerator(seed: 4)
        let random = (0..<60).map { k -> String in
            // m / 10^places written out as decimal text, up to 15 significant digits.
            let places = k % 10
            let m = Int64.random(in: -999_999_999_999_999...999_999_999_999_999, using: &generator) >> Int64(k % 40)
            let digits = String(m.magnitude)
            let padded = String(repeating: "0", count: max(0, places + 1 - digits.count)) + digits
            let split = padded.index(padded.endIndex, offsetBy: -places)
            let text = (m < 0 ? "-" : "") + padded[..<split] + (places > 0 ? "." + padded[split...] : ".0")
            return "\"r\(k)\":" + text
        }.joined(separator: ",")
        let properties = [
            #"{"i":0,"n":-5,"max":9223372036854775807,"min":-9223372036854775808,"u":18446744073709551615}"#,
            #"{"i":1,"n":-6,"max":1,"min":2,"u":3}"#,  // the same shape
            #"{"i":1,"n":-6}"#,  // a prefix of it
            #"{"n":1.5,"i":-0.0,"big":1e300,"tiny":5e-324}"#,
            #"{"t":true,"f":false,"z":null,"e":"","a":"a","esc":"line\nbreak \"q\" \\ \u00e9 \ud83d\ude00","#
                + #""raw":"café 東京"}"#,
            "{\"long\":\"\(long)\",\"after\":1}",
            "{}",
            #"{"nested":[1,{"a":2}],"x":1}"#,
            #"{"a":1,"b":2,"a":3}"#,
            "{\(wide)}",
            #"{"x":1,"o":{}}"#,
            #"{"i":7,"n":8,"max":9,"min":10,"u":11}"#,  // the first shape again
            "{\(ints)}", "{\(decimals),\(edges)}", "{\(random)}",
        ]
        let packs = [true, true, true, true, true, true, false, false, false, false, false, true, true, true, true]
        let text =
            #"{"type":"FeatureCollection","features":["#
            + properties.map {
                #"{"type":"Feature","geometry":null,"properties":"# + $0 + "}"
            }.joined(separator: ",") + "]}"
        guard case .featureCollection(let c) = try GeoJSONParser.parse(text) else { Issue.record("kind"); return }
        for (k, f) in c.features.enumerated() {
            let expected = try #require(try JSON.parse(properties[k]).objectValue)
            let got = try #require(f.properties)
            #expect(got == expected && got.keys == expected.keys, "feature \(k)")
            #expect(got.isPacked == packs[k], "feature \(k)")
            #expect(JSON.serialize(.object(got)) == JSON.serialize(.object(expected)), "feature \(k)")
            for m in expected { #expect(got[m.key] == m.value, "feature \(k), key \(m.key)") }
            #expect(got["missing"] == nil)
        }
        // Types are kept, not just values that compare equal.
        let first = try #require(c.features[0].properties)
        #expect(first["u"].map { if case .uint = $0 { true } else { false } } == true)
        #expect(first["min"].map { if case .int(Int64.min) = $0 { true } else { false } } == true)
        let third = try #require(c.features[3].properties)
        #expect(third["i"].map { if case .double(let d) = $0 { d == 0 && d.sign == .minus } else { false } } == true)

        var changed = first
        changed["i"] = .string("now a string")
        changed["max"] = nil
        changed["added"] = .array([.int(1)])
        #expect(changed.keys == ["i", "n", "min", "u", "added"] && changed["i"] == .string("now a string"))
        #expect(first["i"] == .int(0) && first["max"] == .int(Int64.max) && first.isPacked)
    }

    /// A packed string is checked as any string is: bad bytes and raw control characters are
    /// parse errors, reported where they are.
    @Test func packedPropertiesRefuseBadStrings() {
        for (value, offset) in [("\"a\u{01}b\"", 2), ("\"ab", 0)] {
            let text = #"{"type":"Feature","geometry":null,"properties":{"k":"# + value + "}}"
            let start = text.utf8.count - value.utf8.count - 2
            let e = parseError(text)
            #expect(e?.code == .parse && e?.location?.offset == start + offset, "\(value): \(String(describing: e))")
        }
        var bytes = Array(#"{"type":"Feature","geometry":null,"properties":{"k":"ab"#.utf8)
        let bad = bytes.count
        bytes += [0xFF, 0x22, 0x7D, 0x7D]
        let e = bytes.withUnsafeBufferPointer { b in Result { () throws(MapCoreError) in try GeoJSONParser.parse(b) } }
        guard case .failure(let error) = e else { Issue.record("accepted invalid UTF-8"); return }
        #expect(error.code == .parse && error.location?.offset == bad)
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
        #expect(
            parseError(#"{"type":"Polygon","coordinates":[[[0,0,1],[1,0,1],[1,1,1],[0,0,2]]]}"#)?.code
                == .invalidGeoJSON)
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
