// Expression: `collator`, `format`, `image` and `number-format`.

import Glibc

final class CollatorNode: ExprNode, @unchecked Sendable {
    /// Resolved against the locale at evaluation, never folded.
    override var isFoldable: Bool { false }
    let caseSensitive: ExprNode, diacriticSensitive: ExprNode, locale: ExprNode?
    init(caseSensitive: ExprNode, diacriticSensitive: ExprNode, locale: ExprNode?) {
        self.caseSensitive = caseSensitive
        self.diacriticSensitive = diacriticSensitive
        self.locale = locale
        super.init(type: .collator)
    }
    override var children: [ExprNode] { [caseSensitive, diacriticSensitive] + (locale.map { [$0] } ?? []) }
    override func serialize() -> JSONValue {
        var o = JSONObject()
        o["case-sensitive"] = caseSensitive.serialize()
        o["diacritic-sensitive"] = diacriticSensitive.serialize()
        if let locale { o["locale"] = locale.serialize() }
        return .array([.string("collator"), .object(o)])
    }

    static func parse(_ items: [JSONValue], _ ctx: ParsingContext) -> ExprNode? {
        guard items.count == 2 else { return ctx.error("Expected one argument.") }
        guard case .object(let options) = items[1] else {
            return ctx.error("Collator options argument must be an object.")
        }
        guard let cs = ctx.parse(options["case-sensitive"] ?? .bool(false), 1, .boolean) else { return nil }
        guard let ds = ctx.parse(options["diacritic-sensitive"] ?? .bool(false), 1, .boolean) else { return nil }
        var locale: ExprNode?
        if let l = options["locale"], l != .null, l != .bool(false), l != .string("") {
            guard let p = ctx.parse(l, 1, .string) else { return nil }
            locale = p
        }
        return CollatorNode(caseSensitive: cs, diacriticSensitive: ds, locale: locale)
    }

    override func evaluate(_ ctx: EvaluationContext) throws(EvaluationError) -> ExpressionValue {
        .collator(
            Collator(
                caseSensitive: try evalBool(caseSensitive, ctx),
                diacriticSensitive: try evalBool(diacriticSensitive, ctx),
                locale: try locale.map { (n) throws(EvaluationError) -> String in try evalString(n, ctx) }))
    }
}

final class FormatNode: ExprNode, @unchecked Sendable {
    struct Section {
        var content: ExprNode
        var scale: ExprNode?
        var font: ExprNode?
        var textColor: ExprNode?
        var verticalAlign: ExprNode?
    }
    let sections: [Section]
    init(sections: [Section]) {
        self.sections = sections
        super.init(type: .formatted)
    }
    override var children: [ExprNode] {
        sections.flatMap { s in [s.content] + [s.scale, s.font, s.textColor, s.verticalAlign].compactMap { $0 } }
    }

    static let verticalAlignOptions = ["bottom", "center", "top"]

    static func parse(_ items: [JSONValue], _ ctx: ParsingContext) -> ExprNode? {
        guard items.count >= 2 else { return ctx.error("Expected at least one argument.") }
        if case .object = items[1] { return ctx.error("First argument must be an image or text section.") }
        var sections: [Section] = []
        var nextMayBeOptions = false
        for i in 1..<items.count {
            if nextMayBeOptions, case .object(let options) = items[i] {
                nextMayBeOptions = false
                var section = sections[sections.count - 1]
                if let v = options["font-scale"], v.isTruthyJSON {
                    guard let p = ctx.parse(v, 1, .number) else { return nil }
                    section.scale = p
                }
                if let v = options["text-font"], v.isTruthyJSON {
                    guard let p = ctx.parse(v, 1, .array(.string, nil)) else { return nil }
                    section.font = p
                }
                if let v = options["text-color"], v.isTruthyJSON {
                    guard let p = ctx.parse(v, 1, .color) else { return nil }
                    section.textColor = p
                }
                if let v = options["vertical-align"], v.isTruthyJSON {
                    if case .string(let s) = v, !verticalAlignOptions.contains(s) {
                        return ctx.error(
                            "'vertical-align' must be one of: 'bottom', 'center', 'top' but found '\(s)' instead.")
                    }
                    guard let p = ctx.parse(v, 1, .string) else { return nil }
                    section.verticalAlign = p
                }
                sections[sections.count - 1] = section
            } else {
                guard let content = ctx.parse(items[i], 1, .value) else { return nil }
                guard ["string", "value", "null", "resolvedImage"].contains(content.type.kind) else {
                    return ctx.error("Formatted text type must be 'string', 'value', 'image' or 'null'.")
                }
                nextMayBeOptions = true
                sections.append(Section(content: content))
            }
        }
        return FormatNode(sections: sections)
    }

    override func evaluate(_ ctx: EvaluationContext) throws(EvaluationError) -> ExpressionValue {
        var out: [Formatted.Section] = []
        for s in sections {
            let content = try s.content.evaluate(ctx)
            let align = try s.verticalAlign.map { (n) throws(EvaluationError) -> String in try evalString(n, ctx) }
            if case .resolvedImage(let image) = content {
                out.append(Formatted.Section(text: "", image: image, verticalAlign: align))
                continue
            }
            var font: String?
            if let f = s.font, case .array(let names) = try f.evaluate(ctx) {
                font = names.map(\.text).joined(separator: ",")
            }
            var color: Color?
            if let c = s.textColor, case .color(let v) = try c.evaluate(ctx) { color = v }
            out.append(
                Formatted.Section(
                    text: content.text, image: nil,
                    scale: try s.scale.map { (n) throws(EvaluationError) -> Double in try evalNumber(n, ctx) },
                    fontStack: font, textColor: color, verticalAlign: align))
        }
        return .formatted(Formatted(sections: out))
    }

    override func serialize() -> JSONValue {
        var out: [JSONValue] = [.string("format")]
        for s in sections {
            out.append(s.content.serialize())
            var o = JSONObject()
            if let v = s.scale { o["font-scale"] = v.serialize() }
            if let v = s.font { o["text-font"] = v.serialize() }
            if let v = s.textColor { o["text-color"] = v.serialize() }
            if let v = s.verticalAlign { o["vertical-align"] = v.serialize() }
            out.append(.object(o))
        }
        return .array(out)
    }

    /// A constant formatted value as a `format` expression.
    static func serialize(_ f: Formatted) -> JSONValue {
        var out: [JSONValue] = [.string("format")]
        for s in f.sections {
            if let image = s.image {
                out.append(.array([.string("image"), .string(image.name)]))
            } else {
                out.append(.string(s.text))
            }
            var o = JSONObject()
            if let v = s.scale { o["font-scale"] = .double(v) }
            if let v = s.fontStack {
                o["text-font"] = .array([
                    .string("literal"), .array(v.split(separator: ",").map { .string(String($0)) }),
                ])
            }
            if let v = s.textColor { o["text-color"] = .string(v.cssString) }
            if let v = s.verticalAlign { o["vertical-align"] = .string(v) }
            out.append(.object(o))
        }
        return .array(out)
    }
}

extension JSONValue {
    /// JavaScript truthiness of a raw JSON value (options objects test members this way).
    var isTruthyJSON: Bool {
        switch self {
        case .null: return false
        case .bool(let b): return b
        case .int(let v): return v != 0
        case .uint(let v): return v != 0
        case .double(let d): return d != 0 && !d.isNaN
        case .string(let s): return !s.isEmpty
        default: return true
        }
    }
}

final class ImageNode: ExprNode, @unchecked Sendable {
    let name: ExprNode
    init(name: ExprNode) {
        self.name = name
        super.init(type: .resolvedImage)
    }
    override var children: [ExprNode] { [name] }
    override func serialize() -> JSONValue { .array([.string("image"), name.serialize()]) }

    static func parse(_ items: [JSONValue], _ ctx: ParsingContext) -> ExprNode? {
        guard items.count == 2 else { return ctx.error("Expected two arguments.") }
        guard let name = ctx.parse(items[1], 1, .string) else { return ctx.error("No image name provided.") }
        return ImageNode(name: name)
    }

    override func evaluate(_ ctx: EvaluationContext) throws(EvaluationError) -> ExpressionValue {
        let n = try evalString(name, ctx)
        return .resolvedImage(ResolvedImage(name: n, available: ctx.availableImages.contains(n)))
    }
}

final class NumberFormatNode: ExprNode, @unchecked Sendable {
    let number: ExprNode
    let locale: ExprNode?, currency: ExprNode?, unit: ExprNode?, minFraction: ExprNode?, maxFraction: ExprNode?
    init(
        number: ExprNode, locale: ExprNode?, currency: ExprNode?, unit: ExprNode?, minFraction: ExprNode?,
        maxFraction: ExprNode?
    ) {
        self.number = number
        self.locale = locale
        self.currency = currency
        self.unit = unit
        self.minFraction = minFraction
        self.maxFraction = maxFraction
        super.init(type: .string)
    }
    override var children: [ExprNode] {
        [number] + [locale, currency, unit, minFraction, maxFraction].compactMap { $0 }
    }
    override func serialize() -> JSONValue {
        var o = JSONObject()
        if let v = locale { o["locale"] = v.serialize() }
        if let v = currency { o["currency"] = v.serialize() }
        if let v = unit { o["unit"] = v.serialize() }
        if let v = minFraction { o["min-fraction-digits"] = v.serialize() }
        if let v = maxFraction { o["max-fraction-digits"] = v.serialize() }
        return .array([.string("number-format"), number.serialize(), .object(o)])
    }

    static func parse(_ items: [JSONValue], _ ctx: ParsingContext) -> ExprNode? {
        guard items.count == 3 else { return ctx.error("Expected two arguments.") }
        guard let number = ctx.parse(items[1], 1, .number) else { return nil }
        guard case .object(let options) = items[2] else {
            return ctx.error("NumberFormat options argument must be an object.")
        }
        func option(_ name: String, _ type: ExpressionType) -> (ok: Bool, node: ExprNode?) {
            guard let v = options[name], v.isTruthyJSON else { return (true, nil) }
            guard let p = ctx.parse(v, 1, type) else { return (false, nil) }
            return (true, p)
        }
        let locale = option("locale", .string), currency = option("currency", .string), unit = option("unit", .string)
        guard locale.ok, currency.ok, unit.ok else { return nil }
        if currency.node != nil && unit.node != nil {
            return ctx.error("NumberFormat options `currency` and `unit` are mutually exclusive")
        }
        let minF = option("min-fraction-digits", .number), maxF = option("max-fraction-digits", .number)
        guard minF.ok, maxF.ok else { return nil }
        return NumberFormatNode(
            number: number, locale: locale.node, currency: currency.node, unit: unit.node,
            minFraction: minF.node, maxFraction: maxF.node)
    }

    override func evaluate(_ ctx: EvaluationContext) throws(EvaluationError) -> ExpressionValue {
        func str(_ n: ExprNode?) throws(EvaluationError) -> String? {
            try n.map { (x) throws(EvaluationError) -> String in try evalString(x, ctx) }
        }
        func num(_ n: ExprNode?) throws(EvaluationError) -> Double? {
            try n.map { (x) throws(EvaluationError) -> Double in try evalNumber(x, ctx) }
        }
        // GL JS builds the Intl.NumberFormat (options in this order, its RangeErrors) before it
        // evaluates the number.
        let formatter = try NumberFormat(
            locale: try str(locale), currency: try str(currency), unit: try str(unit),
            minFraction: try num(minFraction), maxFraction: try num(maxFraction))
        return .string(formatter.format(try evalNumber(number, ctx)))
    }
}
