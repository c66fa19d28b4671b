// Expression: colors — CSS Color 4 parsing, premultiplied storage, RGB/HCL/Lab interpolation.

import Glibc

/// An sRGB color with red, green and blue premultiplied by alpha, as renderers upload it.
public struct Color: Sendable, Equatable {
    public let r: Double, g: Double, b: Double, a: Double
    /// The unpremultiplied channels when alpha is 0 (premultiplying erased them, but
    /// interpolating from a fully transparent color still needs them).
    private let transparentRGB: (Double, Double, Double)?

    public init(premultipliedR r: Double, g: Double, b: Double, a: Double) {
        self.r = r; self.g = g; self.b = b; self.a = a
        transparentRGB = nil
    }

    /// A color from straight (not premultiplied) channels 0...1.
    public init(r: Double, g: Double, b: Double, a: Double = 1) {
        self.r = r * a; self.g = g * a; self.b = b * a; self.a = a
        transparentRGB = a == 0 ? (r, g, b) : nil
    }

    public static func == (x: Color, y: Color) -> Bool { x.r == y.r && x.g == y.g && x.b == y.b && x.a == y.a }

    public static let black = Color(r: 0, g: 0, b: 0)
    public static let transparent = Color(r: 0, g: 0, b: 0, a: 0)

    /// Straight (unpremultiplied) red, green, blue and alpha, 0...1.
    public var rgba: (r: Double, g: Double, b: Double, a: Double) {
        if let t = transparentRGB { return (t.0, t.1, t.2, a) }
        let f = a == 0 ? Double.infinity : a
        return (r / f, g / f, b / f, a)
    }

    /// `rgba(r,g,b,a)` with channels rounded to 0...255: the spec's `to-string` of a color.
    public var cssString: String {
        let c = rgba
        func channel(_ v: Double) -> String { JSNumber.format((v * 255).jsRounded) }
        return "rgba(\(channel(c.r)),\(channel(c.g)),\(channel(c.b)),\(JSNumber.format(c.a)))"
    }

    // MARK: parsing

    /// Parses every CSS form the style spec accepts: named colors, `transparent`, `#rgb`,
    /// `#rgba`, `#rrggbb`, `#rrggbbaa`, `rgb()`/`rgba()` and `hsl()`/`hsla()` in both the comma
    /// and the space/slash syntax, with numbers or percentages. nil when the text is not a color.
    public static func parse(_ input: String) -> Color? {
        let text = String(
            input.lowercased().drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
        if text == "transparent" { return .transparent }
        if let rgb = namedColors[text] {
            return Color(r: Double(rgb >> 16) / 255, g: Double((rgb >> 8) & 0xFF) / 255, b: Double(rgb & 0xFF) / 255)
        }
        let bytes = Array(text.utf8)
        if bytes.first == UInt8(ascii: "#") { return parseHex(bytes.dropFirst()) }
        if text.hasPrefix("rgb") { return parseFunction(bytes, hsl: false) }
        if text.hasPrefix("hsl") { return parseFunction(bytes, hsl: true) }
        return nil
    }

    private static func parseHex(_ digits: ArraySlice<UInt8>) -> Color? {
        var values: [Double] = []
        for d in digits {
            switch d {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): values.append(Double(d - UInt8(ascii: "0")))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): values.append(Double(d - UInt8(ascii: "a") + 10))
            default: return nil
            }
        }
        switch values.count {
        case 3, 4:
            let c = values.map { ($0 * 16 + $0) / 255 }
            return Color(r: c[0], g: c[1], b: c[2], a: c.count == 4 ? c[3] : 1)
        case 6, 8:
            let c = stride(from: 0, to: values.count, by: 2).map { (values[$0] * 16 + values[$0 + 1]) / 255 }
            return Color(r: c[0], g: c[1], b: c[2], a: c.count == 4 ? c[3] : 1)
        default: return nil
        }
    }

    /// `rgb(…)`, `rgba(…)`, `hsl(…)`, `hsla(…)`: three components separated all by commas or all
    /// by spaces, then an optional alpha after a comma (comma form) or a slash (space form).
    private static func parseFunction(_ bytes: [UInt8], hsl: Bool) -> Color? {
        var i = 3
        if i < bytes.count && bytes[i] == UInt8(ascii: "a") { i += 1 }
        guard i < bytes.count, bytes[i] == UInt8(ascii: "("), bytes.last == UInt8(ascii: ")") else { return nil }
        let inner = bytes[(i + 1)..<(bytes.count - 1)]
        // Tokenize into numbers (with an optional % or deg suffix) and separators.
        enum Token { case number(Double, percent: Bool, deg: Bool), comma, slash }
        var tokens: [Token] = []
        var p = inner.startIndex
        func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0C || c == 0x0D }
        while p < inner.endIndex {
            let c = inner[p]
            if isSpace(c) { p += 1; continue }
            if c == UInt8(ascii: ",") { tokens.append(.comma); p += 1; continue }
            if c == UInt8(ascii: "/") { tokens.append(.slash); p += 1; continue }
            var q = p
            while q < inner.endIndex, let ch = Optional(inner[q]),
                (ch >= UInt8(ascii: "0") && ch <= UInt8(ascii: "9")) || ch == UInt8(ascii: ".")
                    || ch == UInt8(ascii: "e")
                    || ch == UInt8(ascii: "+") || ch == UInt8(ascii: "-")
            { q += 1 }
            guard q > p, let v = parseCSSNumber(inner[p..<q]) else { return nil }
            p = q
            var percent = false, deg = false
            if p < inner.endIndex && inner[p] == UInt8(ascii: "%") {
                percent = true; p += 1
            } else if inner[p...].starts(with: "deg".utf8) {
                deg = true; p += 3
            }
            tokens.append(.number(v, percent: percent, deg: deg))
        }
        var nums: [(Double, Bool, Bool)] = []
        for case .number(let v, let percent, let deg) in tokens { nums.append((v, percent, deg)) }
        guard nums.count == 3 || nums.count == 4 else { return nil }
        // The separators between successive numbers must read "  ", "  /", ",," or ",,,".
        var pattern: [Character] = []
        var lastWasNumber = false
        for t in tokens {
            switch t {
            case .number:
                if lastWasNumber { pattern.append(" ") }
                lastWasNumber = true
            case .comma: guard lastWasNumber else { return nil }; pattern.append(","); lastWasNumber = false
            case .slash: guard lastWasNumber else { return nil }; pattern.append("/"); lastWasNumber = false
            }
        }
        guard lastWasNumber else { return nil }
        let shape = String(pattern)
        guard shape == "  " || shape == "  /" || shape == ",," || shape == ",,," else { return nil }
        guard nums.count == shape.count + 1 else { return nil }
        func clamp(_ v: Double, _ lo: Double, _ hi: Double) -> Double { min(max(lo, v), hi) }
        var alpha = 1.0
        if nums.count == 4 {
            let (v, percent, deg) = nums[3]
            guard !deg else { return nil }
            alpha = clamp(percent ? v / 100 : v, 0, 1)
        }
        if hsl {
            guard !nums[0].1, nums[1].1, nums[2].1, !nums[1].2, !nums[2].2 else { return nil }
            let c = hslToRGB(h: nums[0].0, s: clamp(nums[1].0, 0, 100), l: clamp(nums[2].0, 0, 100))
            guard !c.0.isNaN && !c.1.isNaN && !c.2.isNaN && !alpha.isNaN else { return nil }
            return Color(r: c.0, g: c.1, b: c.2, a: alpha)
        }
        guard !nums[0].2, !nums[1].2, !nums[2].2 else { return nil }
        let percents = nums[0].1 && nums[1].1 && nums[2].1
        let plain = !nums[0].1 && !nums[1].1 && !nums[2].1
        guard percents || plain else { return nil }
        let maxValue = percents ? 100.0 : 255.0
        let rgb = (0..<3).map { clamp(nums[$0].0 / maxValue, 0, 1) }
        guard !rgb.contains(where: \.isNaN), !alpha.isNaN else { return nil }
        return Color(r: rgb[0], g: rgb[1], b: rgb[2], a: alpha)
    }

    private static func parseCSSNumber(_ bytes: ArraySlice<UInt8>) -> Double? {
        var s = String(decoding: bytes, as: UTF8.self)
        if s.hasPrefix("+") { s.removeFirst() }
        if s.hasPrefix(".") { s = "0" + s } else if s.hasPrefix("-.") { s = "-0" + s.dropFirst() }
        if s.hasSuffix(".") { s += "0" }
        return Double(s)
    }

    // MARK: color spaces (D50 Lab, as the reference uses)

    private static let xn = 0.96422, yn = 1.0, zn = 0.82521
    private static let t0 = 4.0 / 29, t1 = 6.0 / 29, t2 = 3 * (6.0 / 29) * (6.0 / 29),
        t3 = (6.0 / 29) * (6.0 / 29) * (6.0 / 29)

    static func hslToRGB(h: Double, s: Double, l: Double) -> (Double, Double, Double) {
        var hue = h.truncatingRemainder(dividingBy: 360)
        if hue < 0 { hue += 360 }
        let s = s / 100, l = l / 100
        func f(_ n: Double) -> Double {
            let k = (n + hue / 30).truncatingRemainder(dividingBy: 12)
            let a = s * min(l, 1 - l)
            return l - a * max(-1, min(k - 3, 9 - k, 1))
        }
        return (f(0), f(8), f(4))
    }

    /// Lightness, a, b.
    var lab: (Double, Double, Double) {
        let c = rgba
        func toXYZ(_ x: Double) -> Double { x <= 0.04045 ? x / 12.92 : pow((x + 0.055) / 1.055, 2.4) }
        func toLab(_ t: Double) -> Double { t > Color.t3 ? pow(t, 1.0 / 3) : t / Color.t2 + Color.t0 }
        let r = toXYZ(c.r), g = toXYZ(c.g), b = toXYZ(c.b)
        let y = toLab((0.2225045 * r + 0.7168786 * g + 0.0606169 * b) / Color.yn)
        var x = y, z = y
        if !(r == g && g == b) {
            x = toLab((0.4360747 * r + 0.3850649 * g + 0.1430804 * b) / Color.xn)
            z = toLab((0.0139322 * r + 0.0971045 * g + 0.7141733 * b) / Color.zn)
        }
        let l = 116 * y - 16
        return (l < 0 ? 0 : l, 500 * (x - y), 200 * (y - z))
    }

    static func fromLab(_ l: Double, _ a: Double, _ b: Double, alpha: Double) -> Color {
        var y = (l + 16) / 116
        var x = a.isNaN ? y : y + a / 500
        var z = b.isNaN ? y : y - b / 200
        func toXYZ(_ t: Double) -> Double { t > Color.t1 ? t * t * t : Color.t2 * (t - Color.t0) }
        func toRGB(_ v: Double) -> Double {
            let x = v <= 0.00304 ? 12.92 * v : 1.055 * pow(v, 1 / 2.4) - 0.055
            return x < 0 ? 0 : x > 1 ? 1 : x
        }
        y = Color.yn * toXYZ(y)
        x = Color.xn * toXYZ(x)
        z = Color.zn * toXYZ(z)
        return Color(
            r: toRGB(3.1338561 * x - 1.6168667 * y - 0.4906146 * z),
            g: toRGB(-0.9787684 * x + 1.9161415 * y + 0.033454 * z),
            b: toRGB(0.0719453 * x - 0.2289914 * y + 1.4052427 * z), a: alpha)
    }

    /// Hue (degrees, NaN for achromatic colors), chroma, lightness.
    var hcl: (Double, Double, Double) {
        let (l, a, b) = lab
        let c = (a * a + b * b).squareRoot()
        var h = Double.nan
        if (c * 10000).jsRounded != 0 {
            h = (atan2(b, a) * 180 / .pi).truncatingRemainder(dividingBy: 360)
            if h < 0 { h += 360 }
        }
        return (h, c, l)
    }

    public enum Space: Sendable { case rgb, hcl, lab }

    public static func interpolate(_ from: Color, _ to: Color, _ t: Double, space: Space = .rgb) -> Color {
        func mix(_ a: Double, _ b: Double) -> Double { a + t * (b - a) }
        switch space {
        case .rgb:
            let x = from.rgba, y = to.rgba
            return Color(r: mix(x.r, y.r), g: mix(x.g, y.g), b: mix(x.b, y.b), a: mix(x.a, y.a))
        case .lab:
            let x = from.lab, y = to.lab
            return fromLab(mix(x.0, y.0), mix(x.1, y.1), mix(x.2, y.2), alpha: mix(from.a, to.a))
        case .hcl:
            let (h0, c0, l0) = from.hcl, (h1, c1, l1) = to.hcl
            var hue: Double
            var chroma: Double?
            if !h0.isNaN && !h1.isNaN {
                var dh = h1 - h0
                if h1 > h0 && dh > 180 { dh -= 360 } else if h1 < h0 && h0 - h1 > 180 { dh += 360 }
                hue = h0 + t * dh
            } else if !h0.isNaN {
                hue = h0
                if l1 == 1 || l1 == 0 { chroma = c0 }
            } else if !h1.isNaN {
                hue = h1
                if l0 == 1 || l0 == 0 { chroma = c1 }
            } else {
                hue = .nan
            }
            let c = chroma ?? mix(c0, c1)
            let l = mix(l0, l1)
            let hr = hue.isNaN ? 0 : hue * .pi / 180
            return fromLab(l, cos(hr) * c, sin(hr) * c, alpha: mix(from.a, to.a))
        }
    }

    /// CSS Color 4 named colors (0xRRGGBB).
    static let namedColors: [String: UInt32] = [
        "aliceblue": 0xF0F8FF, "antiquewhite": 0xFAEBD7, "aqua": 0x00FFFF, "aquamarine": 0x7FFFD4, "azure": 0xF0FFFF,
        "beige": 0xF5F5DC, "bisque": 0xFFE4C4, "black": 0x000000, "blanchedalmond": 0xFFEBCD, "blue": 0x0000FF,
        "blueviolet": 0x8A2BE2, "brown": 0xA52A2A, "burlywood": 0xDEB887, "cadetblue": 0x5F9EA0, "chartreuse": 0x7FFF00,
        "chocolate": 0xD2691E, "coral": 0xFF7F50, "cornflowerblue": 0x6495ED, "cornsilk": 0xFFF8DC, "crimson": 0xDC143C,
        "cyan": 0x00FFFF, "darkblue": 0x00008B, "darkcyan": 0x008B8B, "darkgoldenrod": 0xB8860B, "darkgray": 0xA9A9A9,
        "darkgreen": 0x006400, "darkgrey": 0xA9A9A9, "darkkhaki": 0xBDB76B, "darkmagenta": 0x8B008B,
        "darkolivegreen": 0x556B2F, "darkorange": 0xFF8C00, "darkorchid": 0x9932CC, "darkred": 0x8B0000,
        "darksalmon": 0xE9967A, "darkseagreen": 0x8FBC8F, "darkslateblue": 0x483D8B, "darkslategray": 0x2F4F4F,
        "darkslategrey": 0x2F4F4F, "darkturquoise": 0x00CED1, "darkviolet": 0x9400D3, "deeppink": 0xFF1493,
        "deepskyblue": 0x00BFFF, "dimgray": 0x696969, "dimgrey": 0x696969, "dodgerblue": 0x1E90FF,
        "firebrick": 0xB22222, "floralwhite": 0xFFFAF0, "forestgreen": 0x228B22, "fuchsia": 0xFF00FF,
        "gainsboro": 0xDCDCDC, "ghostwhite": 0xF8F8FF, "gold": 0xFFD700, "goldenrod": 0xDAA520, "gray": 0x808080,
        "green": 0x008000, "greenyellow": 0xADFF2F, "grey": 0x808080, "honeydew": 0xF0FFF0, "hotpink": 0xFF69B4,
        "indianred": 0xCD5C5C, "indigo": 0x4B0082, "ivory": 0xFFFFF0, "khaki": 0xF0E68C, "lavender": 0xE6E6FA,
        "lavenderblush": 0xFFF0F5, "lawngreen": 0x7CFC00, "lemonchiffon": 0xFFFACD, "lightblue": 0xADD8E6,
        "lightcoral": 0xF08080, "lightcyan": 0xE0FFFF, "lightgoldenrodyellow": 0xFAFAD2, "lightgray": 0xD3D3D3,
        "lightgreen": 0x90EE90, "lightgrey": 0xD3D3D3, "lightpink": 0xFFB6C1, "lightsalmon": 0xFFA07A,
        "lightseagreen": 0x20B2AA, "lightskyblue": 0x87CEFA, "lightslategray": 0x778899, "lightslategrey": 0x778899,
        "lightsteelblue": 0xB0C4DE, "lightyellow": 0xFFFFE0, "lime": 0x00FF00, "limegreen": 0x32CD32, "linen": 0xFAF0E6,
        "magenta": 0xFF00FF, "maroon": 0x800000, "mediumaquamarine": 0x66CDAA, "mediumblue": 0x0000CD,
        "mediumorchid": 0xBA55D3, "mediumpurple": 0x9370DB, "mediumseagreen": 0x3CB371, "mediumslateblue": 0x7B68EE,
        "mediumspringgreen": 0x00FA9A, "mediumturquoise": 0x48D1CC, "mediumvioletred": 0xC71585,
        "midnightblue": 0x191970, "mintcream": 0xF5FFFA, "mistyrose": 0xFFE4E1, "moccasin": 0xFFE4B5,
        "navajowhite": 0xFFDEAD, "navy": 0x000080, "oldlace": 0xFDF5E6, "olive": 0x808000, "olivedrab": 0x6B8E23,
        "orange": 0xFFA500, "orangered": 0xFF4500, "orchid": 0xDA70D6, "palegoldenrod": 0xEEE8AA, "palegreen": 0x98FB98,
        "paleturquoise": 0xAFEEEE, "palevioletred": 0xDB7093, "papayawhip": 0xFFEFD5, "peachpuff": 0xFFDAB9,
        "peru": 0xCD853F, "pink": 0xFFC0CB, "plum": 0xDDA0DD, "powderblue": 0xB0E0E6, "purple": 0x800080,
        "rebeccapurple": 0x663399, "red": 0xFF0000, "rosybrown": 0xBC8F8F, "royalblue": 0x4169E1,
        "saddlebrown": 0x8B4513, "salmon": 0xFA8072, "sandybrown": 0xF4A460, "seagreen": 0x2E8B57, "seashell": 0xFFF5EE,
        "sienna": 0xA0522D, "silver": 0xC0C0C0, "skyblue": 0x87CEEB, "slateblue": 0x6A5ACD, "slategray": 0x708090,
        "slategrey": 0x708090, "snow": 0xFFFAFA, "springgreen": 0x00FF7F, "steelblue": 0x4682B4, "tan": 0xD2B48C,
        "teal": 0x008080, "thistle": 0xD8BFD8, "tomato": 0xFF6347, "turquoise": 0x40E0D0, "violet": 0xEE82EE,
        "wheat": 0xF5DEB3, "white": 0xFFFFFF, "whitesmoke": 0xF5F5F5, "yellow": 0xFFFF00, "yellowgreen": 0x9ACD32,
    ]
}
