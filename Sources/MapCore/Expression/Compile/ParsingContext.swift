// Expression: parsing state (key path, expected type, scope, errors) and its helpers.

struct ParsingError: Sendable, Equatable {
    /// Key path of the failing node, e.g. `[1][4][0]`.
    var key: String
    var message: String
}

/// Let-bound names visible at a point of the tree.
final class Scope {
    let parent: Scope?
    let bindings: [(String, ExprNode)]
    init(parent: Scope? = nil, bindings: [(String, ExprNode)] = []) {
        self.parent = parent
        self.bindings = bindings
    }
    func get(_ name: String) -> ExprNode? {
        var s: Scope? = self
        while let current = s {
            if let b = current.bindings.last(where: { $0.0 == name }) { return b.1 }
            s = current.parent
        }
        return nil
    }
}

final class ErrorList {
    var items: [ParsingError] = []
}

enum TypeAnnotation { case assert, coerce, omit }

/// State while parsing one node: where it is (key path), what type its parent expects, which
/// variables are bound, and the shared error list.
final class ParsingContext {
    let path: [Int]
    let scope: Scope
    let errors: ErrorList
    let expectedType: ExpressionType?
    let maxDepth: Int

    init(
        path: [Int] = [], expectedType: ExpressionType? = nil, scope: Scope = Scope(), errors: ErrorList = ErrorList(),
        maxDepth: Int
    ) {
        self.path = path
        self.expectedType = expectedType
        self.scope = scope
        self.errors = errors
        self.maxDepth = maxDepth
    }

    var key: String { path.map { "[\($0)]" }.joined() }

    func concat(
        _ index: Int?, _ expected: ExpressionType? = nil, bindings: [(String, ExprNode)]? = nil
    ) -> ParsingContext {
        ParsingContext(
            path: index.map { path + [$0] } ?? path, expectedType: expected,
            scope: bindings.map { Scope(parent: scope, bindings: $0) } ?? scope, errors: errors, maxDepth: maxDepth)
    }

    /// A context for trying one overload: same place, fresh errors.
    func freshAttempt() -> ParsingContext {
        ParsingContext(path: path, expectedType: nil, scope: scope, errors: ErrorList(), maxDepth: maxDepth)
    }

    @discardableResult
    func error(_ message: String, _ keys: Int...) -> ExprNode? {
        errors.items.append(ParsingError(key: key + keys.map { "[\($0)]" }.joined(), message: message))
        return nil
    }

    /// Records and returns the spec's message when `actual` does not fit `expected`.
    @discardableResult
    func checkSubtype(_ expected: ExpressionType, _ actual: ExpressionType) -> String? {
        let e = expected.subtypeError(actual)
        if let e { error(e) }
        return e
    }

    func parse(
        _ json: JSONValue, _ index: Int? = nil, _ expected: ExpressionType? = nil,
        bindings: [(String, ExprNode)]? = nil, annotation: TypeAnnotation? = nil
    ) -> ExprNode? {
        let ctx =
            (index != nil || bindings != nil || expected != nil) ? concat(index, expected, bindings: bindings) : self
        return ctx.parseHere(json, annotation: annotation)
    }

    /// Parses with this context's own expected type (the reference's `parse` with no index).
    func parseHere(_ json: JSONValue, annotation: TypeAnnotation? = nil) -> ExprNode? {
        guard path.count <= maxDepth else {
            return error("Expression nested more than \(maxDepth) levels deep.")
        }
        let items: [JSONValue]
        switch json {
        case .null, .bool, .int, .uint, .double, .string: items = [.string("literal"), json]
        case .array(let a): items = a
        case .object: return error("Bare objects invalid. Use [\"literal\", {...}] instead.")
        }
        guard let first = items.first else {
            return error(
                "Expected an array with at least one element. If you wanted a literal array, use [\"literal\", []].")
        }
        guard case .string(let op) = first else {
            return error(
                "Expression name must be a string, but found \(jsTypeName(first)) instead. If you wanted a literal "
                    + "array, use [\"literal\", [...]].",
                0)
        }
        guard let parser = Operators.registry[op] else {
            return error("Unknown expression \"\(op)\". If you wanted a literal array, use [\"literal\", [...]].", 0)
        }
        guard var parsed = parser(items, self) else { return nil }
        if let expected = expectedType {
            let actual = parsed.type
            let ek = expected.kind, ak = actual.kind
            if ["string", "number", "boolean", "object", "array"].contains(ek) && ak == "value" {
                parsed = annotate(parsed, expected, annotation ?? .assert)
            } else if (ek == "projectionDefinition" && ["string", "array", "value"].contains(ak))
                || (["color", "formatted", "resolvedImage"].contains(ek) && ["value", "string"].contains(ak))
                || (["padding", "numberArray"].contains(ek) && ["value", "number", "array"].contains(ak))
                || (ek == "colorArray" && ["value", "string", "array"].contains(ak))
                || (ek == "variableAnchorOffsetCollection" && ["value", "array"].contains(ak))
            {
                parsed = annotate(parsed, expected, annotation ?? .coerce)
            } else if checkSubtype(expected, actual) != nil {
                return nil
            }
        }
        // Fold: a subtree whose inputs are all literals becomes a literal now. Images wait for
        // the available-images list of the evaluation.
        if !(parsed is LiteralNode), parsed.type.kind != "resolvedImage", Analysis.isConstant(parsed) {
            do {
                parsed = LiteralNode(type: parsed.type, value: try parsed.evaluate(EvaluationContext()))
            } catch {
                return self.error(error.message)
            }
        }
        return parsed
    }

    private func annotate(_ node: ExprNode, _ type: ExpressionType, _ how: TypeAnnotation) -> ExprNode {
        switch how {
        case .assert: return AssertionNode(type: type, args: [node])
        case .coerce: return CoercionNode(type: type, args: [node], name: nil)
        case .omit: return node
        }
    }
}

/// JavaScript's `typeof` names, which the spec's messages use for raw JSON.
func jsTypeName(_ v: JSONValue) -> String {
    switch v {
    case .null, .array, .object: return "object"
    case .bool: return "boolean"
    case .int, .uint, .double: return "number"
    case .string: return "string"
    }
}
