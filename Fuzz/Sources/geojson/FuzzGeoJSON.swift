// Fuzz target: the GeoJSON parser. Property: what parses serializes to text that parses to an
// equal value (a property broken is a crash, which libFuzzer reports with the input).
import MapCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGeoJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = UnsafeBufferPointer(start: data, count: size)
    guard let value = try? GeoJSONParser.parse(input) else { return 0 }
    let text = value.serialize()
    let again = text.withUnsafeBufferPointer { try? GeoJSONParser.parse($0) }
    if again != value { fatalError("GeoJSON round trip changed the value: \(String(decoding: text, as: UTF8.self))") }
    _ = BoundingBox.of(value)
    return 0
}
