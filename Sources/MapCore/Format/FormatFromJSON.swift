// Format strings: style-spec JSON expressions read back into the format tree (the MapLibre iOS
// SDK's rules), and the tree printed as format-string text with `%@`/`%K` arguments for what
// the syntax cannot spell inline (dictionaries, shapes, names that are not key paths).

enum FormatFromJSON {
    /// The deepest JSON the conversion reads, as deep as the expression engine compiles.
    static let maxDepth = 64

    /// Refuses JSON nested deeper than `maxDepth`, measured without recursion, so the recursive
    /// conversion stays within a small thread stack.
    static func checkDepth(_ json: JSONValue) throws(MapCoreError) {
        var stack: [(JSONValue, Int)] = [(json, 1)]
        while let (value, depth) = stack.popLast() {
            let children: [JSONValue]
            switch value {
            case .array(let a): children = a
            case .object(let o): children = o.members.map(\.value)
            default: continue
            }
            guard depth <= maxDepth else {
                throw MapCoreError(.limit, "The expression is nested deeper than \(maxDepth) levels.")
            }
            for c in children { stack.append((c, depth + 1)) }
        }
    }

    private static let functions: [String: String] = [
        "+": "add:to:", "-": "from:subtract:", "*": "multiply:by:", "/": "divide:by:", "%": "modulus:by:",
        "sqrt": "sqrt:", "log10": "log:", "ln": "ln:", "abs": "abs:", "round": "mgl_round:", "acos": "mgl_acos:",
        "cos": "mgl_cos:", "asin": "mgl_asin:", "sin": "mgl_sin:", "atan": "mgl_atan:", "tan": "mgl_tan:",
        "log2": "mgl_log2:", "floor": "floor:", "ceil": "ceiling:", "^": "raise:toPower:",
        "distance": "mgl_distanceFrom:",
        "upcase": "uppercase:", "downcase": "lowercase:", "let": "MLN_LET",
    ]

    private static let comparisons: [String: FormatComparison] = [
        "==": .equal, "!=": .notEqual, "<": .less, "<=": .lessOrEqual, ">": .greater, ">=": .greaterOrEqual, "in": .in,
    ]

    private static func generic(_ a: [JSONValue]) throws(MapCoreError) -> FormatExpression {
        .function("MLN_FUNCTION", operand: nil, arguments: try a.map { (x) throws(MapCoreError) in try expression(x) })
    }

    /// A constant as written inside `literal`: arrays stay aggregates of constants.
    private static func constant(_ v: JSONValue) -> FormatExpression {
        switch v {
        case .array(let items): return .aggregate(items.map(constant))
        case .object(let o):
            if case .string(let type)? = o["type"], FormatArguments.geoJSONTypes.contains(type) { return .shape(v) }
            return .dictionary(o)
        default: return .constant(v)
        }
    }

    static func expression(_ json: JSONValue) throws(MapCoreError) -> FormatExpression {
        switch json {
        case .null, .bool, .int, .uint, .double, .string: return .constant(json)
        case .object: return constant(json)
        case .array(let a):
            guard case .string(let op)? = a.first else { return try generic(a) }
            let args = Array(a.dropFirst())
            func exprs(_ list: [JSONValue]) throws(MapCoreError) -> [FormatExpression] {
                try list.map { (x) throws(MapCoreError) in try expression(x) }
            }
            if let name = functions[op] {
                if op == "+" && args.count > 2 {
                    return .function("sum:", operand: nil, arguments: [.aggregate(try exprs(args))])
                }
                if op == "^", args.count == 2, args[0] == .array([.string("e")]) {
                    return .function("exp:", operand: nil, arguments: [try expression(args[1])])
                }
                guard let arity = FormatFunctions.calls[name], arity.accepts(args.count) else { return try generic(a) }
                return .function(name, operand: nil, arguments: try exprs(args))
            }
            if let variable = FormatToJSON.variableName(forOperator: op), args.isEmpty { return .variable(variable) }
            switch op {
            case "literal" where args.count == 1:
                // An object literal stays explicit: a bare object among MLN_FUNCTION operands means options.
                if case .object(let o) = args[0] {
                    return .function(
                        "MLN_FUNCTION", operand: nil, arguments: [.constant(.string("literal")), .dictionary(o)])
                }
                return constant(args[0])
            case "to-boolean" where args.count == 1:
                return .function("boolValue", operand: try expression(args[0]), arguments: [])
            case "to-number" where !args.isEmpty:
                if args.count == 1 { return cast(try expression(args[0]), "NSNumber") }
                return .function(
                    "mgl_numberWithFallbackValues:", operand: try expression(args[0]),
                    arguments: try exprs(Array(args.dropFirst())))
            case "to-string" where args.count == 1:
                return cast(try expression(args[0]), "NSString")
            case "to-color" where args.count == 1:
                return cast(try expression(args[0]), "UIColor")
            case "to-rgba" where args.count == 1:
                return cast(.function("noindex:", operand: nil, arguments: [try expression(args[0])]), "NSArray")
            case "get" where args.count == 1:
                if case .string(let key) = args[0] { return .keyPath([key]) }
            case "get" where args.count == 2:
                let object = try expression(args[1])
                if case .string(let key) = args[0] {
                    if case .keyPath(let path) = object { return .keyPath(path + [key]) }
                    return .function("valueForKey:", operand: object, arguments: [.constant(.string(key))])
                }
                return .function("valueForKey:", operand: object, arguments: [try expression(args[0])])
            case "length" where args.count == 1:
                let x = try expression(args[0])
                if case .constant(.string) = x { return .function("length:", operand: nil, arguments: [x]) }
                return .function("count:", operand: nil, arguments: [x])
            case "min", "max":
                guard !args.isEmpty else { break }
                return .function(op + ":", operand: nil, arguments: [.aggregate(try exprs(args))])
            case "e" where args.isEmpty: return .constant(.double(2.718281828459045))
            case "pi" where args.isEmpty: return .constant(.double(3.141592653589793))
            case "concat" where !args.isEmpty:
                return .function("mgl_join:", operand: nil, arguments: [.aggregate(try exprs(args))])
            case "at" where args.count == 2:
                let index = try expression(args[0])
                if case .constant(.string) = index { break }  // would read back as a key lookup
                return .function("objectFrom:withIndex:", operand: nil, arguments: [try expression(args[1]), index])
            case "has" where args.count == 1 || args.count == 2:
                let object = args.count == 2 ? try expression(args[1]) : .evaluatedObject
                return .function("mgl_does:have:", operand: nil, arguments: [object, try expression(args[0])])
            case "interpolate":
                if let e = try interpolate(args) { return e }
            case "step":
                if let e = try step(args) { return e }
            case "var" where args.count == 1:
                if case .string(let name) = args[0], FormatLexer.isIdentifier(name),
                    FormatToJSON.variableName(forOperator: name) == nil, !reservedVariable(name)
                {
                    return .variable(name)
                }
            case "case" where args.count >= 3 && args.count % 2 == 1:
                var out: [FormatExpression] = []
                for (i, x) in args.enumerated() {
                    if i % 2 == 0 && i < args.count - 1, let p = try predicate(x, exact: true) {
                        out.append(.predicate(p))
                    } else {
                        out.append(try expression(x))
                    }
                }
                if out.count == 3, case .predicate(let p) = out[0] { return .conditional(p, out[1], out[2]) }
                return .function("MLN_IF", operand: nil, arguments: out)
            case "match" where args.count >= 4 && args.count % 2 == 0:
                var out: [FormatExpression] = []
                for (i, x) in args.enumerated() {
                    if i % 2 == 1 && i < args.count - 1, case .array(let labels) = x {
                        out.append(.aggregate(labels.map(constant)))
                    } else {
                        out.append(try expression(x))
                    }
                }
                return .function("MLN_MATCH", operand: nil, arguments: out)
            case "format" where !args.isEmpty:
                var out: [FormatExpression] = []
                for x in args {
                    if case .object(let o) = x { out.append(.dictionary(o)) } else { out.append(try expression(x)) }
                }
                return .function("mgl_attributed:", operand: nil, arguments: out)
            case "coalesce" where !args.isEmpty:
                return .function("mgl_coalesce:", operand: nil, arguments: [.aggregate(try exprs(args))])
            default: break
            }
            return try generic(a)
        }
    }

    /// `$name` spellings that mean something else when read back.
    private static func reservedVariable(_ name: String) -> Bool {
        [
            "zoomLevel", "heatmapDensity", "lineProgress", "featureAccumulated", "geometryType", "featureIdentifier",
            "featureAttributes",
        ].contains(name)
    }

    private static func cast(_ x: FormatExpression, _ type: String) -> FormatExpression {
        .function("castObject:toType:", operand: nil, arguments: [x, .constant(.string(type))])
    }

    private static func stops(_ pairs: ArraySlice<JSONValue>) -> FormatExpression? {
        guard !pairs.isEmpty, pairs.count % 2 == 0 else { return nil }
        var o = JSONObject()
        var i = pairs.startIndex
        while i < pairs.endIndex {
            guard pairs[i].doubleValue != nil else { return nil }
            let key = JSON.serialize(pairs[i])
            guard o[key] == nil else { return nil }
            o[key] = pairs[i + 1]
            i += 2
        }
        return .dictionary(o)
    }

    private static func interpolate(_ args: [JSONValue]) throws(MapCoreError) -> FormatExpression? {
        guard args.count >= 4, case .array(let curve) = args[0], case .string(let type)? = curve.first,
            let stops = stops(args[2...])
        else { return nil }
        let parameters: FormatExpression
        switch type {
        case "linear" where curve.count == 1: parameters = .constant(.null)
        case "exponential" where curve.count == 2: parameters = try expression(curve[1])
        case "cubic-bezier" where curve.count == 5: parameters = .aggregate(curve.dropFirst().map(constant))
        default: return nil
        }
        return .function(
            "mgl_interpolate:withCurveType:parameters:stops:", operand: nil,
            arguments: [try expression(args[1]), .constant(.string(type)), parameters, stops])
    }

    private static func step(_ args: [JSONValue]) throws(MapCoreError) -> FormatExpression? {
        guard args.count >= 4, let stops = stops(args[2...]) else { return nil }
        return .function(
            "mgl_step:from:stops:", operand: nil,
            arguments: [try expression(args[0]), try expression(args[1]), stops])
    }

    // MARK: Predicates

    /// The predicate a boolean JSON expression is. Other expressions become `expression == TRUE`
    /// (as the SDK does), or nil when `exact` asks for a predicate of the same meaning.
    static func predicate(_ json: JSONValue) throws(MapCoreError) -> FormatPredicate {
        if let p = try predicate(json, exact: false) { return p }
        // `expression == TRUE` does not compile for an `error` expression (nothing compares with
        // one), so no format string means it: say so rather than write one that fails later.
        if case .array(let a) = json, a.first == .string("error") {
            throw MapCoreError(
                .unsupported, "An \"error\" expression cannot stand as a predicate in a format string.")
        }
        return .comparison(
            try expression(json), .equal, .constant(.bool(true)), modifier: .direct, options: FormatOptions())
    }

    static func predicate(_ json: JSONValue, exact: Bool) throws(MapCoreError) -> FormatPredicate? {
        if case .bool(let b) = json { return .constant(b) }
        if case .array(let a) = json, case .string(let op)? = a.first {
            let args = Array(a.dropFirst())
            func preds(_ list: [JSONValue]) throws(MapCoreError) -> [FormatPredicate]? {
                var out: [FormatPredicate] = []
                for x in list {
                    if exact {
                        guard let p = try predicate(x, exact: true) else { return nil }
                        out.append(p)
                    } else {
                        out.append(try predicate(x))
                    }
                }
                return out
            }
            if let cmp = comparisons[op], let p = try comparison(cmp, args) { return p }
            switch op {
            case "!" where args.count == 1:
                guard let subs = try preds(args) else { return nil }
                return .not(subs[0])
            case "all":
                guard let subs = try preds(args) else { return nil }
                if subs.count == 2, let between = between(subs[0], subs[1]) { return between }
                return .and(subs)
            case "any":
                guard let subs = try preds(args) else { return nil }
                return .or(subs)
            case "within" where args.count == 1:
                return .comparison(
                    .evaluatedObject, .in, try expression(args[0]), modifier: .direct, options: FormatOptions())
            default: break
            }
        }
        return nil
    }

    /// A legacy filter (`["==", "kind", "park"]`, `$type`, `$id`, `in`, `has`, `none`) as a predicate.
    static func legacyPredicate(_ json: JSONValue) throws(MapCoreError) -> FormatPredicate {
        guard case .array(let a) = json, case .string(let op)? = a.first else {
            if case .bool(let b) = json { return .constant(b) }
            throw MapCoreError(.expression, "Not a legacy filter: \(JSON.serialize(json))")
        }
        let args = Array(a.dropFirst())
        func key(_ v: JSONValue?) throws(MapCoreError) -> FormatExpression {
            switch v {
            case .string("$type")?: return .variable("geometryType")
            case .string("$id")?: return .variable("featureIdentifier")
            case .string(let k)?: return .keyPath([k])
            default: throw MapCoreError(.expression, "A legacy filter's key must be a string")
            }
        }
        func subs() throws(MapCoreError) -> [FormatPredicate] {
            try args.map { (x) throws(MapCoreError) in try legacyPredicate(x) }
        }
        let none = FormatOptions()
        // Legacy `$type` is the feature's type, Point for a MultiPoint too; `$geometryType` (the
        // geometry-type expression) tells them apart, so both names are asked for.
        func geometryTypes(_ values: ArraySlice<JSONValue>) -> FormatPredicate {
            let names = values.flatMap { v -> [FormatExpression] in
                guard case .string(let t) = v, ["Point", "LineString", "Polygon"].contains(t) else {
                    return [.constant(v)]
                }
                return [.constant(v), .constant(.string("Multi" + t))]
            }
            return .comparison(.variable("geometryType"), .in, .aggregate(names), modifier: .direct, options: none)
        }
        if args.first == .string("$type") {
            if (op == "==" || op == "!=") && args.count == 2 {
                return op == "==" ? geometryTypes(args[1...]) : .not(geometryTypes(args[1...]))
            }
            if op == "in" || op == "!in" {
                return op == "in" ? geometryTypes(args.dropFirst()) : .not(geometryTypes(args.dropFirst()))
            }
        }
        switch op {
        case "==", "!=", "<", "<=", ">", ">=":
            guard args.count == 2, let cmp = comparisons[op] else {
                throw MapCoreError(.expression, "\(op) needs a key and a value")
            }
            // An array or object value is written as an aggregate or dictionary, which reads back;
            // as a bare constant it printed as JSON text (found by the format fuzz target).
            return .comparison(try key(args.first), cmp, constant(args[1]), modifier: .direct, options: none)
        case "in", "!in":
            let test = FormatPredicate.comparison(
                try key(args.first), .in, .aggregate(args.dropFirst().map(constant)),
                modifier: .direct, options: none)
            return op == "in" ? test : .not(test)
        case "has", "!has":
            let test: FormatPredicate
            switch args.first {
            case .string("$type")?: test = .constant(true)
            case .string("$id")?:
                test = .comparison(
                    .variable("featureIdentifier"), .notEqual, .constant(.null), modifier: .direct, options: none)
            default:
                test = .comparison(
                    .function(
                        "mgl_does:have:", operand: nil, arguments: [.evaluatedObject, .constant(args.first ?? .null)]),
                    .equal, .constant(.bool(true)), modifier: .direct, options: none)
            }
            return op == "has" ? test : .not(test)
        case "all": return .and(try subs())
        case "any": return .or(try subs())
        case "none": return .not(.or(try subs()))
        default: throw MapCoreError(.expression, "Unknown legacy filter operator \(op)")
        }
    }

    private static func comparison(
        _ cmp: FormatComparison, _ args: [JSONValue]
    ) throws(MapCoreError) -> FormatPredicate? {
        guard args.count == 2 || args.count == 3 else { return nil }
        var options = FormatOptions()
        if args.count == 3 {
            // Only collators the [c]/[d] options can say: no locale, literal flags.
            guard cmp != .in, case .array(let c) = args[2], c.count == 2, c[0] == .string("collator"),
                case .object(let o) = c[1], o["locale"] == nil,
                o.allSatisfy({ ["case-sensitive", "diacritic-sensitive"].contains($0.key) && $0.value.isBool })
            else { return nil }
            options.caseInsensitive = o["case-sensitive"] == .bool(false)
            options.diacriticInsensitive = o["diacritic-sensitive"] == .bool(false)
            if options.isEmpty { return nil }
        }
        return .comparison(try expression(args[0]), cmp, try expression(args[1]), modifier: .direct, options: options)
    }

    /// The four shapes of a two-sided `all` that read as BETWEEN, as the MapLibre SDK detects them.
    private static func between(_ l: FormatPredicate, _ r: FormatPredicate) -> FormatPredicate? {
        guard case .comparison(let ll, let lop, let lr, .direct, let lo) = l, lo.isEmpty,
            case .comparison(let rl, let rop, let rr, .direct, let ro) = r, ro.isEmpty
        else { return nil }
        let x: FormatExpression, bounds: [FormatExpression]
        switch (lop, rop) {
        case (.greaterOrEqual, .lessOrEqual): (x, bounds) = (ll, [lr, rr])
        case (.lessOrEqual, .lessOrEqual): (x, bounds) = (lr, [ll, rr])
        case (.lessOrEqual, .greaterOrEqual): (x, bounds) = (lr, [ll, rl])
        case (.greaterOrEqual, .greaterOrEqual): (x, bounds) = (ll, [lr, rl])
        default: return nil
        }
        // Both sides must test the same value, or this is not a range.
        let other: FormatExpression
        switch (lop, rop) {
        case (.greaterOrEqual, .lessOrEqual), (.lessOrEqual, .lessOrEqual): other = rl
        default: other = rr
        }
        guard other == x else { return nil }
        return .comparison(x, .between, .aggregate(bounds), modifier: .direct, options: FormatOptions())
    }
}

extension JSONValue {
    fileprivate var isBool: Bool {
        if case .bool = self { return true }
        return false
    }
}

// MARK: - Printing

/// Prints the format tree as format-string text, collecting `%@`/`%K` arguments.
struct FormatPrinter {
    private(set) var text = ""
    private(set) var arguments: [JSONValue] = []

    private static let infix: [String: (symbol: String, precedence: Int)] = [
        "add:to:": ("+", 1), "from:subtract:": ("-", 1), "multiply:by:": ("*", 2), "divide:by:": ("/", 2),
        "raise:toPower:": ("**", 3),
    ]

    private mutating func argument(_ v: JSONValue) {
        text += "%@"
        arguments.append(v)
    }

    private mutating func key(_ k: String) {
        if FormatLexer.isIdentifier(k) && !formatReservedWords.contains(k.uppercased()) {
            text += k
        } else if FormatLexer.isIdentifier(k) {
            text += "#" + k
        } else {
            text += "%K"
            arguments.append(.string(k))
        }
    }

    private static func quoted(_ s: String) -> String {
        var out = "'"
        for u in s.unicodeScalars {
            switch u {
            case "'": out += "\\'"
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if u.value < 0x20 || u.value == 0x7F {
                    let hex = String(u.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        return out + "'"
    }

    private static func precedence(_ e: FormatExpression) -> Int {
        if case .function(let name, nil, let args) = e, let inf = infix[name], args.count == 2 { return inf.precedence }
        if case .function("from:subtract:", nil, let args) = e, args.count == 1 { return 4 }
        return 5
    }

    mutating func expression(_ e: FormatExpression) {
        switch e {
        case .constant(let v):
            switch v {
            case .null: text += "NIL"
            case .bool(let b): text += b ? "TRUE" : "FALSE"
            case .string(let s): text += Self.quoted(s)
            default:
                if let d = v.doubleValue, d.isNaN || d.isInfinite { argument(v) } else { text += JSON.serialize(v) }
            }
        case .aggregate(let items):
            text += "{"
            for (i, item) in items.enumerated() {
                if i > 0 { text += ", " }
                expression(item)
            }
            text += "}"
        case .dictionary(let o): argument(.object(o))
        case .shape(let g): argument(g)
        case .keyPath(let path):
            for (i, k) in path.enumerated() {
                if i > 0 { text += "." }
                key(k)
            }
        case .variable(let name): text += "$" + name
        case .evaluatedObject: text += "SELF"
        case .indexKeyword(let k): text += k
        case .conditional(let p, let a, let b):
            text += "TERNARY("
            predicate(p)
            text += ", "
            expression(a)
            text += ", "
            expression(b)
            text += ")"
        case .predicate(let p): predicate(p)
        case .function(let name, let operand, let args):
            function(name, operand, args)
        }
    }

    private mutating func function(_ name: String, _ operand: FormatExpression?, _ args: [FormatExpression]) {
        if operand == nil, let inf = Self.infix[name], args.count == 2 {
            operandOf(args[0], parent: inf.precedence, right: false)
            text += " \(inf.symbol) "
            operandOf(args[1], parent: inf.precedence, right: true)
            return
        }
        if operand == nil, name == "from:subtract:", args.count == 1 {
            text += "-"
            // `--x` reads back as -(-x); parentheses would add a nesting level per sign, so a chain
            // the parser accepted could print deeper than it may read back.
            if case .function("from:subtract:", nil, let inner) = args[0], inner.count == 1 {
                expression(args[0])
            } else {
                operandOf(args[0], parent: 4, right: true)
            }
            return
        }
        if operand == nil, name == "objectFrom:withIndex:", args.count == 2 {
            operandOf(args[0], parent: 5, right: false)
            text += "["
            expression(args[1])
            text += "]"
            return
        }
        // `base.key` as the parser reads it after any base (a subscript, a call): the FUNCTION
        // form nests two levels deeper, so a chain the parser accepted could print past its
        // nesting limit (found by the format fuzz target).
        if let operand, name == "valueForKey:", args.count == 1, case .constant(.string(let k)) = args[0] {
            switch operand {
            case .keyPath, .evaluatedObject: break  // `a.b` and `SELF.b` read back as key paths
            default:
                operandOf(operand, parent: 5, right: false)
                text += "."
                key(k)
                return
            }
        }
        if operand == nil, name == "castObject:toType:", args.count == 2 {
            text += "CAST("
            expression(args[0])
            text += ", "
            expression(args[1])
            text += ")"
            return
        }
        var list = args
        if let operand {
            text += "FUNCTION("
            list = [operand, .constant(.string(name))] + args
        } else {
            // One-colon selectors read best without the colon (`sum`, `uppercase`); longer ones
            // need every part (`modulus:by:`).
            let colons = name.filter { $0 == ":" }.count
            text += (colons == 1 ? String(name.dropLast()) : name) + "("
        }
        for (i, a) in list.enumerated() {
            if i > 0 { text += ", " }
            expression(a)
        }
        text += ")"
    }

    private mutating func operandOf(_ e: FormatExpression, parent: Int, right: Bool) {
        let p = Self.precedence(e)
        let needs = p < parent || (right && p == parent) || (parent == 5 && p < 5)
        if needs { text += "(" }
        expression(e)
        if needs { text += ")" }
    }

    mutating func predicate(_ p: FormatPredicate) {
        switch p {
        case .constant(let b): text += b ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case .and(let parts): compound(parts, "AND", ifEmpty: "TRUEPREDICATE")
        case .or(let parts): compound(parts, "OR", ifEmpty: "FALSEPREDICATE")
        case .not(let inner):
            text += "NOT "
            sub(inner)
        case .comparison(let lhs, let cmp, let rhs, let modifier, let options):
            switch modifier {
            case .direct: break
            case .any: text += "ANY "
            case .all: text += "ALL "
            }
            expression(lhs)
            text += " " + cmp.rawValue
            if !options.isEmpty {
                text += "[" + (options.caseInsensitive ? "c" : "") + (options.diacriticInsensitive ? "d" : "") + "]"
            }
            text += " "
            expression(rhs)
        }
    }

    private mutating func compound(_ parts: [FormatPredicate], _ word: String, ifEmpty: String) {
        if parts.isEmpty { text += ifEmpty; return }
        if parts.count == 1 { predicate(parts[0]); return }
        for (i, part) in parts.enumerated() {
            if i > 0 { text += " \(word) " }
            sub(part)
        }
    }

    private mutating func sub(_ p: FormatPredicate) {
        let needs: Bool
        switch p {
        case .and(let parts), .or(let parts): needs = parts.count > 1
        case .not, .comparison, .constant: needs = false
        }
        if needs { text += "(" }
        predicate(p)
        if needs { text += ")" }
    }
}
