// Tileset: a PMTiles v3 archive as a tileset sink: tiles gathered, written at the end (the
// directories need every tile id).

final class PMTilesSink: TilesetSink {
    let path: String
    private var writer: PMTilesWriter

    init(path: String, gzip: Bool) {
        self.path = path
        writer = PMTilesWriter(tileCompression: gzip ? .gzip : .none)
    }

    func add(_ id: TileID, _ bytes: [UInt8]) throws(MapCoreError) { try writer.add(id, bytes) }

    func finish(metadata: JSONObject) throws(MapCoreError) {
        try FileIO.write(path: path, bytes: try writer.bytes(metadata: metadata))
    }
}
