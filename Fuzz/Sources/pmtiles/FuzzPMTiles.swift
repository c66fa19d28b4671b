// Fuzz target: the PMTiles v3 reader over an archive in memory. Property: no crash or runaway
// read: header, root and leaf directories, tiles and metadata are all bounds-checked.
import MapCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPMTiles(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard let archive = try? PMTilesArchive(bytes: Array(UnsafeBufferPointer(start: data, count: size))) else {
        return 0
    }
    for id in UInt64(0)..<32 {
        if let t = PMTiles.tile(id) { _ = try? archive.tile(t) }
    }
    _ = try? archive.tile(TileID(z: 14, x: 4823, y: 6160))
    _ = try? archive.tileJSON()
    return 0
}
