// JSMath against node's Math: the bits node 20 gives for arguments through every branch of the
// algorithms (Tests/fixtures/js-math/cases.txt, written by tools/js-math/generate.mjs).
import CMapCoreKernels
import Glibc
import Testing
@testable import MapCore

private struct MathCase {
    let function: String
    let argument: Double
    let expected: Double
}

private func cases() throws -> [MathCase] {
    let root = #filePath.split(separator: "/").dropLast(3).joined(separator: "/")
    let text = String(decoding: try FileIO.read(path: "/\(root)/Tests/fixtures/js-math/cases.txt"), as: UTF8.self)
    var out: [MathCase] = []
    for line in text.split(separator: "\n") where !line.hasPrefix("#") {
        let f = line.split(separator: " ")
        guard f.count == 3, let a = UInt64(f[1], radix: 16), let r = UInt64(f[2], radix: 16) else {
            Issue.record("unreadable case: \(line)")
            continue
        }
        out.append(MathCase(function: String(f[0]), argument: Double(bitPattern: a), expected: Double(bitPattern: r)))
    }
    return out
}

/// The same double, bit for bit (any NaN matches a NaN: V8 writes its own).
private func same(_ a: Double, _ b: Double) -> Bool {
    a.isNaN ? b.isNaN : a.bitPattern == b.bitPattern
}

private let functions: [String: @Sendable (Double) -> Double] = [
    "sin": JSMath.sin, "log": JSMath.log, "exp": JSMath.exp, "atan": JSMath.atan,
]
private let cFunctions: [String: @Sendable (Double) -> Double] = ["sin": sin, "log": log, "exp": exp, "atan": atan]

@Suite struct JSMathTests {
    /// Every case: N passed, M failed, each failure listed.
    @Test func everyCaseIsNodesAnswer() throws {
        let all = try cases()
        var counts: [String: Int] = [:]
        var failures: [String] = []
        for c in all {
            counts[c.function, default: 0] += 1
            guard let f = functions[c.function] else {
                failures.append("unknown function \(c.function)")
                continue
            }
            let got = f(c.argument)
            if !same(got, c.expected) {
                failures.append("\(c.function)(\(c.argument)) = \(got), node \(c.expected)")
            }
        }
        print("js-math: \(all.count - failures.count) passed, \(failures.count) failed")
        for f in failures.prefix(100) { print("  FAIL \(f)") }
        #expect(failures.isEmpty)
        // Every function is there, with its branches' worth of cases.
        for name in functions.keys { #expect(counts[name, default: 0] >= 1000, "\(name): \(counts[name, default: 0])") }
    }

    /// Why JSMath exists: C's functions give node's answer for most cases, not all.
    @Test func cFunctionsDifferFromNodeInTheLastBit() throws {
        var differ: [String: Int] = [:]
        for c in try cases() where c.argument.isFinite {
            guard let f = cFunctions[c.function] else { continue }
            let got = f(c.argument)
            if !same(got, c.expected) {
                differ[c.function, default: 0] += 1
                // Only in the last bits: both are within an ulp or two of the true value.
                if got.isFinite && c.expected.isFinite && got != 0 {
                    #expect(abs(got - c.expected) <= 2 * got.ulp, "\(c.function)(\(c.argument))")
                }
            }
        }
        for name in cFunctions.keys { #expect(differ[name, default: 0] > 0, "\(name) agrees with node everywhere") }
    }

    /// Arguments beyond fdlibm's medium reduction (about 2^20 · π/2: latitudes past 94 million
    /// degrees) take C's sin; below it, fdlibm's steps (the fixture holds node's sines up to 1.6e6).
    @Test func sineOfHugeArgumentsIsCs() {
        for x in [1.7e6, -3e7, 1e300] { #expect(same(JSMath.sin(x), sin(x))) }
    }
}

/// `Projection.ys` with JavaScript's Math (four latitudes a step with AVX2, `mc_js_mercator_y`)
/// against `Projection.y(lat:)` one at a time, bit for bit: latitudes at every branch's edges of
/// JSMath's sin and log, the ones the kernel leaves to the scalar code among ordinary ones, and
/// random ones, at strides 1 and 3 and counts that leave a tail.
@Suite struct MercatorYTests {
    /// Latitudes whose radians have the high word `high` (and its neighbours' low words).
    private static func latitudes(nearHighWord high: UInt32) -> [Double] {
        let a = Double(bitPattern: UInt64(high) << 32)
        var out: [Double] = []
        for sign in [1.0, -1.0] {
            for b in [a.nextDown.nextDown, a.nextDown, a, a.nextUp, a.nextUp.nextUp] {
                let lat = sign * b * 180 / Double.pi
                out += [lat.nextDown, lat, lat.nextUp]
            }
        }
        return out
    }

    private static func edgeLatitudes() -> [Double] {
        var out: [Double] = [
            0, -0.0, 1e-300, -1e-300, 5e-324, 1e-7, -1e-7, 4e-7, 5e-7, 1e-6, -1e-6, 85.0511287798066,
            -85.0511287798066, 89.9999, 89.99999999, 90, -90, 90.0.nextDown, -90.0.nextUp, 90.0.nextUp, 91,
            -91, 134.9, 135, 135.1, -135, 180, -180, 1e6, -1e6, 1e300, .nan, .infinity, -.infinity, 45, -45,
            30, 60, 72.8, -72.8, 80, 1, -1, 0.001, 0.01, 0.1, 10,
        ]
        // sin's branches (|a| <= π/4, 3π/4, next to π/2, 2^-27) and kernelCos's (0.3, 0.78125).
        for high in [UInt32(0x3e40_0000), 0x3fe9_21fb, 0x3fe9_21fc, 0x4002_d97c, 0x3ff9_21fb, 0x3ff9_21fa] {
            out += latitudes(nearHighWord: high)
        }
        // kernelCos's branches: the reduced argument π/2 − |a| across the high words 0x3FD33333 (0.3),
        // 0x3FE90000 (0.78125) and 0x3E400000 (2^-27), each boundary from both sides.
        for high in [
            UInt32(0x3fd3_3332), 0x3fd3_3333, 0x3fd3_3334, 0x3fe8_ffff, 0x3fe9_0000, 0x3fe9_0001, 0x3e3f_ffff,
            0x3e40_0000,
        ] {
            let r = Double(bitPattern: UInt64(high) << 32)
            for sign in [1.0, -1.0] { out += Self.walk(sign * (Double.pi / 2 - r) * 180 / Double.pi, steps: 12) }
        }
        // log's: the ratio next to a power of two (|f| < 2^-20; k = 0 next to 1), the bounds of its
        // mantissa's band (0x6147A and 0x6B851) and of k = 0.
        var ratios = [1.38, 1.4, 1.42, 2.76, 2.8, 2.84, 0.7071, 0.7072, 1.4142, 1.4143]
        for k in -3...3 { ratios.append(pow(2, Double(k))) }
        for m in [UInt64(0x6_147a), 0x6_147b, 0x6_b851, 0x6_b852] {
            for e in [UInt64(1022), 1023, 1024, 1025] { ratios.append(Double(bitPattern: e << 52 | m << 32)) }
        }
        for ratio in ratios {
            let s = (ratio - 1) / (ratio + 1)
            for sign in [1.0, -1.0] { out += Self.walk(sign * asin(s) * 180 / Double.pi, steps: 12) }
        }
        return out
    }

    /// `lat` and the `steps` doubles on each side of it.
    private static func walk(_ lat: Double, steps: Int) -> [Double] {
        var l = lat
        for _ in 0..<steps { l = l.nextDown }
        return (0...2 * steps).map { _ in
            defer { l = l.nextUp }
            return l
        }
    }

    private static func random(_ count: Int, seed: UInt64) -> [Double] {
        var g = SeededGenerator(seed: seed)
        return (0..<count).map { i in
            let u = Double.random(in: 0..<1, using: &g)
            switch i % 4 {
            case 0: return u * 170.1022575596132 - 85.0511287798066
            case 1: return u * 180 - 90
            case 2: return (u * 2 - 1) * pow(10, -8 * Double.random(in: 0..<1, using: &g))  // near the equator
            default: return Double(Int(u * 1_800_000) - 900_000) / 10_000  // 4 decimals
            }
        }
    }

    /// Each of `lats` through `Projection.ys` at `stride`, against the scalar one: the mismatches
    /// (and any slot written that is not a latitude's: between them, or past the last).
    private static func mismatches(_ lats: [Double], stride: Int, kernel: Bool = true) -> [String] {
        var values = [Double](repeating: 7, count: stride * lats.count + 8)
        for (i, lat) in lats.enumerated() { values[stride * i] = lat }
        values.withUnsafeMutableBufferPointer { v in
            if let base = v.baseAddress {
                Projection.ys(base, stride: stride, count: lats.count, .javaScript, kernel: kernel)
            }
        }
        var out: [String] = []
        for (i, lat) in lats.enumerated() {
            let want = Projection.y(lat: lat, .javaScript), got = values[stride * i]
            let same = want.isNaN ? got.isNaN : want.bitPattern == got.bitPattern
            if !same { out.append("lat \(lat) (\(String(lat.bitPattern, radix: 16))): \(got), scalar \(want)") }
            for k in 1..<stride where values[stride * i + k] != 7 { out.append("lat \(lat): wrote outside its slot") }
        }
        if values[(stride * lats.count)...].contains(where: { $0 != 7 }) { out.append("wrote past the last latitude") }
        return out
    }

    @Test func fourAtATimeIsTheScalarOne() {
        let edges = Self.edgeLatitudes()
        var lats = edges
        // Each edge latitude also among three ordinary ones, at each place in a group of four.
        for (i, e) in edges.enumerated() {
            var group = [12.5, -33.25, 51.477928, 60.1]
            group[i % 4] = e
            lats += group
        }
        lats += Self.random(200_003, seed: 23)
        var failures: [String] = [], compared = 0
        for stride in [1, 3] {
            failures += Self.mismatches(lats, stride: stride)
            compared += lats.count
            for count in [0, 1, 2, 3, 5, 7] {
                failures += Self.mismatches(Array(lats.prefix(count)), stride: stride)
                compared += count
            }
        }
        // The steps a CPU without AVX2 takes, here too.
        failures += Self.mismatches(lats, stride: 3, kernel: false)
        compared += lats.count
        print("mercator y: \(compared - failures.count) passed, \(failures.count) failed (\(lats.count) latitudes)")
        for f in failures.prefix(50) { print("  FAIL \(f)") }
        let failed = failures.count  // listed above, not in the expectation's message
        #expect(failed == 0)
    }

    /// The kernel converts ordinary latitudes where the CPU has AVX2 (otherwise this suite would
    /// compare the scalar code with itself), and lists a group holding an edge one, wherever it is,
    /// leaving it as it was and converting the others.
    @Test func theKernelTakesOrdinaryGroupsAndListsTheOthers() {
        let ordinary = [12.5, -33.25, 51.477928, 60.1, 0.5, -80, 85, -85.05, 1, 2, 3, 4]
        func run(_ lats: [Double]) -> (values: [Double], left: [Int]) {
            var values = lats
            var left = [Int](repeating: -1, count: lats.count / 4)
            let n = values.withUnsafeMutableBufferPointer { v in
                left.withUnsafeMutableBufferPointer { l in mc_js_mercator_y(v.baseAddress, 1, lats.count, l.baseAddress)
                }
            }
            return (values, Array(left.prefix(n)))
        }
        guard mc_js_mercator_y_vectorized() != 0 else {
            #expect(run(ordinary).left == [0, 4, 8])
            return
        }
        let plain = run(ordinary)
        #expect(plain.left.isEmpty)
        #expect(plain.values == ordinary.map { Projection.y(lat: $0, .javaScript) })
        for lat in [0.0, 90, .nan, 1e-300, 200, 19.471220634490691] {
            for at in [1, 6, 11] {
                var lats = ordinary
                lats[at] = lat
                let (values, left) = run(lats)
                let group = at / 4 * 4
                #expect(left == [group], "lat \(lat) at \(at)")
                for p in lats.indices {
                    let want = (group..<group + 4).contains(p) ? lats[p] : Projection.y(lat: lats[p], .javaScript)
                    #expect(
                        values[p].bitPattern == want.bitPattern || values[p].isNaN && want.isNaN,
                        "lat \(lat) at \(at), \(p)")
                }
            }
        }
        // Fewer than four: nothing converted, none listed.
        let short = run([12.5, 13, 14])
        #expect(short.left.isEmpty && short.values == [12.5, 13, 14])
    }
}
