import Testing

@testable import MapCore

/// The tiles a build stops splitting keep their clipped features packed as stretches of the
/// converted lines (`PackedFeatures`), and give them back with the same bits: the tiles, and every
/// tile cut from them, are those of an index that keeps them as they are.
struct PackedFeaturesFacts {
    /// Every coordinate, mark and metric of the features, as bits, with their refs, kinds and boxes.
    private func bits(_ features: [ProjectedFeature]) -> [UInt64] {
        var out: [UInt64] = []
        func add(_ l: ProjectedLine) {
            out += [UInt64(l.coords.count), l.size.bitPattern, l.start.bitPattern, l.end.bitPattern]
            out += l.coords.map(\.bitPattern)
        }
        func add(_ g: ProjectedGeometry) {
            switch g {
            case .point(let x, let y): out += [x.bitPattern, y.bitPattern]
            case .points(let c): out += c.map(\.bitPattern)
            case .line(let l): add(l)
            case .lines(let ls): for l in ls { add(l) }
            case .polygons(let ps): for p in ps { for l in p { add(l) } }
            case .collection(let members): out += bits(members)
            }
        }
        for f in features {
            out += [UInt64(f.ref), UInt64(f.kind.rawValue), UInt64(f.positionCount)]
            out += [f.minX, f.minY, f.maxX, f.maxY].map(\.bitPattern)
            add(f.geometry)
        }
        return out
    }

    /// Converted with deferred marks, wrapped with a buffer wide enough that copies moved a world
    /// east and west are among them, then cut by stripes on either axis (some stripes through
    /// vertices): packed and unpacked, each cut is the same bits, and it is packed where its lines
    /// are long.
    @Test func unpackedFeaturesAreTheSameBits() throws {
        var packedCuts = 0
        for seed in [UInt64(3), 4] {
            let data = try DeferredMarksFacts.data(seed: seed)
            for compatibility in [TilingOptions.Compatibility.geojsonVT, .maplibreNative] {
                for lineMetrics in [false, true] {
                    var options = TilingOptions()
                    options.compatibility = compatibility
                    options.lineMetrics = lineMetrics
                    options.buffer = 1024
                    let (converted, lines) = Convert.converted(data, options: options, deferMarks: true)
                    #expect(lines)
                    let locator = LineLocator(converted)
                    let wrapped = Wrap.wrap(converted, options: options, parallel: false)
                    #expect(wrapped.contains { $0.minX < 0 } && wrapped.contains { $0.maxX > 1 })
                    let rules = Clip.Rules(options)
                    for (k1, k2, axis) in [
                        (0.1, 0.35, 0), (0.3, 0.7, 1), (-0.2, 0.05, 0), (0.9, 1.2, 0), (0.375, 0.5, 1),
                        (10 / 360 + 0.5, 0.6, 0),
                    ] {
                        var cut: [ProjectedFeature] = []
                        for f in wrapped { Clip.clip(f, k1, k2, axis: axis, rules: rules, into: &cut) }
                        guard let packed = PackedFeatures(cut, locator: locator) else {
                            #expect(!cut.contains { $0.positionCount >= 1000 }, "\(k1) \(k2) \(axis)")
                            continue
                        }
                        packedCuts += 1
                        #expect(packed.counts.own < cut.reduce(0) { $0 + $1.positionCount } / 4)
                        #expect(bits(packed.unpacked()) == bits(cut), "\(compatibility) \(k1) \(k2) \(axis)")
                    }
                }
            }
        }
        #expect(packedCuts > 20)
    }

    /// Stretches are checked: a locator of other lines (the same data, but shifted one degree)
    /// finds no stretch whose bits match, and packs nothing.
    @Test func stretchesOfOtherLinesAreNotTaken() throws {
        var options = TilingOptions()
        options.buffer = 1024
        let data = try DeferredMarksFacts.data(seed: 5)
        let (converted, _) = Convert.converted(data, options: options, deferMarks: true)
        // Through the middle of the first feature (a long line).
        let k1 = (converted[0].minX + converted[0].maxX) / 2
        var cut: [ProjectedFeature] = []
        for f in converted { Clip.clip(f, k1, k1 + 0.5, axis: 0, rules: Clip.Rules(options), into: &cut) }
        #expect(PackedFeatures(cut, locator: LineLocator(converted)) != nil)
        let moved = converted.map { f -> ProjectedFeature in
            func move(_ l: ProjectedLine) -> ProjectedLine {
                var c = l.coords
                for k in stride(from: 1, to: c.count, by: 3) { c[k] += 1 / 360 }
                return ProjectedLine(coords: c, size: l.size, start: l.start, end: l.end)
            }
            let g: ProjectedGeometry
            switch f.geometry {
            case .line(let l): g = .line(move(l))
            case .lines(let ls): g = .lines(ls.map(move))
            case .polygons(let ps): g = .polygons(ps.map { $0.map(move) })
            default: g = f.geometry
            }
            return ProjectedFeature(ref: f.ref, kind: f.kind, geometry: g, box: f.box)
        }
        #expect(PackedFeatures(cut, locator: LineLocator(moved)) == nil)
    }

    /// Past 2^53 a world's shift leaves x as it is, so a copy moved a world east whose stretch
    /// starts at such an x looks unmoved there: its stretch is then checked at every triple, and
    /// its vertices of ordinary x come back moved. (The parser takes any finite longitude; an
    /// invalid polygon boxed by its outer ring alone carries such a hole into tiles whole.)
    @Test func aShiftPast2To53IsCheckedAtEveryTriple() throws {
        var hole = [[-179.5, 10.0], [4e20, 10.2]]
        for k in 0..<150 { hole.append([-179.6 + 0.001 * Double(k), 10.3 + 0.01 * Double(k % 7)]) }
        hole += [[4e20, 11.0], [-179.5, 10.0]]
        let outer = [[-179.9, 9.0], [-179.0, 9.0], [-179.0, 12.0], [-179.9, 12.0], [-179.9, 9.0]]
        let text = "{\"type\":\"Polygon\",\"coordinates\":[\(outer),\(hole)]}"
        let options = TilingOptions()
        let (converted, _) = Convert.converted(try GeoJSONParser.parse(text), options: options, deferMarks: true)
        let f = try #require(converted.first)
        guard case .lines(let rings) = f.geometry else { throw MapCoreError(.invalidArgument, "not a polygon") }
        #expect(rings[1].coords[3] + 1 == rings[1].coords[3] && rings[1].coords[5] < 0)
        // A copy moved a world east, as `Wrap` moves one (x + 1 at every triple).
        let moved = rings.map { ring -> ProjectedLine in
            var c = ring.coords
            for k in stride(from: 0, to: c.count, by: 3) { c[k] += 1 }
            return ProjectedLine(coords: c, size: ring.size, start: ring.start, end: ring.end)
        }
        let copy = ProjectedFeature(ref: f.ref, kind: f.kind, geometry: .lines(moved), box: f.box)
        let packed = try #require(PackedFeatures([copy], locator: LineLocator(converted)))
        #expect(bits(packed.unpacked()) == bits([copy]))
    }

    /// An index large enough to be cut on two threads packs its leaves on both: the same tiles.
    @Test func leavesPackedOnTwoThreads() throws {
        var rng = SeededGenerator(seed: 67)
        func unit() -> Double { Double(rng.next() % 1_000_000) / 1_000_000 }
        var features: [String] = []
        for _ in 0..<40 {
            var (x, y) = (unit() * 340 - 170, unit() * 120 - 60)
            var line: [String] = []
            for _ in 0..<2_000 {
                x += (unit() - 0.5) * 0.8
                y = min(80, max(-80, y + (unit() - 0.5) * 0.8))
                line.append("[\(x),\(y)]")
            }
            features.append(
                #"{"type":"Feature","properties":{},"geometry":{"type":"LineString","coordinates":["#
                    + line.joined(separator: ",") + "]}}")
        }
        let data = try GeoJSONParser.parse(
            #"{"type":"FeatureCollection","features":["# + features.joined(separator: ",") + "]}")
        var options = TilingOptions()
        (options.extent, options.buffer, options.tolerance, options.maxZoom) = (8192, 2048, 6, 5)
        options.indexMaxPoints = 5_000
        let packed = try TileIndex(data, options: options, parallel: true)
        #expect(Convert.worthTwoThreads(Convert.features(of: data, options: options)))
        let held = packed.packed
        #expect(held.tiles > 10 && held.own * 5 < held.positions, "\(held)")
        let kept = try TileIndex(data, options: options, parallel: false, packLeaves: false)
        var compared = 0
        var stack = [(z: 0, x: 0, y: 0)]
        while let t = stack.popLast() {
            let tile = kept.tile(z: t.z, x: t.x, y: t.y)
            #expect(packed.tile(z: t.z, x: t.x, y: t.y) == tile, "\(t)")
            compared += 1
            guard let tile, !tile.isEmpty, t.z < options.maxZoom else { continue }
            let (z, x, y) = (t.z + 1, 2 * t.x, 2 * t.y)
            stack += [(z, x, y), (z, x, y + 1), (z, x + 1, y), (z, x + 1, y + 1)]
        }
        #expect(compared > 300)
    }

    /// Every tile to z6 that an index keeping its leaves' features as they are gives, asked for
    /// in a shuffled order (so packed tiles are cut from, written, and asked for again), with
    /// geojson-vt's options and MapLibre's (a buffer of a quarter tile) in both compatibilities:
    /// the same tiles. The packed tiles keep few triples of their own.
    @Test func packedLeavesWriteTheTilesOfUnpackedOnes() throws {
        var rng = SeededGenerator(seed: 61)
        var compared = 0
        for seed in [UInt64(1), 2] {
            let data = try DeferredMarksFacts.data(seed: seed)
            for compatibility in [TilingOptions.Compatibility.geojsonVT, .maplibreNative] {
                for (extent, buffer, tolerance, lineMetrics, indexMaxZoom) in [
                    (4096.0, 64.0, 3.0, false, 3), (8192, 2048, 6, false, 2), (8192, 2048, 6, true, 3),
                    (4096, 0, 40, false, 4),
                ] {
                    var options = TilingOptions()
                    options.compatibility = compatibility
                    options.extent = extent
                    options.buffer = buffer
                    options.tolerance = tolerance
                    options.lineMetrics = lineMetrics
                    options.maxZoom = 6
                    options.indexMaxZoom = indexMaxZoom
                    options.indexMaxPoints = 300
                    let kept = try TileIndex(data, options: options, parallel: false, packLeaves: false)
                    #expect(kept.packed.tiles == 0)
                    var tiles: [(z: Int, x: Int, y: Int)] = [], expected: [[TileFeature]] = []
                    var stack = [(z: 0, x: 0, y: 0)]
                    while let t = stack.popLast() {
                        guard let tile = kept.tile(z: t.z, x: t.x, y: t.y), !tile.isEmpty else { continue }
                        tiles.append(t)
                        expected.append(tile)
                        guard t.z < options.maxZoom else { continue }
                        let (z, x, y) = (t.z + 1, 2 * t.x, 2 * t.y)
                        stack += [(z, x, y), (z, x, y + 1), (z, x + 1, y), (z, x + 1, y + 1)]
                    }
                    #expect(tiles.count > 100)
                    let packed = try TileIndex(data, options: options, parallel: true)
                    let held = packed.packed
                    #expect(held.tiles > 0 && held.own * 5 < held.positions, "\(held)")
                    var order = Array(tiles.indices)
                    order.shuffle(using: &rng)
                    for i in order + order.prefix(20) {
                        let (z, x, y) = tiles[i]
                        let same = packed.tile(z: z, x: x, y: y) == expected[i]  // not the tiles in a failure
                        #expect(same, "\(compatibility) \(buffer) \(lineMetrics): \(z)/\(x)/\(y)")
                        compared += 1
                    }
                }
            }
        }
        #expect(compared > 1000)
    }
}
