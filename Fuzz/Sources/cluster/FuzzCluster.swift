// Fuzz target: supercluster's index over the input's points, under options and aggregate cluster
// properties its first 3 bytes pick (radius, extent, zooms, minPoints, nodeSize, generateId, and
// supercluster JS's build or supercluster-cpp's: `maplibreNativeOutput`); the rest is GeoJSON.
// Properties (a property broken is a crash, which libFuzzer reports with the input): building and
// every query answer or report an error, never trap; when every longitude is within -180...180,
// every zoom's world query counts each point once (the sum of the items' point counts is the same
// at every zoom); a cluster's children sum to its point count, its leaves are as many, and it
// expands at a zoom after the one it was formed at, at most maxZoom + 1.
import MapCore

private let radii = [40.0, 1, 1e-9, 1e9, 80]
private let extents = [512.0, 1, 4096, 1e12]
private let zooms = [(0, 16), (0, 0), (2, 5), (0, 30), (5, 7)]
private let minPoints = [2, 3, 50]
private let nodeSizes = [64, 2, 7]
private let aggregates = [
    nil, #"{"sum": ["+", ["get", "n"]]}"#, #"{"max": ["max", ["get", "n"]], "any": ["any", ["has", "n"]]}"#,
    #"{"s": [["concat", ["accumulated"], ["get", "s"]], ["to-string", ["get", "s"]]]}"#,
]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCluster(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size >= 3 else { return 0 }
    let (a, b, c) = (Int(data[0]), Int(data[1]), Int(data[2]))
    var options = SuperclusterOptions()
    options.radius = radii[a % radii.count]
    options.extent = extents[(a / 8) % extents.count]
    (options.minZoom, options.maxZoom) = zooms[b % zooms.count]
    options.minPoints = minPoints[(b / 8) % minPoints.count]
    options.nodeSize = nodeSizes[(b / 32) % nodeSizes.count]
    options.generateId = c & 1 != 0
    options.maplibreNativeOutput = c & 8 != 0
    let input = UnsafeBufferPointer(start: data + 3, count: size - 3)
    guard let value = try? GeoJSONParser.parse(input, limits: .lenientGeoJSON) else { return 0 }
    var features = value.features
    if case .geometry(let g) = value { features = [Feature(geometry: g)] }
    let properties = aggregates[(c / 2) % aggregates.count].flatMap { try? ClusterProperties(json: JSON.parse($0)) }
    guard let index = try? Supercluster(features: features, options: options, clusterProperties: properties) else {
        return 0
    }
    let points = features.filter { $0.geometry.map(Supercluster.indexable) ?? false }
    let inWorld = points.allSatisfy { f in f.geometry.map { $0.xy[0] >= -180 && $0.xy[0] <= 180 } ?? false }
    var counted: Int?
    let checked = Array(options.minZoom...min(options.maxZoom + 1, options.minZoom + 5)) + [options.maxZoom + 1]
    for z in checked {
        guard let items = try? index.clusters(west: -180, south: -90, east: 180, north: 90, zoom: Double(z)) else {
            fatalError("zoom \(z): the world query failed")
        }
        let sum = items.reduce(0) { $0 + index.pointCount($1) }
        if inWorld, let counted, counted != sum { fatalError("zoom \(z) counts \(sum) points, another \(counted)") }
        counted = sum
        for item in items.prefix(16) {
            guard case .cluster = item else { continue }
            let id = index.id(item), count = index.pointCount(item)
            guard let children = try? index.children(of: id),
                let leaves = try? index.leaves(of: id, offset: 0, limit: .max),
                let expansion = try? index.expansionZoom(of: id)
            else { fatalError("cluster \(id) at zoom \(z): its children, leaves or expansion zoom failed") }
            let childSum = children.reduce(0) { $0 + index.pointCount($1) }
            if childSum != count || leaves.count != count {
                fatalError("cluster \(id) of \(count) points: children sum to \(childSum), \(leaves.count) leaves")
            }
            let formed = ((options.maplibreNativeOutput ? id : id - features.count) & 31) - 1
            if expansion <= formed || expansion > options.maxZoom + 1 {
                fatalError("cluster \(id) formed at zoom \(formed) expands at \(expansion)")
            }
            _ = try? index.leafHull(of: id)
        }
        _ = try? index.tile(z: min(z, 20), x: 0, y: 0)
    }
    if let across = try? index.clusters(west: 170, south: -90, east: -170, north: 90, zoom: 1) {
        _ = index.featureCollection(across)
    }
    return 0
}
