// Expression: what a style property expects of its expression (type, data, zoom, interpolation).

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
    public static let `default` = PropertySpec(
        type: nil, propertyType: "data-driven", interpolated: true,
        parameters: ["zoom", "feature"], name: nil, defaultValue: nil,
        enumValues: nil, tokens: false)

    /// A filter: boolean, data-driven, not interpolated, no feature-state.
    public static let filter = PropertySpec(
        type: .boolean, propertyType: "data-driven", interpolated: false,
        parameters: ["zoom", "feature"], name: "filter", defaultValue: nil,
        enumValues: nil, tokens: false, rawType: "boolean")

    public init(
        type: ExpressionType?, propertyType: String, interpolated: Bool, parameters: [String], name: String?,
        defaultValue: JSONValue?, enumValues: [String]?, tokens: Bool
    ) {
        self.init(
            type: type, propertyType: propertyType, interpolated: interpolated, parameters: parameters, name: name,
            defaultValue: defaultValue, enumValues: enumValues, tokens: tokens, rawType: type?.description)
    }

    init(
        type: ExpressionType?, propertyType: String, interpolated: Bool, parameters: [String], name: String?,
        defaultValue: JSONValue?, enumValues: [String]?, tokens: Bool, rawType: String?
    ) {
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
    /// Missing `property-type` and `expression` take the defaults of `PropertySpec.default`. Not
    /// read by `OptionReader`: specs copied from the style spec carry documentation keys (`doc`,
    /// `sdk-support`, `transition`, …), which are ignored rather than refused.
    public init(json: JSONValue) throws(MapCoreError) {
        guard case .object(let o) = json else {
            throw MapCoreError(.invalidArgument, "A property spec must be a JSON object.")
        }
        self = .default
        if let t = o["type"] {
            guard case .string(let name) = t else {
                throw MapCoreError(.invalidArgument, "Property spec \"type\" must be a string.")
            }
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
            if case .array(let params)? = e["parameters"] {
                parameters = params.compactMap(\.stringValue)
            } else {
                parameters = []
            }
        }
        if case .string(let n)? = o["name"] { name = n }
        defaultValue = o["default"]
        if case .object(let values)? = o["values"] {
            enumValues = values.keys
        } else if case .array(let values)? = o["values"] {
            enumValues = values.compactMap(\.stringValue)
        }
        tokens = o["tokens"] == .bool(true)
    }

    var supportsDataDriven: Bool { propertyType == "data-driven" || propertyType == "cross-faded-data-driven" }
    var supportsZoom: Bool { parameters.contains("zoom") }
}
