// JSON stage: values, numbers, strings, limits, locations.
import Testing
@testable import MapCore

@Suite struct JSONTests {
    @Test func integersStayExact() throws {
        let v = try JSON.parse(
            #"[9223372036854775807, -9223372036854775808, 9223372036854775808, 18446744073709551615, "#
                + #"18446744073709551616, -9223372036854775809]"#
        )
        #expect(
            v
                == .array([
                    .int(.max), .int(.min), .uint(9_223_372_036_854_775_808), .uint(.max),
                    .double(18446744073709551616.0), .double(-9223372036854775809.0),
                ]))
    }

    /// Integers are written from their digits, not through `String(v)`: the same text, the
    /// extremes and every digit count included.
    @Test func integersWriteAsTheirDecimalText() {
        var rng = SeededGenerator(seed: 11)
        var ints: [Int64] = [0, -1, 1, 9, 10, -10, 99, 100, .max, .min, .max - 1, .min + 1]
        for digits in 1...19 {
            let p = (0..<(digits - 1)).reduce(Int64(1)) { a, _ in a * 10 }
            ints += [p, -p, p - 1, 1 - p]
        }
        for _ in 0..<2000 { ints.append(Int64(bitPattern: rng.next()) >> (rng.next() % 63)) }
        for v in ints {
            var w = JSONWriter()
            w.writeInt(v)
            #expect(w.string == String(v))
        }
        for v: UInt64 in [0, 1, 9, 10, .max, .max - 1, UInt64(Int64.max) + 1, rng.next()] {
            var w = JSONWriter()
            w.writeUInt(v)
            #expect(w.string == String(v))
        }
    }

    /// `writeCoordinatePairs` writes what the per-element calls write, for doubles (integral or
    /// not, non-finite) and integers, an odd count leaving its last value out. Compact output has
    /// a path of its own; pretty output is made by the per-element calls (that half checks it
    /// goes there), and a literal pins the compact text.
    @Test func coordinatePairsWriteAsTheirElements() {
        let doubles: [Double] = [1, -2, 0.5, 1e300, -0.0, 3, .nan, .infinity, 1e15, -1e15 + 1, 7]
        let ints: [Int32] = [.max, .min, 0, -1, 40, 4096, 12]
        for pretty in [false, true] {
            for count in 0...doubles.count {
                var expected = JSONWriter(pretty: pretty), written = JSONWriter(pretty: pretty)
                for w in [0, 1] {
                    var writer = w == 0 ? expected : written
                    writer.openArray()
                    writer.element()
                    writer.writeInt(5)
                    if w == 0 {
                        var i = 0
                        while i + 1 < count {
                            writer.element()
                            writer.openArray(inline: true)
                            writer.element(); writer.writeCoordinate(doubles[i])
                            writer.element(); writer.writeCoordinate(doubles[i + 1])
                            writer.closeArray()
                            i += 2
                        }
                    } else {
                        doubles[..<count].withUnsafeBufferPointer { writer.writeCoordinatePairs($0) }
                    }
                    writer.closeArray()
                    if w == 0 { expected = writer } else { written = writer }
                }
                #expect(written.string == expected.string, "pretty \(pretty), \(count) values")
            }
            var expected = JSONWriter(pretty: pretty), written = JSONWriter(pretty: pretty)
            expected.openArray()
            written.openArray()
            for (i, v) in ints.enumerated() where i + 1 < ints.count && i % 2 == 0 {
                expected.element()
                expected.openArray(inline: true)
                expected.element(); expected.writeCoordinate(Double(v))
                expected.element(); expected.writeCoordinate(Double(ints[i + 1]))
                expected.closeArray()
            }
            ints.withUnsafeBufferPointer { written.writeCoordinatePairs($0) }
            expected.closeArray()
            written.closeArray()
            #expect(written.string == expected.string, "pretty \(pretty), Int32")
        }
        var w = JSONWriter()
        w.openArray()
        w.element()
        w.writeInt(5)
        doubles.withUnsafeBufferPointer { w.writeCoordinatePairs($0) }
        ints.withUnsafeBufferPointer { w.writeCoordinatePairs($0) }
        w.closeArray()
        #expect(
            w.string
                == "[5,[1,-2],[0.5,1e+300],[0,3],[null,null],[1000000000000000.0,-999999999999999],"
                + "[2147483647,-2147483648],[0,-1],[40,4096]]")
    }

    @Test func doublesParseCorrectlyRounded() throws {
        // Values chosen to exercise both the fast path and the strtod fallback.
        let cases: [(String, Double)] = [
            ("0.1", 0.1), ("-122.4194155", -122.4194155), ("1e22", 1e22), ("1e23", 1e23),
            ("2.2250738585072014e-308", 2.2250738585072014e-308), ("5e-324", 5e-324),
            ("12345678901234567890.5", 12345678901234567890.5), ("0.30000000000000004", 0.30000000000000004),
            ("-0.0", -0.0), ("1E+2", 100), ("123456789012345678e-10", 12345678.9012345678),
        ]
        for (text, expected) in cases {
            let v = try JSON.parse(text)
            #expect(v.doubleValue == expected, "\(text)")
        }
    }

    @Test func numbersRoundTripThroughText() throws {
        var rng = SeededGenerator(seed: 7)
        for _ in 0..<2000 {
            let d = Double(bitPattern: rng.next() & 0x7FEF_FFFF_FFFF_FFFF) * (rng.next() % 2 == 0 ? 1 : -1)
            let text = JSON.serialize(.double(d))
            #expect(try JSON.parse(text) == .double(d), "\(text)")
        }
    }

    @Test func invalidNumbersAreRejected() {
        for text in ["01", "1.", ".5", "-", "1e", "1e+", "+1", "NaN", "Infinity", "-Infinity", "1e400", "0x10"] {
            #expect(throws: MapCoreError.self, "\(text)") { try JSON.parse(text) }
        }
    }

    @Test func stringsDecodeEveryEscape() throws {
        let v = try JSON.parse(#""a\"b\\c\/d\be\ff\ng\rh\ti\u0000j\u00e9k\ud83d\ude00""#)
        #expect(v == .string("a\"b\\c/d\u{8}e\u{c}f\ng\rh\ti\u{0}jék😀"))
        let text = JSON.serialize(v)
        #expect(try JSON.parse(text) == v)
    }

    @Test func invalidStringsAreRejected() {
        let bad: [[UInt8]] = [
            Array(#""\ud800""#.utf8), Array(#""\udc00x""#.utf8), Array(#""\x""#.utf8), Array(#""\u12""#.utf8),
            [0x22, 0xFF, 0x22], [0x22, 0xC0, 0xAF, 0x22], [0x22, 0xE0, 0x80, 0x80, 0x22],
            [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], [0x22, 0xC3, 0x22],
            [0x22, 0x0A, 0x22], [0x22, 0x61],
        ]
        for bytes in bad {
            let result = bytes.withUnsafeBufferPointer { b in Result { () throws(MapCoreError) in try JSON.parse(b) } }
            guard case .failure(let e) = result else { Issue.record("accepted \(bytes)"); continue }
            #expect(e.code == .parse)
        }
    }

    @Test func duplicateKeysKeepTheLastValue() throws {
        let v = try JSON.parse(#"{"a":1,"b":2,"a":3}"#)
        #expect(v.objectValue?["a"] == .int(3))
        #expect(v.objectValue?.keys == ["a", "b"])
        // Past the linear-scan size the index takes over; same rule.
        var text = "{"
        for i in 0..<40 { text += "\"k\(i)\":\(i)," }
        text += "\"k5\":\"last\"}"
        let big = try JSON.parse(text)
        #expect(big.objectValue?.count == 40)
        #expect(big.objectValue?["k5"] == .string("last"))
    }

    @Test func keysRepeatedFromObjectToObjectReadAsWritten() throws {
        // Keys are remembered per member position, by their raw bytes: neighbours that share a
        // prefix, escaped spellings, non-ASCII, 16- and 17-byte keys and a key ending the input
        // must each still read as written.
        let text =
            #"[{"ab":1,"name":2},{"abc":1,"nam":2},{"a\u0062":1,"name":2},{"ab":1,"naméé":2},"#
            + #"{"0123456789abcdef":1,"0123456789abcdefg":2},{"0123456789abcdef":1,"0123456789abcdeg":2},"#
            + #"{"":1,"ab":2},{"ab":1,"ab":2}]"#
        let rows = try #require(JSON.parse(text).arrayValue)
        let keys = rows.map { $0.objectValue?.keys ?? [] }
        #expect(
            keys == [
                ["ab", "name"], ["abc", "nam"], ["ab", "name"], ["ab", "naméé"],
                ["0123456789abcdef", "0123456789abcdefg"], ["0123456789abcdef", "0123456789abcdeg"],
                ["", "ab"], ["ab"],
            ])
        #expect(rows[7].objectValue?["ab"] == .int(2))
        // A remembered key followed by a control byte or a cut-off end is still an error.
        for bad in [#"[{"ab":1},{"ab"#, "[{\"ab\":1},{\"ab\u{1}\":1}]", #"[{"ab":1},{"ab\"#] {
            #expect(throws: MapCoreError.self, "\(bad)") { try JSON.parse(bad) }
        }
    }

    @Test func depthLimitIsEnforcedWithoutRecursion() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: MapCoreError.self) { try JSON.parse(deep) }
        do {
            _ = try JSON.parse(deep)
        } catch {
            #expect(error.code == .limit)
            #expect(error.location?.path.contains("more") == true)
        }
        let ok = String(repeating: "[", count: 256) + String(repeating: "]", count: 256)
        #expect((try? JSON.parse(ok)) != nil)
    }

    @Test func errorLocationsNameLineColumnAndPath() {
        do {
            _ = try JSON.parse("{\n \"a\": [1, 2,\n   {\"b\": tru}]}")
            Issue.record("accepted invalid JSON")
        } catch {
            #expect(error.location?.line == 3)
            #expect(error.location?.column == 10)
            #expect(error.location?.path == "$.a[2].b")
        }
    }

    @Test func prettyOutputParsesBack() throws {
        let v = try JSON.parse(#"{"a":[1,{"b":null}],"c":{},"d":[],"e":"x"}"#)
        let pretty = JSON.serialize(v, pretty: true)
        #expect(pretty.contains("\n  \"a\": [\n"))
        #expect(try JSON.parse(pretty) == v)
    }

    // MARK: MessagePack

    /// The bytes msgpack.org's spec gives for each value: the smallest int forms, float64, str
    /// 8/16/32 at their edges, nil for a non-finite double, maps and arrays with 32-bit counts.
    @Test func messagePackWritesTheSpecsBytes() {
        func packed(_ v: JSONValue) -> [UInt8] {
            var w = MessagePackWriter()
            w.writeValue(v)
            return w.bytes
        }
        #expect(packed(.null) == [0xC0] && packed(.bool(true)) == [0xC3] && packed(.bool(false)) == [0xC2])
        let ints: [(Int64, [UInt8])] = [
            (0, [0x00]), (127, [0x7F]), (128, [0xCC, 0x80]), (255, [0xCC, 0xFF]), (256, [0xCD, 0x01, 0x00]),
            (65_536, [0xCE, 0x00, 0x01, 0x00, 0x00]), (1 << 32, [0xCF, 0, 0, 0, 1, 0, 0, 0, 0]),
            (-1, [0xFF]), (-32, [0xE0]), (-33, [0xD0, 0xDF]), (-128, [0xD0, 0x80]), (-129, [0xD1, 0xFF, 0x7F]),
            (-32_769, [0xD2, 0xFF, 0xFF, 0x7F, 0xFF]), (.min, [0xD3, 0x80, 0, 0, 0, 0, 0, 0, 0]),
        ]
        for (v, bytes) in ints { #expect(packed(.int(v)) == bytes, "\(v)") }
        #expect(packed(.uint(.max)) == [0xCF] + [UInt8](repeating: 0xFF, count: 8))
        #expect(packed(.double(1.5)) == [0xCB, 0x3F, 0xF8, 0, 0, 0, 0, 0, 0])
        #expect(packed(.double(-0.0)) == [0xCB, 0x80, 0, 0, 0, 0, 0, 0, 0])
        #expect(packed(.double(.infinity)) == [0xC0] && packed(.double(.nan)) == [0xC0])
        #expect(packed(.string("é")) == [0xA2, 0xC3, 0xA9])
        for (n, head) in [
            (31, [0xBF]), (32, [0xD9, 0x20]), (255, [0xD9, 0xFF]), (256, [0xDA, 0x01, 0x00]),
            (65_536, [0xDB, 0x00, 0x01, 0x00, 0x00]),
        ] as [(Int, [UInt8])] {
            #expect(packed(.string(String(repeating: "a", count: n))) == head + [UInt8](repeating: 0x61, count: n))
        }
        #expect(
            packed(.object(JSONObject(uniqueMembers: [("a", .array([.int(1), .double(2.5)])), ("b", .null)])))
                == [
                    0xDF, 0, 0, 0, 2, 0xA1, 0x61, 0xDD, 0, 0, 0, 2, 0x01, 0xCB, 0x40, 0x04, 0, 0, 0, 0, 0, 0, 0xA1,
                    0x62, 0xC0,
                ])
        #expect(packed(.array([])) == [0xDD, 0, 0, 0, 0])
        // A string of 4 GiB has no form: the writer says so (callers then report MC_E_LIMIT)
        // without reading its bytes, so a pointer to one byte stands in for them here.
        var w = MessagePackWriter()
        let one: [UInt8] = [0x61]
        one.withUnsafeBufferPointer { b in
            w.writeString(utf8: UnsafeBufferPointer(start: b.baseAddress, count: Int(UInt32.max) + 1))
        }
        #expect(w.overflowed)
        #expect(throws: MapCoreError.self) { try w.finished() }
        #expect(!MessagePackWriter().overflowed)
    }

    /// GeoJSON as MessagePack holds what its text holds, member for member, with the number
    /// types the text reads back as (integral coordinates as integers, doubles as doubles).
    @Test func messagePackGeoJSONReadsBackAsItsText() throws {
        let text = #"""
            {"type":"FeatureCollection","bbox":[-180,-90,180,90.5],"features":[
             {"type":"Feature","id":"a","geometry":{"type":"Point","coordinates":[1,2.5,-3]},
              "properties":{"n":1,"d":1.0,"big":18446744073709551615,"s":"x\"y","nested":{"k":[true,null,{}]}},
              "extra":{"q":-0.0}},
             {"type":"Feature","id":7,"geometry":{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]]},
              "properties":null},
             {"type":"Feature","geometry":null,"properties":{}},
             {"type":"Feature","geometry":null,"properties":{"u":18446744073709551615,"z":-0.0,"dec":12.5,
              "tiny":0.0000125,"neg":-70000,"big":1e300,"esc":"a\"b\\c\n\u00e9","t":true,"nul":null,
              "long":"LONG"}}],"foreign":"kept"}
            """#.replacing("LONG", with: String(repeating: "L", count: 130))
        let g = try GeoJSONParser.parse(text)
        // The last feature's properties are packed: written from their bytes.
        guard case .featureCollection(let c) = g, let packed = c.features.last?.properties, packed.isPacked else {
            Issue.record("no packed properties")
            return
        }
        var reader = MessagePackTestReader(bytes: try g.serializeMessagePack())
        let fromPack = try reader.value()
        #expect(reader.at == reader.bytes.count)
        #expect(sameValue(fromPack, try JSON.parse(g.serializedString())))
        if case .object(let o) = fromPack, case .array(let features) = o["features"], case .object(let f) = features[0],
            case .object(let geometry) = f["geometry"], case .array(let position) = geometry["coordinates"]
        {
            #expect(sameValue(position[0], .int(1)) && sameValue(position[1], .double(2.5)))
        } else {
            Issue.record("no first position")
        }
    }

    /// A cluster index's features as MessagePack: the same on two threads as on one, and the
    /// same values as its text.
    @Test func parallelMessagePackClusterFeaturesMatchTheText() throws {
        var features: [String] = []
        for i in 0..<25_000 {
            let lng = Double(i % 360) - 179.5, lat = Double(i % 170) / 2 - 42.25
            features.append(
                #"{"type":"Feature","properties":{"i":\#(i),"s":"p\#(i)"},"#
                    + #""geometry":{"type":"Point","coordinates":[\#(lng),\#(lat)]}}"#)
        }
        let text = #"{"type":"FeatureCollection","features":["# + features.joined(separator: ",") + "]}"
        guard case .featureCollection(let c) = try GeoJSONParser.parse(text) else { Issue.record("parse"); return }
        let index = try Supercluster(features: c.features, options: SuperclusterOptions())
        let items =
            try index.clusters(west: -180, south: -85, east: 180, north: 85, zoom: 3)
            + (0..<25_000).map { ClusterItem.point($0) }
        #expect(items.count > Supercluster.parallelWritingFrom)
        let parallel = try index.featureCollectionMessagePack(items)
        #expect(parallel == (try index.featureCollectionMessagePack(items, parallel: false)))
        var reader = MessagePackTestReader(bytes: parallel)
        let fromText = try JSON.parse(String(decoding: index.featureCollection(items), as: UTF8.self))
        #expect(sameValue(try reader.value(), fromText))
    }
}

/// Equal with the same cases (1 is not 1.0 here) and members in the same order.
func sameValue(_ a: JSONValue, _ b: JSONValue) -> Bool {
    switch (a, b) {
    case (.null, .null): return true
    case let (.bool(x), .bool(y)): return x == y
    case let (.int(x), .int(y)): return x == y
    case let (.uint(x), .uint(y)): return x == y
    case let (.double(x), .double(y)): return x.bitPattern == y.bitPattern
    case let (.string(x), .string(y)): return x == y
    case let (.array(x), .array(y)): return x.count == y.count && zip(x, y).allSatisfy { sameValue($0, $1) }
    case let (.object(x), .object(y)):
        let (m, n) = (Array(x), Array(y))
        return m.count == n.count && zip(m, n).allSatisfy { $0.key == $1.key && sameValue($0.value, $1.value) }
    default: return false
    }
}

/// A MessagePack reader for the tests, written from the spec (msgpack.org) for the forms the
/// library writes: integers as .int (.uint above Int64.max), float64 as .double.
struct MessagePackTestReader {
    enum Failure: Error { case truncated, unexpected(UInt8) }
    let bytes: [UInt8]
    var at = 0

    mutating func take(_ n: Int) throws -> UInt64 {
        guard at + n <= bytes.count else { throw Failure.truncated }
        var v: UInt64 = 0
        for k in 0..<n { v = v << 8 | UInt64(bytes[at + k]) }
        at += n
        return v
    }

    mutating func string(_ n: Int) throws -> String {
        guard at + n <= bytes.count else { throw Failure.truncated }
        defer { at += n }
        return String(decoding: bytes[at..<at + n], as: UTF8.self)
    }

    mutating func value() throws -> JSONValue {
        let m = UInt8(try take(1))
        switch m {
        case 0x00...0x7F: return .int(Int64(m))
        case 0xE0...0xFF: return .int(Int64(Int8(bitPattern: m)))
        case 0xA0...0xBF: return .string(try string(Int(m & 0x1F)))
        case 0xC0: return .null
        case 0xC2, 0xC3: return .bool(m == 0xC3)
        case 0xCB: return .double(Double(bitPattern: try take(8)))
        case 0xCC, 0xCD, 0xCE, 0xCF:
            let v = try take(1 << Int(m - 0xCC))
            return v <= UInt64(Int64.max) ? .int(Int64(v)) : .uint(v)
        case 0xD0: return .int(Int64(Int8(truncatingIfNeeded: try take(1))))
        case 0xD1: return .int(Int64(Int16(truncatingIfNeeded: try take(2))))
        case 0xD2: return .int(Int64(Int32(truncatingIfNeeded: try take(4))))
        case 0xD3: return .int(Int64(bitPattern: try take(8)))
        case 0xD9, 0xDA, 0xDB: return .string(try string(Int(try take(1 << Int(m - 0xD9)))))
        case 0xDD:
            return .array(try (0..<Int(try take(4))).map { _ in try value() })
        case 0xDF:
            var members: [(String, JSONValue)] = []
            for _ in 0..<Int(try take(4)) {
                guard case .string(let key) = try value() else { throw Failure.unexpected(m) }
                members.append((key, try value()))
            }
            return .object(JSONObject(uniqueMembers: members))
        default: throw Failure.unexpected(m)
        }
    }
}
