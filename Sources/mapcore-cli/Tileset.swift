// CLI: a GeoJSON file written as a tileset (directory, MBTiles or PMTiles), tippecanoe's job, with
// the data source's options as flags and a progress line on a terminal.
import ArgumentParser
import Glibc
import MapCore

struct TilesetOptions: ParsableArguments {
    @Option(help: "Shallowest zoom written.") var minzoom = 0
    @Option(help: "Deepest zoom written (default: the source's maxZoom, at most 14).") var maxzoom: Int?
    @Flag(help: "Cluster points (supercluster, as a clustered GeoJSON source).") var cluster = false
    @Option(help: "Cluster radius in pixels of a 512-pixel tile.") var clusterRadius: Double?
    @Option(help: "Deepest zoom that clusters points (default 17, MapLibre Native's, whatever --maxzoom).")
    var clusterMaxZoom: Int?
    @Option(help: "Tile buffer in pixels of a 512-pixel tile.") var buffer: Int?
    @Option(help: "Simplification tolerance in pixels of a 512-pixel tile.") var tolerance: Double?
    @Flag(help: "Keep lines whole and write mapbox_clip_start/_end.") var lineMetrics = false
    @Flag(help: "Give features without id their index as id.") var generateId = false
    @Option(help: "A property whose value becomes the feature id.") var promoteId: String?
    @Option(help: "Keep only features this JSON filter expression keeps.") var filter: String?
    @Option(help: "Keep only features this NSPredicate format string keeps.") var predicate: String?
    @Flag(inversion: .prefixedNo, help: "Gzip tiles (default: yes for MBTiles/PMTiles, no for a directory).")
    var gzip: Bool?
    @Option(help: "The tileset's name in its metadata.") var name: String?

    /// The data source options the flags set (the rest keep the library's defaults).
    func sourceOptions() throws -> DataSourceOptions {
        var o = JSONObject()
        if cluster { o["cluster"] = .bool(true) }
        if let clusterRadius { o["clusterRadius"] = .double(clusterRadius) }
        if let clusterMaxZoom { o["clusterMaxZoom"] = .int(Int64(clusterMaxZoom)) }
        if let buffer { o["buffer"] = .int(Int64(buffer)) }
        if let tolerance { o["tolerance"] = .double(tolerance) }
        if lineMetrics { o["lineMetrics"] = .bool(true) }
        if generateId { o["generateId"] = .bool(true) }
        if let promoteId { o["promoteId"] = .string(promoteId) }
        if let maxzoom { o["maxZoom"] = .int(Int64(max(maxzoom, 0))) }
        if filter != nil && predicate != nil { throw ValidationError("Give --filter or --predicate, not both.") }
        if let filter {
            do { o["filter"] = try JSON.parse(filter) } catch { throw InputError(description: "--filter: \(error)") }
        }
        if let predicate {
            do { o["filter"] = try FormatString.json(Array(predicate.utf8), arguments: [], kind: .predicate) } catch {
                throw InputError(description: "--predicate: \(error)")
            }
        }
        return try DataSourceOptions(json: .object(o))
    }

    func writeOptions(layer: String) -> TilesetWriteOptions {
        var o = TilesetWriteOptions()
        o.minZoom = minzoom
        o.maxZoom = maxzoom
        o.layer = layer
        o.gzip = gzip
        if let name { o.name = name }
        return o
    }
}

/// Writes `data` as a tileset at `path`, printing progress to standard error on a terminal and a
/// summary at the end.
func writeTileset(_ data: GeoJSON, to path: String, options: TilesetOptions, layer: String) throws {
    let source = try DataSource(options: try options.sourceOptions())
    try source.add(data)
    let onTerminal = isatty(2) != 0
    let start = monotonicSeconds()
    var lastShown = 0.0
    let summary = try TilesetWriter.write(source.snapshot, to: path, options: options.writeOptions(layer: layer)) {
        done, fraction in
        guard onTerminal else { return }
        let now = monotonicSeconds()
        guard now - lastShown > 0.1 else { return }
        lastShown = now
        let rate = Double(done) / max(now - start, 1e-9)
        printError("\r\(Int(fraction * 100))% done, \(done) tiles written, \(Int(rate)) tiles/s   ")
    }
    if onTerminal { printError("\r\u{1B}[K") }
    let seconds = monotonicSeconds() - start
    let perZoom = summary.tilesPerZoom.enumerated().map { "z\(options.minzoom + $0.offset): \($0.element)" }
    printError(
        "\(summary.tiles) tiles, \(summary.bytes) bytes, \(summary.format.rawValue) \(path), "
            + "\(String(Int(seconds * 1000))) ms (\(perZoom.joined(separator: ", ")))\n")
}

/// Text to standard error (unbuffered: a progress line shows at once).
private func printError(_ text: String) {
    var bytes = Array(text.utf8)
    _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
}

private func monotonicSeconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}
