// Geometry: Web Mercator to the unit square (x east, y south, both 0…1 over the world), in the two
// algebraically equal forms the references compute with.
//
// Why two: the forms round differently in the last bits, and exactness to a reference means
// computing as it does. supercluster and geojson-vt use the sine form below (clamped to the unit
// square); maplibre-style-spec's `within`/`distance` use the tangent form (`MapLibre`, unclamped);
// vector-tile-js turns tile coordinates into longitude/latitude in its own order (`VectorTile`).
// For the same reason the sine form takes its sine, logarithm, exponential and arctangent from the
// library its reference computes with (`MathLibrary`).

import CMapCoreKernels
import Glibc

/// Whose sin, log, exp and atan a projection computes with: they differ in the last bit of a few
/// percent of positions.
enum MathLibrary: Sendable {
    /// C's (glibc): geojson-vt-cpp's and supercluster-cpp's, as MapLibre Native runs them.
    case c
    /// JavaScript's Math as V8 computes it (`JSMath`): geojson-vt's and supercluster's in node.
    case javaScript
}

/// Spherical Mercator in the unit square, as supercluster and geojson-vt compute it.
enum Projection {
    @inline(__always) static func x(lng: Double) -> Double { lng / 360 + 0.5 }
    @inline(__always) static func y(lat: Double, _ math: MathLibrary) -> Double {
        y(logRatio: logarithm(ratio: ratio(sine: sine(lat: lat, math)), math))
    }

    /// `y(lat:)` in its three steps (`ys` takes many positions a step at a time).
    @inline(__always) static func sine(lat: Double, _ math: MathLibrary) -> Double {
        let a = lat * Double.pi / 180
        return math == .c ? sin(a) : JSMath.sin(a)
    }
    @inline(__always) static func ratio(sine s: Double) -> Double { (1 + s) / (1 - s) }
    @inline(__always) static func logarithm(ratio r: Double, _ math: MathLibrary) -> Double {
        math == .c ? log(r) : JSMath.log(r)
    }
    @inline(__always) static func y(logRatio l: Double) -> Double {
        let y = 0.5 - 0.25 * l / Double.pi
        return y < 0 ? 0 : y > 1 ? 1 : y
    }
    /// `y(lat:)` of `count` latitudes in place, at `values[stride * p]`. JavaScript's Math takes
    /// four a step where the CPU has AVX2 (`mc_js_mercator_y`, the same doubles: the scalar sin
    /// and log were about a quarter of a country set's index build); otherwise `y(lat:)`'s steps
    /// are each taken over all of them, so that the calls to `sin` and `log` of different positions
    /// overlap (one position's chain of sine, division and logarithm leaves the CPU waiting).
    /// `kernel: false` takes the steps whatever the CPU (for tests).
    static func ys(
        _ values: UnsafeMutablePointer<Double>, stride: Int, count: Int, _ math: MathLibrary, kernel: Bool = true
    ) {
        guard stride >= 1, count > 0 else { return }
        if kernel && math == .javaScript && mc_js_mercator_y_vectorized() != 0 {
            let groups = count / 4
            // The groups the kernel leaves (a latitude off its common path), then the last one to
            // three, one at a time.
            withUnsafeTemporaryAllocation(of: Int.self, capacity: max(1, groups)) { left in
                guard let starts = left.baseAddress else { return }
                let n = mc_js_mercator_y(values, stride, count, starts)
                for g in 0..<max(0, min(n, groups)) {
                    for p in starts[g]..<starts[g] + 4 { values[stride * p] = y(lat: values[stride * p], math) }
                }
            }
            for p in 4 * groups..<count { values[stride * p] = y(lat: values[stride * p], math) }
            return
        }
        for p in 0..<count { values[stride * p] = ratio(sine: sine(lat: values[stride * p], math)) }
        for p in 0..<count { values[stride * p] = logarithm(ratio: values[stride * p], math) }
        for p in 0..<count { values[stride * p] = y(logRatio: values[stride * p]) }
    }
    @inline(__always) static func lng(x: Double) -> Double { (x - 0.5) * 360 }
    @inline(__always) static func lat(y: Double, _ math: MathLibrary) -> Double {
        let y2 = (180 - y * 360) * Double.pi / 180
        return 360 * (math == .c ? atan(exp(y2)) : JSMath.atan(JSMath.exp(y2))) / Double.pi - 90
    }

    /// The tangent form of maplibre-style-spec (`mercatorXfromLng`, `mercatorYfromLat` and their
    /// inverses), which its `within` and `distance` quantize tiles with.
    enum MapLibre {
        @inline(__always) static func x(lng: Double) -> Double { (180 + lng) / 360 }
        @inline(__always) static func y(lat: Double) -> Double {
            (180 - (180 / Double.pi * log(tan(Double.pi / 4 + lat * Double.pi / 360)))) / 360
        }
        @inline(__always) static func lng(x: Double) -> Double { x * 360 - 180 }
        @inline(__always) static func lat(y: Double) -> Double {
            360 / Double.pi * atan(exp((180 - y * 360) * Double.pi / 180)) - 90
        }
    }

    /// vector-tile-js's `toGeoJSON(x, y, z)`: a position (px, py) of a tile whose origin is
    /// (x0, y0) = extent · (x, y) in a world `size` = extent · 2^z wide, with V8's atan and exp
    /// (node 20's).
    enum VectorTile {
        @inline(__always) static func lngLat(
            _ px: Double, _ py: Double, x0: Double, y0: Double,
            size: Double
        ) -> (lng: Double, lat: Double) {
            let y2 = 180 - (py + y0) * 360 / size
            return ((px + x0) * 360 / size - 180, 360 / Double.pi * JSMath.atan(JSMath.exp(y2 * Double.pi / 180)) - 90)
        }
    }
}
