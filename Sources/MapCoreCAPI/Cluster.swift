// C boundary for include/mapcore/cluster.h: cluster indexes and data sources.
import Glibc
import CMapCoreABI
import MapCore

/// What a `mc_cluster_index *` points to: the current index, swapped whole on load.
final class ClusterIndexHandle: @unchecked Sendable {
    private let lock = Lock()
    private var current: Supercluster

    init(_ index: Supercluster) { current = index }

    var index: Supercluster { lock.withLock { current } }

    /// Builds a new index with the current options and publishes it; on error nothing changes.
    func replace(_ build: (SuperclusterOptions, ClusterProperties?) throws(MapCoreError) -> Supercluster) throws(MapCoreError) {
        let base = index
        let next = try build(base.options, base.clusterProperties)
        lock.withLock { current = next }
    }
}

private func clusterIndex(_ handle: OpaquePointer?) throws(MapCoreError) -> Supercluster {
    guard let h = handles.lookup(handle, kind: .clusterIndex, as: ClusterIndexHandle.self) else { throw misuse("mc_cluster_index") }
    return h.index
}

private func sourceHandle(_ handle: OpaquePointer?) throws(MapCoreError) -> DataSource {
    guard let h = handles.lookup(handle, kind: .source, as: DataSource.self) else { throw misuse("mc_source") }
    return h
}

/// Optional JSON object text: NULL with length 0 means "{}".
private func optionsJSON(_ text: UnsafePointer<CChar>?, _ len: Int) throws(MapCoreError) -> JSONValue {
    if text == nil && len == 0 { return .object(JSONObject()) }
    return try JSON.parse(try inputBytes(text, len, "options_json"))
}

private func superclusterOptions(_ json: JSONValue) throws(MapCoreError) -> (SuperclusterOptions, ClusterProperties?) {
    guard case .object(let o) = json else { throw MapCoreError(.invalidArgument, "Cluster index options must be a JSON object.") }
    var options = SuperclusterOptions()
    var properties: ClusterProperties?
    func int(_ key: String, _ v: JSONValue) throws(MapCoreError) -> Int {
        guard let d = v.doubleValue, d == d.rounded(), abs(d) <= 1e9 else { throw MapCoreError(.invalidArgument, "Option \(key) must be an integer.") }
        return Int(d)
    }
    func number(_ key: String, _ v: JSONValue) throws(MapCoreError) -> Double {
        guard let d = v.doubleValue else { throw MapCoreError(.invalidArgument, "Option \(key) must be a number.") }
        return d
    }
    for (key, v) in o {
        switch key {
        case "radius": options.radius = try number(key, v)
        case "extent": options.extent = try number(key, v)
        case "minZoom": options.minZoom = try int(key, v)
        case "maxZoom": options.maxZoom = try int(key, v)
        case "minPoints": options.minPoints = try int(key, v)
        case "nodeSize": options.nodeSize = try int(key, v)
        case "generateId":
            guard case .bool(let b) = v else { throw MapCoreError(.invalidArgument, "Option generateId must be true or false.") }
            options.generateId = b
        case "clusterProperties": properties = v == .null ? nil : try ClusterProperties(json: v)
        case "log": continue  // supercluster's console timing; accepted and ignored
        default: throw MapCoreError(.invalidArgument, "Unknown cluster index option \"\(key)\".")
        }
    }
    return (options, properties)
}

private func bboxArgument(_ bbox: UnsafePointer<Double>?) throws(MapCoreError) -> (Double, Double, Double, Double) {
    guard let bbox else { throw MapCoreError(.invalidArgument, "bbox must not be NULL.") }
    return (bbox[0], bbox[1], bbox[2], bbox[3])
}

private func serializeFlags(_ flags: UInt32) throws(MapCoreError) -> Bool {
    guard flags & ~UInt32(MC_SERIALIZE_PRETTY) == 0 else {
        throw MapCoreError(.invalidArgument, "Unknown serialize flags 0x\(String(flags, radix: 16)).")
    }
    return flags & UInt32(MC_SERIALIZE_PRETTY) != 0
}

private func page(_ p: UnsafePointer<mc_page>?) -> (offset: Int, limit: Int) {
    guard let p else { return (0, 10) }
    // size_t imports as Int: values above Int.max (MC_LIMIT_ALL) arrive negative and mean "all".
    let offset = p.pointee.offset < 0 ? Int.max : p.pointee.offset
    let limit = p.pointee.limit < 0 ? Int.max : p.pointee.limit
    return (offset, limit)
}

private func clusterID(_ id: Int64) -> Int { Int(id) }

/// Writes items into a caller array with the buffer-too-small convention.
private func fillItems(_ sc: Supercluster, _ items: [ClusterItem], _ out: UnsafeMutablePointer<mc_cluster_item>?,
                       _ capacity: Int, _ outCount: UnsafeMutablePointer<Int>?) throws(MapCoreError) {
    try fillRecords(out, capacity, outCount) { (room, write) throws(MapCoreError) in
        guard items.count <= room else { return items.count }
        for (k, item) in items.enumerated() { write(k, sc.record(item)) }
        return items.count
    }
}

/// The flat-array convention: `produce` writes records only when `room` holds them all and
/// returns how many there are; too small a capacity writes nothing and reports the need.
private func fillRecords(_ out: UnsafeMutablePointer<mc_cluster_item>?, _ capacity: Int, _ outCount: UnsafeMutablePointer<Int>?,
                         _ produce: (Int, (Int, ClusterRecord) -> Void) throws(MapCoreError) -> Int) throws(MapCoreError) {
    let outCount = try required(outCount, "out_count")
    guard capacity >= 0 else { throw MapCoreError(.invalidArgument, "capacity is too large.") }
    let room = out == nil ? 0 : capacity
    let count = try produce(room) { k, r in
        out?[k] = mc_cluster_item(id: Int64(r.id), lng: r.lng, lat: r.lat, point_count: Int64(r.pointCount))
    }
    outCount.pointee = count
    guard count <= room else {
        guard out != nil || count > capacity else { throw MapCoreError(.invalidArgument, "items must not be NULL.") }
        throw MapCoreError(.bufferTooSmall, "The array holds \(capacity) items; \(count) are needed.")
    }
}

// MARK: cluster index

@_cdecl("mc_cluster_index_new")
public func mc_cluster_index_new(_ options: UnsafePointer<CChar>?, _ len: Int, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    boundary { () throws(MapCoreError) in
        let out = try required(out, "out")
        let (o, props) = try superclusterOptions(try optionsJSON(options, len))
        let empty = try Supercluster(features: [], options: o, clusterProperties: props)
        out.pointee = handles.register(ClusterIndexHandle(empty), kind: .clusterIndex)
    }
}

@_cdecl("mc_cluster_index_free")
public func mc_cluster_index_free(_ handle: OpaquePointer?) {
    handles.release(handle, kind: .clusterIndex)
}

@_cdecl("mc_cluster_index_load")
public func mc_cluster_index_load(_ handle: OpaquePointer?, _ data: OpaquePointer?) -> Int32 {
    boundary { () throws(MapCoreError) in
        guard let h = handles.lookup(handle, kind: .clusterIndex, as: ClusterIndexHandle.self) else { throw misuse("mc_cluster_index") }
        let value = try geojsonHandle(data).value
        let features: [Feature]
        if case .geometry(let g) = value { features = [Feature(geometry: g)] } else { features = value.features }
        try h.replace { (o, p) throws(MapCoreError) in try Supercluster(features: features, options: o, clusterProperties: p) }
    }
}

@_cdecl("mc_cluster_index_load_points")
public func mc_cluster_index_load_points(_ handle: OpaquePointer?, _ lnglat: UnsafePointer<Double>?, _ count: Int) -> Int32 {
    boundary { () throws(MapCoreError) in
        guard let h = handles.lookup(handle, kind: .clusterIndex, as: ClusterIndexHandle.self) else { throw misuse("mc_cluster_index") }
        let xy = try inputPositions(lnglat, count, "lnglat")
        try h.replace { (o, p) throws(MapCoreError) in try Supercluster(positions: xy, options: o, clusterProperties: p) }
    }
}

@_cdecl("mc_cluster_index_get_clusters")
public func mc_cluster_index_get_clusters(_ handle: OpaquePointer?, _ bbox: UnsafePointer<Double>?, _ zoom: Double,
                                          _ flags: UInt32, _ out: UnsafeMutablePointer<mc_buf>?) -> Int32 {
    boundary { () throws(MapCoreError) in
        let sc = try clusterIndex(handle)
        let (w, s, e, n) = try bboxArgument(bbox)
        let out = try required(out, "out")
        let pretty = try serializeFlags(flags)
        try fill(out, with: sc.featureCollection(try sc.clusters(west: w, south: s, east: e, north: n, zoom: zoom), pretty: pretty))
    }
}

@_cdecl("mc_cluster_index_get_clusters_flat")
public func mc_cluster_index_get_clusters_flat(_ handle: OpaquePointer?, _ bbox: UnsafePointer<Double>?, _ zoom: Double,
                                               _ items: UnsafeMutablePointer<mc_cluster_item>?, _ capacity: Int,
                                               _ outCount: UnsafeMutablePointer<Int>?) -> Int32 {
    boundary { () throws(MapCoreError) in
        let sc = try clusterIndex(handle)
        let (w, s, e, n) = try bboxArgument(bbox)
        try fillRecords(items, capacity, outCount) { (room, write) throws(MapCoreError) in
            try sc.clusterRecords(west: w, south: s, east: e, north: n, zoom: zoom, capacity: room, write: write)
        }
    }
}

@_cdecl("mc_cluster_index_get_tile")
public func mc_cluster_index_get_tile(_ handle: OpaquePointer?, _ z: Int32, _ x: Int32, _ y: Int32, _ flags: UInt32,
                                      _ out: UnsafeMutablePointer<mc_buf>?) -> Int32 {
    boundary { () throws(MapCoreError) in
        let sc = try clusterIndex(handle)
        let out = try required(out, "out")
        let pretty = try serializeFlags(flags)
        try fill(out, with: sc.tileJSON(try sc.tile(z: Int(z), x: Int(x), y: Int(y)), pretty: pretty))
    }
}

@_cdecl("mc_cluster_index_get_children")
public func mc_cluster_index_get_children(_ handle: OpaquePointer?, _ id: Int64, _ flags: UInt32,
                                          _ out: UnsafeMutablePointer<mc_buf>?) -> Int32 {
    boundary { () throws(MapCoreError) in
        let sc = try clusterIndex(handle)
        let out = try required(out, "out")
        let pretty = try serializeFlags(flags)
        try fill(out, with: sc.featureCollection(try sc.children(of: clusterID(id)), pretty: pretty))
    }
}

@_cdecl("mc_cluster_index_get_leaves")
public func mc_cluster_index_get_leaves(_ handle: OpaquePointer?, _ id: Int64, _ pageArg: UnsafePointer<mc_page>?,
                                        _ flags: UInt32, _ out: UnsafeMutablePointer<mc_buf>?) -> Int32 {
    boundary { () throws(MapCoreError) in
        let sc = try clusterIndex(handle)
        let out = try required(out, "out")
        let pretty = try serializeFlags(flags)
        let (offset, limit) = page(pageArg)
        let leaves = try sc.leaves(of: clusterID(id), offset: offset, limit: limit)
        try fill(out, with: sc.featureCollection(leaves.map { .point($0) }, pretty: pretty))
    }
}

@_cdecl("mc_cluster_index_get_leaves_flat")
public func mc_cluster_index_get_leaves_flat(_ handle: OpaquePointer?, _ id: Int64, _ pageArg: UnsafePointer<mc_page>?,
                                             _ items: UnsafeMutablePointer<mc_cluster_item>?, _ capacity: Int,
                                             _ outCount: UnsafeMutablePointer<Int>?) -> Int32 {
    boundary { () throws(MapCoreError) in
        let sc = try clusterIndex(handle)
        let (offset, limit) = page(pageArg)
        try fillItems(sc, try sc.leaves(of: clusterID(id), offset: offset, limit: limit).map { .point($0) }, items, capacity, outCount)
    }
}

@_cdecl("mc_cluster_index_get_expansion_zoom")
public func mc_cluster_index_get_expansion_zoom(_ handle: OpaquePointer?, _ id: Int64, _ out: UnsafeMutablePointer<Int32>?) -> Int32 {
    boundary { () throws(MapCoreError) in
        let sc = try clusterIndex(handle)
        let out = try required(out, "out_zoom")
        out.pointee = Int32(try sc.expansionZoom(of: clusterID(id)))
    }
}

@_cdecl("mc_cluster_index_get_cluster_hull")
public func mc_cluster_index_get_cluster_hull(_ handle: OpaquePointer?, _ id: Int64, _ out: UnsafeMutablePointer<mc_buf>?) -> Int32 {
    boundary { () throws(MapCoreError) in
        let sc = try clusterIndex(handle)
        let out = try required(out, "out")
        guard let hull = try sc.leafHull(of: clusterID(id)) else {
            throw MapCoreError(.notFound, "Cluster \(id) has no points.")
        }
        try fill(out, with: GeoJSON.geometry(hull).serialize())
    }
}

@_cdecl("mc_cluster_index_stats")
public func mc_cluster_index_stats(_ handle: OpaquePointer?, _ out: UnsafeMutablePointer<mc_buf>?) -> Int32 {
    boundary { () throws(MapCoreError) in
        let sc = try clusterIndex(handle)
        let out = try required(out, "out")
        try fill(out, with: Array(JSON.serialize(sc.statsJSON).utf8))
    }
}

// MARK: data source

private func featureKey(_ text: UnsafePointer<CChar>?, _ len: Int) throws(MapCoreError) -> FeatureKey {
    let value = try JSON.parse(try inputBytes(text, len, "id_json"))
    guard let key = FeatureKey(json: value) else {
        throw MapCoreError(.invalidArgument, "A feature id is a JSON string or number.")
    }
    return key
}

@_cdecl("mc_source_new")
public func mc_source_new(_ options: UnsafePointer<CChar>?, _ len: Int, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
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
        let bytes = try Fetch.bytes(from: String(decoding: UnsafeRawBufferPointer(start: location, count: strlen(location)), as: UTF8.self))
        let value = try bytes.withUnsafeBufferPointer { (b) throws(MapCoreError) in try GeoJSONParser.parse(b) }
        try source.add(value)
    }
}

@_cdecl("mc_source_remove")
public func mc_source_remove(_ handle: OpaquePointer?, _ id: UnsafePointer<CChar>?, _ len: Int, _ outRemoved: UnsafeMutablePointer<Int>?) -> Int32 {
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
public func mc_source_get(_ handle: OpaquePointer?, _ id: UnsafePointer<CChar>?, _ len: Int, _ flags: UInt32,
                          _ out: UnsafeMutablePointer<mc_buf>?) -> Int32 {
    boundary { () throws(MapCoreError) in
        let source = try sourceHandle(handle)
        let key = try featureKey(id, len)
        let out = try required(out, "out")
        let pretty = try serializeFlags(flags)
        guard let f = source.snapshot.feature(withID: key) else { throw MapCoreError(.notFound, "No feature with that id.") }
        try fill(out, with: GeoJSON.feature(f).serialize(pretty: pretty))
    }
}

@_cdecl("mc_source_to_geojson")
public func mc_source_to_geojson(_ handle: OpaquePointer?, _ flags: UInt32, _ out: UnsafeMutablePointer<mc_buf>?) -> Int32 {
    boundary { () throws(MapCoreError) in
        let source = try sourceHandle(handle)
        let out = try required(out, "out")
        let pretty = try serializeFlags(flags)
        try fill(out, with: GeoJSON.featureCollection(FeatureCollection(features: source.snapshot.features)).serialize(pretty: pretty))
    }
}

@_cdecl("mc_source_get_clusters")
public func mc_source_get_clusters(_ handle: OpaquePointer?, _ bbox: UnsafePointer<Double>?, _ zoom: Double,
                                   _ flags: UInt32, _ out: UnsafeMutablePointer<mc_buf>?) -> Int32 {
    boundary { () throws(MapCoreError) in
        let source = try sourceHandle(handle)
        let (w, s, e, n) = try bboxArgument(bbox)
        let out = try required(out, "out")
        let pretty = try serializeFlags(flags)
        try fill(out, with: try source.snapshot.clusterItemsJSON(west: w, south: s, east: e, north: n, zoom: zoom, pretty: pretty))
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
