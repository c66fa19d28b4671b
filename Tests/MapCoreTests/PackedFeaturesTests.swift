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
