// Fuzz target: every JSON options reader (data source, supercluster, geojson-vt, tile source,
// tileset, cluster properties). The first byte picks the reader. Property: no crash, and an
// accepted data source's options read back from their own JSON equal.
import MapCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOptions(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size > 0, let json = try? JSON.parse(UnsafeBufferPointer(start: data + 1, count: size - 1)) else {
        return 0
    }
    switch data[0] % 6 {
    case 0:
        if let o = try? DataSourceOptions(json: json), (try? DataSourceOptions(json: o.json)) == nil {
            fatalError("data source options do not read back: \(JSON.serialize(o.json))")
        }
    case 1: _ = try? SuperclusterOptions.read(json: json)
    case 2: _ = try? TilingOptions(json: json)
    case 3: _ = try? TileSourceOptions(json: json)
    case 4: _ = try? TilesetWriteOptions(json: json)
    default: _ = try? ClusterProperties(json: json)
    }
    return 0
}
