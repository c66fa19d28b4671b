// Fuzz target: the GeoJSON parser, strict and lenient (MapLibre's reading of rings). Properties
// (a property broken is a crash, which libFuzzer reports with the input): what parses
// serializes to text that parses to an equal value, in each mode; what the strict mode accepts
// the lenient one accepts as the same value; and the operations that meet lenient rings in
// MapLibre's places (bounding box, convex hull, tiling, `within` and `distance` evaluated on
// each feature) answer or report an error, never trap; a tile's MVT, written from its arrays,
// is the MVT of its features.
import MapCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGeoJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = UnsafeBufferPointer(start: data, count: size)
    let strict = try? GeoJSONParser.parse(input)
    guard let value = try? GeoJSONParser.parse(input, limits: .lenientGeoJSON) else {
        if strict != nil { fatalError("the strict parse accepts what the lenient one refuses") }
        return 0
    }
    if let strict, strict != value { fatalError("strict and lenient parses differ") }
    let text = value.serialize()
    let again = text.withUnsafeBufferPointer { try? GeoJSONParser.parse($0, limits: .lenientGeoJSON) }
    if again != value { fatalError("GeoJSON round trip changed the value: \(String(decoding: text, as: UTF8.self))") }
    if strict != nil, text.withUnsafeBufferPointer({ try? GeoJSONParser.parse($0) }) != value {
        fatalError("a strict value does not read back strictly")
    }
    _ = BoundingBox.of(value)
    _ = try? ConvexHull.geometry(of: value)
    var tiling = TilingOptions()
    tiling.maxZoom = 2
    if let index = try? TileIndex(value, options: tiling) {
        _ = index.tile(z: 0, x: 0, y: 0)
        // The MVT is written from the tile's own arrays; it must be the MVT of its features.
        let features = index.tile(z: 1, x: 1, y: 0) ?? []
        let expected =
            features.isEmpty
            ? []
            : VectorTileEncoder.encode(
                layer: "l", extent: Int(tiling.extent), features: features, version: tiling.compatibility.mvtVersion)
        if (try? index.mvt(z: 1, x: 1, y: 0, layer: "l")) != expected {
            fatalError("the MVT of a tile's arrays differs from the MVT of its features")
        }
    }
    guard
        let within = try? StyleExpression.compiled(
            JSON.parse(#"["within", {"type": "Polygon", "coordinates": [[[0, 0], [0, 5], [5, 5], [0, 0]]]}]"#)),
        let distance = try? StyleExpression.compiled(
            JSON.parse(#"["distance", {"type": "LineString", "coordinates": [[0, 0], [3, 4]]}]"#))
    else { fatalError("the probe expressions do not compile") }
    var features = value.features
    if case .geometry(let g) = value { features = [Feature(geometry: g)] }
    for f in features.prefix(8) {
        var ctx = EvaluationContext(zoom: 3)
        ctx.setFeature(f)
        _ = try? within.evaluate(ctx)
        _ = try? distance.evaluate(ctx)
    }
    return 0
}
