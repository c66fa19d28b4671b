// Fuzz target: NSPredicate/NSExpression format strings. The first byte picks predicate or
// expression. Properties: a format string that converts to JSON converts back (or the conversion
// names what it cannot say), and format → JSON → format → JSON is stable after one round.
import MapCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFormat(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size > 0 else { return 0 }
    let kind: FormatKind = data[0] & 1 == 0 ? .predicate : .expression
    let text = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    guard let json = try? FormatString.json(text, kind: kind) else { return 0 }
    let spec: PropertySpec = kind == .predicate ? .filter : .default
    guard case .success = StyleExpression.compile(json, spec: spec) else { return 0 }
    guard let (format1, args1) = try? FormatString.format(json: json, kind: kind) else { return 0 }
    guard let json2 = try? FormatString.json(Array(format1.utf8), arguments: args1, kind: kind) else {
        fatalError("printed format does not read back: \(format1)")
    }
    guard let (format2, args2) = try? FormatString.format(json: json2, kind: kind),
        let json3 = try? FormatString.json(Array(format2.utf8), arguments: args2, kind: kind)
    else { fatalError("second round failed: \(format1)") }
    if json3 != json2 { fatalError("format round trip not stable: \(format1) -> \(format2)") }
    return 0
}
