// C boundary for include/mapcore/vector_tile.h: decoding Mapbox Vector Tiles.
import CMapCoreABI
import MapCore

/// MC_MVT_LNGLAT: positions in longitude/latitude of the tile z/x/y.
private let lngLatFlag: UInt32 = 0x100

@_cdecl("mc_mvt_decode")
public func mc_mvt_decode(
    _ data: UnsafeRawPointer?, _ len: Int, _ z: Int32, _ x: Int32, _ y: Int32, _ flags: UInt32,
    _ out: UnsafeMutablePointer<mc_buf>?
) -> Int32 {
    boundary { () throws(MapCoreError) in
        let out = try required(out, "out")
        let bytes = try inputBytes(data?.assumingMemoryBound(to: CChar.self), len, "data")
        let pretty = try serializeFlags(flags & ~lngLatFlag)
        let raw = UnsafeRawBufferPointer(bytes)
        let tile = try VectorTile(decodingMaybeCompressed: raw)
        let lnglat = flags & lngLatFlag != 0
        try fill(out, with: try tile.geoJSON(tile: lnglat ? (Int(z), Int(x), Int(y)) : nil, pretty: pretty))
    }
}
