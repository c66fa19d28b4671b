// GeoJSON: the flat coordinate storage of a geometry.

/// Longitude/latitude values of a geometry, interleaved (x0, y0, x1, y1, …). One position (every
/// Point) is held inline; any other count in one contiguous array. Why: a million Point features
/// would otherwise cost a million 64-byte heap blocks, a malloc and a free each, and the fresh
/// pages they land on.
public struct CoordinateList: RandomAccessCollection, MutableCollection, ExpressibleByArrayLiteral, Sendable {
    private enum Storage: Sendable {
        case position(Double, Double)
        case array(ContiguousArray<Double>)
    }

    private var storage: Storage

    public init() { storage = .array([]) }

    public init(_ values: ContiguousArray<Double>) {
        storage = values.count == 2 ? .position(values[0], values[1]) : .array(values)
    }

    public init(arrayLiteral values: Double...) { self.init(ContiguousArray(values)) }

    /// One position.
    public init(_ x: Double, _ y: Double) { storage = .position(x, y) }

    public var startIndex: Int { 0 }

    public var endIndex: Int {
        switch storage {
        case .position: return 2
        case .array(let a): return a.count
        }
    }

    public subscript(i: Int) -> Double {
        get {
            switch storage {
            case .position(let x, let y):
                assert(i == 0 || i == 1, "coordinate index out of range")
                return i == 0 ? x : y
            case .array(let a): return a[i]
            }
        }
        set {
            switch storage {
            case .position(let x, let y):
                assert(i == 0 || i == 1, "coordinate index out of range")
                storage = i == 0 ? .position(newValue, y) : .position(x, newValue)
            case .array:
                modifyArray { $0[i] = newValue }
            }
        }
    }

    /// Appends one position (two values). Starting from empty this stays inline: no allocation.
    public mutating func appendPosition(_ x: Double, _ y: Double) {
        if case .array(let a) = storage, a.isEmpty, a.capacity == 0 {
            storage = .position(x, y)
        } else {
            modifyArray {
                $0.append(x); $0.append(y)
            }
        }
    }

    public mutating func append<S: Sequence>(contentsOf values: S) where S.Element == Double {
        modifyArray { $0.append(contentsOf: values) }
    }

    public mutating func removeAll(keepingCapacity keep: Bool = false) {
        if case .array = storage, keep {
            modifyArray { $0.removeAll(keepingCapacity: true) }
        } else {
            storage = .array([])
        }
    }

    public func withUnsafeBufferPointer<R, E: Error>(
        _ body: (UnsafeBufferPointer<Double>) throws(E) -> R
    ) throws(E) -> R {
        switch storage {
        case .position(let x, let y):
            var pair = (x, y)
            return try withUnsafeBytes(of: &pair) { (raw) throws(E) -> R in
                try body(raw.assumingMemoryBound(to: Double.self))
            }
        case .array(let a):
            return try a.withUnsafeBufferPointer { (b) throws(E) -> R in try body(b) }
        }
    }

    public mutating func withUnsafeMutableBufferPointer<R>(_ body: (UnsafeMutableBufferPointer<Double>) -> R) -> R {
        modifyArray { a in a.withUnsafeMutableBufferPointer { body($0) } }
    }

    /// Runs `body` on the values as an array that this list no longer shares, so it changes in
    /// place; a single position becomes an array first.
    private mutating func modifyArray<R>(_ body: (inout ContiguousArray<Double>) -> R) -> R {
        var a: ContiguousArray<Double>
        switch storage {
        case .position(let x, let y):
            a = [x, y]
        case .array(let existing):
            a = existing
        }
        storage = .array([])
        defer { storage = .array(a) }
        return body(&a)
    }
}

extension CoordinateList: Equatable {
    public static func == (a: CoordinateList, b: CoordinateList) -> Bool { a.elementsEqual(b) }
}
