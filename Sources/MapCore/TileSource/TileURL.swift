// TileSource: expanding a tile URL template, with every placeholder the SDKs document, computed as
// MapLibre Native computes them (mbgl::Resource::tile and util::replaceTokens).

import Glibc

public enum TileURL {
    /// Half the Web Mercator world in EPSG:3857 metres (π · 6378137).
    static let mercatorHalfWorld = Double.pi * 6_378_137

    /// The URL of `tile` from `template`. As in MapLibre Native, a `tms` scheme flips y before
    /// any placeholder is computed (so `{quadkey}`, `{prefix}` and `{bbox-epsg-3857}` see the
    /// flipped row too); `{ratio}` is `@2x` when `pixelRatio` > 1; an unknown `{token}` stays as
    /// written, and a `{` without its `}` is copied through.
    public static func expand(
        _ template: String, tile: TileID, scheme: TileScheme = .xyz, pixelRatio: Double = 1
    )
        -> String
    {
        let x = tile.x
        let y = scheme == .tms ? tile.flippedY : tile.y
        let z = tile.z
        // Placeholders are ASCII, so the template is scanned as UTF-8 bytes; what lies between
        // them is copied byte for byte.
        var out: [UInt8] = []
        out.reserveCapacity(template.utf8.count + 24)
        func number(_ v: Int) { out.append(contentsOf: String(v).utf8) }
        var text = template
        text.withUTF8 { t in
            var i = 0
            while i < t.count {
                guard t[i] == UInt8(ascii: "{") else {
                    out.append(t[i])
                    i += 1
                    continue
                }
                var close = i + 1
                while close < t.count, t[close] != UInt8(ascii: "{"), t[close] != UInt8(ascii: "}") { close += 1 }
                guard close < t.count, t[close] == UInt8(ascii: "}") else {
                    // No closing brace before the next opening one (or the end): copied as text.
                    out.append(contentsOf: t[i..<close])
                    i = close
                    continue
                }
                let key = UnsafeBufferPointer(rebasing: t[(i + 1)..<close])
                switch String(decoding: key, as: UTF8.self) {
                case "z": number(z)
                case "x": number(x)
                case "y": number(y)
                case "quadkey": out.append(contentsOf: quadkey(x: x, y: y, z: z).utf8)
                case "bbox-epsg-3857": out.append(contentsOf: bbox3857(x: x, y: y, z: z).utf8)
                case "prefix":
                    let hex = Array("0123456789abcdef".utf8)
                    out.append(hex[x % 16])
                    out.append(hex[y % 16])
                case "ratio": if pixelRatio > 1 { out.append(contentsOf: "@2x".utf8) }
                default: out.append(contentsOf: t[i...close])
                }
                i = close + 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The template GL JS picks for a tile among several (`tiles[(x + y) % count]`), which spreads
    /// requests over mirrors; MapLibre Native always takes the first.
    public static func template(for tile: TileID, among templates: [String]) -> String? {
        templates.isEmpty ? nil : templates[(tile.x + tile.y) % templates.count]
    }

    /// Bing's quadkey: one base-4 digit per zoom level, x bit + 2 · y bit, most significant first.
    public static func quadkey(x: Int, y: Int, z: Int) -> String {
        var key: [UInt8] = []
        key.reserveCapacity(z)
        var i = z
        while i > 0 {
            let mask = 1 << (i - 1)
            key.append(UInt8(48 + (x & mask != 0 ? 1 : 0) + (y & mask != 0 ? 2 : 0)))
            i -= 1
        }
        return String(decoding: key, as: UTF8.self)
    }

    /// West, south, east, north in EPSG:3857 metres. MapLibre Native turns the row into a
    /// south-up one before computing (so the row it gets is taken as XYZ), and prints numbers in
    /// their shortest round-trip form.
    static func bbox3857(x: Int, y: Int, z: Int) -> String {
        let southUpRow = Double((1 << z) - y - 1)
        let resolution = 2 * mercatorHalfWorld / 256 / pow(2, Double(z))
        func merc(_ p: Double) -> Double { p * resolution - mercatorHalfWorld }
        let minX = merc(Double(x) * 256), minY = merc(southUpRow * 256)
        let maxX = merc(Double(x + 1) * 256), maxY = merc((southUpRow + 1) * 256)
        return [minX, minY, maxX, maxY].map(JSNumber.format).joined(separator: ",")
    }
}
