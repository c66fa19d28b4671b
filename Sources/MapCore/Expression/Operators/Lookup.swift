// Expression: lookups in arrays and strings (`at`, `in`, `index-of`, `slice`, `length`).

import Glibc

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
        guard case .array(let items) = try input.evaluate(ctx) else {
            throw EvaluationError("Expected value to be of type array.")
        }
        if i < 0 { throw EvaluationError("Array index out of bounds: \(JSNumber.format(i)) < 0.") }
        if !(i < Double(items.count)) {
            throw EvaluationError("Array index out of bounds: \(JSNumber.format(i)) > \(items.count - 1).")
        }
        if i != i.rounded(.down) {
            throw EvaluationError("Array index must be an integer, but found \(JSNumber.format(i)) instead.")
        }
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
            return ctx.error(
                "Expected first argument to be of type boolean, string, number or null, but found \(needle.type) "
                    + "instead"
            )
        }
        guard ["string", "array", "value"].contains(haystack.type.kind) else {
            return ctx.error(
                "Expected second argument to be of type array or string, but found \(haystack.type) instead")
        }
        return InNode(needle: needle, haystack: haystack)
    }

    override func evaluate(_ ctx: EvaluationContext) throws(EvaluationError) -> ExpressionValue {
        let n = try needle.evaluate(ctx)
        let h = try haystack.evaluate(ctx)
        if !h.isTruthy { return .boolean(false) }
        guard isPrimitiveNeedle(n) else {
            throw EvaluationError(
                "Expected first argument to be of type boolean, string, number or null, but found \(n.type) instead.")
        }
        switch h {
        case .string(let s): return .boolean(utf16Index(of: jsString(n), in: s) != nil)
        case .array(let items): return .boolean(items.contains { $0.strictlyEquals(n) })
        default:
            throw EvaluationError(
                "Expected second argument to be of type array or string, but found \(h.type) instead.")
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
        guard items.count == 3 || items.count == 4 else {
            return ctx.error("Expected 3 or 4 arguments, but found \(items.count - 1) instead.")
        }
        let needle = ctx.parse(items[1], 1, .value)
        let haystack = ctx.parse(items[2], 2, .value)
        guard let needle, let haystack else { return nil }
        guard ["boolean", "string", "number", "null", "value"].contains(needle.type.kind) else {
            return ctx.error(
                "Expected first argument to be of type boolean, string, number or null, but found \(needle.type) "
                    + "instead"
            )
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
            throw EvaluationError(
                "Expected first argument to be of type boolean, string, number or null, but found \(n.type) instead.")
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
            throw EvaluationError(
                "Expected second argument to be of type array or string, but found \(h.type) instead.")
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
        guard items.count == 3 || items.count == 4 else {
            return ctx.error("Expected 3 or 4 arguments, but found \(items.count - 1) instead.")
        }
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
            let lo = sliceBound(b, count: scalars.count),
                hi = e.map { sliceBound($0, count: scalars.count) } ?? scalars.count
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
