// Support: the library version, kept equal to MC_VERSION in include/mapcore/common.h (a C test checks).

public enum MapCoreVersion {
    public static let major = 0
    public static let minor = 1
    public static let patch = 0
    public static let string: StaticString = "0.1.0"
    public static var number: Int { major * 10000 + minor * 100 + patch }
    public static let abi = 0
}
