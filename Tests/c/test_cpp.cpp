// Tests of the header-only C++ wrapper (bindings/cpp/mapcore.hpp). Prints "N passed, M failed".
#include <cmath>
#include "mapcore.hpp"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>

#include <unistd.h>

static int passed = 0, failed = 0;
#define CHECK(cond)                                                                                                    \
    do {                                                                                                               \
        if (cond) {                                                                                                    \
            ++passed;                                                                                                  \
        } else {                                                                                                       \
            ++failed;                                                                                                  \
            std::printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);                                                \
        }                                                                                                              \
    } while (0)

int main(int argc, char **argv) {
    std::string dir = argc > 1 ? argv[1] : ".";
    CHECK(mapcore::version() == MC_VERSION);

    auto g = mapcore::GeoJSON::parse(R"({"type":"MultiPoint","coordinates":[[0,0],[2,0],[2,2],[0,2],[1,1]]})");
    CHECK(g.kind() == MC_GEOJSON_GEOMETRY);
    CHECK(g.geometry_type() == MC_GEOMETRY_MULTI_POINT);
    auto box = g.bbox();
    CHECK(box && box->west == 0 && box->south == 0 && box->east == 2 && box->north == 2);
    auto pts = g.positions();
    CHECK(pts.size() == 5 && pts[4].lon == 1 && pts[4].lat == 1);
    auto hull = g.convex_hull();
    CHECK(hull && hull->to_json() == R"({"type":"Polygon","coordinates":[[[0,0],[2,0],[2,2],[0,2],[0,0]]]})");

    // Move semantics: the moved-from handle is empty and freeing it is harmless.
    mapcore::GeoJSON moved = std::move(g);
    CHECK(moved.feature_count() == 0);
    try {
        (void)g.kind();
        CHECK(false);
    } catch (const mapcore::Error &e) {
        CHECK(e.code() == MC_E_MISUSE);
    }

    try {
        mapcore::GeoJSON::parse("{\"type\":\"Point\",\n\"coordinates\":[1,true]}");
        CHECK(false);
    } catch (const mapcore::Error &e) {
        CHECK(e.code() == MC_E_INVALID_GEOJSON);
        CHECK(e.line() == 2 && e.column() == 18);
        CHECK(e.path() == "$.coordinates[1]");
    }

    auto empty = mapcore::GeoJSON::parse(R"({"type":"FeatureCollection","features":[]})");
    CHECK(!empty.bbox());
    CHECK(!empty.convex_hull());

    mapcore::BBox cross{170, -10, -170, 10};
    CHECK(cross.crosses_antimeridian());
    CHECK(cross.contains(-175, 0));
    CHECK(cross.split_antimeridian().size() == 2);
    CHECK(cross.intersects(mapcore::BBox{-175, 0, -160, 5}));
    auto merged = mapcore::BBox{0, 0, 1, 1}.merged(mapcore::BBox{2, 2, 3, 3});
    CHECK(merged.west == 0 && merged.north == 3);

    auto flat = mapcore::convex_hull({{0, 0}, {1, 1}, {2, 2}});
    CHECK(flat.size() == 2 && flat[1].lon == 2);
    CHECK(mapcore::bbox({{3, 4}})->east == 3);
    CHECK(!mapcore::bbox({}));

    std::ifstream in(dir + "/places.geojson");
    std::stringstream ss;
    ss << in.rdbuf();
    auto places = mapcore::GeoJSON::parse(ss.str());
    CHECK(places.feature_count() == 163);
    CHECK(mapcore::GeoJSON::parse(R"({"type":"Point","coordinates":[1,2.5]})").to_msgpack() ==
          std::string("\xdf\x00\x00\x00\x02\xa4type\xa5Point\xab"
                      "coordinates\xdd\x00\x00\x00\x02\x01\xcb\x40\x04\x00\x00\x00\x00\x00\x00",
                      43));
    auto round = mapcore::GeoJSON::parse(places.to_json(true));
    CHECK(round.to_json() == places.to_json());

    // Expressions: evaluate, filters, batches, errors as exceptions.
    {
        mapcore::Expression e(R"(["*", ["get", "v"], 2])");
        CHECK(e.type() == "number");
        CHECK(!e.is_feature_constant() && e.is_zoom_constant());
        CHECK(e.evaluate(R"({"type":"Feature","geometry":null,"properties":{"v":21}})") == "42");
        auto fc = mapcore::GeoJSON::parse(
            R"({"type":"FeatureCollection","features":[{"type":"Feature","geometry":null,"properties":{"v":1}},)"
            R"({"type":"Feature","geometry":null,"properties":{}}]})");
        auto values = e.evaluate_numbers(fc);
        CHECK(values.size() == 2 && values[0] == 2 && std::isnan(values[1]));
        auto f = mapcore::Expression::filter(R"(["==", "kind", "park"])");
        CHECK(f.matches(R"({"type":"Feature","geometry":null,"properties":{"kind":"park"}})"));
        CHECK(!f.matches(R"({"type":"Feature","geometry":null,"properties":{"kind":"lake"}})"));
        bool threw = false;
        try {
            mapcore::Expression bad(R"(["+", 1, "x"])");
        } catch (const mapcore::Error &err) {
            threw = err.code() == MC_E_EXPRESSION && err.path() == "[2]";
        }
        CHECK(threw);
        threw = false;
        try {
            e.evaluate(R"({"type":"Feature","geometry":null,"properties":{}})");
        } catch (const mapcore::Error &err) {
            threw = err.code() == MC_E_EVALUATION;
        }
        CHECK(threw);
    }

    // Clustering: the supercluster index and the data source, errors as exceptions.
    {
        mapcore::ClusterIndex index;
        index.load(places);
        auto top = index.clusters_flat(mapcore::BBox{-180, -85, 180, 85}, 0);
        long long total = 0;
        for (const auto &item : top) total += item.point_count;
        CHECK(top.size() == 32 && total == 162 && top[0].id == 164);
        CHECK(index.expansion_zoom(164) == 1);
        CHECK(index.leaves_flat(164).size() == 16);
        CHECK(index.children_flat(164).size() == 4);
        const auto named = index.features({164, 0});
        const auto niagara = named.find("Niagara Falls");
        CHECK(niagara != std::string::npos && named.find("\"cluster_id\":164") < niagara);
        const auto packed = index.features({164, 0}, true);
        CHECK(packed.size() > 5 && static_cast<unsigned char>(packed[0]) == 0xDF &&
              packed.find("Niagara Falls") != std::string::npos);
        CHECK(index.leaves(164, mc_page{5, 1}).find("Niagara Falls") != std::string::npos);
        CHECK(index.tile(0, 0, 0).rfind("{\"features\":[{\"type\":1,\"geometry\":[[150,205]]", 0) == 0);
        CHECK(index.tile(14, 0, 0) == "null");
        CHECK(index.cluster_hull(164).find("Polygon") != std::string::npos);
        bool threw = false;
        try {
            index.children(3);
        } catch (const mapcore::Error &err) {
            threw = err.code() == MC_E_NOT_FOUND;
        }
        CHECK(threw);

        mapcore::DataSource source(
            R"({"cluster": true, "clusterProperties": {"rank": ["max", ["get", "scalerank"]]}})");
        source.add(places);
        CHECK(source.size() == 163);
        CHECK(source.get("737").value_or("").find("Cape Reinga") != std::string::npos);
        CHECK(!source.get("\"nope\""));
        auto view = source.cluster_index();
        const auto before = view.clusters_flat(mapcore::BBox{-180, -85, 180, 85}, 0).size();
        CHECK(before > 0 && before < 162);
        CHECK(source.remove("737") == 1 && source.size() == 162);
        source.clear();
        CHECK(source.size() == 0 && view.clusters_flat(mapcore::BBox{-180, -85, 180, 85}, 0).size() == before);
        CHECK(view.clusters(mapcore::BBox{-180, -85, 180, 85}, 0).find("\"rank\":") != std::string::npos);
        threw = false;
        try {
            source.add(mapcore::GeoJSON::parse(R"({"type":"LineString","coordinates":[[0,0],[1,1]]})"));
        } catch (const mapcore::Error &err) {
            threw = err.code() == MC_E_UNSUPPORTED;
        }
        CHECK(threw && source.size() == 0);
        source.import_data(dir + "/places.geojson");
        CHECK(source.size() == 163);
        // A clustered source's tiles: supercluster's tile JSON and the same points as MVT.
        CHECK(source.tile(0, 0, 0).find("\"point_count\":") != std::string::npos);
        const std::string mvt = source.tile_mvt(0, 0, 0, "places");
        CHECK(!mvt.empty() && mapcore::decode_mvt(mvt).find("\"places\"") != std::string::npos);
        CHECK(source.tile_mvt(3, 0, 0).empty());
    }
    // geojson-vt tiling and MVT decoding.
    {
        auto square = mapcore::GeoJSON::parse(
            R"({"type":"Polygon","coordinates":[[[42.1875,57.32652122521708],[47.8125,57.32652122521708],)"
            R"([47.8125,54.16243396806781],[42.1875,54.16243396806781],[42.1875,57.32652122521708]]]})");
        mapcore::GeoJSONVT tiles(square, R"({"buffer": 1024})");
        CHECK(tiles.tile(5, 19, 9).find("[[[3072,3072],[5120,3072],[5120,5120],[3072,5120],[3072,3072]]]") !=
              std::string::npos);
        CHECK(tiles.tile(5, 0, 0) == "null");
        const std::string mvt = tiles.tile_mvt(5, 19, 9);
        CHECK(mapcore::decode_mvt(mvt).find("\"Polygon\"") != std::string::npos);
        CHECK(mapcore::decode_mvt(mvt, true, 5, 19, 9).find("42.1875") != std::string::npos);
        bool threw = false;
        try {
            mapcore::decode_mvt(mvt.substr(0, mvt.size() - 3));
        } catch (const mapcore::Error &err) {
            threw = err.code() == MC_E_PARSE;
        }
        CHECK(threw);
        // An extent in the billions: JSON tiles, but no MVT (its coordinates are sint32).
        mapcore::GeoJSONVT huge(square, R"({"extent": 8589934592})");
        CHECK(huge.tile(0, 0, 0).find("\"type\":3") != std::string::npos);
        threw = false;
        try {
            huge.tile_mvt(0, 0, 0);
        } catch (const mapcore::Error &err) {
            threw = err.code() == MC_E_INVALID_ARGUMENT;
        }
        CHECK(threw);
    }
    // Vector tile sources and tilesets.
    {
        CHECK(mapcore::tile_url("{quadkey}", 17, 22914, 52870) == "02301322130000230");
        CHECK(mapcore::tile_cover({-122.5744, 37.6609, -122.3204, 37.8271}, 10) ==
              "[[10,163,395],[10,163,396],[10,164,395],[10,164,396]]");
        mapcore::DataSource states;
        states.import_data(dir + "/../Tests/fixtures/geojson-vt/us-states.json");
        // Named per process: ctest -j runs this test and its valgrind run side by side.
        const std::string path = "/tmp/mapcore-cpp-test-" + std::to_string(getpid()) + ".mbtiles";
        CHECK(mapcore::write_tiles(states, path, R"({"maxzoom": 2, "layer": "states"})").find("\"tiles\":13") !=
              std::string::npos);
        mapcore::VectorTileSource source(R"({"url": ")" + path + "\"}");
        CHECK(source.info().find("\"maxzoom\":2") != std::string::npos);
        CHECK(!source.fetch(0, 0, 0).empty() && source.fetch(2, 3, 3).empty());
        CHECK(source.features(0, 0, 0, "states").find("\"Texas\"") != std::string::npos);
        CHECK(source.query({-105, 27, -95, 35}, 2, "states", R"(["==", ["get", "name"], "Texas"])").find("Oklahoma") ==
              std::string::npos);
        CHECK(source.tile_url(1, 0, 1) == "mbtiles://" + path + "/1/0/1");
        std::remove(path.c_str());
        bool threw = false;
        try {
            mapcore::VectorTileSource bad(R"({"tiles": ["t"], "scheme": "wms"})");
        } catch (const mapcore::Error &err) {
            threw = err.code() == MC_E_INVALID_ARGUMENT;
        }
        CHECK(threw);
    }
    // Live updates: a GL JS diff, versions, a frozen snapshot, the tiles a write changed.
    {
        mapcore::DataSource live;
        live.update_data(R"({"add": [{"type": "Feature", "id": "a", "properties": {},
                                      "geometry": {"type": "Point", "coordinates": [10, 20]}}]})");
        auto frozen = live.snapshot();
        live.update_data(R"({"update": [{"id": "a", "addOrUpdateProperties": [{"key": "k", "value": 1}]}]})");
        CHECK(live.version() == 2 && frozen.version() == 1);
        CHECK(live.get("\"a\"")->find("\"k\":1") != std::string::npos);
        CHECK(frozen.get("\"a\"")->find("\"k\"") == std::string::npos);
        CHECK(live.changes(1).find("[10,20,10,20]") != std::string::npos);
        CHECK(live.tile_changed(1, 0, 0, 0) && !live.tile_changed(1, 6, 0, 0));
        bool threw = false;
        try {
            frozen.update_data(R"({"removeAll": true})");
        } catch (const mapcore::Error &err) {
            threw = err.code() == MC_E_UNSUPPORTED;
        }
        CHECK(threw && live.size() == 1);
    }
    // Format strings: compile, convert both ways, build.
    {
        auto p = mapcore::Expression::predicate("temperature >= %@ AND name CONTAINS 'Izzy'", "[100]");
        CHECK(p.matches(R"({"type":"Feature","geometry":null,"properties":{"temperature":120,"name":"Izzy's"}})"));
        CHECK(!p.matches(R"({"type":"Feature","geometry":null,"properties":{"temperature":99,"name":"Izzy's"}})"));
        auto e = mapcore::Expression::from_format("MGL_MATCH(x, 0, 'zero', 'default')");
        CHECK(e.evaluate(R"({"type":"Feature","geometry":null,"properties":{"x":0}})") == "\"zero\"");
        CHECK(mapcore::format_to_json("uppercase(name)", {}, mapcore::FormatKind::expression) ==
              R"(["upcase",["get","name"]])");
        auto f =
            mapcore::format_from_json(R"(["==", ["get", "ISO 3166-1:2006"], "US-OH"])", mapcore::FormatKind::predicate);
        CHECK(f.text == "%K == 'US-OH'" && f.args_json == R"(["ISO 3166-1:2006"])");
        try {
            mapcore::Expression::predicate("name == 'Izzy");
            CHECK(false);
        } catch (const mapcore::Error &err) {
            CHECK(err.code() == MC_E_PARSE && err.offset() == 8);
        }
        namespace b = mapcore::build;
        const char *feature = R"({"type":"Feature","geometry":null,"properties":{"x":5,"kind":"b"}})";
        CHECK(mapcore::Expression(b::conditional(R"([">", ["get", "x"], 3])", "\"big\"", "\"small\""))
                  .evaluate(feature) == "\"big\"");
        CHECK(mapcore::Expression(b::match(R"(["get", "kind"])", {{R"(["a","b"])", "1"}, {"\"c\"", "2"}}, "0"))
                  .evaluate(feature) == "1");
        CHECK(mapcore::Expression(b::coalesce({R"(["get", "none"])", "7"})).evaluate(feature) == "7");
        CHECK(mapcore::Expression(b::join({"\"x=\"", R"(["to-string", ["get", "x"]])"})).evaluate(feature) ==
              "\"x=5\"");
        CHECK(mapcore::Expression(b::interpolate(R"(["get", "x"])", b::Curve::linear(), {{0, "0"}, {10, "100"}}))
                  .evaluate(feature) == "50");
        CHECK(mapcore::Expression(b::interpolate(R"(["get", "x"])", b::Curve::exponential(1), {{0, "0"}, {10, "100"}}))
                  .evaluate(feature) == "50");
        CHECK(b::interpolate("1", b::Curve::cubic_bezier(0.42, 0, 0.58, 1), {{0, "0"}}) ==
              R"(["interpolate",["cubic-bezier",0.42,0,0.58,1],1,0,0])");
        CHECK(mapcore::Expression(b::step(R"(["get", "x"])", "\"low\"", {{3, "\"mid\""}, {8, "\"high\""}}))
                  .evaluate(feature) == "\"mid\"");
    }

    std::printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
