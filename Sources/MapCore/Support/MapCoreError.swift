// Support: the one error type every stage throws, carrying a code the C ABI maps 1:1.

/// What went wrong, as a small closed set. The raw values are the C ABI's `MC_E_*` codes.
public enum ErrorCode: Int32, Sendable, CaseIterable {
    case invalidArgument = -1
    case parse = -2
    case invalidGeoJSON = -3
    case type = -4
    case notFound = -5
    case unsupported = -6
    case io = -7
    case bufferTooSmall = -8
    case outOfMemory = -9
    case misuse = -10
    case limit = -11
    case internalError = -12
    case expression = -13
    case evaluation = -14

    /// A stable short name, used by `mc_errstr`.
    public var name: StaticString {
        switch self {
        case .invalidArgument: return "invalid argument"
        case .parse: return "parse error"
        case .invalidGeoJSON: return "invalid GeoJSON"
        case .type: return "type error"
        case .notFound: return "not found"
        case .unsupported: return "unsupported"
        case .io: return "I/O error"
        case .bufferTooSmall: return "buffer too small"
        case .outOfMemory: return "out of memory"
        case .misuse: return "library misuse"
        case .limit: return "limit exceeded"
        case .internalError: return "internal error"
        case .expression: return "expression error"
        case .evaluation: return "evaluation error"
        }
    }
}

/// Where in a text input an error was found. Line and column are 1-based; the column counts
/// bytes, as most editors' "go to byte column" does for UTF-8.
public struct SourceLocation: Equatable, Sendable {
    public var offset: Int
    public var line: Int
    public var column: Int
    /// JSONPath of the value being read, e.g. `$.features[3].geometry.coordinates`; for
    /// expressions, the key path of the failing node, e.g. `[2][1]`.
    public var path: String

    public init(offset: Int, line: Int, column: Int, path: String) {
        self.offset = offset
        self.line = line
        self.column = column
        self.path = path
    }
}

/// The error every MapCore operation throws.
public struct MapCoreError: Error, Equatable, CustomStringConvertible, Sendable {
    public var code: ErrorCode
    public var message: String
    public var location: SourceLocation?

    public init(_ code: ErrorCode, _ message: String, location: SourceLocation? = nil) {
        self.code = code
        self.message = message
        self.location = location
    }

    public var description: String {
        guard let location else { return message }
        let at = location.path.isEmpty ? "" : ", at \(location.path)"
        return "\(message) (line \(location.line), column \(location.column)\(at))"
    }
}
