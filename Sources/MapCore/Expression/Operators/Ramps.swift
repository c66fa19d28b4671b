// Expression: ramps (`step`, `interpolate` and its curves).

import Glibc

/// Index of the last stop label ≤ input (labels ascending).
func stopIndex(_ labels: [Double], _ input: Double) throws(EvaluationError) -> Int {
    guard !input.isNaN else { throw EvaluationError("Input is not a number.") }
    var lo = 0, hi = labels.count - 1
    while lo <= hi {
        let mid = (lo + hi) / 2
        if labels[mid] <= input {
            if mid == labels.count - 1 || input < labels[mid + 1] { return mid }
            lo = mid + 1
        } else {
            hi = mid - 1
        }
    }
    return 0
}

final class StepNode: ExprNode, @unchecked Sendable {
    let input: ExprNode
    let labels: [Double]
    let outputs: [ExprNode]
    init(type: ExpressionType, input: ExprNode, labels: [Double], outputs: [ExprNode]) {
        self.input = input
        self.labels = labels
        self.outputs = outputs
        super.init(type: type)
    }
    override var children: [ExprNode] { [input] + outputs }
    override func serialize() -> JSONValue {
        var out: [JSONValue] = [.string("step"), input.serialize(), outputs[0].serialize()]
        for k in 1..<max(1, outputs.count) where k < outputs.count {
            out.append(.double(labels[k]))
            out.append(outputs[k].serialize())
        }
        return .array(out)
    }

    static func parse(_ items: [JSONValue], _ ctx: ParsingContext) -> ExprNode? {
        guard items.count - 1 >= 4 else {
            return ctx.error("Expected at least 4 arguments, but found only \(items.count - 1).")
        }
        guard (items.count - 1) % 2 == 0 else { return ctx.error("Expected an even number of arguments.") }
        guard let input = ctx.parse(items[1], 1, .number) else { return nil }
        var outputType: ExpressionType? = ctx.expectedType.flatMap { $0 == .value ? nil : $0 }
        var labels: [Double] = [], outputs: [ExprNode] = []
        var i = 1
        while i < items.count {
            let label: Double
            if i == 1 {
                label = -.infinity
            } else {
                guard case let l? = items[i].doubleValue, !(items[i].stringValue != nil) else {
                    return ctx.error(
                        "Input/output pairs for \"step\" expressions must be defined using literal numeric values "
                            + "(not computed expressions) for the input values.",
                        i)
                }
                label = l
            }
            if let last = labels.last, last >= label {
                return ctx.error(
                    "Input/output pairs for \"step\" expressions must be arranged with input values in strictly "
                        + "ascending order.",
                    i)
            }
            guard let parsed = ctx.parse(items[i + 1], i + 1, outputType) else { return nil }
            outputType = outputType ?? parsed.type
            labels.append(label)
            outputs.append(parsed)
            i += 2
        }
        return StepNode(type: outputType ?? .value, input: input, labels: labels, outputs: outputs)
    }

    override func evaluate(_ ctx: EvaluationContext) throws(EvaluationError) -> ExpressionValue {
        if labels.count == 1 { return try outputs[0].evaluate(ctx) }
        let v = try evalNumber(input, ctx)
        if v <= labels[0] { return try outputs[0].evaluate(ctx) }
        if v >= labels[labels.count - 1] { return try outputs[labels.count - 1].evaluate(ctx) }
        return try outputs[try stopIndex(labels, v)].evaluate(ctx)
    }
}

enum Interpolation: Sendable {
    case linear
    case exponential(Double)
    case cubicBezier(Double, Double, Double, Double)

    var json: JSONValue {
        switch self {
        case .linear: return .array([.string("linear")])
        case .exponential(let b): return .array([.string("exponential"), .double(b)])
        case .cubicBezier(let a, let b, let c, let d):
            return .array([.string("cubic-bezier"), .double(a), .double(b), .double(c), .double(d)])
        }
    }

    /// Progress 0…1 of `input` between two stop labels.
    func factor(_ input: Double, _ lower: Double, _ upper: Double) -> Double {
        switch self {
        case .linear: return Interpolation.exponentialFactor(input, 1, lower, upper)
        case .exponential(let base): return Interpolation.exponentialFactor(input, base, lower, upper)
        case .cubicBezier(let x1, let y1, let x2, let y2):
            return UnitBezier(x1, y1, x2, y2).solve(Interpolation.exponentialFactor(input, 1, lower, upper))
        }
    }

    static func exponentialFactor(_ input: Double, _ base: Double, _ lower: Double, _ upper: Double) -> Double {
        let difference = upper - lower, progress = input - lower
        if difference == 0 { return 0 }
        if base == 1 { return progress / difference }
        return (pow(base, progress) - 1) / (pow(base, difference) - 1)
    }
}

/// A cubic Bézier easing curve from (0,0) to (1,1), solved for y at a given x.
struct UnitBezier {
    let cx, bx, ax, cy, by, ay: Double
    init(_ p1x: Double, _ p1y: Double, _ p2x: Double, _ p2y: Double) {
        cx = 3 * p1x; bx = 3 * (p2x - p1x) - 3 * p1x; ax = 1 - 3 * p1x - (3 * (p2x - p1x) - 3 * p1x)
        cy = 3 * p1y; by = 3 * (p2y - p1y) - 3 * p1y; ay = 1 - 3 * p1y - (3 * (p2y - p1y) - 3 * p1y)
    }
    func x(_ t: Double) -> Double { ((ax * t + bx) * t + cx) * t }
    func y(_ t: Double) -> Double { ((ay * t + by) * t + cy) * t }
    func dx(_ t: Double) -> Double { (3 * ax * t + 2 * bx) * t + cx }

    func solve(_ x: Double, epsilon: Double = 1e-6) -> Double {
        if x < 0 { return 0 }
        if x > 1 { return 1 }
        var t = x
        for _ in 0..<8 {  // Newton's method, then bisection if it stalls
            let err = self.x(t) - x
            if abs(err) < epsilon { return y(t) }
            let d = dx(t)
            if abs(d) < 1e-6 { break }
            t -= err / d
        }
        var lo = 0.0, hi = 1.0
        t = x
        for _ in 0..<64 {
            let xt = self.x(t)
            if abs(xt - x) < epsilon { break }
            if x > xt { lo = t } else { hi = t }
            t = (hi - lo) / 2 + lo
        }
        return y(t)
    }
}

final class InterpolateNode: ExprNode, @unchecked Sendable {
    let op: String
    let interpolation: Interpolation
    let input: ExprNode
    let labels: [Double]
    let outputs: [ExprNode]

    init(
        type: ExpressionType, op: String, interpolation: Interpolation, input: ExprNode, labels: [Double],
        outputs: [ExprNode]
    ) {
        self.op = op
        self.interpolation = interpolation
        self.input = input
        self.labels = labels
        self.outputs = outputs
        super.init(type: type)
    }
    override var children: [ExprNode] { [input] + outputs }
    override func serialize() -> JSONValue {
        var out: [JSONValue] = [.string(op), interpolation.json, input.serialize()]
        for (l, o) in zip(labels, outputs) { out.append(.double(l)); out.append(o.serialize()) }
        return .array(out)
    }

    static func parse(_ items: [JSONValue], _ ctx: ParsingContext) -> ExprNode? {
        guard case .string(let op) = items[0] else { return nil }
        guard items.count > 1, case .array(let kind) = items[1], let name = kind.first else {
            return ctx.error("Expected an interpolation type expression.", 1)
        }
        let interpolation: Interpolation
        switch name {
        case .string("linear"): interpolation = .linear
        case .string("exponential"):
            guard kind.count > 1, case let base? = kind[1].doubleValue, kind[1].stringValue == nil else {
                return ctx.error("Exponential interpolation requires a numeric base.", 1, 1)
            }
            interpolation = .exponential(base)
        case .string("cubic-bezier"):
            let cps = kind.dropFirst().compactMap { $0.doubleValue }
            guard kind.count == 5, cps.count == 4, cps.allSatisfy({ $0 >= 0 && $0 <= 1 }) else {
                return ctx.error(
                    "Cubic bezier interpolation requires four numeric arguments with values between 0 and 1.", 1)
            }
            interpolation = .cubicBezier(cps[0], cps[1], cps[2], cps[3])
        default:
            return ctx.error("Unknown interpolation type \(name.stringValue ?? JSON.serialize(name))", 1, 0)
        }
        guard items.count - 1 >= 4 else {
            return ctx.error("Expected at least 4 arguments, but found only \(items.count - 1).")
        }
        guard (items.count - 1) % 2 == 0 else { return ctx.error("Expected an even number of arguments.") }
        guard let input = ctx.parse(items[2], 2, .number) else { return nil }
        var outputType: ExpressionType?
        if (op == "interpolate-hcl" || op == "interpolate-lab") && ctx.expectedType != .colorArray {
            outputType = .color
        } else if let e = ctx.expectedType, e != .value {
            outputType = e
        }
        var labels: [Double] = [], outputs: [ExprNode] = []
        var i = 3
        while i + 1 < items.count {
            guard case let label? = items[i].doubleValue, items[i].stringValue == nil else {
                return ctx.error(
                    "Input/output pairs for \"interpolate\" expressions must be defined using literal numeric "
                        + "values (not computed expressions) for the input values.",
                    i)
            }
            if let last = labels.last, last >= label {
                return ctx.error(
                    "Input/output pairs for \"interpolate\" expressions must be arranged with input values in "
                        + "strictly ascending order.",
                    i)
            }
            guard let parsed = ctx.parse(items[i + 1], i + 1, outputType) else { return nil }
            outputType = outputType ?? parsed.type
            labels.append(label)
            outputs.append(parsed)
            i += 2
        }
        let t = outputType ?? .value
        let interpolatable: [ExpressionType] = [
            .number, .projectionDefinition, .color, .padding, .numberArray, .colorArray,
            .variableAnchorOffsetCollection,
        ]
        // Plain arrays interpolate only when every output has the same known length.
        let fixedNumberArray: Bool = { if case .array(.number, let n) = t { return n != nil } else { return false } }()
        guard fixedNumberArray || interpolatable.contains(where: { $0.subtypeError(t) == nil }) else {
            return ctx.error("Type \(t) is not interpolatable.")
        }
        return InterpolateNode(
            type: t, op: op, interpolation: interpolation, input: input, labels: labels, outputs: outputs)
    }

    override func evaluate(_ ctx: EvaluationContext) throws(EvaluationError) -> ExpressionValue {
        if labels.count == 1 { return try outputs[0].evaluate(ctx) }
        let v = try evalNumber(input, ctx)
        if v <= labels[0] { return try outputs[0].evaluate(ctx) }
        let last = labels.count - 1
        if v >= labels[last] { return try outputs[last].evaluate(ctx) }
        let index = try stopIndex(labels, v)
        let t = interpolation.factor(v, labels[index], labels[index + 1])
        let lower = try outputs[index].evaluate(ctx)
        let upper = try outputs[index + 1].evaluate(ctx)
        let space: Color.Space = op == "interpolate-hcl" ? .hcl : op == "interpolate-lab" ? .lab : .rgb
        return try InterpolateNode.mix(lower, upper, t, type: type, space: space)
    }

    static func mix(
        _ a: ExpressionValue, _ b: ExpressionValue, _ t: Double, type: ExpressionType, space: Color.Space
    ) throws(EvaluationError) -> ExpressionValue {
        func number(_ x: Double, _ y: Double) -> Double { x + t * (y - x) }
        func numbers(_ x: [Double], _ y: [Double]) throws(EvaluationError) -> [Double] {
            guard x.count == y.count else {
                throw EvaluationError("Cannot interpolate values of different length. from: \(x.count), to: \(y.count)")
            }
            return zip(x, y).map { number($0, $1) }
        }
        switch (a, b) {
        case let (.number(x), .number(y)): return .number(number(x, y))
        case let (.color(x), .color(y)): return .color(Color.interpolate(x, y, t, space: space))
        case let (.padding(x), .padding(y)): return .padding(try numbers(x, y))
        case let (.numberArray(x), .numberArray(y)): return .numberArray(try numbers(x, y))
        case let (.colorArray(x), .colorArray(y)):
            guard x.count == y.count else {
                throw EvaluationError("Cannot interpolate values of different length. from: \(x.count), to: \(y.count)")
            }
            return .colorArray(zip(x, y).map { Color.interpolate($0, $1, t, space: space) })
        case let (.variableAnchorOffsetCollection(x), .variableAnchorOffsetCollection(y)):
            guard x.count == y.count else {
                throw EvaluationError(
                    "Cannot interpolate values of different length. from: \(JSNumber.stringify(a)), to: "
                        + "\(JSNumber.stringify(b))"
                )
            }
            var out: [ExpressionValue] = []
            for k in stride(from: 0, to: x.count, by: 2) {
                guard x[k].strictlyEquals(y[k]) else {
                    throw EvaluationError(
                        "Cannot interpolate values containing mismatched anchors. from[\(k)]: \(x[k].text), "
                            + "to[\(k)]: \(y[k].text)"
                    )
                }
                out.append(x[k])
                guard case .array(let ox) = x[k + 1], case .array(let oy) = y[k + 1] else { continue }
                out.append(.array(zip(ox, oy).map { .number(number($0.numberValue ?? 0, $1.numberValue ?? 0)) }))
            }
            return .variableAnchorOffsetCollection(out)
        case let (.array(x), .array(y)):
            guard x.count == y.count else {
                throw EvaluationError("Cannot interpolate values of different length. from: \(x.count), to: \(y.count)")
            }
            return .array(zip(x, y).map { .number(number($0.numberValue ?? .nan, $1.numberValue ?? .nan)) })
        case let (.string(x), .string(y)) where type == .projectionDefinition:
            return .projectionTransition(from: x, to: y, transition: t)
        default:
            throw EvaluationError("Cannot interpolate \(a.type) and \(b.type).")
        }
    }
}
