// VectorTile: gzip, as tiles travel (servers, MBTiles and PMTiles store them compressed), through
// the system zlib, with a cap on what inflating may produce so a small bomb cannot take memory.

import CZlib

public enum Gzip {
    /// The most bytes inflating a tile may produce unless the caller says otherwise.
    public static let defaultLimit = 64 << 20

    /// Whether `bytes` start with the gzip magic number.
    public static func isCompressed(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count >= 2 && bytes[0] == 0x1F && bytes[1] == 0x8B
    }

    /// Inflates gzip (or zlib) data; more than `limit` bytes out is `MapCoreError(.limit)`,
    /// corrupt or truncated data `MapCoreError(.parse)`.
    public static func inflate(
        _ bytes: UnsafeRawBufferPointer, limit: Int = defaultLimit
    ) throws(MapCoreError) -> [UInt8] {
        guard let base = bytes.baseAddress, bytes.count <= Int(UInt32.max) else {
            if bytes.isEmpty { throw MapCoreError(.parse, "Invalid gzip data: empty.") }
            throw MapCoreError(.limit, "Compressed data larger than 4 GiB.")
        }
        var stream = z_stream()
        guard mc_zlib_inflate_init(&stream) == Z_OK else { throw MapCoreError(.outOfMemory, "zlib could not start.") }
        defer { inflateEnd(&stream) }
        stream.next_in = UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: Bytef.self))
        stream.avail_in = uInt(bytes.count)
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let status: Int32 = chunk.withUnsafeMutableBufferPointer { c in
                stream.next_out = c.baseAddress
                stream.avail_out = uInt(c.count)
                return CZlib.inflate(&stream, Z_NO_FLUSH)
            }
            let produced = chunk.count - Int(stream.avail_out)
            guard out.count + produced <= limit else {
                throw MapCoreError(.limit, "Inflated data exceeds the limit of \(limit) bytes.")
            }
            out.append(contentsOf: chunk[0..<produced])
            switch status {
            case Z_STREAM_END: return out
            case Z_OK: continue
            case Z_BUF_ERROR:
                // No progress possible: the input ended before the stream did.
                if produced == 0 { throw MapCoreError(.parse, "Invalid gzip data: truncated.") }
            default:
                throw MapCoreError(.parse, "Invalid gzip data (zlib status \(status)).")
            }
        }
    }

    /// `bytes` gzip-compressed at zlib's default level.
    public static func compress(_ bytes: [UInt8]) throws(MapCoreError) -> [UInt8] {
        var stream = z_stream()
        guard mc_zlib_deflate_gzip_init(&stream) == Z_OK else {
            throw MapCoreError(.outOfMemory, "zlib could not start.")
        }
        defer { deflateEnd(&stream) }
        guard bytes.count <= Int(UInt32.max) else { throw MapCoreError(.limit, "Data larger than 4 GiB.") }
        var out = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(bytes.count))))
        let status: Int32 = bytes.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { o in
                stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                stream.avail_in = uInt(input.count)
                stream.next_out = o.baseAddress
                stream.avail_out = uInt(o.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else { throw MapCoreError(.internalError, "zlib deflate failed (\(status)).") }
        out.removeLast(Int(stream.avail_out))
        return out
    }
}
