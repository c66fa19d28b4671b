// Fuzz target: the MBTiles reader over a database file made of the input (SQLite reads it from a
// scratch file; corrupt pages are SQLite's own to refuse). Property: no crash: opening,
// metadata as TileJSON and tile reads answer or report an error.
import Glibc
import MapCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMBTiles(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let path = "/tmp/mapcore-fuzz-mbtiles-\(getpid()).mbtiles"
    guard let file = fopen(path, "wb") else { fatalError("cannot write the scratch file \(path)") }
    let written = fwrite(data, 1, size, file)
    fclose(file)
    // An input whose header asks for WAL mode leaves SQLite's -wal and -shm files beside it.
    defer { for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) } }
    guard written == size, let archive = try? MBTiles(path: path) else { return 0 }
    _ = try? archive.tileJSON()
    for (z, x, y) in [(0, 0, 0), (1, 1, 0), (14, 4823, 6160)] { _ = try? archive.tile(TileID(z: z, x: x, y: y)) }
    return 0
}
