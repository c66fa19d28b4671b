// Command-line tool: the library's operations on files or standard input.
import ArgumentParser
import Glibc
import MapCore
import MapCoreConformance

@main
struct MapCoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mapcore",
        abstract: "MapCore: GeoJSON, geometry and map logic from the command line.",
        version: "\(MapCoreVersion.string)",
        subcommands: [
            Info.self, BBox.self, Hull.self, Eval.self, Filter.self, Cluster.self, Tile.self, DecodeMVT.self,
            Conformance.self,
        ]
    )
}

/// Options shared by every command that reads one GeoJSON input.
struct InputOptions: ParsableArguments {
    @Argument(help: "GeoJSON file to read, or - for standard input.")
    var file: String = "-"

    func load() throws -> GeoJSON { try loadGeoJSON(file) }
}

/// Reads and parses a GeoJSON file ("-" for standard input).
func loadGeoJSON(_ file: String) throws -> GeoJSON {
    let bytes = try FileIO.read(path: file)
    do {
        return try bytes.withUnsafeBufferPointer { (b) throws(MapCoreError) in try GeoJSONParser.parse(b) }
    } catch {
        throw InputError(description: "\(file): \(error)")
    }
}

/// A problem with the input data: reported without the usage text, exit status 1.
struct InputError: Error, CustomStringConvertible {
    var description: String
}

struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Summarize a GeoJSON file: features by geometry type, property keys, bounding box.")

    @OptionGroup var input: InputOptions
    @Flag(help: "Print the parsed GeoJSON back, pretty-printed, after the summary.")
    var pretty = false

    func run() throws {
        let value = try input.load()
        let features = value.features
        print("kind: \(kindName(value))")
        print("features: \(features.count)")
        if case .geometry(let g) = value { print("geometry: \(g.type.name)") }
        var byType: [String: Int] = [:]
        var keys: [String: Int] = [:]
        var keyOrder: [String] = []
        for f in features {
            byType[f.geometry?.type.name ?? "null", default: 0] += 1
            for m in f.properties ?? JSONObject() {
                if keys[m.key] == nil { keyOrder.append(m.key) }
                keys[m.key, default: 0] += 1
            }
        }
        for name in GeometryType.allCases.map(\.name) + ["null"] {
            if let n = byType[name] { print("  \(name): \(n)") }
        }
        print("positions: \(Positions.count(of: value))")
        if keyOrder.isEmpty {
            print("property keys: none")
        } else {
            print("property keys:")
            for k in keyOrder { print("  \(k) (\(keys[k] ?? 0) features)") }
        }
        print("bbox: \(BoundingBox.of(value).map(format) ?? "none (no positions)")")
        if pretty { print(value.serializedString(pretty: true)) }
    }

    private func kindName(_ v: GeoJSON) -> String {
        switch v {
        case .geometry: return "Geometry"
        case .feature: return "Feature"
        case .featureCollection: return "FeatureCollection"
        }
    }
}

func format(_ b: BoundingBox) -> String {
    "[\(b.west), \(b.south), \(b.east), \(b.north)]"
}

struct BBox: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bbox",
        abstract: "Print the bounding box [west, south, east, north] of every position, or null.")

    @OptionGroup var input: InputOptions

    func run() throws {
        let value = try input.load()
        print(BoundingBox.of(value).map(format) ?? "null")
    }
}

struct Hull: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the convex hull of every position as a GeoJSON geometry, or null.")

    @OptionGroup var input: InputOptions
    @Flag(help: "Indent the output.")
    var pretty = false

    func run() throws {
        let value = try input.load()
        guard let hull = try ConvexHull.geometry(of: value) else { print("null"); return }
        print(GeoJSON.geometry(hull).serializedString(pretty: pretty))
    }
}

struct Conformance: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run conformance cases.",
        subcommands: [ExpressionsConformance.self, PredicatesConformance.self])
}

struct ExpressionsConformance: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "expressions",
        abstract: "Run style-spec expression cases (JSON Lines); ends with \"N passed, M failed\".")

    @Argument(help: "A .jsonl file of cases in the format of maplibre-style-spec's expression fixtures.")
    var file: String

    @Option(
        help: """
            A file listing case ids expected to fail (one per line, '#' comments): they are reported but do not \
            fail the run; a listed case that passes, or an unlisted case that fails, does.
            """
    )
    var knownFailures: String?

    @Flag(help: "Print every case, not only failures.")
    var verbose = false

    func run() throws {
        let bytes = try FileIO.read(path: file)
        let outcomes = ExpressionConformance.run(jsonl: String(decoding: bytes, as: UTF8.self))
        try report(outcomes, knownFailures: knownFailures, verbose: verbose)
    }
}

/// Prints failures (every case with `verbose`) and "N passed, M failed"; exits 1 when a case
/// fails without being listed in `knownFailures`, or a listed case passes.
private func report(_ outcomes: [ConformanceOutcome], knownFailures: String?, verbose: Bool) throws {
    var known = Set<String>()
    if let knownFailures {
        known = ExpressionConformance.knownFailures(
            String(decoding: try FileIO.read(path: knownFailures), as: UTF8.self))
    }
    var passed = 0, failed = 0, regressions = 0, fixed: [String] = []
    for o in outcomes {
        if o.passed {
            passed += 1
            if known.contains(o.id) { fixed.append(o.id) }
            if verbose { print("ok   \(o.id)") }
        } else {
            failed += 1
            let tag = known.contains(o.id) ? "known" : "FAIL"
            if !known.contains(o.id) { regressions += 1 }
            print("\(tag) \(o.id): \(o.reason)")
        }
    }
    for id in fixed { print("FIXED \(id): passes now; remove it from the known-failures list") }
    print("\(passed) passed, \(failed) failed")
    if regressions > 0 || !fixed.isEmpty { throw ExitCode(1) }
}

struct PredicatesConformance: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "predicates",
        abstract: "Run NSPredicate/NSExpression format-string pairs (JSON Lines); ends with \"N passed, M failed\".")

    @Argument(help: "A .jsonl file in the format of conformance/predicates/format-string-pairs.jsonl.")
    var file: String

    @Option(help: "A file listing case ids expected to fail (one per line, '#' comments).")
    var knownFailures: String?

    @Flag(help: "Print every case, not only failures.")
    var verbose = false

    func run() throws {
        let bytes = try FileIO.read(path: file)
        try report(
            FormatConformance.run(jsonl: String(decoding: bytes, as: UTF8.self)), knownFailures: knownFailures,
            verbose: verbose)
    }
}

/// Compiles an expression given on the command line, reporting errors with their key paths.
private func compileExpression(_ text: String, spec: String?, filter: Bool) throws -> StyleExpression {
    let json: JSONValue
    do { json = try JSON.parse(text) } catch { throw InputError(description: "expression: \(error)") }
    var propertySpec = filter ? PropertySpec.filter : PropertySpec.default
    if let spec {
        do { propertySpec = try PropertySpec(json: try JSON.parse(spec)) } catch {
            throw InputError(description: "--spec: \(error)")
        }
    }
    do {
        return try StyleExpression.compiled(json, spec: propertySpec, legacyFilters: filter, what: "expression")
    } catch { throw InputError(description: error.description) }
}

struct Eval: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Evaluate a style expression (JSON) for each feature of a file, or once without one.")

    @Argument(help: "The expression as JSON, e.g. '[\"get\", \"mag\"]'.")
    var expression: String
    @Argument(help: "GeoJSON file (Feature, FeatureCollection or geometry), or - for standard input.")
    var file: String?
    @Option(help: "Zoom level.") var zoom: Double?
    @Option(help: "Property spec as JSON, e.g. '{\"type\": \"color\"}'.") var spec: String?

    func run() throws {
        let e = try compileExpression(expression, spec: spec, filter: false)
        var ctx = EvaluationContext(zoom: zoom)
        var features: [Feature?] = [nil]
        if let file {
            switch try loadGeoJSON(file) {
            case .feature(let f): features = [f]
            case .geometry(let g): features = [Feature(geometry: g)]
            case .featureCollection(let c): features = c.features
            }
        }
        for f in features {
            ctx.setFeature(f)
            do {
                print(JSON.serialize(try e.evaluate(ctx).json()))
            } catch {
                print("error: \(error.message)")
            }
        }
    }
}

struct Filter: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the features of a file that pass a filter, as a FeatureCollection.",
        discussion: """
            The filter is a JSON expression or legacy filter, or with --predicate an NSPredicate format \
            string of the iOS SDKs:
              mapcore filter '[">=", ["get", "mag"], 4.5]' quakes.geojson
              mapcore filter --predicate "mag >= 4.5 AND type == 'earthquake'" quakes.geojson
              mapcore filter --predicate "%K == %@" --arg '"ISO 3166-1:2006"' --arg '"US-OH"' places.geojson
            """)

    @Argument(help: "The filter as JSON (omit with --predicate), then the GeoJSON file (or - for standard input).")
    var arguments: [String] = []
    @Option(help: "An NSPredicate format string, e.g. \"temperature != nil && temperature >= 100\".")
    var predicate: String?
    @Option(
        name: .customLong("arg"), help: "A JSON value for the next %@ or %K placeholder of --predicate (repeatable).")
    var placeholderValues: [String] = []
    @Option(help: "Zoom level.") var zoom: Double?
    @Flag(help: "Pretty-print the output.") var pretty = false

    func validate() throws {
        let expected = predicate == nil ? 1...2 : 0...1
        guard expected.contains(arguments.count) else {
            throw ValidationError(
                predicate == nil
                    ? "Give a JSON filter and at most one file." : "With --predicate, give at most one file.")
        }
    }

    func run() throws {
        let e: StyleExpression
        var file = "-"
        if let predicate {
            file = arguments.first ?? "-"
            var values: [JSONValue] = []
            for text in placeholderValues {
                do { values.append(try JSON.parse(text)) } catch {
                    throw InputError(description: "--arg \(text): \(error)")
                }
            }
            let json: JSONValue
            do { json = try FormatString.json(Array(predicate.utf8), arguments: values, kind: .predicate) } catch {
                throw InputError(description: "--predicate: \(error)")
            }
            e = try compileExpression(JSON.serialize(json), spec: nil, filter: true)
        } else {
            e = try compileExpression(arguments[0], spec: nil, filter: true)
            file = arguments.count > 1 ? arguments[1] : "-"
        }
        var ctx = EvaluationContext(zoom: zoom)
        var kept: [Feature] = []
        for f in try loadGeoJSON(file).features {
            ctx.setFeature(f)
            if case .boolean(true)? = try? e.evaluate(ctx) { kept.append(f) }
        }
        print(GeoJSON.featureCollection(FeatureCollection(features: kept)).serializedString(pretty: pretty))
    }
}

struct Cluster: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Cluster the Point features of a file as supercluster does: the clusters and points at a zoom "
                + "(GeoJSON), or --stats."
    )

    @OptionGroup var input: InputOptions
    @Option(help: "Zoom level of the query.") var zoom: Double?
    @Option(help: "Query box west,south,east,north (default: the whole world; west > east crosses the antimeridian).")
    var bbox: String?
    // Unset options keep the library's defaults (SuperclusterOptions), which the help shows.
    @Option(help: "Cluster radius in pixels \(defaultText(\.radius)).") var radius: Double?
    @Option(help: "Tile extent the radius is measured against \(defaultText(\.extent)).") var extent: Double?
    @Option(help: "Lowest zoom with clusters \(defaultText(\.minZoom)).") var minZoom: Int?
    @Option(help: "Highest zoom with clusters, at most 30 \(defaultText(\.maxZoom)).") var maxZoom: Int?
    @Option(help: "Fewest points that form a cluster \(defaultText(\.minPoints)).") var minPoints: Int?
    @Option(help: "Aggregate properties as JSON, e.g. '{\"sum\": [\"+\", [\"get\", \"scalerank\"]]}'.")
    var properties: String?
    @Flag(help: "Print items and clusters per zoom level instead of features.") var stats = false
    @Flag(help: "Pretty-print the output.") var pretty = false

    func run() throws {
        var options = SuperclusterOptions()
        if let radius { options.radius = radius }
        if let extent { options.extent = extent }
        if let minZoom { options.minZoom = minZoom }
        if let maxZoom { options.maxZoom = maxZoom }
        if let minPoints { options.minPoints = minPoints }
        let props = try properties.map { text throws -> ClusterProperties in
            try ClusterProperties(json: try JSON.parse(text))
        }
        let features = try input.load().features
        let start = clockSeconds()
        let index = try Supercluster(features: features, options: options, clusterProperties: props)
        let built = clockSeconds() - start
        if stats {
            print("\(features.count) features indexed in \(Int((built * 1000).rounded())) ms")
            print("zoom  items  clusters")
            for level in index.levelCounts() {
                let pad = { (v: Int, w: Int) in String(repeating: " ", count: max(0, w - String(v).count)) + String(v) }
                print("\(pad(level.zoom, 4))  \(pad(level.items, 5))  \(pad(level.clusters, 8))")
            }
            return
        }
        guard let zoom else { throw ValidationError("Give --zoom Z (or --stats).") }
        var box = [-180.0, -90, 180, 90]
        if let bbox {
            let parts = bbox.split(separator: ",").compactMap { Double(String($0).trimmingJSWhitespace()) }
            guard parts.count == 4 else { throw ValidationError("--bbox takes four numbers: west,south,east,north.") }
            box = parts
        }
        let items = try index.clusters(west: box[0], south: box[1], east: box[2], north: box[3], zoom: zoom)
        print(String(decoding: index.featureCollection(items, pretty: pretty), as: UTF8.self))
    }
}

/// "(default: 40)": a library default as the help shows it, numbers without a needless ".0".
func defaultText<T>(_ key: KeyPath<SuperclusterOptions, T>) -> String {
    let value = SuperclusterOptions()[keyPath: key]
    if let d = value as? Double, d == d.rounded(), abs(d) < 1e15 { return "(default: \(Int(d)))" }
    return "(default: \(value))"
}

/// Monotonic seconds, for the timings the CLI prints.
func clockSeconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}
