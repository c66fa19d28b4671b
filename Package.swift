// swift-tools-version:6.0
// MapCore: a Swift core behind a stable C ABI (include/mapcore.h), shipped as libmapcore.so.
import PackageDescription

// The shared library carries its own copy of the Swift runtime (-static-stdlib) so it loads into
// any C or Python process, and exports only the mc_* symbols of the header (exports.map), so two
// Swift-built libraries in one host never see each other's runtime.
let exportsMap = "\(Context.packageDirectory)/Sources/MapCoreCAPI/exports.map"

let package = Package(
    name: "MapCore",
    products: [
        .library(name: "mapcore", type: .dynamic, targets: ["MapCoreCAPI"]),
        .executable(name: "mapcore-cli", targets: ["mapcore-cli"]),
        // The Swift core as a module, for the fuzz targets in Fuzz/ (not installed).
        .library(name: "MapCoreSwift", targets: ["MapCore"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // TreeDictionary, a persistent hash trie: a data source's id table, changed in O(log n)
        // per write while earlier states keep theirs (docs/NOTES.md, Data sources).
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
    ],
    targets: [
        .systemLibrary(name: "CGEOS", pkgConfig: "geos", providers: [.apt(["libgeos-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CZlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CMapCoreABI"),
        .systemLibrary(name: "CMapCoreKernels"),
        .target(
            name: "MapCore",
            dependencies: [
                "CGEOS", "CCurl", "CZlib", "CSQLite", "CMapCoreKernels",
                .product(name: "HashTreeCollections", package: "swift-collections"),
            ]),
        .target(
            name: "MapCoreCAPI",
            dependencies: ["MapCore", "CMapCoreABI"],
            exclude: ["exports.map"],
            linkerSettings: [
                .unsafeFlags([
                    "-static-stdlib",
                    "-Xlinker", "--version-script=\(exportsMap)",
                    "-Xlinker", "-soname=libmapcore.so.0",
                ]),
            ]
        ),
        // Conformance runners: test tooling the CLI and the tests share, kept out of the library.
        .target(name: "MapCoreConformance", dependencies: ["MapCore"]),
        .executableTarget(
            name: "mapcore-cli",
            dependencies: ["MapCore", "MapCoreConformance",
                           .product(name: "ArgumentParser", package: "swift-argument-parser")]
        ),
        .testTarget(name: "MapCoreTests", dependencies: ["MapCore", "MapCoreConformance"]),
    ]
)
