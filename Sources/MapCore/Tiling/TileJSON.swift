// Tiling: a tile as geojson-vt's tile object in JSON ({"features": [...]}, or null), the form
// its tests compare and tools print.

/// geojson-vt's tile object written feature by feature: the one home of its layout, for tiles
/// held as `TileFeature`s and for an index's tiles written straight from their flat arrays.
struct TileJSONWriter {
    private var w: JSONWriter

    init(pretty: Bool, features: Int) {
        w = JSONWriter(pretty: pretty, reserve: JSONWriter.reserve(items: features, bytesEach: 256))
        w.openObject()
        w.key(ascii: "features")
        w.openArray()
    }

    /// `null`: no tile.
    static func null() -> [UInt8] {
        var w = JSONWriter()
        w.writeNull()
        return w.bytes
    }

    /// `{"geometry":…,"type":…,"tags":…,"id":…}`. `run(k, &w)` writes run k's x, y pairs
    /// (`JSONWriter.writeCoordinatePairs`): a point feature's pairs all go in its geometry
    /// array, a line's or polygon's runs each in an array of their own.
    mutating func feature(
        type: UInt8, runs: Int, tags: JSONObject?, id: JSONValue?, run: (Int, inout JSONWriter) -> Void
    ) {
        w.element()
        w.openObject()
        w.key(ascii: "geometry")
        w.openArray(inline: type == 1)
        for k in 0..<runs {
            if type == 1 {
                run(k, &w)
            } else {
                w.element()
                w.openArray(inline: true)
                run(k, &w)
                w.closeArray()
            }
        }
        w.closeArray()
        w.key(ascii: "type"); w.writeInt(Int64(type))
        w.key(ascii: "tags")
        if let tags { w.writeObject(tags) } else { w.writeNull() }
        if let id { w.key(ascii: "id"); w.writeValue(id) }
        w.closeObject()
    }

    consuming func finish() -> [UInt8] {
        w.closeArray()
        w.closeObject()
        return w.bytes
    }
}

extension TileFeature {
    /// `{"features":[{"geometry":…,"type":…,"tags":…,"id":…}]}`, or `null` for no tile.
    public static func tileJSON(_ features: [TileFeature]?, pretty: Bool = false) -> [UInt8] {
        guard let features else { return TileJSONWriter.null() }
        var t = TileJSONWriter(pretty: pretty, features: features.count)
        for f in features {
            t.feature(type: f.type, runs: f.geometry.count, tags: f.tags, id: f.id) { k, w in
                f.geometry[k].withUnsafeBufferPointer { w.writeCoordinatePairs($0) }
            }
        }
        return t.finish()
    }
}
