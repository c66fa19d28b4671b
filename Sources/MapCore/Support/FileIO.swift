// Support: reading whole files without Foundation (the shipped library must not link it).
import Glibc

public enum FileIO {
    /// The bytes of the file at `path`, or of standard input for "-".
    public static func read(path: String) throws(MapCoreError) -> [UInt8] {
        let fd = path == "-" ? 0 : open(path, O_RDONLY)
        guard fd >= 0 else { throw ioError("Cannot open \(path)") }
        defer { if fd != 0 { close(fd) } }
        var st = stat()
        var bytes: [UInt8] = []
        if fstat(fd, &st) == 0 && st.st_size > 0 { bytes.reserveCapacity(Int(st.st_size)) }
        let chunk = 1 << 20
        while true {
            let before = bytes.count
            var readCount = 0
            bytes.append(contentsOf: repeatElement(0, count: chunk))
            bytes.withUnsafeMutableBytes { raw in
                guard let base = raw.baseAddress else { return }
                readCount = Glibc.read(fd, base + before, chunk)
            }
            if readCount < 0 {
                if errno == EINTR { bytes.removeLast(chunk); continue }
                throw ioError("Cannot read \(path)")
            }
            bytes.removeLast(chunk - readCount)
            if readCount == 0 { return bytes }
        }
    }

    private static func ioError(_ what: String) -> MapCoreError {
        MapCoreError(.io, "\(what): \(String(cString: strerror(errno))).")
    }
}
