// C boundary for include/mapcore/tilesource.h: vector tile sources, tile URLs, tile cover and the
// camera fit.
import CMapCoreABI
import MapCore

private func tileSource(_ handle: OpaquePointer?) throws(MapCoreError) -> VectorTileSource {
    guard let s = handles.lookup(handle, kind: .tileSource, as: VectorTileSource.self) else {
        throw misuse("mc_tile_source")
    }
    return s
}

private func tileID(_ z: Int32, _ x: Int32, _ y: Int32) throws(MapCoreError) -> TileID {
    try TileID.checked(z: Int(z), x: Int(x), y: Int(y))
}

private func box(_ bbox: UnsafePointer<Double>?) throws(MapCoreError) -> BoundingBox {
    let (w, s, e, n) = try bboxArgument(bbox)
    return BoundingBox(west: w, south: s, east: e, north: n)
}

/// A NUL-terminated UTF-8 layer name, or nil for NULL (every layer).
private func sourceLayer(_ name: UnsafePointer<CChar>?) throws(MapCoreError) -> String? {
    guard let name else { return nil }
    guard let s = String(validatingCString: name) else {
        throw MapCoreError(.invalidArgument, "source_layer is not valid UTF-8.")
    }
    return s
}

/// `[[z, x, y, ...], ...]` written directly (a cover is asked for every frame).
private func tileList(_ tiles: [[Int]]) -> [UInt8] {
    var w = JSONWriter(reserve: 16 + tiles.count * 20)
    w.openArray(inline: true)
    for t in tiles {
        w.element()
        w.openArray(inline: true)
        for v in t {
            w.element()
            w.writeInt(Int64(v))
        }
        w.closeArray()
    }
    w.closeArray()
    return w.bytes
}

/// Features as a FeatureCollection, each with its layer as the foreign member "sourceLayer".
private func collection(_ features: [(layer: String, feature: Feature)], pretty: Bool) -> [UInt8] {
    var w = JSONWriter(pretty: pretty, reserve: 256 + features.count * 256)
    let tagged = features.map { item -> Feature in
        var f = item.feature
        f.foreignMembers["sourceLayer"] = .string(item.layer)
        return f
    }
    w.writeFeatureCollection(FeatureCollection(features: tagged))
    return w.bytes
}

@_cdecl("mc_tile_source_new")
public func mc_tile_source_new(
    _ options: UnsafePointer<CChar>?, _ len: Int, _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
    boundary { () throws(MapCoreError) in
        let out = try required(out, "out")
        let source = try VectorTileSource(options: TileSourceOptions(json: try optionsJSON(options, len)))
        out.pointee = handles.register(source, kind: .tileSource)
    }
}

@_cdecl("mc_tile_source_free")
public func mc_tile_source_free(_ handle: OpaquePointer?) {
    handles.release(handle, kind: .tileSource)
}

@_cdecl("mc_tile_source_info")
public func mc_tile_source_info(
    _ handle: OpaquePointer?, _ flags: UInt32, _ out: UnsafeMutablePointer<mc_buf>?
)
    -> Int32
{
    boundary { () throws(MapCoreError) in
        let source = try tileSource(handle)
        let out = try required(out, "out")
        let pretty = try serializeFlags(flags)
        var o = JSONObject()
        o["options"] = source.options.json
        o["tilejson"] = source.tileJSON.map { .object($0) } ?? .null
        try fill(out, with: Array(JSON.serialize(.object(o), pretty: pretty).utf8))
    }
}

@_cdecl("mc_tile_source_url")
public func mc_tile_source_url(
    _ handle: OpaquePointer?, _ z: Int32, _ x: Int32, _ y: Int32, _ ratio: Double,
    _ out: UnsafeMutablePointer<mc_buf>?
) -> Int32 {
    boundary { () throws(MapCoreError) in
        let source = try tileSource(handle)
        let out = try required(out, "out")
        try fill(out, with: Array(source.url(for: try tileID(z, x, y), pixelRatio: ratio).utf8))
    }
}

@_cdecl("mc_tile_source_cover")
public func mc_tile_source_cover(
    _ handle: OpaquePointer?, _ bbox: UnsafePointer<Double>?, _ zoom: Double, _ out: UnsafeMutablePointer<mc_buf>?
) -> Int32 {
    boundary { () throws(MapCoreError) in
        let source = try tileSource(handle)
        let out = try required(out, "out")
        let tiles = try source.cover(try box(bbox), mapZoom: zoom)
        try fill(out, with: tileList(tiles.map { [$0.tile.z, $0.tile.x, $0.tile.y, $0.overscaledZoom] }))
    }
}

@_cdecl("mc_tile_source_fetch")
public func mc_tile_source_fetch(
    _ handle: OpaquePointer?, _ z: Int32, _ x: Int32, _ y: Int32, _ flags: UInt32,
    _ out: UnsafeMutablePointer<mc_buf>?
) -> Int32 {
    boundary { () throws(MapCoreError) in
        let source = try tileSource(handle)
        let out = try required(out, "out")
        guard flags & ~UInt32(MC_FETCH_RAW) == 0 else {
            throw MapCoreError(.invalidArgument, "Unknown fetch flags 0x\(String(flags, radix: 16)).")
        }
        let bytes = try source.fetch(try tileID(z, x, y), inflate: flags & UInt32(MC_FETCH_RAW) == 0)
        try fill(out, with: bytes ?? [])
    }
}

@_cdecl("mc_tile_source_features")
public func mc_tile_source_features(
    _ handle: OpaquePointer?, _ z: Int32, _ x: Int32, _ y: Int32, _ layer: UnsafePointer<CChar>?,
    _ flags: UInt32, _ out: UnsafeMutablePointer<mc_buf>?
) -> Int32 {
    boundary { () throws(MapCoreError) in
        let source = try tileSource(handle)
        let out = try required(out, "out")
        let geographic = flags & UInt32(MC_MVT_LNGLAT) != 0
        let pretty = try serializeFlags(flags & ~UInt32(MC_MVT_LNGLAT))
        let features = try source.features(
            try tileID(z, x, y), sourceLayer: try sourceLayer(layer), geographic: geographic)
        try fill(out, with: collection(features, pretty: pretty))
    }
}

@_cdecl("mc_tile_source_query")
public func mc_tile_source_query(
    _ handle: OpaquePointer?, _ bbox: UnsafePointer<Double>?, _ zoom: Double, _ layer: UnsafePointer<CChar>?,
    _ filter: UnsafePointer<CChar>?, _ filterLen: Int, _ flags: UInt32, _ out: UnsafeMutablePointer<mc_buf>?
) -> Int32 {
    boundary { () throws(MapCoreError) in
        let source = try tileSource(handle)
        let out = try required(out, "out")
        let pretty = try serializeFlags(flags)
        var compiled: StyleExpression? = nil
        if filter != nil || filterLen != 0 {
            let json = try JSON.parse(try inputBytes(filter, filterLen, "filter_json"))
            compiled = try StyleExpression.compiled(json, spec: .filter, legacyFilters: true, what: "filter")
        }
        let features = try source.query(
            try box(bbox), mapZoom: zoom, sourceLayer: try sourceLayer(layer),
            filter: compiled)
        var w = JSONWriter(pretty: pretty, reserve: 256 + features.count * 256)
        w.writeFeatureCollection(FeatureCollection(features: features))
        try fill(out, with: w.bytes)
    }
}

@_cdecl("mc_tile_url_expand")
public func mc_tile_url_expand(
    _ template: UnsafePointer<CChar>?, _ len: Int, _ z: Int32, _ x: Int32, _ y: Int32, _ tms: Int32,
    _ ratio: Double, _ out: UnsafeMutablePointer<mc_buf>?
) -> Int32 {
    boundary { () throws(MapCoreError) in
        let out = try required(out, "out")
        let bytes = try inputBytes(template, len, "url_template")
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw MapCoreError(.invalidArgument, "url_template is not valid UTF-8.")
        }
        let url = TileURL.expand(text, tile: try tileID(z, x, y), scheme: tms != 0 ? .tms : .xyz, pixelRatio: ratio)
        try fill(out, with: Array(url.utf8))
    }
}

@_cdecl("mc_tile_cover")
public func mc_tile_cover(_ bbox: UnsafePointer<Double>?, _ z: Int32, _ out: UnsafeMutablePointer<mc_buf>?) -> Int32 {
    boundary { () throws(MapCoreError) in
        let out = try required(out, "out")
        let tiles = try TileCover.tiles(covering: try box(bbox), zoom: Int(z))
        try fill(out, with: tileList(tiles.map { [$0.z, $0.x, $0.y] }))
    }
}

@_cdecl("mc_camera_fit")
public func mc_camera_fit(
    _ bbox: UnsafePointer<Double>?, _ width: Double, _ height: Double, _ padding: UnsafePointer<Double>?,
    _ minZoom: Double, _ maxZoom: Double, _ out: UnsafeMutablePointer<Double>?
) -> Int32 {
    boundary { () throws(MapCoreError) in
        let out = try required(out, "out")
        guard minZoom.isFinite, maxZoom.isFinite, minZoom <= maxZoom else {
            throw MapCoreError(.invalidArgument, "min_zoom and max_zoom must be finite with min_zoom <= max_zoom.")
        }
        let pad = padding.map { ($0[0], $0[1], $0[2], $0[3]) } ?? (0, 0, 0, 0)
        let camera = try TileCover.camera(
            fitting: try box(bbox), width: width, height: height, padding: pad,
            zoomRange: minZoom...maxZoom)
        out[0] = camera.longitude
        out[1] = camera.latitude
        out[2] = camera.zoom
    }
}

@_cdecl("mc_tileset_write")
public func mc_tileset_write(
    _ handle: OpaquePointer?, _ path: UnsafePointer<CChar>?, _ options: UnsafePointer<CChar>?, _ len: Int,
    _ out: UnsafeMutablePointer<mc_buf>?
) -> Int32 {
    boundary { () throws(MapCoreError) in
        let source = try sourceHandle(handle)
        guard let path, let target = String(validatingCString: path), !target.isEmpty else {
            throw MapCoreError(.invalidArgument, "path must be a non-empty UTF-8 string.")
        }
        let writeOptions = try TilesetWriteOptions(json: try optionsJSON(options, len))
        let summary = try TilesetWriter.write(source.snapshot, to: target, options: writeOptions)
        guard let out else { return }
        var o = JSONObject()
        o["format"] = .string(summary.format.rawValue)
        o["tiles"] = .int(Int64(summary.tiles))
        o["bytes"] = .int(Int64(summary.bytes))
        o["minzoom"] = .int(Int64(writeOptions.minZoom))
        o["tilesPerZoom"] = .array(summary.tilesPerZoom.map { .int(Int64($0)) })
        try fill(out, with: Array(JSON.serialize(.object(o)).utf8))
    }
}
