// Source: a data source's tiles, as MapLibre Native's GeoJSON source makes them inside the
// renderer (style/sources/geojson_source_impl.cpp, GeoJSONData::create): clustered sources from
// the cluster index (supercluster's getTile), others cut by geojson-vt with options derived
// from the source's, on 8192-wide tiles.

/// What a source tile is cut with.
public enum SourceTiling {
    /// MapLibre's tile extent (util::EXTENT).
    public static let extent = 8192
    /// The source options are in pixels of a 512-pixel tile; tiles are `extent` wide.
    static let scale = Double(extent) / 512
}

extension DataSourceOptions {
    /// geojson-vt's options as MapLibre Native derives them: maxZoom = the source's maxZoom
    /// (at most geojson-vt's 24), extent 8192, buffer = round(buffer · 16), tolerance =
    /// tolerance · 16, lineMetrics; `tileCompatibility` (MapLibre Native's simplification and
    /// polygon fix-up by default). Ids are not promoted or generated here: the source already
    /// gave its features their ids.
    public var tilingOptions: TilingOptions {
        var o = TilingOptions()
        o.maxZoom = min(maxZoom, TilingOptions.maxAllowedZoom)
        o.extent = Double(SourceTiling.extent)
        o.buffer = (Double(buffer) * SourceTiling.scale).jsRounded
        o.tolerance = tolerance * SourceTiling.scale
        o.lineMetrics = lineMetrics
        o.compatibility = tileCompatibility
        return o
    }

    /// The tile buffer as a fraction of a tile (geojson-vt's buffer / extent): how far beyond
    /// its edges a tile holds features, so how far a change reaches into neighbouring tiles.
    public var tileBufferFraction: Double {
        let o = tilingOptions
        return o.buffer / o.extent
    }
}

extension SourceSnapshot {
    /// The tile z/x/y's features in tile coordinates (extent 8192), nil where there is no tile:
    /// supercluster's tile of the cluster index when clustering, else geojson-vt's tile of the
    /// features that pass the filter.
    public func tile(z: Int, x: Int, y: Int) throws(MapCoreError) -> [TileFeature]? {
        if let clusters = try clusters() {
            guard z >= 0, z <= 40, (0..<(1 << z)).contains(x), (0..<(1 << z)).contains(y) else { return nil }
            let items = try clusters.tile(z: z, x: x, y: y)
            return items.isEmpty ? nil : clusters.tileFeatures(items)
        }
        return try tileIndex().tile(z: z, x: x, y: y)
    }

    /// The tile as geojson-vt's tile object in JSON (`TileFeature.tileJSON`), `null` where
    /// `tile` is nil; geojson-vt's tiles are written from the tile's own arrays.
    public func tileJSON(z: Int, x: Int, y: Int, pretty: Bool = false) throws(MapCoreError) -> [UInt8] {
        if try clusters() != nil { return TileFeature.tileJSON(try tile(z: z, x: x, y: y), pretty: pretty) }
        return try tileIndex().tileJSON(z: z, x: x, y: y, pretty: pretty)
    }

    /// The tile as a Mapbox Vector Tile with one layer, extent 8192; no bytes where there is no
    /// tile or it has no features. geojson-vt's tiles are written from the tile's own arrays.
    public func tileMVT(z: Int, x: Int, y: Int, layer: String) throws(MapCoreError) -> [UInt8] {
        try placedInArray { (placement) throws(MapCoreError) in
            try tileMVT(z: z, x: x, y: y, layer: layer, into: placement)
        }
    }

    /// The same, handed to `placement`.
    public func tileMVT(z: Int, x: Int, y: Int, layer: String, into placement: BytePlacement) throws(MapCoreError) {
        if try clusters() != nil { return place(mvt(try tile(z: z, x: x, y: y) ?? [], layer: layer), placement) }
        try tileIndex().mvt(z: z, x: x, y: y, layer: layer, into: placement)
    }

    /// The geojson-vt index of the features the filter keeps, made on first use.
    private func tileIndex() throws(MapCoreError) -> TileIndex {
        try tiles.get { () throws(MapCoreError) in
            try TileIndex(indexedData, options: options.tilingOptions)
        }
    }

    /// Tile features as this source's vector tile (extent 8192, the MVT version of its
    /// compatibility); no bytes for no features.
    func mvt(_ features: [TileFeature], layer: String) -> [UInt8] {
        guard !features.isEmpty else { return [] }
        return VectorTileEncoder.encode(
            layer: layer, extent: SourceTiling.extent, features: features,
            version: options.tileCompatibility.mvtVersion)
    }

    /// The features the filter keeps, as the GeoJSON the tiles are cut from.
    var indexedData: GeoJSON { .featureCollection(FeatureCollection(features: indexedFeatures)) }
}
