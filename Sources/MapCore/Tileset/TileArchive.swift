// Tileset: what a tile source needs of an archive on disk (MBTiles, PMTiles): its tiles by
// address and a TileJSON-style description of them.

public protocol TileArchive: AnyObject, Sendable {
    /// The stored bytes of a tile (possibly gzip-compressed), or nil when the archive has none.
    func tile(_ id: TileID) throws(MapCoreError) -> [UInt8]?
    /// The archive's metadata as a TileJSON document (tiles left out: the archive serves them).
    func tileJSON() throws(MapCoreError) -> JSONObject
}

extension MBTiles: TileArchive {
    /// MBTiles 1.3 metadata as TileJSON: `bounds` and `center` from their comma lists, zooms as
    /// numbers, `json`'s members (vector_layers, tilestats) merged in, the rest as strings.
    public func tileJSON() throws(MapCoreError) -> JSONObject {
        var members: [JSONObject.Member] = [("tilejson", .string("3.0.0")), ("scheme", .string("xyz"))]
        for (name, value) in try metadata() {
            switch name {
            case "bounds", "center":
                let numbers = value.split(separator: ",").compactMap { (part: Substring) -> Double? in
                    Double(part.filter { $0 != " " })
                }
                if numbers.count == (name == "bounds" ? 4 : 3) {
                    members.append((name, .array(numbers.map { JSONValue.double($0) })))
                }
            case "minzoom", "maxzoom":
                if let z = Int(value) { members.append((name, .int(Int64(z)))) }
            case "json":
                if case .object(let o)? = try? JSON.parse(value) { members += o.members }
            default:
                members.append((name, .string(value)))
            }
        }
        return JSONObject(members)
    }
}
