// Geometry: the orientation predicate, exact for every finite input up to the documented magnitude.

/// Coordinates above this magnitude could overflow the exact products; callers reject them.
let maxRobustCoordinate = 1e100

/// Sign of the turn a → b → c: +1 counter-clockwise, -1 clockwise, 0 collinear. A floating-point
/// filter decides almost every case; the rest are settled exactly with error-free products and
/// an expansion sum (Shewchuk's technique), so hull results never depend on rounding.
@inline(__always)
func orientation(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double, _ cx: Double, _ cy: Double) -> Int {
    let left = (bx - ax) * (cy - ay)
    let right = (by - ay) * (cx - ax)
    let det = left - right
    let bound = 3.3306690738754716e-16 * (abs(left) + abs(right))
    if det > bound { return 1 }
    if -det > bound { return -1 }
    return exactOrientation(ax, ay, bx, by, cx, cy)
}

@inline(never)
func exactOrientation(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double, _ cx: Double, _ cy: Double) -> Int {
    // det = ax·by − ax·cy − ay·bx + ay·cx + bx·cy − by·cx, every product split into an exact pair.
    var expansion = ExactSum()
    expansion.addProduct(ax, by)
    expansion.addProduct(-ax, cy)
    expansion.addProduct(-ay, bx)
    expansion.addProduct(ay, cx)
    expansion.addProduct(bx, cy)
    expansion.addProduct(-by, cx)
    return expansion.sign
}

/// A nonoverlapping floating-point expansion: an exact sum of doubles.
struct ExactSum {
    private var components: [Double] = []

    mutating func addProduct(_ a: Double, _ b: Double) {
        let p = a * b
        let e = (-p).addingProduct(a, b)  // fma: the rounding error of a·b, exactly
        add(e)
        add(p)
    }

    mutating func add(_ value: Double) {
        var q = value
        var next: [Double] = []
        next.reserveCapacity(components.count + 1)
        for c in components {
            let s = q + c
            let bv = s - q
            let err = (q - (s - bv)) + (c - bv)
            if err != 0 { next.append(err) }
            q = s
        }
        if q != 0 { next.append(q) }
        components = next
    }

    /// The sign of the exact sum: that of its largest component.
    var sign: Int {
        guard let top = components.last else { return 0 }
        return top > 0 ? 1 : (top < 0 ? -1 : 0)
    }
}
