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
        var out = ""
        out.reserveCapacity(template.utf8.count + 16)
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{") {
            out += rest[..<open]
            let afterOpen = rest.index(after: open)
            guard let close = rest[afterOpen...].firstIndex(where: { $0 == "{" || $0 == "}" }), rest[close] == "}"
            else {
                // No closing brace before the next opening one (or the end): copied as text.
                let next = rest[afterOpen...].firstIndex(of: "{") ?? rest.endIndex
                out += rest[open..<next]
                rest = rest[next...]
                continue
            }
            let key = rest[afterOpen..<close]
            switch key {
            case "z": out += String(z)
            case "x": out += String(x)
            case "y": out += String(y)
            case "quadkey": out += quadkey(x: x, y: y, z: z)
            case "bbox-epsg-3857": out += bbox3857(x: x, y: y, z: z)
            case "prefix":
                let hex = Array("0123456789abcdef")
                out.append(hex[x % 16])
                out.append(hex[y % 16])
            case "ratio": out += pixelRatio > 1 ? "@2x" : ""
            default: out += "{\(key)}"
            }
            rest = rest[rest.index(after: close)...]
        }
        out += rest
        return out
    }

    /// The template GL JS picks for a tile among several (`tiles[(x + y) % count]`), which spreads
    /// requests over mirrors; MapLibre Native always takes the first.
    public static func template(for tile: TileID, among templates: [String]) -> String? {
        templates.isEmpty ? nil : templates[(tile.x + tile.y) % templates.count]
    }

    /// Bing's quadkey: one base-4 digit per zoom level, x bit + 2 · y bit, most significant first.
    public static func quadkey(x: Int, y: Int, z: Int) -> String {
        var key = ""
        key.reserveCapacity(z)
        var i = z
        while i > 0 {
            let mask = 1 << (i - 1)
            let digit = (x & mask != 0 ? 1 : 0) + (y & mask != 0 ? 2 : 0)
            key.append(Character(Unicode.Scalar(UInt8(48 + digit))))
            i -= 1
        }
        return key
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
