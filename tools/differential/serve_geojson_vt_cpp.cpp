// geojson-vt-cpp (the version MapLibre Native vendors) for geojson_vt_cpp.py: one case a line on
// stdin ({"data", "options", "requests": [[z, x, y], ...]}), one answer a line ({"tiles": [features,
// ...]} or {"error"}). A tile's features are written as geojson-vt JS writes a tile's: "type" 1, 2
// or 3, "geometry" a list of points (type 1) or of lines and rings (2 and 3; a MultiPolygon's rings
// one after another), "tags", and "id" when it has one; a feature whose geometry is empty has type
// 0 (geojson-vt JS makes none). The build is in README.md.
#include <mapbox/geojson.hpp>
#include <mapbox/geojson_impl.hpp>
#include <mapbox/geojsonvt.hpp>

#include "cpp_json.hpp"


namespace vt = mapbox::geojsonvt;

// The feature's type and its geometry in geojson-vt JS's tile form.
struct GeometryWriter {
    Writer& w;
    int operator()(const mapbox::geometry::empty&) const {
        w.StartArray();
        w.EndArray();
        return 0;
    }
    int operator()(const mapbox::geometry::point<int16_t>& p) const {
        points(w, {p});
        return 1;
    }
    int operator()(const mapbox::geometry::multi_point<int16_t>& ps) const {
        points(w, ps);
        return 1;
    }
    int operator()(const mapbox::geometry::line_string<int16_t>& l) const {
        w.StartArray();
        points(w, l);
        w.EndArray();
        return 2;
    }
    int operator()(const mapbox::geometry::multi_line_string<int16_t>& ls) const {
        w.StartArray();
        for (const auto& l : ls) points(w, l);
        w.EndArray();
        return 2;
    }
    int operator()(const mapbox::geometry::polygon<int16_t>& p) const {
        w.StartArray();
        for (const auto& r : p) points(w, r);
        w.EndArray();
        return 3;
    }
    int operator()(const mapbox::geometry::multi_polygon<int16_t>& ps) const {
        w.StartArray();
        for (const auto& p : ps)
            for (const auto& r : p) points(w, r);
        w.EndArray();
        return 3;
    }
    int operator()(const mapbox::geometry::geometry_collection<int16_t>&) const {
        // geojson-vt-cpp writes a collection's members as features of their own.
        w.StartArray();
        w.EndArray();
        return -1;
    }
};

static void feature(Writer& w, const mapbox::feature::feature<int16_t>& f) {
    w.StartObject();
    w.Key("geometry");
    const int type = mapbox::util::apply_visitor(GeometryWriter{w}, f.geometry);
    w.Key("type");
    w.Int(type);
    w.Key("tags");
    properties(w, f.properties);
    identifier(w, f.id);
    w.EndObject();
}

static vt::Options options(const mapbox::geojson::rapidjson_value& o) {
    vt::Options out;
    if (o.HasMember("maxZoom")) out.maxZoom = static_cast<uint8_t>(o["maxZoom"].GetInt());
    if (o.HasMember("indexMaxZoom")) out.indexMaxZoom = static_cast<uint8_t>(o["indexMaxZoom"].GetInt());
    if (o.HasMember("indexMaxPoints")) out.indexMaxPoints = static_cast<uint32_t>(o["indexMaxPoints"].GetUint());
    if (o.HasMember("tolerance")) out.tolerance = o["tolerance"].GetDouble();
    if (o.HasMember("extent")) out.extent = static_cast<uint16_t>(o["extent"].GetUint());
    if (o.HasMember("buffer")) out.buffer = static_cast<uint16_t>(o["buffer"].GetUint());
    if (o.HasMember("lineMetrics")) out.lineMetrics = o["lineMetrics"].GetBool();
    if (o.HasMember("generateId")) out.generateId = o["generateId"].GetBool();
    return out;
}

int main() {
    return serve([](const mapbox::geojson::rapidjson_document& c, Writer& w) {
        vt::GeoJSONVT index(mapbox::geojson::convert<mapbox::geojson::geojson>(c["data"]), options(c["options"]));
        w.StartObject();
        w.Key("tiles");
        w.StartArray();
        for (const auto& r : c["requests"].GetArray()) {
            const auto& tile = index.getTile(static_cast<uint8_t>(r[0].GetInt()), r[1].GetUint(), r[2].GetUint());
            w.StartArray();
            for (const auto& f : tile.features) feature(w, f);
            w.EndArray();
        }
        w.EndArray();
        w.EndObject();
    });
}
