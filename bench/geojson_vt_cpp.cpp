// geojson-vt-cpp timed beside bench_tiles.py's figures, as geojson_vt_node.mjs times geojson-vt JS:
// the median of 3 index builds with geojson-vt's defaults and with MapLibre's GeoJSON source options,
// then the tiles of zooms 0-8 that have data. geojson-vt-cpp is header-only; the build (docs/perf-log.md):
//   apt-get install rapidjson-dev   # geojson-cpp's parser
//   g++ -O3 -DNDEBUG -std=c++14 -I<geojson-vt-cpp>/include -I<geometry.hpp>/include -I<variant>/include \
//       -I<geojson-cpp>/include bench/geojson_vt_cpp.cpp -o build/geojson_vt_cpp
//   build/geojson_vt_cpp FILE.geojson [--first [maplibre]]
// With --first: only the process's first build (geojson-vt's defaults, or MapLibre's options), its
// wall time, CPU time and minor page faults, which bench/first_builds.py sets beside MapCore's and
// geojson-vt JS's.
#include <mapbox/geojson.hpp>
#include <mapbox/geojson_impl.hpp>
#include <mapbox/geojsonvt.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include <sys/resource.h>

namespace vt = mapbox::geojsonvt;

static double seconds(std::chrono::steady_clock::time_point since) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

static double medianBuild(const mapbox::geojson::feature_collection& features, const vt::Options& options) {
    std::vector<double> times;
    for (int i = 0; i < 3; i++) {
        const auto start = std::chrono::steady_clock::now();
        vt::GeoJSONVT index{features, options};
        times.push_back(seconds(start));
    }
    std::sort(times.begin(), times.end());
    return times[1];
}

// CPU seconds of the process so far, and its minor page faults.
static double cpuSeconds(long* faults) {
    rusage r{};
    getrusage(RUSAGE_SELF, &r);
    *faults = r.ru_minflt;
    return double(r.ru_utime.tv_sec + r.ru_stime.tv_sec) + double(r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e6;
}

int main(int argc, char* argv[]) {
    const bool first = (argc == 3 || argc == 4) && std::strcmp(argv[2], "--first") == 0 &&
                       (argc == 3 || std::strcmp(argv[3], "maplibre") == 0);
    if (argc != 2 && !first) {
        std::fprintf(stderr, "usage: %s FILE.geojson [--first [maplibre]]\n", argv[0]);
        return 2;
    }
    std::ifstream in(argv[1]);
    std::stringstream text;
    text << in.rdbuf();
    const auto features = mapbox::geojson::parse(text.str()).get<mapbox::geojson::feature_collection>();

    vt::Options defaults;
    vt::Options maplibre;
    maplibre.extent = 8192;
    maplibre.buffer = 2048;
    maplibre.tolerance = 6;
    maplibre.maxZoom = 18;
    if (first) {
        long faultsBefore = 0, faultsAfter = 0;
        const double cpu = cpuSeconds(&faultsBefore);
        const auto start = std::chrono::steady_clock::now();
        vt::GeoJSONVT index{features, argc == 4 ? maplibre : defaults};
        const double wall = seconds(start);
        const double used = cpuSeconds(&faultsAfter) - cpu;
        std::printf("first %.1f ms, cpu %.1f ms, faults %ld\n", wall * 1e3, used * 1e3, faultsAfter - faultsBefore);
        return 0;
    }
    const double tDefault = medianBuild(features, defaults);
    const double tMapLibre = medianBuild(features, maplibre);

    vt::GeoJSONVT index{features, defaults};
    std::size_t tiles = 0;
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::array<uint32_t, 3>> frontier{{0, 0, 0}};
    while (!frontier.empty()) {
        const auto t = frontier.back();
        frontier.pop_back();
        const auto& tile = index.getTile(t[0], t[1], t[2]);
        if (tile.features.empty()) continue;
        tiles++;
        if (t[0] < 8) {
            for (uint32_t dx = 0; dx < 2; dx++)
                for (uint32_t dy = 0; dy < 2; dy++) frontier.push_back({t[0] + 1, 2 * t[1] + dx, 2 * t[2] + dy});
        }
    }
    const double tTiles = seconds(start);
    std::printf("{\"features\":%zu,\"buildDefaultMs\":%.1f,\"buildMapLibreMs\":%.1f,"
                "\"tilesZ0to8\":%zu,\"tilesMs\":%.1f}\n",
                features.size(), tDefault * 1e3, tMapLibre * 1e3, tiles, tTiles * 1e3);
    return 0;
}
