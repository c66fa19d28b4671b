// Conformance: runner for style-spec expression cases (the JSON Lines format of
// maplibre-style-spec's expression fixtures), shared by the CLI and the tests, and the JSON
// Lines loop every conformance runner uses. Test tooling: not part of libmapcore.so.

import Glibc
import MapCore

/// One case of a conformance run.
public struct ConformanceOutcome: Sendable {
    public var id: String
    public var passed: Bool
    /// Why it failed; empty when it passed.
    public var reason: String
}

/// Runs `runCase` on each record of a JSON Lines text; an unreadable line is a failed case.
public func runJSONLines(_ text: String, _ runCase: (JSONValue, Int) -> ConformanceOutcome) -> [ConformanceOutcome] {
    var outcomes: [ConformanceOutcome] = []
    for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: true).enumerated() {
        let trimmed = String(line).trimmingJSWhitespace()
        if trimmed.isEmpty { continue }
        do {
            outcomes.append(runCase(try JSON.parse(trimmed), n + 1))
        } catch {
            outcomes.append(ConformanceOutcome(id: "line \(n + 1)", passed: false, reason: "unreadable case: \(error)"))
        }
    }
    return outcomes
}

public enum ExpressionConformance {
    public typealias Outcome = ConformanceOutcome

    /// The case ids of a known-failures list: one id per line, text after `#` is a comment.
    public static func knownFailures(_ text: String) -> Set<String> {
        Set(
            text.split(separator: "\n").compactMap { line -> String? in
                let id = String(line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0])
                    .trimmingJSWhitespace()
                return id.isEmpty ? nil : id
            })
    }

    /// Runs every non-empty line of a `.jsonl` file.
    public static func run(jsonl text: String) -> [Outcome] {
        runJSONLines(text) { c, _ in runCase(c) }
    }

    /// Runs one case object.
    public static func runCase(_ c: JSONValue) -> Outcome {
        guard case .object(let o) = c else { return Outcome(id: "?", passed: false, reason: "case is not an object") }
        let id = o["id"]?.stringValue ?? "?"
        func fail(_ reason: String) -> Outcome { Outcome(id: id, passed: false, reason: reason) }
        guard let expression = o["expression"], case .object(let expected)? = o["expected"],
            case .object(let compiled)? = expected["compiled"]
        else { return fail("case lacks expression/expected") }

        var spec = PropertySpec.default
        if let specJSON = o["propertySpec"] {
            do { spec = try PropertySpec(json: specJSON) } catch { return fail("bad propertySpec: \(error)") }
            // Fill what the case leaves out with the defaults, as the suite's README says.
            if case .object(let so) = specJSON {
                if so["property-type"] == nil { spec.propertyType = "data-driven" }
                if so["expression"] == nil { spec.interpolated = true; spec.parameters = ["zoom", "feature"] }
            }
        }
        let result = StyleExpression.compile(expression, spec: spec)
        let expectSuccess = compiled["result"] == .string("success")
        let expr: StyleExpression
        switch result {
        case .failure(let failure):
            if expectSuccess {
                return fail(
                    "compile failed: " + failure.errors.map { "\($0.key): \($0.message)" }.joined(separator: "; "))
            }
            return Outcome(id: id, passed: true, reason: "")
        case .success(let e):
            if !expectSuccess { return fail("compiled, but the case expects a compile error") }
            expr = e
        }
        // The invariant every compiling expression keeps (issue 22): its serialized form compiles
        // again, serializes the same, and evaluates the same on every input below.
        let serialized = expr.serialize()
        let again: StyleExpression
        switch StyleExpression.compile(serialized, spec: spec) {
        case .failure(let failure):
            return fail(
                "serialized form \(JSON.serialize(serialized)) does not compile: "
                    + failure.errors.map { "\($0.key): \($0.message)" }.joined(separator: "; "))
        case .success(let e): again = e
        }
        if again.serialize() != serialized {
            return fail(
                "serialization not stable: \(JSON.serialize(serialized)) -> \(JSON.serialize(again.serialize()))")
        }
        if let t = compiled["type"]?.stringValue, t != expr.type.description {
            return fail("type \(expr.type) != expected \(t)")
        }
        if let v = compiled["isFeatureConstant"], v != .bool(expr.isFeatureConstant) {
            return fail("isFeatureConstant \(expr.isFeatureConstant) != expected")
        }
        if let v = compiled["isZoomConstant"], v != .bool(expr.isZoomConstant) {
            return fail("isZoomConstant \(expr.isZoomConstant) != expected")
        }
        guard case .array(let inputs)? = o["inputs"] else { return Outcome(id: id, passed: true, reason: "") }
        let outputs = expected["outputs"]?.arrayValue ?? []
        guard outputs.count == inputs.count || outputs.isEmpty else {
            return fail("inputs and outputs differ in count")
        }
        let globalState = o["globalState"]?.objectValue
        for (k, input) in inputs.enumerated() where k < outputs.count {
            guard case .array(let pair) = input, pair.count == 2 else {
                return fail("input \(k) is not a [context, feature] pair")
            }
            var ctx: EvaluationContext
            do { ctx = try context(pair[0], pair[1]) } catch { return fail("input \(k): \(error)") }
            ctx.globalState = globalState
            let want = outputs[k]
            let wantError: Bool = {
                if case .object(let w) = want, w["error"] != nil, w.count == 1 { return true } else { return false }
            }()
            let first = try? expr.evaluate(ctx), second = try? again.evaluate(ctx)
            if first.map({ $0.json(colors: .premultiplied) }) != second.map({ $0.json(colors: .premultiplied) }) {
                return fail("input \(k): the recompiled serialized form evaluates differently")
            }
            do {
                let got = try expr.evaluate(ctx)
                if wantError {
                    return fail(
                        "input \(k): expected an error, got \(JSON.serialize(got.json(colors: .premultiplied)))")
                }
                let gotJSON = got.json(colors: .premultiplied)
                if !matches(gotJSON, want) {
                    return fail("input \(k): got \(JSON.serialize(gotJSON)), expected \(JSON.serialize(want))")
                }
            } catch {
                if !wantError {
                    return fail("input \(k): evaluation error \"\(error.message)\", expected \(JSON.serialize(want))")
                }
            }
        }
        return Outcome(id: id, passed: true, reason: "")
    }

    /// Builds an evaluation context from a case's `[context, feature]` pair.
    public static func context(_ c: JSONValue, _ f: JSONValue) throws(MapCoreError) -> EvaluationContext {
        var ctx = EvaluationContext()
        if case .object(let co) = c {
            ctx.zoom = co["zoom"]?.doubleValue
            ctx.heatmapDensity = co["heatmapDensity"]?.doubleValue
            ctx.elevation = co["elevation"]?.doubleValue
            ctx.lineProgress = co["lineProgress"]?.doubleValue
            if case .array(let images)? = co["availableImages"] {
                ctx.availableImages = images.compactMap(\.stringValue)
            }
            if case .object(let t)? = co["canonicalID"], let z = t["z"]?.doubleValue, let x = t["x"]?.doubleValue,
                let y = t["y"]?.doubleValue,
                abs(z) < 64, abs(x) < 1e15, abs(y) < 1e15
            {
                ctx.canonical = CanonicalTileID(z: Int(z), x: Int(x), y: Int(y))
            }
        }
        if case .object(let fo) = f {
            ctx.properties = fo["properties"]?.objectValue ?? JSONObject()
            if let id = fo["id"] {
                switch id {
                case .string(let s): ctx.featureID = .string(s)
                case .int(let v): ctx.featureID = .int(v)
                case .uint(let v): ctx.featureID = .uint(v)
                case .double(let v): ctx.featureID = .double(v)
                default: break
                }
            }
            ctx.featureState = fo["featureState"]?.objectValue
            if let g = fo["geometry"] {
                // Read as MapLibre reads the features it evaluates (within/non-supported has a
                // ring of 3 positions).
                if case .geometry(let geometry) = try GeoJSONParser.parse(JSON.serialize(g), limits: .lenientGeoJSON) {
                    ctx.geometry = geometry
                }
            }
        }
        return ctx
    }

    /// Numbers within a relative 1e-5 (the suite truncates to 6 significant digits); objects by
    /// key in any order; arrays in order.
    public static func matches(_ got: JSONValue, _ want: JSONValue) -> Bool {
        switch (got, want) {
        case let (.array(a), .array(b)):
            return a.count == b.count && zip(a, b).allSatisfy { matches($0, $1) }
        case let (.object(a), .object(b)):
            return a.count == b.count && a.members.allSatisfy { m in b[m.key].map { matches(m.value, $0) } ?? false }
        default:
            if let x = got.doubleValue, let y = want.doubleValue {
                if x == y { return true }
                return abs(x - y) <= 1e-5 * max(abs(x), abs(y)) + 1e-6
            }
            return got == want
        }
    }
}
