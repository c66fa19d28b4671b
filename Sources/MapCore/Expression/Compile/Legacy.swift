// Expression: legacy filters (`["==", key, value]`, `$type`, `$id`) and legacy property
// functions (`{"stops": …}` objects), converted to expressions before compiling.

enum LegacyFilters {
    /// Whether a filter is written in the expression language (as opposed to the legacy form).
    static func isExpressionFilter(_ f: JSONValue) -> Bool {
        if case .bool = f { return true }
        guard case .array(let a) = f, let first = a.first else { return false }
        guard case .string(let op) = first else { return true }
        switch op {
        case "has": return a.count >= 2 && a[1] != .string("$id") && a[1] != .string("$type")
        case "in":
            if a.count < 3 { return false }
            if a[1].stringValue == nil { return true }
            if case .array = a[2] { return true }
            return false
        case "!in", "!has", "none": return false
        case "==", "!=", ">", ">=", "<", "<=":
            if a.count != 3 { return true }
            if case .array = a[1] { return true }
            if case .array = a[2] { return true }
            return false
        case "any", "all":
            for sub in a.dropFirst() {
                if case .bool = sub { continue }
                if !isExpressionFilter(sub) { return false }
            }
            return true
        default: return true
        }
    }

    /// The expression a legacy filter means. Recursion is bounded by the JSON depth limit.
    static func convert(_ f: JSONValue) -> JSONValue {
        guard case .array(let a) = f, let first = a.first else { return .bool(true) }
        let op = first.stringValue ?? ""
        if a.count <= 1 { return .bool(op != "any") }
        let rest = Array(a.dropFirst())
        switch op {
        case "==": return comparison(a[1], a.count > 2 ? a[2] : .null, "==")
        case "!=": return negate(comparison(a[1], a.count > 2 ? a[2] : .null, "=="))
        case "<", ">", "<=", ">=": return comparison(a[1], a.count > 2 ? a[2] : .null, op)
        case "any": return .array([.string("any")] + rest.map(convert))
        case "all": return .array([.string("all")] + rest.map(convert))
        case "none": return .array([.string("all")] + rest.map { negate(convert($0)) })
        case "in": return inOp(a[1], Array(a.dropFirst(2)))
        case "!in": return negate(inOp(a[1], Array(a.dropFirst(2))))
        case "has": return hasOp(a[1])
        case "!has": return negate(hasOp(a[1]))
        case "within": return f
        default: return .bool(true)
        }
    }

    private static func comparison(_ property: JSONValue, _ value: JSONValue, _ op: String) -> JSONValue {
        switch property {
        case .string("$type"): return .array([.string("filter-type-\(op)"), value])
        case .string("$id"): return .array([.string("filter-id-\(op)"), value])
        default: return .array([.string("filter-\(op)"), property, value])
        }
    }

    private static func inOp(_ property: JSONValue, _ values: [JSONValue]) -> JSONValue {
        if values.isEmpty { return .bool(false) }
        let list = JSONValue.array([.string("literal"), .array(values)])
        switch property {
        case .string("$type"): return .array([.string("filter-type-in"), list])
        case .string("$id"): return .array([.string("filter-id-in"), list])
        default: return .array([.string("filter-in-small"), property, list])
        }
    }

    private static func hasOp(_ property: JSONValue) -> JSONValue {
        switch property {
        case .string("$type"): return .bool(true)
        case .string("$id"): return .array([.string("filter-has-id")])
        default: return .array([.string("filter-has"), property])
        }
    }

    private static func negate(_ f: JSONValue) -> JSONValue { .array([.string("!"), f]) }
}

struct LegacyConversionError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

enum LegacyFunctions {
    static func convert(_ parameters: JSONObject, spec: PropertySpec) -> Result<JSONValue, LegacyConversionError> {
        guard case .array(let rawStops)? = parameters["stops"] else {
            return .success(identity(parameters, spec))
        }
        guard !rawStops.isEmpty else {
            return .failure(LegacyConversionError("Function stops must be a non-empty array."))
        }
        var stops: [(JSONValue, JSONValue)] = []
        for s in rawStops {
            guard case .array(let pair) = s, pair.count == 2 else {
                return .failure(LegacyConversionError("Function stops must be [input, output] pairs."))
            }
            stops.append((pair[0], pair[1]))
        }
        let zoomAndFeature: Bool = { if case .object = stops[0].0 { return true } else { return false } }()
        let featureDependent = zoomAndFeature || parameters["property"] != nil
        let zoomDependent = zoomAndFeature || !featureDependent
        stops = stops.map { input, output in
            if !featureDependent && spec.tokens, case .string(let s) = output { return (input, tokenString(s)) }
            return (input, literal(output))
        }
        if zoomAndFeature { return zoomAndProperty(parameters, spec, stops) }
        if zoomDependent { return zoomFunction(parameters, spec, stops) }
        return propertyFunction(parameters, spec, stops)
    }

    private static func literal(_ v: JSONValue) -> JSONValue {
        switch v {
        case .array, .object: return .array([.string("literal"), v])
        default: return v
        }
    }

    private static func functionType(_ parameters: JSONObject, _ spec: PropertySpec) -> String {
        if case .string(let t)? = parameters["type"] { return t }
        return spec.interpolated ? "exponential" : "interval"
    }

    private static func interpolateOperator(_ parameters: JSONObject) -> String {
        switch parameters["colorSpace"]?.stringValue {
        case "hcl": return "interpolate-hcl"
        case "lab": return "interpolate-lab"
        default: return "interpolate"
        }
    }

    private static func identity(_ parameters: JSONObject, _ spec: PropertySpec) -> JSONValue {
        let get = JSONValue.array([.string("get"), parameters["property"] ?? .null])
        guard let def = parameters["default"] else {
            return spec.rawType == "string" ? .array([.string("string"), get]) : get
        }
        if spec.rawType == "enum" {
            return .array([.string("match"), get, .array((spec.enumValues ?? []).map(JSONValue.string)), get, def])
        }
        let op = spec.rawType == "color" ? "to-color" : (spec.rawType ?? "to-string")
        var out: [JSONValue] = [.string(op)]
        if spec.rawType == "array" {
            out.append(spec.arrayValueType.map(JSONValue.string) ?? .null)
            out.append(spec.arrayLength.map { .int(Int64($0)) } ?? .null)
        }
        out.append(get)
        out.append(literal(def))
        return .array(out)
    }

    private static func appendStop(_ curve: inout [JSONValue], _ input: JSONValue, _ output: JSONValue, isStep: Bool) {
        // Duplicate stop inputs were never validated for functions; the first one wins.
        if curve.count > 3 && input == curve[curve.count - 2] { return }
        if !(isStep && curve.count == 2) { curve.append(input) }
        curve.append(output)
    }

    /// A step with only its first output is a constant; give it a no-op stop so it parses.
    private static func fixDegenerateStep(_ curve: inout [JSONValue]) {
        if curve.first == .string("step") && curve.count == 3 {
            curve.append(.int(0))
            curve.append(curve[2])
        }
    }

    private static func fallback(_ parameters: JSONObject, _ spec: PropertySpec) -> JSONValue {
        if let d = parameters["default"] ?? spec.defaultValue { return literal(d) }
        if spec.rawType == "resolvedImage" { return .string("") }
        return .null
    }

    private static func propertyFunction(
        _ parameters: JSONObject, _ spec: PropertySpec,
        _ stops: [(JSONValue, JSONValue)]
    ) -> Result<JSONValue, LegacyConversionError> {
        let type = functionType(parameters, spec)
        let get = JSONValue.array([.string("get"), parameters["property"] ?? .null])
        let typeCheck = JSONValue.array([.string("=="), .array([.string("typeof"), get]), .string("number")])
        switch type {
        case "categorical":
            if case .bool = stops[0].0 {
                var e: [JSONValue] = [.string("case")]
                for (input, output) in stops { e.append(.array([.string("=="), get, input])); e.append(output) }
                e.append(fallback(parameters, spec))
                return .success(.array(e))
            }
            var e: [JSONValue] = [.string("match"), get]
            for (input, output) in stops { appendStop(&e, input, output, isStep: false) }
            e.append(fallback(parameters, spec))
            return .success(.array(e))
        case "interval":
            var e: [JSONValue] = [.string("step"), .array([.string("number"), get])]
            for (input, output) in stops { appendStop(&e, input, output, isStep: true) }
            fixDegenerateStep(&e)
            guard let def = parameters["default"] else { return .success(.array(e)) }
            return .success(.array([.string("case"), typeCheck, .array(e), literal(def)]))
        case "exponential":
            let base = parameters["base"]?.doubleValue ?? 1
            var e: [JSONValue] = [
                .string(interpolateOperator(parameters)),
                base == 1 ? .array([.string("linear")]) : .array([.string("exponential"), .double(base)]),
                .array([.string("number"), get]),
            ]
            for (input, output) in stops { appendStop(&e, input, output, isStep: false) }
            guard let def = parameters["default"] else { return .success(.array(e)) }
            return .success(.array([.string("case"), typeCheck, .array(e), literal(def)]))
        default:
            return .failure(LegacyConversionError("Unknown property function type \(type)"))
        }
    }

    private static func zoomFunction(
        _ parameters: JSONObject, _ spec: PropertySpec,
        _ stops: [(JSONValue, JSONValue)]
    ) -> Result<JSONValue, LegacyConversionError> {
        let type = functionType(parameters, spec)
        var e: [JSONValue]
        let isStep: Bool
        switch type {
        case "interval":
            e = [.string("step"), .array([.string("zoom")])]
            isStep = true
        case "exponential":
            let base = parameters["base"]?.doubleValue ?? 1
            e = [
                .string(interpolateOperator(parameters)),
                base == 1 ? .array([.string("linear")]) : .array([.string("exponential"), .double(base)]),
                .array([.string("zoom")]),
            ]
            isStep = false
        default:
            return .failure(LegacyConversionError("Unknown zoom function type \"\(type)\""))
        }
        for (input, output) in stops { appendStop(&e, input, output, isStep: isStep) }
        fixDegenerateStep(&e)
        return .success(.array(e))
    }

    private static func zoomAndProperty(
        _ parameters: JSONObject, _ spec: PropertySpec,
        _ stops: [(JSONValue, JSONValue)]
    ) -> Result<JSONValue, LegacyConversionError> {
        var zooms: [JSONValue] = []
        var perZoom: [[(JSONValue, JSONValue)]] = []
        for (input, output) in stops {
            guard case .object(let key) = input else {
                return .failure(LegacyConversionError("Zoom-and-property function stops need {zoom, value} inputs."))
            }
            let z = key["zoom"] ?? .null
            if let k = zooms.firstIndex(of: z) {
                perZoom[k].append((key["value"] ?? .null, output))
            } else {
                zooms.append(z)
                perZoom.append([(key["value"] ?? .null, output)])
            }
        }
        var inner = JSONObject()
        inner["type"] = parameters["type"]
        inner["property"] = parameters["property"]
        inner["default"] = parameters["default"]
        let interpolated = spec.interpolated
        var e: [JSONValue] =
            interpolated
            ? [.string(interpolateOperator(parameters)), .array([.string("linear")]), .array([.string("zoom")])]
            : [.string("step"), .array([.string("zoom")])]
        for (z, zStops) in zip(zooms, perZoom) {
            switch propertyFunction(inner, spec, zStops) {
            case .success(let output): appendStop(&e, z, output, isStep: !interpolated)
            case .failure(let m): return .failure(m)
            }
        }
        fixDegenerateStep(&e)
        return .success(.array(e))
    }

    /// `"{name} km"` → `["concat", ["get", "name"], " km"]`.
    static func tokenString(_ s: String) -> JSONValue {
        var parts: [JSONValue] = [.string("concat")]
        let chars = Array(s)
        var pos = 0, i = 0
        while i < chars.count {
            if chars[i] == "{", let close = chars[(i + 1)...].firstIndex(where: { $0 == "}" || $0 == "{" }),
                chars[close] == "}", close > i + 1
            {
                if i > pos { parts.append(.string(String(chars[pos..<i]))) }
                parts.append(.array([.string("get"), .string(String(chars[(i + 1)..<close]))]))
                pos = close + 1
                i = close + 1
            } else {
                i += 1
            }
        }
        if parts.count == 1 { return .string(s) }
        if pos < chars.count {
            parts.append(.string(String(chars[pos...])))
        } else if parts.count == 2 {
            return .array([.string("to-string"), parts[1]])
        }
        return .array(parts)
    }
}
