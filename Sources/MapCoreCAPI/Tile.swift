// C boundary for include/mapcore/tile.h: geojson-vt tile indexes, tiles as JSON and as MVT.
import CMapCoreABI
import MapCore

private func tileIndex(_ handle: OpaquePointer?) throws(MapCoreError) -> TileIndex {
    guard let h = handles.lookup(handle, kind: .tileIndex, as: TileIndex.self) else { throw misuse("mc_tile_index") }
    return h
}

/// A tile argument: z in 0…24 (geojson-vt's zooms), x and y in 0..<2^z.
func tileArgument(_ z: Int32, _ x: Int32, _ y: Int32) throws(MapCoreError) -> (z: Int, x: Int, y: Int) {
    guard (0...Int32(TilingOptions.maxAllowedZoom)).contains(z), x >= 0, y >= 0, x < 1 << z, y < 1 << z else {
        throw MapCoreError(.invalidArgument, "Tile \(z)/\(x)/\(y) is not a tile: z in 0...24, x and y in 0..<2^z.")
    }
    return (Int(z), Int(x), Int(y))
}

/// The layer name argument of the MVT functions: NULL for "geojson".
func layerName(_ name: UnsafePointer<CChar>?) throws(MapCoreError) -> String {
    guard let name else { return "geojson" }
    guard let s = String(validatingCString: name) else {
        throw MapCoreError(.invalidArgument, "layer is not valid UTF-8.")
    }
    return s
}

@_cdecl("mc_tile_index_new")
public func mc_tile_index_new(
    _ data: OpaquePointer?, _ options: UnsafePointer<CChar>?, _ len: Int,
    _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
    boundary { () throws(MapCoreError) in
        let out = try required(out, "out")
        let value = try geojsonHandle(data).value
        let index = try TileIndex(value, options: try TilingOptions(json: try optionsJSON(options, len)))
        out.pointee = handles.register(index, kind: .tileIndex)
    }
}

@_cdecl("mc_tile_index_free")
public func mc_tile_index_free(_ handle: OpaquePointer?) {
    handles.release(handle, kind: .tileIndex)
}

@_cdecl("mc_tile_index_get_tile")
public func mc_tile_index_get_tile(
    _ handle: OpaquePointer?, _ z: Int32, _ x: Int32, _ y: Int32, _ flags: UInt32,
    _ out: UnsafeMutablePointer<mc_buf>?
) -> Int32 {
    boundary { () throws(MapCoreError) in
        let index = try tileIndex(handle)
        let out = try required(out, "out")
        let pretty = try serializeFlags(flags)
        let t = try tileArgument(z, x, y)
        try fill(out, with: index.tileJSON(z: t.z, x: t.x, y: t.y, pretty: pretty))
    }
}

@_cdecl("mc_tile_index_get_tile_mvt")
public func mc_tile_index_get_tile_mvt(
    _ handle: OpaquePointer?, _ z: Int32, _ x: Int32, _ y: Int32,
    _ layer: UnsafePointer<CChar>?, _ out: UnsafeMutablePointer<mc_buf>?
) -> Int32 {
    boundary { () throws(MapCoreError) in
        let index = try tileIndex(handle)
        let out = try required(out, "out")
        let name = try layerName(layer)
        let t = try tileArgument(z, x, y)
        try fill(
            out,
            placing: { (placement) throws(MapCoreError) in
                try index.mvt(z: t.z, x: t.x, y: t.y, layer: name, into: placement)
            })
    }
}

@_cdecl("mc_tile_index_stats")
public func mc_tile_index_stats(
    _ handle: OpaquePointer?, _ flags: UInt32, _ out: UnsafeMutablePointer<mc_buf>?
) -> Int32 {
    boundary { () throws(MapCoreError) in
        let index = try tileIndex(handle)
        let out = try required(out, "out")
        let pretty = try serializeFlags(flags)
        let made = index.madeTiles
        var o = JSONObject()
        o["total"] = .int(Int64(made.count))
        o["options"] = index.options.json
        o["indexedTiles"] = .array(made.map { .array([.int(Int64($0.z)), .int(Int64($0.x)), .int(Int64($0.y))]) })
        try fill(out, with: Array(JSON.serialize(.object(o), pretty: pretty).utf8))
    }
}
