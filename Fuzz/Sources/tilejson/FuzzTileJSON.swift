// Fuzz target: TileJSON documents merged into tile source options, then URLs and covers from the
// result. Property: no crash; a merged source's URL for tile 0/0/0 expands.
import MapCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTileJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard let doc = try? JSON.parse(UnsafeBufferPointer(start: data, count: size)) else { return 0 }
    var explicit = JSONObject()
    explicit["maxzoom"] = .int(10)
    guard let base = try? TileSourceOptions(json: .object(explicit)),
        let options = try? base.filled(fromTileJSON: doc, base: "/tmp/x/tiles.json")
    else { return 0 }
    for template in options.tiles.prefix(4) {
        _ = TileURL.expand(template, tile: TileID(z: 5, x: 17, y: 11), scheme: options.scheme, pixelRatio: 2)
    }
    _ = try? TileCover.tiles(covering: options.bounds, zoom: min(options.maxZoom, 4))
    return 0
}
