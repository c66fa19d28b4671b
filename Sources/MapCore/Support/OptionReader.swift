// Support: the one reader of JSON options objects (C ABI options_json, CLI, bindings), so every
// option of every concept follows the same rules for booleans, integers and numbers.

/// Reads an options object member by member with one rule per type; errors name the option.
struct OptionReader {
    /// What the options configure, e.g. "data source": used in messages.
    let subject: String
    let members: [(key: String, value: JSONValue)]

    /// The members of `json`, which must be an object.
    init(_ json: JSONValue, of subject: String) throws(MapCoreError) {
        self.subject = subject
        guard case .object(let o) = json else {
            throw MapCoreError(
                .invalidArgument,
                "\(subject.prefix(1).uppercased())\(subject.dropFirst()) options must be a JSON object.")
        }
        members = o.map { (key: $0.key, value: $0.value) }
    }

    func unknown(_ key: String) -> MapCoreError {
        MapCoreError(.invalidArgument, "Unknown \(subject) option \"\(key)\".")
    }

    func bad(_ key: String, _ what: String) -> MapCoreError {
        MapCoreError(.invalidArgument, "Option \(key) must be \(what).")
    }

    func bool(_ key: String, _ v: JSONValue) throws(MapCoreError) -> Bool {
        guard case .bool(let b) = v else { throw bad(key, "true or false") }
        return b
    }

    /// A whole number (1 and 1.0 alike) within `range`.
    func int(_ key: String, _ v: JSONValue, _ range: ClosedRange<Int>) throws(MapCoreError) -> Int {
        guard let d = v.doubleValue, d == d.rounded(), d >= Double(range.lowerBound), d <= Double(range.upperBound)
        else { throw bad(key, "an integer in \(range.lowerBound)...\(range.upperBound)") }
        return Int(d)
    }

    enum NumberRule { case finite, nonNegative, positive }

    /// A finite number obeying `rule`.
    func number(_ key: String, _ v: JSONValue, _ rule: NumberRule = .finite) throws(MapCoreError) -> Double {
        guard let d = v.doubleValue, d.isFinite else { throw bad(key, "a number") }
        switch rule {
        case .finite: break
        case .nonNegative: guard d >= 0 else { throw bad(key, "a non-negative number") }
        case .positive: guard d > 0 else { throw bad(key, "a positive number") }
        }
        return d
    }

    /// A string, or nil for JSON null.
    func stringOrNull(
        _ key: String, _ v: JSONValue, _ what: String = "a string or null"
    ) throws(MapCoreError) -> String? {
        if v == .null { return nil }
        guard let s = v.stringValue else { throw bad(key, what) }
        return s
    }
}
