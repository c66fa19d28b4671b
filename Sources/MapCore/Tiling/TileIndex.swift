// Tiling: the tile index of geojson-vt 4.0.2 (its `GeoJSONVT`): the data converted and wrapped
// once, tiles cut down to indexMaxZoom (or until a tile is simple enough) when the index is
// made, and any deeper tile cut on demand from the nearest ancestor that kept its source.

/// A tile index over one GeoJSON value. Safe to use from any number of threads: cutting tiles
/// on demand changes the index, so it is serialised by a lock.
public final class TileIndex: @unchecked Sendable {
    public let options: TilingOptions
    private let inputs: TileInputs
    private let lock = Lock()
    private var tiles: [Int: IndexedTile] = [:]
    /// The tiles made, in the order made (geojson-vt's `tileCoords`).
    private var tileCoords: [(z: Int, x: Int, y: Int)] = []
    /// Where requested tiles are written out (under the lock).
    private var scratch = TileScratch()
    /// How many tiles split at load wait for their clipped features (`recut`).
    private var lostTiles = 0

    public convenience init(_ data: GeoJSON, options: TilingOptions = TilingOptions()) throws(MapCoreError) {
        try self.init(data, options: options, parallel: true)
    }

    /// `parallel: false` makes every tile on this thread, `deferMarks: false` marks every line
    /// for simplification while building, as geojson-vt does, and `packLeaves: false` keeps the
    /// clipped features of the tiles the build stops splitting as they are (tests compare the ways).
    init(
        _ data: GeoJSON, options: TilingOptions, parallel: Bool, deferMarks: Bool = true, packLeaves: Bool = true
    ) throws(MapCoreError) {
        try options.validate()
        self.options = options
        var withMarks = try TileInputs(data, options: options)
        let (converted, features, large) = Self.converted(
            data, options: options, parallel: parallel, deferMarks: deferMarks)
        // Only lines have marks: an index of points needs none (nor a hold on their converted
        // features, which wrapping may have copied: 64 MB for 1M points). geojson-vt JS reads no
        // mark where the tolerance is 0 (it keeps every vertex).
        if let converted, options.compatibility == .maplibreNative || options.tolerance > 0 {
            withMarks.marks = DeferredMarks(converted, options: options)
        }
        // Placeholders name each vertex's place: the leaves' lines can be packed as stretches.
        let locator = packLeaves ? converted.map(LineLocator.init) : nil
        let inputs = withMarks
        self.inputs = inputs
        guard !features.isEmpty else { return }
        guard parallel && large else {
            register(
                Self.split(
                    [(features, 0, 0, 0)], target: nil, depth: nil, existing: [:], inputs: inputs, options: options,
                    locator: locator
                ).made)
            return
        }
        // The root here; then each thread clips its half of the root, and both cut the rest from
        // one stack of tiles to split, so that neither waits for the other (cutting a fixed half
        // each, the west of Natural Earth's countries took 1.7 times the east's time). The tiles
        // are listed in the order one loop makes them, geojson-vt's, which their coordinates give.
        let root = Self.split(
            [(features, 0, 0, 0)], target: nil, depth: 0, existing: [:], inputs: inputs, options: options,
            locator: locator)
        register(root.made)
        guard let top = root.deeper.first, let tile = root.made.first?.tile else { return }
        let stack = WorkStack<Work>()
        func cut(right: Bool) -> [Made] {
            stack.hold()
            let (upper, lower) = Self.half(top.features, of: tile, right: right, options: options)
            let x = right ? 1 : 0
            stack.done(pushing: [(upper, 1, x, 0), (lower, 1, x, 1)])
            var made: [Made] = []
            while let w = stack.take() {
                let step = Self.split(
                    [w], target: nil, depth: w.z, existing: [:], inputs: inputs, options: options,
                    locator: locator)
                made += step.made
                guard let deeper = step.deeper.first, let parent = step.made.first?.tile else {
                    stack.done(pushing: [])
                    continue
                }
                let (z, x, y) = (w.z + 1, 2 * w.x, 2 * w.y)
                let (tl, bl, tr, br) = Self.quadrants(deeper.features, of: parent, options: options)
                stack.done(pushing: [(tl, z, x, y), (bl, z, x, y + 1), (tr, z, x + 1, y), (br, z, x + 1, y + 1)])
            }
            return made
        }
        var east: [Made] = [], west: [Made] = []
        runConcurrently({ east = cut(right: true) }, { west = cut(right: false) })
        register(
            (east + west).sorted { a, b in
                Self.madeBefore((a.tile.z, a.tile.x, a.tile.y), (b.tile.z, b.tile.x, b.tile.y))
            })
    }

    /// The data converted (geojson-vt's `convert`; with `deferMarks` its lines' marks deferred,
    /// and the converted features given when it has lines, for `DeferredMarks` and
    /// `LineLocator`), then wrapped (its `wrap`), and whether it is large enough to be cut on two
    /// threads (`Convert.worthTwoThreads`); with `parallel`, it is wrapped on two threads when it is.
    private static func converted(
        _ data: GeoJSON, options: TilingOptions, parallel: Bool, deferMarks: Bool
    )
        -> (converted: [ProjectedFeature]?, wrapped: [ProjectedFeature], large: Bool)
    {
        let (features, lines) = Convert.converted(data, options: options, deferMarks: deferMarks)
        let large = Convert.worthTwoThreads(features)
        let wrapped = Wrap.wrap(features, options: options, parallel: parallel && large)
        return (deferMarks && lines ? features : nil, wrapped, large)
    }

    /// Whether `split`'s loop makes tile a before tile b: depth first, a tile before its
    /// descendants, and of two children (as it pops them) bottom right, top right, bottom left,
    /// top left.
    static func madeBefore(_ a: (z: Int, x: Int, y: Int), _ b: (z: Int, x: Int, y: Int)) -> Bool {
        let z = min(a.z, b.z)
        let (ax, ay) = (a.x >> (a.z - z), a.y >> (a.z - z))
        let (bx, by) = (b.x >> (b.z - z), b.y >> (b.z - z))
        guard ax != bx || ay != by else { return a.z < b.z }
        // The level where their paths part: the highest bit in which the ancestors differ.
        let bit = Int.bitWidth - 1 - ((ax ^ bx) | (ay ^ by)).leadingZeroBitCount
        /// A child's place in the pops: bottom right 0, top right 1, bottom left 2, top left 3.
        func place(_ x: Int, _ y: Int) -> Int { (1 - (x >> bit & 1)) * 2 + (1 - (y >> bit & 1)) }
        return place(ax, ay) < place(bx, by)
    }

    private typealias Work = (features: [ProjectedFeature], z: Int, x: Int, y: Int)
    private typealias Made = (id: Int, tile: IndexedTile)

    private func register(_ made: [Made]) {
        for m in made {
            tiles[m.id] = m.tile
            tileCoords.append((m.tile.z, m.tile.x, m.tile.y))
            if m.tile.lostFeatures { lostTiles += 1 }
        }
    }

    /// geojson-vt's tile id: unique per (z, x, y) for z ≤ 24 (below 2^53, exact as its doubles).
    @inline(__always) private static func id(_ z: Int, _ x: Int, _ y: Int) -> Int { ((1 << z) * y + x) * 32 + z }

    /// geojson-vt's `splitTile`: cuts the work's features into tiles down the stack, stopping at
    /// indexMaxZoom or a simple tile, or, with a target, along its ancestry; tiles in `existing`
    /// are reused. Returns the tiles it made, in the order made, and, with a `depth`, the work of
    /// the tiles at that zoom that are to be split, left for the caller to split.
    /// With a `locator`, the tiles it stops splitting at load keep their features packed.
    private static func split(
        _ work: [Work], target: (z: Int, x: Int, y: Int)?, depth: Int?, existing: [Int: IndexedTile],
        inputs: TileInputs, options: TilingOptions, locator: LineLocator? = nil
    ) -> (made: [Made], deeper: [Work]) {
        var stack = work
        var made: [Made] = [], deeper: [Work] = []
        while let (features, z, x, y) = stack.popLast() {
            let id = Self.id(z, x, y)
            let tile: IndexedTile
            if let found = existing[id] {
                tile = found
            } else {
                tile = IndexedTile(features, inputs: inputs, z: z, x: x, y: y, options: options)
                made.append((id, tile))
            }
            // Kept so that a deeper tile can be cut from here if splitting stops now.
            tile.source = features
            if let target {
                if z == options.maxZoom || z == target.z { continue }
                let steps = target.z - z
                if x != target.x >> steps || y != target.y >> steps { continue }
            } else if z == options.indexMaxZoom || tile.numPoints <= options.indexMaxPoints {
                // The root's features are the converted ones (less what wrapping copied).
                if let locator, z > 0 { tile.pack(locator) }
                continue
            }
            tile.source = nil
            if features.isEmpty { continue }
            // Split at load, a tile lets them go (the root keeps them: they are the converted
            // features, no copy, and every recut starts there). Not on the way to a requested
            // tile: deep and small, such a tile is asked for soon, and cheap to keep.
            if target == nil && z > 0 { tile.letFeaturesGo() }
            if let depth, z >= depth {
                deeper.append((features, z, x, y))
                continue
            }
            let (tl, bl, tr, br) = Self.quadrants(features, of: tile, options: options)
            stack.append((tl, z + 1, 2 * x, 2 * y))
            stack.append((bl, z + 1, 2 * x, 2 * y + 1))
            stack.append((tr, z + 1, 2 * x + 1, 2 * y))
            stack.append((br, z + 1, 2 * x + 1, 2 * y + 1))
        }
        return (made, deeper)
    }

    /// The features of a tile's four children (top left, bottom left, top right, bottom right),
    /// clipped with the buffer as geojson-vt's splitTile clips them.
    static func quadrants(
        _ features: [ProjectedFeature], of tile: IndexedTile, options: TilingOptions
    )
        -> ([ProjectedFeature], [ProjectedFeature], [ProjectedFeature], [ProjectedFeature])
    {
        let (tl, bl) = half(features, of: tile, right: false, options: options)
        let (tr, br) = half(features, of: tile, right: true, options: options)
        return (tl, bl, tr, br)
    }

    /// The features of a tile's left (or right) children, top and bottom: its features clipped
    /// to the left (right) stripe, and that to the top and bottom ones. Done a feature at a time,
    /// which lists each child's features in the same order, but copies a feature lying inside a
    /// child once rather than once per stripe.
    static func half(
        _ features: [ProjectedFeature], of tile: IndexedTile, right: Bool, options: TilingOptions
    ) -> (top: [ProjectedFeature], bottom: [ProjectedFeature]) {
        let k1 = 0.5 * options.buffer / options.extent
        let k2 = 0.5 - k1, k3 = 0.5 + k1, k4 = 1 + k1
        let rules = Clip.Rules(options)
        var keeping = rules  // the y clips make the children's features
        keeping.partsKept = true
        let z2 = Double(1 << tile.z), fx = Double(tile.x), fy = Double(tile.y)
        // A child's stripe along one axis from the tile's coordinate `f` on it: the first half's,
        // or the second's. geojson-vt sums f + (0.5 + k1), geojson-vt-cpp (f + 0.5) + k1: they
        // round apart where the buffer's share of the extent is no binary fraction.
        func bounds(_ f: Double, second: Bool) -> (Double, Double) {
            if rules.cpp {
                return second ? ((f + 0.5 - k1) / z2, (f + 1 + k1) / z2) : ((f - k1) / z2, (f + 0.5 + k1) / z2)
            }
            return second ? ((f + k2) / z2, (f + k4) / z2) : ((f - k1) / z2, (f + k3) / z2)
        }
        let (x1, x2) = bounds(fx, second: right), (t1, t2) = bounds(fy, second: false)
        let (b1, b2) = bounds(fy, second: true)
        let side = Stripe(x1, x2, tile.minX, tile.maxX)
        let top = Stripe(t1, t2, tile.minY, tile.maxY)
        let bottom = Stripe(b1, b2, tile.minY, tile.maxY)
        var upper: [ProjectedFeature] = [], lower: [ProjectedFeature] = []
        var parts: [ProjectedFeature] = []
        func cut(_ f: ProjectedFeature, _ stripe: Stripe, into out: inout [ProjectedFeature]) {
            switch stripe.holds {
            case .all: out.append(f)
            case .none: break
            case .some: Clip.clip(f, stripe.k1, stripe.k2, axis: 1, rules: keeping, into: &out)
            }
        }
        guard side.holds != .none else { return ([], []) }
        features.withUnsafeBufferPointer { all in
            // Sized before they are filled, counted by the boxes as Clip.clip tests them: grown by
            // appends alone, each child's array was copied at every doubling. A count can come out
            // short (line-metric parts, a crossing rounded just outside the box, a hole outside
            // its outer ring); the array then grows as before.
            var upperCount = 0, lowerCount = 0
            for i in all.indices {
                if side.holds == .some && !side.admits(all[i].minX, all[i].maxX) { continue }
                if top.admits(all[i].minY, all[i].maxY) { upperCount += 1 }
                if bottom.admits(all[i].minY, all[i].maxY) { lowerCount += 1 }
            }
            upper.reserveCapacity(upperCount)
            lower.reserveCapacity(lowerCount)
            for i in all.indices {
                ProjectedFeature.prefetchGeometry(ofNext: i, in: all)
                let f = all[i]
                if side.holds == .some {
                    // Clip.clip's tests, in its order (an empty box passes the first).
                    if !(f.minX >= side.k1 && f.maxX < side.k2) {
                        if f.maxX < side.k1 || f.minX >= side.k2 { continue }
                        parts.removeAll(keepingCapacity: true)
                        Clip.clipGeometry(f, side.k1, side.k2, axis: 0, rules: rules, into: &parts)
                        for p in parts {
                            cut(p, top, into: &upper)
                            cut(p, bottom, into: &lower)
                        }
                        continue
                    }
                }
                cut(f, top, into: &upper)
                cut(f, bottom, into: &lower)
            }
        }
        return (upper, lower)
    }

    /// A stripe of `Clip.clip`, and whether it holds all, none or some of a tile's features.
    private struct Stripe {
        enum Holds { case all, none, some }
        let k1: Double, k2: Double
        let holds: Holds

        init(_ k1: Double, _ k2: Double, _ minAll: Double, _ maxAll: Double) {
            self.k1 = k1
            self.k2 = k2
            holds = minAll >= k1 && maxAll < k2 ? .all : maxAll < k1 || minAll >= k2 ? .none : .some
        }

        /// Whether `Clip.clip` may keep something of a feature whose box spans lo...hi on this
        /// stripe's axis (its tests, in its order: an empty box passes the first).
        @inline(__always) func admits(_ lo: Double, _ hi: Double) -> Bool {
            switch holds {
            case .all: return true
            case .none: return false
            case .some: return (lo >= k1 && hi < k2) || !(hi < k1 || lo >= k2)
            }
        }
    }

    /// Every tile of `data` from zoom 0 to `maxZoom` (at most `options.maxZoom`) that has
    /// features, each written out as `tile(z:x:y:)` of an index with `options` writes it, made depth
    /// first and kept by none: memory stays that of one path down the tree, not of every tile (a
    /// tileset to z14 has millions). Tiles below zoom `minZoom` are made but not visited. The
    /// subtrees below zoom 4 are shared out to two threads; `visit` is called from both, and
    /// `finished` (if given) after each subtree with the count done and the count of all.
    static func walk(
        _ data: GeoJSON, options: TilingOptions, minZoom: Int = 0, maxZoom: Int,
        finished: (@Sendable (_ done: Int, _ of: Int) -> Void)? = nil,
        visit: @escaping @Sendable (_ z: Int, _ x: Int, _ y: Int, _ tile: WrittenTile) -> Void
    ) throws(MapCoreError) {
        try options.validate()
        let inputs = try TileInputs(data, options: options)
        let deepest = min(maxZoom, options.maxZoom)
        typealias Work = (features: [ProjectedFeature], z: Int, x: Int, y: Int)
        // No other binding holds the converted features: once cut into the frontier, they go.
        var frontier: [Work] = [
            (converted(data, options: options, parallel: true, deferMarks: false).wrapped, 0, 0, 0)
        ]
        guard !frontier[0].features.isEmpty, deepest >= 0 else { return }
        /// Makes the tile, visits it, and returns its children's work (none at the deepest zoom or
        /// for a tile without features, whose children geojson-vt never makes).
        let step: @Sendable (Work, inout TileScratch) -> [Work] = { w, scratch in
            let tile = IndexedTile(w.features, inputs: inputs, z: w.z, x: w.x, y: w.y, options: options)
            if w.z >= minZoom, tile.numFeatures > 0 {
                visit(w.z, w.x, w.y, tile.written(extent: options.extent, scratch: &scratch))
            }
            guard w.z < deepest, !w.features.isEmpty else { return [] }
            let (tl, bl, tr, br) = quadrants(w.features, of: tile, options: options)
            return [
                (br, w.z + 1, 2 * w.x + 1, 2 * w.y + 1), (tr, w.z + 1, 2 * w.x + 1, 2 * w.y),
                (bl, w.z + 1, 2 * w.x, 2 * w.y + 1), (tl, w.z + 1, 2 * w.x, 2 * w.y),
            ]
        }
        // Breadth first down to the sharing zoom, on this thread.
        let shareZoom = 4
        var scratch = TileScratch()
        while let first = frontier.first, first.z < shareZoom {
            frontier = frontier.flatMap { step($0, &scratch) }
        }
        /// The subtrees, each handed out once and then let go, so a finished subtree's features
        /// are freed while the others are still cut.
        final class Queue: @unchecked Sendable {
            let lock = Lock()
            var items: [Work?]
            var taken = 0, completed = 0
            init(_ items: [Work]) { self.items = items }
            func take() -> Work? {
                lock.withLock {
                    guard taken < items.count else { return nil }
                    defer { taken += 1 }
                    let w = items[taken]
                    items[taken] = nil
                    return w
                }
            }
            func complete() -> Int {
                lock.withLock {
                    completed += 1; return completed
                }
            }
        }
        let queue = Queue(frontier)
        let total = frontier.count
        frontier = []
        let depthFirst: @Sendable () -> Void = {
            var scratch = TileScratch()
            while let subtree = queue.take() {
                var stack = [subtree]
                while let w = stack.popLast() { stack += step(w, &scratch) }
                if let finished { finished(queue.complete(), total) }
            }
        }
        runConcurrently(depthFirst, depthFirst)
    }

    /// geojson-vt's `getTile(z, x, y)`: the tile's features in tile coordinates, or nil where
    /// geojson-vt returns null (z outside 0…24, y outside the grid, nothing to cut it from).
    /// x wraps around the world.
    public func tile(z: Int, x: Int, y: Int) -> [TileFeature]? { written(z: z, x: x, y: y)?.tileFeatures }

    /// The same as geojson-vt's tile object in JSON (`TileFeature.tileJSON`), `null` where
    /// `tile` is nil; written from the tile's own arrays, no `TileFeature`s made.
    public func tileJSON(z: Int, x: Int, y: Int, pretty: Bool = false) -> [UInt8] {
        written(z: z, x: x, y: y)?.json(pretty: pretty) ?? TileJSONWriter.null()
    }

    /// The tile, cut (under the lock, as cutting changes the index) if it is not made yet.
    func written(z: Int, x: Int, y: Int) -> WrittenTile? {
        guard (0...TilingOptions.maxAllowedZoom).contains(z) else { return nil }
        let z2 = 1 << z
        guard (0..<z2).contains(y) else { return nil }
        let x = ((x % z2) + z2) % z2
        let id = Self.id(z, x, y)
        return lock.withLock {
            if let t = tiles[id] { return write(t) }
            var z0 = z, x0 = x, y0 = y
            var parent: IndexedTile?
            while parent == nil && z0 > 0 {
                z0 -= 1
                x0 >>= 1
                y0 >>= 1
                parent = tiles[Self.id(z0, x0, y0)]
            }
            guard let parent, let source = parent.source else { return nil }
            register(
                Self.split(
                    [(source, z0, x0, y0)], target: (z, x, y), depth: nil, existing: tiles, inputs: inputs,
                    options: options
                ).made)
            return tiles[id].map(write)
        }
    }

    /// The tile written, its clipped features cut again first if it let them go, and its
    /// children's cut from them if they wait (under the lock).
    private func write(_ tile: IndexedTile) -> WrittenTile {
        if tile.lostFeatures { recut(tile) }
        // Only tiles above indexMaxZoom are split at load.
        if lostTiles > 0, tile.z < options.indexMaxZoom, let features = tile.pendingFeatures {
            giveChildren(features, of: tile)
        }
        return tile.written(extent: options.extent, scratch: &scratch)
    }

    /// Gives a tile split at load its clipped features again, cut as `split` cut them: by
    /// `quadrants` from the nearest ancestor holding its own, down the path, every waiting tile
    /// cut on the way given its own (a parent's four children come out of one cut). One holds
    /// them: the root keeps its features until written, and a tile written (or given its
    /// features) first gives its waiting children theirs. So each parent is cut once, as the
    /// build cut it, whatever order the tiles are asked for in.
    private func recut(_ tile: IndexedTile) {
        var path = [tile]
        while let last = path.last, last.lostFeatures {
            guard last.z > 0, let parent = tiles[Self.id(last.z - 1, last.x >> 1, last.y >> 1)] else { return }
            path.append(parent)
        }
        for parent in path.dropFirst().reversed() {
            guard let features = parent.pendingFeatures else { return }
            giveChildren(features, of: parent)
        }
    }

    /// Cuts a tile's features into those of its children that wait for theirs, and gives them.
    private func giveChildren(_ features: [ProjectedFeature], of parent: IndexedTile) {
        let ids = [(0, 0), (0, 1), (1, 0), (1, 1)].map { dx, dy in
            Self.id(parent.z + 1, 2 * parent.x + dx, 2 * parent.y + dy)
        }
        guard ids.contains(where: { tiles[$0]?.lostFeatures == true }) else { return }
        let (tl, bl, tr, br) = Self.quadrants(features, of: parent, options: options)
        for (id, cut) in zip(ids, [tl, bl, tr, br]) {
            guard let child = tiles[id], child.lostFeatures else { continue }
            child.restore(cut)
            lostTiles -= 1
        }
    }

    /// Where the lines' marks are made as tiles need them (nil when they were made at once).
    var deferredMarks: DeferredMarks? { inputs.marks }

    /// The tiles holding their features packed, the triples they keep of their own, and the
    /// positions their features have (tests).
    var packed: (tiles: Int, own: Int, positions: Int) {
        lock.withLock {
            tiles.values.reduce((0, 0, 0)) { sum, tile in
                guard let p = tile.packedFeatures else { return sum }
                return (sum.0 + 1, sum.1 + p.counts.own, sum.2 + tile.numPoints)
            }
        }
    }

    /// How many tiles wait to be cut again when asked for (tests check that they were).
    var tilesToRecut: Int { lock.withLock { lostTiles } }

    /// Tiles made so far (geojson-vt's `total`) and their coordinates in the order made.
    public var madeTiles: [(z: Int, x: Int, y: Int)] { lock.withLock { tileCoords } }

    /// The tile as a Mapbox Vector Tile with one layer (version per `options.compatibility`);
    /// no bytes where there is no tile or it has no features. Throws where the options make tile
    /// coordinates an MVT cannot hold (`TilingOptions.validateForMVT`).
    public func mvt(z: Int, x: Int, y: Int, layer: String) throws(MapCoreError) -> [UInt8] {
        try placedInArray { (placement) throws(MapCoreError) in
            try mvt(z: z, x: x, y: y, layer: layer, into: placement)
        }
    }

    /// The same, handed to `placement` (written where it says once measured; line-metric tiles,
    /// written with tables of their own, are copied there).
    public func mvt(z: Int, x: Int, y: Int, layer: String, into placement: BytePlacement) throws(MapCoreError) {
        try options.validateForMVT()
        guard let tile = written(z: z, x: x, y: y) else { return place([], placement) }
        tile.mvt(layer: layer, extent: Int(options.extent), version: options.compatibility.mvtVersion, into: placement)
    }
}
