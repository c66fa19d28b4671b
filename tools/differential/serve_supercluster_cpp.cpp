// supercluster.hpp 0.5.0 (what MapLibre Native vendors) for supercluster_cpp.py: one case a line on
// stdin ({"data": a FeatureCollection of Points, "options": {radius, extent, minZoom, maxZoom,
// minPoints, and optionally "sum": [name, property]}, "requests": [[z, x, y], ...], "clusters": K,
// "leaves": [[limit, offset], ...]}), one answer a line: {"tiles": [features, ...], "clusters":
// [{"id", "children", "leaves", "expansionZoom"}, ...]} for the first K clusters the tiles hold
// (the leaves' limit and offset taken in turn), or {"error"}. Tile features are written as
// geojson-vt JS writes a tile's ("type" 1, "geometry" [[x, y]], "tags", "id"), children and
// leaves as GeoJSON Point features. The build is in README.md.
#include <mapbox/geojson.hpp>
#include <mapbox/geojson_impl.hpp>
#include <supercluster.hpp>

#include "cpp_json.hpp"

#include <algorithm>

namespace sc = mapbox::supercluster;

static void tileFeature(Writer& w, const mapbox::feature::feature<int16_t>& f) {
    w.StartObject();
    w.Key("geometry");
    points(w, {f.geometry.get<Point>()});
    w.Key("type");
    w.Int(1);
    w.Key("tags");
    properties(w, f.properties);
    identifier(w, f.id);
    w.EndObject();
}

static void features(Writer& w, const mapbox::feature::feature_collection<double>& fs) {
    w.StartArray();
    for (const auto& f : fs) {
        const auto& p = f.geometry.get<mapbox::geometry::point<double>>();
        w.StartObject();
        w.Key("type");
        w.String("Feature");
        w.Key("geometry");
        w.StartObject();
        w.Key("type");
        w.String("Point");
        w.Key("coordinates");
        w.StartArray();
        w.Double(p.x);
        w.Double(p.y);
        w.EndArray();
        w.EndObject();
        w.Key("properties");
        properties(w, f.properties);
        identifier(w, f.id);
        w.EndObject();
    }
    w.EndArray();
}

static bool number(const mapbox::feature::value& v, double& out) {
    if (v.is<uint64_t>()) out = static_cast<double>(v.get<uint64_t>());
    else if (v.is<int64_t>()) out = static_cast<double>(v.get<int64_t>());
    else if (v.is<double>()) out = v.get<double>();
    else return false;
    return true;
}

// MapLibre Native's map and reduce for the clusterProperties {name: ["+", ["get", property]]}
// (its GeoJSON source evaluates the two expressions): a point without properties maps to none,
// else to its property (null when missing); a fold takes only what the other side holds, and a
// sum that is not of two numbers (an expression error) is null.
static void sum(sc::Options& out, const std::string& name, const std::string& property) {
    out.map = [name, property](const mapbox::feature::property_map& p) {
        mapbox::feature::property_map r;
        if (p.empty()) return r;
        const auto it = p.find(property);
        r[name] = it == p.end() ? mapbox::feature::value{} : it->second;
        return r;
    };
    out.reduce = [name](mapbox::feature::property_map& accumulated, const mapbox::feature::property_map& other) {
        const auto o = other.find(name);
        if (o == other.end()) return;
        const auto a = accumulated.find(name);
        double x = 0, y = 0;
        const bool numbers = a != accumulated.end() && number(a->second, x) && number(o->second, y);
        accumulated[name] = numbers ? mapbox::feature::value{x + y} : mapbox::feature::value{};
    };
}

static sc::Options options(const mapbox::geojson::rapidjson_value& o) {
    sc::Options out;
    out.radius = static_cast<std::uint16_t>(o["radius"].GetUint());
    out.extent = static_cast<std::uint16_t>(o["extent"].GetUint());
    out.minZoom = static_cast<std::uint8_t>(o["minZoom"].GetUint());
    out.maxZoom = static_cast<std::uint8_t>(o["maxZoom"].GetUint());
    out.minPoints = o["minPoints"].GetUint();
    if (o.HasMember("sum")) sum(out, o["sum"][0].GetString(), o["sum"][1].GetString());
    return out;
}

int main() {
    return serve([](const mapbox::geojson::rapidjson_document& c, Writer& w) {
        const auto data =
            mapbox::geojson::convert<mapbox::geojson::geojson>(c["data"]).get<mapbox::geojson::feature_collection>();
        sc::Supercluster index(data, options(c["options"]));
        std::vector<std::uint64_t> clusters;
        const std::size_t wanted = c["clusters"].GetUint();
        w.StartObject();
        w.Key("tiles");
        w.StartArray();
        for (const auto& r : c["requests"].GetArray()) {
            const auto tile = index.getTile(static_cast<std::uint8_t>(r[0].GetUint()), r[1].GetUint(), r[2].GetUint());
            w.StartArray();
            for (const auto& f : tile) {
                tileFeature(w, f);
                const auto cluster = f.properties.find("cluster");
                if (cluster != f.properties.end() && clusters.size() < wanted &&
                    std::find(clusters.begin(), clusters.end(), f.id.get<std::uint64_t>()) == clusters.end())
                    clusters.push_back(f.id.get<std::uint64_t>());
            }
            w.EndArray();
        }
        w.EndArray();
        w.Key("clusters");
        w.StartArray();
        const auto& leaves = c["leaves"];
        for (std::size_t i = 0; i < clusters.size(); i++) {
            const auto id = static_cast<std::uint32_t>(clusters[i]);
            const auto& page = leaves[static_cast<rapidjson::SizeType>(i % leaves.Size())];
            w.StartObject();
            w.Key("id");
            w.Uint(id);
            w.Key("children");
            features(w, index.getChildren(id));
            w.Key("leaves");
            features(w, index.getLeaves(id, page[0].GetUint(), page[1].GetUint()));
            w.Key("expansionZoom");
            w.Uint(index.getClusterExpansionZoom(id));
            w.EndObject();
        }
        w.EndArray();
        w.EndObject();
    });
}
