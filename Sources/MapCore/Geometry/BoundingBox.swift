// Geometry: bounding boxes, with the helpers of the Azure Maps SDKs' BoundingBox.

/// A longitude/latitude box. `west > east` means the box crosses the antimeridian and covers
/// `[west, 180] ∪ [-180, east]`.
public struct BoundingBox: Equatable, Sendable {
    public var west: Double
    public var south: Double
    public var east: Double
    public var north: Double

    public init(west: Double, south: Double, east: Double, north: Double) {
        self.west = west
        self.south = south
        self.east = east
        self.north = north
    }

    /// The box of every position in a GeoJSON value, or nil when it has none (the SDK's
    /// `BoundingBox.fromData` returning nil). Computed from coordinates; "bbox" members are not trusted.
    public static func of(_ value: GeoJSON) -> BoundingBox? {
        var box: BoundingBox?
        value.forEachGeometry { g in
            g.xy.withUnsafeBufferPointer { b in
                guard let e = extent(b)?.box else { return }
                box = box.map { $0.union(e) } ?? e
            }
        }
        return box
    }

    /// The box of interleaved longitude/latitude pairs, or nil when there are none.
    /// Throws `invalidArgument` when a value is NaN or infinite.
    public static func of(xy: UnsafeBufferPointer<Double>) throws(MapCoreError) -> BoundingBox? {
        guard xy.count % 2 == 0 else {
            throw MapCoreError(.invalidArgument, "Positions need an even count of numbers.")
        }
        guard let (box, allFinite) = extent(xy) else { return nil }
        guard allFinite else {
            throw MapCoreError(.invalidArgument, "Positions must be finite numbers (found NaN or infinity).")
        }
        return box
    }

    /// Plain min/max over pairs, two pairs per SIMD step with two accumulators to keep the
    /// loop bound by memory bandwidth rather than by the min/max latency chain. The same pass
    /// tells whether every value is finite: x - x is 0 for a finite x and NaN otherwise, and a
    /// NaN survives any sum (a second pass over the buffer would double the memory traffic).
    static func extent(_ xy: UnsafeBufferPointer<Double>) -> (box: BoundingBox, allFinite: Bool)? {
        let n = xy.count & ~1
        guard n >= 2, let base = xy.baseAddress else { return nil }
        let raw = UnsafeRawPointer(base)
        var lo0 = SIMD4<Double>(base[0], base[1], base[0], base[1])
        var hi0 = lo0, lo1 = lo0, hi1 = lo0
        var nan0 = SIMD4<Double>(repeating: 0), nan1 = nan0
        var i = 0
        while i + 8 <= n {
            let a = raw.loadUnaligned(fromByteOffset: i * 8, as: SIMD4<Double>.self)
            let b = raw.loadUnaligned(fromByteOffset: (i + 4) * 8, as: SIMD4<Double>.self)
            lo0 = pointwiseMin(lo0, a); hi0 = pointwiseMax(hi0, a)
            lo1 = pointwiseMin(lo1, b); hi1 = pointwiseMax(hi1, b)
            nan0 += a - a
            nan1 += b - b
            i += 8
        }
        var lo = pointwiseMin(lo0, lo1), hi = pointwiseMax(hi0, hi1)
        var nan = (nan0 + nan1).sum()
        while i < n {
            let p = SIMD4<Double>(base[i], base[i + 1], base[i], base[i + 1])
            lo = pointwiseMin(lo, p); hi = pointwiseMax(hi, p)
            nan += (base[i] - base[i]) + (base[i + 1] - base[i + 1])
            i += 2
        }
        let box = BoundingBox(
            west: min(lo[0], lo[2]), south: min(lo[1], lo[3]),
            east: max(hi[0], hi[2]), north: max(hi[1], hi[3]))
        return (box, nan == 0)
    }

    /// Plain min/max union for boxes that do not cross the antimeridian.
    func union(_ o: BoundingBox) -> BoundingBox {
        BoundingBox(
            west: min(west, o.west), south: min(south, o.south),
            east: max(east, o.east), north: max(north, o.north))
    }

    // MARK: SDK helpers

    public var crossesAntimeridian: Bool { west > east }

    /// Longitude extent in degrees, measured eastward from `west`.
    public var longitudeSpan: Double { crossesAntimeridian ? east - west + 360 : east - west }

    /// Whether the position lies in the box (edges included), respecting the antimeridian.
    public func contains(longitude lon: Double, latitude lat: Double) -> Bool {
        guard lat >= south && lat <= north else { return false }
        return crossesAntimeridian ? (lon >= west || lon <= east) : (lon >= west && lon <= east)
    }

    /// Whether the boxes share at least one point (touching edges count).
    public func intersects(_ o: BoundingBox) -> Bool {
        guard south <= o.north && o.south <= north else { return false }
        for a in splitAtAntimeridian() {
            for b in o.splitAtAntimeridian() where a.west <= b.east && b.west <= a.east { return true }
        }
        return false
    }

    /// The smallest box holding both. Boxes that do not cross the antimeridian merge by plain
    /// min/max (as the SDK does); when one crosses, the shorter way around the globe is kept.
    public func merged(with o: BoundingBox) -> BoundingBox {
        guard crossesAntimeridian || o.crossesAntimeridian else { return union(o) }
        let south = min(self.south, o.south), north = max(self.north, o.north)
        func offset(_ from: Double, _ to: Double) -> Double {
            let d = (to - from).truncatingRemainder(dividingBy: 360)
            return d < 0 ? d + 360 : d
        }
        let spanA = longitudeSpan, spanB = o.longitudeSpan
        if offset(west, o.west) + spanB <= spanA {
            return BoundingBox(west: west, south: south, east: east, north: north)
        }
        if offset(o.west, west) + spanA <= spanB {
            return BoundingBox(west: o.west, south: south, east: o.east, north: north)
        }
        let fromA = offset(west, o.west) + spanB
        let fromB = offset(o.west, west) + spanA
        let (start, span) = fromA <= fromB ? (west, fromA) : (o.west, fromB)
        if span >= 360 { return BoundingBox(west: -180, south: south, east: 180, north: north) }
        var end = start + span
        if end > 180 { end -= 360 }
        return BoundingBox(west: start, south: south, east: end, north: north)
    }

    /// One box, or two when this one crosses the antimeridian (its western part first).
    public func splitAtAntimeridian() -> [BoundingBox] {
        guard crossesAntimeridian else { return [self] }
        return [
            BoundingBox(west: west, south: south, east: 180, north: north),
            BoundingBox(west: -180, south: south, east: east, north: north),
        ]
    }
}
