// Expression stage: the conformance suite, the SDK documents' examples, reliability, threads.
import Testing
@testable import MapCore
import MapCoreConformance

private func compile(_ text: String, spec: PropertySpec = .default, filter: Bool = false) throws -> StyleExpression {
    let json = try JSON.parse(text)
    switch StyleExpression.compile(json, spec: filter ? .filter : spec, legacyFilters: filter) {
    case .success(let e): return e
    case .failure(let f):
        throw MapCoreError(.expression, f.errors.map { "\($0.key): \($0.message)" }.joined(separator: "; "))
    }
}

private func compileErrors(_ text: String, spec: PropertySpec = .default) throws -> [ExpressionCompileError] {
    if case .failure(let f) = StyleExpression.compile(try JSON.parse(text), spec: spec) { return f.errors }
    return []
}

private func feature(_ text: String) throws -> Feature {
    guard case .feature(let f) = try GeoJSONParser.parse(text) else {
        throw MapCoreError(.invalidArgument, "not a feature")
    }
    return f
}

/// The sample feature of the Azure Maps iOS data-driven styling document.
private let sampleFeature =
    #"{"type":"Feature","geometry":{"type":"Point","coordinates":[-122.13284,47.63699]},"properties":{"id":123,"#
    + #""entityType":"restaurant","revenue":12345,"subTitle":"Building 40","temperature":64,"title":"Cafeteria","#
    + #""zoneColor":"purple","abcArray":["a","b","c"],"array2d":[["a","b"],["x","y"]],"#
    + #""_style":{"fillColor":"red"}}}"#

private func evaluate(
    _ text: String, on featureText: String? = sampleFeature, zoom: Double? = nil,
    spec: PropertySpec = .default
) throws -> ExpressionValue {
    let e = try compile(text, spec: spec)
    var ctx = EvaluationContext(zoom: zoom)
    if let featureText { ctx.setFeature(try feature(featureText)) }
    return try e.evaluate(ctx)
}

@Suite struct ExpressionTests {
    /// The style-spec suite, with the checked-in list of known failures: every other case must
    /// pass and every listed case must still fail (so the list cannot go stale).
    @Test func styleSpecConformance() throws {
        let root = #filePath.split(separator: "/").dropLast(3).joined(separator: "/")
        let suite = String(
            decoding: try FileIO.read(path: "/\(root)/Tests/conformance/style-spec-expressions.jsonl"), as: UTF8.self)
        let knownText = String(
            decoding: try FileIO.read(path: "/\(root)/Tests/conformance/expressions-known-failures.txt"), as: UTF8.self)
        let known = ExpressionConformance.knownFailures(knownText)
        #expect(known.isEmpty)
        let outcomes = ExpressionConformance.run(jsonl: suite)
        #expect(outcomes.count == 435)
        for o in outcomes {
            if known.contains(o.id) {
                #expect(!o.passed, "\(o.id) passes now: remove it from expressions-known-failures.txt")
            } else {
                #expect(o.passed, "\(o.id): \(o.reason)")
            }
        }
    }

    @Test func sdkSampleFeatureLookups() throws {
        #expect(try evaluate(#"["get", "title"]"#).stringValue == "Cafeteria")
        #expect(try evaluate(#"["at", 1, ["get", "abcArray"]]"#).stringValue == "b")
        // Nested arrays are typed `array<value>`, so the inner lookup goes through an `array` assertion.
        #expect(try evaluate(#"["at", 0, ["array", ["at", 1, ["get", "array2d"]]]]"#).stringValue == "x")
        #expect(try evaluate(#"["get", "fillColor", ["get", "_style"]]"#).stringValue == "red")
        #expect(try evaluate(#"["in", "b", ["get", "abcArray"]]"#).isTruthy)
        #expect(try !evaluate(#"["in", "z", ["get", "abcArray"]]"#).isTruthy)
        #expect(try evaluate(#"["has", "zoneColor"]"#).isTruthy)
        #expect(try evaluate(#"["concat", ["to-string", ["get", "temperature"]], "°F"]"#).stringValue == "64°F")
        // match with an array of string labels
        let m = #"["match", ["get", "entityType"], ["restaurant", "grocery_store"], "red", "bakery", "yellow", "blue"]"#
        #expect(try evaluate(m).stringValue == "red")
        // coalesce falls through missing properties
        #expect(
            try evaluate(#"["coalesce", ["get", "missing"], ["get", "subTitle"], "none"]"#).stringValue == "Building 40"
        )
        // The SDK doc's conditional: zoneColor if present, else by temperature.
        let colorSpec = PropertySpec(
            type: .color, propertyType: "data-driven", interpolated: false, parameters: ["zoom", "feature"],
            name: nil, defaultValue: nil, enumValues: nil, tokens: false)
        let conditional =
            #"["case", ["has", "zoneColor"], ["to-color", ["get", "zoneColor"]], [">=", ["get", "temperature"], 100], "#
            + #""red", "green"]"#
        guard case .color(let purple) = try evaluate(conditional, spec: colorSpec) else {
            Issue.record("not a color"); return
        }
        #expect(purple.cssString == "rgba(128,0,128,1)")
    }

    @Test func heatmapRadiusExponentialOverZoom() throws {
        // The iOS doc: radius 2 at zoom 1 to 10000 at zoom 19 with base 2.
        let e = #"["interpolate", ["exponential", 2], ["zoom"], 1, 2, 19, 10000]"#
        #expect(try evaluate(e, on: nil, zoom: 1).numberValue == 2)
        #expect(try evaluate(e, on: nil, zoom: 19).numberValue == 10000)
        let mid = try #require(try evaluate(e, on: nil, zoom: 10).numberValue)
        // f(10) = 2 + (10000 - 2) * (2^9 - 1) / (2^18 - 1)
        #expect(approximatelyEqual(mid, 2 + 9998 * 511 / 262143, tolerance: 1e-12))
    }

    @Test func stepOnPointCount() throws {
        let e = ##"["step", ["get", "point_count"], "#51bbd6", 100, "#f1f075", 750, "#f28cb1"]"##
        func at(_ n: Int) throws -> String? {
            try evaluate(e, on: #"{"type":"Feature","geometry":null,"properties":{"point_count":\#(n)}}"#).stringValue
        }
        #expect(try at(99) == "#51bbd6")
        #expect(try at(100) == "#f1f075")
        #expect(try at(749) == "#f1f075")
        #expect(try at(750) == "#f28cb1")
    }

    @Test func legacyFiltersAsTheSDKDocumentsThem() throws {
        let park = try feature(
            #"{"type":"Feature","id":7,"geometry":{"type":"MultiPolygon","coordinates":[]},"#
                + #""properties":{"kind":"park","area":12}}"#
        )
        func matches(_ filter: String) throws -> Bool {
            var ctx = EvaluationContext()
            ctx.setFeature(park)
            return try compile(filter, filter: true).evaluate(ctx).isTruthy
        }
        #expect(try matches(#"["==", "kind", "park"]"#))
        #expect(try !matches(#"["!=", "kind", "park"]"#))
        #expect(try matches(#"[">", "area", 10]"#))
        #expect(try !matches(#"[">", "area", "10"]"#))  // no casting across types
        #expect(try matches(#"["in", "kind", "lake", "park"]"#))
        #expect(try matches(#"["!in", "kind", "lake"]"#))
        #expect(try matches(#"["has", "area"]"#))
        #expect(try matches(#"["!has", "name"]"#))
        #expect(try matches(#"["==", "$type", "Polygon"]"#))
        #expect(try matches(#"["in", "$type", "Point", "Polygon"]"#))
        #expect(try matches(#"["==", "$id", 7]"#))
        #expect(try matches(#"["all", ["==", "kind", "park"], ["none", ["<", "area", 5]]]"#))
        #expect(try !matches(#"["any", ["==", "kind", "lake"], ["has", "name"]]"#))
        #expect(try matches(#"["all"]"#))
        #expect(try !matches(#"["any"]"#))
    }

    @Test func compileErrorsUseTheSpecWordingAndKeyPaths() throws {
        let errors = try compileErrors(#"["+", 1, ["*", 2, "x"]]"#)
        #expect(errors.first?.key == "[2][2]")
        #expect(errors.first?.message == "Expected number but found string instead.")
        #expect(try compileErrors(#"["nope", 1]"#).first?.message.hasPrefix("Unknown expression \"nope\"") == true)
        #expect(try compileErrors(#"["+", ["zoom"], 1]"#).first?.message.contains("top-level") == true)
        #expect(try !compileErrors(#"["get"]"#).isEmpty)  // wrong arity
        #expect(try !compileErrors(#"["literal"]"#).isEmpty)
        #expect(try !compileErrors(#"{}"#).isEmpty)
        #expect(
            try compileErrors(#"["to-color", "not-a-color"]"#).first?.message
                == "Could not parse color from value 'not-a-color'")
    }

    @Test func constantFoldingAndFlags() throws {
        let e = try compile(#"["+", 1, ["*", 2, 3]]"#)
        #expect(JSON.serialize(e.serialize()) == "7")
        #expect(e.isFeatureConstant && e.isZoomConstant)
        let z = try compile(#"["interpolate", ["linear"], ["zoom"], 0, ["number", ["get", "a"]], 10, 1]"#)
        #expect(!z.isFeatureConstant && !z.isZoomConstant)
        #expect(z.kind == "composite")
        // The serialized form compiles back to an equal evaluation.
        let again = try compile(JSON.serialize(z.serialize()))
        var ctx = EvaluationContext(zoom: 5)
        ctx.properties = JSONObject([("a", .int(3))])
        #expect(try again.evaluate(ctx).numberValue == z.evaluate(ctx).numberValue)
    }

    /// Issue 22: an array assertion with a null length and several inputs serialized without the
    /// null, which shifted its inputs into the length's place. Each form compiles again to the
    /// same serialization and the same values.
    @Test func arrayAssertionsSerializeToWhatCompiles() throws {
        let cases = [
            #"["array","number",null,["get","x"],["literal",[1]]]"#,
            #"["array","string",null,["get","x"],["get","y"],["literal",["a"]]]"#,
            #"["array","number",2,["get","x"],["literal",[1,2]]]"#,
            #"["array","boolean",["get","x"]]"#,
            #"["array",["get","x"]]"#,
        ]
        var ctx = EvaluationContext(zoom: 1)
        ctx.properties = JSONObject([("x", .string("no")), ("y", .array([.string("b")]))])
        for text in cases {
            let e = try compile(text)
            let again = try compile(JSON.serialize(e.serialize()))
            #expect(again.serialize() == e.serialize(), "\(text)")
            #expect(
                (try? again.evaluate(ctx).json(colors: .premultiplied))
                    == (try? e.evaluate(ctx).json(colors: .premultiplied)),
                "\(text)")
        }
        #expect(JSON.serialize(try compile(cases[0]).serialize()) == cases[0])
    }

    /// Issue 22 (fuzz): a negative-zero literal serialized as the integer 0, so the recompiled
    /// form formatted `["*", -0, x]` as "0" where the original gave "-0", as GL JS does.
    @Test func negativeZeroSurvivesSerialization() throws {
        let text = #"["number-format",["*",-0e21,["get","x"]],{}]"#
        let e = try compile(text)
        let again = try compile(JSON.serialize(e.serialize()))
        var ctx = EvaluationContext(zoom: 1)
        ctx.properties = JSONObject([("x", .int(1))])
        #expect(try e.evaluate(ctx).json() == .string("-0"))
        #expect(try again.evaluate(ctx).json() == .string("-0"))
        #expect(try evaluate(#"["/", 1, ["*", -1, 0]]"#).json() == .null)  // -Infinity has no JSON form
        guard case .double(let z) = try evaluate(#"["*", -1, 0]"#).json(), z == 0, z.sign == .minus else {
            Issue.record("-0 did not stay a negative zero")
            return
        }
    }

    @Test func withinAndDistanceWithoutATile() throws {
        let square = #"{"type":"Polygon","coordinates":[[[0,0],[10,0],[10,10],[0,10],[0,0]]]}"#
        func within(_ geometry: String) throws -> Bool {
            try evaluate(#"["within", \#(square)]"#, on: #"{"type":"Feature","properties":{},"geometry":\#(geometry)}"#)
                .isTruthy
        }
        #expect(try within(#"{"type":"Point","coordinates":[5,5]}"#))
        #expect(try !within(#"{"type":"Point","coordinates":[10,5]}"#))  // on the boundary
        #expect(try !within(#"{"type":"Point","coordinates":[11,5]}"#))
        #expect(try within(#"{"type":"Polygon","coordinates":[[[1,1],[2,1],[2,2],[1,1]]]}"#))
        #expect(try !within(#"{"type":"LineString","coordinates":[[5,5],[15,5]]}"#))
        #expect(try within(#"{"type":"MultiPoint","coordinates":[[1,1],[9,9]]}"#))
        #expect(try !within(#"{"type":"MultiPoint","coordinates":[[1,1],[19,9]]}"#))
        let d = try #require(
            try evaluate(
                #"["distance", {"type":"Point","coordinates":[0,1]}]"#,
                on: #"{"type":"Feature","properties":{},"geometry":{"type":"Point","coordinates":[0,0]}}"#
            ).numberValue)
        // One degree of latitude at the equator on the WGS84 ellipsoid (cheap ruler): ~110574 m.
        #expect(abs(d - 110574.3) < 1)
        #expect(
            try evaluate(#"["distance", {"type":"Point","coordinates":[0,1]}]"#, on: nil).numberValue?.isNaN == true)
    }

    @Test func hostileInputGivesErrorsNotCrashes() throws {
        // 100,000-deep nesting: the JSON reader refuses it with a limit error.
        let deep = String(repeating: "[\"-\",", count: 100_000) + "1" + String(repeating: "]", count: 100_000)
        #expect(throws: MapCoreError.self) { _ = try compile(deep) }
        // Deep but within the JSON limit: the expression depth limit answers.
        let nested = String(repeating: "[\"-\",", count: 250) + "[\"get\",\"x\"]" + String(repeating: "]", count: 250)
        #expect(
            StyleExpression.compile(try JSON.parse(nested, limits: ParseLimits(maxDepth: 512)), maxDepth: 64).isFailure)
        // A huge literal array.
        let big = "[\"length\", [\"literal\", [" + (0..<200_000).map(String.init).joined(separator: ",") + "]]]"
        #expect(try evaluate(big, on: nil).numberValue == 200_000)
        // NaN and infinities stay numbers and serialize as null.
        #expect(try evaluate(#"["/", 0, 0]"#, on: nil).numberValue?.isNaN == true)
        #expect(try evaluate(#"["ln", 0]"#, on: nil).json() == .null)
        #expect(try evaluate(#"["/", ["get", "temperature"], 0]"#).numberValue == .infinity)
        // Invalid colors at run time.
        #expect(throws: EvaluationError.self) { _ = try evaluate(#"["to-color", ["get", "title"]]"#) }
        #expect(throws: EvaluationError.self) {
            _ = try evaluate(#"["rgba", ["*", ["get", "temperature"], 10], 0, 0, 1]"#)
        }
        // Constant arguments fail at compile time instead (constant folding evaluates them).
        #expect(
            try compileErrors(#"["rgba", 300, 0, 0, 1]"#).first?.message.hasPrefix("Invalid rgba value [300, 0, 0, 1]")
                == true)
        // Literal holding anything.
        #expect(try evaluate(#"["typeof", ["literal", {"a": [1, {"b": null}]}]]"#, on: nil).stringValue == "object")
        // Lone surrogates are not Unicode: the JSON reader refuses them before compiling.
        #expect(throws: MapCoreError.self) { _ = try compile(#"["upcase", ["concat", "\ud800", "é"]]"#) }
        #expect(try evaluate(#"["upcase", ["concat", "straße", "é"]]"#, on: nil).stringValue == "STRASSEÉ")
        #expect(try evaluate(#"["slice", "\ud83d\ude00x", 1]"#, on: nil).stringValue == "x")
        // Index arithmetic at the edges of Double.
        #expect(throws: EvaluationError.self) {
            _ = try evaluate(#"["at", ["*", ["get", "revenue"], 1e300], ["literal", [1]]]"#)
        }
        #expect(
            try evaluate(#"["slice", ["literal", [1, 2, 3]], -1e300, 1e300]"#, on: nil).json()
                == .array([.int(1), .int(2), .int(3)]))
        #expect(try evaluate(#"["index-of", 1, ["literal", [1]], -1e300]"#, on: nil).numberValue == 0)
        // Fraction digits from data: out of 0...20 is Intl's RangeError, an evaluation error, never a trap.
        let format =
            #"["number-format", 1.5, {"min-fraction-digits": ["get", "d"], "max-fraction-digits": ["get", "d"]}]"#
        #expect(
            try evaluate(format, on: #"{"type":"Feature","geometry":null,"properties":{"d":0}}"#).stringValue == "2")
        for d in ["1e300", "-5"] {
            #expect(throws: EvaluationError.self) {
                _ = try evaluate(format, on: #"{"type":"Feature","geometry":null,"properties":{"d":\#(d)}}"#)
            }
        }
        #expect(
            try evaluate(#"["number-format", 1.5, {"max-fraction-digits": ["/", 0, ["get", "temperature"]]}]"#)
                .stringValue == "2")
    }

    @Test func oneCompiledExpressionManyThreads() async throws {
        let e = try compile(
            #"["case", ["within", {"type":"Polygon","coordinates":[[[0,0],[10,0],[10,10],[0,10],[0,0]]]}], ["*", "#
                + #"["get", "v"], 2], -1]"#
        )
        let results = await withTaskGroup(of: Bool.self) { group in
            for t in 0..<8 {
                group.addTask {
                    for i in 0..<2000 {
                        var ctx = EvaluationContext()
                        let inside = (i + t) % 2 == 0
                        ctx.geometry = .point(inside ? 5 : 15, 5)
                        ctx.properties = JSONObject([("v", .int(Int64(i)))])
                        guard let v = try? e.evaluate(ctx).numberValue, v == (inside ? Double(2 * i) : -1) else {
                            return false
                        }
                    }
                    return true
                }
            }
            var all = true
            for await ok in group { all = all && ok }
            return all
        }
        #expect(results)
    }
}

extension Result {
    var isFailure: Bool { if case .failure = self { return true } else { return false } }
}
