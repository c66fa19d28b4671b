// Cluster: aggregate cluster properties, compiled from the SDKs' map/reduce expression pairs.
//
// Both SDK forms compile to one reduce expression per property:
//   {"name": ["+", mapExpr]}                       (GL JS / Azure web: an operator name)
//   {"name": [["+", ["accumulated"], ["get", "name"]], mapExpr]}   (a reduce expression)
// As in GL JS, `map` evaluates each map expression on a point's properties; `reduce` evaluates the
// reduce expression with `accumulated` = the cluster's value so far and the feature properties =
// the other item's mapped properties, so `["get", "name"]` reads the value being folded in.

public struct ClusterProperties: Sendable {
    public struct Property: Sendable {
        public let name: String
        let map: StyleExpression
        let reduce: StyleExpression
    }

    public let properties: [Property]
    /// The JSON the properties were compiled from, for serializing options back.
    public let json: JSONValue

    public init(json: JSONValue) throws(MapCoreError) {
        guard case .object(let object) = json else {
            throw MapCoreError(
                .invalidArgument,
                "clusterProperties must be an object of name: [operator or reduce expression, map expression].")
        }
        var compiled: [Property] = []
        for (name, value) in object {
            guard case .array(let pair) = value, pair.count == 2 else {
                throw MapCoreError(
                    .invalidArgument,
                    "clusterProperties.\(name) must be [operator or reduce expression, map expression].")
            }
            let reduceJSON: JSONValue
            switch pair[0] {
            case .string(let op):
                reduceJSON = .array([
                    .string(op), .array([.string("accumulated")]), .array([.string("get"), .string(name)]),
                ])
            case .array:
                reduceJSON = pair[0]
            default:
                throw MapCoreError(
                    .invalidArgument, "clusterProperties.\(name)[0] must be an operator name or a reduce expression.")
            }
            let map = try StyleExpression.compiled(pair[1], what: "clusterProperties.\(name) map expression")
            let reduce = try StyleExpression.compiled(reduceJSON, what: "clusterProperties.\(name) reduce expression")
            compiled.append(Property(name: name, map: map, reduce: reduce))
        }
        properties = compiled
        self.json = json
    }

    /// The mapped properties of one input point. A failing expression gives null, as a style
    /// property falls back rather than failing the whole source.
    func map(_ feature: Feature) -> JSONObject {
        var ctx = EvaluationContext(feature: feature)
        ctx.geometry = feature.geometry
        return mapped(ctx)
    }

    /// Folds `other` (mapped properties of a point or a cluster) into `accumulated`.
    func reduce(_ accumulated: inout JSONObject, _ other: JSONObject) {
        fold(&accumulated, other, onlyWhatItHolds: false)
    }

    /// A point's mapped properties as MapLibre Native's clustered source makes them for
    /// supercluster-cpp: none (empty) for a point without properties, else each map expression
    /// evaluated on the properties alone (no geometry or id), null where it fails.
    func mapNative(_ pointProperties: JSONObject?) -> JSONObject {
        guard let pointProperties, !pointProperties.isEmpty else { return JSONObject() }
        var ctx = EvaluationContext()
        ctx.properties = pointProperties
        return mapped(ctx)
    }

    /// MapLibre Native's reduce: only the properties `other` holds are folded, each from what
    /// `accumulated` holds (null where it holds nothing).
    func reduceNative(_ accumulated: inout JSONObject, _ other: JSONObject) {
        fold(&accumulated, other, onlyWhatItHolds: true)
    }

    private func mapped(_ ctx: EvaluationContext) -> JSONObject {
        var out = JSONObject()
        for p in properties {
            out[p.name] = (try? p.map.evaluate(ctx))?.json() ?? .null
        }
        return out
    }

    private func fold(_ accumulated: inout JSONObject, _ other: JSONObject, onlyWhatItHolds: Bool) {
        var ctx = EvaluationContext()
        ctx.properties = other
        for p in properties where !onlyWhatItHolds || other[p.name] != nil {
            ctx.accumulated = ExpressionValue(json: accumulated[p.name] ?? .null)
            accumulated[p.name] = (try? p.reduce.evaluate(ctx))?.json() ?? .null
        }
    }
}
