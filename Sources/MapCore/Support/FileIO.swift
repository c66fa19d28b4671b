// Support: reading and writing whole files without Foundation (the shipped library must not link it).
import Glibc

public enum FileIO {
    /// The bytes of the file at `path`, or of standard input for "-". More than `limit` bytes is
    /// `MapCoreError(.limit)`, refused from the file's size before reading when it is a regular
    /// file. With `regularFilesOnly`, anything but a regular file (a device such as /dev/zero, a
    /// FIFO, a directory) is refused without reading: a library must not block or read forever
    /// on a path it was given.
    public static func read(path: String, limit: Int = Int.max, regularFilesOnly: Bool = false)
        throws(MapCoreError) -> [UInt8] {
        // O_NONBLOCK so that opening a FIFO does not wait for a writer before it can be refused.
        let fd = path == "-" ? 0 : open(path, O_RDONLY | (regularFilesOnly ? O_NONBLOCK : 0))
        guard fd >= 0 else { throw ioError("Cannot open \(path)") }
        defer { if fd != 0 { close(fd) } }
        var st = stat()
        let known = fstat(fd, &st) == 0
        let regular = known && (st.st_mode & S_IFMT) == S_IFREG
        if regularFilesOnly && !regular {
            throw MapCoreError(.unsupported, "\(path) is not a regular file (a device, FIFO or directory).")
        }
        if regular && Int(st.st_size) > limit {
            throw MapCoreError(.limit, "\(path) has \(st.st_size) bytes, more than the limit of \(limit).")
        }
        var bytes: [UInt8] = []
        if regular && st.st_size > 0 { bytes.reserveCapacity(Int(st.st_size)) }
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
            // A file may grow while it is read.
            if bytes.count > limit { throw MapCoreError(.limit, "\(path) is larger than the limit of \(limit) bytes.") }
        }
    }

    /// Writes `bytes` to the file at `path` (created or truncated), or to standard output for "-".
    public static func write(path: String, bytes: [UInt8]) throws(MapCoreError) {
        let fd = path == "-" ? 1 : open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw ioError("Cannot create \(path)") }
        defer { if fd != 1 { close(fd) } }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return Glibc.write(fd, base + written, raw.count - written)
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw ioError("Cannot write \(path)")
            }
            written += n
        }
    }

    /// Whether anything (file, directory, device) is at `path`.
    public static func exists(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0
    }

    private static func ioError(_ what: String) -> MapCoreError {
        MapCoreError(.io, "\(what): \(String(cString: strerror(errno))).")
    }
}
