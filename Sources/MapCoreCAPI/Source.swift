// C boundary for include/mapcore/source.h: GeoJSON data sources.
import Glibc
import CMapCoreABI
import MapCore

func sourceHandle(_ handle: OpaquePointer?) throws(MapCoreError) -> DataSource {
    guard let h = handles.lookup(handle, kind: .source, as: DataSource.self) else { throw misuse("mc_source") }
    return h
}

private func featureKey(_ text: UnsafePointer<CChar>?, _ len: Int) throws(MapCoreError) -> FeatureKey {
    let value = try JSON.parse(try inputBytes(text, len, "id_json"))
    guard let key = FeatureKey(json: value) else {
        throw MapCoreError(.invalidArgument, "A feature id is a JSON string or number.")
    }
    return key
}

@_cdecl("mc_source_new")
public func mc_source_new(
    _ options: UnsafePointer<CChar>?, _ len: Int, _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
    boundary { () throws(MapCoreError) in
        let out = try required(out, "out")
        let source = try DataSource(options: try DataSourceOptions(json: try optionsJSON(options, len)))
        out.pointee = handles.register(source, kind: .source)
    }
}

@_cdecl("mc_source_free")
public func mc_source_free(_ handle: OpaquePointer?) {
    handles.release(handle, kind: .source)
}

@_cdecl("mc_source_set_options")
public func mc_source_set_options(_ handle: OpaquePointer?, _ options: UnsafePointer<CChar>?, _ len: Int) -> Int32 {
    boundary { () throws(MapCoreError) in
        try sourceHandle(handle).setOptions(try optionsJSON(options, len))
    }
}

@_cdecl("mc_source_get_options")
public func mc_source_get_options(_ handle: OpaquePointer?, _ out: UnsafeMutablePointer<mc_buf>?) -> Int32 {
    boundary { () throws(MapCoreError) in
        let source = try sourceHandle(handle)
        let out = try required(out, "out")
        try fill(out, with: Array(JSON.serialize(source.snapshot.options.json).utf8))
    }
}

@_cdecl("mc_source_add")
public func mc_source_add(_ handle: OpaquePointer?, _ data: OpaquePointer?) -> Int32 {
    boundary { () throws(MapCoreError) in
        let source = try sourceHandle(handle)
        try source.add(try geojsonHandle(data).value)
    }
}

@_cdecl("mc_source_set")
public func mc_source_set(_ handle: OpaquePointer?, _ data: OpaquePointer?) -> Int32 {
    boundary { () throws(MapCoreError) in
        let source = try sourceHandle(handle)
        try source.set(try geojsonHandle(data).value)
    }
}

@_cdecl("mc_source_import")
public func mc_source_import(_ handle: OpaquePointer?, _ location: UnsafePointer<CChar>?) -> Int32 {
    boundary { () throws(MapCoreError) in
        let source = try sourceHandle(handle)
        guard let location else { throw MapCoreError(.invalidArgument, "location must not be NULL.") }
        try source.requireWritable()
        let bytes = try Fetch.bytes(
            from: String(decoding: UnsafeRawBufferPointer(start: location, count: strlen(location)), as: UTF8.self),
            limit: source.snapshot.options.maxImportBytes)
        let value = try bytes.withUnsafeBufferPointer { (b) throws(MapCoreError) in
            try GeoJSONParser.parse(b, limits: .lenientGeoJSON)
        }
        try source.add(value)
    }
}

@_cdecl("mc_source_remove")
public func mc_source_remove(
    _ handle: OpaquePointer?, _ id: UnsafePointer<CChar>?, _ len: Int, _ outRemoved: UnsafeMutablePointer<Int>?
) -> Int32 {
    boundary { () throws(MapCoreError) in
        let source = try sourceHandle(handle)
        let removed = try source.remove(id: try featureKey(id, len))
        outRemoved?.pointee = removed
    }
}

@_cdecl("mc_source_remove_at")
public func mc_source_remove_at(_ handle: OpaquePointer?, _ index: Int) -> Int32 {
    boundary { () throws(MapCoreError) in
        let source = try sourceHandle(handle)
        guard index >= 0 else { throw MapCoreError(.notFound, "No feature at that index.") }
        try source.remove(at: index)
    }
}

@_cdecl("mc_source_clear")
public func mc_source_clear(_ handle: OpaquePointer?) -> Int32 {
    boundary { () throws(MapCoreError) in try sourceHandle(handle).clear() }
}

@_cdecl("mc_source_count")
public func mc_source_count(_ handle: OpaquePointer?, _ out: UnsafeMutablePointer<Int>?) -> Int32 {
    boundary { () throws(MapCoreError) in
        let source = try sourceHandle(handle)
        try required(out, "out_count").pointee = source.count
    }
}

@_cdecl("mc_source_get")
public func mc_source_get(
    _ handle: OpaquePointer?, _ id: UnsafePointer<CChar>?, _ len: Int, _ flags: UInt32,
    _ out: UnsafeMutablePointer<mc_buf>?
) -> Int32 {
    boundary { () throws(MapCoreError) in
        let source = try sourceHandle(handle)
        let key = try featureKey(id, len)
        let out = try required(out, "out")
        let pretty = try serializeFlags(flags)
        guard let f = source.snapshot.feature(withID: key) else {
            throw MapCoreError(.notFound, "No feature with that id.")
        }
        try fill(out, with: GeoJSON.feature(f).serialize(pretty: pretty))
    }
}

@_cdecl("mc_source_to_geojson")
public func mc_source_to_geojson(
    _ handle: OpaquePointer?, _ flags: UInt32, _ out: UnsafeMutablePointer<mc_buf>?
) -> Int32 {
    boundary { () throws(MapCoreError) in
        let source = try sourceHandle(handle)
        let out = try required(out, "out")
        let pretty = try serializeFlags(flags)
        try fill(
            out,
            with: GeoJSON.featureCollection(FeatureCollection(features: source.snapshot.features)).serialize(
                pretty: pretty))
    }
}

@_cdecl("mc_source_get_clusters")
public func mc_source_get_clusters(
    _ handle: OpaquePointer?, _ bbox: UnsafePointer<Double>?, _ zoom: Double,
    _ flags: UInt32, _ out: UnsafeMutablePointer<mc_buf>?
) -> Int32 {
    boundary { () throws(MapCoreError) in
        let source = try sourceHandle(handle)
        let (w, s, e, n) = try bboxArgument(bbox)
        let out = try required(out, "out")
        let pretty = try serializeFlags(flags)
        try fill(
            out,
            with: try source.snapshot.clusterItemsJSON(west: w, south: s, east: e, north: n, zoom: zoom, pretty: pretty)
        )
    }
}

@_cdecl("mc_source_cluster_index")
public func mc_source_cluster_index(_ handle: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    boundary { () throws(MapCoreError) in
        let source = try sourceHandle(handle)
        let out = try required(out, "out")
        out.pointee = handles.register(ClusterIndexHandle(try source.snapshot.requireClusters()), kind: .clusterIndex)
    }
}

@_cdecl("mc_source_get_tile")
public func mc_source_get_tile(
    _ handle: OpaquePointer?, _ z: Int32, _ x: Int32, _ y: Int32, _ flags: UInt32,
    _ out: UnsafeMutablePointer<mc_buf>?
) -> Int32 {
    boundary { () throws(MapCoreError) in
        let source = try sourceHandle(handle)
        let out = try required(out, "out")
        let pretty = try serializeFlags(flags)
        let t = try tileArgument(z, x, y)
        try fill(out, with: try source.snapshot.tileJSON(z: t.z, x: t.x, y: t.y, pretty: pretty))
    }
}

@_cdecl("mc_source_get_tile_mvt")
public func mc_source_get_tile_mvt(
    _ handle: OpaquePointer?, _ z: Int32, _ x: Int32, _ y: Int32,
    _ layer: UnsafePointer<CChar>?, _ out: UnsafeMutablePointer<mc_buf>?
) -> Int32 {
    boundary { () throws(MapCoreError) in
        let source = try sourceHandle(handle)
        let out = try required(out, "out")
        let name = try layerName(layer)
        let t = try tileArgument(z, x, y)
        try fill(
            out,
            placing: { (placement) throws(MapCoreError) in
                try source.snapshot.tileMVT(z: t.z, x: t.x, y: t.y, layer: name, into: placement)
            })
    }
}

@_cdecl("mc_source_update_data")
public func mc_source_update_data(_ handle: OpaquePointer?, _ diff: UnsafePointer<CChar>?, _ len: Int) -> Int32 {
    boundary { () throws(MapCoreError) in
        let source = try sourceHandle(handle)
        try source.updateData(try SourceDiff.parse(try inputBytes(diff, len, "diff_json")))
    }
}

@_cdecl("mc_source_version")
public func mc_source_version(_ handle: OpaquePointer?, _ out: UnsafeMutablePointer<UInt64>?) -> Int32 {
    boundary { () throws(MapCoreError) in
        let source = try sourceHandle(handle)
        try required(out, "out_version").pointee = source.version
    }
}

@_cdecl("mc_source_snapshot")
public func mc_source_snapshot(_ handle: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    boundary { () throws(MapCoreError) in
        let source = try sourceHandle(handle)
        let out = try required(out, "out")
        out.pointee = handles.register(source.frozen(), kind: .source)
    }
}

@_cdecl("mc_source_changes")
public func mc_source_changes(
    _ handle: OpaquePointer?, _ since: UInt64, _ flags: UInt32, _ out: UnsafeMutablePointer<mc_buf>?
) -> Int32 {
    boundary { () throws(MapCoreError) in
        let source = try sourceHandle(handle)
        let out = try required(out, "out")
        let pretty = try serializeFlags(flags)
        try fill(out, with: Array(JSON.serialize(try source.changes(since: since).json, pretty: pretty).utf8))
    }
}

@_cdecl("mc_source_tile_changed")
public func mc_source_tile_changed(
    _ handle: OpaquePointer?, _ since: UInt64, _ z: Int32, _ x: Int32, _ y: Int32,
    _ outChanged: UnsafeMutablePointer<Int32>?
) -> Int32 {
    boundary { () throws(MapCoreError) in
        let source = try sourceHandle(handle)
        let out = try required(outChanged, "out_changed")
        let t = try tileArgument(z, x, y)
        let state = source.snapshot
        let changes = try source.changes(since: since, upTo: state)
        out.pointee = changes.touches(z: t.z, x: t.x, y: t.y, buffer: state.options.tileBufferFraction) ? 1 : 0
    }
}
