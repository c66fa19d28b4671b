// Format strings: the format tree as a style-spec JSON expression, following the MapLibre iOS
// SDK's conversion rules node by node (so the JSON matches what the SDK sends to the renderer).

enum FormatToJSON {
    private static func error(_ message: String, _ code: ErrorCode = .expression) -> MapCoreError {
        MapCoreError(code, message)
    }

    private static let operators: [String: String] = [
        "add:to:": "+", "from:subtract:": "-", "multiply:by:": "*", "divide:by:": "/", "modulus:by:": "%",
        "sqrt:": "sqrt", "log:": "log10", "ln:": "ln", "raise:toPower:": "^", "ceiling:": "ceil", "abs:": "abs",
        "floor:": "floor", "uppercase:": "upcase", "lowercase:": "downcase", "length:": "length", "mgl_round:": "round",
        "mgl_acos:": "acos", "mgl_cos:": "cos", "mgl_asin:": "asin", "mgl_sin:": "sin", "mgl_atan:": "atan",
        "mgl_tan:": "tan", "mgl_log2:": "log2", "mgl_distanceFrom:": "distance", "MLN_LET": "let",
    ]

    private static let variables: [String: String] = [
        "zoomLevel": "zoom", "heatmapDensity": "heatmap-density", "lineProgress": "line-progress",
        "featureAccumulated": "accumulated", "geometryType": "geometry-type", "featureIdentifier": "id",
        "featureAttributes": "properties",
    ]

    static func variableName(forOperator op: String) -> String? {
        variables.first { $0.value == op }?.key
    }

    private static func op(_ name: String, _ args: [JSONValue]) -> JSONValue { .array([.string(name)] + args) }

    // MARK: Predicates

    static func predicate(_ p: FormatPredicate) throws(MapCoreError) -> JSONValue {
        switch p {
        case .constant(let b): return .bool(b)
        case .and(let parts): return op("all", try parts.map { (x) throws(MapCoreError) in try predicate(x) })
        case .or(let parts): return op("any", try parts.map { (x) throws(MapCoreError) in try predicate(x) })
        case .not(let inner): return op("!", [try predicate(inner)])
        case .comparison(let lhs, let cmp, let rhs, let modifier, let options):
            switch modifier {
            case .direct: break
            case .any:  // ANY x = y: y IN x
                return try predicate(.comparison(rhs, .in, lhs, modifier: .direct, options: options))
            case .all:  // ALL x != y: NOT y IN x
                return op("!", [try predicate(.comparison(rhs, .in, lhs, modifier: .direct, options: options))])
            }
            let collator: [JSONValue] =
                options.isEmpty
                ? []
                : [
                    op(
                        "collator",
                        [
                            .object(
                                JSONObject([
                                    ("case-sensitive", .bool(!options.caseInsensitive)),
                                    ("diacritic-sensitive", .bool(!options.diacriticInsensitive)),
                                ]))
                        ])
                ]
            switch cmp {
            case .between:
                guard case .aggregate(let bounds) = rhs, bounds.count == 2 else {
                    throw error("BETWEEN needs an aggregate of two bounds")
                }
                let x = try expression(lhs)
                return op(
                    "all", [op("<=", [try expression(bounds[0]), x]), op("<=", [x, try expression(bounds[1])])])
            case .contains:
                return try predicate(.comparison(rhs, .in, lhs, modifier: .direct, options: options))
            case .in:
                if lhs == .evaluatedObject { return op("within", [try expression(rhs)]) }
                if case .constant(.string) = lhs, case .constant(.string(let s)) = rhs {
                    // Two string literals would read as a legacy "in" filter; a literal keeps it an expression.
                    return op("in", [try expression(lhs), op("literal", [.string(s)])])
                }
                return op("in", [try expression(lhs), try expression(rhs)])
            default:
                return op(cmp.rawValue, [try expression(lhs), try expression(rhs)] + collator)
            }
        }
    }

    // MARK: Expressions

    static func expression(_ e: FormatExpression) throws(MapCoreError) -> JSONValue {
        switch e {
        case .constant(let v):
            if case .double(let d) = v {
                if d == 2.718281828459045 { return op("e", []) }
                if d == 3.141592653589793 { return op("pi", []) }
            }
            return v
        case .aggregate: return op("literal", [try literal(e)])
        case .dictionary(let o): return op("literal", [.object(o)])
        case .shape(let g): return g
        case .keyPath(let path):
            var result: JSONValue? = nil
            for component in path {
                result = op("get", [.string(component)] + (result.map { [$0] } ?? []))
            }
            return result ?? op("properties", [])
        case .variable(let name):
            if let mapped = variables[name] { return op(mapped, []) }
            return op("var", [.string(name)])
        case .evaluatedObject:
            throw error(
                "SELF can only be used as `SELF IN shape`, `shape CONTAINS SELF` or the target of mgl_does:have:")
        case .indexKeyword(let k):
            throw error("\(k) can only be used as an index, as in `x[\(k)]`")
        case .conditional(let p, let a, let b):
            return op("case", [try predicate(p), try expression(a), try expression(b)])
        case .predicate(let p):
            return try predicate(p)
        case .function(let name, let operand, let args):
            return try function(name, operand, args)
        }
    }

    /// A constant aggregate as a JSON array (for `literal` and `match` labels).
    private static func literal(_ e: FormatExpression) throws(MapCoreError) -> JSONValue {
        switch e {
        case .constant(let v): return v
        case .aggregate(let items): return .array(try items.map { (x) throws(MapCoreError) in try literal(x) })
        case .dictionary(let o): return .object(o)
        case .shape(let g): return g
        default:
            throw error(
                "An aggregate used as a value may only hold constants; use a function such as mgl_join or "
                    + "mgl_coalesce to combine expressions"
            )
        }
    }

    private static func expressions(_ list: [FormatExpression]) throws(MapCoreError) -> [JSONValue] {
        try list.map { (x) throws(MapCoreError) in try expression(x) }
    }

    /// The elements of a function's single aggregate argument, or its arguments when there is
    /// not exactly one aggregate (`sum({1, 2})` and `sum(1, 2)` alike).
    private static func elements(_ args: [FormatExpression]) throws(MapCoreError) -> [JSONValue] {
        if args.count == 1, case .aggregate(let items) = args[0] { return try expressions(items) }
        return try expressions(args)
    }

    private static func function(
        _ name: String, _ operand: FormatExpression?,
        _ args: [FormatExpression]
    ) throws(MapCoreError) -> JSONValue {
        if let mapped = operators[name] {
            var out = try expressions(args)
            if name == "MLN_LET" {
                // Variable names may be written as bare key paths: MGL_LET(floorCount, 2, …).
                for i in stride(from: 0, to: args.count - 1, by: 2) {
                    if case .keyPath(let p) = args[i], p.count == 1 { out[i] = .string(p[0]) }
                }
            }
            return op(mapped, out)
        }
        func target() throws(MapCoreError) -> JSONValue {
            guard let operand else { throw error("\(name) needs a target") }
            return try expression(operand)
        }
        switch name {
        case "valueForKey:", "valueForKeyPath:":
            return op("get", [try expression(args[0]), try target()])
        case "average:":
            // average({a, b}) divides by the aggregate's length, average(a, b) by the argument count.
            if args.count == 1 { return op("/", [op("+", try elements(args)), try function("count:", nil, args)]) }
            return op("/", [op("+", try elements(args)), .int(Int64(args.count))])
        case "sum:": return op("+", try elements(args))
        case "min:": return op("min", try elements(args))
        case "max:": return op("max", try elements(args))
        case "count:": return op("length", [try expression(args[0])])
        case "exp:": return op("^", [op("e", []), try expression(args[0])])
        case "trunc:":
            let x = try expression(args[0])
            return op("-", [x, op("%", [x, .int(1)])])
        case "mgl_join:": return op("concat", try elements(args))
        case "stringByAppendingString:": return op("concat", [try target()] + (try expressions(args)))
        case "objectFrom:withIndex:":
            let array = try expression(args[0])
            switch args[1] {
            case .indexKeyword("FIRST"): return op("at", [.int(0), array])
            case .indexKeyword("LAST"): return op("at", [op("-", [op("length", [array]), .int(1)]), array])
            case .indexKeyword("SIZE"): return op("length", [array])
            case .constant(.string(let key)): return op("get", [.string(key), array])
            default: return op("at", [try expression(args[1]), array])
            }
        case "boolValue": return op("to-boolean", [try target()])
        case "mgl_number", "mgl_numberWithFallbackValues:", "decimalValue", "floatValue", "doubleValue":
            return op("to-number", [try target()] + (try expressions(args)))
        case "stringValue": return op("to-string", [try target()])
        case "noindex:": return try expression(args[0])
        case "mgl_does:have:":
            return try has(object: args[0], key: args[1])
        case "mgl_has:":
            guard let operand else { throw error("mgl_has: needs a target") }
            return try has(object: operand, key: args[0])
        case "mgl_interpolate:withCurveType:parameters:stops:":
            return try interpolate(input: args[0], curve: args[1], parameters: args[2], stops: args[3])
        case "mgl_interpolateWithCurveType:parameters:stops:":
            guard let operand else { throw error("\(name) needs a target") }
            return try interpolate(input: operand, curve: args[0], parameters: args[1], stops: args[2])
        case "mgl_step:from:stops:":
            return try step(input: args[0], minimum: args[1], stops: args[2])
        case "mgl_stepWithMinimum:stops:":
            guard let operand else { throw error("\(name) needs a target") }
            return try step(input: operand, minimum: args[0], stops: args[1])
        case "mgl_expressionWithContext:":
            guard case .dictionary(let context) = args[0] else {
                throw error("mgl_expressionWithContext: needs a dictionary of variables (a %@ argument)")
            }
            var out: [JSONValue] = []
            for m in context { out += [.string(m.key), m.value] }
            return op("let", out + [try target()])
        case "MLN_IF":
            return op("case", try expressions(args))
        case "MLN_MATCH":
            var out: [JSONValue] = []
            for (i, a) in args.enumerated() {
                if i % 2 == 1 && i < args.count - 1, case .aggregate = a {
                    out.append(try literal(a))  // several labels for one output
                } else {
                    out.append(try expression(a))
                }
            }
            return op("match", out)
        case "mgl_coalesce:":
            if let operand { return op("coalesce", try elements([operand])) }
            return op("coalesce", try elements(args))
        case "castObject:toType:":
            guard case .constant(.string(let type)) = args[1] else { throw error("CAST needs a type name") }
            let object = try expression(args[0])
            switch type {
            case "NSString": return op("to-string", [object])
            case "NSNumber": return op("to-number", [object])
            case "UIColor", "NSColor", "MLNColor", "MGLColor": return op("to-color", [object])
            case "NSArray":
                var inner = args[0]
                if case .function(_, _, let innerArgs) = inner, let first = innerArgs.first { inner = first }
                if case .constant = inner {
                    throw error("Casting a constant to NSArray is not supported", .unsupported)
                }
                return op("to-rgba", [object])
            default:
                throw error(
                    "Casting to \(type) is not supported (NSNumber, NSString, UIColor, NSColor, NSArray are)",
                    .unsupported)
            }
        case "mgl_attributed:":
            var items = args
            if args.count == 1, case .aggregate(let inner) = args[0] { items = inner }
            var out: [JSONValue] = []
            for item in items {
                if case .dictionary(let attributes) = item {
                    out.append(.object(attributes))
                } else {
                    out.append(try expression(item))
                }
            }
            return op("format", out)
        case "MLN_FUNCTION":
            // An object among the operands is the operator's options (collator, number-format,
            // format sections), written raw as the style spec does.
            return .array(
                try args.map { (a) throws(MapCoreError) -> JSONValue in
                    if case .dictionary(let o) = a { return .object(o) }
                    return try expression(a)
                })
        default:
            throw error("Unrecognized expression function \(name)")
        }
    }

    /// `has` on the feature (SELF) or on an object expression.
    private static func has(object: FormatExpression, key: FormatExpression) throws(MapCoreError) -> JSONValue {
        let k = try expression(key)
        if object == .evaluatedObject { return op("has", [k]) }
        return op("has", [k, try expression(object)])
    }

    private static func stopPairs(_ stops: FormatExpression, _ fn: String) throws(MapCoreError) -> [JSONValue] {
        guard case .dictionary(let o) = stops, !o.isEmpty else {
            throw error("The stops of \(fn) must be a non-empty dictionary of numbers to values (a %@ argument)")
        }
        var pairs: [(Double, JSONValue, JSONValue)] = []
        for m in o {
            guard let key = try? JSON.parse(m.key), let d = key.doubleValue else {
                throw error("Stop key '\(m.key)' of \(fn) is not a number")
            }
            pairs.append((d, key, m.value))
        }
        pairs.sort { $0.0 < $1.0 }
        return pairs.flatMap { [$0.1, $0.2] }
    }

    private static func interpolate(
        input: FormatExpression, curve: FormatExpression, parameters: FormatExpression,
        stops: FormatExpression
    ) throws(MapCoreError) -> JSONValue {
        let fn = "mgl_interpolate:withCurveType:parameters:stops:"
        guard case .constant(.string(let type)) = curve else {
            throw error("The curve type of \(fn) must be 'linear', 'exponential' or 'cubic-bezier'")
        }
        var curveJSON: [JSONValue] = [.string(type)]
        switch type {
        case "linear": break
        case "exponential": curveJSON.append(try expression(parameters))
        case "cubic-bezier":
            guard case .aggregate(let items) = parameters, items.count == 4 else {
                throw error("cubic-bezier needs four control points, as in {0.42, 0, 0.58, 1}")
            }
            curveJSON += try expressions(items)
        default:
            throw error("Unknown curve type '\(type)' (linear, exponential or cubic-bezier)")
        }
        return op("interpolate", [.array(curveJSON), try expression(input)] + (try stopPairs(stops, fn)))
    }

    private static func step(
        input: FormatExpression, minimum: FormatExpression,
        stops: FormatExpression
    ) throws(MapCoreError) -> JSONValue {
        op("step", [try expression(input), try expression(minimum)] + (try stopPairs(stops, "mgl_step:from:stops:")))
    }
}
