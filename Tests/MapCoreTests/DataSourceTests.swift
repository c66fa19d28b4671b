// The SDK data source: identity, edits, options, filters, clustering, and failed writes that
// change nothing. Expected values are worked out by hand from the inputs written here.
import Testing
@testable import MapCore

private func json(_ text: String) throws -> JSONValue { try JSON.parse(text) }
private func geojson(_ text: String) throws -> GeoJSON { try GeoJSONParser.parse(text) }

private func point(_ lng: Double, _ lat: Double, _ properties: String = "{}", id: String? = nil) -> String {
    let idMember = id.map { "\"id\":\($0)," } ?? ""
    return "{\"type\":\"Feature\",\(idMember)\"geometry\":{\"type\":\"Point\",\"coordinates\":[\(lng),\(lat)]},"
        + "\"properties\":\(properties)}"
}

private func collection(_ features: [String]) -> String {
    "{\"type\":\"FeatureCollection\",\"features\":[\(features.joined(separator: ","))]}"
}


@Suite struct DataSourceTests {
    @Test func optionsRoundTripThroughJSON() throws {
        let options = try DataSourceOptions(
            json: try json(
                """
                {"cluster": true, "clusterRadius": 30, "clusterMaxZoom": 12, "clusterMinPoints": 3, "maxZoom": 16,
                 "buffer": 64, "tolerance": 1, "lineMetrics": true, "generateId": true, "promoteId": null}
                """))
        #expect(options.cluster && options.clusterRadius == 30 && options.effectiveClusterMaxZoom == 12)
        #expect(options.superclusterOptions.radius == 30 * 16 && options.superclusterOptions.extent == 8192)
        let again = try DataSourceOptions(json: options.json)
        #expect(JSON.serialize(again.json) == JSON.serialize(options.json))
        // Not set, clusterMaxZoom is MapLibre Native's 17 whatever maxZoom, or GL JS's maxZoom − 1.
        #expect(try DataSourceOptions(json: try json(#"{"maxZoom": 10}"#)).effectiveClusterMaxZoom == 17)
        #expect(try DataSourceOptions(json: try json(#"{"maxZoom": 20}"#)).effectiveClusterMaxZoom == 17)
        let js = try DataSourceOptions(json: try json(#"{"maxZoom": 10, "tileCompatibility": "geojson-vt"}"#))
        #expect(js.effectiveClusterMaxZoom == 9)
        #expect(
            try DataSourceOptions(json: try json(#"{"maxZoom": 0, "tileCompatibility": "geojson-vt"}"#))
                .effectiveClusterMaxZoom == 0)
    }

    @Test func badOptionsNameTheOption() throws {
        for (text, fragment) in [
            (#"{"clusterRadius": 0}"#, "clusterRadius"), (#"{"buffer": 1.5}"#, "buffer"),
            (#"{"cluster": 1}"#, "cluster"), (#"{"promoteId": 3}"#, "promoteId"),
            (#"{"colour": 1}"#, "colour"), ("[]", "must be a JSON object"),
        ] {
            let value = try json(text)
            let e = thrown { () throws(MapCoreError) in _ = try DataSourceOptions(json: value) }
            #expect(e?.code == .invalidArgument, "\(text)")
            #expect(e?.message.contains(fragment) == true, "\(text): \(e?.message ?? "no error")")
        }
        let badFilter = try json(#"{"filter": ["==", ["get", "a"], ["+", 1, "x"]]}"#)
        let e = thrown { () throws(MapCoreError) in _ = try DataSourceOptions(json: badFilter) }
        #expect(e?.code == .expression)
        #expect(e?.location?.path == "[2][2]", "\(String(describing: e))")
    }

    @Test func generatedIdsAreNeverReused() throws {
        let source = try DataSource(options: try DataSourceOptions(json: try json(#"{"generateId": true}"#)))
        try source.add(try geojson(collection([point(0, 0, id: "\"x\""), point(1, 1)])))
        #expect(source.snapshot.features.map { $0.id } == [.int(0), .int(1)])
        #expect(try source.remove(id: FeatureKey(.int(1))) == 1)
        try source.add(try geojson(point(2, 2)))
        #expect(source.snapshot.features.map { $0.id } == [.int(0), .int(2)])
    }

    @Test func promotedIdsAndRemovalByEqualNumbers() throws {
        let source = try DataSource(options: try DataSourceOptions(json: try json(#"{"promoteId": "code"}"#)))
        try source.add(
            try geojson(
                collection([
                    point(0, 0, #"{"code": 7}"#), point(1, 1, #"{"code": "a"}"#),
                    point(2, 2, #"{"other": 1}"#, id: "9"),
                ])))
        #expect(source.snapshot.features.map { $0.id } == [.int(7), .string("a"), .int(9)])
        // 7 and 7.0 are one id.
        #expect(try source.remove(id: FeatureKey(.double(7.0))) == 1)
        #expect(source.snapshot.feature(withID: FeatureKey(.string("a"))) != nil)
        #expect(try source.remove(id: FeatureKey(.int(7))) == 0)
        #expect(source.count == 2)
    }

    @Test func failedWritesChangeNothing() throws {
        let source = try DataSource(options: try DataSourceOptions(json: try json(#"{"cluster": true}"#)))
        try source.add(try geojson(collection([point(0, 0), point(0.001, 0.001)])))
        let before = source.snapshot
        let line = try geojson(#"{"type":"LineString","coordinates":[[0,0],[1,1]]}"#)
        #expect(thrown { () throws(MapCoreError) in try source.add(line) }?.code == .unsupported)
        #expect(thrown { () throws(MapCoreError) in try source.remove(at: 5) }?.code == .notFound)
        #expect(source.snapshot === before)
        // Turning clustering on with a line present fails too, and keeps the options.
        let plain = try DataSource()
        try plain.add(line)
        let on = try json(#"{"cluster": true}"#)
        #expect(thrown { () throws(MapCoreError) in try plain.setOptions(on) }?.code == .unsupported)
        #expect(plain.snapshot.options.cluster == false && plain.count == 1)
    }

    @Test func snapshotsDoNotChangeUnderWrites() throws {
        let source = try DataSource()
        try source.add(try geojson(point(0, 0)))
        let first = source.snapshot
        try source.clear()
        #expect(first.features.count == 1 && source.count == 0)
    }

    @Test func filteredFeaturesStayButAreNotShown() throws {
        let options = try DataSourceOptions(json: try json(#"{"filter": [">=", ["get", "n"], 2]}"#))
        let source = try DataSource(options: options)
        try source.add(
            try geojson(
                collection([
                    point(1, 1, #"{"n": 1}"#), point(2, 2, #"{"n": 2}"#),
                    point(3, 3, #"{"n": "x"}"#),
                ])))
        #expect(source.count == 3)
        let shown = try source.snapshot.clusterItemsJSON(west: -180, south: -85, east: 180, north: 85, zoom: 0)
        guard case .object(let fc) = try JSON.parse(String(decoding: shown, as: UTF8.self)),
            case .array(let features)? = fc["features"]
        else { Issue.record("not a FeatureCollection"); return }
        #expect(features.count == 1)
    }

    @Test func clusteringUsesTheSourceDerivation() throws {
        let options = try DataSourceOptions(json: try json(#"{"cluster": true, "clusterRadius": 40}"#))
        let source = try DataSource(options: options)
        // Two points 0.01° apart cluster at zoom 0 and stay apart at zoom 17 (clusterMaxZoom 17).
        try source.add(try geojson(collection([point(10, 10), point(10.01, 10)])))
        let index = try source.snapshot.requireClusters()
        #expect(index.options.radius == 640 && index.options.extent == 8192 && index.options.maxZoom == 17)
        #expect(try index.clusters(west: -180, south: -85, east: 180, north: 85, zoom: 0).count == 1)
        #expect(try index.clusters(west: -180, south: -85, east: 180, north: 85, zoom: 18).count == 2)
        let plain = try DataSource()
        #expect(thrown { () throws(MapCoreError) in _ = try plain.snapshot.requireClusters() }?.code == .notFound)
    }
}
