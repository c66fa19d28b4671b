// Format strings: the public entry points — format string to JSON expression (and compiled
// expression), JSON expression back to a format string.

/// NSPredicate/NSExpression format strings as the Mapbox and MapLibre iOS SDKs read them.
public enum FormatString {
    /// Reads a format string. `arguments` fill the `%@` and `%K` placeholders in order: scalars
    /// are constants, arrays aggregates, GeoJSON objects shapes, `{"$expression": e}` the JSON
    /// expression `e`, other objects dictionaries (stops, curve parameters, `let` contexts).
    /// Errors: `.parse` (syntax; the location is the byte offset in the format string),
    /// `.unsupported` (a construct style expressions cannot express, named), `.limit` (nesting),
    /// `.invalidArgument` (placeholder and argument counts differ, a `%K` argument that is not a
    /// string).
    public static func parse(
        _ format: [UInt8], arguments: [JSONValue] = [],
        kind: FormatKind
    ) throws(MapCoreError) -> Either {
        switch kind {
        case .predicate: return .predicate(try FormatParser.parsePredicate(format, arguments: arguments))
        case .expression: return .expression(try FormatParser.parseExpression(format, arguments: arguments))
        }
    }

    /// A parsed format string.
    public enum Either: Equatable, Sendable {
        case predicate(FormatPredicate)
        case expression(FormatExpression)
    }

    /// The style-spec JSON expression a format string means: what the SDK's
    /// `mgl_jsonExpressionObject` gives. Conversion errors are `.expression` or `.unsupported`.
    public static func json(
        _ format: [UInt8], arguments: [JSONValue] = [],
        kind: FormatKind
    ) throws(MapCoreError) -> JSONValue {
        switch try parse(format, arguments: arguments, kind: kind) {
        case .predicate(let p): return try FormatToJSON.predicate(p)
        case .expression(let e): return try FormatToJSON.expression(e)
        }
    }

    /// The format-string tree of a JSON expression; with `kind` `.predicate`, legacy filters are
    /// read as the iOS SDK documents them.
    public static func tree(json: JSONValue, kind: FormatKind) throws(MapCoreError) -> Either {
        try FormatFromJSON.checkDepth(json)
        switch kind {
        case .predicate:
            if !LegacyFilters.isExpressionFilter(json) { return .predicate(try FormatFromJSON.legacyPredicate(json)) }
            return .predicate(try FormatFromJSON.predicate(json))
        case .expression:
            return .expression(try FormatFromJSON.expression(json))
        }
    }

    /// A format string for a JSON expression, with the arguments its `%@`/`%K` placeholders
    /// need (dictionaries, shapes, property names that are not key paths). Reading it back with
    /// those arguments gives the same tree as `tree(json:kind:)`.
    public static func format(
        json: JSONValue, kind: FormatKind
    ) throws(MapCoreError) -> (text: String, arguments: [JSONValue]) {
        print(try tree(json: json, kind: kind))
    }

    /// Prints a tree as a format string with its arguments.
    public static func print(_ tree: Either) -> (text: String, arguments: [JSONValue]) {
        var printer = FormatPrinter()
        switch tree {
        case .predicate(let p): printer.predicate(p)
        case .expression(let e): printer.expression(e)
        }
        return (printer.text, printer.arguments)
    }
}
