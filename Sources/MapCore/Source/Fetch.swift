// Source: reading bytes (GeoJSON, TileJSON, tiles) from a file path, a file:// URL, or http(s) through libcurl.
import CCurl
import Glibc

public enum Fetch {
    /// The bytes at `location`: a path, a file:// URL, or an http:// / https:// URL; more than
    /// `limit` bytes (after decompression) is `MapCoreError(.limit)`, refused before reading when
    /// the size is known (a file's size, an HTTP Content-Length). Only regular files are read.
    public static func bytes(from location: String, limit: Int) throws(MapCoreError) -> [UInt8] {
        let lower = location.lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") {
            let (status, body) = try http(location, limit: limit)
            guard status < 400 else { throw MapCoreError(.io, "Cannot fetch \(location): HTTP status \(status).") }
            return body
        }
        return try FileIO.read(path: try localPath(location), limit: limit, regularFilesOnly: true)
    }

    /// The file a location that is not http(s) names: a path, or a file:// URL decoded.
    static func localPath(_ location: String) throws(MapCoreError) -> String {
        let lower = location.lowercased()
        if lower.hasPrefix("file://") {
            var rest = Substring(location.dropFirst("file://".count))
            if rest.lowercased().hasPrefix("localhost/") { rest = rest.dropFirst("localhost".count) }
            guard rest.hasPrefix("/") else {
                throw MapCoreError(
                    .invalidArgument, "A file:// URL needs an absolute path (file:///path); got \(location).")
            }
            return try percentDecoded(rest)
        }
        if let scheme = lower.split(separator: "/", maxSplits: 1).first, scheme.hasSuffix(":") {
            throw MapCoreError(
                .unsupported, "Unsupported URL scheme in \(location): use a path, file://, http:// or https://.")
        }
        return location
    }

    private static func percentDecoded(_ s: Substring) throws(MapCoreError) -> String {
        var out: [UInt8] = []
        var bytes = Array(s.utf8)[...]
        while let b = bytes.popFirst() {
            guard b == UInt8(ascii: "%") else { out.append(b); continue }
            guard bytes.count >= 2, let v = UInt8(String(decoding: bytes.prefix(2), as: UTF8.self), radix: 16) else {
                throw MapCoreError(.invalidArgument, "Bad percent escape in file URL.")
            }
            out.append(v)
            bytes = bytes.dropFirst(2)
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static let globalInit: CURLcode = curl_global_init(Int(CURL_GLOBAL_DEFAULT))

    /// Where HTTPS (and an HTTPS proxy) finds its trusted certificates, decided once per process.
    /// The bundle: the file named by `CURL_CA_BUNDLE` (the curl tool's variable) or
    /// `SSL_CERT_FILE` (OpenSSL's) when set, which must exist (a missing one fails each fetch,
    /// naming it, as the curl tool does); else libcurl's built-in bundle when that file exists on
    /// this machine; else the first bundle found among the usual places of the common
    /// distributions, for a libcurl built elsewhere (the wheel's, built on Debian, run on Fedora
    /// or openSUSE); else none where a directory stands in. Beside it the directory of
    /// `SSL_CERT_DIR`, else libcurl's built-in one. A built-in bundle that is missing is not left
    /// in place where a directory is there: libcurl then failed every HTTPS request ("error
    /// setting certificate file"), as on Fedora (/etc/ssl/certs a link to /etc/pki/tls/certs)
    /// and openSUSE.
    private static let trustStore: TrustStore = {
        func environment(_ name: String) -> String? {
            guard let value = getenv(name), let s = String(validatingCString: value), !s.isEmpty else { return nil }
            return s
        }
        let directory = environment("SSL_CERT_DIR")
        if let file = environment("CURL_CA_BUNDLE") ?? environment("SSL_CERT_FILE") {
            return TrustStore(file: file, directory: directory)
        }
        // No bundle named (a directory may be): the system's, as OpenSSL takes its default file
        // beside SSL_CERT_DIR.
        func readable(_ p: UnsafePointer<CChar>?) -> Bool { p.map { access($0, R_OK) == 0 } ?? false }
        let builtinFile = mc_curl_builtin_cainfo()  // nil: built without one, or too old to say
        if readable(builtinFile) { return TrustStore(directory: directory) }
        let bundles = [
            "/etc/ssl/certs/ca-certificates.crt",  // Debian, Ubuntu, Arch, Gentoo
            "/etc/pki/tls/certs/ca-bundle.crt",  // Fedora, RHEL, CentOS
            "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",  // RHEL 7+
            "/etc/ssl/ca-bundle.pem",  // openSUSE
            "/etc/ssl/cert.pem",  // Alpine, macOS, OpenBSD
            "/usr/local/share/certs/ca-root-nss.crt",  // FreeBSD
        ]
        if let found = bundles.first(where: { access($0, R_OK) == 0 }) {
            return TrustStore(file: found, directory: directory)
        }
        let directoryThere = directory != nil || readable(mc_curl_builtin_capath())
        return TrustStore(directory: directory, withoutFile: builtinFile != nil && directoryThere)
    }()

    /// What a request is told about trusted certificates; nothing set keeps libcurl's built-ins.
    private struct TrustStore {
        var file: String? = nil
        var directory: String? = nil
        /// The built-in bundle is missing and a directory is there: the bundle is unset.
        var withoutFile = false

        /// Set for the server and, the same, for an HTTPS proxy (which has options of its own).
        func apply(to h: UnsafeMutableRawPointer) {
            for (fileOption, directoryOption) in [
                (CURLOPT_CAINFO, CURLOPT_CAPATH),
                (CURLOPT_PROXY_CAINFO, CURLOPT_PROXY_CAPATH),
            ] {
                if let file { _ = mc_curl_set_string(h, fileOption, file) }
                if let directory { _ = mc_curl_set_string(h, directoryOption, directory) }
                if withoutFile { _ = mc_curl_set_string(h, fileOption, nil) }
            }
        }
    }

    private final class Body {
        var bytes: [UInt8] = []
        var tooLarge = false
        let limit: Int
        init(limit: Int) { self.limit = limit }
    }

    /// A tile's bytes, or nil when the server has none: HTTP 404 and 204 mean "no tile" to
    /// MapLibre, not an error. Other locations as `bytes(from:limit:)`, a missing file being nil.
    public static func tile(from location: String, limit: Int) throws(MapCoreError) -> [UInt8]? {
        let lower = location.lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") {
            let (status, body) = try http(location, limit: limit)
            if status == 404 || status == 204 { return nil }
            guard status < 400 else { throw MapCoreError(.io, "Cannot fetch \(location): HTTP status \(status).") }
            return body
        }
        let path = try localPath(location)
        guard FileIO.exists(path) else { return nil }
        return try FileIO.read(path: path, limit: limit, regularFilesOnly: true)
    }

    /// The status and body of an HTTP(S) request; transport failures throw.
    private static func http(_ url: String, limit: Int) throws(MapCoreError) -> (status: Int, body: [UInt8]) {
        guard globalInit == CURLE_OK, let h = curl_easy_init() else {
            throw MapCoreError(.io, "libcurl could not be initialised.")
        }
        defer { curl_easy_cleanup(h) }
        var errorText = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let body = Body(limit: limit)
        let code: CURLcode = errorText.withUnsafeMutableBufferPointer { errBuf in
            withExtendedLifetime(body) {
                _ = mc_curl_set_string(h, CURLOPT_URL, url)
                _ = mc_curl_set_long(h, CURLOPT_FOLLOWLOCATION, 1)
                _ = mc_curl_set_long(h, CURLOPT_MAXREDIRS, 10)
                _ = mc_curl_set_long(h, CURLOPT_TIMEOUT, 60)
                _ = mc_curl_set_long(h, CURLOPT_CONNECTTIMEOUT, 15)
                _ = mc_curl_set_long(h, CURLOPT_NOSIGNAL, 1)  // no SIGALRM in the host process
                trustStore.apply(to: h)
                _ = mc_curl_set_string(h, CURLOPT_ACCEPT_ENCODING, "")
                _ = mc_curl_set_string(h, CURLOPT_USERAGENT, "MapCore/\(MapCoreVersion.string)")
                // A Content-Length above the limit is refused before the body is read.
                _ = mc_curl_set_off_t(h, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(limit))
                _ = mc_curl_set_pointer(h, CURLOPT_ERRORBUFFER, errBuf.baseAddress)
                _ = mc_curl_set_pointer(h, CURLOPT_WRITEDATA, Unmanaged.passUnretained(body).toOpaque())
                _ = mc_curl_set_write_function(h) { data, size, count, context in
                    guard let data, let context else { return 0 }
                    let body = Unmanaged<Body>.fromOpaque(context).takeUnretainedValue()
                    let n = size * count
                    // Decoded (gzip, deflate) bytes count too, so a small compressed body cannot
                    // inflate past the limit.
                    guard body.bytes.count + n <= body.limit else { body.tooLarge = true; return 0 }
                    data.withMemoryRebound(to: UInt8.self, capacity: n) {
                        body.bytes.append(contentsOf: UnsafeBufferPointer(start: $0, count: n))
                    }
                    return n
                }
                return curl_easy_perform(h)
            }
        }
        guard !body.tooLarge, code != CURLE_FILESIZE_EXCEEDED else {
            throw MapCoreError(.limit, "\(url): the response is larger than the limit of \(limit) bytes.")
        }
        guard code == CURLE_OK else {
            let detail = String(decoding: errorText.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let reason = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
            throw MapCoreError(.io, "Cannot fetch \(url): \(reason).")
        }
        var status = 0
        _ = mc_curl_response_code(h, &status)
        return (status, body.bytes)
    }
}
