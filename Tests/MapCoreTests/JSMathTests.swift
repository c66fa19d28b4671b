// JSMath against node's Math: the bits node 20 gives for arguments through every branch of the
// algorithms (Tests/fixtures/js-math/cases.txt, written by tools/js-math/generate.mjs).
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
