// C boundary for include/mapcore/common.h: versions, status names, the error record, buffers.
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif
import CMapCoreABI
import MapCore

private func cString(_ s: StaticString) -> UnsafePointer<CChar> {
    UnsafeRawPointer(s.utf8Start).assumingMemoryBound(to: CChar.self)
}

@_cdecl("mc_version")
public func mc_version() -> UnsafePointer<CChar> { cString(MapCoreVersion.string) }

@_cdecl("mc_version_number")
public func mc_version_number() -> Int32 { Int32(MapCoreVersion.number) }

@_cdecl("mc_abi_version")
public func mc_abi_version() -> Int32 { Int32(MapCoreVersion.abi) }

@_cdecl("mc_geos_version")
public func mc_geos_version() -> UnsafePointer<CChar> { GEOS.versionCString }

@_cdecl("mc_errstr")
public func mc_errstr(_ code: Int32) -> UnsafePointer<CChar> {
    if code == 0 { return cString("ok") }
    guard let known = ErrorCode(rawValue: code) else { return cString("unknown error") }
    return cString(known.name)
}

@_cdecl("mc_last_error")
public func mc_last_error() -> UnsafePointer<mc_error> { UnsafePointer(ErrorRecord.current.record) }

@_cdecl("mc_clear_error")
public func mc_clear_error() { ErrorRecord.current.clear() }

@_cdecl("mc_buf_dispose")
public func mc_buf_dispose(_ buf: UnsafeMutablePointer<mc_buf>?) {
    guard let buf else { return }
    free(buf.pointee.data)
    buf.pointee = mc_buf(data: nil, len: 0)
}
