// C boundary for include/mapcore/geojson.h: parse, inspect and serialize GeoJSON handles.
import CMapCoreABI
import MapCore

/// What a `mc_geojson *` points to: one immutable parsed value.
final class GeoJSONHandle {
    let value: GeoJSON
    /// The features for batch evaluation, with the property columns built so far.
    let table: FeatureTable
    init(_ value: GeoJSON) {
        self.value = value
        table = FeatureTable(value)
    }
}

func geojsonHandle(_ handle: OpaquePointer?) throws(MapCoreError) -> GeoJSONHandle {
    guard let h = handles.lookup(handle, kind: .geojson, as: GeoJSONHandle.self) else { throw misuse("mc_geojson") }
    return h
}

func newGeoJSONHandle(_ value: GeoJSON) -> OpaquePointer {
    handles.register(GeoJSONHandle(value), kind: .geojson)
}

func parseLimits(_ options: UnsafePointer<mc_parse_options>?) throws(MapCoreError) -> ParseLimits {
    guard let options else { return ParseLimits() }
    guard options.pointee.version >= 1 else {
        throw MapCoreError(.invalidArgument, "mc_parse_options.version must be set (use MC_PARSE_OPTIONS_INIT).")
    }
    let depth = Int(options.pointee.max_depth)
    guard depth <= ParseLimits.maxAllowedDepth else {
        throw MapCoreError(.invalidArgument, "max_depth \(depth) is above the limit of \(ParseLimits.maxAllowedDepth).")
    }
    // `flags` exists from version 2 on; a version 1 struct ends before it.
    let flags = options.pointee.version >= 2 ? options.pointee.flags : 0
    guard flags & ~UInt32(MC_PARSE_LENIENT) == 0 else {
        throw MapCoreError(.invalidArgument, "Unknown mc_parse_options flags 0x\(String(flags, radix: 16)).")
    }
    return ParseLimits(
        maxDepth: depth == 0 ? ParseLimits.defaultMaxDepth : depth, lenient: flags & UInt32(MC_PARSE_LENIENT) != 0)
}

@_cdecl("mc_geojson_parse")
public func mc_geojson_parse(
    _ json: UnsafePointer<CChar>?, _ len: Int, _ options: UnsafePointer<mc_parse_options>?,
    _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
    boundary { () throws(MapCoreError) in
        let out = try required(out, "out")
        let limits = try parseLimits(options)
        let value = try GeoJSONParser.parse(try inputBytes(json, len, "json"), limits: limits)
        out.pointee = newGeoJSONHandle(value)
    }
}

@_cdecl("mc_geojson_free")
public func mc_geojson_free(_ handle: OpaquePointer?) {
    handles.release(handle, kind: .geojson)
}

@_cdecl("mc_geojson_kind")
public func mc_geojson_kind(_ handle: OpaquePointer?, _ out: UnsafeMutablePointer<Int32>?) -> Int32 {
    boundary { () throws(MapCoreError) in
        let h = try geojsonHandle(handle)
        let out = try required(out, "out_kind")
        switch h.value {
        case .geometry: out.pointee = 1
        case .feature: out.pointee = 2
        case .featureCollection: out.pointee = 3
        }
    }
}

@_cdecl("mc_geojson_feature_count")
public func mc_geojson_feature_count(_ handle: OpaquePointer?, _ out: UnsafeMutablePointer<Int>?) -> Int32 {
    boundary { () throws(MapCoreError) in
        let h = try geojsonHandle(handle)
        let out = try required(out, "out_count")
        switch h.value {
        case .geometry: out.pointee = 0
        case .feature: out.pointee = 1
        case .featureCollection(let c): out.pointee = c.features.count
        }
    }
}

@_cdecl("mc_geojson_geometry_type")
public func mc_geojson_geometry_type(_ handle: OpaquePointer?, _ out: UnsafeMutablePointer<Int32>?) -> Int32 {
    boundary { () throws(MapCoreError) in
        let h = try geojsonHandle(handle)
        let out = try required(out, "out_type")
        switch h.value {
        case .geometry(let g): out.pointee = g.type.rawValue
        case .feature(let f): out.pointee = f.geometry?.type.rawValue ?? 0
        case .featureCollection:
            throw MapCoreError(.invalidArgument, "A FeatureCollection has no single geometry type.")
        }
    }
}

@_cdecl("mc_geojson_serialize")
public func mc_geojson_serialize(
    _ handle: OpaquePointer?, _ flags: UInt32, _ out: UnsafeMutablePointer<mc_buf>?
) -> Int32 {
    boundary { () throws(MapCoreError) in
        let h = try geojsonHandle(handle)
        let out = try required(out, "out")
        switch try serializedForm(flags) {
        case .json(let pretty): try fill(out, with: h.value.serialize(pretty: pretty))
        case .messagePack: try fill(out, with: try h.value.serializeMessagePack())
        }
    }
}
