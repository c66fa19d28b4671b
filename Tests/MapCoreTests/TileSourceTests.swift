// Vector tile sources: URL templates and tile cover against the facts of MapLibre Native's own
// tests (test/storage/resource.test.cpp, test/util/tile_cover.test.cpp), options and TileJSON
// merging, MBTiles round trips, fetching from a directory and an archive, queries with filters.
import Glibc
import Testing
@testable import MapCore

private func url(_ template: String, _ z: Int, _ x: Int, _ y: Int, tms: Bool = false, ratio: Double = 1) -> String {
    TileURL.expand(template, tile: TileID(z: z, x: x, y: y), scheme: tms ? .tms : .xyz, pixelRatio: ratio)
}

private func ids(_ t: [TileID]) -> [[Int]] { t.map { [$0.z, $0.x, $0.y] } }

/// Runs `body` with a new directory under /tmp, removed with everything in it afterwards (a test
/// run made about 250 of them, and a machine that runs the suite often would keep them all).
private func withTemporaryDirectory<R>(_ body: (String) throws(MapCoreError) -> R) throws(MapCoreError) -> R {
    var template = Array("/tmp/mapcore-tilesource-XXXXXX".utf8CString)
    let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!).map { String(cString: $0) } }
    guard let dir = made else { throw MapCoreError(.io, "mkdtemp failed: errno \(errno)") }
    defer { removeTree(dir) }
    return try body(dir)
}

/// Removes `path` and, when it is a directory (not a link to one), what it holds.
private func removeTree(_ path: String) {
    var info = stat()
    guard lstat(path, &info) == 0 else { return }
    guard info.st_mode & S_IFMT == S_IFDIR, let dir = opendir(path) else {
        unlink(path)
        return
    }
    while let entry = readdir(dir) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if name != "." && name != ".." { removeTree(path + "/" + name) }
    }
    closedir(dir)
    rmdir(path)
}

struct TileURLFacts {
    /// Each expected URL is one of resource.test.cpp's `Resource::tile` expectations.
    @Test func maplibreNativeResourceTests() {
        #expect(
            url("http://example.com/{z}/{x}/{y}{ratio}.png", 3, 1, 2, ratio: 2) == "http://example.com/3/1/2@2x.png")
        #expect(
            url("http://example.com/{prefix}/{z}/{x}/{y}.mvt", 3, 1, 2, ratio: 2) == "http://example.com/12/3/1/2.mvt")
        #expect(url("http://example.com/{quadkey}.png", 1, 0, 0) == "http://example.com/0.png")
        #expect(url("http://example.com/{quadkey}.png", 2, 0, 0) == "http://example.com/00.png")
        #expect(url("http://example.com/{quadkey}.png", 2, 1, 1) == "http://example.com/03.png")
        #expect(url("http://example.com/{quadkey}.png", 17, 22914, 52870) == "http://example.com/02301322130000230.png")
        // quadkeytools' case, which resource.test.cpp cites.
        #expect(url("http://example.com/{quadkey}.png", 6, 29, 3) == "http://example.com/011123.png")
        #expect(
            url("http://example.com/?bbox={bbox-epsg-3857}", 1, 0, 0)
                == "http://example.com/?bbox=-20037508.342789244,0,0,20037508.342789244")
        #expect(url("http://example.com/{z}/{x}/{y}{ratio}.png", 3, 1, 2, tms: true) == "http://example.com/3/1/5.png")
    }

    @Test func tokensAsReplaceTokensTreatsThem() {
        // An unknown token stays; a brace without its partner is text (util::replaceTokens).
        #expect(url("a/{foo}/{z}", 1, 0, 0) == "a/{foo}/1")
        #expect(url("a/{z/{x}", 2, 3, 1) == "a/{z/3")
        #expect(url("a/{z", 2, 3, 1) == "a/{z")
        #expect(url("{z}{x}{y}", 2, 3, 1) == "231")
        #expect(url("{ratio}", 0, 0, 0, ratio: 1.5) == "@2x")
        #expect(url("{ratio}", 0, 0, 0, ratio: 1) == "")
        // {prefix}: x % 16 then y % 16 in hex.
        #expect(url("{prefix}", 5, 31, 26) == "fa")
    }

    @Test func severalTemplatesAsGLJSPicksThem() {
        let t = ["a", "b", "c"]
        #expect(TileURL.template(for: TileID(z: 2, x: 1, y: 1), among: t) == "c")
        #expect(TileURL.template(for: TileID(z: 2, x: 2, y: 2), among: t) == "b")
        #expect(TileURL.template(for: TileID(z: 0, x: 0, y: 0), among: []) == nil)
    }
}

struct TileCoverFacts {
    let world = BoundingBox(west: -180, south: -90, east: 180, north: 90)
    let sanFrancisco = BoundingBox(west: -122.5744, south: 37.6609, east: -122.3204, north: 37.8271)

    /// Boxes in another copy of the world cover the same tiles; a box whose west lies more than a
    /// world east of its east (TileJSON bounds the tilejson fuzz target found: [2.7e60, -85, 181,
    /// 85] trapped converting a tile column) is an argument error.
    @Test func boxesOutsideTheWorldCopy() throws {
        let shifted = BoundingBox(west: -122.5744 + 720, south: 37.6609, east: -122.3204 + 720, north: 37.8271)
        #expect(try TileCover.tiles(covering: shifted, zoom: 10) == TileCover.tiles(covering: sanFrancisco, zoom: 10))
        let huge = BoundingBox(west: 2.7e60, south: -85, east: 181, north: 85)
        #expect(
            thrown { () throws(MapCoreError) in _ = try TileCover.tiles(covering: huge, zoom: 4) }?.code
                == .invalidArgument)
        let wide = BoundingBox(west: -1e300, south: -85, east: 1e300, north: 85)
        #expect(ids(try TileCover.tiles(covering: wide, zoom: 1)).count == 4)
    }

    /// tile_cover.test.cpp's LatLngBounds cases.
    @Test func maplibreNativeTileCoverTests() throws {
        #expect(try TileCover.tiles(covering: BoundingBox(west: -180, south: 86, east: 180, north: 90), zoom: 0) == [])
        #expect(
            try TileCover.tiles(covering: BoundingBox(west: -180, south: -90, east: 180, north: -86), zoom: 0) == [])
        #expect(ids(try TileCover.tiles(covering: world, zoom: 0)) == [[0, 0, 0]])
        #expect(ids(try TileCover.tiles(covering: world, zoom: 1)) == [[1, 0, 0], [1, 0, 1], [1, 1, 0], [1, 1, 1]])
        #expect(try TileCover.tiles(covering: BoundingBox(west: 0, south: 0, east: 0, north: 0), zoom: 0) == [])
        #expect(try TileCover.tiles(covering: BoundingBox(west: 0, south: 0, east: 0, north: 0), zoom: 1) == [])
        #expect(ids(try TileCover.tiles(covering: sanFrancisco, zoom: 0)) == [[0, 0, 0]])
        #expect(
            ids(try TileCover.tiles(covering: sanFrancisco, zoom: 10))
                == [[10, 163, 395], [10, 163, 396], [10, 164, 395], [10, 164, 396]])
        // SanFranciscoZ0Wrapped: unwrapped tile x 1 at z0 is the world tile 0/0/0 wrapped.
        let wrapped = BoundingBox(west: 238.3204, south: 37.6609, east: 238.5744, north: 37.8271)
        #expect(ids(try TileCover.tiles(covering: wrapped, zoom: 0)) == [[0, 0, 0]])
    }

    @Test func antimeridianAndLimits() throws {
        // 170°E to 170°W at z2: columns 3 and 0 (wrapped), row 1 and 2 around the equator.
        let cover = ids(
            try TileCover.tiles(covering: BoundingBox(west: 170, south: -10, east: -170, north: 10), zoom: 2))
        #expect(Set(cover) == [[2, 3, 1], [2, 3, 2], [2, 0, 1], [2, 0, 2]])
        #expect(
            thrown { () throws(MapCoreError) in _ = try TileCover.tiles(covering: world, zoom: 16) }?.code == .limit)
        #expect(
            thrown { () throws(MapCoreError) in _ = try TileCover.tiles(covering: world, zoom: 31) }?.code
                == .invalidArgument)
        #expect(
            thrown { () throws(MapCoreError) in
                _ = try TileCover.tiles(covering: BoundingBox(west: .nan, south: 0, east: 1, north: 1), zoom: 1)
            }?
            .code == .invalidArgument)
    }

    @Test func coveringZoomAndCamera() throws {
        #expect(TileCover.coveringZoom(mapZoom: 3.7, tileSize: 512) == 3)
        #expect(TileCover.coveringZoom(mapZoom: 3.7, tileSize: 256) == 4)
        // The world in a 512x512 viewport is zoom 0 centred on 0,0; 1024 pixels wide is zoom 1.
        let c = try TileCover.camera(
            fitting: BoundingBox(
                west: -180, south: -85.051128779806604, east: 180,
                north: 85.051128779806604), width: 512, height: 512)
        #expect(abs(c.zoom) < 1e-9 && abs(c.longitude) < 1e-9 && abs(c.latitude) < 1e-9)
        let wide = try TileCover.camera(
            fitting: BoundingBox(
                west: -180, south: -85.051128779806604, east: 180,
                north: 85.051128779806604), width: 1024, height: 1124,
            padding: (50, 0, 50, 0))
        #expect(abs(wide.zoom - 1) < 1e-9)
        #expect(
            thrown { () throws(MapCoreError) in
                _ = try TileCover.camera(
                    fitting: sanFrancisco, width: 10, height: 10,
                    padding: (5, 5, 5, 5))
            }?.code == .invalidArgument)
    }
}

struct TileSourceFacts {
    @Test func optionsWithBothNamesAndDefaults() throws {
        let o = try TileSourceOptions(
            json: JSON.parse(#"{"tileURLTemplates":["t/{z}/{x}/{y}"],"maxSourceZoom":14,"tileCoordinateSystem":"tms"}"#)
        )
        #expect(
            o.tiles == ["t/{z}/{x}/{y}"] && o.maxZoom == 14 && o.scheme == .tms && o.minZoom == 0 && o.tileSize == 512)
        #expect(
            thrown { () throws(MapCoreError) in
                _ = try TileSourceOptions(json: JSON.parse(#"{"minzoom":5,"maxzoom":4}"#))
            }?.code == .invalidArgument)
        #expect(
            thrown { () throws(MapCoreError) in _ = try TileSourceOptions(json: JSON.parse(#"{"scheme":"wms"}"#)) }?
                .code == .invalidArgument)
        #expect(
            thrown { () throws(MapCoreError) in _ = try TileSourceOptions(json: JSON.parse(#"{"bounds":[0,10,1,5]}"#))
            }?.code == .invalidArgument)
        #expect(
            thrown { () throws(MapCoreError) in _ = try TileSourceOptions(json: JSON.parse(#"{"tilez":[]}"#)) }?.code
                == .invalidArgument)
        #expect(
            thrown { () throws(MapCoreError) in _ = try VectorTileSource(options: TileSourceOptions()) }?.code
                == .invalidArgument)
    }

    /// A directory of tiles cut from US states by MapCore's own tiler, described by a TileJSON
    /// whose values yield to the caller's.
    @Test func directoryTilesetThroughTileJSON() throws {
        try withTemporaryDirectory { dir throws(MapCoreError) in
            let states = try GeoJSONParser.parse(
                String(decoding: try FileIO.read(path: "Tests/fixtures/geojson-vt/us-states.json"), as: UTF8.self))
            let index = try TileIndex(states, options: TilingOptions())
            for t in [TileID(z: 0, x: 0, y: 0), TileID(z: 1, x: 0, y: 0)] {
                mkdir("\(dir)/\(t.z)", 0o755)
                mkdir("\(dir)/\(t.z)/\(t.x)", 0o755)
                try FileIO.write(
                    path: "\(dir)/\(t.z)/\(t.x)/\(t.y).pbf",
                    bytes: try index.mvt(z: t.z, x: t.x, y: t.y, layer: "states"))
            }
            try FileIO.write(
                path: "\(dir)/tiles.json",
                bytes: Array(
                    (#"{"tilejson":"3.0.0","tiles":["{z}/{x}/{y}.pbf"],"minzoom":0,"maxzoom":1,"#
                        + #""vector_layers":[{"id":"states"}]}"#).utf8))
            let source = try VectorTileSource(
                options: TileSourceOptions(json: JSON.parse(#"{"url":"\#(dir)/tiles.json","maxzoom":6}"#)))
            #expect(source.options.maxZoom == 6)  // the caller's value wins over the document's 1
            #expect(source.options.tiles == ["\(dir)/{z}/{x}/{y}.pbf"])
            #expect(source.url(for: TileID(z: 1, x: 0, y: 0)) == "\(dir)/1/0/0.pbf")
            let z0 = try source.features(TileID(z: 0, x: 0, y: 0), sourceLayer: "states")
            #expect(z0.count == 52 && z0.allSatisfy { $0.layer == "states" })
            #expect(try source.fetch(TileID(z: 1, x: 1, y: 1)) == nil)  // no file: no tile
            #expect(try source.fetch(TileID(z: 7, x: 0, y: 0)) == nil)  // beyond maxzoom: not asked for
            let filter = try StyleExpression.compiled(
                JSON.parse(#"["==",["get","name"],"Texas"]"#), spec: .filter, legacyFilters: true, what: "filter")
            let texas = try source.query(
                BoundingBox(west: -120, south: 20, east: -70, north: 50), mapZoom: 1,
                sourceLayer: "states", filter: filter)
            #expect(texas.count == 1)
            if case .polygon? = texas.first?.geometry?.type {} else { Issue.record("Texas is one polygon") }
            // Without ids, each tile's copy counts (MapLibre deduplicates by id only).
            let all = try source.query(
                BoundingBox(west: -180, south: -80, east: 180, north: 80), mapZoom: 1, sourceLayer: "states")
            #expect(all.count == z0.count)  // only tile 1/0/0 exists at z1, and it holds every state
        }
    }

    @Test func mbtilesRoundTripAndSource() throws {
        try withTemporaryDirectory { dir throws(MapCoreError) in
            let path = dir + "/t.mbtiles"
            do {
                let archive = try MBTiles(path: path, create: true)
                try archive.transaction { () throws(MapCoreError) in
                    try archive.write(TileID(z: 1, x: 0, y: 0), bytes: try Gzip.compress(Array("tile-1-0-0".utf8)))
                    try archive.write(TileID(z: 2, x: 3, y: 1), bytes: Array("tile-2-3-1".utf8))
                    try archive.setMetadata("minzoom", "1")
                    try archive.setMetadata("maxzoom", "2")
                    try archive.setMetadata("bounds", "-180,-85,180,85")
                    try archive.setMetadata("json", #"{"vector_layers":[{"id":"a","fields":{}}]}"#)
                }
            }
            let archive = try MBTiles(path: path)
            // Stored in TMS rows: 2/3/1 is row 2 in the table.
            #expect(try archive.tile(TileID(z: 2, x: 3, y: 1)) == Array("tile-2-3-1".utf8))
            #expect(try archive.tile(TileID(z: 2, x: 3, y: 2)) == nil)
            let meta = try archive.tileJSON()
            #expect(meta["maxzoom"] == .int(2) && meta["vector_layers"]?.arrayValue?.count == 1)
            let source = try VectorTileSource(
                options: TileSourceOptions(json: JSON.parse(#"{"url":"mbtiles://\#(path)"}"#)))
            #expect(source.options.minZoom == 1 && source.options.maxZoom == 2)
            #expect(try source.fetch(TileID(z: 1, x: 0, y: 0)) == Array("tile-1-0-0".utf8))  // inflated
            #expect(try source.fetch(TileID(z: 1, x: 0, y: 0), inflate: false)?.prefix(2) == [0x1F, 0x8B])
            #expect(try source.fetch(TileID(z: 0, x: 0, y: 0)) == nil)  // below minzoom
            #expect(source.url(for: TileID(z: 2, x: 3, y: 1)) == "mbtiles://\(path)/2/3/1")
        }
    }

    @Test func badArchivesAreErrors() throws {
        try withTemporaryDirectory { dir throws(MapCoreError) in
            try FileIO.write(path: "\(dir)/junk.mbtiles", bytes: Array(repeating: 7, count: 5000))
            #expect(thrown { () throws(MapCoreError) in _ = try MBTiles(path: "\(dir)/junk.mbtiles") } != nil)
            try FileIO.write(path: "\(dir)/empty.mbtiles", bytes: [])
            #expect(thrown { () throws(MapCoreError) in _ = try MBTiles(path: "\(dir)/empty.mbtiles") }?.code == .parse)
            #expect(
                thrown { () throws(MapCoreError) in
                    _ = try VectorTileSource(
                        options: TileSourceOptions(json: JSON.parse(#"{"url":"mbtiles://\#(dir)/none.mbtiles"}"#)))
                }?.code == .notFound)
            try FileIO.write(path: "\(dir)/bad.json", bytes: Array(#"{"tiles":[]}"#.utf8))
            #expect(
                thrown { () throws(MapCoreError) in
                    _ = try VectorTileSource(
                        options: TileSourceOptions(json: JSON.parse(#"{"url":"\#(dir)/bad.json"}"#)))
                }?.code == .parse)
        }
    }
}

struct PMTilesFacts {
    /// Tile ids from the spec's examples and the PyPI pmtiles package (`zxy_to_tileid`), which
    /// gave 18823248 for 12/3423/1234 and 618867462719 for 20/5000/300000.
    @Test func tileIDs() {
        let facts: [(TileID, UInt64)] = [
            (TileID(z: 0, x: 0, y: 0), 0), (TileID(z: 1, x: 0, y: 0), 1), (TileID(z: 1, x: 0, y: 1), 2),
            (TileID(z: 1, x: 1, y: 1), 3), (TileID(z: 1, x: 1, y: 0), 4), (TileID(z: 2, x: 0, y: 0), 5),
            (TileID(z: 12, x: 3423, y: 1234), 18_823_248), (TileID(z: 20, x: 5000, y: 300_000), 618_867_462_719),
        ]
        for (tile, id) in facts {
            #expect(PMTiles.tileID(tile) == id)
            #expect(PMTiles.tile(id) == tile)
        }
        var rng = SeededGenerator(seed: 3)
        for _ in 0..<2000 {
            let z = Int(rng.next() % 27)
            let t = TileID(z: z, x: Int(rng.next() % (1 << UInt64(z))), y: Int(rng.next() % (1 << UInt64(z))))
            #expect(PMTiles.tile(PMTiles.tileID(t) ?? .max) == t)
        }
        #expect(PMTiles.tileID(TileID(z: 27, x: 0, y: 0)) == nil)
        #expect(PMTiles.tileID(TileID(z: 2, x: 4, y: 0)) == nil)
    }

    /// `bytes` written to a file and opened as an archive; the open file outlives its name.
    private func archive(_ bytes: [UInt8]) throws(MapCoreError) -> PMTilesArchive {
        try withTemporaryDirectory { dir throws(MapCoreError) in
            try FileIO.write(path: dir + "/a.pmtiles", bytes: bytes)
            return try PMTilesArchive(path: dir + "/a.pmtiles")
        }
    }

    @Test func roundTripsWithDuplicatesRunsAndLeaves() throws {
        var writer = PMTilesWriter(tileCompression: .none)
        // A run of identical tiles along the curve, duplicates elsewhere, and enough distinct
        // tiles that the root cannot hold them all.
        var expected: [TileID: [UInt8]] = [:]
        for id in UInt64(5)..<21 { if let t = PMTiles.tile(id) { expected[t] = [9, 9] } }
        for x in 0..<256 {
            for y in 0..<256 {
                let t = TileID(z: 8, x: x, y: y)
                expected[t] = (x + y) % 7 == 0 ? [1, 2, 3] : [UInt8(x & 0xFF), UInt8(y & 0xFF), 7]
            }
        }
        for (t, b) in expected { try writer.add(t, b) }
        var meta = JSONObject()
        meta["name"] = .string("test")
        let bytes = try writer.bytes(metadata: meta)
        let a = try archive(bytes)
        #expect(a.header.leafLength > 0)  // leaf directories were needed
        #expect(a.header.addressedTiles == UInt64(expected.count))
        #expect(a.header.tileContents < a.header.addressedTiles)  // identical tiles stored once
        for (t, b) in expected { #expect(try a.tile(t) == b) }
        #expect(try a.tile(TileID(z: 9, x: 0, y: 511)) == nil)
        #expect(try a.tile(TileID(z: 3, x: 0, y: 0)) == nil)
        #expect(try a.metadata()["name"] == .string("test"))
        #expect(try PMTiles.Header(Array(bytes[0..<127])).bytes == Array(bytes[0..<127]))
    }

    @Test func hostileArchivesThrow() throws {
        var writer = PMTilesWriter(tileCompression: .none)
        for x in 0..<4 { try writer.add(TileID(z: 2, x: x, y: 1), [UInt8(x)]) }
        let good = try writer.bytes(metadata: JSONObject())
        #expect(thrown { () throws(MapCoreError) in _ = try archive([]) }?.code == .parse)
        #expect(thrown { () throws(MapCoreError) in _ = try archive(Array(good[0..<126])) }?.code == .parse)
        var v2 = good
        v2[7] = 2
        #expect(thrown { () throws(MapCoreError) in _ = try archive(v2) }?.code == .unsupported)
        var far = good
        for i in 8..<16 { far[i] = 0xFF }  // the root directory offset far past the end
        #expect(thrown { () throws(MapCoreError) in _ = try archive(far) }?.code == .parse)
        // Every truncation and every single-byte corruption: an error or a result, never a trap.
        for n in stride(from: 0, to: good.count, by: 3) {
            _ = try? archive(Array(good[0..<n])).tile(TileID(z: 2, x: 1, y: 1))
        }
        for i in 0..<good.count {
            var bad = good
            bad[i] ^= 0xA5
            if let a = try? archive(bad) {
                for x in 0..<4 { _ = try? a.tile(TileID(z: 2, x: x, y: 1)) }
                _ = try? a.metadata()
            }
        }
        // A leaf directory that points to itself.
        let leaf = PMTiles.encodeDirectory([PMTiles.Entry(tileID: 0, offset: 0, length: 6, runLength: 0)])
        var h = PMTiles.Header()
        h.internalCompression = .none
        h.rootOffset = 127
        h.rootLength = UInt64(leaf.count)
        h.leafOffset = 127
        h.leafLength = UInt64(leaf.count)
        h.tileDataOffset = 127 + UInt64(leaf.count)
        let cyclic = h.bytes + leaf
        #expect(
            thrown { () throws(MapCoreError) in _ = try archive(cyclic).tile(TileID(z: 1, x: 0, y: 0)) }?.code == .parse
        )
    }
}

struct TilesetWalkFacts {
    /// The depth-first walk a tileset is written with gives every tile `getTile` gives, and no
    /// other, for geojson-vt's options and MapLibre Native's.
    @Test func walkEqualsGetTile() throws {
        let states = try GeoJSONParser.parse(
            String(decoding: try FileIO.read(path: "Tests/fixtures/geojson-vt/us-states.json"), as: UTF8.self))
        var maplibre = TilingOptions()
        maplibre.extent = 8192
        maplibre.buffer = 2048
        maplibre.tolerance = 6
        maplibre.maxZoom = 6
        maplibre.compatibility = .maplibreNative
        var geojsonVT = TilingOptions()
        geojsonVT.maxZoom = 5
        for options in [geojsonVT, maplibre] {
            final class Seen: @unchecked Sendable {
                let lock = Lock()
                var tiles: [TileID: [TileFeature]] = [:]
            }
            let seen = Seen()
            try TileIndex.walk(states, options: options, maxZoom: options.maxZoom) { z, x, y, tile in
                seen.lock.withLock { seen.tiles[TileID(z: z, x: x, y: y)] = tile.tileFeatures }
            }
            let index = try TileIndex(states, options: options)
            var expected: [TileID: [TileFeature]] = [:]
            for z in 0...options.maxZoom {
                for x in 0..<(1 << z) {
                    for y in 0..<(1 << z) {
                        if let t = index.tile(z: z, x: x, y: y), !t.isEmpty { expected[TileID(z: z, x: x, y: y)] = t }
                    }
                }
            }
            #expect(expected.count > 50)
            #expect(seen.tiles.filter { !$0.value.isEmpty } == expected)
        }
    }
}
