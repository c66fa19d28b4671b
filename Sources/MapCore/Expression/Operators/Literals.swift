// Expression: literals, type assertions (`number`, `string`, …) and coercions (`to-number`, …).

final class LiteralNode: ExprNode, @unchecked Sendable {
    let value: ExpressionValue
    init(type: ExpressionType, value: ExpressionValue) {
        self.value = value
        super.init(type: type)
    }
    override func evaluate(_ ctx: EvaluationContext) throws(EvaluationError) -> ExpressionValue { value }

    static func parse(_ args: [JSONValue], _ ctx: ParsingContext) -> ExprNode? {
        guard args.count == 2 else {
            return ctx.error("'literal' expression requires exactly one argument, but found \(args.count - 1) instead.")
        }
        let value = ExpressionValue(json: args[1])
        var type = value.type
        // An empty array takes the expected item type.
        if case .array(_, let n) = type, n == 0, let expected = ctx.expectedType, case .array(_, let en) = expected,
            en == nil || en == 0
        {
            type = expected
        }
        return LiteralNode(type: type, value: value)
    }

    override func serialize() -> JSONValue {
        switch value {
        case .array, .object: return .array([.string("literal"), value.json()])
        case .color(let c):
            let s = c.rgba
            return .array([.string("rgba"), .double(s.r * 255), .double(s.g * 255), .double(s.b * 255), .double(s.a)])
        case .formatted(let f): return FormatNode.serialize(f)
        case .projectionTransition(let from, let to, let t):
            return .array([.string("literal"), .array([.string(from), .string(to), .double(t)])])
        case .padding(let v), .numberArray(let v): return .array([.string("literal"), .array(v.map(JSONValue.double))])
        case .colorArray(let v): return .array([.string("literal"), .array(v.map { .string($0.cssString) })])
        case .variableAnchorOffsetCollection(let v):
            return .array([.string("literal"), ExpressionValue.array(v).json()])
        case .resolvedImage(let i): return .array([.string("image"), .string(i.name)])
        default: return value.json()
        }
    }
}

/// `string`, `number`, `boolean`, `object`, `array`: returns the first argument whose value has
/// the type, or fails on the last.
final class AssertionNode: ExprNode, @unchecked Sendable {
    let args: [ExprNode]
    init(type: ExpressionType, args: [ExprNode]) {
        self.args = args
        super.init(type: type)
    }
    override var children: [ExprNode] { args }

    static func parse(_ items: [JSONValue], _ ctx: ParsingContext) -> ExprNode? {
        guard items.count >= 2, case .string(let name) = items[0] else {
            return ctx.error("Expected at least one argument.")
        }
        var i = 1
        let type: ExpressionType
        if name == "array" {
            var itemType = ExpressionType.value
            if items.count > 2 {
                guard case .string(let t) = items[1], ["string", "number", "boolean"].contains(t),
                    let parsedType = ExpressionType.named(t)
                else {
                    return ctx.error("The item type argument of \"array\" must be one of string, number, boolean", 1)
                }
                itemType = parsedType
                i += 1
            }
            var n: Int?
            if items.count > 3 {
                switch items[2] {
                case .null: n = nil
                default:
                    guard let d = items[2].doubleValue, d >= 0, d == d.rounded(.down), d <= 1e9 else {
                        return ctx.error("The length argument to \"array\" must be a positive integer literal", 2)
                    }
                    n = Int(d)
                }
                i += 1
            }
            type = .array(itemType, n)
        } else {
            guard let t = ExpressionType.named(name) else { return ctx.error("Unknown type \(name)") }
            type = t
        }
        var parsed: [ExprNode] = []
        while i < items.count {
            guard let p = ctx.parse(items[i], i, .value) else { return nil }
            parsed.append(p)
            i += 1
        }
        return AssertionNode(type: type, args: parsed)
    }

    override func evaluate(_ ctx: EvaluationContext) throws(EvaluationError) -> ExpressionValue {
        for (i, arg) in args.enumerated() {
            let value = try arg.evaluate(ctx)
            let actual = value.type
            if type.subtypeError(actual) == nil { return value }
            if i == args.count - 1 {
                throw EvaluationError("Expected value to be of type \(type), but found \(actual) instead.")
            }
        }
        throw EvaluationError("Assertion has no arguments.")
    }

    override func serialize() -> JSONValue {
        var out: [JSONValue] = []
        if case .array(let item, let n) = type {
            out.append(.string("array"))
            // As GL JS's Assertion.serialize: the item type when it is a primitive, then the
            // length, written as null when absent but needed to keep the arguments in place.
            if item != .value || n != nil {
                out.append(.string(item.description))
                if let n {
                    out.append(.int(Int64(n)))
                } else if args.count > 1 {
                    out.append(.null)
                }
            }
        } else {
            out.append(.string(type.description))
        }
        return .array(out + args.map { $0.serialize() })
    }
}

/// `to-boolean`, `to-color`, `to-number`, `to-string`, and the implicit coercions to the
/// property types (formatted, padding, …): the first argument that converts wins.
final class CoercionNode: ExprNode, @unchecked Sendable {
    let args: [ExprNode]
    init(type: ExpressionType, args: [ExprNode], name: String?) {
        self.args = args
        super.init(type: type)
    }
    override var children: [ExprNode] { args }

    static func parse(_ items: [JSONValue], _ ctx: ParsingContext) -> ExprNode? {
        guard items.count >= 2, case .string(let name) = items[0] else {
            return ctx.error("Expected at least one argument.")
        }
        if (name == "to-boolean" || name == "to-string") && items.count != 2 {
            return ctx.error("Expected one argument.")
        }
        let type: ExpressionType
        switch name {
        case "to-boolean": type = .boolean
        case "to-color": type = .color
        case "to-number": type = .number
        default: type = .string
        }
        var parsed: [ExprNode] = []
        for i in 1..<items.count {
            guard let p = ctx.parse(items[i], i, .value) else { return nil }
            parsed.append(p)
        }
        return CoercionNode(type: type, args: parsed, name: name)
    }

    private func failure(_ what: String, _ input: ExpressionValue) -> EvaluationError {
        let shown = input.stringValue ?? JSNumber.stringify(input)
        return EvaluationError("Could not parse \(what) from value '\(shown)'")
    }

    override func evaluate(_ ctx: EvaluationContext) throws(EvaluationError) -> ExpressionValue {
        switch type {
        case .boolean:
            return .boolean(try args[0].evaluate(ctx).isTruthy)
        case .color:
            var input = ExpressionValue.null
            var message: String?
            for arg in args {
                input = try arg.evaluate(ctx)
                message = nil
                switch input {
                case .color: return input
                case .string(let s): if let c = Color.parse(s) { return .color(c) }
                case .array(let items):
                    if items.count < 3 || items.count > 4 {
                        message =
                            "Invalid rgba value \(JSNumber.stringify(input)): expected an array containing either "
                            + "three or four numeric values."
                    } else if let c = Coercions.rgbaColor(items, &message) {
                        return .color(c)
                    }
                default: break
                }
            }
            throw message.map(EvaluationError.init) ?? failure("color", input)
        case .number:
            var input = ExpressionValue.null
            for arg in args {
                input = try arg.evaluate(ctx)
                if input.isNull { return .number(0) }
                if let n = Coercions.jsNumber(input), !n.isNaN { return .number(n) }
            }
            throw EvaluationError("Could not convert \(JSNumber.stringify(input)) to number.")
        case .formatted:
            let v = try args[0].evaluate(ctx)
            if case .formatted = v { return v }
            return .formatted(.plain(v.text))
        case .resolvedImage:
            let v = try args[0].evaluate(ctx)
            if case .resolvedImage = v { return v }
            let name = v.text
            return .resolvedImage(ResolvedImage(name: name, available: ctx.availableImages.contains(name)))
        case .padding, .numberArray, .colorArray, .variableAnchorOffsetCollection:
            var input = ExpressionValue.null
            for arg in args {
                input = try arg.evaluate(ctx)
                if let v = Coercions.convert(input, to: type) { return v }
            }
            throw failure(type.kind, input)
        case .projectionDefinition:
            let input = try args[0].evaluate(ctx)
            if let v = Coercions.convert(input, to: type) { return v }
            throw failure("projectionDefinition", input)
        default:
            let v = try args[0].evaluate(ctx)
            if case .string = v { return v }
            return .string(v.text)
        }
    }

    override func serialize() -> JSONValue {
        switch type {
        case .formatted:
            return .array([.string("format"), args[0].serialize(), .object(JSONObject())])
        case .resolvedImage:
            return .array([.string("image"), args[0].serialize()])
        case .boolean, .color, .number, .string:
            return .array([.string("to-\(type.kind)")] + args.map { $0.serialize() })
        default:
            // Implicit coercions to property types have no operator of their own.
            return args[0].serialize()
        }
    }
}

/// Conversions shared by coercions, interpolation and the property types.
enum Coercions {
    /// JavaScript's `Number(v)` for the values expressions produce.
    static func jsNumber(_ v: ExpressionValue) -> Double? {
        switch v {
        case .null: return 0
        case .boolean(let b): return b ? 1 : 0
        case .number(let d): return d
        case .string(let s): return parseJSNumberString(s)
        case .array(let items):
            if items.isEmpty { return 0 }
            if items.count == 1 { return jsNumber(.string(items[0].text)) }
            return .nan
        default: return .nan
        }
    }

    /// `Number("…")`: trimmed, empty is 0, decimal/hex/Infinity forms.
    static func parseJSNumberString(_ s: String) -> Double {
        let t = s.trimmingJSWhitespace()
        if t.isEmpty { return 0 }
        if t == "Infinity" || t == "+Infinity" { return .infinity }
        if t == "-Infinity" { return -.infinity }
        let lower = t.lowercased()
        if lower.hasPrefix("0x") || lower.hasPrefix("0o") || lower.hasPrefix("0b") {
            let radix = lower.hasPrefix("0x") ? 16 : lower.hasPrefix("0o") ? 8 : 2
            guard let v = UInt64(lower.dropFirst(2), radix: radix) else { return .nan }
            return Double(v)
        }
        // Only decimal literals: digits, one point, optional exponent.
        var sawDigit = false
        for c in t.utf8 {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): sawDigit = true
            case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"), UInt8(ascii: "+"), UInt8(ascii: "-"): break
            default: return .nan
            }
        }
        guard sawDigit else { return .nan }
        var text = t
        if text.hasPrefix(".") {
            text = "0" + text
        } else if text.hasPrefix("-.") {
            text = "-0" + text.dropFirst()
        } else if text.hasPrefix("+.") {
            text = "0" + text.dropFirst()
        }
        if text.hasPrefix("+") { text.removeFirst() }
        if let dot = text.firstIndex(of: "."),
            text.index(after: dot) == text.endIndex || !(text[text.index(after: dot)].isNumber)
        {
            text.insert("0", at: text.index(after: dot))
        }
        return Double(text) ?? .nan
    }

    /// `[r, g, b]` or `[r, g, b, a]` with r, g, b in 0…255 and a in 0…1.
    static func rgbaColor(_ items: [ExpressionValue], _ message: inout String?) -> Color? {
        let nums = items.map(\.numberValue)
        if let error = validateRGBA(items) { message = error; return nil }
        guard let r = nums[0], let g = nums[1], let b = nums[2] else { return nil }
        let a = items.count > 3 ? (nums[3] ?? 1) : 1
        return Color(r: r / 255, g: g / 255, b: b / 255, a: a)
    }

    static func validateRGBA(_ items: [ExpressionValue]) -> String? {
        func inRange(_ v: ExpressionValue, _ hi: Double) -> Bool {
            guard case .number(let d) = v else { return false }
            return d >= 0 && d <= hi
        }
        let shown = items.map { $0.text }.joined(separator: ", ")
        guard items.count >= 3, inRange(items[0], 255), inRange(items[1], 255), inRange(items[2], 255) else {
            return "Invalid rgba value [\(shown)]: 'r', 'g', and 'b' must be between 0 and 255."
        }
        if items.count > 3 && !inRange(items[3], 1) {
            return "Invalid rgba value [\(shown)]: 'a' must be between 0 and 1."
        }
        return nil
    }

    /// Conversion to the structured property types; nil when the value does not convert.
    static func convert(_ v: ExpressionValue, to type: ExpressionType) -> ExpressionValue? {
        switch type {
        case .padding:
            switch v {
            case .padding: return v
            case .number(let n): return .padding([n, n, n, n])
            case .array(let items):
                let nums = items.compactMap(\.numberValue)
                guard nums.count == items.count else { return nil }
                switch nums.count {
                case 1: return .padding([nums[0], nums[0], nums[0], nums[0]])
                case 2: return .padding([nums[0], nums[1], nums[0], nums[1]])
                case 3: return .padding([nums[0], nums[1], nums[2], nums[1]])
                case 4: return .padding(nums)
                default: return nil
                }
            default: return nil
            }
        case .numberArray:
            switch v {
            case .numberArray: return v
            case .number(let n): return .numberArray([n])
            case .array(let items):
                let nums = items.compactMap(\.numberValue)
                return nums.count == items.count ? .numberArray(nums) : nil
            default: return nil
            }
        case .colorArray:
            switch v {
            case .colorArray: return v
            case .color(let c): return .colorArray([c])
            case .string(let s): return Color.parse(s).map { .colorArray([$0]) }
            case .array(let items):
                var colors: [Color] = []
                for item in items {
                    switch item {
                    case .color(let c): colors.append(c)
                    case .string(let s): guard let c = Color.parse(s) else { return nil }; colors.append(c)
                    default: return nil
                    }
                }
                return .colorArray(colors)
            default: return nil
            }
        case .variableAnchorOffsetCollection:
            if case .variableAnchorOffsetCollection = v { return v }
            guard case .array(let items) = v, items.count >= 2, items.count % 2 == 0 else { return nil }
            for k in stride(from: 0, to: items.count, by: 2) {
                guard case .string(let anchor) = items[k], anchors.contains(anchor),
                    case .array(let offset) = items[k + 1], offset.count == 2,
                    offset.allSatisfy({ $0.numberValue != nil })
                else { return nil }
            }
            return .variableAnchorOffsetCollection(items)
        case .projectionDefinition:
            switch v {
            case .string, .projectionTransition: return v
            case .array(let items):
                // A transition written as an array stays as written.
                guard items.count == 3, case .string = items[0], case .string = items[1], case .number = items[2] else {
                    return nil
                }
                return v
            default: return nil
            }
        default: return nil
        }
    }

    static let anchors: Set<String> = [
        "center", "left", "right", "top", "bottom", "top-left", "top-right", "bottom-left", "bottom-right",
    ]
}

extension String {
    /// Trims the characters JavaScript's `String.prototype.trim` removes.
    public func trimmingJSWhitespace() -> String {
        func isWS(_ c: Character) -> Bool { c.isWhitespace || c == "\u{FEFF}" }
        guard let start = firstIndex(where: { !isWS($0) }), let end = lastIndex(where: { !isWS($0) }) else { return "" }
        return String(self[start...end])
    }
}
