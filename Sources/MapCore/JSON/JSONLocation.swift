// JSON: turns a byte offset into line, column and JSON path, only once an error has happened,
// so the parsing hot path never tracks them.

enum JSONLocator {
    /// Paths deeper than this show their first and last components around an ellipsis.
    static let maxPathComponents = 24

    static func locate(_ bytes: UnsafeBufferPointer<UInt8>, offset rawOffset: Int) -> SourceLocation {
        let offset = max(0, min(rawOffset, bytes.count))
        var line = 1
        var lineStart = 0
        for i in 0..<offset where bytes[i] == 0x0A {
            line += 1
            lineStart = i + 1
        }
        return SourceLocation(
            offset: offset, line: line, column: offset - lineStart + 1,
            path: path(bytes, upTo: offset))
    }

    private struct Frame {
        var isObject: Bool
        var index = 0
        var key: String? = nil
        var expectingKey = true
    }

    /// Replays the structure of the text before `offset` to name the value being read there.
    static func path(_ bytes: UnsafeBufferPointer<UInt8>, upTo offset: Int) -> String {
        var frames: [Frame] = []
        var p = 0
        while p < offset {
            let c = bytes[p]
            switch c {
            case 0x22:
                let start = p + 1
                p += 1
                while p < bytes.count && bytes[p] != 0x22 { p += bytes[p] == 0x5C ? 2 : 1 }
                if let last = frames.indices.last, frames[last].isObject, frames[last].expectingKey {
                    let stop = min(p, bytes.count)
                    frames[last].key = String(
                        decoding: UnsafeBufferPointer(rebasing: bytes[start..<stop]), as: UTF8.self)
                }
                p += 1
                continue
            case 0x7B: frames.append(Frame(isObject: true))
            case 0x5B: frames.append(Frame(isObject: false))
            case 0x7D, 0x5D: if !frames.isEmpty { frames.removeLast() }
            case 0x2C:
                if let last = frames.indices.last {
                    if frames[last].isObject {
                        frames[last].expectingKey = true
                        frames[last].key = nil
                    } else {
                        frames[last].index += 1
                    }
                }
            case 0x3A:
                if let last = frames.indices.last { frames[last].expectingKey = false }
            default: break
            }
            p += 1
        }
        var parts: [String] = []
        for f in frames {
            if f.isObject {
                guard let key = f.key else { continue }
                parts.append(isIdentifier(key) ? ".\(key)" : "[\(quoted(key))]")
            } else {
                parts.append("[\(f.index)]")
            }
        }
        if parts.count > maxPathComponents {
            let keep = maxPathComponents / 2
            let hidden = parts.count - 2 * keep
            parts = Array(parts.prefix(keep)) + ["…(\(hidden) more)…"] + Array(parts.suffix(keep))
        }
        return "$" + parts.joined()
    }

    private static func isIdentifier(_ s: String) -> Bool {
        guard let first = s.utf8.first, !(0x30...0x39).contains(first) else { return false }
        return s.utf8.allSatisfy { c in
            (0x30...0x39).contains(c) || (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c) || c == 0x5F
        }
    }

    private static func quoted(_ s: String) -> String {
        var w = JSONWriter()
        w.writeString(s)
        return w.string
    }
}

extension PositionedError {
    func located(in bytes: UnsafeBufferPointer<UInt8>) -> MapCoreError {
        MapCoreError(code, message, location: JSONLocator.locate(bytes, offset: offset))
    }
}
