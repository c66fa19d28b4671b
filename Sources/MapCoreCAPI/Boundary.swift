// C boundary: the one funnel every entry point goes through. It validates handles, turns thrown
// errors into status codes, and records the message in a per-thread error record.
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif
import CMapCoreABI
import MapCore

// MARK: handles

/// Kinds of object a C handle can point to, so a handle of one kind passed as another is misuse.
enum HandleKind: UInt8 {
    case geojson
    case expression
    case clusterIndex
    case source
    case tileIndex
    case tileSource
}

/// Every live handle, so NULL, freed and foreign pointers are refused instead of dereferenced.
/// Lookups take a shared lock and retain the object before releasing it, so a concurrent free
/// cannot pull an object out from under a call that already started.
final class HandleRegistry: @unchecked Sendable {
    private let lock: UnsafeMutablePointer<pthread_rwlock_t>
    private var live: [UInt: HandleKind] = [:]

    init() {
        lock = UnsafeMutablePointer<pthread_rwlock_t>.allocate(capacity: 1)
        lock.initialize(to: pthread_rwlock_t())
        pthread_rwlock_init(lock, nil)
    }

    func register(_ object: AnyObject, kind: HandleKind) -> OpaquePointer {
        let raw = Unmanaged.passRetained(object).toOpaque()
        pthread_rwlock_wrlock(lock)
        live[UInt(bitPattern: raw)] = kind
        pthread_rwlock_unlock(lock)
        return OpaquePointer(raw)
    }

    func lookup<T: AnyObject>(_ handle: OpaquePointer?, kind: HandleKind, as type: T.Type) -> T? {
        guard let handle else { return nil }
        let raw = UnsafeMutableRawPointer(handle)
        pthread_rwlock_rdlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        guard live[UInt(bitPattern: raw)] == kind else { return nil }
        return Unmanaged<AnyObject>.fromOpaque(raw).takeUnretainedValue() as? T
    }

    /// Drops the handle's reference; unknown pointers are ignored.
    func release(_ handle: OpaquePointer?, kind: HandleKind) {
        guard let handle else { return }
        let raw = UnsafeMutableRawPointer(handle)
        pthread_rwlock_wrlock(lock)
        let known = live[UInt(bitPattern: raw)] == kind
        if known { live[UInt(bitPattern: raw)] = nil }
        pthread_rwlock_unlock(lock)
        if known { Unmanaged<AnyObject>.fromOpaque(raw).release() }
    }
}

let handles = HandleRegistry()

func misuse(_ what: String) -> MapCoreError {
    MapCoreError(.misuse, "\(what) is not a live handle (NULL, already freed, or of another kind).")
}

// MARK: per-thread error record

/// The error record of one thread; the C struct and its strings live as long as the record.
final class ErrorRecord {
    let record: UnsafeMutablePointer<mc_error>
    private var message: UnsafeMutablePointer<CChar>?
    private var path: UnsafeMutablePointer<CChar>?

    init() {
        record = UnsafeMutablePointer<mc_error>.allocate(capacity: 1)
        record.initialize(to: mc_error())
        clear()
    }

    deinit {
        free(message)
        free(path)
        record.deinitialize(count: 1)
        record.deallocate()
    }

    func clear() {
        set(code: 0, message: "", path: "", offset: -1, line: 0, column: 0)
    }

    func set(_ error: MapCoreError) {
        let loc = error.location
        set(
            code: error.code.rawValue, message: error.message, path: loc?.path ?? "",
            offset: Int64(loc?.offset ?? -1), line: Int64(loc?.line ?? 0), column: Int64(loc?.column ?? 0))
    }

    private func set(
        code: Int32, message text: String, path pathText: String, offset: Int64, line: Int64, column: Int64
    ) {
        free(message)
        free(path)
        message = strdup(text)
        path = strdup(pathText)
        record.pointee.code = code
        record.pointee.message = UnsafePointer(message) ?? ErrorRecord.emptyString
        record.pointee.path = UnsafePointer(path) ?? ErrorRecord.emptyString
        record.pointee.offset = offset
        record.pointee.line = line
        record.pointee.column = column
    }

    private static var emptyString: UnsafePointer<CChar> {
        UnsafeRawPointer(("" as StaticString).utf8Start).assumingMemoryBound(to: CChar.self)
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { raw in
            guard let raw else { return }
            Unmanaged<ErrorRecord>.fromOpaque(raw).release()
        }
        return key
    }()

    /// This thread's record, created on first use and freed when the thread exits.
    static var current: ErrorRecord {
        if let raw = pthread_getspecific(key) {
            return Unmanaged<ErrorRecord>.fromOpaque(raw).takeUnretainedValue()
        }
        let fresh = ErrorRecord()
        pthread_setspecific(key, Unmanaged.passRetained(fresh).toOpaque())
        return fresh
    }
}

// MARK: the funnel

/// Runs one entry point: returns MC_OK, or records the thrown error and returns its code.
@inline(__always)
func boundary(_ body: () throws(MapCoreError) -> Void) -> Int32 {
    do {
        try body()
        return 0
    } catch {
        ErrorRecord.current.set(error)
        return error.code.rawValue
    }
}

/// A required out-pointer, or an invalid-argument error naming it.
@inline(__always)
func required<T>(
    _ pointer: UnsafeMutablePointer<T>?, _ name: StaticString
) throws(MapCoreError) -> UnsafeMutablePointer<T> {
    guard let pointer else { throw MapCoreError(.invalidArgument, "\(name) must not be NULL.") }
    return pointer
}

/// A caller byte buffer as a Swift buffer; NULL is accepted only with length 0.
func inputBytes(
    _ data: UnsafePointer<CChar>?, _ len: Int, _ name: StaticString
) throws(MapCoreError) -> UnsafeBufferPointer<UInt8> {
    // size_t values above Int.max arrive negative; no real buffer is that large.
    guard len >= 0 else { throw MapCoreError(.invalidArgument, "The length of \(name) is too large.") }
    guard let data else {
        guard len == 0 else { throw MapCoreError(.invalidArgument, "\(name) is NULL but its length is \(len).") }
        return UnsafeBufferPointer(start: nil, count: 0)
    }
    return UnsafeBufferPointer(start: UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), count: len)
}

/// `count` caller elements as a Swift buffer; NULL is accepted only with count 0.
func inputElements<T>(
    _ elements: UnsafePointer<T>?, _ count: Int, _ name: StaticString
) throws(MapCoreError) -> UnsafeBufferPointer<T> {
    // size_t values above Int.max arrive negative; no real array is that large.
    guard count >= 0 else { throw MapCoreError(.invalidArgument, "count is too large.") }
    guard let elements else {
        guard count == 0 else { throw MapCoreError(.invalidArgument, "\(name) is NULL but count is \(count).") }
        return UnsafeBufferPointer(start: nil, count: 0)
    }
    return UnsafeBufferPointer(start: elements, count: count)
}

/// Caller positions (count pairs) as a Swift buffer of 2·count doubles.
func inputPositions(
    _ xy: UnsafePointer<Double>?, _ count: Int, _ name: StaticString
) throws(MapCoreError) -> UnsafeBufferPointer<Double> {
    guard count >= 0 else { throw MapCoreError(.invalidArgument, "count is too large.") }
    guard let xy else {
        guard count == 0 else { throw MapCoreError(.invalidArgument, "\(name) is NULL but count is \(count).") }
        return UnsafeBufferPointer(start: nil, count: 0)
    }
    let (doubles, overflow) = count.multipliedReportingOverflow(by: 2)
    guard !overflow else { throw MapCoreError(.invalidArgument, "count \(count) is too large.") }
    return UnsafeBufferPointer(start: xy, count: doubles)
}

/// Moves bytes into a library-owned, NUL-terminated mc_buf. What `out` held is overwritten,
/// never freed: an uninitialised struct from the caller must not be passed to free().
func fill(_ out: UnsafeMutablePointer<mc_buf>, with bytes: [UInt8]) throws(MapCoreError) {
    try fill(out, placing: { place(bytes, $0) })
}

/// Fills `out` with the bytes `produce` places, written straight into a library-owned,
/// NUL-terminated mc_buf's memory (`BytePlacement`; no bytes placed: an empty buffer). On an
/// error `out` is left as it was and nothing is kept.
func fill(
    _ out: UnsafeMutablePointer<mc_buf>, placing produce: (BytePlacement) throws(MapCoreError) -> Void
) throws(MapCoreError) {
    var buf: mc_buf?
    var failure: MapCoreError?
    defer { if let buf { free(buf.data) } }
    func placement(_ count: Int, _ write: (UnsafeMutableRawPointer) -> Int) {
        if let earlier = buf {
            free(earlier.data)
            buf = nil
        }
        guard let data = malloc(count + 1) else {
            failure = MapCoreError(.outOfMemory, "Could not allocate \(count + 1) bytes.")
            return
        }
        let written = write(data)
        // The writers count, then write through the same code; a longer write is a bug in them.
        guard (0...count).contains(written) else {
            free(data)
            failure = MapCoreError(.internalError, "A result's bytes were miscounted (\(written) of \(count)).")
            return
        }
        data.storeBytes(of: 0, toByteOffset: written, as: UInt8.self)
        buf = mc_buf(data: data.assumingMemoryBound(to: CChar.self), len: written)
    }
    try produce(placement)
    if buf == nil && failure == nil { placement(0) { _ in 0 } }
    if let failure { throw failure }
    guard let placed = buf else { return }
    buf = nil
    out.pointee = placed
}

/// Optional options text: NULL with length 0 means "{}" (every default).
func optionsJSON(_ text: UnsafePointer<CChar>?, _ len: Int) throws(MapCoreError) -> JSONValue {
    if text == nil && len == 0 { return .object(JSONObject()) }
    return try JSON.parse(try inputBytes(text, len, "options_json"))
}

/// A `const double bbox[4]` argument: west, south, east, north.
func bboxArgument(_ bbox: UnsafePointer<Double>?) throws(MapCoreError) -> (Double, Double, Double, Double) {
    guard let bbox else { throw MapCoreError(.invalidArgument, "bbox must not be NULL.") }
    return (bbox[0], bbox[1], bbox[2], bbox[3])
}

/// What a serializing call that also writes MessagePack writes.
enum SerializedForm {
    case json(pretty: Bool)
    case messagePack
}

/// The `flags` of a serializing call that takes MC_SERIALIZE_MSGPACK as well as
/// MC_SERIALIZE_PRETTY (which is for text, so not both); other bits are refused.
func serializedForm(_ flags: UInt32) throws(MapCoreError) -> SerializedForm {
    let msgpack = UInt32(MC_SERIALIZE_MSGPACK), pretty = UInt32(MC_SERIALIZE_PRETTY)
    guard flags & ~(msgpack | pretty) == 0 else {
        throw MapCoreError(.invalidArgument, "Unknown serialize flags 0x\(String(flags, radix: 16)).")
    }
    guard flags & msgpack != 0 else { return .json(pretty: flags & pretty != 0) }
    guard flags & pretty == 0 else {
        throw MapCoreError(.invalidArgument, "MC_SERIALIZE_PRETTY is for JSON text, not with MC_SERIALIZE_MSGPACK.")
    }
    return .messagePack
}

/// The `flags` of a serializing call: whether MC_SERIALIZE_PRETTY is set; other bits are refused.
func serializeFlags(_ flags: UInt32) throws(MapCoreError) -> Bool {
    guard flags & ~UInt32(MC_SERIALIZE_PRETTY) == 0 else {
        throw MapCoreError(.invalidArgument, "Unknown serialize flags 0x\(String(flags, radix: 16)).")
    }
    return flags & UInt32(MC_SERIALIZE_PRETTY) != 0
}
