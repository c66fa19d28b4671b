// Fuzz target: style expressions and filters. Properties (issue 22): an expression that compiles
// serializes to JSON that compiles again, serializes the same, and evaluates the same on a few
// features; the same for legacy filters.
import MapCore

/// Made per input, not held in a global: LeakSanitizer does not see through the spare bits Swift
/// tags enum payloads with, so memory a global reaches that way is reported as leaked.
private func features() -> [Feature] {
    [
        #"{"type":"Feature","id":7,"geometry":{"type":"Point","coordinates":[1,2]},"#
            + #""properties":{"x":1,"s":"a","b":true}}"#,
        #"{"type":"Feature","geometry":{"type":"LineString","coordinates":[[0,0],[1,1]]},"#
            + #""properties":{"x":"2","a":[1,2]}}"#,
        #"{"type":"Feature","geometry":null,"properties":{}}"#,
    ].compactMap { text in
        if case .feature(let f)? = try? GeoJSONParser.parse(text) { return f }
        return nil
    }
}

private func check(_ json: JSONValue, spec: PropertySpec, legacy: Bool) {
    guard case .success(let e) = StyleExpression.compile(json, spec: spec, legacyFilters: legacy) else { return }
    let serialized = e.serialize()
    guard case .success(let again) = StyleExpression.compile(serialized, spec: spec) else {
        fatalError("serialized form does not compile: \(JSON.serialize(serialized))")
    }
    if again.serialize() != serialized {
        fatalError("serialization not stable: \(JSON.serialize(serialized))")
    }
    for f in features() {
        for zoom in [0.0, 7.5] {
            var ctx = EvaluationContext(zoom: zoom)
            ctx.setFeature(f)
            let a = try? e.evaluate(ctx).json(), b = try? again.evaluate(ctx).json()
            if a != b { fatalError("recompiled form evaluates differently: \(JSON.serialize(serialized))") }
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzExpression(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard let json = try? JSON.parse(UnsafeBufferPointer(start: data, count: size)) else { return 0 }
    check(json, spec: .default, legacy: false)
    check(json, spec: .filter, legacy: true)
    return 0
}
