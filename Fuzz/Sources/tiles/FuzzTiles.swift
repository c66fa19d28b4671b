// Fuzz target: tiling (geojson-vt's index, drilled down) and MVT encoding, under options the
// input picks. Its first 3 bytes choose the options (extents whose tile coordinates are Int16,
// Int32 and Double, buffers, tolerances, zooms, line metrics, ids, both compatibility modes); the
// rest is GeoJSON. Properties (a property broken is a crash, which libFuzzer reports with the
// input): building and asking for tiles answer or report an error, never trap; a tile has an MVT
// exactly when the options' coordinates fit one (`TilingOptions.validateForMVT`); every tile's MVT,
// written through the interned tags and pointers (`FlatFeatures.mvt`, `TileTags`), is the MVT
// the per-tile encoder writes of the same tile's features, and decodes to as many features; a
// tile asked for twice is written the same; tiles out of range are nil, and x wraps. With bit 6
// of the third byte, the same data as a data source (clustered with bit 7): its tiles' MVTs.
import MapCore

private let extents = [4096.0, 8192, 1, 64, 1_048_576, 8_589_934_592]
private let buffers = [0.0, 64, 2048, 5000]
private let tolerances = [0.0, 3, 6, 1000]
private let maxZooms = [0, 1, 3, 14, 18, 24]
private let indexMaxZooms = [0, 1, 2, 5]
private let indexMaxPoints = [0, 1, 10, 100_000]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTiles(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size >= 3 else { return 0 }
    let (a, b, c) = (Int(data[0]), Int(data[1]), Int(data[2]))
    var options = TilingOptions()
    options.extent = extents[a % extents.count]
    options.buffer = buffers[(a / 8) % buffers.count]
    options.tolerance = tolerances[(a / 32) % tolerances.count]
    options.maxZoom = maxZooms[b % maxZooms.count]
    options.indexMaxZoom = min(options.maxZoom, indexMaxZooms[(b / 8) % indexMaxZooms.count])
    options.indexMaxPoints = indexMaxPoints[(b / 32) % indexMaxPoints.count]
    options.lineMetrics = c & 1 != 0
    options.generateId = c & 2 != 0
    options.promoteId = c & 4 != 0 ? "id" : c & 8 != 0 ? "name" : nil
    options.compatibility = c & 16 != 0 ? .maplibreNative : .geojsonVT
    let input = UnsafeBufferPointer(start: data + 3, count: size - 3)
    guard let value = try? GeoJSONParser.parse(input, limits: .lenientGeoJSON),
        let index = try? TileIndex(value, options: options)
    else { return 0 }
    let layer = c & 32 != 0 ? String(repeating: "n", count: 200) : "l"
    // Options whose coordinates an MVT cannot hold have JSON tiles only.
    let hasMVT = (try? options.validateForMVT()) != nil
    let version = options.compatibility.mvtVersion
    // Tiles with data, parents first, down to a zoom past maxZoom (geojson-vt answers those from
    // the maxZoom tile), at most 48 of them.
    var frontier = [(0, 0, 0)], visited = 0
    let deepest = min(options.maxZoom + 1, 6)
    while let (z, x, y) = frontier.popLast(), visited < 48 {
        guard let features = index.tile(z: z, x: x, y: y) else { continue }
        visited += 1
        if index.tileJSON(z: z, x: x, y: y, pretty: visited % 2 == 0)
            != TileFeature.tileJSON(features, pretty: visited % 2 == 0)
        {
            fatalError("tile \(z)/\(x)/\(y): its JSON from the flat arrays differs from its features' JSON")
        }
        guard let mvt = try? index.mvt(z: z, x: x, y: y, layer: layer) else {
            if hasMVT { fatalError("tile \(z)/\(x)/\(y): no MVT for options that have one") }
            continue
        }
        if !hasMVT { fatalError("tile \(z)/\(x)/\(y): an MVT for coordinates it cannot hold") }
        let expected =
            features.isEmpty
            ? []
            : VectorTileEncoder.encode(
                layer: layer, extent: Int(options.extent), features: features, version: version)
        if mvt != expected { fatalError("tile \(z)/\(x)/\(y): the interned MVT differs from the per-tile encoder's") }
        if (try? index.mvt(z: z, x: x, y: y, layer: layer)) != mvt {
            fatalError("tile \(z)/\(x)/\(y) written twice differs")
        }
        if !mvt.isEmpty {
            let decoded = mvt.withUnsafeBytes { try? VectorTile(decoding: $0) }
            guard let decoded, decoded.layers.count == 1, decoded.layers[0].features.count == features.count else {
                fatalError("tile \(z)/\(x)/\(y): its MVT does not decode to its \(features.count) features")
            }
        }
        if z < deepest {
            for (dx, dy) in [(1, 1), (1, 0), (0, 1), (0, 0)] { frontier.append((z + 1, 2 * x + dx, 2 * y + dy)) }
        }
    }
    for (z, x, y) in [(25, 0, 0), (-1, 0, 0), (Int.max, 0, 0), (1, 0, 2), (1, 0, -1), (3, 0, Int.min)] {
        if index.tile(z: z, x: x, y: y) != nil || !((try? index.mvt(z: z, x: x, y: y, layer: layer)) ?? []).isEmpty {
            fatalError("tile \(z)/\(x)/\(y) is out of range but has features")
        }
    }
    // x wraps around the world, as in geojson-vt. Equal, or else the same as geojson-vt's JSON
    // (which writes NaN as null): a zero-length line's mapbox_clip_start is 0/0 as in
    // geojson-vt, and NaN is not equal to itself.
    for (x, wrapped) in [(Int.min, 0), (Int.max, 1), (-1, 1), (5, 1)] {
        let tile = index.tile(z: 1, x: x, y: 0), expected = index.tile(z: 1, x: wrapped, y: 0)
        if tile != expected && TileFeature.tileJSON(tile) != TileFeature.tileJSON(expected) {
            fatalError("tile 1/\(x)/0 is not tile 1/\(wrapped)/0")
        }
    }
    if c & 64 != 0 { sourceTiles(value, options, clustered: c & 128 != 0, buffer: [0, 64, 256, 512][(a / 8) % 4]) }
    return 0
}

/// The same data as a data source's tiles (MapLibre's derivation: extent 8192), clustered or not:
/// a tile's MVT decodes to as many features as the tile has, and an unclustered one is the
/// per-tile encoder's MVT of them.
private func sourceTiles(_ value: GeoJSON, _ tiling: TilingOptions, clustered: Bool, buffer: Int) {
    var options = DataSourceOptions()
    options.cluster = clustered
    options.maxZoom = tiling.maxZoom
    options.buffer = buffer
    options.tolerance = tiling.tolerance
    options.lineMetrics = tiling.lineMetrics
    options.generateId = tiling.generateId
    options.promoteId = tiling.promoteId
    options.tileCompatibility = tiling.compatibility
    guard let source = try? DataSource(options: options), (try? source.add(value)) != nil else { return }
    let snapshot = source.snapshot
    for (z, x, y) in [(0, 0, 0), (1, 0, 0), (1, 1, 0), (1, 0, 1), (1, 1, 1), (2, 1, 1), (3, 7, 3)] {
        let features: [TileFeature]?, mvt: [UInt8]
        do {
            features = try snapshot.tile(z: z, x: x, y: y)
            mvt = try snapshot.tileMVT(z: z, x: x, y: y, layer: "s")
        } catch {
            fatalError("source tile \(z)/\(x)/\(y) failed: \(error)")
        }
        let count = features?.count ?? 0
        if mvt.isEmpty != (count == 0) { fatalError("source tile \(z)/\(x)/\(y): an MVT for no features, or none") }
        guard count > 0 else { continue }
        let decoded = mvt.withUnsafeBytes { try? VectorTile(decoding: $0) }
        guard let decoded, decoded.layers.count == 1, decoded.layers[0].features.count == count else {
            fatalError("source tile \(z)/\(x)/\(y): its MVT does not decode to its \(count) features")
        }
        if !clustered,
            mvt
                != VectorTileEncoder.encode(
                    layer: "s", extent: 8192, features: features ?? [], version: tiling.compatibility.mvtVersion)
        {
            fatalError("source tile \(z)/\(x)/\(y): the interned MVT differs from the per-tile encoder's")
        }
    }
}
