// Spatial: the one wrapper around GEOS. It owns the context handles, turns GEOS errors into
// MapCore errors, decodes each GEOS return convention in one helper, and keeps prepared
// geometries in a pool so several threads can test against one shape at once.
import CGEOS
import Glibc

public enum GEOS {
    /// GEOS's own version string, static storage owned by GEOS.
    public static var versionCString: UnsafePointer<CChar> { GEOSversion() }
    public static var version: String { String(cString: GEOSversion()) }
}

/// A GEOS context handle with its last error message. Not shared between threads at once.
final class GEOSSession {
    let handle: GEOSContextHandle_t
    fileprivate var lastMessage = ""

    init?() {
        guard let h = GEOS_init_r() else { return nil }
        handle = h
        let me = Unmanaged.passUnretained(self).toOpaque()
        GEOSContext_setErrorMessageHandler_r(
            h,
            { message, user in
                guard let message, let user else { return }
                Unmanaged<GEOSSession>.fromOpaque(user).takeUnretainedValue().lastMessage = String(cString: message)
            }, me)
        GEOSContext_setNoticeMessageHandler_r(h, { _, _ in }, nil)
    }

    deinit { GEOS_finish_r(handle) }

    func failure(_ what: String) -> MapCoreError {
        MapCoreError(.internalError, "GEOS \(what) failed: \(lastMessage.isEmpty ? "unknown error" : lastMessage)")
    }

    /// GEOS predicates answer 0, 1, or 2 for an exception.
    func predicate(_ result: CChar, _ what: String) throws(MapCoreError) -> Bool {
        switch result {
        case 0: return false
        case 1: return true
        default: throw failure(what)
        }
    }

    // MARK: building geometries

    /// An owned GEOS geometry; destroyed with the session's handle.
    final class Geom {
        let session: GEOSSession
        private(set) var pointer: OpaquePointer?
        init(_ session: GEOSSession, _ pointer: OpaquePointer) {
            self.session = session
            self.pointer = pointer
        }
        /// Hands ownership to GEOS (e.g. into a collection).
        func release() -> OpaquePointer? {
            defer { pointer = nil }
            return pointer
        }
        deinit { if let pointer { GEOSGeom_destroy_r(session.handle, pointer) } }
    }

    private func sequence(
        _ xy: UnsafeBufferPointer<Double>, _ range: Range<Int>, transform: (Double, Double) -> (Double, Double)
    ) throws(MapCoreError) -> OpaquePointer {
        guard range.count <= Int(UInt32.max) else {
            throw MapCoreError(.limit, "GEOS takes at most \(UInt32.max) positions per part.")
        }
        guard let seq = GEOSCoordSeq_create_r(handle, UInt32(range.count), 2) else {
            throw failure("coordinate sequence")
        }
        for (k, i) in range.enumerated() {
            let (x, y) = transform(xy[2 * i], xy[2 * i + 1])
            GEOSCoordSeq_setXY_r(handle, seq, UInt32(truncatingIfNeeded: k), x, y)
        }
        return seq
    }

    /// Builds a GEOS geometry from a MapCore geometry, mapping every position through
    /// `transform`. GeometryCollections become GEOS collections (iteratively, bounded depth).
    func make(_ g: Geometry, transform: (Double, Double) -> (Double, Double)) throws(MapCoreError) -> Geom {
        try g.xy.withUnsafeBufferPointer { (xy) throws(MapCoreError) -> Geom in
            let n = g.positionCount
            func ring(_ range: Range<Int>) throws(MapCoreError) -> OpaquePointer {
                let seq = try sequence(xy, range, transform: transform)
                guard let r = GEOSGeom_createLinearRing_r(handle, seq) else { throw failure("ring") }
                return r
            }
            func polygon(_ rings: [Range<Int>]) throws(MapCoreError) -> OpaquePointer {
                guard let first = rings.first else {
                    guard let e = GEOSGeom_createEmptyPolygon_r(handle) else { throw failure("empty polygon") }
                    return e
                }
                let shell = try ring(first)
                var holes: [OpaquePointer?] = []
                do {
                    for r in rings.dropFirst() { holes.append(try ring(r)) }
                } catch {
                    GEOSGeom_destroy_r(handle, shell)
                    for h in holes { if let h { GEOSGeom_destroy_r(handle, h) } }
                    throw error
                }
                guard
                    let p = holes.withUnsafeMutableBufferPointer({
                        GEOSGeom_createPolygon_r(handle, shell, $0.baseAddress, UInt32(truncatingIfNeeded: $0.count))
                    })
                else {
                    throw failure("polygon")
                }
                return p
            }
            func collection(_ type: Int32, _ parts: [OpaquePointer?]) throws(MapCoreError) -> OpaquePointer {
                var parts = parts
                guard
                    let c = parts.withUnsafeMutableBufferPointer({
                        GEOSGeom_createCollection_r(handle, type, $0.baseAddress, UInt32(truncatingIfNeeded: $0.count))
                    })
                else {
                    throw failure("collection")
                }
                return c
            }
            let ends = Array(g.partEnds)
            func partRanges() -> [Range<Int>] {
                var out: [Range<Int>] = []
                var start = 0
                for e in ends { out.append(start..<e); start = e }
                return out
            }
            let made: OpaquePointer?
            switch g.type {
            case .point:
                if n == 0 {
                    made = GEOSGeom_createEmptyPoint_r(handle)
                } else {
                    let (x, y) = transform(xy[0], xy[1])
                    made = GEOSGeom_createPointFromXY_r(handle, x, y)
                }
            case .multiPoint:
                var parts: [OpaquePointer?] = []
                for i in 0..<n {
                    let (x, y) = transform(xy[2 * i], xy[2 * i + 1])
                    parts.append(GEOSGeom_createPointFromXY_r(handle, x, y))
                }
                made = try collection(Int32(GEOS_MULTIPOINT.rawValue), parts)
            case .lineString:
                made = GEOSGeom_createLineString_r(handle, try sequence(xy, 0..<n, transform: transform))
            case .multiLineString:
                var parts: [OpaquePointer?] = []
                for r in partRanges() {
                    parts.append(GEOSGeom_createLineString_r(handle, try sequence(xy, r, transform: transform)))
                }
                made = try collection(Int32(GEOS_MULTILINESTRING.rawValue), parts)
            case .polygon:
                made = try polygon(partRanges())
            case .multiPolygon:
                let rings = partRanges()
                var parts: [OpaquePointer?] = []
                var start = 0
                for e in g.polygonEnds {
                    parts.append(try polygon(Array(rings[start..<e])))
                    start = e
                }
                made = try collection(Int32(GEOS_MULTIPOLYGON.rawValue), parts)
            case .geometryCollection:
                var parts: [OpaquePointer?] = []
                for member in g.geometries { parts.append(try make(member, transform: transform).release()) }
                made = try collection(Int32(GEOS_GEOMETRYCOLLECTION.rawValue), parts)
            }
            guard let made else { throw failure("geometry") }
            return Geom(self, made)
        }
    }

    func distance(_ a: Geom, _ b: Geom) throws(MapCoreError) -> Double {
        var d = 0.0
        guard let pa = a.pointer, let pb = b.pointer, GEOSDistance_r(handle, pa, pb, &d) == 1 else {
            throw failure("distance")
        }
        return d
    }

    func isEmpty(_ g: Geom) throws(MapCoreError) -> Bool {
        guard let p = g.pointer else { return true }
        return try predicate(GEOSisEmpty_r(handle, p), "isEmpty")
    }
}

/// GEOS sessions kept for reuse, so hot paths do not create a context per call. A session is
/// used by one thread at a time.
enum GEOSSessions {
    nonisolated(unsafe) private static var free: [GEOSSession] = []
    nonisolated(unsafe) private static var lock = pthread_mutex_t()
    private static let ready: Bool = {
        pthread_mutex_init(&lock, nil); return true
    }()

    static func with<T>(_ body: (GEOSSession) throws(MapCoreError) -> T) throws(MapCoreError) -> T {
        _ = ready
        pthread_mutex_lock(&lock)
        let reused = free.popLast()
        pthread_mutex_unlock(&lock)
        guard let session = reused ?? GEOSSession() else {
            throw MapCoreError(.outOfMemory, "Could not create a GEOS context.")
        }
        defer {
            pthread_mutex_lock(&lock)
            if free.count < 64 { free.append(session) }
            pthread_mutex_unlock(&lock)
        }
        return try body(session)
    }
}

/// A shape prepared for repeated containment tests. Each pooled entry has its own session
/// and prepared geometry; evaluation takes one, uses it, and puts it back, so the shape can
/// serve many threads without locks around GEOS itself.
final class PreparedShapePool: @unchecked Sendable {
    final class Entry {
        let session: GEOSSession
        let shape: GEOSSession.Geom
        let prepared: OpaquePointer
        init(session: GEOSSession, shape: GEOSSession.Geom, prepared: OpaquePointer) {
            self.session = session
            self.shape = shape
            self.prepared = prepared
        }
        deinit { GEOSPreparedGeom_destroy_r(session.handle, prepared) }

        /// Whether every point of `g` (positions mapped by `transform`) lies in the interior of
        /// the prepared shape (GEOS's prepared `containsProperly`); an empty `g` is not.
        func containsProperly(
            _ g: Geometry, transform: (Double, Double) -> (Double, Double)
        )
            throws(MapCoreError) -> Bool
        {
            let geom = try session.make(g, transform: transform)
            guard let p = geom.pointer else { return false }
            return try session.predicate(
                GEOSPreparedContainsProperly_r(session.handle, prepared, p), "containsProperly")
        }

        /// `containsProperly` for one point.
        func containsProperly(_ x: Double, _ y: Double) throws(MapCoreError) -> Bool {
            guard let p = GEOSGeom_createPointFromXY_r(session.handle, x, y) else { throw session.failure("point") }
            defer { GEOSGeom_destroy_r(session.handle, p) }
            return try session.predicate(
                GEOSPreparedContainsProperly_r(session.handle, prepared, p), "containsProperly")
        }
    }

    private let build: (GEOSSession) throws(MapCoreError) -> GEOSSession.Geom
    private var free: [Entry] = []
    private var lock = pthread_mutex_t()

    init(build: @escaping (GEOSSession) throws(MapCoreError) -> GEOSSession.Geom) {
        self.build = build
        pthread_mutex_init(&lock, nil)
    }
    deinit { pthread_mutex_destroy(&lock) }

    func withEntry<T>(_ body: (Entry) throws(MapCoreError) -> T) throws(MapCoreError) -> T {
        pthread_mutex_lock(&lock)
        var entry = free.popLast()
        pthread_mutex_unlock(&lock)
        if entry == nil {
            guard let session = GEOSSession() else {
                throw MapCoreError(.outOfMemory, "Could not create a GEOS context.")
            }
            let shape = try build(session)
            guard let p = shape.pointer, let prepared = GEOSPrepare_r(session.handle, p) else {
                throw session.failure("prepare")
            }
            entry = Entry(session: session, shape: shape, prepared: prepared)
        }
        guard let entry else { throw MapCoreError(.internalError, "No GEOS entry.") }
        defer {
            pthread_mutex_lock(&lock)
            free.append(entry)
            pthread_mutex_unlock(&lock)
        }
        return try body(entry)
    }
}
