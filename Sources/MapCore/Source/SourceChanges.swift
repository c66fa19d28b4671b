// Source: which tiles a data source's writes may have changed, so a renderer re-requests only
// those. As GL JS decides it (geojson_source.ts, shouldReloadTile): a tile changed when its
// bounds, widened by the tile buffer, meet the bounds of a feature as it was before or is after
// a write; a clustered source, a removeAll, a replacement of every feature (set, clear) and an
// options change change every tile (supercluster's clusters and ids depend on every point and
// on input order, so no bound is exact for them).

/// What changed between two versions of a source.
public struct SourceChanges: Sendable, Equatable {
    /// The version the changes run to (the source's, or a snapshot's).
    public var version: UInt64
    /// The version they run from.
    public var since: UInt64
    /// Every tile may have changed (see above, and when `since` is older than the log holds).
    public var all: Bool
    /// Longitude/latitude bounds of the features written (before and after), when not `all`.
    public var bounds: [BoundingBox]

    /// Whether tile z/x/y may have changed: its bounds, widened on each side by `buffer` (a
    /// fraction of the tile: geojson-vt's buffer / extent), meet one of `bounds`, also across the
    /// antimeridian (tiles wrap the world).
    public func touches(z: Int, x: Int, y: Int, buffer: Double) -> Bool {
        if all { return true }
        guard z >= 0, z <= 40 else { return false }
        let n = Double(UInt64(1) << UInt64(z))
        let x0 = (Double(x) - buffer) / n
        let x1 = (Double(x) + 1 + buffer) / n
        let y0 = (Double(y) - buffer) / n
        let y1 = (Double(y) + 1 + buffer) / n
        for b in bounds {
            // Mercator y grows southward: north gives the smaller y.
            let by0 = Projection.y(lat: b.north, .c)
            let by1 = Projection.y(lat: b.south, .c)
            guard by0 <= y1, by1 >= y0 else { continue }
            let bx0 = Projection.x(lng: b.west)
            let bx1 = Projection.x(lng: b.east)
            for shift in [-1.0, 0, 1] where bx0 + shift <= x1 && bx1 + shift >= x0 { return true }
        }
        return false
    }

    public var json: JSONValue {
        var o = JSONObject()
        o["version"] = .uint(version)
        o["since"] = .uint(since)
        o["all"] = .bool(all)
        o["bounds"] = .array(bounds.map { b in .array([b.west, b.south, b.east, b.north].map(JSONValue.coordinate)) })
        return .object(o)
    }
}

/// The bounds each recent write touched, by version; shared by a source and its snapshots.
/// Bounded: the oldest writes are forgotten first, and asking from before them answers "all".
final class ChangeLog: @unchecked Sendable {
    /// Bounds one write records before they are merged into their union.
    static let boundsPerWrite = 256
    /// Bounds the log holds in all.
    static let capacity = 1 << 16

    private let lock = Lock()
    /// (version, bounds or nil for "every tile"), versions ascending.
    private var entries: [(version: UInt64, bounds: [BoundingBox]?)] = []
    private var held = 0
    private var head = 0
    /// Changes since a version below this are no longer known.
    private var horizon: UInt64 = 0

    /// Records what the write that made `version` touched (nil: everything).
    func record(version: UInt64, bounds: [BoundingBox]?) {
        // A write that touched no tile (only filtered-out or unlocated features) adds nothing to
        // any answer; logging it would grow the log without ever counting toward its bound.
        if let list = bounds, list.isEmpty { return }
        var b = bounds
        if let list = b, list.count > Self.boundsPerWrite, let first = list.first {
            b = [list.dropFirst().reduce(first) { $0.union($1) }]
        }
        lock.withLock {
            entries.append((version, b))
            held += b?.count ?? 1
            while held > Self.capacity, head < entries.count {
                held -= entries[head].bounds?.count ?? 1
                horizon = entries[head].version
                head += 1
            }
            if head > 1024, head * 2 > entries.count {
                entries.removeFirst(head)
                head = 0
            }
        }
    }

    /// Writes held (for tests).
    var entryCount: Int { lock.withLock { entries.count - head } }

    /// What the writes after `since`, up to and including `version`, touched.
    func changes(since: UInt64, upTo version: UInt64) throws(MapCoreError) -> SourceChanges {
        guard since <= version else {
            throw MapCoreError(.invalidArgument, "Version \(since) is later than the source's version \(version).")
        }
        var result = SourceChanges(version: version, since: since, all: false, bounds: [])
        lock.withLock {
            if since < horizon {
                result.all = true
                return
            }
            // Versions ascend: start at the first one after `since` (a renderer asks per tile).
            var lo = head
            var hi = entries.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if entries[mid].version <= since { lo = mid + 1 } else { hi = mid }
            }
            for i in lo..<entries.count where entries[i].version <= version {
                guard let b = entries[i].bounds else {
                    result.all = true
                    result.bounds = []
                    return
                }
                result.bounds.append(contentsOf: b)
            }
        }
        return result
    }
}
