// Expression: the compiled node every operator subclasses, with the facts analysis reads.

/// A compiled expression node. Nodes are immutable after parsing, so one tree can be evaluated
/// from any number of threads.
class ExprNode: @unchecked Sendable {
    let type: ExpressionType
    init(type: ExpressionType) { self.type = type }

    /// What this node reads of the evaluation context itself (its children report their own).
    /// Analysis takes the union over a tree, so an operator states its facts once, here.
    var reads: NodeReads { [] }
    /// Whether the node may be replaced by its value when its inputs are constant: false where
    /// the value must come from evaluation (an error raised, a locale, a shape test, global state).
    var isFoldable: Bool { true }

    func evaluate(_ ctx: EvaluationContext) throws(EvaluationError) -> ExpressionValue { .null }
    var children: [ExprNode] { [] }
    /// The JSON form that parses back to an equivalent node.
    func serialize() -> JSONValue { .null }
}

/// Inputs of the evaluation context a node reads.
struct NodeReads: OptionSet, Sendable {
    let rawValue: UInt8

    /// The feature: its properties, geometry or id.
    static let feature = NodeReads(rawValue: 1 << 0)
    static let featureState = NodeReads(rawValue: 1 << 1)
    static let zoom = NodeReads(rawValue: 1 << 2)
    static let heatmapDensity = NodeReads(rawValue: 1 << 3)
    static let lineProgress = NodeReads(rawValue: 1 << 4)
    static let elevation = NodeReads(rawValue: 1 << 5)
    static let accumulated = NodeReads(rawValue: 1 << 6)
    static let supportedScripts = NodeReads(rawValue: 1 << 7)
    /// What a renderer sets per frame, layer or pass rather than per feature.
    static let globals: NodeReads = [
        .zoom, .heatmapDensity, .lineProgress, .elevation, .accumulated, .supportedScripts,
    ]
}
