// Expression: operators with their own parsing rules — bindings, lookup, decisions, ramps,
// comparisons, collators, formatted text, images, number formatting, global state.

import Glibc

// MARK: bindings

final class LetNode: ExprNode, @unchecked Sendable {
    let bindings: [(String, ExprNode)]
    let result: ExprNode
    init(bindings: [(String, ExprNode)], result: ExprNode) {
        self.bindings = bindings
        self.result = result
        super.init(type: result.type)
    }
    override var children: [ExprNode] { bindings.map(\.1) + [result] }
    override func evaluate(_ ctx: EvaluationContext) throws(EvaluationError) -> ExpressionValue { try result.evaluate(ctx) }
    override func serialize() -> JSONValue {
        var out: [JSONValue] = [.string("let")]
        for (name, e) in bindings { out.append(.string(name)); out.append(e.serialize()) }
        out.append(result.serialize())
        return .array(out)
    }

    static func parse(_ items: [JSONValue], _ ctx: ParsingContext) -> ExprNode? {
        guard items.count >= 4 else { return ctx.error("Expected at least 3 arguments, but found \(items.count - 1) instead.") }
        var bindings: [(String, ExprNode)] = []
        var i = 1
        while i < items.count - 1 {
            guard case .string(let name) = items[i] else {
                return ctx.error("Expected string, but found \(jsTypeName(items[i])) instead.", i)
            }
            guard !name.isEmpty, name.unicodeScalars.allSatisfy({ ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) || $0 == "_" }) else {
                return ctx.error("Variable names must contain only alphanumeric characters or '_'.", i)
            }
            guard let value = ctx.parse(items[i + 1], i + 1) else { return nil }
            bindings.append((name, value))
            i += 2
        }
        guard let result = ctx.parse(items[items.count - 1], items.count - 1, ctx.expectedType, bindings: bindings) else { return nil }
        return LetNode(bindings: bindings, result: result)
    }
}

final class VarNode: ExprNode, @unchecked Sendable {
    let name: String
    let bound: ExprNode
    init(name: String, bound: ExprNode) {
        self.name = name
        self.bound = bound
        super.init(type: bound.type)
    }
    override func evaluate(_ ctx: EvaluationContext) throws(EvaluationError) -> ExpressionValue { try bound.evaluate(ctx) }
    override func serialize() -> JSONValue { .array([.string("var"), .string(name)]) }

    static func parse(_ items: [JSONValue], _ ctx: ParsingContext) -> ExprNode? {
        guard items.count == 2, case .string(let name) = items[1] else {
            return ctx.error("'var' expression requires exactly one string literal argument.")
        }
        guard let bound = ctx.scope.get(name) else {
            return ctx.error("Unknown variable \"\(name)\". Make sure \"\(name)\" has been bound in an enclosing \"let\" expression before using it.", 1)
        }
        return VarNode(name: name, bound: bound)
    }
}

/// `["semiliteral", [..]]`: an array or object literal whose members may be expressions.
final class SemiliteralNode: ExprNode, @unchecked Sendable {
    let items: [ExprNode]
    let keys: [String]?  // object members' names; nil for an array
    init(type: ExpressionType, items: [ExprNode], keys: [String]?) {
        self.items = items
        self.keys = keys
        super.init(type: type)
    }
    override var children: [ExprNode] { items }
    override func evaluate(_ ctx: EvaluationContext) throws(EvaluationError) -> ExpressionValue {
        var values: [ExpressionValue] = []
        values.reserveCapacity(items.count)
        for item in items { values.append(try item.evaluate(ctx)) }
        guard let keys else { return .array(values) }
        return .object(ValueObject(Array(zip(keys, values))))
    }
    override func serialize() -> JSONValue {
        if let keys {
            return .array([.string("semiliteral"), .object(JSONObject(Array(zip(keys, items.map { $0.serialize() }))))])
        }
        return .array([.string("semiliteral"), .array(items.map { $0.serialize() })])
    }

    static func parse(_ items: [JSONValue], _ ctx: ParsingContext) -> ExprNode? {
        guard items.count == 2 else {
            return ctx.error("'semiliteral' expression requires exactly one argument, but found \(items.count - 1) instead.")
        }
        switch items[1] {
        case .array(let members):
            var parsed: [ExprNode] = []
            var itemType: ExpressionType?
            for m in members {
                guard let p = ctx.concat(nil, .value).parseHere(m) else { return nil }
                if let t = itemType, !(t == p.type && !t.isArray) { itemType = .value } else if itemType == nil { itemType = p.type }
                parsed.append(p)
            }
            return SemiliteralNode(type: .array(itemType ?? .value, members.count), items: parsed, keys: nil)
        case .object(let o):
            var parsed: [ExprNode] = []
            for m in o.members {
                guard let p = ctx.concat(nil, .value).parseHere(m.value) else { return nil }
                parsed.append(p)
            }
            return SemiliteralNode(type: .object, items: parsed, keys: o.keys)
        default:
            let v = ExpressionValue(json: items[1])
            return LiteralNode(type: v.type, value: v)
        }
    }
}

final class GlobalStateNode: ExprNode, @unchecked Sendable {
    let key: String
    init(key: String) {
        self.key = key
        super.init(type: .value)
    }
    override func evaluate(_ ctx: EvaluationContext) throws(EvaluationError) -> ExpressionValue {
        ctx.globalState?[key].map(ExpressionValue.init(json:)) ?? .null
    }
    override func serialize() -> JSONValue { .array([.string("global-state"), .string(key)]) }

    static func parse(_ items: [JSONValue], _ ctx: ParsingContext) -> ExprNode? {
        guard items.count == 2 else { return ctx.error("Expected 1 argument, but found \(items.count - 1) instead.") }
        guard case .string(let key) = items[1] else { return ctx.error("Global state property must be a string, but found \(jsTypeName(items[1])) instead.", 1) }
        return GlobalStateNode(key: key)
    }
}

// MARK: lookup

private func isPrimitiveNeedle(_ v: ExpressionValue) -> Bool {
    switch v {
    case .null, .boolean, .string, .number: return true
    default: return false
    }
}

/// JavaScript `String(v)` for the primitives `in`/`index-of` search strings with.
private func jsString(_ v: ExpressionValue) -> String {
    if case .null = v { return "null" }
    return v.text
}

/// UTF-16 search, as JavaScript's `indexOf` on strings.
private func utf16Index(of needle: String, in haystack: String, from: Int = 0) -> Int? {
    let h = Array(haystack.utf16), n = Array(needle.utf16)
    let start = max(0, min(from, h.count))
    if n.isEmpty { return start }
    guard h.count >= n.count else { return nil }
    var i = start
    while i + n.count <= h.count {
        if h[i..<(i + n.count)].elementsEqual(n) { return i }
        i += 1
    }
    return nil
}

/// ToIntegerOrInfinity then clamping, as `Array.prototype.slice` treats its bounds.
private func sliceBound(_ d: Double, count: Int) -> Int {
    if d.isNaN { return 0 }
    let t = d.rounded(.towardZero)
    if t < 0 { return max(0, count + Int(max(t, -Double(count) - 1))) }
    return Int(min(t, Double(count)))
}

final class AtNode: ExprNode, @unchecked Sendable {
    let index: ExprNode, input: ExprNode
    init(type: ExpressionType, index: ExprNode, input: ExprNode) {
        self.index = index
        self.input = input
        super.init(type: type)
    }
    override var children: [ExprNode] { [index, input] }
    override func serialize() -> JSONValue { .array([.string("at"), index.serialize(), input.serialize()]) }

    static func parse(_ items: [JSONValue], _ ctx: ParsingContext) -> ExprNode? {
        guard items.count == 3 else { return ctx.error("Expected 2 arguments, but found \(items.count - 1) instead.") }
        let index = ctx.parse(items[1], 1, .number)
        let input = ctx.parse(items[2], 2, .array(ctx.expectedType ?? .value, nil))
        guard let index, let input else { return nil }
        guard case .array(let itemType, _) = input.type else { return ctx.error("Expected an array.") }
        return AtNode(type: itemType, index: index, input: input)
    }

    override func evaluate(_ ctx: EvaluationContext) throws(EvaluationError) -> ExpressionValue {
        let i = try evalNumber(index, ctx)
        guard case .array(let items) = try input.evaluate(ctx) else { throw EvaluationError("Expected value to be of type array.") }
        if i < 0 { throw EvaluationError("Array index out of bounds: \(JSNumber.format(i)) < 0.") }
        if !(i < Double(items.count)) { throw EvaluationError("Array index out of bounds: \(JSNumber.format(i)) > \(items.count - 1).") }
        if i != i.rounded(.down) { throw EvaluationError("Array index must be an integer, but found \(JSNumber.format(i)) instead.") }
        return items[Int(i)]
    }
}

final class InNode: ExprNode, @unchecked Sendable {
    let needle: ExprNode, haystack: ExprNode
    init(needle: ExprNode, haystack: ExprNode) {
        self.needle = needle
        self.haystack = haystack
        super.init(type: .boolean)
    }
    override var children: [ExprNode] { [needle, haystack] }
    override func serialize() -> JSONValue { .array([.string("in"), needle.serialize(), haystack.serialize()]) }

    static func parse(_ items: [JSONValue], _ ctx: ParsingContext) -> ExprNode? {
        guard items.count == 3 else { return ctx.error("Expected 2 arguments, but found \(items.count - 1) instead.") }
        let needle = ctx.parse(items[1], 1, .value)
        let haystack = ctx.parse(items[2], 2, .value)
        guard let needle, let haystack else { return nil }
        guard ["boolean", "string", "number", "null", "value"].contains(needle.type.kind) else {
            return ctx.error("Expected first argument to be of type boolean, string, number or null, but found \(needle.type) instead")
        }
        guard ["string", "array", "value"].contains(haystack.type.kind) else {
            return ctx.error("Expected second argument to be of type array or string, but found \(haystack.type) instead")
        }
        return InNode(needle: needle, haystack: haystack)
    }

    override func evaluate(_ ctx: EvaluationContext) throws(EvaluationError) -> ExpressionValue {
        let n = try needle.evaluate(ctx)
        let h = try haystack.evaluate(ctx)
        if !h.isTruthy { return .boolean(false) }
        guard isPrimitiveNeedle(n) else {
            throw EvaluationError("Expected first argument to be of type boolean, string, number or null, but found \(n.type) instead.")
        }
        switch h {
        case .string(let s): return .boolean(utf16Index(of: jsString(n), in: s) != nil)
        case .array(let items): return .boolean(items.contains { $0.strictlyEquals(n) })
        default: throw EvaluationError("Expected second argument to be of type array or string, but found \(h.type) instead.")
        }
    }
}

final class IndexOfNode: ExprNode, @unchecked Sendable {
    let needle: ExprNode, haystack: ExprNode, fromIndex: ExprNode?
    init(needle: ExprNode, haystack: ExprNode, fromIndex: ExprNode?) {
        self.needle = needle
        self.haystack = haystack
        self.fromIndex = fromIndex
        super.init(type: .number)
    }
    override var children: [ExprNode] { [needle, haystack] + (fromIndex.map { [$0] } ?? []) }
    override func serialize() -> JSONValue { .array([.string("index-of")] + children.map { $0.serialize() }) }

    static func parse(_ items: [JSONValue], _ ctx: ParsingContext) -> ExprNode? {
        guard items.count == 3 || items.count == 4 else { return ctx.error("Expected 3 or 4 arguments, but found \(items.count - 1) instead.") }
        let needle = ctx.parse(items[1], 1, .value)
        let haystack = ctx.parse(items[2], 2, .value)
        guard let needle, let haystack else { return nil }
        guard ["boolean", "string", "number", "null", "value"].contains(needle.type.kind) else {
            return ctx.error("Expected first argument to be of type boolean, string, number or null, but found \(needle.type) instead")
        }
        var from: ExprNode?
        if items.count == 4 {
            guard let f = ctx.parse(items[3], 3, .number) else { return nil }
            from = f
        }
        return IndexOfNode(needle: needle, haystack: haystack, fromIndex: from)
    }

    override func evaluate(_ ctx: EvaluationContext) throws(EvaluationError) -> ExpressionValue {
        let n = try needle.evaluate(ctx)
        let h = try haystack.evaluate(ctx)
        guard isPrimitiveNeedle(n) else {
            throw EvaluationError("Expected first argument to be of type boolean, string, number or null, but found \(n.type) instead.")
        }
        var from = 0
        if let fromIndex {
            let f = try evalNumber(fromIndex, ctx)
            from = f.isNaN ? 0 : Int(max(min(f.rounded(.towardZero), 1e15), -1e15))
        }
        switch h {
        case .string(let s):
            // Strings clamp a negative start to 0 (arrays count it from the end).
            let start = max(0, from)
            guard let raw = utf16Index(of: jsString(n), in: s, from: start) else { return .number(-1) }
            // Report the position in code points, not UTF-16 units.
            let prefix = String(decoding: Array(s.utf16)[0..<raw], as: UTF16.self)
            return .number(Double(prefix.unicodeScalars.count))
        case .array(let items):
            let start = from < 0 ? max(0, items.count + from) : from
            guard start < items.count else { return .number(-1) }
            for i in start..<items.count where items[i].strictlyEquals(n) { return .number(Double(i)) }
            return .number(-1)
        default:
            throw EvaluationError("Expected second argument to be of type array or string, but found \(h.type) instead.")
        }
    }
}

final class SliceNode: ExprNode, @unchecked Sendable {
    let input: ExprNode, begin: ExprNode, end: ExprNode?
    init(type: ExpressionType, input: ExprNode, begin: ExprNode, end: ExprNode?) {
        self.input = input
        self.begin = begin
        self.end = end
        super.init(type: type)
    }
    override var children: [ExprNode] { [input, begin] + (end.map { [$0] } ?? []) }
    override func serialize() -> JSONValue { .array([.string("slice")] + children.map { $0.serialize() }) }

    static func parse(_ items: [JSONValue], _ ctx: ParsingContext) -> ExprNode? {
        guard items.count == 3 || items.count == 4 else { return ctx.error("Expected 3 or 4 arguments, but found \(items.count - 1) instead.") }
        let input = ctx.parse(items[1], 1, .value)
        let begin = ctx.parse(items[2], 2, .number)
        guard let input, let begin else { return nil }
        guard ["array", "string", "value"].contains(input.type.kind) else {
            return ctx.error("Expected first argument to be of type array or string, but found \(input.type) instead")
        }
        var end: ExprNode?
        if items.count == 4 {
            guard let e = ctx.parse(items[3], 3, .number) else { return nil }
            end = e
        }
        return SliceNode(type: input.type, input: input, begin: begin, end: end)
    }

    override func evaluate(_ ctx: EvaluationContext) throws(EvaluationError) -> ExpressionValue {
        let v = try input.evaluate(ctx)
        let b = try evalNumber(begin, ctx)
        let e = try end.map { (n) throws(EvaluationError) -> Double in try evalNumber(n, ctx) }
        switch v {
        case .string(let s):
            let scalars = Array(s.unicodeScalars)
            let lo = sliceBound(b, count: scalars.count), hi = e.map { sliceBound($0, count: scalars.count) } ?? scalars.count
            var out = String.UnicodeScalarView()
            if lo < hi { out.append(contentsOf: scalars[lo..<hi]) }
            return .string(String(out))
        case .array(let items):
            let lo = sliceBound(b, count: items.count), hi = e.map { sliceBound($0, count: items.count) } ?? items.count
            return .array(lo < hi ? Array(items[lo..<hi]) : [])
        default:
            throw EvaluationError("Expected first argument to be of type array or string, but found \(v.type) instead.")
        }
    }
}

final class LengthNode: ExprNode, @unchecked Sendable {
    let input: ExprNode
    init(input: ExprNode) {
        self.input = input
        super.init(type: .number)
    }
    override var children: [ExprNode] { [input] }
    override func serialize() -> JSONValue { .array([.string("length"), input.serialize()]) }

    static func parse(_ items: [JSONValue], _ ctx: ParsingContext) -> ExprNode? {
        guard items.count == 2 else { return ctx.error("Expected 1 argument, but found \(items.count - 1) instead.") }
        guard let input = ctx.parse(items[1], 1) else { return nil }
        guard ["array", "string", "value"].contains(input.type.kind) else {
            return ctx.error("Expected argument of type string or array, but found \(input.type) instead.")
        }
        return LengthNode(input: input)
    }

    override func evaluate(_ ctx: EvaluationContext) throws(EvaluationError) -> ExpressionValue {
        let v = try input.evaluate(ctx)
        switch v {
        case .string(let s): return .number(Double(s.unicodeScalars.count))
        case .array(let a): return .number(Double(a.count))
        default: throw EvaluationError("Expected value to be of type string or array, but found \(v.type) instead.")
        }
    }
}

// MARK: decisions

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
        guard items.count >= 4 else { return ctx.error("Expected at least 3 arguments, but found only \(items.count - 1).") }
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

    init(inputType: ExpressionType, outputType: ExpressionType, input: ExprNode, labels: [(JSONValue, Int)],
         outputs: [ExprNode], otherwise: ExprNode) {
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
        guard items.count >= 5 else { return ctx.error("Expected at least 4 arguments, but found only \(items.count - 1).") }
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
        return MatchNode(inputType: labelType, outputType: outputType ?? otherwise.type, input: input, labels: labels,
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
        guard comparable(op, lhs.type) else { return ctx.concat(1).error("\"\(op)\" comparisons are not supported for type '\(lhs.type)'.") }
        guard var rhs = ctx.parse(items[2], 2, .value) else { return nil }
        guard comparable(op, rhs.type) else { return ctx.concat(2).error("\"\(op)\" comparisons are not supported for type '\(rhs.type)'.") }
        if lhs.type.kind != rhs.type.kind && lhs.type != .value && rhs.type != .value {
            return ctx.error("Cannot compare types '\(lhs.type)' and '\(rhs.type)'.")
        }
        if op != "==" && op != "!=" {
            if lhs.type == .value && rhs.type != .value { lhs = AssertionNode(type: rhs.type, args: [lhs]) }
            else if lhs.type != .value && rhs.type == .value { rhs = AssertionNode(type: lhs.type, args: [rhs]) }
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
                throw EvaluationError("Expected arguments for \"\(op)\" to be (string, string) or (number, number), but found (\(ta.kind), \(tb.kind)) instead.")
            }
        }
        if let collator {
            var useCollator = true
            if !isOrder && hasUntypedArgument {
                if case .string = a, case .string = b {} else { useCollator = false }
            }
            if useCollator {
                guard case .collator(let c) = try collator.evaluate(ctx) else { throw EvaluationError("Expected a collator.") }
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

// MARK: ramps

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
        guard items.count - 1 >= 4 else { return ctx.error("Expected at least 4 arguments, but found only \(items.count - 1).") }
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
                    return ctx.error("Input/output pairs for \"step\" expressions must be defined using literal numeric values (not computed expressions) for the input values.", i)
                }
                label = l
            }
            if let last = labels.last, last >= label {
                return ctx.error("Input/output pairs for \"step\" expressions must be arranged with input values in strictly ascending order.", i)
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
        case .cubicBezier(let a, let b, let c, let d): return .array([.string("cubic-bezier"), .double(a), .double(b), .double(c), .double(d)])
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

    init(type: ExpressionType, op: String, interpolation: Interpolation, input: ExprNode, labels: [Double], outputs: [ExprNode]) {
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
                return ctx.error("Cubic bezier interpolation requires four numeric arguments with values between 0 and 1.", 1)
            }
            interpolation = .cubicBezier(cps[0], cps[1], cps[2], cps[3])
        default:
            return ctx.error("Unknown interpolation type \(name.stringValue ?? JSON.serialize(name))", 1, 0)
        }
        guard items.count - 1 >= 4 else { return ctx.error("Expected at least 4 arguments, but found only \(items.count - 1).") }
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
                return ctx.error("Input/output pairs for \"interpolate\" expressions must be defined using literal numeric values (not computed expressions) for the input values.", i)
            }
            if let last = labels.last, last >= label {
                return ctx.error("Input/output pairs for \"interpolate\" expressions must be arranged with input values in strictly ascending order.", i)
            }
            guard let parsed = ctx.parse(items[i + 1], i + 1, outputType) else { return nil }
            outputType = outputType ?? parsed.type
            labels.append(label)
            outputs.append(parsed)
            i += 2
        }
        let t = outputType ?? .value
        let interpolatable: [ExpressionType] = [.number, .projectionDefinition, .color, .padding, .numberArray, .colorArray,
                                                .variableAnchorOffsetCollection]
        // Plain arrays interpolate only when every output has the same known length.
        let fixedNumberArray: Bool = { if case .array(.number, let n) = t { return n != nil } else { return false } }()
        guard fixedNumberArray || interpolatable.contains(where: { $0.subtypeError(t) == nil }) else {
            return ctx.error("Type \(t) is not interpolatable.")
        }
        return InterpolateNode(type: t, op: op, interpolation: interpolation, input: input, labels: labels, outputs: outputs)
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

    static func mix(_ a: ExpressionValue, _ b: ExpressionValue, _ t: Double, type: ExpressionType, space: Color.Space) throws(EvaluationError) -> ExpressionValue {
        func number(_ x: Double, _ y: Double) -> Double { x + t * (y - x) }
        func numbers(_ x: [Double], _ y: [Double]) throws(EvaluationError) -> [Double] {
            guard x.count == y.count else { throw EvaluationError("Cannot interpolate values of different length. from: \(x.count), to: \(y.count)") }
            return zip(x, y).map { number($0, $1) }
        }
        switch (a, b) {
        case let (.number(x), .number(y)): return .number(number(x, y))
        case let (.color(x), .color(y)): return .color(Color.interpolate(x, y, t, space: space))
        case let (.padding(x), .padding(y)): return .padding(try numbers(x, y))
        case let (.numberArray(x), .numberArray(y)): return .numberArray(try numbers(x, y))
        case let (.colorArray(x), .colorArray(y)):
            guard x.count == y.count else { throw EvaluationError("Cannot interpolate values of different length. from: \(x.count), to: \(y.count)") }
            return .colorArray(zip(x, y).map { Color.interpolate($0, $1, t, space: space) })
        case let (.variableAnchorOffsetCollection(x), .variableAnchorOffsetCollection(y)):
            guard x.count == y.count else { throw EvaluationError("Cannot interpolate values of different length. from: \(JSNumber.stringify(a)), to: \(JSNumber.stringify(b))") }
            var out: [ExpressionValue] = []
            for k in stride(from: 0, to: x.count, by: 2) {
                guard x[k].strictlyEquals(y[k]) else {
                    throw EvaluationError("Cannot interpolate values containing mismatched anchors. from[\(k)]: \(x[k].text), to[\(k)]: \(y[k].text)")
                }
                out.append(x[k])
                guard case .array(let ox) = x[k + 1], case .array(let oy) = y[k + 1] else { continue }
                out.append(.array(zip(ox, oy).map { .number(number($0.numberValue ?? 0, $1.numberValue ?? 0)) }))
            }
            return .variableAnchorOffsetCollection(out)
        case let (.array(x), .array(y)):
            guard x.count == y.count else { throw EvaluationError("Cannot interpolate values of different length. from: \(x.count), to: \(y.count)") }
            return .array(zip(x, y).map { .number(number($0.numberValue ?? .nan, $1.numberValue ?? .nan)) })
        case let (.string(x), .string(y)) where type == .projectionDefinition:
            return .projectionTransition(from: x, to: y, transition: t)
        default:
            throw EvaluationError("Cannot interpolate \(a.type) and \(b.type).")
        }
    }
}

// MARK: collator, formatted text, images, number formatting

final class CollatorNode: ExprNode, @unchecked Sendable {
    let caseSensitive: ExprNode, diacriticSensitive: ExprNode, locale: ExprNode?
    init(caseSensitive: ExprNode, diacriticSensitive: ExprNode, locale: ExprNode?) {
        self.caseSensitive = caseSensitive
        self.diacriticSensitive = diacriticSensitive
        self.locale = locale
        super.init(type: .collator)
    }
    override var children: [ExprNode] { [caseSensitive, diacriticSensitive] + (locale.map { [$0] } ?? []) }
    override func serialize() -> JSONValue {
        var o = JSONObject()
        o["case-sensitive"] = caseSensitive.serialize()
        o["diacritic-sensitive"] = diacriticSensitive.serialize()
        if let locale { o["locale"] = locale.serialize() }
        return .array([.string("collator"), .object(o)])
    }

    static func parse(_ items: [JSONValue], _ ctx: ParsingContext) -> ExprNode? {
        guard items.count == 2 else { return ctx.error("Expected one argument.") }
        guard case .object(let options) = items[1] else { return ctx.error("Collator options argument must be an object.") }
        guard let cs = ctx.parse(options["case-sensitive"] ?? .bool(false), 1, .boolean) else { return nil }
        guard let ds = ctx.parse(options["diacritic-sensitive"] ?? .bool(false), 1, .boolean) else { return nil }
        var locale: ExprNode?
        if let l = options["locale"], l != .null, l != .bool(false), l != .string("") {
            guard let p = ctx.parse(l, 1, .string) else { return nil }
            locale = p
        }
        return CollatorNode(caseSensitive: cs, diacriticSensitive: ds, locale: locale)
    }

    override func evaluate(_ ctx: EvaluationContext) throws(EvaluationError) -> ExpressionValue {
        .collator(Collator(caseSensitive: try evalBool(caseSensitive, ctx), diacriticSensitive: try evalBool(diacriticSensitive, ctx),
                           locale: try locale.map { (n) throws(EvaluationError) -> String in try evalString(n, ctx) }))
    }
}

final class FormatNode: ExprNode, @unchecked Sendable {
    struct Section {
        var content: ExprNode
        var scale: ExprNode?
        var font: ExprNode?
        var textColor: ExprNode?
        var verticalAlign: ExprNode?
    }
    let sections: [Section]
    init(sections: [Section]) {
        self.sections = sections
        super.init(type: .formatted)
    }
    override var children: [ExprNode] {
        sections.flatMap { s in [s.content] + [s.scale, s.font, s.textColor, s.verticalAlign].compactMap { $0 } }
    }

    static let verticalAlignOptions = ["bottom", "center", "top"]

    static func parse(_ items: [JSONValue], _ ctx: ParsingContext) -> ExprNode? {
        guard items.count >= 2 else { return ctx.error("Expected at least one argument.") }
        if case .object = items[1] { return ctx.error("First argument must be an image or text section.") }
        var sections: [Section] = []
        var nextMayBeOptions = false
        for i in 1..<items.count {
            if nextMayBeOptions, case .object(let options) = items[i] {
                nextMayBeOptions = false
                var section = sections[sections.count - 1]
                if let v = options["font-scale"], v.isTruthyJSON {
                    guard let p = ctx.parse(v, 1, .number) else { return nil }
                    section.scale = p
                }
                if let v = options["text-font"], v.isTruthyJSON {
                    guard let p = ctx.parse(v, 1, .array(.string, nil)) else { return nil }
                    section.font = p
                }
                if let v = options["text-color"], v.isTruthyJSON {
                    guard let p = ctx.parse(v, 1, .color) else { return nil }
                    section.textColor = p
                }
                if let v = options["vertical-align"], v.isTruthyJSON {
                    if case .string(let s) = v, !verticalAlignOptions.contains(s) {
                        return ctx.error("'vertical-align' must be one of: 'bottom', 'center', 'top' but found '\(s)' instead.")
                    }
                    guard let p = ctx.parse(v, 1, .string) else { return nil }
                    section.verticalAlign = p
                }
                sections[sections.count - 1] = section
            } else {
                guard let content = ctx.parse(items[i], 1, .value) else { return nil }
                guard ["string", "value", "null", "resolvedImage"].contains(content.type.kind) else {
                    return ctx.error("Formatted text type must be 'string', 'value', 'image' or 'null'.")
                }
                nextMayBeOptions = true
                sections.append(Section(content: content))
            }
        }
        return FormatNode(sections: sections)
    }

    override func evaluate(_ ctx: EvaluationContext) throws(EvaluationError) -> ExpressionValue {
        var out: [Formatted.Section] = []
        for s in sections {
            let content = try s.content.evaluate(ctx)
            let align = try s.verticalAlign.map { (n) throws(EvaluationError) -> String in try evalString(n, ctx) }
            if case .resolvedImage(let image) = content {
                out.append(Formatted.Section(text: "", image: image, verticalAlign: align))
                continue
            }
            var font: String?
            if let f = s.font, case .array(let names) = try f.evaluate(ctx) { font = names.map(\.text).joined(separator: ",") }
            var color: Color?
            if let c = s.textColor, case .color(let v) = try c.evaluate(ctx) { color = v }
            out.append(Formatted.Section(text: content.text, image: nil,
                                         scale: try s.scale.map { (n) throws(EvaluationError) -> Double in try evalNumber(n, ctx) },
                                         fontStack: font, textColor: color, verticalAlign: align))
        }
        return .formatted(Formatted(sections: out))
    }

    override func serialize() -> JSONValue {
        var out: [JSONValue] = [.string("format")]
        for s in sections {
            out.append(s.content.serialize())
            var o = JSONObject()
            if let v = s.scale { o["font-scale"] = v.serialize() }
            if let v = s.font { o["text-font"] = v.serialize() }
            if let v = s.textColor { o["text-color"] = v.serialize() }
            if let v = s.verticalAlign { o["vertical-align"] = v.serialize() }
            out.append(.object(o))
        }
        return .array(out)
    }

    /// A constant formatted value as a `format` expression.
    static func serialize(_ f: Formatted) -> JSONValue {
        var out: [JSONValue] = [.string("format")]
        for s in f.sections {
            if let image = s.image { out.append(.array([.string("image"), .string(image.name)])) } else { out.append(.string(s.text)) }
            var o = JSONObject()
            if let v = s.scale { o["font-scale"] = .double(v) }
            if let v = s.fontStack { o["text-font"] = .array([.string("literal"), .array(v.split(separator: ",").map { .string(String($0)) })]) }
            if let v = s.textColor { o["text-color"] = .string(v.cssString) }
            if let v = s.verticalAlign { o["vertical-align"] = .string(v) }
            out.append(.object(o))
        }
        return .array(out)
    }
}

extension JSONValue {
    /// JavaScript truthiness of a raw JSON value (options objects test members this way).
    var isTruthyJSON: Bool {
        switch self {
        case .null: return false
        case .bool(let b): return b
        case .int(let v): return v != 0
        case .uint(let v): return v != 0
        case .double(let d): return d != 0 && !d.isNaN
        case .string(let s): return !s.isEmpty
        default: return true
        }
    }
}

final class ImageNode: ExprNode, @unchecked Sendable {
    let name: ExprNode
    init(name: ExprNode) {
        self.name = name
        super.init(type: .resolvedImage)
    }
    override var children: [ExprNode] { [name] }
    override func serialize() -> JSONValue { .array([.string("image"), name.serialize()]) }

    static func parse(_ items: [JSONValue], _ ctx: ParsingContext) -> ExprNode? {
        guard items.count == 2 else { return ctx.error("Expected two arguments.") }
        guard let name = ctx.parse(items[1], 1, .string) else { return ctx.error("No image name provided.") }
        return ImageNode(name: name)
    }

    override func evaluate(_ ctx: EvaluationContext) throws(EvaluationError) -> ExpressionValue {
        let n = try evalString(name, ctx)
        return .resolvedImage(ResolvedImage(name: n, available: ctx.availableImages.contains(n)))
    }
}

final class NumberFormatNode: ExprNode, @unchecked Sendable {
    let number: ExprNode
    let locale: ExprNode?, currency: ExprNode?, unit: ExprNode?, minFraction: ExprNode?, maxFraction: ExprNode?
    init(number: ExprNode, locale: ExprNode?, currency: ExprNode?, unit: ExprNode?, minFraction: ExprNode?, maxFraction: ExprNode?) {
        self.number = number
        self.locale = locale
        self.currency = currency
        self.unit = unit
        self.minFraction = minFraction
        self.maxFraction = maxFraction
        super.init(type: .string)
    }
    override var children: [ExprNode] { [number] + [locale, currency, unit, minFraction, maxFraction].compactMap { $0 } }
    override func serialize() -> JSONValue {
        var o = JSONObject()
        if let v = locale { o["locale"] = v.serialize() }
        if let v = currency { o["currency"] = v.serialize() }
        if let v = unit { o["unit"] = v.serialize() }
        if let v = minFraction { o["min-fraction-digits"] = v.serialize() }
        if let v = maxFraction { o["max-fraction-digits"] = v.serialize() }
        return .array([.string("number-format"), number.serialize(), .object(o)])
    }

    static func parse(_ items: [JSONValue], _ ctx: ParsingContext) -> ExprNode? {
        guard items.count == 3 else { return ctx.error("Expected two arguments.") }
        guard let number = ctx.parse(items[1], 1, .number) else { return nil }
        guard case .object(let options) = items[2] else { return ctx.error("NumberFormat options argument must be an object.") }
        func option(_ name: String, _ type: ExpressionType) -> (ok: Bool, node: ExprNode?) {
            guard let v = options[name], v.isTruthyJSON else { return (true, nil) }
            guard let p = ctx.parse(v, 1, type) else { return (false, nil) }
            return (true, p)
        }
        let locale = option("locale", .string), currency = option("currency", .string), unit = option("unit", .string)
        let minF = option("min-fraction-digits", .number), maxF = option("max-fraction-digits", .number)
        guard locale.ok, currency.ok, unit.ok, minF.ok, maxF.ok else { return nil }
        return NumberFormatNode(number: number, locale: locale.node, currency: currency.node, unit: unit.node,
                                minFraction: minF.node, maxFraction: maxF.node)
    }

    override func evaluate(_ ctx: EvaluationContext) throws(EvaluationError) -> ExpressionValue {
        func str(_ n: ExprNode?) throws(EvaluationError) -> String? { try n.map { (x) throws(EvaluationError) -> String in try evalString(x, ctx) } }
        func num(_ n: ExprNode?) throws(EvaluationError) -> Double? { try n.map { (x) throws(EvaluationError) -> Double in try evalNumber(x, ctx) } }
        let value = try evalNumber(number, ctx)
        let formatter = NumberFormatter(locale: try str(locale), currency: try str(currency), unit: try str(unit),
                                        minFraction: try num(minFraction), maxFraction: try num(maxFraction))
        return .string(try formatter.format(value))
    }
}

/// A small `Intl.NumberFormat`: grouping and decimal separators per language, currency symbols
/// for the common ISO codes, fraction digits as the options say. Without ICU, locales beyond
/// these separators format as English.
struct NumberFormatter {
    var locale: String?, currency: String?, unit: String?, minFraction: Double?, maxFraction: Double?

    private static let currencySymbols: [String: (String, Int)] = [
        "USD": ("$", 2), "EUR": ("€", 2), "JPY": ("¥", 0), "GBP": ("£", 2), "CNY": ("CN¥", 2), "INR": ("₹", 2),
        "KRW": ("₩", 0), "CAD": ("CA$", 2), "AUD": ("A$", 2), "CHF": ("CHF", 2), "BRL": ("R$", 2), "MXN": ("MX$", 2),
    ]

    func format(_ value: Double) throws(EvaluationError) -> String {
        if value.isNaN { return "NaN" }
        let lang = locale.map { String($0.lowercased().prefix(while: { $0 != "-" && $0 != "_" })) } ?? "en"
        let (group, decimal): (String, String)
        switch lang {
        case "de", "es", "it", "nl", "pt", "da", "id", "tr", "el": (group, decimal) = (".", ",")
        case "fr", "nb", "no", "sv", "fi", "cs", "pl", "ru", "uk": (group, decimal) = ("\u{202F}", ",")
        default: (group, decimal) = (",", ".")
        }
        var defaultMin = 0, defaultMax = 3
        var prefix = "", suffix = ""
        if let currency {
            let code = currency.uppercased()
            guard code.count == 3, code.allSatisfy({ $0.isASCII && $0.isLetter }) else {
                throw EvaluationError("Invalid currency code : \(currency)")
            }
            let (symbol, digits) = NumberFormatter.currencySymbols[code] ?? (code + "\u{A0}", 2)
            defaultMin = digits; defaultMax = digits
            if group == "," { prefix = symbol } else { suffix = "\u{A0}" + symbol }
        } else if let unit {
            suffix = " " + unit
        }
        func digits(_ d: Double?) -> Int? {
            guard let d else { return nil }
            guard d.isFinite else { return d == .infinity ? 20 : 0 }
            return Int(max(0, min(20, d)))
        }
        var minDigits = digits(minFraction) ?? defaultMin
        let maxDigits = digits(maxFraction) ?? max(defaultMax, minDigits)
        minDigits = min(minDigits, maxDigits)
        if value.isInfinite { return (value < 0 ? "-" : "") + prefix + "∞" + suffix }
        // Round half away from zero at maxDigits, working on the decimal digits of the value.
        let scaled = abs(value) * pow(10, Double(maxDigits))
        var digits: String
        if scaled < 9e15 {
            digits = String(UInt64(roundHalfAwayFromZero(scaled)))
        } else {
            digits = JSNumber.format(scaled.rounded())
            if digits.contains("e") { digits = JSNumber.format(abs(value)); return (value < 0 ? "-" : "") + prefix + digits + suffix }
        }
        while digits.count <= maxDigits { digits = "0" + digits }
        var integer = String(digits.dropLast(maxDigits))
        var fraction = String(digits.suffix(maxDigits))
        while fraction.count > minDigits && fraction.hasSuffix("0") { fraction.removeLast() }
        var grouped = ""
        for (k, ch) in integer.reversed().enumerated() {
            if k > 0 && k % 3 == 0 { grouped = group + grouped }
            grouped = String(ch) + grouped
        }
        integer = grouped
        let negative = value < 0 && (Double(digits) ?? 0) != 0
        return (negative ? "-" : "") + prefix + integer + (fraction.isEmpty ? "" : decimal + fraction) + suffix
    }
}
