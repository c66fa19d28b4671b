// Fuzz target: GL JS source diffs (SourceDiff, mc_source_update_data) applied to a small source,
// clustered when the first byte is odd. Properties: a diff that fails leaves the very same state
// (no new version); one that succeeds makes at most one version, holds every id it added and
// none it removed without adding back, and its tile changes can be asked for every tile of z2.
import MapCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDiff(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size > 0, let diff = try? SourceDiff.parse(UnsafeBufferPointer(start: data + 1, count: size - 1)) else {
        return 0
    }
    var options = DataSourceOptions()
    options.cluster = data[0] & 1 == 1
    guard let source = try? DataSource(options: options),
        (try? source.add(
            GeoJSONParser.parse(
                #"{"type":"FeatureCollection","features":[{"type":"Feature","id":1,"properties":{"a":1},"#
                    + #""geometry":{"type":"Point","coordinates":[1,2]}},{"type":"Feature","id":"b","properties":null,"#
                    + #""geometry":{"type":"Point","coordinates":[-170,60]}}]}"#))) != nil
    else { fatalError("the seed source does not build") }
    let before = source.snapshot
    do {
        try source.updateData(diff)
    } catch {
        if source.snapshot !== before { fatalError("a failed diff changed the source: \(error)") }
        return 0
    }
    let after = source.snapshot
    guard after.version == before.version || after.version == before.version + 1 else {
        fatalError("one diff made versions \(before.version) -> \(after.version)")
    }
    let added = Set(diff.add.compactMap { $0.id.map(FeatureKey.init) })
    for key in added where after.feature(withID: key) == nil { fatalError("added id \(key) is missing") }
    for key in diff.remove where !added.contains(key) && after.feature(withID: key) != nil {
        fatalError("removed id \(key) is still held")
    }
    guard let changes = try? source.changes(since: before.version) else { fatalError("no changes since the diff") }
    for x in 0..<4 { for y in 0..<4 { _ = changes.touches(z: 2, x: x, y: y, buffer: 0.25) } }
    _ = try? after.clusterItemsJSON(west: -180, south: -85, east: 180, north: 85, zoom: 1)
    return 0
}
