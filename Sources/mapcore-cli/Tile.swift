// CLI: tiles of a GeoJSON file (geojson-vt's, or a data source's as MapLibre Native makes
// them), as geojson-vt's tile JSON or as a Mapbox Vector Tile, and decoding vector tiles.
import ArgumentParser
import MapCore

/// "z/x/y" as three integers.
private func tileCoordinate(_ text: String) throws -> (z: Int, x: Int, y: Int) {
    let parts = text.split(separator: "/").compactMap { Int($0) }
    guard parts.count == 3 else { throw ValidationError("A tile is z/x/y, e.g. 7/37/48 (got \(text)).") }
    return (parts[0], parts[1], parts[2])
}

private func parseOptions(_ text: String?, _ flag: String) throws -> JSONValue {
    guard let text else { return .object(JSONObject()) }
    do { return try JSON.parse(text) } catch { throw InputError(description: "\(flag): \(error)") }
}

struct Tile: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Cut one tile of a GeoJSON file as geojson-vt does; print its tile JSON or write it as MVT.")

    @OptionGroup var input: InputOptions
    @Argument(help: "The tile as z/x/y, e.g. 7/37/48.") var tile: String
    @Option(help: "geojson-vt options as JSON (maxZoom, buffer, extent, tolerance, lineMetrics, ...).")
    var options: String?
    @Option(help: """
        Tile as MapLibre Native's GeoJSON source does, with these SDK source options as JSON \
        (e.g. '{"cluster": true}'); extent 8192.
        """)
    var source: String?
    @Option(help: "Write a Mapbox Vector Tile to this file (- for standard output) instead of JSON.")
    var mvt: String?
    @Option(help: "Layer name of the vector tile.") var layer = "geojson"
    @Flag(help: "Pretty-print the JSON.") var pretty = false

    func run() throws {
        let (z, x, y) = try tileCoordinate(tile)
        let data = try input.load()
        let features: [TileFeature]?
        let extent: Int
        if let source {
            let s = try DataSource(options: try DataSourceOptions(json: try parseOptions(source, "--source")))
            try s.add(data)
            features = try s.snapshot.tile(z: z, x: x, y: y)
            extent = SourceTiling.extent
        } else {
            let o = try TilingOptions(json: try parseOptions(options, "--options"))
            features = try TileIndex(data, options: o).tile(z: z, x: x, y: y)
            extent = Int(o.extent)
        }
        if let mvt {
            let bytes = (features ?? []).isEmpty ? [] : VectorTileEncoder.encode(layer: layer, extent: extent,
                                                                                 features: features ?? [])
            try FileIO.write(path: mvt, bytes: bytes)
        } else {
            print(String(decoding: TileFeature.tileJSON(features, pretty: pretty), as: UTF8.self))
        }
    }
}

struct DecodeMVT: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode-mvt",
        abstract: "Print a Mapbox Vector Tile (plain or gzip) as GeoJSON per layer.")

    @Argument(help: "The vector tile file, or - for standard input.") var file: String
    @Option(help: "The tile's z/x/y, for longitude/latitude instead of tile coordinates.") var tile: String?
    @Flag(help: "Pretty-print the JSON.") var pretty = false

    func run() throws {
        let bytes = try FileIO.read(path: file)
        let decoded = try bytes.withUnsafeBufferPointer { b throws(MapCoreError) in
            try VectorTile(decodingMaybeCompressed: UnsafeRawBufferPointer(b))
        }
        let at = try tile.map(tileCoordinate)
        print(String(decoding: try decoded.geoJSON(tile: at, pretty: pretty), as: UTF8.self))
    }
}
