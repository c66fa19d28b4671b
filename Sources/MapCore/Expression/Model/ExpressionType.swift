// Expression: the static type system of the style-spec expression language.

/// A style-spec type. `description` gives the spec's own spelling (`number`, `array<number, 2>`),
/// which appears in error messages and in the compiled type the conformance suite checks.
public indirect enum ExpressionType: Equatable, Sendable, CustomStringConvertible {
    case null, number, string, boolean, color, object, value, error, collator, formatted
    case resolvedImage, padding, numberArray, colorArray, variableAnchorOffsetCollection, projectionDefinition
    /// Item type and optional fixed length.
    case array(ExpressionType, Int?)

    public static let anyArray = ExpressionType.array(.value, nil)

    /// The type's kind: the name without array parameters.
    public var kind: String {
        switch self {
        case .null: return "null"
        case .number: return "number"
        case .string: return "string"
        case .boolean: return "boolean"
        case .color: return "color"
        case .object: return "object"
        case .value: return "value"
        case .error: return "error"
        case .collator: return "collator"
        case .formatted: return "formatted"
        case .resolvedImage: return "resolvedImage"
        case .padding: return "padding"
        case .numberArray: return "numberArray"
        case .colorArray: return "colorArray"
        case .variableAnchorOffsetCollection: return "variableAnchorOffsetCollection"
        case .projectionDefinition: return "projectionDefinition"
        case .array: return "array"
        }
    }

    public var description: String {
        guard case .array(let item, let n) = self else { return kind }
        if let n { return "array<\(item), \(n)>" }
        if case .value = item { return "array" }
        return "array<\(item)>"
    }

    var isArray: Bool { if case .array = self { return true } else { return false } }

    /// The member types of `value`: anything a `value` may hold at run time.
    private static let valueMembers: [ExpressionType] = [
        .null, .number, .string, .boolean, .color, .projectionDefinition, .formatted, .object, .anyArray,
        .padding, .numberArray, .colorArray, .resolvedImage, .variableAnchorOffsetCollection,
    ]

    /// nil when `actual` may be used where `self` is expected; otherwise the spec's message.
    public func subtypeError(_ actual: ExpressionType) -> String? {
        if case .error = actual { return nil }
        switch self {
        case .array(let expectedItem, let expectedN):
            if case .array(let item, let n) = actual {
                let emptyUntyped = n == 0 && item == .value
                if (emptyUntyped || expectedItem.subtypeError(item) == nil) && (expectedN == nil || expectedN == n) {
                    return nil
                }
            }
        case .value:
            if case .value = actual { return nil }
            for member in ExpressionType.valueMembers where member.subtypeError(actual) == nil { return nil }
        default:
            if kind == actual.kind { return nil }
        }
        return "Expected \(self) but found \(actual) instead."
    }

    /// Parses the spec's spelling of a type (as used in property specs).
    static func named(_ name: String) -> ExpressionType? {
        switch name {
        case "number": return .number
        case "string", "enum": return .string
        case "boolean": return .boolean
        case "color": return .color
        case "object": return .object
        case "value": return .value
        case "formatted": return .formatted
        case "resolvedImage": return .resolvedImage
        case "padding": return .padding
        case "numberArray": return .numberArray
        case "colorArray": return .colorArray
        case "variableAnchorOffsetCollection": return .variableAnchorOffsetCollection
        case "projectionDefinition": return .projectionDefinition
        case "collator": return .collator
        default: return nil
        }
    }
}
