// Tiling: the clipped features of a tile the build stops splitting, kept as stretches of the
// converted lines they were cut from. Such a tile keeps its features so that a deeper tile can be
// cut on demand, and a clip copies every vertex it keeps: with MapLibre's buffer (a quarter of a
// tile, so children overlap by half) Natural Earth's countries were held once by the root and 1.7
// times more by those tiles. Yet a clipped line is its converted line's vertices, in order, but
// for the crossings a clip adds, and with deferred marks each inner vertex names its place among
// its input's line vertices (`DeferredMarks.placeholder`). So such a tile keeps each clipped line
// as pieces: a stretch of a converted line (moved a world east or west for a wrapped copy) or
// positions of its own. Each stretch is checked when packed to give back the same bits, and the
// tile gets its features back, equal, when it is first asked for or cut from.

/// Where each input's lines lie among the converted features, as the placeholders number their
/// vertices (the build's only: packing reads it).
struct LineLocator: @unchecked Sendable {
    private let converted: [ProjectedFeature]
    /// Every line of the converted features: by input, and per input in the order its vertices
    /// are numbered (`Convert`; `DeferredMarks` marks them in the same order), as where it is:
    /// its feature in `converted`, and its part (line, or polygon) and ring in that.
    private let places: [(feature: Int32, part: Int32, ring: Int32)]
    /// Per line, the number of its first vertex among its input's line vertices, and its count.
    private let firstVertex: [Int], vertices: [Int]
    /// Per input, its first line in `places`, and one past the last input's.
    private let inputLines: [Int]
    /// The converted features' geometries (`ProjectedFeature.geometryWord`) of the located inputs.
    private let geometries: Set<UInt>

    /// `converted`: the features as `Convert` makes them with deferred marks, in input order.
    /// Only inputs of `PackedFeatures.minimumPositions` or more are located, and none holding a
    /// collection (collections are kept whole).
    init(_ converted: [ProjectedFeature]) {
        let inputs = converted.last.map { Int($0.ref) + 1 } ?? 0
        var places: [(feature: Int32, part: Int32, ring: Int32)] = []
        var firstVertex: [Int] = [], vertices: [Int] = []
        var inputLines = [Int](repeating: 0, count: inputs + 1)
        var geometries = Set<UInt>()
        var next = 0, vertex = 0
        func add(_ feature: Int, _ part: Int, _ ring: Int, _ count: Int) {
            places.append(
                (Int32(truncatingIfNeeded: feature), Int32(truncatingIfNeeded: part), Int32(truncatingIfNeeded: ring)))
            firstVertex.append(vertex)
            vertices.append(count)
            vertex += count
        }
        converted.withUnsafeBufferPointer { all in
            var i = 0
            while i < all.count {
                // An input's features (a collection's members in geojson-vt JS share its ref).
                let r = Int(all[i].ref)
                var end = i + 1, positions = all[i].positionCount, collection = all[i].kind == .collection
                while end < all.count && all[end].ref == all[i].ref {
                    positions += all[end].positionCount
                    collection = collection || all[end].kind == .collection
                    end += 1
                }
                defer { i = end }
                guard r >= next, r < inputs, positions >= PackedFeatures.minimumPositions, !collection,
                    end <= Int32.max
                else { continue }
                while next <= r {
                    inputLines[next] = places.count
                    next += 1
                }
                vertex = 0
                for k in i..<end {
                    switch all[k].geometry {
                    case .point, .points, .collection: break
                    case .line(let l): add(k, 0, 0, l.coords.count / 3)
                    case .lines(let ls): for (part, l) in ls.enumerated() { add(k, part, 0, l.coords.count / 3) }
                    case .polygons(let ps):
                        for (part, p) in ps.enumerated() {
                            for (ring, l) in p.enumerated() { add(k, part, ring, l.coords.count / 3) }
                        }
                    }
                    if all[k].kind.tileType >= 2 { geometries.insert(ProjectedFeature.geometryWord(k, in: all)) }
                }
            }
        }
        while next <= inputs {
            inputLines[next] = places.count
            next += 1
        }
        self.converted = converted
        (self.places, self.firstVertex, self.vertices, self.inputLines) = (places, firstVertex, vertices, inputLines)
        self.geometries = geometries
    }

    /// The coordinates of line `line` (of `places`).
    fileprivate func coords(_ line: Int) -> [Double] {
        let (f, part, ring) = (Int(places[line].feature), Int(places[line].part), Int(places[line].ring))
        guard f < converted.count else { return [] }
        switch converted[f].geometry {
        case .point, .points, .collection: return []
        case .line(let l): return l.coords
        case .lines(let ls): return ls.indices.contains(part) ? ls[part].coords : []
        case .polygons(let ps):
            return ps.indices.contains(part) && ps[part].indices.contains(ring) ? ps[part][ring].coords : []
        }
    }

    /// Whether feature i of `all` is one of the converted features itself, uncut (its lines are
    /// theirs: nothing to pack). Its kind holds lines, so the word is an object's address.
    fileprivate func isConverted(_ all: UnsafeBufferPointer<ProjectedFeature>, _ i: Int) -> Bool {
        geometries.contains(ProjectedFeature.geometryWord(i, in: all))
    }

    /// The line holding vertex `n` of input `ref`'s lines, and the vertex's place in it.
    fileprivate func locate(ref: Int32, vertex n: Int) -> (line: Int, at: Int)? {
        let r = Int(ref)
        guard r >= 0, r + 1 < inputLines.count, n >= 0 else { return nil }
        var low = inputLines[r], high = inputLines[r + 1]  // the line is in low..<high
        guard low < high, firstVertex[low] <= n else { return nil }
        while high - low > 1 {
            let mid = (low + high) / 2
            if firstVertex[mid] <= n { low = mid } else { high = mid }
        }
        let at = n - firstVertex[low]
        return at < vertices[low] ? (low, at) : nil
    }
}

/// A tile's clipped features with their lines packed as pieces (see above).
struct PackedFeatures {
    /// The features, each packed line's coordinates left empty.
    private let features: [ProjectedFeature]
    /// Per feature, whether a line of it is packed; the others are kept as they are.
    private let packedFeature: [Bool]
    /// Per line of a packed feature (in the order `mapLines` visits them), where its pieces start
    /// in `pieces`, and end; -1 for a line kept whole (one the converted features share, or one
    /// whose pieces would take more room than its triples).
    private let lineStarts: [Int], lineEnds: [Int]
    private let pieces: [Piece]
    /// The positions of the tile's own (crossings, the ends of lines), as triples.
    private let own: [Double]
    /// The converted lines the pieces are stretches of.
    private let sources: [[Double]]

    /// A stretch of `count` triples from triple `start`: of `sources[source]`, its x moved by
    /// `shift` worlds (0, 1 or -1); or of `own` where `source` is -1.
    private struct Piece {
        let source: Int
        let start: Int
        let count: Int
        let shift: Double
    }

    /// Features of fewer positions are kept as they are: their lines save little (half a
    /// 50-vertex polygon cut by a tile's edge is 600 bytes), and looking at each of 100k such
    /// features made a build of random polygons 1.2 times as long.
    static let minimumPositions = 128

    /// `features` packed, or nil where no line would be smaller.
    init?(_ features: [ProjectedFeature], locator: LineLocator) {
        // Most tiles of small features have none to pack: no new arrays for them.
        guard features.contains(where: { Self.mayPack($0) }) else { return nil }
        var packer = Packer(locator: locator)
        var saved = 0
        var packedFeature = [Bool](repeating: false, count: features.count)
        let packed = features.withUnsafeBufferPointer { all in
            all.indices.map { i -> ProjectedFeature in
                // Collections are kept whole (few, and only in maplibre-native compatibility); a
                // feature no clip has cut holds the converted lines themselves.
                guard Self.mayPack(all[i]), !locator.isConverted(all, i) else {
                    return all[i]
                }
                let f = all[i], before = saved, lines = packer.lineStarts.count
                guard let g = Self.mapLines(f.geometry, { line in packer.pack(line, ref: f.ref, saved: &saved) }),
                    saved > before
                else {
                    packer.forget(linesFrom: lines)  // none packed: kept as it is (no new arrays)
                    return f
                }
                packedFeature[i] = true
                return ProjectedFeature(ref: f.ref, kind: f.kind, geometry: g, box: f.box)
            }
        }
        guard saved > 0 else { return nil }
        self.features = packed
        self.packedFeature = packedFeature
        (lineStarts, lineEnds) = (packer.lineStarts, packer.lineEnds)
        // At their size: a tile keeps them for long, and a line given up left its room behind.
        pieces = packer.pieces.withUnsafeBufferPointer { Array($0) }
        own = packer.own.withUnsafeBufferPointer { Array($0) }
        sources = packer.sources
    }

    /// Whether a feature has lines (points have none; a collection, kept whole, has a type of 0)
    /// and positions enough to pack.
    @inline(__always) private static func mayPack(_ f: ProjectedFeature) -> Bool {
        f.positionCount >= minimumPositions && f.kind.tileType >= 2
    }

    /// The features as they were packed: the same bits in every coordinate and mark.
    func unpacked() -> [ProjectedFeature] {
        var line = 0
        return features.indices.map { i -> ProjectedFeature in
            let f = features[i]
            guard packedFeature[i], let g = Self.mapLines(f.geometry, { l in unpack(l, &line) }) else { return f }
            return ProjectedFeature(ref: f.ref, kind: f.kind, geometry: g, box: f.box)
        }
    }

    /// How many triples the tile keeps of its own, and how many pieces (tests).
    var counts: (own: Int, pieces: Int) { (own.count / 3, pieces.count) }

    private func unpack(_ l: ProjectedLine, _ line: inout Int) -> ProjectedLine {
        defer { line += 1 }
        let first = lineStarts[line], end = lineEnds[line]
        guard first >= 0 else { return l }
        var total = 0
        for p in pieces[first..<end] { total += p.count }
        var coords: [Double] = []
        coords.reserveCapacity(3 * total)
        for p in pieces[first..<end] {
            let range = 3 * p.start..<3 * (p.start + p.count)
            guard p.source >= 0 else {
                coords += own[range]
                continue
            }
            let source = sources[p.source]
            guard p.shift != 0 else {
                coords += source[range]
                continue
            }
            var k = range.lowerBound
            while k < range.upperBound {
                coords.append(source[k] + p.shift)
                coords.append(source[k + 1])
                coords.append(source[k + 2])
                k += 3
            }
        }
        return ProjectedLine(coords: coords, size: l.size, start: l.start, end: l.end)
    }

    /// `g` with each of its lines mapped, in the order `LineLocator` numbers them; nil for
    /// geometries without lines, and for collections (kept whole: few, and only in
    /// maplibre-native compatibility).
    private static func mapLines(_ g: ProjectedGeometry, _ map: (ProjectedLine) -> ProjectedLine) -> ProjectedGeometry?
    {
        switch g {
        case .point, .points, .collection: return nil
        case .line(let l): return .line(map(l))
        case .lines(let ls): return .lines(ls.map(map))
        case .polygons(let ps): return .polygons(ps.map { $0.map(map) })
        }
    }

    /// Packs a tile's lines one after another.
    private struct Packer {
        let locator: LineLocator
        var lineStarts: [Int] = [], lineEnds: [Int] = [], pieces: [Piece] = [], own: [Double] = [],
            sources: [[Double]] = []
        /// Where each converted line used is in `sources`, and which line each source is.
        var sourceOf: [Int: Int] = [:], sourceLines: [Int] = []
        var lastSource = (line: -1, slot: -1)

        init(locator: LineLocator) { self.locator = locator }

        /// Forgets the lines from `first` on (of a feature none of whose lines were packed; their
        /// pieces were taken back already).
        mutating func forget(linesFrom first: Int) {
            lineStarts.removeSubrange(first...)
            lineEnds.removeSubrange(first...)
        }

        /// The line with its coordinates left empty where packed (its pieces recorded), or as it
        /// is; adds the triples packing saves to `saved`.
        mutating func pack(_ l: ProjectedLine, ref: Int32, saved: inout Int) -> ProjectedLine {
            let n = l.coords.count / 3
            let firstPiece = pieces.count, firstSource = sources.count
            var stretched = 0
            var shared = false
            l.coords.withUnsafeBufferPointer { c in
                var i = 0
                while i < n {
                    if let (line, at) = placeholder(c[3 * i + 2]).flatMap({ locator.locate(ref: ref, vertex: $0) }) {
                        let source = locator.coords(line)
                        let (count, shift) = source.withUnsafeBufferPointer { s in
                            // The converted line itself, unclipped: nothing to save.
                            c.baseAddress == s.baseAddress && c.count == s.count
                                ? (-1, 0) : 3 * at + 2 < s.count ? Self.stretch(c, from: i, s, from: at) : (0, 0)
                        }
                        if count < 0 {
                            shared = true
                            return
                        }
                        if count > 0 {
                            // A line's stretches come one after another: the last one's slot first.
                            let slot = line == lastSource.line ? lastSource.slot : sourceOf[line] ?? sources.count
                            if slot == sources.count {
                                sourceOf[line] = slot
                                sources.append(source)
                                sourceLines.append(line)
                            }
                            lastSource = (line, slot)
                            pieces.append(Piece(source: slot, start: at, count: count, shift: shift))
                            stretched += count
                            i += count
                            continue
                        }
                    }
                    // A triple of its own, added to the piece of its own just before if there is one.
                    if let last = pieces.last, pieces.count > firstPiece, last.source < 0 {
                        pieces[pieces.count - 1] = Piece(source: -1, start: last.start, count: last.count + 1, shift: 0)
                    } else {
                        pieces.append(Piece(source: -1, start: own.count / 3, count: 1, shift: 0))
                    }
                    own.append(c[3 * i])
                    own.append(c[3 * i + 1])
                    own.append(c[3 * i + 2])
                    i += 1
                }
            }
            // Kept whole where shared, or where pieces would take more room than the triples.
            guard !shared, stretched * 3 > (pieces.count - firstPiece) * 4 else {
                let ownStart = pieces[firstPiece...].first { $0.source < 0 }?.start
                if let ownStart { own.removeSubrange((3 * ownStart)...) }
                pieces.removeSubrange(firstPiece...)
                // Nor are the lines it took stretches of held for it.
                for line in sourceLines[firstSource...] { sourceOf[line] = nil }
                sources.removeSubrange(firstSource...)
                sourceLines.removeSubrange(firstSource...)
                lastSource = (-1, -1)
                lineStarts.append(-1)
                lineEnds.append(-1)
                return l
            }
            saved += stretched
            lineStarts.append(firstPiece)
            lineEnds.append(pieces.count)
            return ProjectedLine(coords: [], size: l.size, start: l.start, end: l.end)
        }

        /// The vertex number a mark's placeholder names, if it is one.
        private func placeholder(_ mark: Double) -> Int? {
            guard mark < 0 else { return nil }
            return Int(exactly: -1 - mark)
        }

        /// How many triples of `c` from `i` are those of `s` from `j`, moved by the same world
        /// (0, 1 or -1, as `Wrap` moves a copy: x + offset); `c`'s triple i has a placeholder.
        /// Clips copy the vertices they keep whole, mark and all, and a placeholder names its
        /// vertex, so where `c`'s placeholders step on by one, its vertices are `s`'s: the stretch
        /// is read from `c`'s marks alone (its vertices are in cache; `s`'s are not) and its first
        /// and last triples are compared bit for bit. Should the last differ, every triple is.
        private static func stretch(
            _ c: UnsafeBufferPointer<Double>, from i: Int, _ s: UnsafeBufferPointer<Double>, from j: Int
        ) -> (count: Int, shift: Double) {
            let x = c[3 * i].bitPattern, sx = s[3 * j]
            let shift: Double
            if sx.bitPattern == x {
                shift = 0
            } else if (sx + 1).bitPattern == x {
                shift = 1
            } else if (sx - 1).bitPattern == x {
                shift = -1
            } else {
                return (0, 0)
            }
            let n = c.count / 3, m = s.count / 3
            guard same(c, i, s, j, shift) else { return (0, 0) }
            // Past 2^53, x ± 1 is x (and a NaN is no number): the first triple cannot tell which
            // world a copy was moved by, and the one it names is then checked at every triple.
            guard sx.isFinite && sx + 1 != sx && sx - 1 != sx else {
                return (compared(c, i, s, j, shift, from: 1), shift)
            }
            // Placeholders are whole numbers below 2^53: each step down by one is exact.
            let limit = min(n - i, m - j)
            var k = 1, next = c[3 * i + 2] - 1
            var at = 3 * i + 5
            while k < limit && c[at] == next {
                k += 1
                next -= 1
                at += 3
            }
            if i + k < n && j + k < m && same(c, i + k, s, j + k, shift) { k += 1 }  // the line's end (mark 1)
            guard same(c, i + k - 1, s, j + k - 1, shift) else { return (compared(c, i, s, j, shift, from: 1), shift) }
            return (k, shift)
        }

        /// How many triples of `c` from `i` are those of `s` from `j` moved by `shift`, compared
        /// one by one from the `k`th (the ones before are).
        private static func compared(
            _ c: UnsafeBufferPointer<Double>, _ i: Int, _ s: UnsafeBufferPointer<Double>, _ j: Int, _ shift: Double,
            from k: Int
        ) -> Int {
            var k = k
            while i + k < c.count / 3 && j + k < s.count / 3 && same(c, i + k, s, j + k, shift) { k += 1 }
            return k
        }

        /// Whether triple a of `c` is triple b of `s` moved by `shift` worlds, bit for bit.
        @inline(__always) private static func same(
            _ c: UnsafeBufferPointer<Double>, _ a: Int, _ s: UnsafeBufferPointer<Double>, _ b: Int, _ shift: Double
        ) -> Bool {
            let moved = shift == 0 ? s[3 * b] : s[3 * b] + shift
            return c[3 * a].bitPattern == moved.bitPattern && c[3 * a + 1].bitPattern == s[3 * b + 1].bitPattern
                && c[3 * a + 2].bitPattern == s[3 * b + 2].bitPattern
        }
    }
}
