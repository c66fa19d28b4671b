// Expression: decisions (`case`, `match`, `coalesce`, comparisons).

import Glibc

final class CaseNode: ExprNode, @unchecked Sendable {
    let branches: [(ExprNode, ExprNode)]
    let otherwise: ExprNode
    init(type: ExpressionType, branches: [(ExprNode, ExprNode)], otherwise: ExprNode) {
        self.branches = branches
        self.otherwise = otherwise
        super.init(type: type)
    }
    override var children: [ExprNode] { branches.flatMap { [$0.0, $0.1] } + [otherwise] }
    override func serialize() -> JSONValue { .array([.string("case")] + children.map { $0.serialize() }) }

    static func parse(_ items: [JSONValue], _ ctx: ParsingContext) -> ExprNode? {
        guard items.count >= 4 else {
            return ctx.error("Expected at least 3 arguments, but found only \(items.count - 1).")
        }
        guard items.count % 2 == 0 else { return ctx.error("Expected an odd number of arguments.") }
        var outputType: ExpressionType? = ctx.expectedType.flatMap { $0 == .value ? nil : $0 }
        var branches: [(ExprNode, ExprNode)] = []
        var i = 1
        while i < items.count - 1 {
            let test = ctx.parse(items[i], i, .boolean)
            let result = ctx.parse(items[i + 1], i + 1, outputType)
            guard let test, let result else { return nil }
            branches.append((test, result))
            outputType = outputType ?? result.type
            i += 2
        }
        guard let otherwise = ctx.parse(items[items.count - 1], items.count - 1, outputType) else { return nil }
        return CaseNode(type: outputType ?? otherwise.type, branches: branches, otherwise: otherwise)
    }

    override func evaluate(_ ctx: EvaluationContext) throws(EvaluationError) -> ExpressionValue {
        for (test, result) in branches where try evalBool(test, ctx) { return try result.evaluate(ctx) }
        return try otherwise.evaluate(ctx)
    }
}

final class MatchNode: ExprNode, @unchecked Sendable {
    let inputType: ExpressionType
    let input: ExprNode
    /// Label → output index; numeric labels keyed by their integer value.
    let numberCases: [Double: Int]
    let stringCases: [String: Int]
    let labelsInOrder: [(JSONValue, Int)]
    let outputs: [ExprNode]
    let otherwise: ExprNode

    init(
        inputType: ExpressionType, outputType: ExpressionType, input: ExprNode, labels: [(JSONValue, Int)],
        outputs: [ExprNode], otherwise: ExprNode
    ) {
        self.inputType = inputType
        self.input = input
        var numbers: [Double: Int] = [:], strings: [String: Int] = [:]
        for (label, index) in labels {
            switch label {
            case .string(let s): strings[s] = index
            default: if let d = label.doubleValue { numbers[d] = index }
            }
        }
        numberCases = numbers
        stringCases = strings
        labelsInOrder = labels
        self.outputs = outputs
        self.otherwise = otherwise
        super.init(type: outputType)
    }

    override var children: [ExprNode] { [input] + outputs + [otherwise] }

    override func serialize() -> JSONValue {
        var out: [JSONValue] = [.string("match"), input.serialize()]
        for (k, output) in outputs.enumerated() {
            let labels = labelsInOrder.filter { $0.1 == k }.map(\.0)
            out.append(labels.count == 1 ? labels[0] : .array(labels))
            out.append(output.serialize())
        }
        out.append(otherwise.serialize())
        return .array(out)
    }

    static func parse(_ items: [JSONValue], _ ctx: ParsingContext) -> ExprNode? {
        guard items.count >= 5 else {
            return ctx.error("Expected at least 4 arguments, but found only \(items.count - 1).")
        }
        guard items.count % 2 == 1 else { return ctx.error("Expected an even number of arguments.") }
        var inputType: ExpressionType?
        var outputType: ExpressionType? = ctx.expectedType.flatMap { $0 == .value ? nil : $0 }
        var labels: [(JSONValue, Int)] = []
        var seenStrings = Set<String>(), seenNumbers = Set<Double>()
        var outputs: [ExprNode] = []
        var i = 2
        while i < items.count - 1 {
            var branchLabels: [JSONValue]
            if case .array(let a) = items[i] { branchLabels = a } else { branchLabels = [items[i]] }
            let labelCtx = ctx.concat(i)
            guard !branchLabels.isEmpty else { return labelCtx.error("Expected at least one branch label.") }
            for label in branchLabels {
                let labelType: ExpressionType
                switch label {
                case .string(let s):
                    labelType = .string
                    if let t = inputType, labelCtx.checkSubtype(t, labelType) != nil { return nil }
                    guard seenStrings.insert(s).inserted else { return labelCtx.error("Branch labels must be unique.") }
                case .int, .uint, .double:
                    let d = label.doubleValue ?? 0
                    if abs(d) > 9007199254740991 {
                        return labelCtx.error("Branch labels must be integers no larger than 9007199254740991.")
                    }
                    if d != d.rounded(.down) { return labelCtx.error("Numeric branch labels must be integer values.") }
                    labelType = .number
                    if let t = inputType, labelCtx.checkSubtype(t, labelType) != nil { return nil }
                    guard seenNumbers.insert(d).inserted else { return labelCtx.error("Branch labels must be unique.") }
                default:
                    return labelCtx.error("Branch labels must be numbers or strings.")
                }
                if inputType == nil { inputType = labelType }
                labels.append((label, outputs.count))
            }
            guard let result = ctx.parse(items[i + 1], i + 1, outputType) else { return nil }
            outputType = outputType ?? result.type
            outputs.append(result)
            i += 2
        }
        guard let input = ctx.parse(items[1], 1, .value) else { return nil }
        guard let otherwise = ctx.parse(items[items.count - 1], items.count - 1, outputType) else { return nil }
        let labelType = inputType ?? .value
        if input.type != .value && ctx.concat(1).checkSubtype(labelType, input.type) != nil { return nil }
        return MatchNode(
            inputType: labelType, outputType: outputType ?? otherwise.type, input: input, labels: labels,
            outputs: outputs, otherwise: otherwise)
    }

    override func evaluate(_ ctx: EvaluationContext) throws(EvaluationError) -> ExpressionValue {
        let v = try input.evaluate(ctx)
        var index: Int?
        switch (v, inputType) {
        case (.string(let s), .string): index = stringCases[s]
        case (.number(let d), .number): index = numberCases[d]
        default: break
        }
        guard let index else { return try otherwise.evaluate(ctx) }
        return try outputs[index].evaluate(ctx)
    }
}

final class CoalesceNode: ExprNode, @unchecked Sendable {
    let args: [ExprNode]
    init(type: ExpressionType, args: [ExprNode]) {
        self.args = args
        super.init(type: type)
    }
    override var children: [ExprNode] { args }
    override func serialize() -> JSONValue { .array([.string("coalesce")] + args.map { $0.serialize() }) }

    static func parse(_ items: [JSONValue], _ ctx: ParsingContext) -> ExprNode? {
        guard items.count >= 2 else { return ctx.error("Expected at least one argument.") }
        let expected = ctx.expectedType
        var outputType: ExpressionType? = expected.flatMap { $0 == .value ? nil : $0 }
        var parsed: [ExprNode] = []
        for i in 1..<items.count {
            guard let p = ctx.parse(items[i], i, outputType, annotation: .omit) else { return nil }
            outputType = outputType ?? p.type
            parsed.append(p)
        }
        // Arguments were parsed without inferred annotations so that null falls through; if one
        // would have needed one, the annotation goes around the whole coalesce instead.
        if let expected, parsed.contains(where: { expected.subtypeError($0.type) != nil }) {
            return CoalesceNode(type: .value, args: parsed)
        }
        return CoalesceNode(type: outputType ?? .value, args: parsed)
    }

    override func evaluate(_ ctx: EvaluationContext) throws(EvaluationError) -> ExpressionValue {
        var requestedImage: String?
        for (k, arg) in args.enumerated() {
            var result = try arg.evaluate(ctx)
            if case .resolvedImage(let image) = result, !image.available {
                if requestedImage == nil { requestedImage = image.name }
                result = .null
                if k == args.count - 1, let requestedImage { result = .string(requestedImage) }
            }
            if !result.isNull { return result }
        }
        return .null
    }
}

final class ComparisonNode: ExprNode, @unchecked Sendable {
    let op: String
    let lhs: ExprNode, rhs: ExprNode, collator: ExprNode?
    let hasUntypedArgument: Bool
    init(op: String, lhs: ExprNode, rhs: ExprNode, collator: ExprNode?) {
        self.op = op
        self.lhs = lhs
        self.rhs = rhs
        self.collator = collator
        hasUntypedArgument = lhs.type == .value || rhs.type == .value
        super.init(type: .boolean)
    }
    override var children: [ExprNode] { [lhs, rhs] + (collator.map { [$0] } ?? []) }
    override func serialize() -> JSONValue { .array([.string(op)] + children.map { $0.serialize() }) }

    private var isOrder: Bool { op != "==" && op != "!=" }

    private static func comparable(_ op: String, _ t: ExpressionType) -> Bool {
        if op == "==" || op == "!=" { return ["boolean", "string", "number", "null", "value"].contains(t.kind) }
        return ["string", "number", "value"].contains(t.kind)
    }

    static func parse(_ items: [JSONValue], _ ctx: ParsingContext) -> ExprNode? {
        guard case .string(let op) = items[0] else { return nil }
        guard items.count == 3 || items.count == 4 else { return ctx.error("Expected two or three arguments.") }
        guard var lhs = ctx.parse(items[1], 1, .value) else { return nil }
        guard comparable(op, lhs.type) else {
            return ctx.concat(1).error("\"\(op)\" comparisons are not supported for type '\(lhs.type)'.")
        }
        guard var rhs = ctx.parse(items[2], 2, .value) else { return nil }
        guard comparable(op, rhs.type) else {
            return ctx.concat(2).error("\"\(op)\" comparisons are not supported for type '\(rhs.type)'.")
        }
        if lhs.type.kind != rhs.type.kind && lhs.type != .value && rhs.type != .value {
            return ctx.error("Cannot compare types '\(lhs.type)' and '\(rhs.type)'.")
        }
        if op != "==" && op != "!=" {
            if lhs.type == .value && rhs.type != .value {
                lhs = AssertionNode(type: rhs.type, args: [lhs])
            } else if lhs.type != .value && rhs.type == .value {
                rhs = AssertionNode(type: lhs.type, args: [rhs])
            }
        }
        var collator: ExprNode?
        if items.count == 4 {
            let kinds = [lhs.type.kind, rhs.type.kind]
            if !kinds.contains("string") && !kinds.contains("value") {
                return ctx.error("Cannot use collator to compare non-string types.")
            }
            guard let c = ctx.parse(items[3], 3, .collator) else { return nil }
            collator = c
        }
        return ComparisonNode(op: op, lhs: lhs, rhs: rhs, collator: collator)
    }

    override func evaluate(_ ctx: EvaluationContext) throws(EvaluationError) -> ExpressionValue {
        let a = try lhs.evaluate(ctx)
        let b = try rhs.evaluate(ctx)
        if isOrder && hasUntypedArgument {
            let ta = a.type, tb = b.type
            guard ta.kind == tb.kind, ta == .string || ta == .number else {
                throw EvaluationError(
                    "Expected arguments for \"\(op)\" to be (string, string) or (number, number), but found "
                        + "(\(ta.kind), \(tb.kind)) instead."
                )
            }
        }
        if let collator {
            var useCollator = true
            if !isOrder && hasUntypedArgument {
                if case .string = a, case .string = b {} else { useCollator = false }
            }
            if useCollator {
                guard case .collator(let c) = try collator.evaluate(ctx) else {
                    throw EvaluationError("Expected a collator.")
                }
                guard case .string(let x) = a, case .string(let y) = b else {
                    throw EvaluationError("Expected arguments for \"\(op)\" to be strings.")
                }
                let r = c.compare(x, y)
                switch op {
                case "==": return .boolean(r == 0)
                case "!=": return .boolean(r != 0)
                case "<": return .boolean(r < 0)
                case ">": return .boolean(r > 0)
                case "<=": return .boolean(r <= 0)
                default: return .boolean(r >= 0)
                }
            }
        }
        switch op {
        case "==": return .boolean(a.strictlyEquals(b))
        case "!=": return .boolean(!a.strictlyEquals(b))
        case "<": return .boolean(jsLess(a, b))
        case ">": return .boolean(jsLess(b, a))
        case "<=": return .boolean(jsLessOrEqual(a, b))
        default: return .boolean(jsLessOrEqual(b, a))
        }
    }
}

/// JavaScript `<=` on same-typed primitives (false when either number is NaN).
func jsLessOrEqual(_ a: ExpressionValue, _ b: ExpressionValue) -> Bool {
    switch (a, b) {
    case let (.number(x), .number(y)): return x <= y
    case let (.string(x), .string(y)): return !y.utf16.lexicographicallyPrecedes(x.utf16)
    default: return false
    }
}
