// Cluster: a supercluster index's results as GeoJSON features (getClusters, getChildren,
// getLeaves) and as supercluster's tile JSON (getTile).

extension Supercluster {
    /// A cluster as supercluster's getClusters gives it; a point as its input feature.
    public func writeFeature<W: StructuredWriter>(_ item: ClusterItem, into w: inout W) {
        switch item {
        case .point(let i):
            w.writeFeature(feature(i))
        case .cluster(let c):
            w.openObject()
            w.key(ascii: "type"); w.writeString(ascii: "Feature")
            w.key(ascii: "id"); w.writeInt(Int64(clusters[c].id))
            w.key(ascii: "properties"); w.writeObject(clusterProperties(c))
            w.key(ascii: "geometry")
            w.openObject()
            w.key(ascii: "type"); w.writeString(ascii: "Point")
            w.key(ascii: "coordinates")
            w.openArray(inline: true)
            let (lng, lat) = position(item)
            w.element(); w.writeCoordinate(lng)
            w.element(); w.writeCoordinate(lat)
            w.closeArray()
            w.closeObject()
            w.closeObject()
        }
    }

    /// A FeatureCollection of items.
    public func featureCollection(_ items: [ClusterItem], pretty: Bool = false) -> [UInt8] {
        featureCollection(items, pretty: pretty, parallel: true)
    }

    /// Compact text of many items is written in two halves on two threads, joined into the
    /// bytes one thread writes (the index is read-only); `parallel: false` writes it on this
    /// thread (tests compare the two).
    func featureCollection(_ items: [ClusterItem], pretty: Bool, parallel: Bool) -> [UInt8] {
        var w = JSONWriter(pretty: pretty, reserve: JSONWriter.reserve(items: items.count, bytesEach: 256))
        writeFeatureCollection(items, into: &w, parallel: parallel && !pretty)
        return w.bytes
    }

    /// The same FeatureCollection as MessagePack (`MessagePackWriter`); MC_E_LIMIT for a value
    /// with no MessagePack form.
    public func featureCollectionMessagePack(
        _ items: [ClusterItem], parallel: Bool = true
    ) throws(MapCoreError) -> [UInt8] {
        var w = MessagePackWriter(reserve: MessagePackWriter.reserve(items: items.count, bytesEach: 256))
        writeFeatureCollection(items, into: &w, parallel: parallel)
        return try w.finished()
    }

    private func writeFeatureCollection<W: StructuredWriter>(_ items: [ClusterItem], into w: inout W, parallel: Bool) {
        w.openObject()
        w.key(ascii: "type"); w.writeString(ascii: "FeatureCollection")
        w.key(ascii: "features")
        w.openArray()
        if parallel && items.count >= Self.parallelWritingFrom {
            let half = items.count / 2
            var second = W(elementsReserving: W.reserve(items: items.count - half, bytesEach: 256))
            runConcurrently(
                { for item in items[half...] { second.element(); writeFeature(item, into: &second) } },
                { for item in items[..<half] { w.element(); writeFeature(item, into: &w) } })
            w.appendElements(of: second)
        } else {
            for item in items { w.element(); writeFeature(item, into: &w) }
        }
        w.closeArray()
        w.closeObject()
    }

    /// Results of at least this many items are written on two threads.
    static let parallelWritingFrom = 20_000

    /// supercluster's tile JSON: `{"features":[{"type":1,"geometry":[[x,y]],"tags":{…},"id":…}]}`,
    /// or `null` for an empty tile.
    public func tileJSON(_ items: [TileItem], pretty: Bool = false) -> [UInt8] {
        var w = JSONWriter(pretty: pretty, reserve: JSONWriter.reserve(items: items.count, bytesEach: 256))
        guard !items.isEmpty else { w.writeNull(); return w.bytes }
        w.openObject()
        w.key(ascii: "features")
        w.openArray()
        for t in items {
            w.element()
            w.openObject()
            w.key(ascii: "type"); w.writeInt(1)
            w.key(ascii: "geometry")
            w.openArray(inline: true)
            w.element()
            w.openArray(inline: true)
            w.element(); w.writeCoordinate(t.x)
            w.element(); w.writeCoordinate(t.y)
            w.closeArray()
            w.closeArray()
            w.key(ascii: "tags")
            switch t.item {
            case .cluster(let c):
                w.writeObject(clusterProperties(c))
                w.key(ascii: "id"); w.writeInt(Int64(clusters[c].id))
            case .point(let i):
                let f = feature(i)
                if let p = f.properties { w.writeObject(p) } else { w.writeNull() }
                if options.generateId {
                    w.key(ascii: "id"); w.writeInt(Int64(i))
                } else if let id = f.id {
                    w.key(ascii: "id"); w.writeValue(id.jsonValue)
                }
            }
            w.closeObject()
        }
        w.closeArray()
        w.closeObject()
        return w.bytes
    }

    /// The items of a tile as tile features (type 1, one position each), with the tags and ids
    /// `tileJSON` writes: what a vector tile of a clustered source holds.
    public func tileFeatures(_ items: [TileItem]) -> [TileFeature] {
        items.map { t in
            switch t.item {
            case .cluster(let c):
                return TileFeature(
                    type: 1, geometry: [[t.x, t.y]], tags: clusterProperties(c),
                    id: .int(Int64(clusters[c].id)))
            case .point(let i):
                let f = feature(i)
                return TileFeature(
                    type: 1, geometry: [[t.x, t.y]], tags: f.properties,
                    id: options.generateId ? .int(Int64(i)) : f.id?.jsonValue)
            }
        }
    }
}
