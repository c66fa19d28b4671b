// Tiling: the ids and tags of the input features. Projected copies and tile features name their
// input feature by index instead of each holding references to its id and properties: a copy
// made by clipping costs one reference count fewer, and a tile feature is a few numbers.

/// The input features' ids (as given, promoted or generated per the options) and properties
/// (geojson-vt's tags), by input index. Shares the parsed features' storage.
struct TileInputs: Sendable {
    private let features: [Feature]
    private let promoteId: String?
    private let generateId: Bool
    /// Their ids and tags as vector tiles write them, interned as tiles are encoded.
    let interned = TileTags()
    /// Their lines' simplification marks where the index defers them (`TileIndex`; set before
    /// any tile is made), made as tiles are written.
    var marks: DeferredMarks?

    /// Inputs it can number (refs are Int32, as the tile store keeps millions of them).
    static let capacity = Int(Int32.max)

    /// `data`'s features; a bare geometry is one feature with neither id nor properties (which
    /// generateId still numbers 0, as geojson-vt does).
    init(_ data: GeoJSON, options: TilingOptions) throws(MapCoreError) {
        switch data {
        case .featureCollection(let c): features = c.features
        case .feature(let f): features = [f]
        case .geometry: features = [Feature(geometry: nil)]
        }
        guard features.count < Self.capacity else {
            throw MapCoreError(.limit, "At most \(Self.capacity - 1) features can be tiled.")
        }
        promoteId = options.promoteId
        generateId = options.generateId
    }

    var count: Int { features.count }

    /// geojson-vt's feature id: the promoted property, the input index, or the feature's id;
    /// null is no id.
    func id(_ ref: Int32) -> JSONValue? {
        guard ref >= 0, Int(ref) < features.count else { return nil }
        let id: JSONValue?
        if let key = promoteId {
            id = features[Int(ref)].properties?[key]
        } else if generateId {
            id = .int(Int64(ref))
        } else {
            id = features[Int(ref)].id?.jsonValue
        }
        return id == .null ? nil : id
    }

    func tags(_ ref: Int32) -> JSONObject? {
        guard ref >= 0, Int(ref) < features.count else { return nil }
        return features[Int(ref)].properties
    }
}
