// C boundary for include/mapcore/format.h: NSPredicate/NSExpression format strings compiled,
// converted to JSON, and written back from JSON.
import CMapCoreABI
import MapCore

private func formatKind(_ kind: Int32) throws(MapCoreError) -> FormatKind {
    switch kind {
    case MC_FORMAT_PREDICATE: return .predicate
    case MC_FORMAT_EXPRESSION: return .expression
    default:
        throw MapCoreError(.invalidArgument, "kind must be MC_FORMAT_PREDICATE or MC_FORMAT_EXPRESSION, not \(kind).")
    }
}

/// The format string's JSON expression, with its placeholder arguments read from `args`.
private func convert(
    _ format: UnsafePointer<CChar>?, _ len: Int, _ args: UnsafePointer<CChar>?, _ argsLen: Int,
    _ kind: FormatKind
) throws(MapCoreError) -> JSONValue {
    let text = Array(try inputBytes(format, len, "format"))
    var arguments: [JSONValue] = []
    if args != nil || argsLen != 0 {
        guard case .array(let a) = try parseJSON(args, argsLen, "args_json") else {
            throw MapCoreError(.invalidArgument, "args_json must be a JSON array (one value per placeholder).")
        }
        arguments = a
    }
    return try FormatString.json(text, arguments: arguments, kind: kind)
}

@_cdecl("mc_predicate_compile")
public func mc_predicate_compile(
    _ format: UnsafePointer<CChar>?, _ len: Int, _ args: UnsafePointer<CChar>?, _ argsLen: Int,
    _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
    boundary { () throws(MapCoreError) in
        let out = try required(out, "out")
        let json = try convert(format, len, args, argsLen, .predicate)
        out.pointee = handles.register(try StyleExpression.compiled(json, spec: .filter), kind: .expression)
    }
}

@_cdecl("mc_expression_compile_format")
public func mc_expression_compile_format(
    _ format: UnsafePointer<CChar>?, _ len: Int, _ args: UnsafePointer<CChar>?,
    _ argsLen: Int, _ spec: UnsafePointer<CChar>?, _ specLen: Int,
    _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
    boundary { () throws(MapCoreError) in
        let out = try required(out, "out")
        var propertySpec = PropertySpec.default
        if spec != nil || specLen != 0 {
            propertySpec = try PropertySpec(json: try parseJSON(spec, specLen, "property_spec"))
        }
        let json = try convert(format, len, args, argsLen, .expression)
        out.pointee = handles.register(try StyleExpression.compiled(json, spec: propertySpec), kind: .expression)
    }
}

@_cdecl("mc_format_to_json")
public func mc_format_to_json(
    _ format: UnsafePointer<CChar>?, _ len: Int, _ args: UnsafePointer<CChar>?, _ argsLen: Int,
    _ kind: Int32, _ out: UnsafeMutablePointer<mc_buf>?
) -> Int32 {
    boundary { () throws(MapCoreError) in
        let out = try required(out, "out")
        let json = try convert(format, len, args, argsLen, try formatKind(kind))
        var w = JSONWriter()
        w.writeValue(json)
        try fill(out, with: w.bytes)
    }
}

@_cdecl("mc_format_from_json")
public func mc_format_from_json(
    _ json: UnsafePointer<CChar>?, _ len: Int, _ kind: Int32,
    _ formatOut: UnsafeMutablePointer<mc_buf>?, _ argsOut: UnsafeMutablePointer<mc_buf>?
) -> Int32 {
    boundary { () throws(MapCoreError) in
        let formatOut = try required(formatOut, "format_out")
        let argsOut = try required(argsOut, "args_out")
        let printed = try FormatString.format(json: try parseJSON(json, len, "json"), kind: try formatKind(kind))
        var w = JSONWriter()
        w.writeValue(.array(printed.arguments))
        try fill(argsOut, with: w.bytes)
        do throws(MapCoreError) {
            try fill(formatOut, with: Array(printed.text.utf8))
        } catch {
            mc_buf_dispose(argsOut)
            throw error
        }
    }
}
