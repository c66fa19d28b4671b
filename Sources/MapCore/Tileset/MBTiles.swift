// Tileset: MBTiles 1.3 (an SQLite database of tiles in TMS rows and a name/value metadata table),
// read and written through the system SQLite.
//
// Thread safety: one connection per archive opened in SQLite's serialized mode, and statements
// prepared per call, so several threads may read one archive.

import CSQLite
import Glibc

public final class MBTiles: @unchecked Sendable {
    private let db: OpaquePointer
    public let path: String

    /// Opens an archive for reading, or creates (replacing any file there) one for writing.
    public init(path: String, create: Bool = false) throws(MapCoreError) {
        self.path = path
        var handle: OpaquePointer?
        let flags =
            (create ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY) | SQLITE_OPEN_FULLMUTEX
        if create { _ = unlink(path) }
        let status = sqlite3_open_v2(path, &handle, flags, nil)
        guard status == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(status))
            if let handle { sqlite3_close_v2(handle) }
            throw MapCoreError(.io, "Cannot open MBTiles \(path): \(message).")
        }
        db = handle
        sqlite3_busy_timeout(db, 5000)
        if create {
            try exec(
                """
                PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA page_size=4096;
                CREATE TABLE metadata (name TEXT, value TEXT);
                CREATE UNIQUE INDEX name ON metadata (name);
                CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB);
                CREATE UNIQUE INDEX tile_index ON tiles (zoom_level, tile_column, tile_row);
                """)
        } else {
            // A file that is not a database, or one without the tables, fails here, not later.
            let tables = try rows("SELECT name FROM sqlite_master WHERE type IN ('table','view')") { s in
                MBTiles.text(s, 0)
            }
            guard tables.contains("tiles"), tables.contains("metadata") else {
                throw MapCoreError(.parse, "\(path) is not an MBTiles archive: it needs tiles and metadata tables.")
            }
        }
    }

    deinit { sqlite3_close_v2(db) }

    /// The stored bytes of a tile (gzip-compressed as most writers store them), or nil when the
    /// archive has none.
    public func tile(_ id: TileID) throws(MapCoreError) -> [UInt8]? {
        let sql = "SELECT tile_data FROM tiles WHERE zoom_level=?1 AND tile_column=?2 AND tile_row=?3"
        let found = try rows(sql, bind: [Int64(id.z), Int64(id.x), Int64(id.flippedY)]) { s -> [UInt8] in
            let n = Int(sqlite3_column_bytes(s, 0))
            guard n > 0, let p = sqlite3_column_blob(s, 0) else { return [] }
            return Array(UnsafeRawBufferPointer(start: p, count: n))
        }
        return found.first
    }

    /// The metadata table as name/value pairs.
    public func metadata() throws(MapCoreError) -> [(name: String, value: String)] {
        try rows("SELECT name, value FROM metadata") { s in
            (MBTiles.text(s, 0), MBTiles.text(s, 1))
        }
    }

    /// Stores a tile (replacing one at the same address). Not safe to call from several threads.
    public func write(_ id: TileID, bytes: [UInt8]) throws(MapCoreError) {
        let sql = "INSERT OR REPLACE INTO tiles (zoom_level, tile_column, tile_row, tile_data) VALUES (?1, ?2, ?3, ?4)"
        _ = try rows(sql, bind: [Int64(id.z), Int64(id.x), Int64(id.flippedY)], blob: bytes) { _ in () }
    }

    public func setMetadata(_ name: String, _ value: String) throws(MapCoreError) {
        _ = try rows("INSERT OR REPLACE INTO metadata (name, value) VALUES (?1, ?2)", text: [name, value]) { _ in () }
    }

    /// Starts a transaction: writes inside one are far faster than one per tile.
    public func begin() throws(MapCoreError) { try exec("BEGIN") }

    public func commit() throws(MapCoreError) { try exec("COMMIT") }

    /// Runs `body` between BEGIN and COMMIT (ROLLBACK when it throws).
    public func transaction(_ body: () throws(MapCoreError) -> Void) throws(MapCoreError) {
        try exec("BEGIN")
        do { try body() } catch {
            try? exec("ROLLBACK")
            throw error
        }
        try exec("COMMIT")
    }

    private static func text(_ s: OpaquePointer, _ column: Int32) -> String {
        guard let p = sqlite3_column_text(s, column) else { return "" }
        return String(cString: p)
    }

    private func fail(_ what: String) -> MapCoreError {
        let code = sqlite3_errcode(db)
        let kind: ErrorCode = code == SQLITE_NOTADB || code == SQLITE_CORRUPT ? .parse : .io
        return MapCoreError(kind, "MBTiles \(path): \(what): \(String(cString: sqlite3_errmsg(db))).")
    }

    private func exec(_ sql: String) throws(MapCoreError) {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { throw fail("cannot run \(sql.prefix(40))") }
    }

    private func rows<T>(
        _ sql: String, bind ints: [Int64] = [], text: [String] = [], blob: [UInt8]? = nil,
        _ read: (OpaquePointer) -> T
    ) throws(MapCoreError) -> [T] {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let s = statement else {
            throw fail("cannot query")
        }
        defer { sqlite3_finalize(s) }
        var index: Int32 = 1
        for v in ints {
            sqlite3_bind_int64(s, index, v)
            index += 1
        }
        for t in text {
            let utf8 = Array(t.utf8)
            _ = utf8.withUnsafeBufferPointer { b in
                b.withMemoryRebound(to: CChar.self) { mc_sqlite_bind_text(s, index, $0.baseAddress, Int32(b.count)) }
            }
            index += 1
        }
        if let blob {
            guard blob.count < Int(Int32.max) else { throw MapCoreError(.limit, "A tile larger than 2 GiB.") }
            _ = blob.withUnsafeBytes { mc_sqlite_bind_blob(s, index, $0.baseAddress, Int32($0.count)) }
        }
        var out: [T] = []
        while true {
            let status = sqlite3_step(s)
            if status == SQLITE_ROW {
                out.append(read(s))
            } else if status == SQLITE_DONE {
                return out
            } else {
                throw fail("cannot read")
            }
        }
    }
}
