// What the C++ reference servers share: their loop over the cases, and mapbox::feature values,
// properties, identifiers and tile points written with rapidjson (geometry.hpp 1.0.0's types,
// which geojson-vt-cpp 6.6.5 and supercluster.hpp 0.5.0 are built with).
#pragma once

#include <mapbox/feature.hpp>
#include <mapbox/geojson/rapidjson.hpp>
#include <mapbox/geometry.hpp>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdint>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

// Answers each line of stdin, a case, with a line: what `answer(case, writer)` writes, or
// {"error": ...} when it throws. Cases are parsed with full precision: rapidjson's default parse
// is an ulp off in some coordinates, which moves line metrics and Douglas-Peucker ties (MapCore's
// parser is exact).
template <class Answer>
int serve(Answer answer) {
    std::string line;
    while (std::getline(std::cin, line)) {
        rapidjson::StringBuffer out;
        try {
            Writer w(out);
            mapbox::geojson::rapidjson_document c;
            c.Parse<rapidjson::kParseFullPrecisionFlag>(line.c_str());
            answer(c, w);
        } catch (const std::exception& e) {
            out.Clear();
            Writer w(out);
            w.StartObject();
            w.Key("error");
            w.String(e.what());
            w.EndObject();
        }
        std::cout << out.GetString() << "\n" << std::flush;
    }
    return 0;
}

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
