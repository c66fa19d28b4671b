// Expression: what evaluation reads (the evaluation context) and the error it raises.

/// An error raised while evaluating (the spec's RuntimeError).
public struct EvaluationError: Error, Sendable, Equatable {
    public var message: String
    public init(_ message: String) { self.message = message }
}

/// A tile in z/x/y, which `within` and `distance` use to quantize feature geometry as the
/// reference renderer does.
public struct CanonicalTileID: Sendable, Equatable {
    public var z: Int, x: Int, y: Int
    public init(z: Int, x: Int, y: Int) { self.z = z; self.x = x; self.y = y }
}

/// Everything an expression may read while it is evaluated.
public struct EvaluationContext: Sendable {
    public var zoom: Double?
    public var heatmapDensity: Double?
    public var lineProgress: Double?
    public var elevation: Double?
    public var accumulated: ExpressionValue?
    public var properties: JSONObject?
    public var featureID: FeatureID?
    public var geometry: Geometry?
    public var featureState: JSONObject?
    public var globalState: JSONObject?
    public var availableImages: [String]
    public var canonical: CanonicalTileID?

    public init(zoom: Double? = nil, feature: Feature? = nil) {
        self.zoom = zoom
        properties = feature?.properties
        featureID = feature?.id
        geometry = feature?.geometry
        availableImages = []
    }

    public mutating func setFeature(_ feature: Feature?) {
        properties = feature?.properties
        featureID = feature?.id
        geometry = feature?.geometry
    }

    var geometryTypeName: String? { geometry?.type.name }

    var idValue: ExpressionValue {
        guard let featureID else { return .null }
        return ExpressionValue(json: featureID.jsonValue)
    }
}
