// Format-string stage: the MapLibre darwin pairs, the SDK documents' examples evaluated, JSON →
// format round trips over the style-spec suite, and malformed input.
import Testing
@testable import MapCore
import MapCoreConformance

private func args(_ text: String) throws -> [JSONValue] {
    guard case .array(let a) = try JSON.parse(text) else {
        throw MapCoreError(.invalidArgument, "arguments must be an array")
    }
    return a
}

private func formatJSON(_ format: String, _ arguments: String = "[]", kind: FormatKind = .predicate) throws -> JSONValue
{
    try FormatString.json(Array(format.utf8), arguments: try args(arguments), kind: kind)
}

private func compileFormat(
    _ format: String, _ arguments: String = "[]", kind: FormatKind,
    spec: PropertySpec? = nil
) throws -> StyleExpression {
    let json = try formatJSON(format, arguments, kind: kind)
    switch StyleExpression.compile(json, spec: spec ?? (kind == .predicate ? .filter : .default)) {
    case .success(let e): return e
    case .failure(let f):
        throw MapCoreError(.expression, f.errors.map { "\($0.key): \($0.message)" }.joined(separator: "; "))
    }
}

private func feature(
    _ properties: String, geometry: String = #"{"type":"Point","coordinates":[-84.5,39.1]}"#
) throws -> Feature {
    guard
        case .feature(let f) = try GeoJSONParser.parse(
            #"{"type":"Feature","geometry":\#(geometry),"properties":\#(properties)}"#)
    else {
        throw MapCoreError(.invalidArgument, "not a feature")
    }
    return f
}

private func matches(_ format: String, _ arguments: String = "[]", on f: Feature) throws -> Bool {
    let e = try compileFormat(format, arguments, kind: .predicate)
    var ctx = EvaluationContext()
    ctx.setFeature(f)
    if case .boolean(true) = try e.evaluate(ctx) { return true }
    return false
}

/// The value as JSON (numbers compare by value, colors are "rgba(…)" strings).
private func value(
    _ format: String, _ arguments: String = "[]", on f: Feature? = nil, zoom: Double? = nil,
    spec: PropertySpec? = nil
) throws -> JSONValue {
    let e = try compileFormat(format, arguments, kind: .expression, spec: spec)
    var ctx = EvaluationContext(zoom: zoom)
    ctx.setFeature(f)
    return try e.evaluate(ctx).json()
}

private func formatError(_ format: String, _ arguments: String = "[]", kind: FormatKind = .predicate) -> MapCoreError? {
    do {
        _ = try FormatString.json(Array(format.utf8), arguments: try args(arguments), kind: kind)
        return nil
    } catch let e as MapCoreError {
        return e
    } catch {
        return MapCoreError(.internalError, "\(error)")
    }
}

private let repoRoot = "/" + #filePath.split(separator: "/").dropLast(3).joined(separator: "/")

@Suite struct FormatStringTests {
    /// Issue 22: legacy `$type` filters are the feature's type (a MultiPoint is a Point), which
    /// `$geometryType` is not; the format string asks for both names, so the round trip keeps
    /// the meaning on single and multi geometries alike.
    @Test func legacyTypeFiltersKeepTheirMeaning() throws {
        let geometries = [
            #"{"type":"Point","coordinates":[0,0]}"#, #"{"type":"MultiPoint","coordinates":[[0,0],[1,1]]}"#,
            #"{"type":"LineString","coordinates":[[0,0],[1,1]]}"#,
            #"{"type":"MultiPolygon","coordinates":[[[[0,0],[1,0],[1,1],[0,0]]],[[[5,5],[6,5],[6,6],[5,5]]]]}"#,
        ]
        let filters = [
            #"["==","$type","Polygon"]"#, #"["==","$type","Point"]"#, #"["!=","$type","Point"]"#,
            #"["in","$type","Point","LineString"]"#, #"["!in","$type","Polygon"]"#,
            #"["all",["==","$type","Point"],["!has","x"]]"#,
        ]
        for text in filters {
            let json = try JSON.parse(text)
            guard case .success(let original) = StyleExpression.compile(json, spec: .filter, legacyFilters: true) else {
                Issue.record("\(text) does not compile")
                continue
            }
            let (format, arguments) = try FormatString.format(json: json, kind: .predicate)
            let back = try FormatString.json(Array(format.utf8), arguments: arguments, kind: .predicate)
            guard case .success(let again) = StyleExpression.compile(back, spec: .filter) else {
                Issue.record("\(format) does not compile back")
                continue
            }
            for g in geometries {
                var ctx = EvaluationContext()
                ctx.setFeature(try feature("{}", geometry: g))
                let a = try? original.evaluate(ctx).json(), b = try? again.evaluate(ctx).json()
                #expect(a == b, "\(text) -> \(format) on \(g)")
            }
        }
        #expect(
            try FormatString.format(json: JSON.parse(#"["==","$type","Polygon"]"#), kind: .predicate).text
                == "$geometryType IN {'Polygon', 'MultiPolygon'}")
        // No format string compiles to an `error` standing as a predicate: the conversion says so.
        let error = thrown { () throws(MapCoreError) in
            _ = try FormatString.format(json: JSON.parse(#"["any",true,["error","unreachable"]]"#), kind: .predicate)
        }
        #expect(error?.code == .unsupported && error?.message.contains("error") == true)
    }

    @Test func maplibreDarwinPairs() throws {
        let text = String(
            decoding: try FileIO.read(path: "\(repoRoot)/Tests/conformance/format-string-pairs.jsonl"), as: UTF8.self)
        let outcomes = FormatConformance.run(jsonl: text)
        #expect(outcomes.count == 90)
        for o in outcomes { #expect(o.passed, "\(o.id): \(o.reason)") }
    }

    @Test func runnerReportsWrongRecords() throws {
        let wrongJSON = FormatConformance.runCase(
            try JSON.parse(
                #"{"kind":"predicate","format":"a = 'b'","json":["==",["get","a"],"c"],"direction":"format-to-json"}"#),
            line: 1)
        #expect(!wrongJSON.passed)
        let notAnError = FormatConformance.runCase(
            try JSON.parse(
                #"{"kind":"predicate","format":"a = 'b'","json":null,"error":true,"direction":"format-to-json"}"#),
            line: 2)
        #expect(!notAnError.passed)
        let wrongBack = FormatConformance.runCase(
            try JSON.parse(
                #"{"kind":"predicate","format":"a = 'b'","json":["==",["get","a"],"c"],"direction":"json-to-format"}"#),
            line: 3)
        #expect(!wrongBack.passed)
    }

    @Test func documentedPredicates() throws {
        let point = try feature(#"{"zoneColor":"purple","temperature":64}"#)
        let polygon = try feature("{}", geometry: #"{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]]}"#)
        let geometryType = #"[{"$expression": ["geometry-type"]}]"#
        #expect(try matches(#"%@ == "Point""#, geometryType, on: point))
        #expect(try !matches(#"%@ == "Point""#, geometryType, on: polygon))
        #expect(try matches("zoneColor != NIL", on: point))
        #expect(try !matches("zoneColor != NIL", on: polygon))
        #expect(try !matches("temperature != nil && temperature >= 100", on: point))
        #expect(try matches("temperature != nil && temperature >= 100", on: try feature(#"{"temperature":120}"#)))
        #expect(try !matches("temperature != nil && temperature >= 100", on: polygon))
        let cluster = try feature(#"{"cluster":true,"cluster_id":1,"point_count":12}"#)
        #expect(try matches("point_count != NIL", on: cluster))
        #expect(try !matches("point_count = NIL", on: cluster))
        #expect(try matches("point_count = NIL", on: point))
        #expect(try matches("%K == 'US-OH'", #"["ISO 3166-1:2006"]"#, on: try feature(#"{"ISO 3166-1:2006":"US-OH"}"#)))
        #expect(try matches("EntityType = 'restaurant'", on: try feature(#"{"EntityType":"restaurant"}"#)))
        let cincinnati = #"[{"type":"Polygon","coordinates":[[[-85,39],[-84,39],[-84,40],[-85,40],[-85,39]]]}]"#
        let izzys = try feature(#"{"class":"food_and_drink","name":"Izzy's"}"#)
        let deli = "class = 'food_and_drink' AND name CONTAINS 'Izzy' AND SELF IN %@"
        #expect(try matches(deli, cincinnati, on: izzys))
        #expect(
            try !matches(
                deli, cincinnati,
                on: try feature(
                    #"{"class":"food_and_drink","name":"Izzy's"}"#,
                    geometry: #"{"type":"Point","coordinates":[2.35,48.85]}"#)))
        #expect(try !matches(deli, cincinnati, on: try feature(#"{"class":"food_and_drink","name":"Skyline"}"#)))
        #expect(try matches("'QUEBEC' =[c] 'Quebec'", on: point))
        #expect(try !matches("'QUEBEC' = 'Quebec'", on: point))
        #expect(try matches("'Québec' =[d] 'Quebec'", on: point))
        #expect(try !matches("'Québec' = 'Quebec'", on: point))
        #expect(try matches("key BETWEEN { 32, 212 }", on: try feature(#"{"key":100}"#)))
        #expect(try !matches("key BETWEEN { 32, 212 }", on: try feature(#"{"key":213}"#)))
        #expect(try matches("key IN { 'iOS', 'macOS', 'tvOS', 'watchOS' }", on: try feature(#"{"key":"tvOS"}"#)))
        #expect(try !matches("key IN { 'iOS', 'macOS', 'tvOS', 'watchOS' }", on: try feature(#"{"key":"Android"}"#)))
        let hay = try feature(#"{"haystack":["a","b"],"needle":"b"}"#)
        let noHay = try feature(#"{"haystack":["a","c"],"needle":"b"}"#)
        #expect(try matches("ANY haystack = needle", on: hay))
        #expect(try !matches("ANY haystack = needle", on: noHay))
        #expect(try !matches("ALL haystack != needle", on: hay))
        #expect(try matches("ALL haystack != needle", on: noHay))
        #expect(try !matches("NONE haystack = needle", on: hay))
    }

    /// The docs: no automatic casting — a feature matches only when the property has the type
    /// of the value; CAST converts.
    @Test func noAutomaticTypeCasting() throws {
        let f = try feature(#"{"x":"5"}"#)
        #expect(try !matches("x == 5", on: f))
        #expect(try matches("x == '5'", on: f))
        #expect(try matches("CAST(x, 'NSNumber') == 5", on: f))
        #expect(try matches("CAST(n, 'NSString') == '5'", on: try feature(#"{"n":5}"#)))
    }

    @Test func documentedExpressions() throws {
        #expect(try value("MGL_LET('floorCount', 2, $floorCount + 1)") == .double(3))
        #expect(try value("MGL_LET(floorCount, 2, $floorCount + 1)") == .double(3))
        let match = "MGL_MATCH(x, 0, 'zero match', 1, 'one match', 2, 'two match', 'default')"
        #expect(try value(match, on: try feature(#"{"x":1}"#)) == .string("one match"))
        #expect(try value(match, on: try feature(#"{"x":7}"#)) == .string("default"))
        #expect(try value("MGL_IF(1 = 2, YES, 2 = 2, YES, NO)") == .bool(true))
        #expect(try value("MGL_IF(1 = 2, 'a', 2 = 3, 'b', 'c')") == .string("c"))
        #expect(try value("mgl_join({'Old', 'MacDonald'})") == .string("OldMacDonald"))
        #expect(try value("FUNCTION('Old', 'stringByAppendingString:', 'MacDonald')") == .string("OldMacDonald"))
        #expect(try value("CAST(mag, 'NSString')", on: try feature(#"{"mag":4.5}"#)) == .string("4.5"))
        #expect(try value("sum({1, 2, 2, 3, 4, 7, 9})") == .double(28))
        #expect(try value("average({1, 2, 3, 6})") == .double(3))
        #expect(try value("average(1, 2, 3, 6)") == .double(3))
        // The rest of the documented function table.
        for (format, expected) in [
            ("average({1, 2, 2, 3, 4, 7, 9})", 4.0), ("count({1, 2, 2, 3, 4, 7, 9})", 7),
            ("min({1, 2, 2, 3, 4, 7, 9})", 1), ("max({1, 2, 2, 3, 4, 7, 9})", 9),
            ("sqrt(2)", 2.0.squareRoot()), ("log(10)", 1), ("exp(0)", 1), ("ceiling(0.99999)", 1),
            ("abs(-1)", 1), ("floor(-0.99999)", -1), ("mgl_acos(1)", 0), ("mgl_asin(0)", 0),
            ("mgl_cos(0)", 1), ("mgl_sin(0)", 0), ("mgl_tan(0)", 0), ("mgl_log2(1024)", 10),
        ] {
            #expect(try value(format) == .double(expected), "\(format)")
        }
        #expect(try value("lowercase('DOWNTOWN')") == .string("downtown"))
        #expect(
            try value("CAST(noindex(color), 'NSArray')", on: try feature(#"{"color":"red"}"#))
                == JSON.parse("[255, 0, 0, 1]"))
        #expect(try value("max({1, 9, 3})") == .double(9))
        #expect(try value("2 ** 2") == .double(4))
        #expect(try value("2 ** 3 ** 2") == .double(64))
        #expect(try value("1 + 2 * 3 - 4 / 2") == .double(5))
        #expect(try value("-(1 + 2) * 2") == .double(-6))
        #expect(try value("modulus:by:(1, 2)") == .double(1))
        #expect(try value("trunc(6378.1370)") == .double(6378))
        #expect(try value("trunc(-2.5)") == .double(-2))
        #expect(try value("uppercase('Elysian Fields')") == .string("ELYSIAN FIELDS"))
        #expect(try value("length('Wapakoneta')") == .double(10))
        #expect(try value("noindex(0 + 2 + c)", on: try feature(#"{"c":1}"#)) == .double(3))
        #expect(try value("mgl_coalesce({x, y, 'none'})", on: try feature(#"{"y":"why"}"#)) == .string("why"))
        #expect(try value("TERNARY(x > 2, 'big', 'small')", on: try feature(#"{"x":3}"#)) == .string("big"))
        #expect(try value("tags[1]", on: try feature(#"{"tags":["a","b"]}"#)) == .string("b"))
        #expect(try value("tags[LAST]", on: try feature(#"{"tags":["a","b","c"]}"#)) == .string("c"))
        #expect(try value("burger.cheese", on: try feature(#"{"burger":{"cheese":"cheddar"}}"#)) == .string("cheddar"))
        #expect(try value("mgl_does:have:(SELF, 'x')", on: try feature(#"{"x":null}"#)) == .bool(true))
        #expect(
            try value("FUNCTION($featureAttributes, 'mgl_has:', 'y')", on: try feature(#"{"x":1}"#)) == .bool(false))
        #expect(
            try value("FUNCTION(ele, 'mgl_numberWithFallbackValues:', 0)", on: try feature(#"{"ele":"x"}"#))
                == .double(0))
        #expect(try value("FUNCTION(1, 'boolValue')") == .bool(true))
        #expect(
            try value("MGL_FUNCTION('typeof', mystery)", on: try feature(#"{"mystery":[1]}"#))
                == .string("array<number, 1>"))
        #expect(
            try value("FUNCTION($ios + $macos, 'mgl_expressionWithContext:', %@)", #"[{"ios": 1, "macos": 2}]"#)
                == .double(3))
        #expect(try value("mgl_round(1.5) + mgl_log2(1024)") == .double(12))
        let attributed = "mgl_attributed:({name, %@, ' (', %@, ')'})"
        #expect(
            try formatJSON(attributed, #"[{"font-scale": 1.2}, {"text-color": "red"}]"#, kind: .expression)
                == JSON.parse(#"["format", ["get", "name"], {"font-scale": 1.2}, " (", {"text-color": "red"}, ")"]"#))
        #expect(
            try value(attributed, #"[{"font-scale": 1.2}, {}]"#, on: try feature(#"{"name":"Izzy"}"#))
                .objectValue?["sections"]?.arrayValue?.count == 3)
        #expect(try value("$featureIdentifier", on: Feature(geometry: nil, id: .int(7))) == .double(7))
    }

    /// Every spelling of the SDK-specific functions reads the same: MGL_/MLN_, mgl_/mln_, with or
    /// without the trailing colon.
    @Test func spellings() throws {
        let a = try formatJSON("MGL_MATCH(x, 1, 'a', 'b')", kind: .expression)
        #expect(try formatJSON("MLN_MATCH(x, 1, 'a', 'b')", kind: .expression) == a)
        #expect(
            try formatJSON("mgl_join({'a', 'b'})", kind: .expression)
                == formatJSON("mln_join:({'a', 'b'})", kind: .expression))
        #expect(try formatJSON("sum({1, 2})", kind: .expression) == formatJSON("sum:({1, 2})", kind: .expression))
        #expect(
            try formatJSON("a =< 1 AND b => 2 OR c <> 3", kind: .predicate)
                == JSON.parse(
                    #"["any", ["all", ["<=", ["get", "a"], 1], [">=", ["get", "b"], 2]], ["!=", ["get", "c"], 3]]"#))
        #expect(
            try formatJSON("a == 1 && !(b == 2) || TRUEPREDICATE", kind: .predicate)
                == JSON.parse(#"["any", ["all", ["==", ["get", "a"], 1], ["!", ["==", ["get", "b"], 2]]], true]"#))
        #expect(
            try formatJSON("#size == \"x\\u00e9\\n\"", kind: .predicate)
                == JSON.parse(#"["==", ["get", "size"], "xé\n"]"#))
        #expect(try formatJSON("x == -0x1F", kind: .predicate) == JSON.parse(#"["==", ["get", "x"], -31]"#))
        #expect(try formatJSON("x == 1.5e3", kind: .predicate) == JSON.parse(#"["==", ["get", "x"], 1500]"#))
    }

    @Test func zoomStopsAndShapes() throws {
        let ramp = "mgl_interpolate:withCurveType:parameters:stops:($zoomLevel, 'linear', nil, %@)"
        #expect(try value(ramp, #"[{"0": 1, "10": 5}]"#, zoom: 5) == .double(3))
        let method = "FUNCTION($zoomLevel, 'mgl_interpolateWithCurveType:parameters:stops:', 'exponential', 2, %@)"
        #expect(
            try formatJSON(method, #"[{"10": 1, "0": 0}]"#, kind: .expression)
                == JSON.parse(#"["interpolate", ["exponential", 2], ["zoom"], 0, 0, 10, 1]"#))
        let bezier = "mgl_interpolate:withCurveType:parameters:stops:(x, 'cubic-bezier', {0.42, 0, 0.58, 1}, %@)"
        #expect(
            try formatJSON(bezier, #"[{"0": 0, "1": 1}]"#, kind: .expression)
                == JSON.parse(#"["interpolate", ["cubic-bezier", 0.42, 0, 0.58, 1], ["get", "x"], 0, 0, 1, 1]"#))
        let step = "mgl_step:from:stops:($zoomLevel, 'small', %@)"
        #expect(try value(step, #"[{"12": "mid", "16": "large"}]"#, zoom: 13) == .string("mid"))
        #expect(
            try value("FUNCTION($zoomLevel, 'mgl_stepWithMinimum:stops:', 0, %@)", #"[{"5": 1}]"#, zoom: 6)
                == .double(1))
        let colors = try value(
            ramp, #"[{"0": "yellow", "10": "red"}]"#, zoom: 10,
            spec: try PropertySpec(json: try JSON.parse(#"{"type": "color"}"#)))
        #expect(colors == .string("rgba(255,0,0,1)"))
        // $zoomLevel only as the input of a top-level interpolation or step.
        #expect(throws: MapCoreError.self) { try compileFormat("$zoomLevel + 1", kind: .expression) }
        #expect(throws: MapCoreError.self) {
            try compileFormat("1 + mgl_step:from:stops:($zoomLevel, 0, %@)", #"[{"1": 1}]"#, kind: .expression)
        }
        let line = #"[{"type":"LineString","coordinates":[[0,0],[0,1]]}]"#
        #expect(
            try formatJSON("mgl_distanceFrom(%@)", line, kind: .expression)
                == JSON.parse(#"["distance", {"type":"LineString","coordinates":[[0,0],[0,1]]}]"#))
        #expect(
            try formatJSON("%@ CONTAINS SELF", #"[{"type":"Polygon","coordinates":[]}]"#)
                == JSON.parse(#"["within", {"type":"Polygon","coordinates":[]}]"#))
    }

    /// What the docs list as unsupported is rejected with an error naming the construct.
    @Test func unsupportedConstructsAreNamed() throws {
        for (format, name) in [
            ("a BEGINSWITH 'x'", "BEGINSWITH"), ("a ENDSWITH 'x'", "ENDSWITH"), ("a LIKE 'x'", "LIKE"),
            ("a MATCHES 'x'", "MATCHES"), ("a =[l] 'x'", "[l]"), ("a =[n] 'x'", "[n]"),
            ("ANY a =[c] 'x'", "ANY"), ("ALL a !=[d] 'x'", "ALL"), ("ALL a = 1", "ALL"),
            ("ANY a < 1", "ANY"),
        ] {
            let e = formatError(format)
            #expect(e?.code == .unsupported, "\(format)")
            #expect(e?.message.contains(name) == true, "\(format): \(e?.message ?? "no error")")
        }
        for fn in [
            "median({1, 2, 2, 3, 4, 7, 9})", "onesComplement(255)", "randomn(10)", "median:({1})", "mode:({1})",
            "stddev:({1})", "random()", "randomn:(3)", "now()", "bitwiseAnd:with:(1, 2)",
            "bitwiseOr:with:(1, 2)", "bitwiseXor:with:(1, 2)", "leftshift:by:(1, 2)", "rightshift:by:(1, 2)",
            "onesComplement:(1)", "distanceToLocation:fromLocation:(a, b)",
        ] {
            let e = formatError(fn, kind: .expression)
            #expect(e?.code == .unsupported, "\(fn)")
            let name = String(fn.prefix { $0 != "(" && $0 != ":" })
            #expect(e?.message.contains(name) == true, "\(fn): \(e?.message ?? "no error")")
        }
        #expect(formatError("CAST(noindex('x'), 'NSArray')", kind: .expression)?.code == .unsupported)
        #expect(formatError("CAST(x, 'NSDate')", kind: .expression)?.message.contains("NSDate") == true)
        #expect(formatError("castObject:toType:(x, 'NSDate')", kind: .expression)?.code == .unsupported)
    }

    @Test func malformedInputReportsPosition() throws {
        func expectError(
            _ format: String, _ arguments: String = "[]", kind: FormatKind = .predicate, code: ErrorCode = .parse,
            offset: Int, _ words: String
        ) {
            let e = formatError(format, arguments, kind: kind)
            #expect(e?.code == code, "\(format): \(e?.description ?? "no error")")
            #expect(e?.location?.offset == offset, "\(format): \(e?.description ?? "no error")")
            #expect(e?.message.contains(words) == true, "\(format): \(e?.message ?? "no error")")
        }
        expectError("name == 'Izzy", offset: 8, "Unterminated string")
        expectError("name == \"Izzy", offset: 8, "Unterminated string")
        expectError("(a == 1", offset: 7, "Expected ')'")
        expectError("(a == 1))", offset: 8, "Unexpected ')'")
        expectError("uppercase(x", kind: .expression, offset: 11, "Expected ')'")
        expectError("frobnicate(x)", kind: .expression, offset: 0, "Unknown function 'frobnicate'")
        expectError("FUNCTION(x, 'frobnicate:', 1)", kind: .expression, offset: 0, "frobnicate")
        expectError("add:to:(1)", kind: .expression, offset: 0, "2 arguments")
        expectError("a == %@", code: .invalidArgument, offset: 5, "placeholders")
        expectError("a == %@", "[1, 2]", code: .invalidArgument, offset: 7, "2 arguments")
        expectError("%K == 1", "[1]", code: .invalidArgument, offset: 0, "%K")
        expectError("a == %d", "[1]", offset: 5, "%@ and %K")
        expectError("a == 'x' AND", offset: 12, "end")
        expectError("a", offset: 0, "Expected a predicate")
        expectError("a == 1", kind: .expression, offset: 0, "Expected an expression")
        expectError("", offset: 0, "empty")
        expectError("a == 'x\\q'", offset: 7, "Unknown escape")
        expectError("a == 1 ? 2", offset: 7, "Unexpected character '?'")
        let deep = String(repeating: "(", count: 100_000) + "a == 1" + String(repeating: ")", count: 100_000)
        expectError(deep, code: .limit, offset: 32, "Nesting deeper than 32")
        let deepMinus = String(repeating: "-", count: 100_000) + "1"
        #expect(formatError(deepMinus, kind: .expression)?.code == .limit)
        #expect(formatError("a" + String(repeating: "[0]", count: 100_000), kind: .expression)?.code == .limit)
        #expect(formatError("(a)" + String(repeating: ".b", count: 100_000), kind: .expression)?.code == .limit)
        let deepArgument = String(repeating: "[", count: 200) + String(repeating: "]", count: 200)
        #expect(formatError("x IN %@", "[\(deepArgument)]")?.code == .limit)
        let longSum = String(repeating: "a + ", count: 100_000) + "a"
        #expect(formatError(longSum, kind: .expression)?.code == .limit)
        #expect(try formatJSON(String(repeating: "a + ", count: 20) + "a", kind: .expression).arrayValue?.count == 3)
        let deepNot = String(repeating: "NOT ", count: 100_000) + "a == 1"
        #expect(formatError(deepNot)?.code == .limit)
        let nested = String(repeating: "(", count: 32) + "a == 1" + String(repeating: ")", count: 32)
        #expect(try formatJSON(nested) == JSON.parse(#"["==", ["get", "a"], 1]"#))
        // Bytes that are not UTF-8: the offset of the first bad byte.
        let bad: [UInt8] = Array("name == '".utf8) + [0xC3, 0x28] + Array("'".utf8)
        do {
            _ = try FormatString.json(bad, kind: .predicate)
            Issue.record("non-UTF-8 accepted")
        } catch {
            #expect(error.code == .parse && error.location?.offset == 9 && error.message.contains("UTF-8"))
        }
        #expect(formatError("x == 1e999")?.message.contains("out of range") == true)
        #expect(formatError("x == 99999999999999999999999") == nil)  // a double, as Foundation reads it
    }

    /// JSON → format → JSON over every expression of the style-spec suite that compiles: the
    /// expression compiled from the round-tripped JSON serializes exactly as the original.
    /// A key after a subscript or call prints as `base.key`, as the parser reads it, not as
    /// FUNCTION(base, 'valueForKey:', 'key'), which nests two levels deeper: the format fuzz
    /// target found a chain that read within the nesting limit and printed past it.
    @Test func keysAfterSubscriptsPrintAsTheyRead() throws {
        for (text, printed) in [
            ("a[0].b", "a[0].b"), ("FUNCTION(x, 'valueForKey:', 'y')", "x.y"), ("(a + b)[1].#size", "(a + b)[1].#size"),
        ] {
            let json = try FormatString.json(Array(text.utf8), kind: .expression)
            let f = try FormatString.format(json: json, kind: .expression)
            #expect(f.text == printed)
            #expect(try FormatString.json(Array(f.text.utf8), arguments: f.arguments, kind: .expression) == json)
        }
        let deep = "-t - " + String(repeating: "-", count: 18) + "je.e.#e.#sit0e.#e.#e.#sit1e[c].#eBETWEENTWEEN_j"
        let json = try FormatString.json(Array(deep.utf8), kind: .expression)
        let f = try FormatString.format(json: json, kind: .expression)
        #expect(try FormatString.json(Array(f.text.utf8), arguments: f.arguments, kind: .expression) == json)
    }

    /// The nesting limit counts the tree a chain makes, not how the text nests: the printer drops
    /// parentheses around a left operand, and with the old count (every operator of a chain still
    /// counted while its right operand was read) `(a - … - a) - -…-b` read within the limit and
    /// printed past it (found by the format fuzz target). The same tree now gives the same verdict
    /// however it is written.
    @Test func chainsCountAsTheTreeTheyMake() throws {
        let chain = "a" + String(repeating: " - a", count: 20)
        let right = String(repeating: "-", count: 12) + "b"
        for text in ["(\(chain)) - \(right)", "((\(chain))) - (\(right))", "(a)[0][\(chain)] - \(right)"] {
            let json = try FormatString.json(Array(text.utf8), kind: .expression)
            let f = try FormatString.format(json: json, kind: .expression)
            #expect(try FormatString.json(Array(f.text.utf8), arguments: f.arguments, kind: .expression) == json)
        }
        func limited(_ text: String) -> Bool {
            do {
                _ = try FormatString.json(Array(text.utf8), kind: .expression)
                return false
            } catch { return error.code == .limit }
        }
        #expect(!limited("a" + String(repeating: " - a", count: 32)))  // 32 levels on the left
        #expect(limited("a" + String(repeating: " - a", count: 33)))
        #expect(!limited("a - a - a - " + String(repeating: "(", count: 30) + "b" + String(repeating: ")", count: 30)))
        #expect(limited(String(repeating: "(", count: 33) + "b" + String(repeating: ")", count: 33)))
        #expect(limited("a" + String(repeating: "[0]", count: 33)))
    }

    /// A legacy comparison with an array value (from `'k' <= '' AND 'k' = but`, whose first part
    /// reads as the legacy `["<=", "k", ""]` and so makes the whole `all` legacy) prints the
    /// value as an aggregate, which reads back; it printed as JSON text (found by the format
    /// fuzz target).
    @Test func legacyArrayValuesPrintAsAggregates() throws {
        let json = try FormatString.json(Array("'k' <= '' AND 'k' = but".utf8), kind: .predicate)
        let f = try FormatString.format(json: json, kind: .predicate)
        #expect(!f.text.contains("["), "\(f.text)")
        let again = try FormatString.json(Array(f.text.utf8), arguments: f.arguments, kind: .predicate)
        let g = try FormatString.format(json: again, kind: .predicate)
        #expect(try FormatString.json(Array(g.text.utf8), arguments: g.arguments, kind: .predicate) == again)
    }

    @Test func styleSpecExpressionsRoundTrip() throws {
        let text = String(
            decoding: try FileIO.read(path: "\(repoRoot)/Tests/conformance/style-spec-expressions.jsonl"), as: UTF8.self
        )
        var checked = 0
        for line in text.split(separator: "\n") {
            guard case .object(let c) = try JSON.parse(String(line)), let expr = c["expression"] else { continue }
            // Legacy property functions ({"stops": …}) have no format-string form of their own:
            // their compiled expression does.
            if case .object = expr { continue }
            guard case .success(let original) = StyleExpression.compile(expr) else { continue }
            let printed = try FormatString.format(json: expr, kind: .expression)
            let back: JSONValue
            do {
                back = try FormatString.json(Array(printed.text.utf8), arguments: printed.arguments, kind: .expression)
            } catch {
                Issue.record("\(c["id"]?.stringValue ?? "?"): `\(printed.text)` does not read back: \(error)")
                continue
            }
            switch StyleExpression.compile(back) {
            case .success(let again):
                #expect(
                    JSON.serialize(again.serialize()) == JSON.serialize(original.serialize()),
                    "\(c["id"]?.stringValue ?? "?"): `\(printed.text)` → \(JSON.serialize(back))")
            case .failure(let f):
                let id = c["id"]?.stringValue ?? "?", messages = f.errors.map(\.message)
                Issue.record("\(id): `\(printed.text)` → \(JSON.serialize(back)) does not compile: \(messages)")
            }
            checked += 1
        }
        #expect(checked > 250)
    }

    @Test func predicatesToFormat() throws {
        func text(_ json: String) throws -> String {
            try FormatString.format(json: try JSON.parse(json), kind: .predicate).text
        }
        #expect(
            try text(#"["all", ["==", ["get", "a"], "b"], ["!", ["in", ["get", "x"], ["literal", [1, 2]]]]]"#)
                == "a == 'b' AND NOT x IN {1, 2}")
        #expect(
            try text(#"["any", ["all", true, false], ["<", ["zoom"], 3]]"#)
                == "(TRUEPREDICATE AND FALSEPREDICATE) OR $zoomLevel < 3")
        // Legacy filters as the iOS SDK documents them.
        #expect(try text(#"["==", "kind", "park"]"#) == "kind == 'park'")
        #expect(
            try text(#"["all", ["in", "$type", "Point", "Polygon"], ["!has", "name"], ["none", ["<", "$id", 3]]]"#)
                == "$geometryType IN {'Point', 'MultiPoint', 'Polygon', 'MultiPolygon'} "
                + "AND NOT mgl_does:have:(SELF, 'name') == TRUE AND NOT "
                + "$featureIdentifier < 3"
        )
        #expect(try text(#"["has", "name"]"#) == "mgl_does:have:(SELF, 'name') == TRUE")
        #expect(try text(#"["==", ["get", "ISO 3166-1:2006"], "US-OH"]"#) == "%K == 'US-OH'")
        let polygon = #"{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]]}"#
        let within = try FormatString.format(json: try JSON.parse(#"["within", \#(polygon)]"#), kind: .predicate)
        let shape = try JSON.parse(polygon)
        #expect(within.text == "SELF IN %@" && within.arguments == [shape])
        let collated = try text(
            #"["==", ["get", "a"], "b", ["collator", {"case-sensitive": false, "diacritic-sensitive": false}]]"#)
        #expect(collated == "a ==[cd] 'b'")
        #expect(try text(#"["==", ["get", "and"], "it's"]"#) == #"#and == 'it\'s'"#)
    }
}
