// C boundary for include/mapcore/cluster.h: cluster indexes.
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
    func replace(
        _ build: (SuperclusterOptions, ClusterProperties?) throws(MapCoreError) -> Supercluster
    ) throws(MapCoreError) {
        let base = index
        let next = try build(base.options, base.clusterProperties)
        lock.withLock { current = next }
    }
}

private func clusterIndex(_ handle: OpaquePointer?) throws(MapCoreError) -> Supercluster {
    guard let h = handles.lookup(handle, kind: .clusterIndex, as: ClusterIndexHandle.self) else {
        throw misuse("mc_cluster_index")
    }
    return h.index
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
private func fillItems(
    _ sc: Supercluster, _ items: [ClusterItem], _ out: UnsafeMutablePointer<mc_cluster_item>?,
    _ capacity: Int, _ outCount: UnsafeMutablePointer<Int>?
) throws(MapCoreError) {
    try fillRecords(out, capacity, outCount) { (room, write) throws(MapCoreError) in
        guard items.count <= room else { return items.count }
        for (k, item) in items.enumerated() { write(k, sc.record(item)) }
        return items.count
    }
}

/// The flat-array convention: `produce` writes records only when `room` holds them all and
/// returns how many there are; too small a capacity writes nothing and reports the need.
private func fillRecords(
    _ out: UnsafeMutablePointer<mc_cluster_item>?, _ capacity: Int, _ outCount: UnsafeMutablePointer<Int>?,
    _ produce: (Int, (Int, ClusterRecord) -> Void) throws(MapCoreError) -> Int
) throws(MapCoreError) {
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
public func mc_cluster_index_new(
    _ options: UnsafePointer<CChar>?, _ len: Int, _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
    boundary { () throws(MapCoreError) in
        let out = try required(out, "out")
        let (o, props) = try SuperclusterOptions.read(json: try optionsJSON(options, len))
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
        guard let h = handles.lookup(handle, kind: .clusterIndex, as: ClusterIndexHandle.self) else {
            throw misuse("mc_cluster_index")
        }
        let value = try geojsonHandle(data).value
        let features: [Feature]
        if case .geometry(let g) = value { features = [Feature(geometry: g)] } else { features = value.features }
        try h.replace { (o, p) throws(MapCoreError) in
            try Supercluster(features: features, options: o, clusterProperties: p)
        }
    }
}

@_cdecl("mc_cluster_index_load_points")
public func mc_cluster_index_load_points(
    _ handle: OpaquePointer?, _ lnglat: UnsafePointer<Double>?, _ count: Int
) -> Int32 {
    boundary { () throws(MapCoreError) in
        guard let h = handles.lookup(handle, kind: .clusterIndex, as: ClusterIndexHandle.self) else {
            throw misuse("mc_cluster_index")
        }
        let xy = try inputPositions(lnglat, count, "lnglat")
        try h.replace { (o, p) throws(MapCoreError) in try Supercluster(positions: xy, options: o, clusterProperties: p)
        }
    }
}

@_cdecl("mc_cluster_index_get_clusters")
public func mc_cluster_index_get_clusters(
    _ handle: OpaquePointer?, _ bbox: UnsafePointer<Double>?, _ zoom: Double,
    _ flags: UInt32, _ out: UnsafeMutablePointer<mc_buf>?
) -> Int32 {
    boundary { () throws(MapCoreError) in
        let sc = try clusterIndex(handle)
        let (w, s, e, n) = try bboxArgument(bbox)
        let out = try required(out, "out")
        let pretty = try serializeFlags(flags)
        try fill(
            out,
            with: sc.featureCollection(
                try sc.clusters(west: w, south: s, east: e, north: n, zoom: zoom), pretty: pretty))
    }
}

@_cdecl("mc_cluster_index_get_clusters_flat")
public func mc_cluster_index_get_clusters_flat(
    _ handle: OpaquePointer?, _ bbox: UnsafePointer<Double>?, _ zoom: Double,
    _ items: UnsafeMutablePointer<mc_cluster_item>?, _ capacity: Int,
    _ outCount: UnsafeMutablePointer<Int>?
) -> Int32 {
    boundary { () throws(MapCoreError) in
        let sc = try clusterIndex(handle)
        let (w, s, e, n) = try bboxArgument(bbox)
        try fillRecords(items, capacity, outCount) { (room, write) throws(MapCoreError) in
            try sc.clusterRecords(west: w, south: s, east: e, north: n, zoom: zoom, capacity: room, write: write)
        }
    }
}

@_cdecl("mc_cluster_index_get_tile")
public func mc_cluster_index_get_tile(
    _ handle: OpaquePointer?, _ z: Int32, _ x: Int32, _ y: Int32, _ flags: UInt32,
    _ out: UnsafeMutablePointer<mc_buf>?
) -> Int32 {
    boundary { () throws(MapCoreError) in
        let sc = try clusterIndex(handle)
        let out = try required(out, "out")
        let pretty = try serializeFlags(flags)
        try fill(out, with: sc.tileJSON(try sc.tile(z: Int(z), x: Int(x), y: Int(y)), pretty: pretty))
    }
}

@_cdecl("mc_cluster_index_get_children")
public func mc_cluster_index_get_children(
    _ handle: OpaquePointer?, _ id: Int64, _ flags: UInt32,
    _ out: UnsafeMutablePointer<mc_buf>?
) -> Int32 {
    boundary { () throws(MapCoreError) in
        let sc = try clusterIndex(handle)
        let out = try required(out, "out")
        let pretty = try serializeFlags(flags)
        try fill(out, with: sc.featureCollection(try sc.children(of: clusterID(id)), pretty: pretty))
    }
}

@_cdecl("mc_cluster_index_get_children_flat")
public func mc_cluster_index_get_children_flat(
    _ handle: OpaquePointer?, _ id: Int64, _ items: UnsafeMutablePointer<mc_cluster_item>?, _ capacity: Int,
    _ outCount: UnsafeMutablePointer<Int>?
) -> Int32 {
    boundary { () throws(MapCoreError) in
        let sc = try clusterIndex(handle)
        try fillItems(sc, try sc.children(of: clusterID(id)), items, capacity, outCount)
    }
}

@_cdecl("mc_cluster_index_get_leaves")
public func mc_cluster_index_get_leaves(
    _ handle: OpaquePointer?, _ id: Int64, _ pageArg: UnsafePointer<mc_page>?,
    _ flags: UInt32, _ out: UnsafeMutablePointer<mc_buf>?
) -> Int32 {
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
public func mc_cluster_index_get_leaves_flat(
    _ handle: OpaquePointer?, _ id: Int64, _ pageArg: UnsafePointer<mc_page>?,
    _ items: UnsafeMutablePointer<mc_cluster_item>?, _ capacity: Int,
    _ outCount: UnsafeMutablePointer<Int>?
) -> Int32 {
    boundary { () throws(MapCoreError) in
        let sc = try clusterIndex(handle)
        let (offset, limit) = page(pageArg)
        try fillItems(
            sc, try sc.leaves(of: clusterID(id), offset: offset, limit: limit).map { .point($0) }, items, capacity,
            outCount)
    }
}

@_cdecl("mc_cluster_index_get_features")
public func mc_cluster_index_get_features(
    _ handle: OpaquePointer?, _ ids: UnsafePointer<Int64>?, _ count: Int, _ flags: UInt32,
    _ out: UnsafeMutablePointer<mc_buf>?
) -> Int32 {
    boundary { () throws(MapCoreError) in
        let sc = try clusterIndex(handle)
        let out = try required(out, "out")
        let form = try serializedForm(flags)
        let ids = try inputElements(ids, count, "ids")
        // Not reserved from `count`: a count larger than the caller's array must not become an
        // allocation that fails before the first id is read.
        var items: [ClusterItem] = []
        for id in ids { items.append(try sc.item(id: clusterID(id))) }
        switch form {
        case .json(let pretty): try fill(out, with: sc.featureCollection(items, pretty: pretty))
        case .messagePack: try fill(out, with: try sc.featureCollectionMessagePack(items))
        }
    }
}

@_cdecl("mc_cluster_index_get_expansion_zoom")
public func mc_cluster_index_get_expansion_zoom(
    _ handle: OpaquePointer?, _ id: Int64, _ out: UnsafeMutablePointer<Int32>?
) -> Int32 {
    boundary { () throws(MapCoreError) in
        let sc = try clusterIndex(handle)
        let out = try required(out, "out_zoom")
        out.pointee = Int32(try sc.expansionZoom(of: clusterID(id)))
    }
}

@_cdecl("mc_cluster_index_get_cluster_hull")
public func mc_cluster_index_get_cluster_hull(
    _ handle: OpaquePointer?, _ id: Int64, _ out: UnsafeMutablePointer<mc_buf>?
) -> Int32 {
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
