// Expression: features held for batch evaluation, with per-property columns built on first use.
//
// Evaluating one expression over a million features is bound by walking a million property
// lists. A renderer evaluates many expressions (and the same ones at every zoom) over the same
// immutable data, so the first batch that reads a property gathers it into a column (a kind byte,
// a number and an interned string id per feature, about 13 bytes) and every later batch reads
// the column sequentially.

/// One property (`["get", key]`) of every feature.
struct PropertyColumn: Sendable {
    /// What `get` returns for a row, as far as batch kernels care.
    enum Kind: UInt8 { case missing = 0, null, number, string, `true`, `false`, other }

    let kinds: [UInt8]
    /// The value for number rows (integers converted as `ExpressionValue(json:)` does), else 0.
    let numbers: [Double]
    /// For string rows, the index of the string in `strings`; else -1.
    let stringIDs: [Int32]
    let stringIndex: [String: Int32]

    init(_ features: [Feature], key: String) {
        var kinds = [UInt8](repeating: 0, count: features.count)
        var numbers = [Double](repeating: 0, count: features.count)
        var ids = [Int32](repeating: -1, count: features.count)
        var index: [String: Int32] = [:]
        for row in features.indices {
            guard let value = features[row].properties?[key] else { continue }
            switch value {
            case .null: kinds[row] = Kind.null.rawValue
            case .bool(let b): kinds[row] = b ? Kind.true.rawValue : Kind.false.rawValue
            case .int, .uint, .double:
                // NaN cannot come from JSON text; built in code, it stays for the node tree to
                // report, so number kernels never meet it.
                if case .number(let d) = ExpressionValue(json: value), !d.isNaN {
                    kinds[row] = Kind.number.rawValue
                    numbers[row] = d
                } else {
                    kinds[row] = Kind.other.rawValue
                }
            case .string(let s):
                kinds[row] = Kind.string.rawValue
                if let id = index[s] {
                    ids[row] = id
                } else if index.count < Int(Int32.max) {
                    let id = Int32(index.count)
                    index[s] = id
                    ids[row] = id
                } else {
                    kinds[row] = Kind.other.rawValue
                }
            case .array, .object: kinds[row] = Kind.other.rawValue
            }
        }
        self.kinds = kinds
        self.numbers = numbers
        stringIDs = ids
        stringIndex = index
    }
}

/// The position of every Point feature; NaN for features of any other kind.
struct PointColumn: Sendable {
    let xs: [Double], ys: [Double]

    init(_ features: [Feature]) {
        var xs = [Double](repeating: .nan, count: features.count), ys = xs
        // Borrowed in place: binding a feature or its geometry to a local would copy (retain)
        // every array it holds, which costs more than the read.
        features.withUnsafeBufferPointer { list in
            for row in list.indices where list[row].geometry?.type == .point {
                guard let xy = list[row].geometry?.xy, xy.count >= 2 else { continue }
                xs[row] = xy[0]
                ys[row] = xy[1]
            }
        }
        self.xs = xs
        self.ys = ys
    }
}

/// An immutable list of features plus the columns batch evaluation has built for it so far.
/// Safe to share between threads: columns are built under a lock and never change afterwards.
public final class FeatureTable: @unchecked Sendable {
    public let features: [Feature]
    private let lock = Lock()
    private var columns: [String: PropertyColumn] = [:]
    private var pointColumn: PointColumn?

    public init(_ features: [Feature]) { self.features = features }

    /// The features of any GeoJSON value, as `mc_expression_evaluate_*` sees them: a collection's
    /// features, a feature, or a bare geometry as a feature without properties.
    public convenience init(_ value: GeoJSON) {
        switch value {
        case .featureCollection(let c): self.init(c.features)
        case .feature(let f): self.init([f])
        case .geometry(let g): self.init([Feature(geometry: g)])
        }
    }

    public var count: Int { features.count }

    func column(_ key: String) -> PropertyColumn {
        lock.withLock {
            if let c = columns[key] { return c }
            let c = PropertyColumn(features, key: key)
            columns[key] = c
            return c
        }
    }

    func points() -> PointColumn {
        lock.withLock {
            if let p = pointColumn { return p }
            let p = PointColumn(features)
            pointColumn = p
            return p
        }
    }
}
