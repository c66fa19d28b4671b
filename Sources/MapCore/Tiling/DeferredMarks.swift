// Tiling: Douglas-Peucker marks made when a tile first needs them, not when the index is built.
// geojson-vt marks every line in its `convert`, yet only writing a tile reads a mark (wrapping,
// splitting and clipping carry marks along unread), and marking was about half of a warm index
// build (Natural Earth 1:10m: 9 of 18 ms). So an index's lines are projected with a placeholder
// in each inner vertex's mark that names the vertex, and an input feature's marks are made the
// first time a tile that reads marks holds one of its lines (geojson-vt JS reads none at maxZoom,
// where it keeps every vertex, nor anywhere with tolerance 0; geojson-vt-cpp reads them at every
// zoom).

/// The Douglas-Peucker marks of an index's lines, made per input feature on demand, the same as
/// `Convert` makes them at once (`TileIndex.walk`, which writes every tile, still does): from the
/// converted features before `Wrap` (geojson-vt marks before it wraps, and a copy moved by a world
/// rounds otherwise), with the index's tolerance and tie-break. Thread safe: marking is under a
/// lock (an index writes its tiles under its own lock anyway).
final class DeferredMarks: @unchecked Sendable {
    private let lock = Lock()
    private var marks: Marks

    init(_ features: [ProjectedFeature], options: TilingOptions) {
        marks = Marks(features: features, options: options)
    }

    /// Inputs with lines not marked yet, and whether the converted features are still held
    /// (tests check that they are let go once every input is marked).
    var unmarked: (inputs: Int, holdsFeatures: Bool) { lock.withLock { (marks.unmarked(), marks.holdsFeatures) } }

    /// `body` with the marks of the inputs whose lines `features` hold, those not made yet made
    /// first (on two threads when they are many), under the lock.
    func withMarks<R>(of features: UnsafeBufferPointer<ProjectedFeature>, _ body: (MarkTable) -> R) -> R {
        lock.withLock {
            marks.make(for: features)
            return marks.withTable(body)
        }
    }

    /// The placeholder `Convert` writes as the mark of inner vertex `position` of an input
    /// feature's lines, counted over its lines in the order it projects them. Marks are never
    /// negative, and a position below 2^53 is exact.
    @inline(__always) static func placeholder(_ position: Int) -> Double { -1 - Double(position) }

    /// Whether a tile of zoom `zoom` (whose squared tolerance is `sqTolerance`) keeps a vertex of
    /// mark `mark`: a mark above the tolerance, or a placeholder whose made mark (`made`, its
    /// input's: `MarkTable.of`) keeps it from `zoom` or a shallower one. A placeholder naming no
    /// made mark keeps the vertex (as the ends' mark does); none does, but no value may trap.
    @inline(__always)
    static func kept(_ mark: Double, _ made: UnsafeBufferPointer<UInt8>, _ sqTolerance: Double, _ zoom: UInt8) -> Bool {
        guard mark < 0 else { return mark > sqTolerance }
        let position = -1 - mark
        return position >= 0 && position < Double(made.count) ? made[Int(position)] <= zoom : true
    }

    /// A made mark: the first zoom whose tiles keep a vertex of Douglas-Peucker importance
    /// `importance`, or 255 for none. A tile of zoom z keeps it where the importance is above z's
    /// squared tolerance (`sqTolerances`, by zoom to maxZoom), which never grows with z up to
    /// maxZoom (where it is 0): so from that zoom on, and a byte holds what a tile asks. Tiles
    /// deeper than maxZoom (split at load when indexMaxZoom is deeper) have tolerances below the
    /// one Douglas-Peucker marked with (maxZoom's, `Simplify.sqTolerance`), so they keep every
    /// marked vertex (made ≤ maxZoom < z) and no other (255), as the importance would decide.
    static func firstZoom(_ importance: Double, _ sqTolerances: UnsafeBufferPointer<Double>) -> UInt8 {
        guard let last = sqTolerances.last, importance > last else { return 255 }
        var low = 0, high = sqTolerances.count - 1  // keeps at high, not below low
        while low < high {
            let mid = (low + high) / 2
            if importance > sqTolerances[mid] { high = mid } else { low = mid + 1 }
        }
        return UInt8(clamping: high)
    }
}

/// The made marks as a tile reads them, valid inside `DeferredMarks.withMarks`.
struct MarkTable {
    fileprivate var arena: UnsafeBufferPointer<UInt8>
    fileprivate var starts: UnsafeBufferPointer<Int>
    fileprivate var counts: UnsafeBufferPointer<Int>

    /// For an index whose marks were made at once: no placeholder to resolve.
    static var empty: MarkTable {
        MarkTable(
            arena: .init(start: nil, count: 0), starts: .init(start: nil, count: 0), counts: .init(start: nil, count: 0)
        )
    }

    /// Input `ref`'s marks (none where they are not made).
    @inline(__always) func of(_ ref: Int32) -> UnsafeBufferPointer<UInt8> {
        let r = Int(ref)
        guard r >= 0, r < starts.count, starts[r] >= 0, starts[r] <= arena.count - counts[r] else {
            return .init(start: nil, count: 0)
        }
        return UnsafeBufferPointer(rebasing: arena[starts[r]..<starts[r] + counts[r]])
    }
}

/// What a `DeferredMarks` holds, under its lock.
private struct Marks {
    /// The converted features, in input order (refs ascending), until every input with lines is
    /// marked.
    private var features: [ProjectedFeature]
    private let sqTolerance: Double
    private let tieBreak: TilingOptions.Compatibility
    /// Per zoom to maxZoom, its tiles' squared tolerance (`firstZoom`).
    private let sqTolerances: [Double]
    /// Per input, where its features start in `features`, and one past the last; made on first use.
    private var firsts: [Int] = []
    /// The made marks (`DeferredMarks.firstZoom`: a byte a vertex), an input's after another's; per
    /// input, where they start in `arena` (-2 while they are to be made, -1 for an input without
    /// lines) and how many.
    private var arena: [UInt8] = []
    private var starts: [Int] = [], counts: [Int] = []
    /// Inputs with lines whose marks are not made yet: at 0, the features are let go.
    private var unmarkedInputs = 0
    private var indexed = false

    init(features: [ProjectedFeature], options: TilingOptions) {
        self.features = features
        sqTolerance = Simplify.sqTolerance(options)
        tieBreak = options.compatibility
        sqTolerances = (0...options.maxZoom).map { z in
            let tolerance = TileRules.tolerance(z: z, options: options)
            return tolerance * tolerance
        }
    }

    var holdsFeatures: Bool { !features.isEmpty }

    mutating func unmarked() -> Int {
        if !indexed { index() }
        return unmarkedInputs
    }

    func withTable<R>(_ body: (MarkTable) -> R) -> R {
        arena.withUnsafeBufferPointer { arena in
            starts.withUnsafeBufferPointer { starts in
                counts.withUnsafeBufferPointer { counts in
                    body(MarkTable(arena: arena, starts: starts, counts: counts))
                }
            }
        }
    }

    /// Makes the marks of the inputs whose lines `tile` holds that are not made yet.
    mutating func make(for tile: UnsafeBufferPointer<ProjectedFeature>) {
        if !indexed { index() }
        guard unmarkedInputs > 0 else { return }
        var wanted: [Int] = []
        for f in tile where f.kind != .point && f.kind != .multiPoint && f.kind != .farPoint {
            let r = Int(f.ref)
            // -2: has lines, not made (`index`); taken here, so listed once.
            guard r >= 0, r < starts.count, starts[r] == -2 else { continue }
            starts[r] = -1
            wanted.append(r)
        }
        guard !wanted.isEmpty else { return }
        var total = 0
        for r in wanted {
            starts[r] = arena.count + total
            counts[r] = positions(of: r)
            total += counts[r]
        }
        arena.append(contentsOf: repeatElement(255, count: total))
        let features = self.features, firsts = self.firsts, starts = self.starts
        let marking = Marking(sqTolerance: sqTolerance, tieBreak: tieBreak, sqTolerances: sqTolerances)
        arena.withUnsafeMutableBufferPointer { arena in
            guard let base = arena.baseAddress else { return }
            // Each input's marks go to its own range of the arena (two threads write apart).
            let fill = { (inputs: ArraySlice<Int>) in
                for r in inputs {
                    var at = base + starts[r]
                    for i in firsts[r]..<firsts[r + 1] { marking.mark(features[i].geometry, &at) }
                }
            }
            guard total >= Convert.parallelPositionsFrom, wanted.count > 1 else { return fill(wanted[...]) }
            // In blocks of about an equal share of the positions (a big input a block of its own),
            // which the two threads take from either end until they meet, as `Convert` does.
            var ends = [0], sum = 0
            for (k, r) in wanted.enumerated().dropLast() {
                sum += counts[r]
                if sum * Convert.blockCount >= total * ends.count { ends.append(k + 1) }
            }
            ends.append(wanted.count)
            let blocks = TwoEnds(ends.count - 1)
            runConcurrently(
                { while let b = blocks.takeBack() { fill(wanted[ends[b]..<ends[b + 1]]) } },
                { while let b = blocks.takeFront() { fill(wanted[ends[b]..<ends[b + 1]]) } })
        }
        unmarkedInputs -= wanted.count
        if unmarkedInputs == 0 { self.features = [] }  // every mark is made: `firsts` is not read again
    }

    /// Where each input's features start, and which inputs have lines to mark (-2 in `starts`).
    private mutating func index() {
        indexed = true
        let inputs = features.last.map { Int($0.ref) + 1 } ?? 0
        firsts = Array(repeating: 0, count: inputs + 1)
        starts = Array(repeating: -1, count: inputs)
        counts = Array(repeating: 0, count: inputs)
        var next = 0
        for (i, f) in features.enumerated() {
            let r = Int(f.ref)
            guard r >= 0, r < inputs else { continue }
            while next <= r {
                firsts[next] = i
                next += 1
            }
            if starts[r] == -1 && Self.hasLines(f.geometry) {
                starts[r] = -2
                unmarkedInputs += 1
            }
        }
        while next <= inputs {
            firsts[next] = features.count
            next += 1
        }
    }

    private static func hasLines(_ g: ProjectedGeometry) -> Bool {
        switch g {
        case .point, .points: return false
        case .line, .lines, .polygons: return true
        case .collection(let members): return members.contains { hasLines($0.geometry) }
        }
    }

    /// The vertices of input `r`'s lines.
    private func positions(of r: Int) -> Int {
        func count(_ g: ProjectedGeometry) -> Int {
            switch g {
            case .point, .points: return 0
            case .line(let l): return l.coords.count / 3
            case .lines(let lines): return lines.reduce(0) { $0 + $1.coords.count / 3 }
            case .polygons(let polygons): return polygons.reduce(0) { n, p in p.reduce(n) { $0 + $1.coords.count / 3 } }
            case .collection(let members): return members.reduce(0) { $0 + count($1.geometry) }
            }
        }
        return (firsts[r]..<firsts[r + 1]).reduce(0) { $0 + count(features[$1].geometry) }
    }

}

/// How `Marks` marks a line, shared by its threads.
private struct Marking {
    let sqTolerance: Double
    let tieBreak: TilingOptions.Compatibility
    let sqTolerances: [Double]

    /// Marks each line of `g` in the order `Convert` projects them, writing the marks at `at`.
    func mark(_ g: ProjectedGeometry, _ at: inout UnsafeMutablePointer<UInt8>) {
        switch g {
        case .point, .points: return
        case .line(let l): mark(l, &at)
        case .lines(let lines): for l in lines { mark(l, &at) }
        case .polygons(let polygons): for p in polygons { for ring in p { mark(ring, &at) } }
        case .collection(let members): for m in members { mark(m.geometry, &at) }
        }
    }

    /// A line's marks as `Convert` would have made them, each as the first zoom that keeps its
    /// vertex, into a range of 255s (unmarked; the ends' are never read, as their own mark is 1).
    private func mark(_ line: ProjectedLine, _ at: inout UnsafeMutablePointer<UInt8>) {
        let n = line.coords.count / 3
        sqTolerances.withUnsafeBufferPointer { zooms in
            line.coords.withUnsafeBufferPointer { c in
                Simplify.mark(
                    c, first: 0, last: 3 * n - 3, sqTolerance: sqTolerance, tieBreak: tieBreak,
                    into: FirstZooms(at: at, zooms: zooms))
            }
        }
        at += n
    }

    /// Each marked vertex's first zoom, into the line's range of the arena.
    private struct FirstZooms: Simplify.Sink {
        let at: UnsafeMutablePointer<UInt8>
        let zooms: UnsafeBufferPointer<Double>
        @inline(__always) func mark(_ i: Int, _ importance: Double) {
            at[i / 3] = DeferredMarks.firstZoom(importance, zooms)
        }
    }
}
