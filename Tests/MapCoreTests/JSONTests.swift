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
}
