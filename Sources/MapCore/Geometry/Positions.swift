// Geometry: the flat list of positions of any GeoJSON value (the SDK's `Math.positions(from:)`).

public enum Positions {
    /// How many positions `copy(of:into:)` writes.
    public static func count(of value: GeoJSON) -> Int {
        var n = 0
        value.forEachGeometry { n += $0.positionCount }
        return n
    }

    /// Copies every position's longitude and latitude, in document order, into `out`, which must
    /// hold `2 * count(of: value)` doubles. Altitudes are left out.
    public static func copy(of value: GeoJSON, into out: UnsafeMutableBufferPointer<Double>) {
        var offset = 0
        value.forEachGeometry { g in
            g.xy.withUnsafeBufferPointer { src in
                guard let s = src.baseAddress, let d = out.baseAddress, offset + src.count <= out.count else { return }
                (d + offset).update(from: s, count: src.count)
                offset += src.count
            }
        }
    }

    /// Every position, interleaved longitude/latitude.
    public static func of(_ value: GeoJSON) -> ContiguousArray<Double> {
        let n = count(of: value) * 2
        return ContiguousArray(unsafeUninitializedCapacity: n) { buffer, initialized in
            buffer.initialize(repeating: 0)
            copy(of: value, into: buffer)
            initialized = n
        }
    }
}
