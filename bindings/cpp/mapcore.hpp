// MapCore C++17 wrapper: header-only RAII over include/mapcore.h.
// Handles free themselves in destructors; failing calls throw mapcore::Error.
#ifndef MAPCORE_HPP
#define MAPCORE_HPP

#include <mapcore.h>

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
        : std::runtime_error(describe(e)), code_(e.code), message_(e.message), path_(e.path),
          offset_(e.offset), line_(e.line), column_(e.column) {}

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
            s += " (line " + std::to_string(e.line) + ", column " + std::to_string(e.column) + ", at " + e.path + ")";
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
    static GeoJSON parse(std::string_view json, unsigned max_depth = 0) {
        mc_parse_options options = MC_PARSE_OPTIONS_INIT;
        options.max_depth = max_depth;
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
    std::string to_json() const { return take([&](mc_buf *b) { return mc_expression_serialize(handle_, b); }); }
    std::string type() const { return take([&](mc_buf *b) { return mc_expression_type(handle_, b); }); }
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
    template <class Fill> static std::string take(Fill fill) {
        mc_buf buf = MC_BUF_INIT;
        int st = fill(&buf);
        std::string out = st == MC_OK ? std::string(buf.data, buf.len) : std::string();
        mc_buf_dispose(&buf);
        detail::check(st);
        return out;
    }
    mc_expression *handle_ = nullptr;
};

} // namespace mapcore

#endif // MAPCORE_HPP
