// Expression: variables (`let`, `var`), `semiliteral` and `global-state`.

import Glibc

final class LetNode: ExprNode, @unchecked Sendable {
    let bindings: [(String, ExprNode)]
    let result: ExprNode
    init(bindings: [(String, ExprNode)], result: ExprNode) {
        self.bindings = bindings
        self.result = result
        super.init(type: result.type)
    }
    override var children: [ExprNode] { bindings.map(\.1) + [result] }
    override func evaluate(_ ctx: EvaluationContext) throws(EvaluationError) -> ExpressionValue {
        try result.evaluate(ctx)
    }
    override func serialize() -> JSONValue {
        var out: [JSONValue] = [.string("let")]
        for (name, e) in bindings { out.append(.string(name)); out.append(e.serialize()) }
        out.append(result.serialize())
        return .array(out)
    }

    static func parse(_ items: [JSONValue], _ ctx: ParsingContext) -> ExprNode? {
        guard items.count >= 4 else {
            return ctx.error("Expected at least 3 arguments, but found \(items.count - 1) instead.")
        }
        var bindings: [(String, ExprNode)] = []
        var i = 1
        while i < items.count - 1 {
            guard case .string(let name) = items[i] else {
                return ctx.error("Expected string, but found \(jsTypeName(items[i])) instead.", i)
            }
            guard !name.isEmpty,
                name.unicodeScalars.allSatisfy({
                    ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) || $0 == "_"
                })
            else {
                return ctx.error("Variable names must contain only alphanumeric characters or '_'.", i)
            }
            guard let value = ctx.parse(items[i + 1], i + 1) else { return nil }
            bindings.append((name, value))
            i += 2
        }
        guard let result = ctx.parse(items[items.count - 1], items.count - 1, ctx.expectedType, bindings: bindings)
        else { return nil }
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
    override func evaluate(_ ctx: EvaluationContext) throws(EvaluationError) -> ExpressionValue {
        try bound.evaluate(ctx)
    }
    override func serialize() -> JSONValue { .array([.string("var"), .string(name)]) }

    static func parse(_ items: [JSONValue], _ ctx: ParsingContext) -> ExprNode? {
        guard items.count == 2, case .string(let name) = items[1] else {
            return ctx.error("'var' expression requires exactly one string literal argument.")
        }
        guard let bound = ctx.scope.get(name) else {
            return ctx.error(
                "Unknown variable \"\(name)\". Make sure \"\(name)\" has been bound in an enclosing \"let\" "
                    + "expression before using it.",
                1)
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
            return ctx.error(
                "'semiliteral' expression requires exactly one argument, but found \(items.count - 1) instead.")
        }
        switch items[1] {
        case .array(let members):
            var parsed: [ExprNode] = []
            var itemType: ExpressionType?
            for m in members {
                guard let p = ctx.concat(nil, .value).parseHere(m) else { return nil }
                if let t = itemType, !(t == p.type && !t.isArray) {
                    itemType = .value
                } else if itemType == nil {
                    itemType = p.type
                }
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
    /// Read from the context's global state at evaluation, never folded.
    override var isFoldable: Bool { false }
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
        guard case .string(let key) = items[1] else {
            return ctx.error("Global state property must be a string, but found \(jsTypeName(items[1])) instead.", 1)
        }
        return GlobalStateNode(key: key)
    }
}
