// Support: reading byte ranges of a file without reading it whole (archives of gigabytes are read
// a directory and a tile at a time), through pread so several threads can read one file.
import Glibc

/// Bytes read by range: a file, or bytes in memory.
public protocol ByteRanges: AnyObject, Sendable {
    var count: Int { get }
    /// `length` bytes from `offset`; a range past the end is `MapCoreError(.parse)`.
    func read(offset: Int, length: Int) throws(MapCoreError) -> [UInt8]
}

/// Bytes in memory, read by range.
public final class MemoryBytes: ByteRanges {
    let bytes: [UInt8]
    public var count: Int { bytes.count }
    public init(_ bytes: [UInt8]) { self.bytes = bytes }
    public func read(offset: Int, length: Int) throws(MapCoreError) -> [UInt8] {
        guard offset >= 0, length >= 0, offset <= bytes.count, length <= bytes.count - offset else {
            throw MapCoreError(.parse, "A range at \(offset) of \(length) bytes lies outside the \(bytes.count) bytes.")
        }
        return Array(bytes[offset..<(offset + length)])
    }
}

public final class RandomAccessFile: ByteRanges, @unchecked Sendable {
    private let fd: Int32
    public let path: String
    /// The file's size when it was opened.
    public let count: Int

    /// Opens a regular file for reading; anything else (a directory, a device, a FIFO) is refused.
    public init(path: String) throws(MapCoreError) {
        self.path = path
        let fd = open(path, O_RDONLY | O_NONBLOCK)
        guard fd >= 0 else {
            let code: ErrorCode = errno == ENOENT ? .notFound : .io
            throw MapCoreError(code, "Cannot open \(path): \(String(cString: strerror(errno))).")
        }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw MapCoreError(.unsupported, "\(path) is not a regular file.")
        }
        self.fd = fd
        count = Int(st.st_size)
    }

    deinit { close(fd) }

    /// `length` bytes from `offset`; a range past the end of the file is `MapCoreError(.parse)`
    /// (an archive pointing outside itself is corrupt).
    public func read(offset: Int, length: Int) throws(MapCoreError) -> [UInt8] {
        guard offset >= 0, length >= 0, offset <= count, length <= count - offset else {
            throw MapCoreError(
                .parse, "\(path): a range at \(offset) of \(length) bytes lies outside the file (\(count) bytes).")
        }
        var out = [UInt8](repeating: 0, count: length)
        var done = 0
        while done < length {
            let n = out.withUnsafeMutableBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return pread(fd, base + done, length - done, off_t(offset + done))
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw MapCoreError(.io, "Cannot read \(path): \(String(cString: strerror(errno))).")
            }
            if n == 0 { throw MapCoreError(.parse, "\(path) ended early (truncated while being read?).") }
            done += n
        }
        return out
    }
}
