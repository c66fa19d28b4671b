// Test helpers shared by the core tests.
@testable import MapCore

/// Parses GeoJSON text, returning the error instead of throwing so tests can inspect it.
func parseResult(_ text: String, maxDepth: Int = ParseLimits.defaultMaxDepth) -> Result<GeoJSON, MapCoreError> {
    Result { () throws(MapCoreError) -> GeoJSON in
        try GeoJSONParser.parse(text, limits: ParseLimits(maxDepth: maxDepth))
    }
}

func parseError(_ text: String) -> MapCoreError? {
    if case .failure(let e) = parseResult(text) { return e }
    return nil
}

/// Floating point equality within an explicit tolerance.
func approximatelyEqual(_ a: Double, _ b: Double, tolerance: Double = 1e-12) -> Bool {
    abs(a - b) <= tolerance * max(1, abs(a), abs(b))
}

/// A small deterministic generator (SplitMix64), so randomized tests repeat exactly.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The error `body` throws, or nil.
func thrown(_ body: () throws(MapCoreError) -> Void) -> MapCoreError? {
    do { try body() } catch { return error }
    return nil
}
