// TileSource: a tile's address in the z/x/y grid of Web Mercator, shared by URL templates, cover,
// archives and the tilesets MapCore writes.

/// A tile in the XYZ grid (y down from the north). `z` 0…30 keeps every count of tiles an exact
/// 32-bit value, as MapLibre's tile ids are.
public struct TileID: Hashable, Sendable, CustomStringConvertible {
    public static let maxZoom = 30

    public var z: Int
    public var x: Int
    public var y: Int

    public init(z: Int, x: Int, y: Int) {
        self.z = z
        self.x = x
        self.y = y
    }

    /// The tile, or `invalidArgument` naming it when z, x or y lie outside the grid.
    public static func checked(z: Int, x: Int, y: Int) throws(MapCoreError) -> TileID {
        guard z >= 0, z <= maxZoom, x >= 0, y >= 0, x < 1 << z, y < 1 << z else {
            throw MapCoreError(.invalidArgument, "No tile \(z)/\(x)/\(y): z must be 0...\(maxZoom), x and y 0...2^z-1.")
        }
        return TileID(z: z, x: x, y: y)
    }

    /// The row counted from the south, as TMS and MBTiles number them.
    public var flippedY: Int { (1 << z) - 1 - y }

    /// The tile at zoom `z` (≤ self.z) containing this one.
    public func ancestor(atZoom zoom: Int) -> TileID {
        let dz = z - zoom
        return TileID(z: zoom, x: x >> dz, y: y >> dz)
    }

    public var description: String { "\(z)/\(x)/\(y)" }
}

/// The two ways tile rows are numbered: XYZ (row 0 at the north, the web's) and TMS (row 0 at the
/// south, MBTiles' and older servers').
public enum TileScheme: String, Sendable {
    case xyz, tms
}
