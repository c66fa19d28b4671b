// What the C++ reference servers share: mapbox::feature values, properties, identifiers and tile
// points written with rapidjson (geometry.hpp 1.0.0's types, which geojson-vt-cpp 6.6.5 and
// supercluster.hpp 0.5.0 are built with).
#pragma once

#include <mapbox/feature.hpp>
#include <mapbox/geometry.hpp>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdint>
#include <string>
#include <vector>

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

inline void value(Writer& w, const mapbox::feature::value& v);

inline void properties(Writer& w, const mapbox::feature::property_map& m) {
    w.StartObject();
    for (const auto& kv : m) {
        w.Key(kv.first.data(), static_cast<rapidjson::SizeType>(kv.first.size()));
        value(w, kv.second);
    }
    w.EndObject();
}

struct ValueWriter {
    Writer& w;
    void operator()(mapbox::feature::null_value_t) const { w.Null(); }
    void operator()(bool b) const { w.Bool(b); }
    void operator()(uint64_t u) const { w.Uint64(u); }
    void operator()(int64_t i) const { w.Int64(i); }
    void operator()(double d) const { w.Double(d); }
    void operator()(const std::string& s) const { w.String(s.data(), static_cast<rapidjson::SizeType>(s.size())); }
    void operator()(const std::vector<mapbox::feature::value>& a) const {
        w.StartArray();
        for (const auto& e : a) value(w, e);
        w.EndArray();
    }
    void operator()(const mapbox::feature::property_map& m) const { properties(w, m); }
};

inline void value(Writer& w, const mapbox::feature::value& v) { mapbox::util::apply_visitor(ValueWriter{w}, v); }

// The "id" member, when the identifier is not null.
inline void identifier(Writer& w, const mapbox::feature::identifier& id) {
    if (id.is<mapbox::feature::null_value_t>()) return;
    w.Key("id");
    id.match([&](uint64_t u) { w.Uint64(u); }, [&](int64_t i) { w.Int64(i); }, [&](double d) { w.Double(d); },
             [&](const std::string& s) { w.String(s.data(), static_cast<rapidjson::SizeType>(s.size())); },
             [&](mapbox::feature::null_value_t) { w.Null(); });
}

using Point = mapbox::geometry::point<int16_t>;

// Tile points as [[x, y], ...].
inline void points(Writer& w, const std::vector<Point>& ps) {
    w.StartArray();
    for (const auto& p : ps) {
        w.StartArray();
        w.Int(p.x);
        w.Int(p.y);
        w.EndArray();
    }
    w.EndArray();
}
