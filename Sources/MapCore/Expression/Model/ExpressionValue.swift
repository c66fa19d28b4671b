// Expression: run-time values, their types and their text forms.

/// A value produced by evaluating an expression.
public enum ExpressionValue: Sendable {
    case null
    case boolean(Bool)
    case number(Double)
    case string(String)
    case color(Color)
    case array([ExpressionValue])
    case object(ValueObject)
    case collator(Collator)
    case formatted(Formatted)
    case resolvedImage(ResolvedImage)
    /// Top, right, bottom, left.
    case padding([Double])
    case numberArray([Double])
    case colorArray([Color])
    /// Alternating anchor names and `[x, y]` offsets, as the spec writes them.
    case variableAnchorOffsetCollection([ExpressionValue])
    case projectionTransition(from: String, to: String, transition: Double)

    /// The run-time type, as the spec's `typeOf` computes it: arrays of one primitive item type
    /// keep it, anything mixed (or nested arrays) is `value`.
    public var type: ExpressionType {
        switch self {
        case .null: return .null
        case .boolean: return .boolean
        case .number: return .number
        case .string: return .string
        case .color: return .color
        case .object: return .object
        case .collator: return .collator
        case .formatted: return .formatted
        case .resolvedImage: return .resolvedImage
        case .padding: return .padding
        case .numberArray: return .numberArray
        case .colorArray: return .colorArray
        case .variableAnchorOffsetCollection: return .variableAnchorOffsetCollection
        case .projectionTransition: return .projectionDefinition
        case .array(let items):
            var itemType: ExpressionType?
            for item in items {
                let t = item.type
                if let known = itemType {
                    // Array types are never identical objects in the reference, so nested arrays mix.
                    if known == t && !t.isArray { continue }
                    itemType = .value
                    break
                }
                itemType = t
            }
            return .array(itemType ?? .value, items.count)
        }
    }

    public var isNull: Bool { if case .null = self { return true } else { return false } }

    var numberValue: Double? { if case .number(let d) = self { return d } else { return nil } }
    var stringValue: String? { if case .string(let s) = self { return s } else { return nil } }

    /// JavaScript truthiness, which `to-boolean` and the boolean short-circuits follow.
    var isTruthy: Bool {
        switch self {
        case .null: return false
        case .boolean(let b): return b
        case .number(let d): return !(d == 0 || d.isNaN)
        case .string(let s): return !s.isEmpty
        default: return true
        }
    }

    /// JavaScript `===`: primitives by value; compound values are distinct objects.
    func strictlyEquals(_ other: ExpressionValue) -> Bool {
        switch (self, other) {
        case (.null, .null): return true
        case let (.boolean(a), .boolean(b)): return a == b
        case let (.number(a), .number(b)): return a == b
        case let (.string(a), .string(b)): return a == b
        default: return false
        }
    }

    // MARK: conversion from and to JSON

    /// A JSON value as an expression value. Recursion is bounded by the JSON depth limit.
    public init(json: JSONValue) {
        switch json {
        case .null: self = .null
        case .bool(let b): self = .boolean(b)
        case .int(let v): self = .number(Double(v))
        case .uint(let v): self = .number(Double(v))
        case .double(let v): self = .number(v)
        case .string(let s): self = .string(s)
        case .array(let a): self = .array(a.map(ExpressionValue.init(json:)))
        case .object(let o): self = .object(ValueObject(o.members.map { ($0.key, ExpressionValue(json: $0.value)) }))
        }
    }

    /// How colors appear in JSON output.
    public enum ColorEncoding: Sendable {
        /// `"rgba(255,0,0,1)"`: the CSS form, which `to-color` reads back.
        case css
        /// The style-spec test suite's form: `[r, g, b, a]` premultiplied at the top level,
        /// `{"r", "g", "b", "a"}` inside other values.
        case premultiplied
    }

    /// The value as JSON. Non-finite numbers have no JSON form and become null.
    public func json(colors: ColorEncoding = .css, topLevel: Bool = true) -> JSONValue {
        // Integral numbers print as integers, as JavaScript prints them. Negative zero stays a
        // double: an integer would lose its sign, which `number-format` and `/` can observe.
        func number(_ d: Double) -> JSONValue {
            guard d.isFinite else { return .null }
            if d == d.rounded(), abs(d) < 9.007199254740992e15, !(d == 0 && d.sign == .minus) {
                return .int(Int64(d))
            }
            return .double(d)
        }
        func colorJSON(_ c: Color, top: Bool) -> JSONValue {
            switch colors {
            case .css: return .string(c.cssString)
            case .premultiplied:
                if top { return .array([number(c.r), number(c.g), number(c.b), number(c.a)]) }
                return .object(
                    JSONObject([("r", number(c.r)), ("g", number(c.g)), ("b", number(c.b)), ("a", number(c.a))]))
            }
        }
        switch self {
        case .null: return .null
        case .boolean(let b): return .bool(b)
        case .number(let d): return number(d)
        case .string(let s): return .string(s)
        case .color(let c): return colorJSON(c, top: topLevel)
        case .array(let a): return .array(a.map { $0.json(colors: colors, topLevel: false) })
        case .object(let o):
            return .object(JSONObject(o.members.map { ($0.key, $0.value.json(colors: colors, topLevel: false)) }))
        case .collator(let c):
            return .object(
                JSONObject([
                    ("locale", c.locale.map(JSONValue.string) ?? .null),
                    ("caseSensitive", .bool(c.caseSensitive)),
                    ("diacriticSensitive", .bool(c.diacriticSensitive)),
                ]))
        case .formatted(let f):
            return .object(
                JSONObject([
                    (
                        "sections",
                        .array(
                            f.sections.map { s in
                                .object(
                                    JSONObject([
                                        ("text", .string(s.text)),
                                        (
                                            "image",
                                            s.image.map {
                                                ExpressionValue.resolvedImage($0).json(colors: colors, topLevel: false)
                                            } ?? .null
                                        ),
                                        ("scale", s.scale.map(number) ?? .null),
                                        ("fontStack", s.fontStack.map(JSONValue.string) ?? .null),
                                        ("textColor", s.textColor.map { colorJSON($0, top: false) } ?? .null),
                                        ("verticalAlign", s.verticalAlign.map(JSONValue.string) ?? .null),
                                    ]))
                            })
                    )
                ]))
        case .resolvedImage(let i):
            return .object(JSONObject([("name", .string(i.name)), ("available", .bool(i.available))]))
        case .padding(let v), .numberArray(let v): return .object(JSONObject([("values", .array(v.map(number)))]))
        case .colorArray(let v): return .object(JSONObject([("values", .array(v.map { colorJSON($0, top: false) }))]))
        case .variableAnchorOffsetCollection(let v):
            return .object(JSONObject([("values", .array(v.map { $0.json(colors: colors, topLevel: false) }))]))
        case .projectionTransition(let from, let to, let t):
            return .object(JSONObject([("from", .string(from)), ("to", .string(to)), ("transition", number(t))]))
        }
    }

    /// The spec's `toString`: what `to-string` and `concat` produce.
    public var text: String {
        switch self {
        case .null: return ""
        case .boolean(let b): return b ? "true" : "false"
        case .number(let d): return JSNumber.format(d)
        case .string(let s): return s
        case .color(let c): return c.cssString
        case .formatted(let f): return f.sections.map(\.text).joined()
        case .resolvedImage(let i): return i.name
        case .projectionTransition(let from, let to, let t): return "[\"\(from)\",\"\(to)\",\(JSNumber.format(t))]"
        default: return JSNumber.stringify(self)
        }
    }
}

/// An object value with its members in document order.
public struct ValueObject: Sendable {
    public var members: [(key: String, value: ExpressionValue)]
    public init(_ members: [(String, ExpressionValue)]) { self.members = members.map { (key: $0.0, value: $0.1) } }
    public subscript(key: String) -> ExpressionValue? {
        for m in members where m.key == key { return m.value }
        return nil
    }
}

/// `JSON.stringify` of expression values, in JavaScript's number form.
extension JSNumber {
    /// `JSON.stringify` of a value (numbers in JavaScript form, non-finite as null).
    static func stringify(_ v: ExpressionValue) -> String {
        var out = ""
        write(v, into: &out)
        return out
    }

    private static func write(_ v: ExpressionValue, into out: inout String) {
        switch v {
        case .null: out += "null"
        case .boolean(let b): out += b ? "true" : "false"
        case .number(let d): out += d.isFinite ? format(d) : "null"
        case .string(let s): out += quoted(s)
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                write(item, into: &out)
            }
            out += "]"
        case .object(let o):
            out += "{"
            for (i, m) in o.members.enumerated() {
                if i > 0 { out += "," }
                out += quoted(m.key) + ":"
                write(m.value, into: &out)
            }
            out += "}"
        case .color(let c): out += quoted(c.cssString)
        case .padding(let p), .numberArray(let p): write(.array(p.map(ExpressionValue.number)), into: &out)
        case .colorArray(let c): write(.array(c.map(ExpressionValue.color)), into: &out)
        case .variableAnchorOffsetCollection(let items): write(.array(items), into: &out)
        default: out += quoted(v.text)
        }
    }

    static func quoted(_ s: String) -> String {
        var w = JSONWriter(reserve: s.utf8.count + 2)
        w.writeString(s)
        return w.string
    }
}

/// An image reference and whether the context lists it as available.
public struct ResolvedImage: Sendable, Equatable {
    public var name: String
    public var available: Bool
}

/// Rich text: sections of text or images with optional styling.
public struct Formatted: Sendable {
    public struct Section: Sendable {
        public var text: String
        public var image: ResolvedImage?
        public var scale: Double?
        public var fontStack: String?
        public var textColor: Color?
        public var verticalAlign: String?
    }
    public var sections: [Section]

    static func plain(_ text: String) -> Formatted {
        Formatted(sections: [Section(text: text)])
    }
}
