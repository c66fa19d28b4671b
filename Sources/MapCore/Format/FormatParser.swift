// Format strings: the parser from NSPredicate/NSExpression format syntax to the format tree,
// with the functions the SDK documents and named errors for the constructs it rejects.

/// The functions format strings may call, by canonical selector.
enum FormatFunctions {
    enum Arity {
        case exactly(Int)
        case atLeast(Int)
        case between(Int, Int)

        func accepts(_ n: Int) -> Bool {
            switch self {
            case .exactly(let k): return n == k
            case .atLeast(let k): return n >= k
            case .between(let lo, let hi): return n >= lo && n <= hi
            }
        }

        var text: String {
            switch self {
            case .exactly(let k): return k == 1 ? "1 argument" : "\(k) arguments"
            case .atLeast(let k): return "at least \(k) argument\(k == 1 ? "" : "s")"
            case .between(let lo, let hi): return "\(lo) to \(hi) arguments"
            }
        }
    }

    /// `name(arguments)` calls: canonical selector and argument count.
    static let calls: [String: Arity] = [
        "sum:": .atLeast(1), "average:": .atLeast(1), "count:": .exactly(1), "min:": .atLeast(1), "max:": .atLeast(1),
        "add:to:": .exactly(2), "from:subtract:": .between(1, 2), "multiply:by:": .exactly(2),
        "divide:by:": .exactly(2),
        "modulus:by:": .exactly(2), "raise:toPower:": .exactly(2), "sqrt:": .exactly(1), "log:": .exactly(1),
        "ln:": .exactly(1), "exp:": .exactly(1), "ceiling:": .exactly(1), "abs:": .exactly(1), "trunc:": .exactly(1),
        "floor:": .exactly(1), "uppercase:": .exactly(1), "lowercase:": .exactly(1), "noindex:": .exactly(1),
        "length:": .exactly(1), "castObject:toType:": .exactly(2), "objectFrom:withIndex:": .exactly(2),
        "mgl_does:have:": .exactly(2), "mgl_interpolate:withCurveType:parameters:stops:": .exactly(4),
        "mgl_step:from:stops:": .exactly(3), "mgl_join:": .atLeast(1), "mgl_coalesce:": .atLeast(1),
        "mgl_acos:": .exactly(1), "mgl_asin:": .exactly(1), "mgl_atan:": .exactly(1), "mgl_cos:": .exactly(1),
        "mgl_sin:": .exactly(1), "mgl_tan:": .exactly(1), "mgl_log2:": .exactly(1), "mgl_round:": .exactly(1),
        "mgl_distanceFrom:": .exactly(1), "mgl_attributed:": .atLeast(1),
        "MLN_LET": .atLeast(3), "MLN_MATCH": .atLeast(4), "MLN_IF": .atLeast(3), "MLN_FUNCTION": .atLeast(1),
    ]

    /// `FUNCTION(target, 'selector', arguments)` selectors: canonical selector and argument count
    /// (the target not counted).
    static let methods: [String: Arity] = [
        "boolValue": .exactly(0), "stringValue": .exactly(0), "mgl_number": .atLeast(0),
        "mgl_numberWithFallbackValues:": .atLeast(0), "doubleValue": .atLeast(0), "floatValue": .atLeast(0),
        "decimalValue": .atLeast(0), "stringByAppendingString:": .atLeast(1), "mgl_has:": .exactly(1),
        "mgl_expressionWithContext:": .exactly(1), "mgl_interpolateWithCurveType:parameters:stops:": .exactly(3),
        "mgl_stepWithMinimum:stops:": .exactly(2), "mgl_coalesce:": .exactly(0), "valueForKey:": .exactly(1),
        "valueForKeyPath:": .exactly(1),
    ]

    /// Foundation functions the SDK documents as unsupported by style expressions.
    static let unsupported: Set<String> = [
        "median:", "mode:", "stddev:", "random", "randomn:", "now", "bitwiseAnd:with:", "bitwiseOr:with:",
        "bitwiseXor:with:", "leftshift:by:", "rightshift:by:", "onesComplement:", "distanceToLocation:fromLocation:",
    ]

    /// The canonical selector of a name as written: `MGL_`/`mln_` spellings become the MapLibre
    /// ones (`MLN_LET`, `mgl_join:`), and a missing trailing colon is added where the selector
    /// has one (`sum` → `sum:`).
    static func canonical(_ written: String) -> String {
        var name = written
        if name.hasPrefix("MGL_") { name = "MLN_" + name.dropFirst(4) }
        if name.hasPrefix("mln_") { name = "mgl_" + name.dropFirst(4) }
        while name.hasSuffix(":") { name.removeLast() }
        if name.hasPrefix("MLN_") { return name }
        let withColon = name + ":"
        if calls[withColon] != nil || methods[withColon] != nil || unsupported.contains(withColon) { return withColon }
        return name
    }

    /// The types `CAST(x, 'Type')` converts to.
    static let castTypes: Set<String> = [
        "NSNumber", "NSString", "UIColor", "NSColor", "MLNColor", "MGLColor", "NSArray",
    ]
}

/// Reads a format string into the format tree. `%@` and `%K` take their values from `arguments`.
struct FormatParser {
    /// Parentheses, calls, aggregates, prefix operators and chained arithmetic operators nested
    /// deeper than this are refused:
    /// far beyond real styles, and within what a 128 KB thread stack can parse and convert.
    /// Chains count as the tree they make (a - b - c - d is three levels on the left and one
    /// above each right operand), not as the text nests, so a string the printer writes for a
    /// tree reads back: it drops parentheses the input had, which must not deepen the count.
    static let maxDepth = 32

    private enum Node {
        case expression(FormatExpression)
        case predicate(FormatPredicate)

        var isPredicate: Bool {
            if case .predicate = self { return true }
            return false
        }
    }

    private let bytes: [UInt8]
    private let tokens: [PositionedToken]
    private var index = 0
    private let arguments: [JSONValue]
    private var argumentIndex = 0
    private var depth = 0
    /// The deepest `depth` reached since a chain started measuring its operand (see maxDepth).
    private var peak = 0

    init(_ bytes: [UInt8], arguments: [JSONValue]) throws(MapCoreError) {
        self.bytes = bytes
        var lexer = FormatLexer(bytes)
        tokens = try lexer.tokenize()
        self.arguments = arguments
    }

    static func parsePredicate(_ bytes: [UInt8], arguments: [JSONValue]) throws(MapCoreError) -> FormatPredicate {
        var p = try FormatParser(bytes, arguments: arguments)
        let start = p.current.offset
        let node = try p.parseTop()
        guard case .predicate(let pred) = node else {
            throw p.fail("Expected a predicate (a comparison such as `x == 1`), found an expression", at: start)
        }
        return pred
    }

    static func parseExpression(_ bytes: [UInt8], arguments: [JSONValue]) throws(MapCoreError) -> FormatExpression {
        var p = try FormatParser(bytes, arguments: arguments)
        let start = p.current.offset
        switch try p.parseTop() {
        case .expression(let e): return e
        case .predicate:
            throw p.fail(
                "Expected an expression, found a predicate (use TERNARY or MGL_IF to choose a value)", at: start)
        }
    }

    // MARK: Helpers

    private var current: PositionedToken { tokens[min(index, tokens.count - 1)] }

    private func fail(_ message: String, at offset: Int, code: ErrorCode = .parse) -> MapCoreError {
        FormatLexer.error(message, at: offset, in: bytes, code: code)
    }

    private func keyword(_ t: FormatToken) -> String? {
        if case .identifier(let s) = t { return s.uppercased() }
        return nil
    }

    private func isSymbol(_ s: String) -> Bool { current.token == .symbol(s) }

    private func isKeyword(_ words: String...) -> Bool {
        guard let k = keyword(current.token) else { return false }
        return words.contains(k)
    }

    private mutating func expect(_ s: String, _ context: String) throws(MapCoreError) {
        guard isSymbol(s) else {
            throw fail("Expected '\(s)' \(context), found \(describe(current.token))", at: current.offset)
        }
        index += 1
    }

    private func describe(_ t: FormatToken) -> String {
        switch t {
        case .end: return "the end of the format string"
        case .symbol(let s): return "'\(s)'"
        case .identifier(let s): return "'\(s)'"
        case .escapedIdentifier(let s): return "'#\(s)'"
        case .variable(let s): return "'$\(s)'"
        case .string: return "a string"
        case .number: return "a number"
        case .valuePlaceholder: return "'%@'"
        case .keyPlaceholder: return "'%K'"
        }
    }

    private mutating func nest(_ offset: Int) throws(MapCoreError) {
        depth += 1
        peak = max(peak, depth)
        if depth > Self.maxDepth { throw tooDeep(offset) }
    }

    /// Out of line: the message's temporaries would otherwise sit in every recursive frame, and
    /// the limit is sized for a 128 KB stack.
    @inline(never) private func tooDeep(_ offset: Int) -> MapCoreError {
        fail("Nesting deeper than \(Self.maxDepth) levels", at: offset, code: .limit)
    }

    private func expression(_ node: Node, _ offset: Int) throws(MapCoreError) -> FormatExpression {
        guard case .expression(let e) = node else {
            throw fail("Expected an expression, found a predicate", at: offset)
        }
        return e
    }

    private func predicate(_ node: Node, _ offset: Int) throws(MapCoreError) -> FormatPredicate {
        guard case .predicate(let p) = node else {
            throw fail("Expected a predicate (a comparison such as `x == 1`), found an expression", at: offset)
        }
        return p
    }

    // MARK: Grammar

    private mutating func parseTop() throws(MapCoreError) -> Node {
        guard current.token != .end else { throw fail("The format string is empty", at: 0) }
        let node = try parseOr()
        guard current.token == .end else {
            let kind = node.isPredicate ? "predicate" : "expression"
            throw fail("Unexpected \(describe(current.token)) after a complete \(kind)", at: current.offset)
        }
        if argumentIndex < arguments.count {
            throw fail(
                "\(arguments.count) arguments given but the format string has \(argumentIndex) placeholders",
                at: current.offset, code: .invalidArgument)
        }
        return node
    }

    /// Binding strength of the operators. One loop handles every binary level (precedence
    /// climbing), so a nested parenthesis costs four stack frames, not one per level.
    private enum Level: Int {
        case or = 1, and, comparison, additive, multiplicative, power, unary
    }

    private func binaryOperator() -> (Level, String)? {
        switch current.token {
        case .symbol("||"): return (.or, "OR")
        case .symbol("&&"): return (.and, "AND")
        case .symbol("+"): return (.additive, "add:to:")
        case .symbol("-"): return (.additive, "from:subtract:")
        case .symbol("*"): return (.multiplicative, "multiply:by:")
        case .symbol("/"): return (.multiplicative, "divide:by:")
        case .symbol("**"): return (.power, "raise:toPower:")
        default:
            switch keyword(current.token) {
            case "OR": return (.or, "OR")
            case "AND": return (.and, "AND")
            default: return nil
            }
        }
    }

    private mutating func parseOr() throws(MapCoreError) -> Node { try parseBinary(.or) }

    /// Operators binding at least as strongly as `minimum`, left-associative; comparisons do not
    /// chain.
    private mutating func parseBinary(_ minimum: Level) throws(MapCoreError) -> Node {
        let start = current.offset
        let base = depth, outerPeak = peak
        peak = base
        var left = try parsePrefix(minimum)
        // Levels the tree built so far adds below `base`: each arithmetic operator puts the
        // chain one level deeper on the left (a + b + c is (a + b) + c) and its right operand
        // one level below the new node. Comparisons, AND and OR add none (as before chains).
        var height = peak - base
        defer { peak = max(outerPeak, base + height) }
        while true {
            if minimum.rawValue <= Level.comparison.rawValue, case .expression = left, try peekComparison() {
                peak = base
                left = try parseComparison(left: left, leftStart: start, modifier: .direct, word: "")
                height = max(height, peak - base)
                continue
            }
            guard let (level, name) = binaryOperator(), level.rawValue >= minimum.rawValue else { return left }
            let arithmetic = level != .or && level != .and
            if arithmetic {
                height += 1
                if base + height > Self.maxDepth { throw tooDeep(current.offset) }
            }
            index += 1
            let at = current.offset
            if arithmetic { try nest(at) }
            peak = depth
            let right = try parseBinary(Level(rawValue: level.rawValue + 1) ?? .unary)
            height = max(height, peak - base)
            if arithmetic { depth -= 1 }
            left = try combine(level, name, left, start, right, at)
        }
    }

    /// The node of `left op right` (AND and OR gather their operands). Out of line, as tooDeep.
    @inline(never) private func combine(
        _ level: Level, _ name: String, _ left: Node, _ start: Int, _ right: Node, _ at: Int
    ) throws(MapCoreError) -> Node {
        switch level {
        case .or:
            let l = try predicate(left, start), r = try predicate(right, at)
            if case .or(let parts) = l { return .predicate(.or(parts + [r])) }
            return .predicate(.or([l, r]))
        case .and:
            let l = try predicate(left, start), r = try predicate(right, at)
            if case .and(let parts) = l { return .predicate(.and(parts + [r])) }
            return .predicate(.and([l, r]))
        default:
            return .expression(
                .function(name, operand: nil, arguments: [try expression(left, start), try expression(right, at)]))
        }
    }

    /// NOT, ANY/SOME/ALL/NONE and unary minus, then a postfix expression.
    /// The common path stays small: NOT, ANY/SOME/ALL/NONE and minus are out of line, so a
    /// level of parentheses costs little stack (the limit is sized for a 128 KB stack).
    private mutating func parsePrefix(_ minimum: Level) throws(MapCoreError) -> Node {
        if minimum.rawValue <= Level.comparison.rawValue && (isKeyword("NOT") || isSymbol("!")) {
            return try parseNot()
        }
        if minimum.rawValue <= Level.comparison.rawValue, let k = keyword(current.token),
            ["ANY", "SOME", "ALL", "NONE"].contains(k)
        {
            return try parseQuantified(k)
        }
        if isSymbol("-") { return try parseNegation() }
        return try parsePostfix()
    }

    @inline(never) private mutating func parseNot() throws(MapCoreError) -> Node {
        let start = current.offset
        index += 1
        try nest(start)
        let at = current.offset
        let operand = try predicate(try parseBinary(.comparison), at)
        depth -= 1
        return .predicate(.not(operand))
    }

    @inline(never) private mutating func parseQuantified(_ k: String) throws(MapCoreError) -> Node {
        index += 1
        let lhsStart = current.offset
        let lhs = try parseBinary(.additive)
        guard try peekComparison() else { throw fail("Expected a comparison after \(k)", at: current.offset) }
        return try parseComparison(left: lhs, leftStart: lhsStart, modifier: k == "ALL" ? .all : .any, word: k)
    }

    @inline(never) private mutating func parseNegation() throws(MapCoreError) -> Node {
        let start = current.offset
        index += 1
        try nest(start)
        let at = current.offset
        let operand = try expression(try parsePrefix(.unary), at)
        depth -= 1
        switch operand {
        case .constant(.int(let v)) where v != Int64.min: return .expression(.constant(.int(-v)))
        case .constant(.uint(let v)) where v == UInt64(Int64.max) + 1:
            return .expression(.constant(.int(Int64.min)))
        case .constant(let c) where c.doubleValue != nil:
            return .expression(.constant(.double(-(c.doubleValue ?? 0))))
        default: return .expression(.function("from:subtract:", operand: nil, arguments: [operand]))
        }
    }

    private mutating func peekComparison() throws(MapCoreError) -> Bool {
        let saved = index
        defer { index = saved }
        return try comparisonOperator() != nil
    }

    private mutating func parseComparison(
        left lhs: Node, leftStart lhsStart: Int, modifier: FormatModifier,
        word: String
    ) throws(MapCoreError) -> Node {
        let opStart = current.offset
        guard let op = try comparisonOperator() else { return lhs }
        let options = try comparisonOptions()
        let rhsStart = current.offset
        let rhs = try expression(try parseBinary(.additive), rhsStart)
        let left = try expression(lhs, lhsStart)
        if modifier != .direct {
            if !options.isEmpty {
                throw fail(
                    "Comparison options such as [c] or [d] cannot be combined with \(word)", at: opStart,
                    code: .unsupported)
            }
            if modifier == .any && op != .equal {
                throw fail("\(word) is only supported with the = operator", at: opStart, code: .unsupported)
            }
            if modifier == .all && op != .notEqual {
                throw fail("ALL is only supported with the != operator", at: opStart, code: .unsupported)
            }
        }
        if op == .between {
            guard case .aggregate(let bounds) = rhs, bounds.count == 2 else {
                throw fail("BETWEEN needs two bounds, as in `x BETWEEN {1, 10}`", at: rhsStart)
            }
        }
        if !options.isEmpty && (op == .in || op == .contains || op == .between) {
            throw fail(
                "Comparison options such as [c] or [d] are not supported with \(op.rawValue)", at: opStart,
                code: .unsupported)
        }
        let comparison = FormatPredicate.comparison(left, op, rhs, modifier: modifier, options: options)
        return .predicate(word == "NONE" ? .not(comparison) : comparison)
    }

    private mutating func comparisonOperator() throws(MapCoreError) -> FormatComparison? {
        let t = current
        var op: FormatComparison?
        switch t.token {
        case .symbol("="), .symbol("=="): op = .equal
        case .symbol("!="), .symbol("<>"): op = .notEqual
        case .symbol("<"): op = .less
        case .symbol("<="), .symbol("=<"): op = .lessOrEqual
        case .symbol(">"): op = .greater
        case .symbol(">="), .symbol("=>"): op = .greaterOrEqual
        default:
            switch keyword(t.token) {
            case "BETWEEN": op = .between
            case "IN": op = .in
            case "CONTAINS": op = .contains
            case "BEGINSWITH", "ENDSWITH", "LIKE", "MATCHES":
                throw fail(
                    "The string operator \(keyword(t.token) ?? "") is not supported by style expressions",
                    at: t.offset, code: .unsupported)
            case "UTI-CONFORMS-TO", "UTI-EQUALS":
                throw fail("UTI comparisons are not supported by style expressions", at: t.offset, code: .unsupported)
            default: op = nil
            }
        }
        if op != nil { index += 1 }
        return op
    }

    private mutating func comparisonOptions() throws(MapCoreError) -> FormatOptions {
        guard isSymbol("["), case .identifier(let letters) = tokens[min(index + 1, tokens.count - 1)].token,
            tokens[min(index + 2, tokens.count - 1)].token == .symbol("]")
        else { return FormatOptions() }
        let at = current.offset
        var options = FormatOptions()
        for ch in letters {
            switch ch {
            case "c": options.caseInsensitive = true
            case "d": options.diacriticInsensitive = true
            case "l", "n":
                throw fail(
                    "The comparison option [\(ch)] is not supported by style expressions", at: at, code: .unsupported)
            default:
                throw fail("Unknown comparison option [\(letters)]", at: at)
            }
        }
        index += 3
        return options
    }

    private mutating func parsePostfix() throws(MapCoreError) -> Node {
        let start = current.offset
        let level = depth, outerPeak = peak
        peak = level
        var node = try parsePrimary()
        // a[0][1] and (x).a.b nest the tree as a chain does: one level per subscript or key on
        // the left, the index one level below its node (see maxDepth).
        var height = peak - level
        while isSymbol("[") || isSymbol(".") {
            node = try parseSuffix(node, start: start, level: level, height: &height)
        }
        peak = max(outerPeak, level + height)
        return node
    }

    /// One `[index]` or `.key` after `node`. Out of line, as parsePrefix's rare branches.
    @inline(never) private mutating func parseSuffix(
        _ node: Node, start: Int, level: Int, height: inout Int
    ) throws(MapCoreError) -> Node {
        let base = try expression(node, start)
        height += 1
        if level + height > Self.maxDepth { throw tooDeep(current.offset) }
        if isSymbol("[") {
            let open = current.offset
            index += 1
            try nest(open)
            peak = depth
            let idx: FormatExpression
            if let k = keyword(current.token), ["FIRST", "LAST", "SIZE"].contains(k) {
                idx = .indexKeyword(k)
                index += 1
            } else {
                let at = current.offset
                idx = try expression(try parseOr(), at)
            }
            try expect("]", "to close the index")
            depth -= 1
            height = max(height, peak - level)
            return .expression(.function("objectFrom:withIndex:", operand: nil, arguments: [base, idx]))
        }
        index += 1
        let key: String
        switch current.token {
        case .identifier(let s) where !s.contains(":"):
            key = s
            index += 1
        case .escapedIdentifier(let s):
            key = s
            index += 1
        case .keyPlaceholder: key = try keyArgument()
        default: throw fail("Expected a key after '.', found \(describe(current.token))", at: current.offset)
        }
        switch base {
        case .keyPath(let path): return .expression(.keyPath(path + [key]))
        case .evaluatedObject: return .expression(.keyPath([key]))
        default: return .expression(.function("valueForKey:", operand: base, arguments: [.constant(.string(key))]))
        }
    }

    /// The next `%K` argument, which must name a property. Consumes the placeholder token.
    private mutating func keyArgument() throws(MapCoreError) -> String {
        let at = current.offset
        guard argumentIndex < arguments.count else {
            throw fail(
                "The format string has more placeholders than the \(arguments.count) arguments given", at: at,
                code: .invalidArgument)
        }
        guard case .string(let key) = arguments[argumentIndex] else {
            throw fail("The argument for %K must be a string (a property name)", at: at, code: .invalidArgument)
        }
        argumentIndex += 1
        index += 1
        return key
    }

    private mutating func valueArgument() throws(MapCoreError) -> FormatExpression {
        let at = current.offset
        guard argumentIndex < arguments.count else {
            throw fail(
                "The format string has more placeholders than the \(arguments.count) arguments given", at: at,
                code: .invalidArgument)
        }
        let value = arguments[argumentIndex]
        argumentIndex += 1
        index += 1
        do {
            try FormatFromJSON.checkDepth(value)
            return try FormatArguments.expression(value)
        } catch {
            throw fail("Argument \(argumentIndex): \(error.message)", at: at, code: error.code)
        }
    }

    private mutating func parsePrimary() throws(MapCoreError) -> Node {
        let t = current
        switch t.token {
        case .number(let n):
            index += 1
            return .expression(.constant(n))
        case .string(let s):
            index += 1
            return .expression(.constant(.string(s)))
        case .variable(let name):
            index += 1
            return .expression(.variable(name))
        case .escapedIdentifier(let name):
            index += 1
            return .expression(.keyPath([name]))
        case .keyPlaceholder:
            return .expression(.keyPath([try keyArgument()]))
        case .valuePlaceholder:
            return .expression(try valueArgument())
        case .symbol("("):
            index += 1
            try nest(t.offset)
            let node = try parseOr()
            try expect(")", "to close the parenthesis opened at offset \(t.offset)")
            depth -= 1
            return node
        case .symbol("{"):
            index += 1
            return .expression(
                .aggregate(
                    try parseList(
                        closing: "}", "to close the aggregate opened at offset \(t.offset)",
                        opened: t.offset)))
        case .identifier(let name):
            if tokens[min(index + 1, tokens.count - 1)].token == .symbol("(") {
                return try parseCall(name, at: t.offset)
            }
            index += 1
            switch name.uppercased() {
            case "TRUE", "YES": return .expression(.constant(.bool(true)))
            case "FALSE", "NO": return .expression(.constant(.bool(false)))
            case "NIL", "NULL": return .expression(.constant(.null))
            case "SELF": return .expression(.evaluatedObject)
            case "TRUEPREDICATE": return .predicate(.constant(true))
            case "FALSEPREDICATE": return .predicate(.constant(false))
            case "SUBQUERY", "FETCH", "ANYKEY":
                throw fail(
                    "\(name.uppercased()) is not supported by style expressions", at: t.offset, code: .unsupported)
            default: break
            }
            if name.contains(":") {
                throw fail("Expected '(' after the function name '\(name)'", at: t.offset + name.utf8.count)
            }
            if formatReservedWords.contains(name.uppercased()) {
                throw fail(
                    "Unexpected keyword '\(name)' (prefix a key path with # to use a reserved word)", at: t.offset)
            }
            return .expression(.keyPath([name]))
        case .end:
            throw fail("Unexpected end of the format string", at: t.offset)
        default:
            throw fail("Unexpected \(describe(t.token))", at: t.offset)
        }
    }

    private mutating func parseCall(_ name: String, at offset: Int) throws(MapCoreError) -> Node {
        index += 2  // name and "("
        let args = try parseList(closing: ")", "to close the arguments of \(name)", opened: offset)
        return try call(name, args, at: offset)
    }

    /// Comma-separated items up to `closing` (aggregates and call arguments); predicates are
    /// allowed as items (MGL_IF conditions, TERNARY).
    private mutating func parseList(
        closing: String, _ context: @autoclosure () -> String,
        opened: Int
    ) throws(MapCoreError) -> [FormatExpression] {
        try nest(opened)
        var items: [FormatExpression] = []
        if !isSymbol(closing) {
            while true {
                switch try parseOr() {
                case .expression(let e): items.append(e)
                case .predicate(let p): items.append(.predicate(p))
                }
                if isSymbol(",") { index += 1; continue }
                break
            }
        }
        try expect(closing, context())
        depth -= 1
        return items
    }

    /// The node for a call whose arguments are read; kept out of the recursive frame.
    @inline(never)
    private func call(_ name: String, _ args: [FormatExpression], at offset: Int) throws(MapCoreError) -> Node {
        switch name.uppercased() {
        case "FUNCTION":
            guard args.count >= 2, case .constant(.string(let written)) = args[1] else {
                throw fail("FUNCTION needs a target and a selector string, as in FUNCTION(x, 'boolValue')", at: offset)
            }
            let selector = FormatFunctions.canonical(written)
            if FormatFunctions.unsupported.contains(selector) {
                throw fail(
                    "The function '\(selector)' is not supported by style expressions", at: offset, code: .unsupported)
            }
            guard let arity = FormatFunctions.methods[selector] else {
                throw fail("Unknown FUNCTION selector '\(written)'", at: offset)
            }
            let rest = Array(args.dropFirst(2))
            guard arity.accepts(rest.count) else {
                throw fail("'\(selector)' takes \(arity.text) after its target, found \(rest.count)", at: offset)
            }
            return .expression(.function(selector, operand: args[0], arguments: rest))
        case "TERNARY":
            guard args.count == 3, case .predicate(let condition) = args[0] else {
                throw fail("TERNARY needs a predicate and two expressions, as in TERNARY(x > 1, 'a', 'b')", at: offset)
            }
            return .expression(.conditional(condition, args[1], args[2]))
        case "CAST":
            guard args.count == 2, case .constant(.string(let type)) = args[1] else {
                throw fail("CAST needs a value and a type name, as in CAST(x, 'NSString')", at: offset)
            }
            guard FormatFunctions.castTypes.contains(type) else {
                throw fail(
                    "CAST to '\(type)' is not supported (NSNumber, NSString, UIColor, NSColor, NSArray are)",
                    at: offset, code: .unsupported)
            }
            return .expression(.function("castObject:toType:", operand: nil, arguments: args))
        default: break
        }
        let selector = FormatFunctions.canonical(name)
        if FormatFunctions.unsupported.contains(selector) {
            throw fail(
                "The function '\(selector)' is not supported by style expressions", at: offset, code: .unsupported)
        }
        guard let arity = FormatFunctions.calls[selector] else {
            throw fail("Unknown function '\(name)'", at: offset)
        }
        guard arity.accepts(args.count) else {
            throw fail("'\(selector)' takes \(arity.text), found \(args.count)", at: offset)
        }
        return .expression(.function(selector, operand: nil, arguments: args))
    }
}

/// How `%@` arguments (JSON values) become format-tree nodes.
enum FormatArguments {
    static let geoJSONTypes: Set<String> = [
        "Point", "MultiPoint", "LineString", "MultiLineString", "Polygon", "MultiPolygon", "GeometryCollection",
        "Feature", "FeatureCollection",
    ]

    /// Scalars are constants, arrays aggregates, GeoJSON objects shapes, `{"$expression": e}` the
    /// JSON expression `e`, other objects dictionaries.
    static func expression(_ value: JSONValue) throws(MapCoreError) -> FormatExpression {
        switch value {
        case .array(let items):
            var out: [FormatExpression] = []
            out.reserveCapacity(items.count)
            for item in items { out.append(try expression(item)) }
            return .aggregate(out)
        case .object(let o):
            if o.count == 1, let e = o["$expression"] { return try FormatFromJSON.expression(e) }
            if case .string(let type)? = o["type"], geoJSONTypes.contains(type) { return .shape(value) }
            return .dictionary(o)
        default:
            return .constant(value)
        }
    }
}
