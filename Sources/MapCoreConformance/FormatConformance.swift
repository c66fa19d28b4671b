// Conformance: runner for format-string/JSON pairs (the JSON Lines format of
// conformance/predicates), shared by the CLI and the tests. Test tooling: not part of
// libmapcore.so.

import MapCore

public enum FormatConformance {
    public typealias Outcome = ConformanceOutcome

    public static func run(jsonl text: String) -> [Outcome] {
        runJSONLines(text) { c, line in runCase(c, line: line) }
    }

    /// One record: `format-to-json` compares the converted JSON by value, `json-to-format`
    /// prints the JSON as a format string, reads it back and compares the tree with the one read
    /// from `format`; `both` does both; `error` records must fail to convert.
    public static func runCase(_ c: JSONValue, line: Int) -> Outcome {
        guard case .object(let o) = c, case .string(let format)? = o["format"] else {
            return Outcome(id: "line \(line)", passed: false, reason: "record lacks a format string")
        }
        let id = "line \(line) \(o["kind"]?.stringValue ?? "?") `\(format)`"
        func fail(_ reason: String) -> Outcome { Outcome(id: id, passed: false, reason: reason) }
        let kind: FormatKind = o["kind"] == .string("predicate") ? .predicate : .expression
        let bytes = Array(format.utf8)
        if o["error"] == .bool(true) {
            do {
                let json = try FormatString.json(bytes, kind: kind)
                return fail("expected an error, got \(JSON.serialize(json))")
            } catch {
                return Outcome(id: id, passed: true, reason: "")
            }
        }
        let expected = o["json"] ?? .null
        let direction = o["direction"]?.stringValue ?? "both"
        if direction == "format-to-json" || direction == "both" {
            do {
                let json = try FormatString.json(bytes, kind: kind)
                if json != expected {
                    return fail("format → JSON gave \(JSON.serialize(json)), expected \(JSON.serialize(expected))")
                }
            } catch {
                return fail("format → JSON failed: \(error)")
            }
        }
        if direction == "json-to-format" || direction == "both" {
            do {
                let printed = try FormatString.format(json: expected, kind: kind)
                let reread = try FormatString.parse(Array(printed.text.utf8), arguments: printed.arguments, kind: kind)
                let original = try FormatString.parse(bytes, kind: kind)
                if reread != original {
                    return fail(
                        "JSON → format gave `\(printed.text)`, which reads differently from the record's format")
                }
            } catch {
                return fail("JSON → format failed: \(error)")
            }
        }
        return Outcome(id: id, passed: true, reason: "")
    }
}
