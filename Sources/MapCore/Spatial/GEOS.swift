// Spatial: the GEOS link. Robust within/distance build on it; for now it reports its version.
import CGEOS

public enum GEOS {
    /// GEOS's own version string, static storage owned by GEOS.
    public static var versionCString: UnsafePointer<CChar> { GEOSversion() }
    public static var version: String { String(cString: GEOSversion()) }
}
