// swift-tools-version:6.0
// libFuzzer targets over every parser entry of MapCore, each with a property beyond "no crash".
// Built with `swift build --sanitize fuzzer --sanitize address -Xswiftc -use-ld=lld`
// (make fuzz-build; gold sometimes dropped the coverage counters);
// not part of the library. One target per input grammar; seeds in corpus/<name>/, dictionaries
// in dict/.
import PackageDescription

let names = [
    "geojson", "expression", "format", "options", "mvt", "pmtiles", "tilejson", "diff", "mbtiles", "tiles", "cluster",
]

let package = Package(
    name: "MapCoreFuzz",
    dependencies: [.package(name: "MapCore", path: "..")],
    targets: names.map { name in
        .executableTarget(
            name: "fuzz-\(name)", dependencies: [.product(name: "MapCoreSwift", package: "MapCore")],
            path: "Sources/\(name)")
    }
)
