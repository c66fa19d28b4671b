// MapCore C++17 wrapper: header-only RAII over include/mapcore.h.
// Handles free themselves in destructors; failing calls throw mapcore::Error.
#ifndef MAPCORE_HPP
#define MAPCORE_HPP

#include <mapcore.h>

#include <charconv>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mapcore {

/// A failing MapCore call: the status code plus the thread's error record.
class Error : public std::runtime_error {
  public:
    explicit Error(const mc_error &e)
        : std::runtime_error(describe(e)), code_(e.code), message_(e.message), path_(e.path), offset_(e.offset),
          line_(e.line), column_(e.column) {}

    int code() const noexcept { return code_; }
    const std::string &message() const noexcept { return message_; }
    const std::string &path() const noexcept { return path_; }
    std::int64_t offset() const noexcept { return offset_; }
    std::int64_t line() const noexcept { return line_; }
    std::int64_t column() const noexcept { return column_; }

  private:
    static std::string describe(const mc_error &e) {
        std::string s = std::string(mc_errstr(e.code)) + ": " + e.message;
        if (e.line > 0)
            s += " (line " + std::to_string(e.line) + ", column " + std::to_string(e.column) +
                 (e.path[0] ? std::string(", at ") + e.path : std::string()) + ")";
        return s;
    }
    int code_;
    std::string message_, path_;
    std::int64_t offset_, line_, column_;
};

namespace detail {
inline void check(int status) {
    if (status != MC_OK) throw Error(*mc_last_error());
}

/// Calls `fill(mc_buf *)` and returns the library-owned text as a string, disposing the buffer.
template <class Fill> std::string take_text(Fill fill) {
    mc_buf buf = MC_BUF_INIT;
    int st = fill(&buf);
    std::string out = st == MC_OK ? std::string(buf.data, buf.len) : std::string();
    mc_buf_dispose(&buf);
    check(st);
    return out;
}
} // namespace detail

inline std::string version() { return mc_version(); }
inline std::string geos_version() { return mc_geos_version(); }

struct BBox {
    double west, south, east, north;

    bool crosses_antimeridian() const {
        int out = 0;
        detail::check(mc_bbox_crosses_antimeridian(c(), &out));
        return out != 0;
    }
    bool contains(double lon, double lat) const {
        int out = 0;
        detail::check(mc_bbox_contains(c(), lon, lat, &out));
        return out != 0;
    }
    bool intersects(const BBox &other) const {
        int out = 0;
        detail::check(mc_bbox_intersects(c(), other.c(), &out));
        return out != 0;
    }
    BBox merged(const BBox &other) const {
        mc_bbox out;
        detail::check(mc_bbox_merge(c(), other.c(), &out));
        return {out.west, out.south, out.east, out.north};
    }
    std::vector<BBox> split_antimeridian() const {
        mc_bbox parts[2];
        size_t n = 0;
        detail::check(mc_bbox_split_antimeridian(c(), parts, &n));
        std::vector<BBox> out;
        for (size_t i = 0; i < n; ++i) out.push_back({parts[i].west, parts[i].south, parts[i].east, parts[i].north});
        return out;
    }

  private:
    const mc_bbox *c() const { return reinterpret_cast<const mc_bbox *>(this); }
};
static_assert(sizeof(BBox) == sizeof(mc_bbox), "BBox mirrors mc_bbox");

/// A position as longitude/latitude.
struct Position {
    double lon, lat;
};

/// A parsed GeoJSON value; move-only, freed by its destructor.
class GeoJSON {
  public:
    /// `lenient`: rings as MapLibre reads them (MC_PARSE_LENIENT).
    static GeoJSON parse(std::string_view json, unsigned max_depth = 0, bool lenient = false) {
        mc_parse_options options = MC_PARSE_OPTIONS_INIT;
        options.max_depth = max_depth;
        options.flags = lenient ? MC_PARSE_LENIENT : 0u;
        mc_geojson *handle = nullptr;
        detail::check(mc_geojson_parse(json.data(), json.size(), &options, &handle));
        return GeoJSON(handle);
    }

    GeoJSON(GeoJSON &&other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
    GeoJSON &operator=(GeoJSON &&other) noexcept {
        if (this != &other) {
            mc_geojson_free(handle_);
            handle_ = std::exchange(other.handle_, nullptr);
        }
        return *this;
    }
    GeoJSON(const GeoJSON &) = delete;
    GeoJSON &operator=(const GeoJSON &) = delete;
    ~GeoJSON() { mc_geojson_free(handle_); }

    const mc_geojson *get() const noexcept { return handle_; }

    int kind() const {
        int out = 0;
        detail::check(mc_geojson_kind(handle_, &out));
        return out;
    }
    size_t feature_count() const {
        size_t out = 0;
        detail::check(mc_geojson_feature_count(handle_, &out));
        return out;
    }
    int geometry_type() const {
        int out = 0;
        detail::check(mc_geojson_geometry_type(handle_, &out));
        return out;
    }
    std::string to_json(bool pretty = false) const {
        mc_buf buf = MC_BUF_INIT;
        detail::check(mc_geojson_serialize(handle_, pretty ? MC_SERIALIZE_PRETTY : 0u, &buf));
        std::string out(buf.data, buf.len);
        mc_buf_dispose(&buf);
        return out;
    }
    /// The same value as MessagePack bytes (MC_SERIALIZE_MSGPACK).
    std::string to_msgpack() const {
        return detail::take_text([&](mc_buf *out) { return mc_geojson_serialize(handle_, MC_SERIALIZE_MSGPACK, out); });
    }
    /// The box of every position, or nullopt when there is none.
    std::optional<BBox> bbox() const {
        mc_bbox box;
        int found = 0;
        detail::check(mc_geojson_bbox(handle_, &box, &found));
        if (!found) return std::nullopt;
        return BBox{box.west, box.south, box.east, box.north};
    }
    std::vector<Position> positions() const {
        size_t n = 0;
        detail::check(mc_geojson_position_count(handle_, &n));
        std::vector<Position> out(n);
        static_assert(sizeof(Position) == 2 * sizeof(double), "Position is two packed doubles");
        detail::check(mc_geojson_positions(handle_, reinterpret_cast<double *>(out.data()), n, &n));
        return out;
    }
    /// The convex hull geometry, or nullopt without positions.
    std::optional<GeoJSON> convex_hull() const {
        mc_geojson *hull = nullptr;
        detail::check(mc_geojson_convex_hull(handle_, &hull));
        if (!hull) return std::nullopt;
        return GeoJSON(hull);
    }

  private:
    explicit GeoJSON(mc_geojson *handle) : handle_(handle) {}
    mc_geojson *handle_;
};

/// The box of flat positions, or nullopt for none.
inline std::optional<BBox> bbox(const std::vector<Position> &points) {
    mc_bbox box;
    int found = 0;
    detail::check(mc_bbox_of_positions(reinterpret_cast<const double *>(points.data()), points.size(), &box, &found));
    if (!found) return std::nullopt;
    return BBox{box.west, box.south, box.east, box.north};
}

/// Hull vertices of flat positions: empty, one point, a segment, or a closed CCW ring.
inline std::vector<Position> convex_hull(const std::vector<Position> &points) {
    std::vector<Position> out(points.size() + 1);
    size_t n = 0;
    detail::check(mc_convex_hull_positions(reinterpret_cast<const double *>(points.data()), points.size(),
                                           reinterpret_cast<double *>(out.data()), out.size(), &n));
    out.resize(n);
    return out;
}

/// A compiled style expression or filter (include/mapcore/expression.h). Immutable: evaluate
/// from any number of threads. Move-only; freed by the destructor.
class Expression {
  public:
    /// Compiles an expression; `property_spec` is a style-spec property specification (JSON).
    explicit Expression(std::string_view json, std::string_view property_spec = {}) {
        detail::check(mc_expression_compile(json.data(), json.size(),
                                            property_spec.empty() ? nullptr : property_spec.data(),
                                            property_spec.size(), &handle_));
    }
    /// Compiles a filter (boolean expression or legacy filter).
    static Expression filter(std::string_view json) {
        Expression e;
        detail::check(mc_filter_compile(json.data(), json.size(), &e.handle_));
        return e;
    }
    /// Compiles an NSPredicate format string as a filter (include/mapcore/format.h);
    /// `args_json` is a JSON array with one value per %@/%K placeholder (empty for none).
    static Expression predicate(std::string_view format, std::string_view args_json = {}) {
        Expression e;
        detail::check(mc_predicate_compile(format.data(), format.size(), args_json.empty() ? nullptr : args_json.data(),
                                           args_json.size(), &e.handle_));
        return e;
    }
    /// Compiles an NSExpression format string, with an optional property spec.
    static Expression from_format(std::string_view format, std::string_view args_json = {},
                                  std::string_view property_spec = {}) {
        Expression e;
        detail::check(mc_expression_compile_format(
            format.data(), format.size(), args_json.empty() ? nullptr : args_json.data(), args_json.size(),
            property_spec.empty() ? nullptr : property_spec.data(), property_spec.size(), &e.handle_));
        return e;
    }
    Expression(Expression &&other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
    Expression &operator=(Expression &&other) noexcept {
        if (this != &other) {
            mc_expression_free(handle_);
            handle_ = std::exchange(other.handle_, nullptr);
        }
        return *this;
    }
    Expression(const Expression &) = delete;
    Expression &operator=(const Expression &) = delete;
    ~Expression() { mc_expression_free(handle_); }

    /// The result for one feature (GeoJSON text, empty for none) as JSON text.
    std::string evaluate(std::string_view feature = {}, const mc_eval_context *ctx = nullptr) const {
        return take([&](mc_buf *b) {
            return mc_expression_evaluate(handle_, feature.empty() ? nullptr : feature.data(), feature.size(), ctx, b);
        });
    }
    /// Whether one feature passes (the expression must give a boolean).
    bool matches(std::string_view feature, const mc_eval_context *ctx = nullptr) const {
        int out = 0;
        detail::check(mc_expression_matches(handle_, feature.data(), feature.size(), ctx, &out));
        return out != 0;
    }
    /// One double per feature of `features`; NaN where evaluation failed.
    std::vector<double> evaluate_numbers(const GeoJSON &features, const mc_eval_context *ctx = nullptr) const {
        size_t n = 0;
        int st = mc_expression_evaluate_numbers(handle_, features.get(), ctx, nullptr, nullptr, 0, &n);
        if (st != MC_OK && st != MC_E_BUFFER_TOO_SMALL) detail::check(st);
        std::vector<double> out(n);
        detail::check(mc_expression_evaluate_numbers(handle_, features.get(), ctx, out.data(), nullptr, n, &n));
        return out;
    }
    std::string to_json() const {
        return take([&](mc_buf *b) { return mc_expression_serialize(handle_, b); });
    }
    std::string type() const {
        return take([&](mc_buf *b) { return mc_expression_type(handle_, b); });
    }
    unsigned flags() const {
        unsigned f = 0;
        detail::check(mc_expression_flags(handle_, &f));
        return f;
    }
    bool is_feature_constant() const { return flags() & MC_EXPRESSION_FEATURE_CONSTANT; }
    bool is_zoom_constant() const { return flags() & MC_EXPRESSION_ZOOM_CONSTANT; }
    const mc_expression *handle() const noexcept { return handle_; }

  private:
    Expression() = default;
    template <class Fill> static std::string take(Fill fill) { return detail::take_text(fill); }
    mc_expression *handle_ = nullptr;
};

/// A supercluster index (include/mapcore/cluster.h). Options are JSON with supercluster's names.
/// Query results are GeoJSON text (FeatureCollections) or flat mc_cluster_item vectors.
class ClusterIndex {
  public:
    explicit ClusterIndex(std::string_view options_json = {}) {
        detail::check(
            mc_cluster_index_new(options_json.empty() ? nullptr : options_json.data(), options_json.size(), &handle_));
    }
    ClusterIndex(ClusterIndex &&other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
    ClusterIndex &operator=(ClusterIndex &&other) noexcept {
        if (this != &other) {
            mc_cluster_index_free(handle_);
            handle_ = std::exchange(other.handle_, nullptr);
        }
        return *this;
    }
    ClusterIndex(const ClusterIndex &) = delete;
    ClusterIndex &operator=(const ClusterIndex &) = delete;
    ~ClusterIndex() { mc_cluster_index_free(handle_); }

    void load(const GeoJSON &features) { detail::check(mc_cluster_index_load(handle_, features.get())); }
    void load_points(const std::vector<double> &lnglat) {
        detail::check(mc_cluster_index_load_points(handle_, lnglat.data(), lnglat.size() / 2));
    }
    std::string clusters(const BBox &box, double zoom, bool pretty = false) const {
        const double b[4] = {box.west, box.south, box.east, box.north};
        return detail::take_text(
            [&](mc_buf *out) { return mc_cluster_index_get_clusters(handle_, b, zoom, flags(pretty), out); });
    }
    std::vector<mc_cluster_item> clusters_flat(const BBox &box, double zoom) const {
        const double b[4] = {box.west, box.south, box.east, box.north};
        return flat([&](mc_cluster_item *items, size_t cap, size_t *n) {
            return mc_cluster_index_get_clusters_flat(handle_, b, zoom, items, cap, n);
        });
    }
    /// supercluster's tile JSON, or "null" for an empty tile.
    std::string tile(int z, int x, int y) const {
        return detail::take_text([&](mc_buf *out) { return mc_cluster_index_get_tile(handle_, z, x, y, 0, out); });
    }
    std::string children(std::int64_t cluster_id) const {
        return detail::take_text(
            [&](mc_buf *out) { return mc_cluster_index_get_children(handle_, cluster_id, 0, out); });
    }
    std::vector<mc_cluster_item> children_flat(std::int64_t cluster_id) const {
        return flat([&](mc_cluster_item *items, size_t cap, size_t *n) {
            return mc_cluster_index_get_children_flat(handle_, cluster_id, items, cap, n);
        });
    }
    std::string leaves(std::int64_t cluster_id, mc_page page = {0, 10}) const {
        return detail::take_text(
            [&](mc_buf *out) { return mc_cluster_index_get_leaves(handle_, cluster_id, &page, 0, out); });
    }
    std::vector<mc_cluster_item> leaves_flat(std::int64_t cluster_id, mc_page page = {0, MC_LIMIT_ALL}) const {
        return flat([&](mc_cluster_item *items, size_t cap, size_t *n) {
            return mc_cluster_index_get_leaves_flat(handle_, cluster_id, &page, items, cap, n);
        });
    }
    /// The items `ids` name (input indexes of points; a cluster with cluster id c as -1 - c, or
    /// in supercluster JS's numbering as c), as a FeatureCollection.
    /// `msgpack`: as MessagePack bytes (MC_SERIALIZE_MSGPACK) instead of JSON text.
    std::string features(const std::vector<std::int64_t> &ids, bool msgpack = false) const {
        const std::uint32_t form = msgpack ? MC_SERIALIZE_MSGPACK : 0u;
        return detail::take_text(
            [&](mc_buf *out) { return mc_cluster_index_get_features(handle_, ids.data(), ids.size(), form, out); });
    }
    int expansion_zoom(std::int64_t cluster_id) const {
        int out = 0;
        detail::check(mc_cluster_index_get_expansion_zoom(handle_, cluster_id, &out));
        return out;
    }
    std::string cluster_hull(std::int64_t cluster_id) const {
        return detail::take_text(
            [&](mc_buf *out) { return mc_cluster_index_get_cluster_hull(handle_, cluster_id, out); });
    }
    mc_cluster_index *handle() const noexcept { return handle_; }

  private:
    friend class DataSource;
    explicit ClusterIndex(mc_cluster_index *adopted) noexcept : handle_(adopted) {}
    static std::uint32_t flags(bool pretty) { return pretty ? MC_SERIALIZE_PRETTY : 0u; }
    template <class Call> static std::vector<mc_cluster_item> flat(Call call) {
        size_t n = 0;
        int st = call(nullptr, 0, &n);
        if (st != MC_E_BUFFER_TOO_SMALL) detail::check(st);
        std::vector<mc_cluster_item> items(n);
        detail::check(call(items.data(), items.size(), &n));
        items.resize(n);
        return items;
    }
    mc_cluster_index *handle_ = nullptr;
};

/// The SDKs' GeoJSON data source. Options are JSON with the SDK names ({"cluster": true, ...}).
class DataSource {
  public:
    explicit DataSource(std::string_view options_json = {}) {
        detail::check(
            mc_source_new(options_json.empty() ? nullptr : options_json.data(), options_json.size(), &handle_));
    }
    DataSource(DataSource &&other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
    DataSource &operator=(DataSource &&other) noexcept {
        if (this != &other) {
            mc_source_free(handle_);
            handle_ = std::exchange(other.handle_, nullptr);
        }
        return *this;
    }
    DataSource(const DataSource &) = delete;
    DataSource &operator=(const DataSource &) = delete;
    ~DataSource() { mc_source_free(handle_); }

    void set_options(std::string_view json) { detail::check(mc_source_set_options(handle_, json.data(), json.size())); }
    std::string options() const {
        return detail::take_text([&](mc_buf *out) { return mc_source_get_options(handle_, out); });
    }
    void add(const GeoJSON &data) { detail::check(mc_source_add(handle_, data.get())); }
    void set(const GeoJSON &data) { detail::check(mc_source_set(handle_, data.get())); }
    void import_data(const std::string &path_or_url) { detail::check(mc_source_import(handle_, path_or_url.c_str())); }
    /// `id_json` is the id as JSON: "7" or "\"abc\"". Returns how many features were removed.
    size_t remove(std::string_view id_json) {
        size_t n = 0;
        detail::check(mc_source_remove(handle_, id_json.data(), id_json.size(), &n));
        return n;
    }
    void remove_at(size_t index) { detail::check(mc_source_remove_at(handle_, index)); }
    void clear() { detail::check(mc_source_clear(handle_)); }
    size_t size() const {
        size_t n = 0;
        detail::check(mc_source_count(handle_, &n));
        return n;
    }
    /// The feature's GeoJSON, or nullopt when no feature has this id.
    std::optional<std::string> get(std::string_view id_json) const {
        mc_buf buf = MC_BUF_INIT;
        int st = mc_source_get(handle_, id_json.data(), id_json.size(), 0, &buf);
        if (st == MC_E_NOT_FOUND) return std::nullopt;
        std::string out = st == MC_OK ? std::string(buf.data, buf.len) : std::string();
        mc_buf_dispose(&buf);
        detail::check(st);
        return out;
    }
    std::string to_geojson(bool pretty = false) const {
        return detail::take_text(
            [&](mc_buf *out) { return mc_source_to_geojson(handle_, pretty ? MC_SERIALIZE_PRETTY : 0u, out); });
    }
    std::string clusters(const BBox &box, double zoom) const {
        const double b[4] = {box.west, box.south, box.east, box.north};
        return detail::take_text([&](mc_buf *out) { return mc_source_get_clusters(handle_, b, zoom, 0, out); });
    }
    /// A frozen view of the current cluster index (throws MC_E_NOT_FOUND when not clustering).
    ClusterIndex cluster_index() const {
        mc_cluster_index *view = nullptr;
        detail::check(mc_source_cluster_index(handle_, &view));
        return ClusterIndex(view);
    }
    /// The source's tile as MapLibre Native's GeoJSON source makes it: geojson-vt's tile object
    /// (or supercluster's when clustering) as JSON text, "null" for no tile.
    std::string tile(int z, int x, int y) const {
        return detail::take_text([&](mc_buf *out) { return mc_source_get_tile(handle_, z, x, y, 0, out); });
    }
    /// The same tile as Mapbox Vector Tile bytes with one layer; empty for an empty tile.
    std::string tile_mvt(int z, int x, int y, const std::string &layer = "geojson") const {
        return detail::take_text(
            [&](mc_buf *out) { return mc_source_get_tile_mvt(handle_, z, x, y, layer.c_str(), out); });
    }

    /// Applies a GL JS source diff (JSON: removeAll, remove, add, update) as one atomic write.
    void update_data(std::string_view diff_json) {
        detail::check(mc_source_update_data(handle_, diff_json.data(), diff_json.size()));
    }
    /// The version of the current state (0 when new, one more per changing write).
    uint64_t version() const {
        uint64_t v = 0;
        detail::check(mc_source_version(handle_, &v));
        return v;
    }
    /// A read-only source frozen at the current version (writes to it throw MC_E_UNSUPPORTED).
    DataSource snapshot() const {
        mc_source *view = nullptr;
        detail::check(mc_source_snapshot(handle_, &view));
        return DataSource(view);
    }
    /// What the writes since `since` may have changed, as JSON (mc_source_changes).
    std::string changes(uint64_t since) const {
        return detail::take_text([&](mc_buf *out) { return mc_source_changes(handle_, since, 0, out); });
    }
    /// Whether tile z/x/y may have changed since version `since`.
    bool tile_changed(uint64_t since, int z, int x, int y) const {
        int changed = 0;
        detail::check(mc_source_tile_changed(handle_, since, z, x, y, &changed));
        return changed != 0;
    }

    mc_source *handle() const noexcept { return handle_; }

  private:
    explicit DataSource(mc_source *adopted) noexcept : handle_(adopted) {}
    mc_source *handle_ = nullptr;
};

/// geojson-vt's tile index over GeoJSON (include/mapcore/tile.h). Options are JSON with
/// geojson-vt's names ({"maxZoom": 14, "buffer": 64, ...}). Move-only; freed by the destructor.
class GeoJSONVT {
  public:
    explicit GeoJSONVT(const GeoJSON &data, std::string_view options_json = {}) {
        detail::check(mc_tile_index_new(data.get(), options_json.empty() ? nullptr : options_json.data(),
                                        options_json.size(), &handle_));
    }
    GeoJSONVT(GeoJSONVT &&other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
    GeoJSONVT &operator=(GeoJSONVT &&other) noexcept {
        if (this != &other) {
            mc_tile_index_free(handle_);
            handle_ = std::exchange(other.handle_, nullptr);
        }
        return *this;
    }
    GeoJSONVT(const GeoJSONVT &) = delete;
    GeoJSONVT &operator=(const GeoJSONVT &) = delete;
    ~GeoJSONVT() { mc_tile_index_free(handle_); }

    /// geojson-vt's tile object as JSON text, or "null" where geojson-vt returns null.
    std::string tile(int z, int x, int y, bool pretty = false) const {
        return detail::take_text([&](mc_buf *out) {
            return mc_tile_index_get_tile(handle_, z, x, y, pretty ? MC_SERIALIZE_PRETTY : 0u, out);
        });
    }
    /// The tile as Mapbox Vector Tile bytes with one layer; empty for an empty tile. The first MVT
    /// a feature is written in interns its id and properties in the index (mapcore/tile.h). Throws
    /// (MC_E_INVALID_ARGUMENT) where extent + 2 x buffer is more than 2^31 - 3: MVT coordinates are sint32.
    std::string tile_mvt(int z, int x, int y, const std::string &layer = "geojson") const {
        return detail::take_text(
            [&](mc_buf *out) { return mc_tile_index_get_tile_mvt(handle_, z, x, y, layer.c_str(), out); });
    }
    /// {"total": ..., "options": {...}, "indexedTiles": [[z, x, y], ...]}
    std::string stats() const {
        return detail::take_text([&](mc_buf *out) { return mc_tile_index_stats(handle_, 0, out); });
    }
    mc_tile_index *handle() const noexcept { return handle_; }

  private:
    mc_tile_index *handle_ = nullptr;
};

/// Decodes Mapbox Vector Tile bytes (gzip or not) to {"layers": {name: {"version", "extent",
/// "features": FeatureCollection}}} text (include/mapcore/vector_tile.h): tile coordinates, or
/// longitude/latitude when `lnglat` is set and the tile's z/x/y are given.
inline std::string decode_mvt(std::string_view bytes, bool lnglat = false, int z = 0, int x = 0, int y = 0) {
    return detail::take_text([&](mc_buf *out) {
        return mc_mvt_decode(bytes.data(), bytes.size(), z, x, y, lnglat ? MC_MVT_LNGLAT : 0u, out);
    });
}

/// A vector tile source (include/mapcore/tilesource.h): options JSON with the style spec's names.
class VectorTileSource {
  public:
    explicit VectorTileSource(std::string_view options_json) {
        detail::check(mc_tile_source_new(options_json.data(), options_json.size(), &handle_));
    }
    VectorTileSource(VectorTileSource &&other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
    VectorTileSource &operator=(VectorTileSource &&other) noexcept {
        if (this != &other) {
            mc_tile_source_free(handle_);
            handle_ = std::exchange(other.handle_, nullptr);
        }
        return *this;
    }
    VectorTileSource(const VectorTileSource &) = delete;
    VectorTileSource &operator=(const VectorTileSource &) = delete;
    ~VectorTileSource() { mc_tile_source_free(handle_); }

    /// {"options": {...}, "tilejson": {...} or null}
    std::string info() const {
        return detail::take_text([&](mc_buf *out) { return mc_tile_source_info(handle_, 0, out); });
    }
    std::string tile_url(int z, int x, int y, double pixel_ratio = 1) const {
        return detail::take_text([&](mc_buf *out) { return mc_tile_source_url(handle_, z, x, y, pixel_ratio, out); });
    }
    /// [[z, x, y, overscaled_z], ...] closest to the centre first.
    std::string cover(const BBox &box, double zoom) const {
        const double b[4] = {box.west, box.south, box.east, box.north};
        return detail::take_text([&](mc_buf *out) { return mc_tile_source_cover(handle_, b, zoom, out); });
    }
    /// The tile's bytes (inflated unless raw); empty when there is no tile.
    std::string fetch(int z, int x, int y, bool raw = false) const {
        return detail::take_text(
            [&](mc_buf *out) { return mc_tile_source_fetch(handle_, z, x, y, raw ? MC_FETCH_RAW : 0u, out); });
    }
    /// A FeatureCollection of the tile's features (of one layer, or all when source_layer is empty).
    std::string features(int z, int x, int y, const std::string &source_layer = {}, bool lnglat = true) const {
        return detail::take_text([&](mc_buf *out) {
            return mc_tile_source_features(handle_, z, x, y, source_layer.empty() ? nullptr : source_layer.c_str(),
                                           lnglat ? MC_MVT_LNGLAT : 0u, out);
        });
    }
    /// MapLibre's querySourceFeatures as a FeatureCollection; filter_json empty keeps all.
    std::string query(const BBox &box, double zoom, const std::string &source_layer = {},
                      std::string_view filter_json = {}) const {
        const double b[4] = {box.west, box.south, box.east, box.north};
        return detail::take_text([&](mc_buf *out) {
            return mc_tile_source_query(handle_, b, zoom, source_layer.empty() ? nullptr : source_layer.c_str(),
                                        filter_json.empty() ? nullptr : filter_json.data(), filter_json.size(), 0u,
                                        out);
        });
    }
    mc_tile_source *handle() const noexcept { return handle_; }

  private:
    mc_tile_source *handle_ = nullptr;
};

/// A tile URL template expanded as MapLibre Native expands it.
inline std::string tile_url(std::string_view url_template, int z, int x, int y, bool tms = false,
                            double pixel_ratio = 1) {
    return detail::take_text([&](mc_buf *out) {
        return mc_tile_url_expand(url_template.data(), url_template.size(), z, x, y, tms ? 1 : 0, pixel_ratio, out);
    });
}

/// [[z, x, y], ...]: the tiles a box touches at zoom z, closest to its centre first.
inline std::string tile_cover(const BBox &box, int z) {
    const double b[4] = {box.west, box.south, box.east, box.north};
    return detail::take_text([&](mc_buf *out) { return mc_tile_cover(b, z, out); });
}

/// Writes a data source as a tileset (directory, .mbtiles or .pmtiles); returns the summary JSON.
inline std::string write_tiles(const DataSource &source, const std::string &path, std::string_view options_json = {}) {
    return detail::take_text([&](mc_buf *out) {
        return mc_tileset_write(source.handle(), path.c_str(), options_json.empty() ? nullptr : options_json.data(),
                                options_json.size(), out);
    });
}

/// Which grammar a format string is read with (include/mapcore/format.h).
enum class FormatKind { predicate = MC_FORMAT_PREDICATE, expression = MC_FORMAT_EXPRESSION };

/// The style-spec JSON a format string converts to (not compiled).
inline std::string format_to_json(std::string_view format, std::string_view args_json = {},
                                  FormatKind kind = FormatKind::predicate) {
    return detail::take_text([&](mc_buf *b) {
        return mc_format_to_json(format.data(), format.size(), args_json.empty() ? nullptr : args_json.data(),
                                 args_json.size(), static_cast<int>(kind), b);
    });
}

/// A format string and the JSON array of its placeholder arguments.
struct FormatString {
    std::string text;
    std::string args_json;
};

/// A format string for a JSON expression.
inline FormatString format_from_json(std::string_view json, FormatKind kind = FormatKind::expression) {
    mc_buf text = MC_BUF_INIT, args = MC_BUF_INIT;
    int st = mc_format_from_json(json.data(), json.size(), static_cast<int>(kind), &text, &args);
    FormatString out;
    if (st == MC_OK) out = {std::string(text.data, text.len), std::string(args.data, args.len)};
    mc_buf_dispose(&text);
    mc_buf_dispose(&args);
    detail::check(st);
    return out;
}

/// Builders for the SDK's NSExpression constructors. Arguments and results are JSON expression
/// text, ready for Expression(...).
namespace build {
namespace detail {
inline std::string number(double v) {
    char buf[32];
    auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
}
inline std::string list(std::string_view op, const std::vector<std::string> &items) {
    std::string out = "[\"" + std::string(op) + "\"";
    for (const auto &i : items) out += "," + i;
    return out + "]";
}
inline std::string stops(const std::vector<std::pair<double, std::string>> &pairs) {
    std::string out;
    for (const auto &p : pairs) out += "," + number(p.first) + "," + p.second;
    return out;
}
} // namespace detail

/// forAZMConditional:trueExpression:falseExpression:
inline std::string conditional(std::string_view condition, std::string_view if_true, std::string_view if_false) {
    return detail::list("case", {std::string(condition), std::string(if_true), std::string(if_false)});
}
/// forAZMMatchingKey:in:default: — each case is (label JSON, value JSON); a label may be an
/// array of labels, e.g. {"[\"a\",\"b\"]", "1"}.
inline std::string match(std::string_view input, const std::vector<std::pair<std::string, std::string>> &cases,
                         std::string_view fallback) {
    std::vector<std::string> items{std::string(input)};
    for (const auto &c : cases) {
        items.push_back(c.first);
        items.push_back(c.second);
    }
    items.emplace_back(fallback);
    return detail::list("match", items);
}
/// forAZMCoalescing:
inline std::string coalesce(const std::vector<std::string> &values) { return detail::list("coalesce", values); }
/// forAZMJoining:
inline std::string join(const std::vector<std::string> &values) { return detail::list("concat", values); }

/// The curve of interpolate(): linear, exponential with a base, cubic-bezier with four points.
struct Curve {
    std::string json;
    static Curve linear() { return {"[\"linear\"]"}; }
    static Curve exponential(double base) { return {"[\"exponential\"," + detail::number(base) + "]"}; }
    static Curve cubic_bezier(double x1, double y1, double x2, double y2) {
        return {"[\"cubic-bezier\"," + detail::number(x1) + "," + detail::number(y1) + "," + detail::number(x2) + "," +
                detail::number(y2) + "]"};
    }
};
/// forAZMInterpolating:curveType:parameters:stops: — stops in ascending input order.
inline std::string interpolate(std::string_view input, const Curve &curve,
                               const std::vector<std::pair<double, std::string>> &stops) {
    return "[\"interpolate\"," + curve.json + "," + std::string(input) + detail::stops(stops) + "]";
}
/// forAZMStepping:from:stops: — stops in ascending input order.
inline std::string step(std::string_view input, std::string_view from,
                        const std::vector<std::pair<double, std::string>> &stops) {
    return "[\"step\"," + std::string(input) + "," + std::string(from) + detail::stops(stops) + "]";
}
} // namespace build

} // namespace mapcore

#endif // MAPCORE_HPP
