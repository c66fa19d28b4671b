// Batch evaluation: kernels over property columns give exactly what the node tree gives, row by
// row, on data made to trip them (mixed types, missing and null values, NaN, non-point
// geometry); and the point locator answers as GEOS does.
import Glibc
import Testing
@testable import MapCore

private func compiled(_ text: String, spec: PropertySpec = .default) throws -> StyleExpression {
    switch StyleExpression.compile(try JSON.parse(text), spec: spec) {
    case .success(let e): return e
    case .failure(let f): throw MapCoreError(.expression, f.errors.map(\.message).joined(separator: "; "))
    }
}

/// Features whose properties take every kind of value `get` can return.
private func awkwardFeatures(count: Int) -> [Feature] {
    var rng = SeededGenerator(seed: 7)
    let numbers: [JSONValue] = [
        .int(3), .int(-7), .double(2.5), .double(0), .double(4.5), .double(10), .double(12),
        .uint(UInt64.max), .int(Int64.max), .double(.nan), .double(99_999), .double(100_000),
        .double(1e6), .double(-.infinity),
    ]
    let strings: [JSONValue] = [
        .string("earthquake"), .string("explosion"), .string("quarry blast"), .string(""),
        .string("é∂"), .string("5"),
    ]
    let others: [JSONValue] = [
        .null, .bool(true), .bool(false), .array([.int(1)]), .object(JSONObject([("k", .int(1))])),
    ]
    func anyValue() -> JSONValue? {
        switch Int.random(in: 0..<10, using: &rng) {
        case 0: return nil
        case 1...5: return numbers.randomElement(using: &rng)
        case 6, 7: return strings.randomElement(using: &rng)
        default: return others.randomElement(using: &rng)
        }
    }
    var out: [Feature] = []
    for i in 0..<count {
        var members: [(key: String, value: JSONValue)] = []
        if let v = anyValue() { members.append(("mag", v)) }
        if let v = anyValue() { members.append(("kind", v)) }
        if Int.random(in: 0..<4, using: &rng) > 0 {
            members.append(("population", .double(Double(Int.random(in: 0..<3_000_000, using: &rng)))))
        }
        if let v = anyValue() { members.append(("flag", v)) }
        let x = Double(Int.random(in: -240...240, using: &rng)) / 16,
            y = Double(Int.random(in: -240...240, using: &rng)) / 16
        let geometry: Geometry?
        switch i % 9 {
        case 0: geometry = nil
        case 1: geometry = Geometry(type: .multiPoint, xy: [x, y, y, x])
        case 2: geometry = Geometry(type: .lineString, xy: [x, y, x + 1, y + 1])
        default: geometry = .point(x, y)
        }
        out.append(Feature(geometry: geometry, properties: i % 50 == 0 ? nil : JSONObject(members)))
    }
    return out
}

private enum Kind { case numbers, booleans, colors }

/// Batch results and error flags, as raw bit patterns so that NaN compares equal to NaN.
private func batch(
    _ e: StyleExpression, _ table: FeatureTable, _ ctx: EvaluationContext, _ kind: Kind
) -> (values: [UInt64], errors: [UInt8]) {
    let n = table.count
    var errors = [UInt8](repeating: 9, count: n)
    switch kind {
    case .numbers:
        var out = [Double](repeating: 42, count: n)
        out.withUnsafeMutableBufferPointer { o in
            errors.withUnsafeMutableBufferPointer {
                e.evaluate(over: table, context: ctx, into: .numbers(o.baseAddress!), errors: $0.baseAddress)
            }
        }
        return (out.map(\.bitPattern), errors)
    case .booleans:
        var out = [UInt8](repeating: 42, count: n)
        out.withUnsafeMutableBufferPointer { o in
            errors.withUnsafeMutableBufferPointer {
                e.evaluate(over: table, context: ctx, into: .booleans(o.baseAddress!), errors: $0.baseAddress)
            }
        }
        return (out.map { UInt64($0) }, errors)
    case .colors:
        var out = [Float](repeating: 42, count: 4 * n)
        out.withUnsafeMutableBufferPointer { o in
            errors.withUnsafeMutableBufferPointer {
                e.evaluate(over: table, context: ctx, into: .colors(o.baseAddress!), errors: $0.baseAddress)
            }
        }
        return (out.map { UInt64($0.bitPattern) }, errors)
    }
}

/// The same, one feature at a time through the node tree.
private func reference(
    _ e: StyleExpression, _ features: [Feature], _ base: EvaluationContext, _ kind: Kind
) -> (values: [UInt64], errors: [UInt8]) {
    var values: [UInt64] = [], errors: [UInt8] = []
    var ctx = base
    for f in features {
        ctx.setFeature(f)
        let result = try? e.evaluate(ctx)
        switch (kind, result) {
        case (.numbers, .number(let d)?): values.append(d.bitPattern); errors.append(0)
        case (.numbers, _): values.append(Double.nan.bitPattern); errors.append(1)
        case (.booleans, .boolean(let b)?): values.append(b ? 1 : 0); errors.append(0)
        case (.booleans, _): values.append(0); errors.append(1)
        case (.colors, .color(let c)?):
            values += [Float(c.r), Float(c.g), Float(c.b), Float(c.a)].map { UInt64($0.bitPattern) }
            errors.append(0)
        case (.colors, _): values += Array(repeating: UInt64(Float.nan.bitPattern), count: 4); errors.append(1)
        }
    }
    return (values, errors)
}

private let colorSpec = PropertySpec(
    type: .color, propertyType: "data-driven", interpolated: true, parameters: ["zoom", "feature"],
    name: nil, defaultValue: nil, enumValues: nil, tokens: false)

private let star: String = {
    var ring: [String] = []
    for k in 0..<1000 {
        let a = 2 * Double.pi * Double(k) / 1000, r = 10 * (1 + 0.2 * sin(7 * a))
        ring.append("[\(r * cos(a)),\(r * sin(a))]")
    }
    ring.append(ring[0])
    return #"{"type":"Polygon","coordinates":[[\#(ring.joined(separator: ","))]]}"#
}()

private let sawtooth: String = {
    var ring = (0..<8000).map { k in "[\(k),\(k % 2 == 0 ? 1 : 100)]" }
    ring += ["[7999,0]", "[0,0]", "[0,1]"]
    return #"{"type":"Polygon","coordinates":[[\#(ring.joined(separator: ","))]]}"#
}()

/// A square with a square hole, both with vertices on the sixteenth grid the test points use.
private let squareWithHole =
    #"{"type":"Polygon","coordinates":[[[-8,-8],[8,-8],[8,8],[-8,8],[-8,-8]],[[-2,-2],[-2,2],[2,2],[2,-2],[-2,-2]]]}"#

@Suite struct BatchEvaluationTests {
    /// Every kernel shape, plus shapes left to the tree; each must match the tree row for row.
    @Test func kernelsMatchTheNodeTree() throws {
        let features = awkwardFeatures(count: 3000)
        let table = FeatureTable(features)
        let cases: [(String, Kind, PropertySpec, Bool)] = [
            (#"["step", ["get", "population"], 1, 100000, 2, 1000000, 3]"#, .numbers, .default, true),
            (#"["step", ["get", "mag"], 1, 0, 2, 4.5, 3, 10, 4]"#, .numbers, .default, true),
            (#"["interpolate", ["linear"], ["number", ["get", "mag"]], 3, 7]"#, .numbers, .default, true),
            (#"["interpolate", ["linear"], ["get", "mag"], 0, 0, 5, 10, 10, 0]"#, .numbers, .default, true),
            (#"["interpolate", ["exponential", 1.5], ["get", "mag"], 0, 0, 5, 10, 10, 0]"#, .numbers, .default, true),
            (
                #"["interpolate", ["cubic-bezier", 0.1, 0.2, 0.8, 0.9], ["get", "mag"], 0, 0, 10, 100]"#, .numbers,
                .default, true
            ),
            (
                ##"["interpolate", ["linear"], ["get", "mag"], 0, "#ffff00", 5, "#ff0000", 10, "rgba(255,255,255,"##
                    + ##"0.5)"]"##,
                .colors, colorSpec, true
            ),
            (#"["interpolate-hcl", ["linear"], ["get", "mag"], 0, "red", 10, "blue"]"#, .colors, colorSpec, true),
            (
                #"["interpolate-lab", ["linear"], ["get", "mag"], 0, "transparent", 10, "blue"]"#, .colors, colorSpec,
                true
            ),
            (#"["step", ["get", "mag"], "red", 5, "green"]"#, .colors, colorSpec, true),
            (
                #"["match", ["get", "kind"], ["earthquake", "explosion"], "red", "5", "blue", "black"]"#, .colors,
                colorSpec, true
            ),
            (#"["match", ["get", "kind"], ["earthquake", "explosion"], 1, 0]"#, .numbers, .default, true),
            (#"["match", ["get", "mag"], [3, -7], 1, 10, 2, 0]"#, .numbers, .default, true),
            (#"["match", ["get", "kind"], "quarry blast", true, false]"#, .booleans, .default, true),
            (
                #"["all", ["==", ["get", "kind"], "earthquake"], [">=", ["get", "mag"], 4.5]]"#, .booleans, .default,
                true
            ),
            (
                #"["any", ["!=", ["get", "flag"], true], ["<", ["get", "mag"], 3], ["!", ["has", "kind"]]]"#, .booleans,
                .default, true
            ),
            (#"["==", ["get", "flag"], null]"#, .booleans, .default, true),
            (#"["==", 5, ["get", "kind"]]"#, .booleans, .default, true),
            (#"["!=", ["get", "mag"], 3]"#, .booleans, .default, true),
            (#"["==", ["get", "kind"], "never seen"]"#, .booleans, .default, true),
            (
                #"["<=", ["+", ["get", "mag"], ["*", 2, ["get", "population"]], -1], ["/", ["get", "population"], "#
                    + #"["-", ["get", "mag"]]]]"#,
                .booleans, .default, true
            ),
            (#"["interpolate", ["linear"], ["zoom"], 0, 0, 10, 100]"#, .numbers, .default, true),
            (#"["step", ["zoom"], ["get", "mag"], 5, ["*", ["get", "mag"], 2]]"#, .numbers, .default, false),
            (#"["within", \#(star)]"#, .booleans, .default, true),
            (#"["within", \#(squareWithHole)]"#, .booleans, .default, true),
            // Left to the tree: the batch must still give its answers.
            (#"["to-number", ["get", "kind"], -1]"#, .numbers, .default, false),
            (#"["<", ["get", "kind"], "m"]"#, .booleans, .default, false),
            (#"["coalesce", ["get", "mag"], 0]"#, .numbers, .default, false),
        ]
        var ctx = EvaluationContext(zoom: 3)
        ctx.setFeature(nil)
        for (text, kind, spec, expectKernel) in cases {
            let e = try compiled(text, spec: spec)
            let probe: BatchOutput
            let scratch = UnsafeMutablePointer<Float>.allocate(capacity: 4)
            defer { scratch.deallocate() }
            switch kind {
            case .numbers: probe = .numbers(UnsafeMutableRawPointer(scratch).assumingMemoryBound(to: Double.self))
            case .booleans: probe = .booleans(UnsafeMutableRawPointer(scratch).assumingMemoryBound(to: UInt8.self))
            case .colors: probe = .colors(scratch)
            }
            #expect(e.hasBatchKernel(for: probe, table: table, context: ctx) == expectKernel, "\(text)")
            let got = batch(e, table, ctx, kind), want = reference(e, features, ctx, kind)
            let mismatches =
                zip(got.values, want.values).filter { $0 != $1 }.count
                + zip(got.errors, want.errors).filter { $0 != $1 }.count
            #expect(mismatches == 0, "\(text): \(mismatches) mismatches")
            // Both outcomes occur, so the comparison covers decided and tree-evaluated rows.
            #expect(want.errors.contains(0), "\(text)")
        }
    }

    @Test func emptyTableAndRepeatedBatchesReuseColumns() throws {
        let e = try compiled(#"["step", ["get", "mag"], 1, 5, 2]"#)
        let empty = FeatureTable([])
        var none: Double = 0
        withUnsafeMutablePointer(to: &none) {
            e.evaluate(over: empty, context: EvaluationContext(), into: .numbers($0), errors: nil)
        }
        #expect(none == 0)
        let table = FeatureTable(awkwardFeatures(count: 600))
        let first = batch(e, table, EvaluationContext(), .numbers),
            second = batch(e, table, EvaluationContext(), .numbers)
        #expect(first.values == second.values && first.errors == second.errors)
    }

    /// The locator against GEOS's prepared containsProperly, on random points and on every
    /// vertex, edge midpoint and horizontal-edge point (where boundary handling decides).
    @Test func pointLocatorAgreesWithGEOS() throws {
        let shapes = [
            star, squareWithHole,
            // Two overlapping squares: GEOS counts crossings over both (even-odd).
            #"{"type":"MultiPolygon","coordinates":[[[[0,0],[4,0],[4,4],[0,4],[0,0]]],[[[2,2],[6,2],[6,6],[2,6],[2,"#
                + #"2]]]]}"#,
            // A saw of 4,000 teeth: every edge spans the full height, so banding must thin out.
            sawtooth,
            // Collinear vertices, horizontal edges, a spike.
            #"{"type":"Polygon","coordinates":[[[0,0],[1,0],[2,0],[2,1],[3,1],[3,3],[1.5,3],[1.5,5],[1.5,3],[0,3],[0,"#
                + #"0]]]}"#,
        ]
        var rng = SeededGenerator(seed: 11)
        for text in shapes {
            guard case .geometry(let shape) = try GeoJSONParser.parse(text) else { Issue.record("shape"); continue }
            let node = WithinNode(geojson: try JSON.parse(text), shape: WithinNode.multiPolygon([shape]))
            let locator = try #require(node.locator)
            var points: [(Double, Double)] = []
            var minX = Double.infinity, maxX = -Double.infinity, minY = Double.infinity, maxY = -Double.infinity
            shape.forEachPosition { x, y in
                points.append((x, y))
                minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y)
            }
            for i in 0..<(points.count - 1) {
                points.append(((points[i].0 + points[i + 1].0) / 2, (points[i].1 + points[i + 1].1) / 2))
                points.append((points[i].0 + 0.25, points[i].1))
            }
            for _ in 0..<4000 {
                points.append(
                    (
                        Double.random(in: (minX - 1)...(maxX + 1), using: &rng),
                        Double.random(in: (minY - 1)...(maxY + 1), using: &rng)
                    ))
            }
            var interior = 0, disagreements = 0
            for (x, y) in points {
                let ours = locator.locate(x, y) == .interior
                if ours { interior += 1 }
                if try ours != node.geosContainsProperly(x, y) { disagreements += 1 }
            }
            #expect(disagreements == 0, "\(text.prefix(60)): \(disagreements) of \(points.count)")
            #expect(interior > 0 && interior < points.count)
        }
        // Degenerate and hostile shapes are refused or answered without trapping.
        #expect(PointInPolygonIndex(Geometry(type: .polygon)) == nil)
        #expect(PointInPolygonIndex(Geometry(type: .polygon, xy: [0, 0, .nan, 1, 1, 1, 0, 0], partEnds: [4])) == nil)
        let thin = try #require(
            PointInPolygonIndex(Geometry(type: .polygon, xy: [0, 0, 1e-300, 0, 1e-300, 1e90, 0, 0], partEnds: [4])))
        #expect(thin.locate(5e-301, 1) == .interior)
        #expect(thin.locate(.nan, 1) == .exterior)
        #expect(thin.locate(.infinity, .infinity) == .exterior)
        // Beyond 1e100 the exact orientation could overflow: such shapes stay with GEOS.
        #expect(
            PointInPolygonIndex(
                Geometry(
                    type: .polygon, xy: [-1.7e308, -1.7e308, 1.7e308, -1.7e308, 0, 1.7e308, -1.7e308, -1.7e308],
                    partEnds: [4])) == nil)
        let large = try #require(
            PointInPolygonIndex(
                Geometry(type: .polygon, xy: [-1e99, -1e99, 1e99, -1e99, 0, 1e99, -1e99, -1e99], partEnds: [4])))
        #expect(large.locate(0, 0) == .interior)
        #expect(large.locate(1e99, 1e99) == .exterior)
    }
}
