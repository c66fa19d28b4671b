// Source: one write to a data source, on its own copy of the state: features given their ids
// (promoteId, generateId), filtered, checked for clustering, stored; and the bounds of what it
// touched noted for the tile changes. The copy is published only when the whole write worked.

struct SourceWrite {
    var state: SourceState
    var options: DataSourceOptions
    var nextGeneratedID: Int64
    /// Bounds of the filtered-in features written, as they were and as they are; nil once every
    /// tile may have changed.
    var touched: [BoundingBox]? = []
    /// Whether anything changed (a removal of an unknown id changes nothing, and makes no version).
    var changed = false

    init(state: SourceState, options: DataSourceOptions, nextGeneratedID: Int64) {
        self.state = state
        self.options = options
        self.nextGeneratedID = nextGeneratedID
        // A clustered source's writes change every tile (SourceChanges): no bounds to gather.
        if options.cluster { touched = nil }
    }

    // MARK: what a feature becomes in the source

    /// The features of a GeoJSON value (a bare geometry becomes a feature).
    static func features(of value: GeoJSON) -> [Feature] {
        switch value {
        case .geometry(let g): return [Feature(geometry: g, properties: JSONObject())]
        case .feature(let f): return [f]
        case .featureCollection(let c): return c.features
        }
    }

    /// A new feature's id: a fresh integer with generateId, else the promoteId property's value
    /// (a string or number; anything else leaves the feature's own id).
    mutating func giveID(_ f: inout Feature) {
        if options.generateId {
            f.id = .int(nextGeneratedID)
            nextGeneratedID += 1
        } else {
            promote(&f)
        }
    }

    private func promote(_ f: inout Feature) {
        guard let key = options.promoteId, let v = f.properties?[key] else { return }
        switch v {
        case .string(let s): f.id = .string(s)
        case .int(let n): f.id = .int(n)
        case .uint(let n): f.id = .uint(n)
        case .double(let d): f.id = .double(d)
        default: break
        }
    }

    func passes(_ f: Feature) -> Bool {
        guard let filter = options.filter else { return true }
        var ctx = EvaluationContext(zoom: 0)
        ctx.setFeature(f)
        if case .boolean(true)? = try? filter.evaluate(ctx) { return true }
        return false
    }

    /// With clustering, a feature passing the filter must be a Point the index can hold, or have
    /// no geometry: checked here, so the index built later by a query cannot fail on the data.
    func checkClusterable(_ f: Feature, passes: Bool, path: @autoclosure () -> String) throws(MapCoreError) {
        guard options.cluster, passes, let g = f.geometry, !Supercluster.indexable(g) else { return }
        let location = SourceLocation(offset: -1, line: 0, column: 0, path: path())
        guard Supercluster.clusterable(g) else {
            throw MapCoreError(
                .unsupported,
                "Clustering only applies to Point features; \(path()) is a \(g.type.name). "
                    + "Turn clustering off or remove non-point features.",
                location: location)
        }
        throw MapCoreError(
            .invalidArgument, "\(path()) has a position too large to project ([\(g.xy[0]), \(g.xy[1])]).",
            location: location)
    }

    /// New features made ready to store: ids given (in place; the array is copied only when
    /// ids change, as the parsed array is shared), filtered, checked, touched. Returns the filter
    /// results. `path(i)`: the JSONPath of feature i.
    private mutating func prepare(
        _ features: inout [Feature], path: (Int) -> String
    ) throws(MapCoreError) -> [Bool] {
        var results: [Bool] = []
        results.reserveCapacity(features.count)
        let givesIDs = options.generateId || options.promoteId != nil
        for i in features.indices {
            if givesIDs { giveID(&features[i]) }
            let p = passes(features[i])
            try checkClusterable(features[i], passes: p, path: path(i) + ".geometry")
            touch(features[i], passes: p)
            results.append(p)
        }
        return results
    }

    private mutating func touch(_ f: Feature, passes: Bool) {
        changed = true
        // An update that keeps the geometry touches the same box twice: noted once.
        guard passes, let list = touched, let b = BoundingBox.of(.feature(f)), list.last != b else { return }
        // A large write is remembered by the union of what it touched (ChangeLog.boundsPerWrite),
        // so a million-feature add does not hold a million boxes on the way.
        if list.count < ChangeLog.boundsPerWrite {
            touched?.append(b)
        } else {
            touched = [list.dropFirst().reduce(list[0].union(b)) { $0.union($1) }]
        }
    }

    private mutating func touchEverything() {
        changed = true
        touched = nil
    }

    // MARK: the writes

    mutating func add(_ value: GeoJSON) throws(MapCoreError) {
        var features = Self.features(of: value)
        let passes = try prepare(&features) { "$.features[\($0)]" }
        state.append(features, passes: passes)
    }

    mutating func replaceAll(with value: GeoJSON) throws(MapCoreError) {
        var features = Self.features(of: value)
        let passes = try prepare(&features) { "$.features[\($0)]" }
        state = SourceState(features, passes: passes)
        touchEverything()
    }

    mutating func removeAll() {
        state = SourceState()
        touchEverything()
    }

    @discardableResult
    mutating func remove(id: FeatureKey) -> Int {
        let removed = state.removeAll(withID: id)
        for old in removed { touch(old.feature, passes: old.passes) }
        return removed.count
    }

    mutating func remove(at index: Int) throws(MapCoreError) {
        guard let old = state.remove(at: index) else {
            throw MapCoreError(.notFound, "No feature at index \(index) (the source holds \(state.count)).")
        }
        touch(old.feature, passes: old.passes)
    }

    /// New options: every feature filtered and checked again (ids stay as they were given).
    mutating func setOptions(_ new: DataSourceOptions) throws(MapCoreError) {
        options = new
        let features = state.store.features
        var results: [Bool] = []
        results.reserveCapacity(features.count)
        for (i, f) in features.enumerated() {
            let p = passes(f)
            try checkClusterable(f, passes: p, path: "$.features[\(i)]")
            results.append(p)
        }
        state = SourceState(features, passes: results)
        touchEverything()
    }

    /// GL JS's order: removeAll, remove, add (a held id is replaced in place, its duplicates
    /// removed), update (each feature with the id; an unknown id is skipped, as GL JS skips it).
    mutating func apply(_ diff: SourceDiff) throws(MapCoreError) {
        var added = diff.add
        let addedPasses = try prepare(&added) { "$.add[\($0)]" }
        for (i, f) in added.enumerated() where f.id == nil {
            throw MapCoreError(
                .invalidArgument,
                "updateData adds features by id: $.add[\(i)] has none (give it an \"id\", or set promoteId or "
                    + "generateId).",
                location: SourceLocation(offset: -1, line: 0, column: 0, path: "$.add[\(i)]"))
        }
        if diff.removeAll { removeAll() }
        for id in diff.remove { remove(id: id) }
        for (f, p) in zip(added, addedPasses) {
            guard let id = f.id else { continue }
            let seqs = state.seqs(of: FeatureKey(id))
            guard let first = seqs.first else {
                state.append([f], passes: [p])
                continue
            }
            if let old = state.replace(seq: first, with: f, passes: p) { touch(old.feature, passes: old.passes) }
            for old in state.removeOthers(withID: FeatureKey(id), keeping: first) {
                touch(old.feature, passes: old.passes)
            }
        }
        for (i, u) in diff.update.enumerated() {
            for seq in state.seqs(of: u.id) {
                guard let old = state.store.entry(seq: seq) else { continue }
                var f = u.applied(to: old.feature)
                if !options.generateId { promote(&f) }
                let p = passes(f)
                try checkClusterable(f, passes: p, path: "$.update[\(i)].newGeometry")
                state.replace(seq: seq, with: f, passes: p)
                touch(old.feature, passes: old.passes)
                touch(f, passes: p)
            }
        }
    }
}
