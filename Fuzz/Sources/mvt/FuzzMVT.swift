// Fuzz target: the Mapbox Vector Tile decoder (gzip too). Properties: no crash; a decoded tile's
// features convert to GeoJSON features and text, in tile coordinates and in longitude/latitude.
import MapCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMVT(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let raw = UnsafeRawBufferPointer(start: data, count: size)
    guard let tile = try? VectorTile(decodingMaybeCompressed: raw, limit: 1 << 20) else { return 0 }
    _ = try? tile.geoJSON(tile: nil)
    _ = try? tile.geoJSON(tile: (z: 3, x: 2, y: 5))
    for layer in tile.layers {
        for f in layer.features {
            _ = try? f.feature(extent: Double(layer.extent), tile: TileID(z: 3, x: 2, y: 5))
        }
    }
    return 0
}
