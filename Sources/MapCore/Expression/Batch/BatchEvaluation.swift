// Expression: evaluation over many features at once, into the typed arrays a renderer uploads.
//
// Evaluating the node tree feature by feature costs a context update, a virtual call per node
// and an `ExpressionValue` per result: about 250 ns per feature whatever the expression. The
// common shapes of data-driven styling (a property read, compared, matched, stepped or
// interpolated over constant outputs; boolean combinations; `within` for points) compile here
// into kernels that run over property columns (`FeatureTable`) a chunk of rows at a time.
//
// A kernel never decides a row it is not sure of: each marks the rows whose inputs are not of
// the kind it handles (a string where a number is asserted, a non-Point feature for `within`,
// a NaN step input), and those rows alone go through the node tree. So a kernel computes
// exactly what the tree computes, with the same helpers (`stopIndex`, `Interpolation.factor`,
// `Color.interpolate`), and any shape it does not know evaluates exactly as before.

/// Where batch results go: one slot per feature, in feature order.
public enum BatchOutput {
    /// One double per feature; NaN where evaluation failed.
    case numbers(UnsafeMutablePointer<Double>)
    /// Four floats per feature (premultiplied r, g, b, a in 0…1); NaN where evaluation failed.
    case colors(UnsafeMutablePointer<Float>)
    /// One byte per feature, 1 or 0; 0 where evaluation failed.
    case booleans(UnsafeMutablePointer<UInt8>)
}

/// Rows per kernel call: small enough that every intermediate lane stays in L1.
private let chunkRows = 256
/// Kernels nest at most this deep (each level holds one chunk of scratch on the stack);
/// deeper trees are evaluated node by node.
private let maxKernelDepth = 8

/// Computes rows `start ..< start + count`: writes lane values at 0..<count and clears `ok[j]`
/// (to 0) for each row it cannot decide; it never sets it back. Flags and booleans are bytes
/// (1 or 0), so lanes combine with `&` and `|`, which vectorise where `&&` would branch.
private typealias NumberKernel = (
    _ start: Int, _ count: Int, _ out: UnsafeMutablePointer<Double>, _ ok: UnsafeMutablePointer<UInt8>
) -> Void
private typealias BoolKernel = (
    _ start: Int, _ count: Int, _ out: UnsafeMutablePointer<UInt8>, _ ok: UnsafeMutablePointer<UInt8>
) -> Void
/// Four floats per row.
private typealias ColorKernel = (
    _ start: Int, _ count: Int, _ out: UnsafeMutablePointer<Float>, _ ok: UnsafeMutablePointer<UInt8>
) -> Void

extension StyleExpression {
    /// Evaluates against every feature of `table`, with `context` supplying everything but the
    /// feature. `errors[i]` (when given) is set to 0 for a result and 1 for a failed evaluation
    /// or a result of another type (colors also accept strings that parse as colors).
    public func evaluate(
        over table: FeatureTable, context: EvaluationContext, into output: BatchOutput,
        errors: UnsafeMutablePointer<UInt8>?
    ) {
        let builder = KernelBuilder(table: table, context: context)
        var ctx = context
        let features = table.features
        var done = [UInt8](repeating: 1, count: chunkRows)

        func evaluateRow(_ row: Int) {
            ctx.setFeature(features[row])
            let result: ExpressionValue?
            do { result = try root.evaluate(ctx) } catch { result = nil }
            var failed = true
            switch output {
            case .numbers(let out):
                if case .number(let d)? = result { out[row] = d; failed = false } else { out[row] = .nan }
            case .booleans(let out):
                if case .boolean(let b)? = result { out[row] = b ? 1 : 0; failed = false } else { out[row] = 0 }
            case .colors(let out):
                var color: Color?
                switch result {
                case .color(let c)?: color = c
                case .string(let s)?: color = Color.parse(s)
                default: break
                }
                if let c = color {
                    BatchOutput.write(c, to: out + 4 * row); failed = false
                } else {
                    for k in 0..<4 { out[4 * row + k] = .nan }
                }
            }
            errors?[row] = failed ? 1 : 0
        }

        // Runs a kernel over every chunk, then the node tree over the rows it left open.
        func run(_ kernel: (Int, Int, UnsafeMutablePointer<UInt8>) -> Void) {
            done.withUnsafeMutableBufferPointer { ok in
                guard let ok = ok.baseAddress else { return }
                var start = 0
                while start < features.count {
                    let n = min(chunkRows, features.count - start)
                    ok.update(repeating: 1, count: n)
                    kernel(start, n, ok)
                    var decided: UInt8 = 1
                    for j in 0..<n { decided &= ok[j] }
                    if decided == 1 {
                        errors.map { ($0 + start).update(repeating: 0, count: n) }
                    } else {
                        for j in 0..<n {
                            if ok[j] != 0 { errors?[start + j] = 0 } else { evaluateRow(start + j) }
                        }
                    }
                    start += n
                }
            }
        }

        switch output {
        case .numbers(let out):
            if let k = builder.number(root, depth: 0) {
                run { start, n, ok in k(start, n, out + start, ok) }
                return
            }
        case .booleans(let out):
            if let k = builder.bool(root, depth: 0) {
                run { start, n, ok in k(start, n, out + start, ok) }
                return
            }
        case .colors(let out):
            if let k = builder.color(root, depth: 0) {
                run { start, n, ok in k(start, n, out + 4 * start, ok) }
                return
            }
        }
        for row in features.indices { evaluateRow(row) }
    }
}

extension StyleExpression {
    /// Whether a batch into this kind of output runs a kernel, rather than the node tree for
    /// every row (tests check that the kernels they compare are really used).
    func hasBatchKernel(for output: BatchOutput, table: FeatureTable, context: EvaluationContext) -> Bool {
        let builder = KernelBuilder(table: table, context: context)
        switch output {
        case .numbers: return builder.number(root, depth: 0) != nil
        case .booleans: return builder.bool(root, depth: 0) != nil
        case .colors: return builder.color(root, depth: 0) != nil
        }
    }
}

extension BatchOutput {
    fileprivate static func write(_ c: Color, to out: UnsafeMutablePointer<Float>) {
        out[0] = Float(c.r); out[1] = Float(c.g); out[2] = Float(c.b); out[3] = Float(c.a)
    }
}

/// Recognises the node shapes kernels exist for; nil means "evaluate this subtree node by node".
private struct KernelBuilder {
    let table: FeatureTable
    let context: EvaluationContext

    /// The key of `["get", "literal key"]` (no object argument).
    private func getKey(_ node: ExprNode) -> String? {
        guard let c = node as? CompoundNode, c.name == "get", c.args.count == 1,
            let key = c.args[0] as? LiteralNode, case .string(let s) = key.value
        else { return nil }
        return s
    }

    /// `["get", key]` where a number is asserted.
    private func numberColumn(_ node: ExprNode) -> PropertyColumn? {
        guard let a = node as? AssertionNode, a.type == .number, a.args.count == 1, let key = getKey(a.args[0]) else {
            return nil
        }
        return table.column(key)
    }

    func number(_ node: ExprNode, depth: Int) -> NumberKernel? {
        guard depth < maxKernelDepth else { return nil }
        if let literal = node as? LiteralNode {
            guard case .number(let d) = literal.value else { return nil }
            return { _, n, out, _ in out.update(repeating: d, count: n) }
        }
        if let column = numberColumn(node) {
            return { start, n, out, ok in
                column.kinds.withUnsafeBufferPointer { kinds in
                    column.numbers.withUnsafeBufferPointer { numbers in
                        for j in 0..<n {
                            out[j] = numbers[start + j]
                            ok[j] &= kinds[start + j] == PropertyColumn.Kind.number.rawValue ? 1 : 0
                        }
                    }
                }
            }
        }
        if let c = node as? CompoundNode {
            if c.name == "zoom", let z = context.zoom { return { _, n, out, _ in out.update(repeating: z, count: n) } }
            return arithmetic(c, depth: depth)
        }
        if let step = node as? StepNode {
            guard
                let outputs = constants(
                    step.outputs, { v -> Double? in if case .number(let d) = v { return d } else { return nil } })
            else { return nil }
            return selectStep(step, depth: depth) { pick, _, n, out in
                outputs.withUnsafeBufferPointer { o in for j in 0..<n { out[j] = o[pick[j]] } }
            }
        }
        if let ramp = node as? InterpolateNode {
            guard ramp.op == "interpolate",
                let outputs = constants(
                    ramp.outputs, { v -> Double? in if case .number(let d) = v { return d } else { return nil } })
            else { return nil }
            return selectRamp(ramp, depth: depth) { lower, t, n, out in
                for j in 0..<n {
                    let x = outputs[lower[j]]
                    out[j] = t[j].isNaN ? x : x + t[j] * (outputs[lower[j] + 1] - x)
                }
            }
        }
        if let match = node as? MatchNode {
            guard
                let outputs = constants(
                    match.outputs + [match.otherwise],
                    { v -> Double? in if case .number(let d) = v { return d } else { return nil } })
            else { return nil }
            return selectMatch(match) { pick, n, out in for j in 0..<n { out[j] = outputs[pick[j]] } }
        }
        return nil
    }

    /// `+`, `*` (in argument order, from 0 and 1 as the tree does), binary and unary `-`, `/`.
    private func arithmetic(_ c: CompoundNode, depth: Int) -> NumberKernel? {
        guard ["+", "*", "-", "/"].contains(c.name), !c.args.isEmpty, c.args.count <= 8 else { return nil }
        var parts: [NumberKernel] = []
        for a in c.args {
            guard let k = number(a, depth: depth + 1) else { return nil }
            parts.append(k)
        }
        let op = c.name
        // Arities the closure below indexes: `/` binary, `-` unary or binary.
        if op == "/" { guard parts.count == 2 else { return nil } }
        if op == "-" { guard parts.count <= 2 else { return nil } }
        return { start, n, out, ok in
            withUnsafeTemporaryAllocation(of: Double.self, capacity: n) { scratch in
                guard let x = scratch.baseAddress else { return }
                switch (op, parts.count) {
                case ("-", 1):
                    parts[0](start, n, out, ok)
                    for j in 0..<n { out[j] = -out[j] }
                case ("-", _), ("/", _):
                    parts[0](start, n, out, ok)
                    parts[1](start, n, x, ok)
                    if op == "-" { for j in 0..<n { out[j] -= x[j] } } else { for j in 0..<n { out[j] /= x[j] } }
                default:
                    out.update(repeating: op == "+" ? 0 : 1, count: n)
                    for p in parts {
                        p(start, n, x, ok)
                        if op == "+" { for j in 0..<n { out[j] += x[j] } } else { for j in 0..<n { out[j] *= x[j] } }
                    }
                }
            }
        }
    }

    func bool(_ node: ExprNode, depth: Int) -> BoolKernel? {
        guard depth < maxKernelDepth else { return nil }
        if let literal = node as? LiteralNode {
            guard case .boolean(let b) = literal.value else { return nil }
            return { _, n, out, _ in out.update(repeating: b ? 1 : 0, count: n) }
        }
        if let cmp = node as? ComparisonNode { return comparison(cmp, depth: depth) }
        if let within = node as? WithinNode {
            guard context.canonical == nil, let locator = within.locator else { return nil }
            let points = table.points()
            return { start, n, out, ok in
                points.xs.withUnsafeBufferPointer { xs in
                    points.ys.withUnsafeBufferPointer { ys in
                        for j in 0..<n {
                            let x = xs[start + j], y = ys[start + j]
                            if x.isNaN { ok[j] = 0; out[j] = 0; continue }
                            out[j] = locator.locate(x, y) == .interior ? 1 : 0
                        }
                    }
                }
            }
        }
        if let match = node as? MatchNode {
            guard
                let outputs = constants(
                    match.outputs + [match.otherwise],
                    { v -> UInt8? in if case .boolean(let b) = v { return b ? 1 : 0 } else { return nil } })
            else { return nil }
            return selectMatch(match) { pick, n, out in for j in 0..<n { out[j] = outputs[pick[j]] } }
        }
        if let c = node as? CompoundNode {
            if c.name == "has", c.args.count == 1, let key = c.args[0] as? LiteralNode, case .string(let s) = key.value
            {
                let column = table.column(s)
                return { start, n, out, _ in
                    column.kinds.withUnsafeBufferPointer { kinds in
                        for j in 0..<n { out[j] = kinds[start + j] != PropertyColumn.Kind.missing.rawValue ? 1 : 0 }
                    }
                }
            }
            guard ["all", "any", "!"].contains(c.name), !c.args.isEmpty, c.args.count <= 16 else { return nil }
            var parts: [BoolKernel] = []
            for a in c.args {
                guard let k = bool(a, depth: depth + 1) else { return nil }
                parts.append(k)
            }
            let op = c.name
            return { start, n, out, ok in
                parts[0](start, n, out, ok)
                if op == "!" { for j in 0..<n { out[j] ^= 1 }; return }
                guard parts.count > 1 else { return }
                withUnsafeTemporaryAllocation(of: UInt8.self, capacity: n) { scratch in
                    guard let x = scratch.baseAddress else { return }
                    for p in parts.dropFirst() {
                        p(start, n, x, ok)
                        if op == "all" { for j in 0..<n { out[j] &= x[j] } } else { for j in 0..<n { out[j] |= x[j] } }
                    }
                }
            }
        }
        return nil
    }

    private func comparison(_ cmp: ComparisonNode, depth: Int) -> BoolKernel? {
        guard cmp.collator == nil else { return nil }
        let op = cmp.op
        // `==`/`!=` of a property and a scalar literal: decided for every row, since values of
        // different types are simply unequal.
        if op == "==" || op == "!=" {
            let pair: (String, ExpressionValue)?
            if let key = getKey(cmp.lhs), let lit = cmp.rhs as? LiteralNode {
                pair = (key, lit.value)
            } else if let key = getKey(cmp.rhs), let lit = cmp.lhs as? LiteralNode {
                pair = (key, lit.value)
            } else {
                pair = nil
            }
            if let (key, value) = pair {
                let column = table.column(key)
                let kind: PropertyColumn.Kind, number: Double, stringID: Int32
                switch value {
                case .null: kind = .null; number = 0; stringID = -1
                case .boolean(let b): kind = b ? .true : .false; number = 0; stringID = -1
                case .number(let d): kind = .number; number = d; stringID = -1
                case .string(let s): kind = .string; number = 0; stringID = column.stringIndex[s] ?? -2
                default: return nil
                }
                let negate = op == "!="
                return { start, n, out, _ in
                    column.kinds.withUnsafeBufferPointer { kinds in
                        column.numbers.withUnsafeBufferPointer { numbers in
                            column.stringIDs.withUnsafeBufferPointer { ids in
                                for j in 0..<n {
                                    let r = start + j
                                    var k = kinds[r]
                                    if k == PropertyColumn.Kind.missing.rawValue {
                                        k = PropertyColumn.Kind.null.rawValue
                                    }
                                    var equal = k == kind.rawValue
                                    if equal && kind == .number { equal = numbers[r] == number }
                                    if equal && kind == .string { equal = ids[r] == stringID }
                                    out[j] = equal != negate ? 1 : 0
                                }
                            }
                        }
                    }
                }
            }
        }
        // Number against number (the parser asserted `number` on property reads).
        guard cmp.lhs.type == .number, cmp.rhs.type == .number,
            let a = number(cmp.lhs, depth: depth + 1), let b = number(cmp.rhs, depth: depth + 1)
        else { return nil }
        return { start, n, out, ok in
            withUnsafeTemporaryAllocation(of: Double.self, capacity: 2 * n) { scratch in
                guard let x = scratch.baseAddress else { return }
                let y = x + n
                a(start, n, x, ok)
                b(start, n, y, ok)
                switch op {
                case "==": for j in 0..<n { out[j] = x[j] == y[j] ? 1 : 0 }
                case "!=": for j in 0..<n { out[j] = x[j] != y[j] ? 1 : 0 }
                case "<": for j in 0..<n { out[j] = x[j] < y[j] ? 1 : 0 }
                case ">": for j in 0..<n { out[j] = x[j] > y[j] ? 1 : 0 }
                case "<=": for j in 0..<n { out[j] = x[j] <= y[j] ? 1 : 0 }
                default: for j in 0..<n { out[j] = x[j] >= y[j] ? 1 : 0 }
                }
            }
        }
    }

    func color(_ node: ExprNode, depth: Int) -> ColorKernel? {
        guard depth < maxKernelDepth else { return nil }
        let asColor = { (v: ExpressionValue) -> Color? in if case .color(let c) = v { return c } else { return nil } }
        if let literal = node as? LiteralNode {
            guard let c = asColor(literal.value) else { return nil }
            return { _, n, out, _ in for j in 0..<n { BatchOutput.write(c, to: out + 4 * j) } }
        }
        if let step = node as? StepNode {
            guard let outputs = constants(step.outputs, asColor) else { return nil }
            return selectStep(step, depth: depth) { pick, _, n, out in
                for j in 0..<n { BatchOutput.write(outputs[pick[j]], to: out + 4 * j) }
            }
        }
        if let ramp = node as? InterpolateNode {
            guard let outputs = constants(ramp.outputs, asColor) else { return nil }
            let space: Color.Space = ramp.op == "interpolate-hcl" ? .hcl : ramp.op == "interpolate-lab" ? .lab : .rgb
            if space == .rgb {
                // `Color.interpolate` in RGB: mix the straight channels, then premultiply, as
                // `Color(r:g:b:a:)` does; the stops' straight channels are read once here.
                let straight = outputs.map(\.rgba)
                return selectRamp(ramp, depth: depth) { lower, t, n, out in
                    for j in 0..<n {
                        let o = out + 4 * j
                        if t[j].isNaN { BatchOutput.write(outputs[lower[j]], to: o); continue }
                        let x = straight[lower[j]], y = straight[lower[j] + 1], f = t[j]
                        let a = x.a + f * (y.a - x.a)
                        o[0] = Float((x.r + f * (y.r - x.r)) * a)
                        o[1] = Float((x.g + f * (y.g - x.g)) * a)
                        o[2] = Float((x.b + f * (y.b - x.b)) * a)
                        o[3] = Float(a)
                    }
                }
            }
            return selectRamp(ramp, depth: depth) { lower, t, n, out in
                for j in 0..<n {
                    let c =
                        t[j].isNaN
                        ? outputs[lower[j]]
                        : Color.interpolate(outputs[lower[j]], outputs[lower[j] + 1], t[j], space: space)
                    BatchOutput.write(c, to: out + 4 * j)
                }
            }
        }
        if let match = node as? MatchNode {
            guard let outputs = constants(match.outputs + [match.otherwise], asColor) else { return nil }
            return selectMatch(match) { pick, n, out in
                for j in 0..<n { BatchOutput.write(outputs[pick[j]], to: out + 4 * j) }
            }
        }
        return nil
    }

    /// The values of nodes that are all literals of one output type.
    private func constants<T>(_ nodes: [ExprNode], _ convert: (ExpressionValue) -> T?) -> [T]? {
        var out: [T] = []
        for node in nodes {
            guard let literal = node as? LiteralNode, let v = convert(literal.value) else { return nil }
            out.append(v)
        }
        return out
    }

    /// A step's chosen output index per row, as `StepNode.evaluate` chooses it.
    private func selectStep<Out>(
        _ step: StepNode, depth: Int,
        _ emit: @escaping (UnsafeMutablePointer<Int>, Int, Int, UnsafeMutablePointer<Out>) -> Void
    )
        -> ((Int, Int, UnsafeMutablePointer<Out>, UnsafeMutablePointer<UInt8>) -> Void)?
    {
        guard let input = number(step.input, depth: depth + 1), !step.labels.isEmpty else { return nil }
        let labels = step.labels, inputIsColumn = numberColumn(step.input) != nil
        return { start, n, out, ok in
            withUnsafeTemporaryAllocation(of: Double.self, capacity: n) { values in
                withUnsafeTemporaryAllocation(of: Int.self, capacity: n) { picks in
                    guard let v = values.baseAddress, let pick = picks.baseAddress else { return }
                    if labels.count == 1 {
                        pick.update(repeating: 0, count: n)
                    } else {
                        input(start, n, v, ok)
                        // Labels ascend strictly from -infinity, so the stop `StepNode` picks is the
                        // number of later labels at or below the input: no branches, no search.
                        pick.update(repeating: 0, count: n)
                        for label in labels.dropFirst() {
                            for j in 0..<n { pick[j] &+= label <= v[j] ? 1 : 0 }
                        }
                        // NaN input is the tree's error to report (columns never pass one as decided).
                        if !inputIsColumn { for j in 0..<n { ok[j] &= v[j].isNaN ? 0 : 1 } }
                    }
                    emit(pick, start, n, out)
                }
            }
        }
    }

    /// An interpolation's lower stop and factor per row, as `InterpolateNode.evaluate` computes
    /// them. A NaN factor marks a row outside the stops, which takes that stop's output as is.
    private func selectRamp<Out>(
        _ ramp: InterpolateNode, depth: Int,
        _ emit:
            @escaping (UnsafeMutablePointer<Int>, UnsafeMutablePointer<Double>, Int, UnsafeMutablePointer<Out>) -> Void
    )
        -> ((Int, Int, UnsafeMutablePointer<Out>, UnsafeMutablePointer<UInt8>) -> Void)?
    {
        guard let input = number(ramp.input, depth: depth + 1), !ramp.labels.isEmpty else { return nil }
        let labels = ramp.labels, interpolation = ramp.interpolation
        return { start, n, out, ok in
            withUnsafeTemporaryAllocation(of: Double.self, capacity: 2 * n) { values in
                withUnsafeTemporaryAllocation(of: Int.self, capacity: n) { lowers in
                    guard let v = values.baseAddress, let lower = lowers.baseAddress else { return }
                    let t = v + n
                    t.update(repeating: .nan, count: n)
                    if labels.count == 1 {
                        lower.update(repeating: 0, count: n)
                    } else {
                        input(start, n, v, ok)
                        let last = labels.count - 1
                        for j in 0..<n {
                            let x = v[j]
                            lower[j] = 0
                            if x.isNaN { ok[j] = 0; continue }  // the tree reports the error
                            if x <= labels[0] { continue }
                            if x >= labels[last] { lower[j] = last; continue }
                            // Labels ascend strictly: the lower stop is the last one at or below x.
                            var i = 0
                            while i + 1 < last && labels[i + 1] <= x { i += 1 }
                            lower[j] = i
                            let f: Double
                            if case .linear = interpolation {
                                f = Interpolation.exponentialFactor(x, 1, labels[i], labels[i + 1])
                            } else {
                                f = interpolation.factor(x, labels[i], labels[i + 1])
                            }
                            // A NaN factor is a real result to mix with, not the marker.
                            if f.isNaN { ok[j] = 0 } else { t[j] = f }
                        }
                    }
                    emit(lower, t, n, out)
                }
            }
        }
    }

    /// A match's chosen output per row (the default is the last index), as `MatchNode.evaluate`
    /// chooses it; only for inputs read straight from a property.
    private func selectMatch<Out>(
        _ match: MatchNode, _ emit: @escaping (UnsafeMutablePointer<Int>, Int, UnsafeMutablePointer<Out>) -> Void
    )
        -> ((Int, Int, UnsafeMutablePointer<Out>, UnsafeMutablePointer<UInt8>) -> Void)?
    {
        guard let key = getKey(match.input) else { return nil }
        let column = table.column(key)
        let otherwise = match.outputs.count
        let byString = match.inputType == .string, byNumber = match.inputType == .number
        // Output index per interned string of this column.
        var stringPick = [Int](repeating: otherwise, count: column.stringIndex.count)
        if byString {
            for (s, id) in column.stringIndex { stringPick[Int(id)] = match.stringCases[s] ?? otherwise }
        }
        let numberCases = match.numberCases
        return { start, n, out, _ in
            withUnsafeTemporaryAllocation(of: Int.self, capacity: n) { picks in
                guard let pick = picks.baseAddress else { return }
                column.kinds.withUnsafeBufferPointer { kinds in
                    column.stringIDs.withUnsafeBufferPointer { ids in
                        for j in 0..<n {
                            let r = start + j
                            if byString && kinds[r] == PropertyColumn.Kind.string.rawValue {
                                pick[j] = stringPick[Int(ids[r])]
                            } else if byNumber && kinds[r] == PropertyColumn.Kind.number.rawValue {
                                pick[j] = numberCases[column.numbers[r]] ?? otherwise
                            } else {
                                pick[j] = otherwise
                            }
                        }
                    }
                }
                emit(pick, n, out)
            }
        }
    }
}
