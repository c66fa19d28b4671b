// Expression: compiling JSON into the expression users hold, its compile errors, and zoom curves.

/// One error from compiling an expression, at the key path of the failing node.
public struct ExpressionCompileError: Sendable, Equatable {
    /// Key path such as `[1][4][0]`; empty for the root.
    public var key: String
    public var message: String
}

/// Why an expression did not compile: every error found, in the order found.
public struct ExpressionCompileFailure: Error, Sendable {
    public var errors: [ExpressionCompileError]
    public init(_ errors: [ExpressionCompileError]) { self.errors = errors }

    /// The one conversion to the error every stage throws: every error's message (prefixed by
    /// its key path) and the first error's key path as `location.path`. `what` names the
    /// expression inside a larger input (e.g. `filter`), so the message says which one failed.
    public func error(what: String? = nil) -> MapCoreError {
        let parts = errors.map { $0.key.isEmpty ? $0.message : "\($0.key): \($0.message)" }
        let message = parts.isEmpty ? "invalid expression" : parts.joined(separator: "; ")
        let path = errors.first?.key ?? ""
        return MapCoreError(
            .expression, what.map { "\($0): \(message)" } ?? message,
            location: SourceLocation(offset: -1, line: 0, column: 0, path: path))
    }
}

/// A compiled expression: type-checked, constant-folded, immutable. Evaluate it from any
/// number of threads at once.
public final class StyleExpression: Sendable {
    let root: ExprNode
    public let spec: PropertySpec
    /// The result type, in the spec's spelling through `description`.
    public let type: ExpressionType
    /// The result does not depend on the feature (properties, id, geometry, state).
    public let isFeatureConstant: Bool
    /// The result does not depend on zoom.
    public let isZoomConstant: Bool
    public let isStateConstant: Bool
    /// Interpolation used by the top-level zoom curve, when there is one.
    let zoomCurve: ExprNode?

    private init(root: ExprNode, spec: PropertySpec, zoomCurve: ExprNode?) {
        self.root = root
        self.spec = spec
        type = root.type
        isFeatureConstant = Analysis.isFeatureConstant(root)
        isZoomConstant = Analysis.isConstant(root, in: .zoom)
        isStateConstant = Analysis.isStateConstant(root)
        self.zoomCurve = zoomCurve
    }

    /// The spec's kind: `constant`, `source` (data), `camera` (zoom) or `composite` (both).
    public var kind: String {
        switch (isFeatureConstant, isZoomConstant) {
        case (true, true): return "constant"
        case (false, true): return "source"
        case (true, false): return "camera"
        case (false, false): return "composite"
        }
    }

    /// How deep expressions may nest. Compiling recurses once per level (about 1.5 KB of stack
    /// each), so 64 levels fit a 128 KB thread stack; real styles rarely pass 20.
    public static let defaultMaxDepth = 64

    /// `compile`, failing with the one `MapCoreError` conversion (`ExpressionCompileFailure.error`),
    /// for callers that report errors rather than inspect them.
    public static func compiled(
        _ json: JSONValue, spec: PropertySpec = .default, legacyFilters: Bool = false,
        what: String? = nil
    ) throws(MapCoreError) -> StyleExpression {
        switch compile(json, spec: spec, legacyFilters: legacyFilters) {
        case .success(let e): return e
        case .failure(let f): throw f.error(what: what)
        }
    }

    /// Compiles an expression (or a legacy filter / legacy function object) for a property.
    /// - Parameter maxDepth: nesting limit; deeper input is a compile error, never a crash.
    public static func compile(
        _ json: JSONValue, spec: PropertySpec = .default, maxDepth: Int = defaultMaxDepth,
        legacyFilters: Bool = false
    ) -> Result<StyleExpression, ExpressionCompileFailure> {
        var input = json
        if case .object(let o) = json, o["type"] != nil || o["stops"] != nil || o["property"] != nil {
            switch LegacyFunctions.convert(o, spec: spec) {
            case .success(let converted): input = converted
            case .failure(let message):
                return .failure(ExpressionCompileFailure([ExpressionCompileError(key: "", message: message.message)]))
            }
        } else if legacyFilters && !LegacyFilters.isExpressionFilter(json) {
            input = LegacyFilters.convert(json)
        }
        let ctx = ParsingContext(expectedType: spec.type, maxDepth: maxDepth)
        let annotation: TypeAnnotation? = spec.rawType == "string" ? .coerce : nil
        guard let root = ctx.parseHere(input, annotation: annotation) else {
            let errors = ctx.errors.items.map { ExpressionCompileError(key: $0.key, message: $0.message) }
            return .failure(
                ExpressionCompileFailure(
                    errors.isEmpty ? [ExpressionCompileError(key: "", message: "Invalid expression.")] : errors))
        }
        func fail(_ m: String) -> Result<StyleExpression, ExpressionCompileFailure> {
            .failure(ExpressionCompileFailure([ExpressionCompileError(key: "", message: m)]))
        }
        if !Analysis.isFeatureConstant(root) && !spec.supportsDataDriven {
            return fail("data expressions not supported")
        }
        let zoomConstant = Analysis.isConstant(root, in: .zoom)
        if !zoomConstant && !spec.supportsZoom { return fail("zoom expressions not supported") }
        if spec.name == "filter" && !Analysis.isStateConstant(root) {
            return fail("\"feature-state\" data expressions are not supported with filters.")
        }
        if let name = spec.name {
            if name != "heatmap-color" && !Analysis.isConstant(root, in: .heatmapDensity) {
                return fail("\"heatmap-density\" may only be used in the heatmap-color property.")
            }
            if name != "line-gradient" && !Analysis.isConstant(root, in: .lineProgress) {
                return fail("\"line-progress\" may only be used in the line-gradient property.")
            }
        }
        switch ZoomCurve.find(root) {
        case .error(let m): return fail(m)
        case .none:
            if !zoomConstant {
                return fail(
                    "\"zoom\" expression may only be used as input to a top-level \"step\" or \"interpolate\" "
                        + "expression."
                )
            }
            return .success(StyleExpression(root: root, spec: spec, zoomCurve: nil))
        case .curve(let curve):
            if curve is InterpolateNode && !spec.interpolated {
                return fail("\"interpolate\" expressions cannot be used with this property")
            }
            return .success(StyleExpression(root: root, spec: spec, zoomCurve: curve))
        }
    }

    /// Evaluates against one context. Errors are the spec's run-time errors.
    public func evaluate(_ ctx: EvaluationContext) throws(EvaluationError) -> ExpressionValue {
        try root.evaluate(ctx)
    }

    /// The JSON form; compiling it again gives an equivalent expression.
    public func serialize() -> JSONValue { root.serialize() }
}

enum ZoomCurve {
    case none
    case curve(ExprNode)
    case error(String)

    static let misplaced =
        "\"zoom\" expression may only be used as input to a top-level \"step\" or \"interpolate\" expression."

    static func find(_ e: ExprNode) -> ZoomCurve {
        var result = ZoomCurve.none
        if let l = e as? LetNode {
            result = find(l.result)
        } else if let c = e as? CoalesceNode {
            for arg in c.args {
                result = find(arg)
                if case .none = result { continue }
                break
            }
        } else if let s = e as? StepNode, isZoom(s.input) {
            result = .curve(s)
        } else if let i = e as? InterpolateNode, isZoom(i.input) {
            result = .curve(i)
        }
        if case .error = result { return result }
        for child in e.children {
            let childResult = find(child)
            switch (childResult, result) {
            case (.error, _): result = childResult
            case (.curve, .none): result = .error(misplaced)
            case (.curve(let c), .curve(let r)) where c !== r:
                result = .error(
                    "Only one zoom-based \"step\" or \"interpolate\" subexpression may be used in an expression.")
            default: break
            }
        }
        return result
    }

    /// `["zoom"]` itself: the one node that reads the zoom and has no operands.
    private static func isZoom(_ e: ExprNode) -> Bool { e.reads == .zoom && e.children.isEmpty }
}
