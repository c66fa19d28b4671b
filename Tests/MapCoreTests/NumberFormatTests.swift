// Expression `number-format` against node's Intl.NumberFormat: every case of the file
// tools/number-format/generate.mjs writes (Tests/fixtures/number-format/cases.jsonl) goes
// through compile and evaluate.
import Glibc
import Testing
@testable import MapCore

private func compile(_ text: String) throws -> StyleExpression {
    switch StyleExpression.compile(try JSON.parse(text), spec: .default) {
    case .success(let e): return e
    case .failure(let f):
        throw MapCoreError(.expression, f.errors.map { "\($0.key): \($0.message)" }.joined(separator: "; "))
    }
}

private func compileErrors(_ text: String) throws -> [String] {
    if case .failure(let f) = StyleExpression.compile(try JSON.parse(text), spec: .default) {
        return f.errors.map(\.message)
    }
    return []
}

private func number(_ v: JSONValue) -> Double? {
    switch v {
    case .int(let x): return Double(x)
    case .uint(let x): return Double(x)
    case .double(let x): return x
    default: return nil
    }
}

/// One case: GL JS's options as expressions over feature properties (never constant, so the
/// evaluation path runs, not folding), the numbers JSON cannot hold as arithmetic on 0.
private struct Case {
    var expression: String
    var properties: JSONObject
    var output: String?
    var error: String?
    var text: String

    init?(_ line: JSONValue, text: String) {
        guard case .array(let f) = line, f.count == 8 else { return nil }
        self.text = text
        var properties: [(String, JSONValue)] = [("zero", .int(0))]
        func operand(_ key: String, _ v: JSONValue) -> String {
            switch v {
            case .string("NaN"): return #"["/", ["get", "zero"], ["get", "zero"]]"#
            case .string("Infinity"): return #"["/", 1, ["get", "zero"]]"#
            case .string("-Infinity"): return #"["/", -1, ["get", "zero"]]"#
            case .string("-0"): return #"["-", ["get", "zero"]]"#
            default:
                properties.append((key, v))
                return #"["get", "\#(key)"]"#
            }
        }
        var options: [String] = []
        for (k, name) in [(0, "locale"), (1, "currency"), (2, "unit")] where f[k] != .null {
            properties.append((name, f[k]))
            options.append(#""\#(name)": ["get", "\#(name)"]"#)
        }
        if f[3] != .null { options.append(#""min-fraction-digits": "# + operand("min", f[3])) }
        if f[4] != .null { options.append(#""max-fraction-digits": "# + operand("max", f[4])) }
        expression = #"["number-format", "# + operand("value", f[5]) + ", {" + options.joined(separator: ", ") + "}]"
        self.properties = JSONObject(properties)
        if case .string(let s) = f[6] { output = s }
        if case .string(let s) = f[7] { error = s }
    }

    /// nil when the result is the expected one, else what differs.
    func run() -> String? {
        let want = output.map { "\"\($0)\"" } ?? "error \(error ?? "")"
        let e: StyleExpression
        do { e = try compile(expression) } catch { return "compile error \(error)" }
        var ctx = EvaluationContext()
        ctx.properties = properties
        do {
            let v = try e.evaluate(ctx)
            if let output, v.stringValue == output { return nil }
            return "got \(String(describing: v.stringValue)), want \(want)"
        } catch {
            if let expected = self.error, error.message == expected { return nil }
            return "got error \(error.message), want \(want)"
        }
    }
}

@Suite struct NumberFormatTests {
    /// Every case of the generated file (or of the file MAPCORE_NUMBER_FORMAT_CASES names, such
    /// as the one `generate.mjs --full PATH` writes): N passed, M failed, each failure listed.
    @Test func casesFromNodeIntl() throws {
        let root = #filePath.split(separator: "/").dropLast(3).joined(separator: "/")
        var path = "/\(root)/Tests/fixtures/number-format/cases.jsonl"
        if let p = getenv("MAPCORE_NUMBER_FORMAT_CASES") { path = String(cString: p) }
        let text = String(decoding: try FileIO.read(path: path), as: UTF8.self)
        var passed = 0
        var failures: [String] = []
        var lines = text.split(separator: "\n")
        let header = lines.isEmpty ? "" : String(lines.removeFirst())
        #expect(header.contains("\"versions\""), "the first line names the generator and versions")
        for line in lines {
            guard let c = Case(try JSON.parse(String(line)), text: String(line)) else {
                failures.append("unreadable case: \(line)")
                continue
            }
            if let problem = c.run() { failures.append("\(c.text): \(problem)") } else { passed += 1 }
        }
        print("number-format: \(passed) passed, \(failures.count) failed (\(path))")
        for f in failures.prefix(300) { print("  FAIL \(f)") }
        #expect(
            failures.isEmpty,
            "\(failures.count) of \(lines.count) cases differ from Intl; first: \(failures.first ?? "")")
        #expect(lines.count > 1000)
    }

    @Test func currencyAndUnitAreExclusive() throws {
        #expect(
            try compileErrors(#"["number-format", 1, {"currency": "EUR", "unit": "meter"}]"#)
                == ["NumberFormat options `currency` and `unit` are mutually exclusive"])
    }

    /// Constant arguments fold at compile time, as upstream folds them: Intl's RangeError is a
    /// compile error then.
    @Test func constantRangeErrorsAreCompileErrors() throws {
        #expect(try compileErrors(#"["number-format", 1, {"currency": "EU"}]"#) == ["Invalid currency code : EU"])
        #expect(
            try compileErrors(#"["number-format", 1, {"locale": "en_US"}]"#) == [
                "Incorrect locale information provided"
            ])
        #expect(
            try compileErrors(#"["number-format", 1, {"max-fraction-digits": 21}]"#)
                == ["maximumFractionDigits value is out of range."])
        // A falsy literal option is no option (GL JS tests the JSON value): 0 digits is the default.
        let e = try compile(#"["number-format", 1.23456, {"min-fraction-digits": 0, "max-fraction-digits": 0}]"#)
        #expect(try e.evaluate(EvaluationContext()).stringValue == "1.235")
    }

    /// Fraction digits from data are any double: none traps.
    @Test func fractionDigitsFromData() throws {
        let e = try compile(
            #"["number-format", 1.5, {"min-fraction-digits": ["get", "d"], "max-fraction-digits": ["get", "d"]}]"#)
        for d: Double in [0, 20, 20.99, -0.0, 1e300, -5, .nan, .infinity, -.infinity, 2.5] {
            var ctx = EvaluationContext()
            ctx.properties = JSONObject([("d", .double(d))])
            let inRange = d >= 0 && d <= 20
            if inRange {
                #expect(try e.evaluate(ctx).stringValue != nil)
            } else {
                #expect(throws: EvaluationError.self) { _ = try e.evaluate(ctx) }
            }
        }
    }

    /// Arbitrary text as locale, currency and unit, arbitrary doubles (any bit pattern) as the
    /// number and the fraction digits: a string or an evaluation error, never a trap.
    @Test func arbitraryInputs() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state
        }
        let alphabet = Array("aenusdtxUXT-_019é".unicodeScalars) + ["-", "-", "u", "n"]
        func text(_ length: Int) -> String {
            var out = String.UnicodeScalarView()
            for _ in 0..<Int(next() % UInt64(length + 1)) { out.append(alphabet[Int(next() % UInt64(alphabet.count))]) }
            return String(out)
        }
        func digits() -> Double? {
            switch next() % 8 {
            case 0..<4: return nil
            case 4, 5: return Double(next() % 25) - 2
            default: return Double(bitPattern: next())
            }
        }
        func pick(_ list: [String]) -> String { list[Int(next() % UInt64(list.count))] }
        let tags = ["en", "de-CH", "ar-EG", "hi-u-nu-deva", "ja-u-nu-hanidec", "zh-Hant-TW", "pt-PT", "en-US-POSIX"]
        let currencies = ["usd", "EUR", "JPY", "BHD", "PTE", "XYZ"]
        let units = ["meter", "day-per-hour", "percent-per-byte", "x-per-day", "kilometer-per-hour"]
        var formatted = 0
        for k in 0..<20_000 {
            let tag: String? = k % 4 == 0 ? nil : k % 4 == 1 ? text(20) : pick(tags)
            let currency: String? = k % 3 == 0 ? (k % 2 == 0 ? text(4) : pick(currencies)) : nil
            let unit: String? = k % 3 == 1 ? (k % 2 == 0 ? text(12) : pick(units)) : nil
            guard
                let f = try? NumberFormat(
                    locale: tag, currency: currency, unit: unit, minFraction: digits(), maxFraction: digits())
            else { continue }
            _ = f.format(Double(bitPattern: next()))
            _ = f.format(Double(Int64(bitPattern: next()) >> (next() % 64)))
            formatted += 1
        }
        #expect(formatted > 1000)
    }

    @Test func tablesParse() {
        let t = NumberFormatTables.shared
        #expect(t.units.count == 45)
        #expect(t.locales.count > 200)
        #expect(t.digits["latn"] == ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"])
        #expect(t.currencyDigits["JPY"] == 0 && t.currencyDigits["BHD"] == 3 && t.currencyDigits["USD"] == nil)
        for k in t.locales.indices {
            #expect(t.symbols(k, "sym") != nil, "\(t.locales[k].tag) has symbols")
            #expect(t.item(k, "plural") != nil && t.item(k, "u:day") != nil)
        }
    }
}
