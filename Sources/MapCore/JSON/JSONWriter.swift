// JSON: serialization to UTF-8 bytes, compact or pretty, numbers in shortest round-trip form.

/// Writes JSON into a byte array. Containers are opened and closed explicitly so the GeoJSON
/// writer and the generic value writer share one comma/indent bookkeeping.
public struct JSONWriter: StructuredWriter {
    public private(set) var bytes: [UInt8] = []
    public let pretty: Bool
    private var open: [(hasItems: Bool, inline: Bool)] = []

    public init(pretty: Bool = false, reserve: Int = 256) {
        self.pretty = pretty
        bytes.reserveCapacity(reserve)
    }

    /// A compact writer already inside an array, its `[` not written: what it writes with
    /// `element()` is a run of elements joined by commas, for `appendElements(of:)`.
    public init(elementsReserving reserve: Int) {
        self.init(pretty: false, reserve: reserve)
        open.append((false, false))
    }

    /// Compact output only.
    public mutating func appendElements(of other: JSONWriter) {
        guard !other.bytes.isEmpty else { return }
        separate()
        bytes.append(contentsOf: other.bytes)
    }

    public var string: String { String(decoding: bytes, as: UTF8.self) }

    // MARK: containers

    public mutating func openObject() { bytes.append(0x7B); open.append((false, false)) }
    public mutating func closeObject() { close(0x7D) }

    public mutating func openArray(inline: Bool) {
        bytes.append(0x5B)
        open.append((false, inline || (open.last?.inline ?? false)))
    }
    public mutating func closeArray() { close(0x5D) }

    /// Starts the next member of the innermost object.
    public mutating func key(_ name: String) {
        separate()
        writeString(name)
        bytes.append(0x3A)
        if pretty { bytes.append(0x20) }
    }

    /// Its bytes are copied (the hot writers of GeoJSON and cluster results name every member
    /// this way).
    public mutating func key(ascii name: StaticString) {
        separate()
        bytes.append(0x22)
        append(name)
        bytes.append(0x22)
        bytes.append(0x3A)
        if pretty { bytes.append(0x20) }
    }

    /// Starts the next element of the innermost array.
    public mutating func element() { separate() }

    private mutating func separate() {
        guard let last = open.indices.last else { return }
        if open[last].hasItems { bytes.append(0x2C) }
        open[last].hasItems = true
        if pretty {
            if open[last].inline {
                if bytes.last == 0x2C { bytes.append(0x20) }
            } else {
                newline(indent: open.count)
            }
        }
    }

    private mutating func close(_ bracket: UInt8) {
        guard let frame = open.popLast() else { return }
        if pretty && frame.hasItems && !frame.inline { newline(indent: open.count) }
        bytes.append(bracket)
    }

    private mutating func newline(indent: Int) {
        bytes.append(0x0A)
        for _ in 0..<indent { bytes.append(0x20); bytes.append(0x20) }
    }

    // MARK: scalars

    public mutating func writeNull() { append("null") }
    public mutating func writeBool(_ b: Bool) { append(b ? "true" : "false") }
    public mutating func writeInt(_ v: Int64) { writeDigits(of: v.magnitude, negative: v < 0) }
    public mutating func writeUInt(_ v: UInt64) { writeDigits(of: v, negative: false) }

    /// An integer's decimal digits, made in a stack buffer: `String(v)` made and copied a string
    /// per number, most of writing a tile's integer coordinates (perf log, "tile JSON").
    private mutating func writeDigits(of magnitude: UInt64, negative: Bool) {
        // 20 digits at most (UInt64.max), and a sign.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 21) { buffer in
            var i = buffer.count, rest = magnitude
            repeat {
                i -= 1
                buffer[i] = 0x30 &+ UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
            } while rest != 0
            if negative {
                i -= 1
                buffer[i] = 0x2D
            }
            // A byte at a time: a copy call costs more than the few bytes of a coordinate.
            while i < buffer.count {
                bytes.append(buffer[i])
                i += 1
            }
        }
    }

    /// The pairs of `coords` (x, y, x, y, ...) as elements `[x,y]` of the innermost array, each
    /// number as `writeCoordinate` writes it: what a run of `element()`, `openArray`,
    /// `writeCoordinate` and `closeArray` per pair writes, without their bookkeeping per pair
    /// (a tile's geometry is little else). A trailing odd value is not written.
    public mutating func writeCoordinatePairs(_ coords: UnsafeBufferPointer<Double>) {
        writePairs(coords) { w, c in w.writeCoordinate(c) }
    }

    /// The same for a written tile's Int16 or Int32 coordinates, written as integers: what
    /// `writeCoordinate` writes for their values as Doubles (integral, and far under 1e15; wider
    /// integers would not all be, so only these two are taken).
    mutating func writeCoordinatePairs<I: FixedWidthInteger & SignedInteger>(_ coords: UnsafeBufferPointer<I>) {
        guard I.bitWidth <= 32 else { return writePairs(coords) { w, c in w.writeCoordinate(Double(c)) } }
        writePairs(coords) { w, c in w.writeInt(Int64(c)) }
    }

    @inline(__always)
    private mutating func writePairs<C>(_ coords: UnsafeBufferPointer<C>, _ write: (inout JSONWriter, C) -> Void) {
        guard coords.count >= 2 else { return }
        guard !pretty, let last = open.indices.last else {
            var i = 0
            while i + 1 < coords.count {
                element()
                openArray(inline: true)
                element(); write(&self, coords[i])
                element(); write(&self, coords[i + 1])
                closeArray()
                i += 2
            }
            return
        }
        if open[last].hasItems { bytes.append(0x2C) }
        open[last].hasItems = true
        var i = 0
        while i + 1 < coords.count {
            if i > 0 { bytes.append(0x2C) }
            bytes.append(0x5B)
            write(&self, coords[i])
            bytes.append(0x2C)
            write(&self, coords[i + 1])
            bytes.append(0x5D)
            i += 2
        }
    }

    /// Shortest text that parses back to the same Double. Integral values keep a ".0" so they
    /// read back as doubles, not integers. Non-finite values have no JSON form and write `null`.
    public mutating func writeDouble(_ d: Double) {
        guard d.isFinite else { writeNull(); return }
        bytes.append(contentsOf: d.description.utf8)
    }

    public mutating func writeString(_ s: String) {
        var s = s
        s.withUTF8 { writeString(utf8: $0) }
    }

    public mutating func writeString(utf8: UnsafeBufferPointer<UInt8>) {
        bytes.append(0x22)
        var runStart = 0
        for i in 0..<utf8.count {
            let c = utf8[i]
            guard c < 0x20 || c == 0x22 || c == 0x5C else { continue }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<i]))
            runStart = i + 1
            switch c {
            case 0x22: append("\\\"")
            case 0x5C: append("\\\\")
            case 0x0A: append("\\n")
            case 0x0D: append("\\r")
            case 0x09: append("\\t")
            case 0x08: append("\\b")
            case 0x0C: append("\\f")
            default:
                append("\\u00")
                bytes.append(hexDigit(c >> 4))
                bytes.append(hexDigit(c & 0xF))
            }
        }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<utf8.count]))
        bytes.append(0x22)
    }

    public mutating func writeString(ascii s: StaticString) {
        bytes.append(0x22)
        append(s)
        bytes.append(0x22)
    }

    private mutating func append(_ s: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }

    private func hexDigit(_ v: UInt8) -> UInt8 { v < 10 ? 0x30 + v : 0x61 + v - 10 }
}

/// Whole-value JSON entry points.
public enum JSON {
    /// Parses one JSON value; anything but whitespace after it is an error.
    public static func parse(
        _ bytes: UnsafeBufferPointer<UInt8>, limits: ParseLimits = ParseLimits()
    ) throws(MapCoreError) -> JSONValue {
        var reader = JSONReader(bytes, limits: limits)
        do {
            let value = try reader.readValue()
            try reader.expectEnd()
            return value
        } catch {
            throw error.located(in: bytes)
        }
    }

    public static func parse(_ text: String, limits: ParseLimits = ParseLimits()) throws(MapCoreError) -> JSONValue {
        try withBytes(of: text) { (b) throws(MapCoreError) -> JSONValue in try parse(b, limits: limits) }
    }

    public static func serialize(_ value: JSONValue, pretty: Bool = false) -> String {
        var w = JSONWriter(pretty: pretty)
        w.writeValue(value)
        return w.string
    }
}

extension JSONReader {
    mutating func expectEnd() throws(PositionedError) {
        skipWhitespace()
        guard atEnd else { throw fail("Unexpected data after the end of the JSON value.") }
    }
}

/// Runs `body` over the UTF-8 bytes of `text`, keeping the typed error.
func withBytes<T>(
    of text: String, _ body: (UnsafeBufferPointer<UInt8>) throws(MapCoreError) -> T
) throws(MapCoreError) -> T {
    var text = text
    let result: Result<T, MapCoreError> = text.withUTF8 { b in Result { () throws(MapCoreError) -> T in try body(b) } }
    return try result.get()
}
