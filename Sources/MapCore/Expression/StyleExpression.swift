// Expression: the operator registry, property specs, and the compiled expression users hold.

typealias OperatorParser = @Sendable ([JSONValue], ParsingContext) -> ExprNode?

enum Operators {
    static let registry: [String: OperatorParser] = {
        var r: [String: OperatorParser] = [:]
        for name in CompoundOperators.definitions.keys { r[name] = CompoundNode.parse }
        for op in ["==", "!=", "<", ">", "<=", ">="] { r[op] = ComparisonNode.parse }
        for name in ["array", "boolean", "number", "object", "string"] { r[name] = AssertionNode.parse }
        for name in ["to-boolean", "to-color", "to-number", "to-string"] { r[name] = CoercionNode.parse }
        for name in ["interpolate", "interpolate-hcl", "interpolate-lab"] { r[name] = InterpolateNode.parse }
        r["at"] = AtNode.parse
        r["case"] = CaseNode.parse
        r["coalesce"] = CoalesceNode.parse
        r["collator"] = CollatorNode.parse
        r["format"] = FormatNode.parse
        r["image"] = ImageNode.parse
        r["in"] = InNode.parse
        r["index-of"] = IndexOfNode.parse
        r["length"] = LengthNode.parse
        r["let"] = LetNode.parse
        r["literal"] = LiteralNode.parse
        r["match"] = MatchNode.parse
        r["number-format"] = NumberFormatNode.parse
        r["semiliteral"] = SemiliteralNode.parse
        r["slice"] = SliceNode.parse
        r["step"] = StepNode.parse
        r["var"] = VarNode.parse
        r["within"] = WithinNode.parse
        r["distance"] = DistanceNode.parse
        r["global-state"] = GlobalStateNode.parse
        return r
    }()

    /// Every operator name the language knows, for documentation and format-string conversion.
    public static var names: [String] { registry.keys.sorted() }
}

/// What a style property expects of its expression: the result type (which decides coercion),
/// whether data and zoom may drive it, whether it interpolates.
public struct PropertySpec: Sendable {
    /// The declared result type; nil for "any value".
    public var type: ExpressionType?
    /// `data-driven`, `cross-faded-data-driven`, `data-constant`, `constant`, `color-ramp`, …
    public var propertyType: String
    public var interpolated: Bool
    /// Inputs allowed: `zoom`, `feature`, `feature-state`, `heatmap-density`, `line-progress`, …
    public var parameters: [String]
    /// The style property's name when known (`heatmap-color`, `line-gradient`, `text-field`);
    /// it decides where `heatmap-density` and `line-progress` may appear.
    public var name: String?
    /// The property's default, used as the fallback of converted legacy functions.
    public var defaultValue: JSONValue?
    /// Enum properties: the allowed values.
    public var enumValues: [String]?
    /// Legacy `{token}` strings are expanded in zoom functions.
    public var tokens: Bool
    var rawType: String?
    var arrayValueType: String?
    var arrayLength: Int?

    /// What a spec-less expression gets: data-driven, interpolated, zoom and feature inputs.
    public static let `default` = PropertySpec(type: nil, propertyType: "data-driven", interpolated: true,
                                               parameters: ["zoom", "feature"], name: nil, defaultValue: nil,
                                               enumValues: nil, tokens: false)

    /// A filter: boolean, data-driven, not interpolated, no feature-state.
    public static let filter = PropertySpec(type: .boolean, propertyType: "data-driven", interpolated: false,
                                            parameters: ["zoom", "feature"], name: "filter", defaultValue: nil,
                                            enumValues: nil, tokens: false, rawType: "boolean")

    public init(type: ExpressionType?, propertyType: String, interpolated: Bool, parameters: [String], name: String?,
                defaultValue: JSONValue?, enumValues: [String]?, tokens: Bool) {
        self.init(type: type, propertyType: propertyType, interpolated: interpolated, parameters: parameters, name: name,
                  defaultValue: defaultValue, enumValues: enumValues, tokens: tokens, rawType: type?.description)
    }

    init(type: ExpressionType?, propertyType: String, interpolated: Bool, parameters: [String], name: String?,
         defaultValue: JSONValue?, enumValues: [String]?, tokens: Bool, rawType: String?) {
        self.type = type
        self.propertyType = propertyType
        self.interpolated = interpolated
        self.parameters = parameters
        self.name = name
        self.defaultValue = defaultValue
        self.enumValues = enumValues
        self.tokens = tokens
        self.rawType = rawType
    }

    /// Reads a style-spec property specification object (`{"type": "color", "property-type":
    /// "data-driven", "expression": {"interpolated": true, "parameters": ["zoom", "feature"]}}`).
    /// Missing `property-type` and `expression` take the defaults of `PropertySpec.default`.
    public init(json: JSONValue) throws(MapCoreError) {
        guard case .object(let o) = json else {
            throw MapCoreError(.invalidArgument, "A property spec must be a JSON object.")
        }
        self = .default
        if let t = o["type"] {
            guard case .string(let name) = t else { throw MapCoreError(.invalidArgument, "Property spec \"type\" must be a string.") }
            rawType = name
            if name == "array" {
                let item = o["value"]?.stringValue.flatMap(ExpressionType.named) ?? .value
                arrayValueType = o["value"]?.stringValue
                if let n = o["length"]?.doubleValue {
                    guard n >= 0, n <= 1e9, n == n.rounded(.down) else {
                        throw MapCoreError(.invalidArgument, "Property spec \"length\" must be a non-negative integer.")
                    }
                    arrayLength = Int(n)
                }
                type = .array(item, arrayLength)
            } else {
                type = ExpressionType.named(name)
            }
        }
        if case .string(let p)? = o["property-type"] { propertyType = p }
        if case .object(let e)? = o["expression"] {
            interpolated = e["interpolated"].map { $0 == .bool(true) } ?? false
            if case .array(let params)? = e["parameters"] { parameters = params.compactMap(\.stringValue) } else { parameters = [] }
        }
        if case .string(let n)? = o["name"] { name = n }
        defaultValue = o["default"]
        if case .object(let values)? = o["values"] { enumValues = values.keys }
        else if case .array(let values)? = o["values"] { enumValues = values.compactMap(\.stringValue) }
        tokens = o["tokens"] == .bool(true)
    }

    var supportsDataDriven: Bool { propertyType == "data-driven" || propertyType == "cross-faded-data-driven" }
    var supportsZoom: Bool { parameters.contains("zoom") }
}

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
        return MapCoreError(.expression, what.map { "\($0): \(message)" } ?? message,
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
        isZoomConstant = Analysis.isGlobalPropertyConstant(root, ["zoom"])
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
    public static func compiled(_ json: JSONValue, spec: PropertySpec = .default, legacyFilters: Bool = false,
                                what: String? = nil) throws(MapCoreError) -> StyleExpression {
        switch compile(json, spec: spec, legacyFilters: legacyFilters) {
        case .success(let e): return e
        case .failure(let f): throw f.error(what: what)
        }
    }

    /// Compiles an expression (or a legacy filter / legacy function object) for a property.
    /// - Parameter maxDepth: nesting limit; deeper input is a compile error, never a crash.
    public static func compile(_ json: JSONValue, spec: PropertySpec = .default, maxDepth: Int = defaultMaxDepth,
                               legacyFilters: Bool = false) -> Result<StyleExpression, ExpressionCompileFailure> {
        var input = json
        if case .object(let o) = json, o["type"] != nil || o["stops"] != nil || o["property"] != nil {
            switch LegacyFunctions.convert(o, spec: spec) {
            case .success(let converted): input = converted
            case .failure(let message): return .failure(ExpressionCompileFailure([ExpressionCompileError(key: "", message: message.message)]))
            }
        } else if legacyFilters && !LegacyFilters.isExpressionFilter(json) {
            input = LegacyFilters.convert(json)
        }
        let ctx = ParsingContext(expectedType: spec.type, maxDepth: maxDepth)
        let annotation: TypeAnnotation? = spec.rawType == "string" ? .coerce : nil
        guard let root = ctx.parseHere(input, annotation: annotation) else {
            let errors = ctx.errors.items.map { ExpressionCompileError(key: $0.key, message: $0.message) }
            return .failure(ExpressionCompileFailure(errors.isEmpty ? [ExpressionCompileError(key: "", message: "Invalid expression.")] : errors))
        }
        func fail(_ m: String) -> Result<StyleExpression, ExpressionCompileFailure> { .failure(ExpressionCompileFailure([ExpressionCompileError(key: "", message: m)])) }
        if !Analysis.isFeatureConstant(root) && !spec.supportsDataDriven { return fail("data expressions not supported") }
        let zoomConstant = Analysis.isGlobalPropertyConstant(root, ["zoom"])
        if !zoomConstant && !spec.supportsZoom { return fail("zoom expressions not supported") }
        if spec.name == "filter" && !Analysis.isStateConstant(root) {
            return fail("\"feature-state\" data expressions are not supported with filters.")
        }
        if let name = spec.name {
            if name != "heatmap-color" && !Analysis.isGlobalPropertyConstant(root, ["heatmap-density"]) {
                return fail("\"heatmap-density\" may only be used in the heatmap-color property.")
            }
            if name != "line-gradient" && !Analysis.isGlobalPropertyConstant(root, ["line-progress"]) {
                return fail("\"line-progress\" may only be used in the line-gradient property.")
            }
        }
        switch ZoomCurve.find(root) {
        case .error(let m): return fail(m)
        case .none:
            if !zoomConstant {
                return fail("\"zoom\" expression may only be used as input to a top-level \"step\" or \"interpolate\" expression.")
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

    static let misplaced = "\"zoom\" expression may only be used as input to a top-level \"step\" or \"interpolate\" expression."

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
                result = .error("Only one zoom-based \"step\" or \"interpolate\" subexpression may be used in an expression.")
            default: break
            }
        }
        return result
    }

    private static func isZoom(_ e: ExprNode) -> Bool { (e as? CompoundNode)?.name == "zoom" }
}
