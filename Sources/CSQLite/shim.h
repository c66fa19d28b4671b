/* SQLite for Swift: SQLITE_TRANSIENT is a cast of -1 to a function pointer, which Swift cannot
 * import, so the binds that need SQLite to copy their argument are wrapped here. */
#ifndef MAPCORE_CSQLITE_SHIM_H
#define MAPCORE_CSQLITE_SHIM_H
#include <sqlite3.h>

static inline int mc_sqlite_bind_text(sqlite3_stmt *s, int i, const char *text, int n) {
    return sqlite3_bind_text(s, i, text, n, SQLITE_TRANSIENT);
}

static inline int mc_sqlite_bind_blob(sqlite3_stmt *s, int i, const void *data, int n) {
    return sqlite3_bind_blob(s, i, data, n, SQLITE_TRANSIENT);
}
#endif
