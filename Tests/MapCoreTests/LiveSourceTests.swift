// Live data sources (issue 20): the persistent feature store against a plain array, GL JS's
// updateData semantics worked out by hand, versions and frozen views, the tile changes a write
// reports, and readers on four threads checked against a replay of the writer's diffs.
import Glibc
import Testing
@testable import MapCore

private func feature(_ id: Int64, _ x: Double, _ y: Double, v: Int64 = 0) -> Feature {
    Feature(geometry: .point(x, y), properties: JSONObject([("v", .int(v))]), id: .int(id))
}

/// A Point feature as GeoJSON text; `id` is its JSON, or "null" for a feature without one.
private func pointJSON(_ id: String, _ x: Double, _ y: Double, _ properties: String = "{}") -> String {
    let idMember = id == "null" ? "" : #""id":\#(id),"#
    return #"{"type":"Feature",\#(idMember)"geometry":{"type":"Point","coordinates":[\#(x),\#(y)]},"#
        + #""properties":\#(properties)}"#
}

private func ids(_ source: DataSource) -> [FeatureID?] { source.snapshot.features.map(\.id) }

@Suite struct FeatureStoreFacts {
    /// Random appends (single and batched), removals, replacements and positional reads, each
    /// checked against a plain array; copies taken along the way must never change.
    @Test func storeMatchesAnArrayAndEarlierCopiesStayWhole() {
        var rng = SeededGenerator(seed: 20)
        var store = FeatureStore()
        var model: [(seq: UInt64, id: Int64, passes: Bool)] = []
        var nextSeq: UInt64 = 1
        var kept: [(FeatureStore, [(seq: UInt64, id: Int64, passes: Bool)])] = []
        func entry(_ seq: UInt64, passes: Bool) -> StoredFeature {
            StoredFeature(seq: seq, feature: feature(Int64(seq), 0, 0), passes: passes)
        }
        for step in 0..<6000 {
            switch Int.random(in: 0..<10, using: &rng) {
            case 0...3:
                let passes = Bool.random(using: &rng)
                store.append(entry(nextSeq, passes: passes))
                model.append((nextSeq, Int64(nextSeq), passes))
                nextSeq += 1
            case 4:
                let n = Int.random(in: 2..<150, using: &rng)
                let passes = (0..<n).map { $0 % 3 != 0 }
                let ids = (0..<n).map { Int64(nextSeq) + Int64($0) }
                store.append(ids.map { feature($0, 0, 0) }, passes: passes, firstSeq: nextSeq)
                model += (0..<n).map { (nextSeq + UInt64($0), ids[$0], passes[$0]) }
                nextSeq += UInt64(n)
            case 5...7 where !model.isEmpty:
                let i = Int.random(in: 0..<model.count, using: &rng)
                let removed = store.remove(seq: model[i].seq)
                #expect(removed?.seq == model[i].seq)
                model.remove(at: i)
            case 8 where !model.isEmpty:
                let i = Int.random(in: 0..<model.count, using: &rng)
                let newID = Int64.random(in: 1_000_000..<2_000_000, using: &rng)
                store.replace(seq: model[i].seq, with: feature(newID, 1, 1), passes: true)
                model[i] = (model[i].seq, newID, true)
            default:
                #expect(store.remove(seq: nextSeq + 5) == nil)
            }
            if step % 500 == 0 { kept.append((store, model)) }
            if step % 97 == 0 {
                #expect(store.count == model.count)
                #expect(store.indexedCount == model.filter(\.passes).count)
                if !model.isEmpty {
                    let i = Int.random(in: 0..<model.count, using: &rng)
                    #expect(store.entry(at: i)?.seq == model[i].seq)
                    #expect(store.entry(seq: model[i].seq)?.feature.id == .int(model[i].id))
                }
            }
        }
        for (copy, expected) in kept + [(store, model)] {
            #expect(copy.features.map(\.id) == expected.map { .int($0.id) })
            #expect(copy.indexedFeatures.map(\.id) == expected.filter(\.passes).map { .int($0.id) })
            #expect(copy.entry(at: expected.count) == nil && copy.entry(at: -1) == nil)
        }
    }

    @Test func removingEverythingLeavesAnEmptyStore() {
        var store = FeatureStore(
            (1...300).map { feature(Int64($0), 0, 0) }, passes: Array(repeating: true, count: 300), firstSeq: 1)
        for seq in UInt64(1)...300 { #expect(store.remove(seq: seq) != nil) }
        #expect(store.count == 0 && store.root == nil && store.features.isEmpty)
        store.append(StoredFeature(seq: 301, feature: feature(301, 0, 0), passes: false))
        #expect(store.count == 1 && store.indexedCount == 0)
    }
}

@Suite struct UpdateDataFacts {
    private func source(_ features: [String], options: String = "{}") throws -> DataSource {
        let s = try DataSource(options: try DataSourceOptions(json: try JSON.parse(options)))
        try s.add(
            try GeoJSONParser.parse(#"{"type":"FeatureCollection","features":[\#(features.joined(separator: ","))]}"#))
        return s
    }

    @Test func diffAppliesInGLJSOrder() throws {
        let s = try source([pointJSON("1", 0, 0), pointJSON("2", 1, 1), pointJSON("3", 2, 2)])
        #expect(s.version == 1)
        // remove 2; add 4 (new, appended) and 1 (held: replaced in place); update 3 and 4, and 9
        // (unknown: skipped).
        try s.updateData(
            try SourceDiff.parse(
                """
                {"remove": [2, 99], "add": [\(pointJSON("4", 4, 4, #"{"a": 1}"#)), \(pointJSON("1", 5, 5))],
                 "update": [{"id": 3, "newGeometry": {"type": "Point", "coordinates": [7, 7]},
                             "addOrUpdateProperties": [{"key": "b", "value": [1, 2]}]},
                            {"id": 4, "removeProperties": ["a"],
                             "addOrUpdateProperties": [{"key": "c", "value": null}]},
                            {"id": 9, "removeAllProperties": true}]}
                """))
        #expect(s.version == 2)
        #expect(ids(s) == [.int(1), .int(3), .int(4)])
        let features = s.snapshot.features
        #expect(features[0].geometry == .point(5, 5))
        #expect(features[1].geometry == .point(7, 7) && features[1].properties?["b"] == .array([.int(1), .int(2)]))
        #expect(features[2].properties == JSONObject([("c", .null)]))
    }

    @Test func removeAllComesFirstAndUpdatesSeeTheAdds() throws {
        let s = try source([pointJSON("1", 0, 0), pointJSON("2", 1, 1)])
        try s.updateData(
            try SourceDiff.parse(
                #"{"update": [{"id": "x", "removeAllProperties": true}], "removeAll": true, "add": ["#
                    + pointJSON(#""x""#, 3, 3, #"{"keep": false}"#) + "]}"))
        #expect(ids(s) == [.string("x")])
        #expect(s.snapshot.features[0].properties == JSONObject())
    }

    @Test func nothingToDoMakesNoVersion() throws {
        let s = try source([pointJSON("1", 0, 0)])
        try s.updateData(try SourceDiff.parse(#"{"remove": [5], "update": [{"id": 6, "removeAllProperties": true}]}"#))
        try s.updateData(try SourceDiff.parse("{}"))
        #expect(try s.remove(id: .int(42)) == 0)
        #expect(s.version == 1 && s.count == 1)
    }

    @Test func promotedIdsFollowTheirProperty() throws {
        let s = try source([pointJSON("null", 0, 0, #"{"code": "a"}"#)], options: #"{"promoteId": "code"}"#)
        #expect(ids(s) == [.string("a")])
        try s.updateData(
            try SourceDiff.parse(
                #"{"update": [{"id": "a", "addOrUpdateProperties": [{"key": "code", "value": "b"}]}]}"#))
        #expect(ids(s) == [.string("b")])
        #expect(s.snapshot.feature(withID: .string("a")) == nil && s.snapshot.feature(withID: .string("b")) != nil)
        // Added by the promoted property; the same code replaces.
        try s.updateData(try SourceDiff.parse(#"{"add": ["# + pointJSON("null", 9, 9, #"{"code": "b"}"#) + "]}"))
        #expect(s.count == 1 && s.snapshot.features[0].geometry == .point(9, 9))
    }

    @Test func generatedIdsAddNewFeatures() throws {
        let s = try source([pointJSON("null", 0, 0)], options: #"{"generateId": true}"#)
        try s.updateData(try SourceDiff.parse(#"{"add": ["# + pointJSON("0", 1, 1) + "]}"))
        #expect(ids(s) == [.int(0), .int(1)])
    }

    @Test func failedDiffsChangeNothing() throws {
        let s = try source([pointJSON("1", 0, 0), pointJSON("2", 1, 1)], options: #"{"cluster": true}"#)
        let before = s.snapshot
        let cases: [(String, ErrorCode, String?)] = [
            // A valid removal before a bad feature: nothing of the diff happens.
            (
                #"{"remove": [1], "add": [{"type": "Feature", "id": 5, "#
                    + #""geometry": {"type": "Point", "coordinates": [1]}, "properties": {}}]}"#,
                .invalidGeoJSON, "$.add[0].geometry.coordinates"
            ),
            (
                #"{"remove": [1], "add": [{"type": "Feature", "geometry": null, "properties": {}}]}"#, .invalidArgument,
                "$.add[0]"
            ),
            (
                #"{"removeAll": true, "add": [{"type": "Feature", "id": 7, "geometry": {"type": "LineString", "#
                    + #""coordinates": [[0, 0], [1, 1]]}, "properties": {}}]}"#,
                .unsupported, "$.add[0].geometry"
            ),
            (
                #"{"update": [{"id": 1, "newGeometry": {"type": "LineString", "coordinates": [[0, 0], [1, 1]]}}]}"#,
                .unsupported, "$.update[0].newGeometry"
            ),
            (#"{"remove": [1], "changes": []}"#, .invalidArgument, "$.changes"),
            (#"{"update": [{"newGeometry": null}]}"#, .invalidArgument, nil),
            (#"{"update": [{"id": 1, "addOrUpdateProperties": [{"key": "a"}]}]}"#, .invalidArgument, nil),
            (#"{"remove": [[1]]}"#, .invalidGeoJSON, "$.remove[0]"),
            (#"{"removeAll": 1}"#, .invalidArgument, nil),
            (#"{"remove": [1]"#, .parse, nil),
        ]
        for (text, code, path) in cases {
            let e = thrown { () throws(MapCoreError) in try s.updateData(try SourceDiff.parse(text)) }
            #expect(e?.code == code, "\(text): \(String(describing: e))")
            if let path { #expect(e?.location?.path == path, "\(text): \(String(describing: e))") }
        }
        #expect(s.snapshot === before && s.version == 1)
    }

    /// Found in review: the lazy index must not meet data or options it cannot build with.
    @Test func clusteringRefusesWhatTheIndexCannotBuild() throws {
        let s = try source([pointJSON("1", 0, 0)], options: #"{"cluster": true}"#)
        let e = thrown { () throws(MapCoreError) in
            try s.updateData(try SourceDiff.parse(#"{"add": ["# + pointJSON("2", 1e42, 0) + "]}"))
        }
        #expect(e?.code == .invalidArgument && e?.location?.path == "$.add[0].geometry", "\(String(describing: e))")
        #expect(s.version == 1)
        #expect(try s.snapshot.requireClusters().inputCount == 1)
        let radius = thrown { () throws(MapCoreError) in
            _ = try DataSourceOptions(json: try JSON.parse(#"{"cluster": true, "clusterRadius": 1e308}"#))
        }
        #expect(radius?.code == .invalidArgument)
        #expect(
            thrown { () throws(MapCoreError) in try s.setOptions(try JSON.parse(#"{"clusterRadius": 1e308}"#)) } != nil)
    }

    /// Many features sharing one id (a promoteId on a category): linked once per batch, removed
    /// at once, replaced by an add that keeps the first place.
    @Test func manyFeaturesShareAnId() throws {
        let s = try source(
            (0..<2000).map { pointJSON("null", Double($0 % 90), 0, #"{"kind": "\#($0 % 2 == 0 ? "a" : "b")"}"#) },
            options: #"{"promoteId": "kind"}"#)
        #expect(s.snapshot.state.seqs(of: .string("a")).count == 1000)
        let seqs = s.snapshot.state.seqs(of: .string("b"))
        #expect(seqs == seqs.sorted() && seqs.count == 1000)
        try s.updateData(try SourceDiff.parse(#"{"add": ["# + pointJSON("null", 5, 5, #"{"kind": "a"}"#) + "]}"))
        #expect(s.count == 1001 && s.snapshot.features[0].geometry == .point(5, 5))
        #expect(try s.remove(id: .string("b")) == 1000)
        #expect(s.count == 1 && s.snapshot.state.seqs(of: .string("b")).isEmpty)
    }

    @Test func frozenViewsKeepTheirVersionAndRefuseWrites() throws {
        let s = try source([pointJSON("1", 0, 0)])
        let view = s.frozen()
        try s.updateData(try SourceDiff.parse(#"{"add": ["# + pointJSON("2", 1, 1) + "]}"))
        #expect(view.version == 1 && view.count == 1 && s.version == 2 && s.count == 2)
        #expect(thrown { () throws(MapCoreError) in try view.clear() }?.code == .unsupported)
        #expect(view.count == 1)
    }

    @Test func writesLeaveTheIndexForTheFirstQuery() throws {
        let s = try source([pointJSON("1", 10, 10), pointJSON("2", 10.001, 10)], options: #"{"cluster": true}"#)
        let first = try s.snapshot.requireClusters()
        try s.updateData(try SourceDiff.parse(#"{"add": ["# + pointJSON("3", 10.002, 10) + "]}"))
        // The new state builds its own index when asked; the old one's stays as it was.
        let second = try s.snapshot.requireClusters()
        #expect(first !== second)
        #expect(try first.clusters(west: -180, south: -85, east: 180, north: 85, zoom: 0).count == 1)
        #expect(second.inputCount == 3 && first.inputCount == 2)
    }
}

@Suite struct SourceChangeFacts {
    @Test func writesReportTheBoundsTheyTouched() throws {
        let s = try DataSource()
        try s.updateData(try SourceDiff.parse(#"{"add": ["# + pointJSON("1", 10, 20) + "]}"))
        try s.updateData(
            try SourceDiff.parse(
                #"{"update": [{"id": 1, "newGeometry": {"type": "Point", "coordinates": [-30, -40]}}]}"#))
        let c = try s.changes(since: 1)
        #expect(c.version == 2 && c.since == 1 && !c.all)
        #expect(
            c.bounds == [
                BoundingBox(west: 10, south: 20, east: 10, north: 20),
                BoundingBox(west: -30, south: -40, east: -30, north: -40),
            ])
        #expect(try s.changes(since: 0).bounds.count == 3)
        #expect(try s.changes(since: 2).bounds.isEmpty)
        #expect(thrown { () throws(MapCoreError) in _ = try s.changes(since: 3) }?.code == .invalidArgument)
    }

    @Test func tilesChangeWhereTheirBufferedBoundsMeetAWrite() {
        // A point at lon 0.1, lat 0: world x = 0.5 + 0.1/360 (just east of the z1 split).
        let c = SourceChanges(
            version: 2, since: 1, all: false, bounds: [BoundingBox(west: 0.1, south: 0, east: 0.1, north: 0)])
        #expect(c.touches(z: 1, x: 1, y: 1, buffer: 0))
        #expect(!c.touches(z: 1, x: 0, y: 1, buffer: 0))
        // MapLibre's default buffer is 128 of 512 pixels: a quarter tile reaches the neighbour.
        #expect(c.touches(z: 1, x: 0, y: 1, buffer: 0.25))
        #expect(!c.touches(z: 4, x: 0, y: 7, buffer: 0.25))
        // Across the antimeridian: a point at lon 179.99 reaches tile x 0 through the buffer.
        let east = SourceChanges(
            version: 2, since: 1, all: false, bounds: [BoundingBox(west: 179.99, south: 1, east: 179.99, north: 1)])
        #expect(east.touches(z: 3, x: 0, y: 3, buffer: 0.25) && !east.touches(z: 3, x: 0, y: 3, buffer: 0))
        #expect(!c.touches(z: 3, x: 0, y: 3, buffer: 0.25))
    }

    @Test func wholesaleWritesAndClusteringChangeEveryTile() throws {
        let s = try DataSource()
        try s.add(try GeoJSONParser.parse(pointJSON("1", 1, 1)))
        #expect(try !s.changes(since: 0).all)
        try s.set(try GeoJSONParser.parse(pointJSON("2", 1, 1)))
        #expect(try s.changes(since: 1).all && s.changes(since: 0).all)
        let clustered = try DataSource(options: try DataSourceOptions(json: try JSON.parse(#"{"cluster": true}"#)))
        try clustered.add(try GeoJSONParser.parse(pointJSON("1", 1, 1)))
        #expect(try clustered.changes(since: 0).all)
    }

    @Test func writesThatTouchNoTileAreNotLogged() throws {
        let log = ChangeLog()
        for v in UInt64(1)...1000 { log.record(version: v, bounds: []) }
        #expect(log.entryCount == 0)
        #expect(try log.changes(since: 0, upTo: 1000) == SourceChanges(version: 1000, since: 0, all: false, bounds: []))
    }

    @Test func theLogForgetsTheOldestWritesFirst() throws {
        let log = ChangeLog()
        let box = BoundingBox(west: 0, south: 0, east: 1, north: 1)
        for v in UInt64(1)...UInt64(ChangeLog.capacity + 10) { log.record(version: v, bounds: [box]) }
        let last = UInt64(ChangeLog.capacity + 10)
        #expect(try log.changes(since: 5, upTo: last).all)
        #expect(try log.changes(since: last - 3, upTo: last).bounds.count == 3)
        // A write of many features records their union.
        log.record(
            version: last + 1,
            bounds: (0..<300).map { BoundingBox(west: Double($0), south: 0, east: Double($0), north: 1) })
        #expect(
            try log.changes(since: last, upTo: last + 1).bounds == [BoundingBox(west: 0, south: 0, east: 299, north: 1)]
        )
    }
}

/// The model the readers are checked against: GL JS's diff semantics over an ordered list,
/// written independently of the source.
private struct ReplayModel {
    var items: [(id: Int64, x: Double, v: Int64)] = []

    mutating func apply(
        removeAll: Bool, remove: [Int64], add: [(Int64, Double, Int64)], update: [(Int64, Double?, Int64?)]
    ) {
        if removeAll { items.removeAll() }
        items.removeAll { remove.contains($0.id) }
        for (id, x, v) in add {
            if let i = items.firstIndex(where: { $0.id == id }) {
                items[i] = (id, x, v)
            } else {
                items.append((id, x, v))
            }
        }
        for (id, x, v) in update {
            for i in items.indices where items[i].id == id {
                if let x { items[i].x = x }
                if let v { items[i].v = v }
            }
        }
    }

    var fingerprint: UInt64 { Self.fingerprint(items.map { ($0.id, $0.x, $0.v) }) }

    static func fingerprint(_ rows: [(Int64, Double, Int64)]) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for (id, x, v) in rows {
            for word in [UInt64(bitPattern: id), x.bitPattern, UInt64(bitPattern: v)] {
                h = (h ^ word) &* 0x100_0000_01b3
            }
        }
        return h ^ UInt64(rows.count)
    }
}

@Suite struct LiveSourceConcurrency {
    /// Four readers take frozen views while a writer applies 10,000 random diffs (some failing,
    /// some naming unknown ids); every view must equal the replayed state of its version.
    @Test func readersSeeOnlyPublishedVersions() throws {
        let source = try DataSource()
        var expected: [UInt64: UInt64] = [0: ReplayModel().fingerprint]
        let done = Locked(false)
        let seen = Locked<[(UInt64, UInt64)]>([])
        var readers: [pthread_t] = []
        for _ in 0..<4 {
            if let t = startThread({
                var local: [(UInt64, UInt64)] = []
                while !done.value {
                    let view = source.frozen()
                    let rows = view.snapshot.features.map { f -> (Int64, Double, Int64) in
                        guard case .int(let id)? = f.id, let g = f.geometry, case .int(let v)? = f.properties?["v"]
                        else { return (-1, 0, 0) }
                        return (id, g.xy[0], v)
                    }
                    local.append((view.version, ReplayModel.fingerprint(rows)))
                }
                seen.mutate { $0 += local }
            }) {
                readers.append(t)
            }
        }
        var rng = SeededGenerator(seed: 2020)
        var model = ReplayModel()
        var failures = 0
        for step in 0..<10_000 {
            let removeAll = Int.random(in: 0..<500, using: &rng) == 0
            let remove = (0..<Int.random(in: 0...2, using: &rng)).map { _ in Int64.random(in: 0..<400, using: &rng) }
            let add = (0..<Int.random(in: 0...3, using: &rng)).map { _ in
                (Int64.random(in: 0..<400, using: &rng), Double(Int.random(in: -170...170, using: &rng)), Int64(step))
            }
            let update = (0..<Int.random(in: 0...2, using: &rng)).map { _ -> (Int64, Double?, Int64?) in
                (
                    Int64.random(in: 0..<400, using: &rng), Bool.random(using: &rng) ? Double(step % 170) : nil,
                    Int64(-step)
                )
            }
            let bad = Int.random(in: 0..<50, using: &rng) == 0
            var members: [String] = []
            if removeAll { members.append(#""removeAll": true"#) }
            members.append(#""remove": [\#(remove.map(String.init).joined(separator: ","))]"#)
            var adds = add.map { pointJSON("\($0.0)", $0.1, 0, #"{"v": \#($0.2)}"#) }
            if bad {
                adds.append(#"{"type":"Feature","id":1,"geometry":{"type":"Point","coordinates":[0]},"properties":{}}"#)
            }
            members.append(#""add": [\#(adds.joined(separator: ","))]"#)
            members.append(
                #""update": ["#
                    + update.map { u in
                        let geometry =
                            u.1.map { #", "newGeometry": {"type": "Point", "coordinates": [\#($0), 0]}"# } ?? ""
                        return
                            #"{"id": \#(u.0)\#(geometry), "#
                            + #""addOrUpdateProperties": [{"key": "v", "value": \#(u.2 ?? 0)}]}"#
                    }.joined(separator: ",") + "]")
            let before = source.version
            let e = thrown { () throws(MapCoreError) in
                try source.updateData(try SourceDiff.parse("{" + members.joined(separator: ", ") + "}"))
            }
            if bad {
                #expect(e?.code == .invalidGeoJSON && source.version == before)
                failures += 1
                continue
            }
            #expect(e == nil)
            model.apply(removeAll: removeAll, remove: remove, add: add, update: update)
            if source.version == before {
                #expect(model.fingerprint == expected[before], "step \(step): a change made no version")
            } else {
                #expect(source.version == before + 1)
                expected[source.version] = model.fingerprint
            }
        }
        done.mutate { $0 = true }
        for t in readers { pthread_join(t, nil) }
        let reads = seen.value
        let mismatches = reads.filter { expected[$0.0] != $0.1 }.count
        #expect(readers.count == 4 && failures > 0)
        #expect(reads.count > 100, "only \(reads.count) reads")
        #expect(mismatches == 0, "\(mismatches) of \(reads.count) reads differ from their version's replay")
        let final = source.snapshot.features.compactMap { f -> Int64? in
            if case .int(let id)? = f.id { id } else { nil }
        }
        #expect(final == model.items.map(\.id))
    }
}

/// A value behind a lock, for the threads of the test above.
final class Locked<Value>: @unchecked Sendable {
    private let lock = Lock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value { lock.withLock { stored } }
    func mutate(_ body: (inout Value) -> Void) { lock.withLock { body(&stored) } }
}
