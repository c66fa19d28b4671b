// C boundary for include/mapcore/expression.h: compile, evaluate (one feature or a batch into
// typed arrays), serialize and inspect expressions.
import CMapCoreABI
import MapCore

func expressionHandle(_ handle: OpaquePointer?) throws(MapCoreError) -> StyleExpression {
    guard let h = handles.lookup(handle, kind: .expression, as: StyleExpression.self) else {
        throw misuse("mc_expression")
    }
    return h
}

func parseJSON(_ data: UnsafePointer<CChar>?, _ len: Int, _ name: StaticString) throws(MapCoreError) -> JSONValue {
    try JSON.parse(try inputBytes(data, len, name))
}

@_cdecl("mc_expression_compile")
public func mc_expression_compile(
    _ json: UnsafePointer<CChar>?, _ len: Int, _ spec: UnsafePointer<CChar>?, _ specLen: Int,
    _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
    boundary { () throws(MapCoreError) in
        let out = try required(out, "out")
        let value = try parseJSON(json, len, "json")
        var propertySpec = PropertySpec.default
        if spec != nil || specLen != 0 {
            propertySpec = try PropertySpec(json: try parseJSON(spec, specLen, "property_spec"))
        }
        out.pointee = handles.register(try StyleExpression.compiled(value, spec: propertySpec), kind: .expression)
    }
}

@_cdecl("mc_filter_compile")
public func mc_filter_compile(
    _ json: UnsafePointer<CChar>?, _ len: Int, _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
    boundary { () throws(MapCoreError) in
        let out = try required(out, "out")
        let value = try parseJSON(json, len, "json")
        out.pointee = handles.register(
            try StyleExpression.compiled(value, spec: .filter, legacyFilters: true), kind: .expression)
    }
}

@_cdecl("mc_expression_free")
public func mc_expression_free(_ handle: OpaquePointer?) {
    handles.release(handle, kind: .expression)
}

/// The evaluation context a C caller described (feature not included).
private func evaluationContext(_ c: UnsafePointer<mc_eval_context>?) throws(MapCoreError) -> EvaluationContext {
    var ctx = EvaluationContext()
    guard let c else { return ctx }
    let v = c.pointee
    guard v.version >= 1 else {
        throw MapCoreError(.invalidArgument, "mc_eval_context.version must be set (use MC_EVAL_CONTEXT_INIT).")
    }
    if v.has_zoom != 0 { ctx.zoom = v.zoom }
    if v.has_heatmap_density != 0 { ctx.heatmapDensity = v.heatmap_density }
    if v.has_line_progress != 0 { ctx.lineProgress = v.line_progress }
    if v.has_elevation != 0 { ctx.elevation = v.elevation }
    func object(_ p: UnsafePointer<CChar>?, _ n: Int, _ name: StaticString) throws(MapCoreError) -> JSONObject? {
        guard p != nil || n != 0 else { return nil }
        guard case .object(let o) = try parseJSON(p, n, name) else {
            throw MapCoreError(.invalidArgument, "mc_eval_context.\(name) must be a JSON object.")
        }
        return o
    }
    ctx.featureState = try object(v.feature_state, v.feature_state_len, "feature_state")
    ctx.globalState = try object(v.global_state, v.global_state_len, "global_state")
    if v.available_images != nil || v.available_images_len != 0 {
        guard case .array(let names) = try parseJSON(v.available_images, v.available_images_len, "available_images")
        else {
            throw MapCoreError(.invalidArgument, "mc_eval_context.available_images must be a JSON array of strings.")
        }
        ctx.availableImages = names.compactMap(\.stringValue)
    }
    if v.accumulated != nil || v.accumulated_len != 0 {
        ctx.accumulated = ExpressionValue(json: try parseJSON(v.accumulated, v.accumulated_len, "accumulated"))
    }
    if v.has_canonical != 0 {
        guard (0...30).contains(v.canonical_z), v.canonical_x >= 0, v.canonical_y >= 0,
            Int(v.canonical_x) < (1 << Int(v.canonical_z)), Int(v.canonical_y) < (1 << Int(v.canonical_z))
        else {
            throw MapCoreError(
                .invalidArgument,
                "mc_eval_context canonical tile \(v.canonical_z)/\(v.canonical_x)/\(v.canonical_y) is not a valid tile."
            )
        }
        ctx.canonical = CanonicalTileID(z: Int(v.canonical_z), x: Int(v.canonical_x), y: Int(v.canonical_y))
    }
    return ctx
}

/// Puts the feature given as GeoJSON text (Feature or geometry) into the context, read leniently
/// as MapLibre reads the features it evaluates (rings of under 4 positions or unclosed).
private func withFeature(_ ctx: inout EvaluationContext, _ text: UnsafePointer<CChar>?, _ len: Int) throws(MapCoreError)
{
    guard text != nil || len != 0 else { return }
    switch try GeoJSONParser.parse(try inputBytes(text, len, "feature"), limits: .lenientGeoJSON) {
    case .feature(let f): ctx.setFeature(f)
    case .geometry(let g): ctx.setFeature(Feature(geometry: g))
    case .featureCollection:
        throw MapCoreError(
            .invalidArgument,
            "feature must be one Feature or geometry; use the batch functions for a FeatureCollection.")
    }
}

private func evaluate(_ e: StyleExpression, _ ctx: EvaluationContext) throws(MapCoreError) -> ExpressionValue {
    do {
        return try e.evaluate(ctx)
    } catch {
        throw MapCoreError(.evaluation, error.message)
    }
}

@_cdecl("mc_expression_evaluate")
public func mc_expression_evaluate(
    _ handle: OpaquePointer?, _ feature: UnsafePointer<CChar>?, _ featureLen: Int,
    _ context: UnsafePointer<mc_eval_context>?, _ out: UnsafeMutablePointer<mc_buf>?
) -> Int32 {
    boundary { () throws(MapCoreError) in
        let e = try expressionHandle(handle)
        let out = try required(out, "out")
        var ctx = try evaluationContext(context)
        try withFeature(&ctx, feature, featureLen)
        let value = try evaluate(e, ctx)
        var w = JSONWriter()
        w.writeValue(value.json())
        try fill(out, with: w.bytes)
    }
}

@_cdecl("mc_expression_matches")
public func mc_expression_matches(
    _ handle: OpaquePointer?, _ feature: UnsafePointer<CChar>?, _ featureLen: Int,
    _ context: UnsafePointer<mc_eval_context>?, _ out: UnsafeMutablePointer<Int32>?
) -> Int32 {
    boundary { () throws(MapCoreError) in
        let e = try expressionHandle(handle)
        let out = try required(out, "out_match")
        out.pointee = 0
        var ctx = try evaluationContext(context)
        try withFeature(&ctx, feature, featureLen)
        guard case .boolean(let b) = try evaluate(e, ctx) else {
            throw MapCoreError(.type, "The expression gives \(e.type), not a boolean.")
        }
        out.pointee = b ? 1 : 0
    }
}

/// Evaluates over every feature of a GeoJSON handle after checking the caller's capacity.
private func batch(
    _ handle: OpaquePointer?, _ features: OpaquePointer?, _ context: UnsafePointer<mc_eval_context>?,
    _ capacity: Int, _ outCount: UnsafeMutablePointer<Int>?, _ errors: UnsafeMutablePointer<UInt8>?,
    _ output: BatchOutput?
) throws(MapCoreError) {
    let e = try expressionHandle(handle)
    let table = try geojsonHandle(features).table
    let outCount = try required(outCount, "out_count")
    guard capacity >= 0 else { throw MapCoreError(.invalidArgument, "capacity is too large.") }
    let ctx = try evaluationContext(context)
    outCount.pointee = table.count
    guard capacity >= table.count else {
        throw MapCoreError(.bufferTooSmall, "The arrays hold \(capacity) features; \(table.count) are needed.")
    }
    guard let output else {
        guard table.count == 0 else { throw MapCoreError(.invalidArgument, "out must not be NULL.") }
        return
    }
    e.evaluate(over: table, context: ctx, into: output, errors: errors)
}

@_cdecl("mc_expression_evaluate_numbers")
public func mc_expression_evaluate_numbers(
    _ handle: OpaquePointer?, _ features: OpaquePointer?, _ context: UnsafePointer<mc_eval_context>?,
    _ out: UnsafeMutablePointer<Double>?, _ errors: UnsafeMutablePointer<UInt8>?,
    _ capacity: Int, _ outCount: UnsafeMutablePointer<Int>?
) -> Int32 {
    boundary { () throws(MapCoreError) in
        try batch(handle, features, context, capacity, outCount, errors, out.map(BatchOutput.numbers))
    }
}

@_cdecl("mc_expression_evaluate_colors")
public func mc_expression_evaluate_colors(
    _ handle: OpaquePointer?, _ features: OpaquePointer?, _ context: UnsafePointer<mc_eval_context>?,
    _ out: UnsafeMutablePointer<Float>?, _ errors: UnsafeMutablePointer<UInt8>?,
    _ capacity: Int, _ outCount: UnsafeMutablePointer<Int>?
) -> Int32 {
    boundary { () throws(MapCoreError) in
        guard capacity <= Int.max / 4 else { throw MapCoreError(.invalidArgument, "capacity is too large.") }
        try batch(handle, features, context, capacity, outCount, errors, out.map(BatchOutput.colors))
    }
}

@_cdecl("mc_expression_evaluate_booleans")
public func mc_expression_evaluate_booleans(
    _ handle: OpaquePointer?, _ features: OpaquePointer?, _ context: UnsafePointer<mc_eval_context>?,
    _ out: UnsafeMutablePointer<UInt8>?, _ errors: UnsafeMutablePointer<UInt8>?,
    _ capacity: Int, _ outCount: UnsafeMutablePointer<Int>?
) -> Int32 {
    boundary { () throws(MapCoreError) in
        try batch(handle, features, context, capacity, outCount, errors, out.map(BatchOutput.booleans))
    }
}

@_cdecl("mc_expression_serialize")
public func mc_expression_serialize(_ handle: OpaquePointer?, _ out: UnsafeMutablePointer<mc_buf>?) -> Int32 {
    boundary { () throws(MapCoreError) in
        let e = try expressionHandle(handle)
        let out = try required(out, "out")
        var w = JSONWriter()
        w.writeValue(e.serialize())
        try fill(out, with: w.bytes)
    }
}

@_cdecl("mc_expression_type")
public func mc_expression_type(_ handle: OpaquePointer?, _ out: UnsafeMutablePointer<mc_buf>?) -> Int32 {
    boundary { () throws(MapCoreError) in
        let e = try expressionHandle(handle)
        let out = try required(out, "out")
        try fill(out, with: Array(e.type.description.utf8))
    }
}

@_cdecl("mc_expression_flags")
public func mc_expression_flags(_ handle: OpaquePointer?, _ out: UnsafeMutablePointer<UInt32>?) -> Int32 {
    boundary { () throws(MapCoreError) in
        let e = try expressionHandle(handle)
        let out = try required(out, "out_flags")
        var flags: UInt32 = 0
        if e.isFeatureConstant { flags |= UInt32(MC_EXPRESSION_FEATURE_CONSTANT) }
        if e.isZoomConstant { flags |= UInt32(MC_EXPRESSION_ZOOM_CONSTANT) }
        if e.isStateConstant { flags |= UInt32(MC_EXPRESSION_STATE_CONSTANT) }
        out.pointee = flags
    }
}
