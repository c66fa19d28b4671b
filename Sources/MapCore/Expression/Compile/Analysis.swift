// Expression: what a compiled tree depends on (feature, zoom, other globals, feature state)
// and whether a subtree can be folded to a constant, from the facts each node states.

enum Analysis {
    /// Everything `e` and its subtree read.
    static func reads(_ e: ExprNode) -> NodeReads {
        var all = e.reads
        for child in e.children { all.formUnion(reads(child)) }
        return all
    }

    /// Whether `e` can be evaluated once at compile time: it is foldable, its operands are
    /// literals (or, for type annotations, constant subtrees), and nothing in it reads the
    /// feature or a global input.
    static func isConstant(_ e: ExprNode) -> Bool {
        if let v = e as? VarNode { return isConstant(v.bound) }
        guard e.isFoldable else { return false }
        let isAnnotation = e is CoercionNode || e is AssertionNode
        for child in e.children {
            if isAnnotation ? !isConstant(child) : !(child is LiteralNode) { return false }
        }
        return reads(e).isDisjoint(with: NodeReads.globals.union(.feature))
    }

    static func isFeatureConstant(_ e: ExprNode) -> Bool { !reads(e).contains(.feature) }

    /// Whether nothing in `e` reads any of `inputs` (e.g. `.zoom`).
    static func isConstant(_ e: ExprNode, in inputs: NodeReads) -> Bool { reads(e).isDisjoint(with: inputs) }

    static func isStateConstant(_ e: ExprNode) -> Bool { !reads(e).contains(.featureState) }
}
