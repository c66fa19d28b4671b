// Expression: the operator registry: each name and the node that parses it.

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
