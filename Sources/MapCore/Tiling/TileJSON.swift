// Tiling: a tile as geojson-vt's tile object in JSON ({"features": [...]}, or null), the form
// its tests compare and tools print.

extension TileFeature {
    /// `{"features":[{"geometry":…,"type":…,"tags":…,"id":…}]}`, or `null` for no tile.
    public static func tileJSON(_ features: [TileFeature]?, pretty: Bool = false) -> [UInt8] {
        var w = JSONWriter(pretty: pretty, reserve: JSONWriter.reserve(items: features?.count ?? 0, bytesEach: 256))
        guard let features else { w.writeNull(); return w.bytes }
        w.openObject()
        w.key(ascii: "features")
        w.openArray()
        for f in features {
            w.element()
            w.openObject()
            w.key(ascii: "geometry")
            w.openArray(inline: f.type == 1)
            if f.type == 1 {
                for run in f.geometry { writePairs(run, into: &w) }
            } else {
                for run in f.geometry {
                    w.element()
                    w.openArray(inline: true)
                    writePairs(run, into: &w)
                    w.closeArray()
                }
            }
            w.closeArray()
            w.key(ascii: "type"); w.writeInt(Int64(f.type))
            w.key(ascii: "tags")
            if let tags = f.tags { w.writeObject(tags) } else { w.writeNull() }
            if let id = f.id { w.key(ascii: "id"); w.writeValue(id) }
            w.closeObject()
        }
        w.closeArray()
        w.closeObject()
        return w.bytes
    }

    private static func writePairs(_ run: [Double], into w: inout JSONWriter) {
        var i = 0
        while i + 1 < run.count {
            w.element()
            w.openArray(inline: true)
            w.element(); w.writeCoordinate(run[i])
            w.element(); w.writeCoordinate(run[i + 1])
            w.closeArray()
            i += 2
        }
    }
}
