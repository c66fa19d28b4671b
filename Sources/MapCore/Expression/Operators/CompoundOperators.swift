// Expression: operators with fixed signatures (math, strings, feature data, colors, legacy
// filter helpers), resolved by overload like the reference's CompoundExpression.

import Glibc

typealias Evaluator = @Sendable (EvaluationContext, [ExprNode]) throws(EvaluationError) -> ExpressionValue

enum Signature {
    case fixed([ExpressionType])
    case varargs(ExpressionType)

    var text: String {
        switch self {
        case .fixed(let types): return "(\(types.map(\.description).joined(separator: ", ")))"
        case .varargs(let t): return "(\(t)...)"
        }
    }
}

struct CompoundDefinition {
    let type: ExpressionType
    let overloads: [(Signature, Evaluator)]
    /// What the operator reads of the context.
    var reads: NodeReads = []
    /// `get` and `has` read the feature only without an object operand.
    var readsOnlyWithOneOperand = false
    var isFoldable = true

    func reads(operands: Int) -> NodeReads { readsOnlyWithOneOperand && operands != 1 ? [] : reads }

    /// This definition reading `inputs` (with `unlessObjectOperand`, only when it has one operand).
    func reading(_ inputs: NodeReads, unlessObjectOperand: Bool = false) -> CompoundDefinition {
        var d = self
        d.reads = inputs
        d.readsOnlyWithOneOperand = unlessObjectOperand
        return d
    }

    /// This definition never folded to a constant.
    func notFoldable() -> CompoundDefinition {
        var d = self
        d.isFoldable = false
        return d
    }
}

final class CompoundNode: ExprNode, @unchecked Sendable {
    let name: String
    let args: [ExprNode]
    let evaluator: Evaluator
    private let ownReads: NodeReads
    private let foldable: Bool

    init(
        name: String, type: ExpressionType, args: [ExprNode], evaluator: @escaping Evaluator,
        reads: NodeReads = [], foldable: Bool = true
    ) {
        self.name = name
        self.args = args
        self.evaluator = evaluator
        ownReads = reads
        self.foldable = foldable
        super.init(type: type)
    }

    override var reads: NodeReads { ownReads }
    override var isFoldable: Bool { foldable }
    override var children: [ExprNode] { args }
    override func evaluate(_ ctx: EvaluationContext) throws(EvaluationError) -> ExpressionValue {
        try evaluator(ctx, args)
    }
    override func serialize() -> JSONValue { .array([.string(name)] + args.map { $0.serialize() }) }

    static func parse(_ items: [JSONValue], _ ctx: ParsingContext) -> ExprNode? {
        guard case .string(let op) = items[0], let definition = CompoundOperators.definitions[op] else {
            return ctx.error("Unknown expression. If you wanted a literal array, use [\"literal\", [...]].", 0)
        }
        let argCount = items.count - 1
        let candidates = definition.overloads.filter { sig, _ in
            if case .fixed(let params) = sig { return params.count == argCount }
            return true
        }
        var lastAttempt: ParsingContext?
        for (signature, evaluator) in candidates {
            let attempt = ctx.freshAttempt()
            lastAttempt = attempt
            var parsed: [ExprNode] = []
            var failed = false
            for i in 1..<max(1, items.count) where i < items.count {
                let expected: ExpressionType
                switch signature {
                case .fixed(let params): expected = params[i - 1]
                case .varargs(let t): expected = t
                }
                guard let p = attempt.parse(items[i], 1 + parsed.count, expected) else { failed = true; break }
                parsed.append(p)
            }
            if failed { continue }
            for (i, arg) in parsed.enumerated() {
                let expected: ExpressionType
                switch signature {
                case .fixed(let params): expected = params[i]
                case .varargs(let t): expected = t
                }
                attempt.concat(i + 1).checkSubtype(expected, arg.type)
            }
            if attempt.errors.items.isEmpty {
                return CompoundNode(
                    name: op, type: definition.type, args: parsed, evaluator: evaluator,
                    reads: definition.reads(operands: parsed.count), foldable: definition.isFoldable)
            }
        }
        if candidates.count == 1, let lastAttempt {
            ctx.errors.items.append(contentsOf: lastAttempt.errors.items)
        } else {
            let shown = (candidates.isEmpty ? definition.overloads : candidates).map { $0.0.text }.joined(
                separator: " | ")
            var actual: [String] = []
            for i in 1..<max(1, items.count) where i < items.count {
                guard let p = ctx.parse(items[i], 1 + actual.count) else { return nil }
                actual.append(p.type.description)
            }
            ctx.error("Expected arguments of type \(shown), but found (\(actual.joined(separator: ", "))) instead.")
        }
        return nil
    }
}

// MARK: evaluation helpers

@inline(__always)
func evalNumber(_ node: ExprNode, _ ctx: EvaluationContext) throws(EvaluationError) -> Double {
    let v = try node.evaluate(ctx)
    guard case .number(let d) = v else {
        throw EvaluationError("Expected value to be of type number, but found \(v.type) instead.")
    }
    return d
}

@inline(__always)
func evalString(_ node: ExprNode, _ ctx: EvaluationContext) throws(EvaluationError) -> String {
    let v = try node.evaluate(ctx)
    guard case .string(let s) = v else {
        throw EvaluationError("Expected value to be of type string, but found \(v.type) instead.")
    }
    return s
}

@inline(__always)
func evalBool(_ node: ExprNode, _ ctx: EvaluationContext) throws(EvaluationError) -> Bool {
    let v = try node.evaluate(ctx)
    guard case .boolean(let b) = v else {
        throw EvaluationError("Expected value to be of type boolean, but found \(v.type) instead.")
    }
    return b
}

/// The value of a property, null when absent.
@inline(__always)
func propertyValue(_ key: String, _ ctx: EvaluationContext) -> ExpressionValue {
    guard let v = ctx.properties?[key] else { return .null }
    return ExpressionValue(json: v)
}

/// JavaScript `Math.round` with halves away from zero, as the spec's `round` does.
func roundHalfAwayFromZero(_ v: Double) -> Double { v < 0 ? -(-v).jsRounded : v.jsRounded }

/// Comparison with JavaScript's `<` on same-typed primitives (strings by UTF-16 code units).
func jsLess(_ a: ExpressionValue, _ b: ExpressionValue) -> Bool {
    switch (a, b) {
    case let (.number(x), .number(y)): return x < y
    case let (.string(x), .string(y)): return x.utf16.lexicographicallyPrecedes(y.utf16)
    case let (.boolean(x), .boolean(y)): return !x && y
    default: return false
    }
}

enum CompoundOperators {
    private static func unary(_ f: @escaping @Sendable (Double) -> Double) -> CompoundDefinition {
        CompoundDefinition(
            type: .number,
            overloads: [
                (.fixed([.number]), { (ctx, a) throws(EvaluationError) in .number(f(try evalNumber(a[0], ctx))) })
            ])
    }

    private static func constant(_ v: Double) -> CompoundDefinition {
        CompoundDefinition(type: .number, overloads: [(.fixed([]), { _, _ in .number(v) })])
    }

    private static func single(
        _ type: ExpressionType, _ params: [ExpressionType], _ f: @escaping Evaluator
    ) -> CompoundDefinition {
        CompoundDefinition(type: type, overloads: [(.fixed(params), f)])
    }

    /// Legacy filter comparisons: true only when both sides have the same JavaScript type.
    private static func legacyCompare(_ a: ExpressionValue, _ b: ExpressionValue, _ op: String) -> Bool {
        switch (a, b) {
        case (.number, .number), (.string, .string), (.boolean, .boolean): break
        default: return false
        }
        switch op {
        case "<": return jsLess(a, b)
        case ">": return jsLess(b, a)
        case "<=": return !jsLess(b, a)
        default: return !jsLess(a, b)
        }
    }

    private static func literalValue(_ node: ExprNode) -> ExpressionValue { (node as? LiteralNode)?.value ?? .null }

    /// Feature geometry type as legacy `$type` filters see it: Multi* collapse to the single form.
    private static func legacyGeometryType(_ ctx: EvaluationContext) -> ExpressionValue {
        guard let t = ctx.geometry?.type else { return .null }
        switch t {
        case .point, .multiPoint: return .string("Point")
        case .lineString, .multiLineString: return .string("LineString")
        case .polygon, .multiPolygon: return .string("Polygon")
        case .geometryCollection: return .string("GeometryCollection")
        }
    }

    static let definitions: [String: CompoundDefinition] = {
        var d: [String: CompoundDefinition] = [:]
        d["error"] = single(.error, [.string]) { (ctx, a) throws(EvaluationError) in
            throw EvaluationError(try evalString(a[0], ctx))
        }.notFoldable()
        d["typeof"] = single(.string, [.value]) { (ctx, a) throws(EvaluationError) in
            .string(try a[0].evaluate(ctx).type.description)
        }
        d["to-rgba"] = single(.array(.number, 4), [.color]) { (ctx, a) throws(EvaluationError) in
            guard case .color(let c) = try a[0].evaluate(ctx) else { throw EvaluationError("Expected a color.") }
            let s = c.rgba
            return .array([.number(s.r * 255), .number(s.g * 255), .number(s.b * 255), .number(s.a)])
        }
        let rgba: Evaluator = { (ctx, a) throws(EvaluationError) in
            var items: [ExpressionValue] = []
            for n in a { items.append(try n.evaluate(ctx)) }
            if let error = Coercions.validateRGBA(items) { throw EvaluationError(error) }
            var message: String?
            guard let c = Coercions.rgbaColor(items, &message) else {
                throw EvaluationError(message ?? "Invalid rgba value.")
            }
            return .color(c)
        }
        d["rgb"] = single(.color, [.number, .number, .number], rgba)
        d["rgba"] = single(.color, [.number, .number, .number, .number], rgba)
        d["has"] = CompoundDefinition(
            type: .boolean,
            overloads: [
                (
                    .fixed([.string]),
                    { (ctx, a) throws(EvaluationError) in .boolean(ctx.properties?[try evalString(a[0], ctx)] != nil) }
                ),
                (
                    .fixed([.string, .object]),
                    { (ctx, a) throws(EvaluationError) in
                        let key = try evalString(a[0], ctx)
                        guard case .object(let o) = try a[1].evaluate(ctx) else { return .boolean(false) }
                        return .boolean(o[key] != nil)
                    }
                ),
            ]
        ).reading(.feature, unlessObjectOperand: true)
        d["get"] = CompoundDefinition(
            type: .value,
            overloads: [
                (
                    .fixed([.string]),
                    { (ctx, a) throws(EvaluationError) in propertyValue(try evalString(a[0], ctx), ctx) }
                ),
                (
                    .fixed([.string, .object]),
                    { (ctx, a) throws(EvaluationError) in
                        let key = try evalString(a[0], ctx)
                        guard case .object(let o) = try a[1].evaluate(ctx) else { return .null }
                        return o[key] ?? .null
                    }
                ),
            ]
        ).reading(.feature, unlessObjectOperand: true)
        d["feature-state"] = single(.value, [.string]) { (ctx, a) throws(EvaluationError) in
            let key = try evalString(a[0], ctx)
            return ctx.featureState?[key].map(ExpressionValue.init(json:)) ?? .null
        }.reading([.feature, .featureState])
        d["properties"] = single(.object, []) { ctx, _ in
            .object(ValueObject((ctx.properties?.members ?? []).map { ($0.key, ExpressionValue(json: $0.value)) }))
        }.reading(.feature)
        d["geometry-type"] = single(.string, []) { ctx, _ in
            ctx.geometryTypeName.map(ExpressionValue.string) ?? .null
        }.reading(.feature)
        d["id"] = single(.value, []) { ctx, _ in ctx.idValue }.reading(.feature)
        d["zoom"] = single(.number, []) { ctx, _ in ctx.zoom.map(ExpressionValue.number) ?? .null }.reading(.zoom)
        d["heatmap-density"] = single(.number, []) { ctx, _ in .number(ctx.heatmapDensity ?? 0) }
            .reading(.heatmapDensity)
        d["elevation"] = single(.number, []) { ctx, _ in .number(ctx.elevation ?? 0) }.reading(.elevation)
        d["line-progress"] = single(.number, []) { ctx, _ in .number(ctx.lineProgress ?? 0) }.reading(.lineProgress)
        d["accumulated"] = single(.value, []) { ctx, _ in ctx.accumulated ?? .null }.reading(.accumulated)
        d["+"] = CompoundDefinition(
            type: .number,
            overloads: [
                (
                    .varargs(.number),
                    { (ctx, a) throws(EvaluationError) in
                        var r = 0.0
                        for n in a { r += try evalNumber(n, ctx) }
                        return .number(r)
                    }
                )
            ])
        d["*"] = CompoundDefinition(
            type: .number,
            overloads: [
                (
                    .varargs(.number),
                    { (ctx, a) throws(EvaluationError) in
                        var r = 1.0
                        for n in a { r *= try evalNumber(n, ctx) }
                        return .number(r)
                    }
                )
            ])
        d["-"] = CompoundDefinition(
            type: .number,
            overloads: [
                (
                    .fixed([.number, .number]),
                    { (ctx, a) throws(EvaluationError) in .number(try evalNumber(a[0], ctx) - evalNumber(a[1], ctx)) }
                ),
                (.fixed([.number]), { (ctx, a) throws(EvaluationError) in .number(-(try evalNumber(a[0], ctx))) }),
            ])
        d["/"] = single(.number, [.number, .number]) { (ctx, a) throws(EvaluationError) in
            .number(try evalNumber(a[0], ctx) / evalNumber(a[1], ctx))
        }
        d["%"] = single(.number, [.number, .number]) { (ctx, a) throws(EvaluationError) in
            .number(fmod(try evalNumber(a[0], ctx), try evalNumber(a[1], ctx)))
        }
        d["ln2"] = constant(M_LN2)
        d["pi"] = constant(Double.pi)
        d["e"] = constant(M_E)
        d["^"] = single(.number, [.number, .number]) { (ctx, a) throws(EvaluationError) in
            .number(pow(try evalNumber(a[0], ctx), try evalNumber(a[1], ctx)))
        }
        d["sqrt"] = unary { $0.squareRoot() }
        d["log10"] = unary { log($0) / M_LN10 }
        d["ln"] = unary { log($0) }
        d["log2"] = unary { log($0) / M_LN2 }
        d["sin"] = unary { sin($0) }
        d["cos"] = unary { cos($0) }
        d["tan"] = unary { tan($0) }
        d["asin"] = unary { asin($0) }
        d["acos"] = unary { acos($0) }
        d["atan"] = unary { atan($0) }
        d["abs"] = unary { abs($0) }
        d["round"] = unary(roundHalfAwayFromZero)
        d["floor"] = unary { $0.rounded(.down) }
        d["ceil"] = unary { $0.rounded(.up) }
        // Math.min/max: NaN anywhere gives NaN; no arguments give ±Infinity.
        d["min"] = CompoundDefinition(
            type: .number,
            overloads: [
                (
                    .varargs(.number),
                    { (ctx, a) throws(EvaluationError) in
                        var r = Double.infinity
                        for n in a {
                            let v = try evalNumber(n, ctx); if v.isNaN || r.isNaN { r = .nan } else if v < r { r = v }
                        }
                        return .number(r)
                    }
                )
            ])
        d["max"] = CompoundDefinition(
            type: .number,
            overloads: [
                (
                    .varargs(.number),
                    { (ctx, a) throws(EvaluationError) in
                        var r = -Double.infinity
                        for n in a {
                            let v = try evalNumber(n, ctx); if v.isNaN || r.isNaN { r = .nan } else if v > r { r = v }
                        }
                        return .number(r)
                    }
                )
            ])
        d["!"] = single(.boolean, [.boolean]) { (ctx, a) throws(EvaluationError) in .boolean(!(try evalBool(a[0], ctx)))
        }
        d["all"] = CompoundDefinition(
            type: .boolean,
            overloads: [
                (
                    .fixed([.boolean, .boolean]),
                    { (ctx, a) throws(EvaluationError) in
                        guard try evalBool(a[0], ctx) else { return .boolean(false) }
                        return .boolean(try evalBool(a[1], ctx))
                    }
                ),
                (
                    .varargs(.boolean),
                    { (ctx, a) throws(EvaluationError) in
                        for n in a where !(try evalBool(n, ctx)) { return .boolean(false) }
                        return .boolean(true)
                    }
                ),
            ])
        d["any"] = CompoundDefinition(
            type: .boolean,
            overloads: [
                (
                    .fixed([.boolean, .boolean]),
                    { (ctx, a) throws(EvaluationError) in
                        if try evalBool(a[0], ctx) { return .boolean(true) }
                        return .boolean(try evalBool(a[1], ctx))
                    }
                ),
                (
                    .varargs(.boolean),
                    { (ctx, a) throws(EvaluationError) in
                        for n in a where try evalBool(n, ctx) { return .boolean(true) }
                        return .boolean(false)
                    }
                ),
            ])
        // Without a renderer there is no script support to consult: every script is supported.
        d["is-supported-script"] = single(.boolean, [.string]) { (ctx, a) throws(EvaluationError) in
            _ = try evalString(a[0], ctx)
            return .boolean(true)
        }.reading(.supportedScripts)
        d["upcase"] = single(.string, [.string]) { (ctx, a) throws(EvaluationError) in
            .string(try evalString(a[0], ctx).uppercased())
        }
        d["downcase"] = single(.string, [.string]) { (ctx, a) throws(EvaluationError) in
            .string(try evalString(a[0], ctx).lowercased())
        }
        d["concat"] = CompoundDefinition(
            type: .string,
            overloads: [
                (
                    .varargs(.value),
                    { (ctx, a) throws(EvaluationError) in
                        var out = ""
                        for n in a { out += try n.evaluate(ctx).text }
                        return .string(out)
                    }
                )
            ])
        d["split"] = single(.array(.string, nil), [.string, .string]) { (ctx, a) throws(EvaluationError) in
            let s = try evalString(a[0], ctx), sep = try evalString(a[1], ctx)
            return .array(jsSplit(s, sep).map(ExpressionValue.string))
        }
        d["join"] = single(.string, [.array(.string, nil), .string]) { (ctx, a) throws(EvaluationError) in
            guard case .array(let items) = try a[0].evaluate(ctx) else { return .string("") }
            let sep = try evalString(a[1], ctx)
            return .string(items.map(\.text).joined(separator: sep))
        }
        d["resolved-locale"] = single(.string, [.collator]) { (ctx, a) throws(EvaluationError) in
            guard case .collator(let c) = try a[0].evaluate(ctx) else { throw EvaluationError("Expected a collator.") }
            return .string(c.resolvedLocale)
        }

        // Legacy filter helpers, produced by the legacy filter conversion (arguments are literals).
        for op in ["<", ">", "<=", ">="] {
            d["filter-\(op)"] = single(.boolean, [.string, .value]) { ctx, a in
                guard case .string(let key) = literalValue(a[0]) else { return .boolean(false) }
                return .boolean(legacyCompare(propertyValue(key, ctx), literalValue(a[1]), op))
            }
            d["filter-id-\(op)"] = single(.boolean, [.value]) { ctx, a in
                .boolean(legacyCompare(ctx.idValue, literalValue(a[0]), op))
            }
        }
        d["filter-=="] = single(.boolean, [.string, .value]) { ctx, a in
            guard case .string(let key) = literalValue(a[0]) else { return .boolean(false) }
            return .boolean(propertyValue(key, ctx).strictlyEquals(literalValue(a[1])))
        }
        d["filter-id-=="] = single(.boolean, [.value]) { ctx, a in
            .boolean(ctx.idValue.strictlyEquals(literalValue(a[0])))
        }
        d["filter-type-=="] = single(.boolean, [.string]) { ctx, a in
            .boolean(legacyGeometryType(ctx).strictlyEquals(literalValue(a[0])))
        }
        d["filter-has"] = single(.boolean, [.value]) { ctx, a in
            guard case .string(let key) = literalValue(a[0]) else { return .boolean(false) }
            return .boolean(ctx.properties?[key] != nil)
        }
        d["filter-has-id"] = single(.boolean, []) { ctx, _ in .boolean(ctx.featureID != nil) }
        d["filter-type-in"] = single(.boolean, [.array(.string, nil)]) { ctx, a in
            guard case .array(let values) = literalValue(a[0]) else { return .boolean(false) }
            let t = legacyGeometryType(ctx)
            return .boolean(values.contains { $0.strictlyEquals(t) })
        }
        d["filter-id-in"] = single(.boolean, [.array(.value, nil)]) { ctx, a in
            guard case .array(let values) = literalValue(a[0]) else { return .boolean(false) }
            let id = ctx.idValue
            return .boolean(values.contains { $0.strictlyEquals(id) })
        }
        d["filter-in-small"] = single(.boolean, [.string, .array(.value, nil)]) { ctx, a in
            guard case .string(let key) = literalValue(a[0]), case .array(let values) = literalValue(a[1]) else {
                return .boolean(false)
            }
            let v = propertyValue(key, ctx)
            return .boolean(values.contains { $0.strictlyEquals(v) })
        }
        // The reference binary-searches a sorted list here; a linear scan gives the same answers.
        d["filter-in-large"] = d["filter-in-small"]
        // Every legacy filter helper tests the feature.
        for (name, definition) in d where name.hasPrefix("filter-") { d[name] = definition.reading(.feature) }
        return d
    }()
}

/// JavaScript `String.prototype.split` with a string separator.
func jsSplit(_ s: String, _ sep: String) -> [String] {
    let units = Array(s.utf16), sepUnits = Array(sep.utf16)
    if sepUnits.isEmpty { return units.map { String(decoding: [$0], as: UTF16.self) } }
    var parts: [String] = []
    var start = 0, i = 0
    while i + sepUnits.count <= units.count {
        if units[i..<(i + sepUnits.count)].elementsEqual(sepUnits) {
            parts.append(String(decoding: units[start..<i], as: UTF16.self))
            i += sepUnits.count
            start = i
        } else {
            i += 1
        }
    }
    parts.append(String(decoding: units[start...], as: UTF16.self))
    return parts
}
