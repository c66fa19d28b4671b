// Geometry: point location in polygonal shapes, answering exactly as GEOS does, without building
// a GEOS geometry per point.
//
// GEOS locates a point in a prepared polygon (IndexedPointInAreaLocator) by counting how many
// edges of all rings a ray to the right crosses, with a robust orientation test and an explicit
// "on an edge" outcome. This repeats that counting rule edge for edge, using the exact orientation
// of `Orientation.swift`, so interior / boundary / exterior agree with GEOS for every finite input
// (shapes whose rings cross each other included: both count crossings over all rings). Only the
// search differs:
// - a grid over the envelope answers most points at once: a cell that no edge's bounding box
//   reaches holds no boundary point, and the set of points mapped to it is a box (the index
//   function is monotonic), so every point there has the location of the cell's centre;
// - other points count crossings over the edges of one horizontal band.

/// Where a point lies relative to a polygonal shape.
public enum PointLocation: Sendable, Equatable {
    case interior, boundary, exterior
}

public struct PointInPolygonIndex: Sendable {
    /// Edge k runs from (edges[4k], edges[4k+1]) to (edges[4k+2], edges[4k+3]).
    private let edges: [Double]
    /// Edge indices per band: band b holds bandEdges[bandStart[b] ..< bandStart[b + 1]].
    private let bandStart: [Int32]
    private let bandEdges: [Int32]
    private let minX: Double, maxX: Double, minY: Double, maxY: Double
    private let bandHeight: Double
    /// Per grid cell (row-major): 0 = reached by an edge, 1 = interior, 2 = exterior.
    private var cells: [UInt8]
    private let gridSide: Int
    private let cellsPerX: Double, cellsPerY: Double

    /// Indexes every ring of a Polygon or MultiPolygon (`partEnds` marks where each ring ends).
    /// Rings written without their closing position are closed, as a ring must be.
    /// Returns nil for other geometry types, empty shapes, and coordinates that are not finite
    /// or exceed `maxRobustCoordinate` (the exact orientation could overflow).
    public init?(_ shape: Geometry) {
        guard shape.type == .polygon || shape.type == .multiPolygon,
            shape.xy.allSatisfy({ abs($0) <= maxRobustCoordinate })
        else { return nil }
        var edges: [Double] = []
        var start = 0
        for end in shape.partEnds where end > start && end <= shape.positionCount {
            for i in start..<end {
                let next = i + 1 < end ? i + 1 : start
                if next == i { continue }
                let a = (shape.xy[2 * i], shape.xy[2 * i + 1]), b = (shape.xy[2 * next], shape.xy[2 * next + 1])
                if next == start && a == b { continue }  // the closing position repeats the first one
                edges += [a.0, a.1, b.0, b.1]
            }
            start = end
        }
        guard !edges.isEmpty, edges.count / 4 <= 1 << 26 else { return nil }
        var minX = Double.infinity, maxX = -Double.infinity, minY = Double.infinity, maxY = -Double.infinity
        for k in stride(from: 0, to: edges.count, by: 2) {
            minX = Swift.min(minX, edges[k]); maxX = Swift.max(maxX, edges[k])
            minY = Swift.min(minY, edges[k + 1]); maxY = Swift.max(maxY, edges[k + 1])
        }
        let edgeCount = edges.count / 4
        // One band per edge (at most 65,536), fewer when tall edges would be filed many times
        // over: the index stays within about 32 entries per edge.
        var bands = maxY > minY ? Swift.max(1, Swift.min(edgeCount, 1 << 16)) : 1
        var height = 1.0
        func band(_ y: Double) -> Int { bucket((y - minY) / height, bands) }
        while true {
            height = maxY > minY ? (maxY - minY) / Double(bands) : 1
            var entries = 0
            for e in 0..<edgeCount {
                let y1 = edges[4 * e + 1], y2 = edges[4 * e + 3]
                entries += band(Swift.max(y1, y2)) - band(Swift.min(y1, y2)) + 1
            }
            if bands == 1 || entries <= 32 * edgeCount + (1 << 16) { break }
            bands = Swift.max(1, bands / 4)
        }
        var counts = [Int32](repeating: 0, count: bands + 1)
        for e in 0..<edgeCount {
            let y1 = edges[4 * e + 1], y2 = edges[4 * e + 3]
            for b in band(Swift.min(y1, y2))...band(Swift.max(y1, y2)) { counts[b + 1] += 1 }
        }
        for b in 0..<bands { counts[b + 1] += counts[b] }
        var fill = counts
        var members = [Int32](repeating: 0, count: Int(counts[bands]))
        for e in 0..<edgeCount {
            let y1 = edges[4 * e + 1], y2 = edges[4 * e + 3]
            for b in band(Swift.min(y1, y2))...band(Swift.max(y1, y2)) {
                members[Int(fill[b])] = Int32(e)
                fill[b] += 1
            }
        }
        self.edges = edges
        bandStart = counts
        bandEdges = members
        self.minX = minX; self.maxX = maxX; self.minY = minY; self.maxY = maxY
        bandHeight = height
        // About 64 cells per edge, at most 512 × 512 (256 KB).
        let side = Swift.max(1, Swift.min(512, Int((64 * Double(edgeCount)).squareRoot())))
        gridSide = side
        cellsPerX = maxX > minX ? Double(side) / (maxX - minX) : 0
        cellsPerY = maxY > minY ? Double(side) / (maxY - minY) : 0
        cells = []
        var grid = [UInt8](repeating: 1, count: side * side)
        // Marking costs the cells of every edge's bounding box; long diagonal edges could make
        // that quadratic, and then the grid is left out (every point counts crossings).
        var marks = 0
        for e in 0..<edgeCount {
            let x1 = edges[4 * e], y1 = edges[4 * e + 1], x2 = edges[4 * e + 2], y2 = edges[4 * e + 3]
            marks +=
                (cellX(Swift.max(x1, x2)) - cellX(Swift.min(x1, x2)) + 1)
                * (cellY(Swift.max(y1, y2)) - cellY(Swift.min(y1, y2)) + 1)
        }
        if marks > 64 * side * side { grid = [UInt8](repeating: 0, count: side * side) }
        for e in 0..<edgeCount where marks <= 64 * side * side {
            let x1 = edges[4 * e], y1 = edges[4 * e + 1], x2 = edges[4 * e + 2], y2 = edges[4 * e + 3]
            let columns = cellX(Swift.min(x1, x2))...cellX(Swift.max(x1, x2))
            for row in cellY(Swift.min(y1, y2))...cellY(Swift.max(y1, y2)) {
                for column in columns { grid[row * side + column] = 0 }
            }
        }
        for row in 0..<side {
            for column in 0..<side where grid[row * side + column] == 1 {
                let x = minX + (Double(column) + 0.5) / cellsPerX, y = minY + (Double(row) + 0.5) / cellsPerY
                // The centre must map back to its own cell to speak for it.
                guard cellsPerX > 0, cellsPerY > 0, cellX(x) == column, cellY(y) == row else {
                    grid[row * side + column] = 0; continue
                }
                grid[row * side + column] = crossingLocation(x, y) == .interior ? 1 : 2
            }
        }
        cells = grid
    }

    @inline(__always)
    private func cellX(_ x: Double) -> Int { bucket((x - minX) * cellsPerX, gridSide) }
    @inline(__always)
    private func cellY(_ y: Double) -> Int { bucket((y - minY) * cellsPerY, gridSide) }

    /// GEOS's location of (x, y). Non-finite points are exterior.
    @inline(__always)
    public func locate(_ x: Double, _ y: Double) -> PointLocation {
        // Every edge lies inside the envelope, so a point outside it touches none; NaN fails too.
        guard x >= minX, x <= maxX, y >= minY, y <= maxY else { return .exterior }
        switch cells[cellY(y) * gridSide + cellX(x)] {
        case 1: return .interior
        case 2: return .exterior
        default: return crossingLocation(x, y)
        }
    }

    /// GEOS's crossing count over the edges of the point's band (the point is in the envelope).
    private func crossingLocation(_ x: Double, _ y: Double) -> PointLocation {
        // Monotonic in y, so an edge spanning y was filed under this band.
        let b = bucket((y - minY) / bandHeight, bandStart.count - 1)
        var crossings = 0
        return edges.withUnsafeBufferPointer { e in
            bandEdges.withUnsafeBufferPointer { members in
                for slot in Int(bandStart[b])..<Int(bandStart[b + 1]) {
                    let k = 4 * Int(members[slot])
                    let x1 = e[k], y1 = e[k + 1], x2 = e[k + 2], y2 = e[k + 3]
                    if x1 < x && x2 < x { continue }  // entirely left of the rightward ray
                    if x == x2 && y == y2 { return .boundary }
                    if y1 == y && y2 == y {
                        if x >= Swift.min(x1, x2) && x <= Swift.max(x1, x2) { return .boundary }
                        continue
                    }
                    if (y1 > y && y2 <= y) || (y2 > y && y1 <= y) {
                        var side = orientation(x1, y1, x2, y2, x, y)
                        if side == 0 { return .boundary }
                        if y2 < y1 { side = -side }
                        if side > 0 { crossings += 1 }
                    }
                }
                return crossings & 1 == 1 ? .interior : .exterior
            }
        }
    }
}

/// `Int(v)` clamped to 0 ..< count, monotonic in v; NaN and infinities cannot trap.
@inline(__always)
private func bucket(_ v: Double, _ count: Int) -> Int {
    guard v > 0 else { return 0 }
    guard v < Double(count - 1) else { return count - 1 }
    return Int(v)
}
