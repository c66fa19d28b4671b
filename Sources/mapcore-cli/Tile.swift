// CLI: tiles of a GeoJSON file (geojson-vt's, or a data source's as MapLibre Native makes
// them), as geojson-vt's tile JSON or as a Mapbox Vector Tile, and decoding vector tiles.
import ArgumentParser
import MapCore

/// "z/x/y" as three integers (decode-mvt's --tile).
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
        abstract: "Cut one tile of a GeoJSON file as geojson-vt does, or write every tile as a tileset.",
        discussion: """
            One tile: mapcore tile FILE Z X Y [--source JSON] [--mvt] [--output FILE]
            A tileset: mapcore tile FILE -o OUT where OUT is a directory (z/x/y.pbf and metadata.json), \
            a .mbtiles or a .pmtiles file, made as a MapLibre GeoJSON source makes its tiles:
              mapcore tile places.geojson -o places.mbtiles --cluster --maxzoom 10 --layer places
            """)

    @OptionGroup var input: InputOptions
    @Argument(help: "Zoom (omit Z X Y to write a tileset to --output).") var z: Int?
    @Argument(help: "Column.") var x: Int?
    @Argument(help: "Row.") var y: Int?
    @OptionGroup(title: "Tileset") var tileset: TilesetOptions
    @Option(
        help: """
            geojson-vt options as JSON (maxZoom, buffer, extent, tolerance, lineMetrics, compatibility, ...).
            """)
    var options: String?
    @Option(
        help: """
            Tile as a data source with these SDK options (JSON, e.g. '{"cluster": true}') does: \
            MapLibre Native's GeoJSON source's tiles, extent 8192.
            """)
    var source: String?
    @Flag(help: "Write the tile as a Mapbox Vector Tile (to standard output unless --output).") var mvt = false
    @Option(name: [.short, .long], help: "Write to this file (a tile) or tileset path instead of standard output.")
    var output: String?
    @Option(help: "Layer name of the vector tile.") var layer = "geojson"
    @Flag(help: "Pretty-print the JSON.") var pretty = false

    func run() throws {
        guard let z, let x, let y else {
            guard let output, self.z == nil else {
                throw ValidationError("Give Z X Y for one tile, or --output for a tileset.")
            }
            try writeTileset(try input.load(), to: output, options: tileset, layer: layer)
            return
        }
        guard (0...TilingOptions.maxAllowedZoom).contains(z), (0..<(1 << z)).contains(x), (0..<(1 << z)).contains(y)
        else { throw ValidationError("\(z)/\(x)/\(y) is not a tile: z in 0...24, x and y in 0..<2^z.") }
        let data = try input.load()
        let bytes: [UInt8]
        if let source {
            let s = try DataSource(options: try DataSourceOptions(json: try parseOptions(source, "--source")))
            try s.add(data)
            let snapshot = s.snapshot
            bytes =
                mvt
                ? try snapshot.tileMVT(z: z, x: x, y: y, layer: layer)
                : try snapshot.tileJSON(z: z, x: x, y: y, pretty: pretty) + [0x0A]
        } else {
            let index = try TileIndex(data, options: try TilingOptions(json: try parseOptions(options, "--options")))
            bytes =
                mvt
                ? try index.mvt(z: z, x: x, y: y, layer: layer)
                : index.tileJSON(z: z, x: x, y: y, pretty: pretty) + [0x0A]
        }
        try FileIO.write(path: output ?? "-", bytes: bytes)
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
