// Support: JavaScript's number semantics, which the references (style spec, supercluster, geojson-vt)
// compute with and MapCore reproduces exactly.

/// JavaScript's number-to-text form, which the spec's string conversions follow.
enum JSNumber {
    /// `String(n)` in JavaScript: shortest round-trip digits, exponent form outside 1e-7..1e21.
    static func format(_ d: Double) -> String {
        if d.isNaN { return "NaN" }
        if d.isInfinite { return d < 0 ? "-Infinity" : "Infinity" }
        if d == 0 { return "0" }
        if d == d.rounded() && abs(d) < 1e21 {
            if abs(d) < 9.007199254740992e15 { return String(Int64(d)) }
        }
        // Swift's description gives the shortest round-trip digits; re-lay them out as JS does.
        var s = d.description
        var negative = false
        if s.hasPrefix("-") { negative = true; s.removeFirst() }
        var mantissa = s
        var exponent = 0
        if let e = s.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            mantissa = String(s[..<e])
            exponent = Int(s[s.index(after: e)...]) ?? 0
        }
        var digits = mantissa
        var pointPos = digits.count
        if let dot = digits.firstIndex(of: ".") {
            pointPos = digits.distance(from: digits.startIndex, to: dot)
            digits.remove(at: dot)
        }
        // Strip leading zeros (adjusting the point) and trailing zeros.
        while digits.count > 1 && digits.hasPrefix("0") { digits.removeFirst(); pointPos -= 1 }
        while digits.count > 1 && digits.hasSuffix("0") { digits.removeLast() }
        let n = pointPos + exponent  // position of the decimal point relative to the digits
        let k = digits.count
        var out: String
        if k <= n && n <= 21 {
            out = digits + String(repeating: "0", count: n - k)
        } else if 0 < n && n <= 21 {
            let i = digits.index(digits.startIndex, offsetBy: n)
            out = digits[..<i] + "." + digits[i...]
        } else if -6 < n && n <= 0 {
            out = "0." + String(repeating: "0", count: -n) + digits
        } else {
            let e = n - 1
            let sign = e < 0 ? "-" : "+"
            let first = String(digits.prefix(1))
            let rest = String(digits.dropFirst())
            out = first + (rest.isEmpty ? "" : "." + rest) + "e" + sign + String(abs(e))
        }
        return negative ? "-" + out : out
    }
}

extension Double {
    /// JavaScript's `Math.round`: the nearest integer, halves toward +∞. Stays a Double: tile
    /// coordinates of far-off points can exceed any integer type.
    /// (Not `floor(x + 0.5)`: that sum rounds up for 0.49999999999999994 and odd integers
    /// above 2^52; the fraction `x - floor(x)` is exact.)
    var jsRounded: Double {
        let down = rounded(.down)
        return self - down >= 0.5 ? down + 1 : down
    }
}

/// JavaScript's `Math.min` and `Math.max` (NaN wins), which geojson-vt computes boxes with.
@inline(__always) func jsMin(_ a: Double, _ b: Double) -> Double { a.isNaN || b.isNaN ? .nan : (b < a ? b : a) }
@inline(__always) func jsMax(_ a: Double, _ b: Double) -> Double { a.isNaN || b.isNaN ? .nan : (b > a ? b : a) }
