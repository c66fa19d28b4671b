/*
 * MapCore common definitions: versions, status codes, the last-error record, text buffers.
 * Include <mapcore.h> rather than this file.
 */
#ifndef MAPCORE_COMMON_H
#define MAPCORE_COMMON_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define MC_API __attribute__((visibility("default")))
#else
#define MC_API
#endif

/* ---- Versions -------------------------------------------------------------------------- */

#define MC_VERSION_MAJOR 0
#define MC_VERSION_MINOR 1
#define MC_VERSION_PATCH 0
#define MC_VERSION "0.1.0"
/* major * 10000 + minor * 100 + patch */
#define MC_VERSION_NUMBER (MC_VERSION_MAJOR * 10000 + MC_VERSION_MINOR * 100 + MC_VERSION_PATCH)
/* Changes only when the ABI breaks; it is the number in the library's soname (libmapcore.so.0). */
#define MC_ABI_VERSION 0

/* The library's version string ("0.1.0"). Static storage; never NULL. Thread-safe. */
MC_API const char *mc_version(void);
/* MC_VERSION_NUMBER of the library actually loaded (compare with the header's). Thread-safe. */
MC_API int mc_version_number(void);
/* MC_ABI_VERSION of the library actually loaded. Thread-safe. */
MC_API int mc_abi_version(void);
/* Version of the GEOS library MapCore is linked against, e.g. "3.11.1-CAPI-1.17.1".
 * Static storage owned by GEOS; never NULL. Thread-safe. */
MC_API const char *mc_geos_version(void);

/* ---- Status codes ---------------------------------------------------------------------- */

enum {
    MC_OK = 0,
    MC_E_INVALID_ARGUMENT = -1, /* a NULL pointer where one is required, a value out of range */
    MC_E_PARSE = -2,            /* the text is not valid JSON (syntax, invalid UTF-8, bad number) */
    MC_E_INVALID_GEOJSON = -3,  /* valid JSON that is not valid GeoJSON (type, nesting, rings) */
    MC_E_TYPE = -4,             /* a value of the wrong type (expressions) */
    MC_E_NOT_FOUND = -5,        /* no such id / key */
    MC_E_UNSUPPORTED = -6,      /* valid input MapCore does not handle (named in the message) */
    MC_E_IO = -7,               /* a file or network operation failed */
    MC_E_BUFFER_TOO_SMALL = -8, /* a caller buffer is too small; the needed size is returned */
    MC_E_NO_MEMORY = -9,        /* an allocation failed */
    MC_E_MISUSE = -10,          /* a NULL, freed or wrong-kind handle */
    MC_E_LIMIT = -11,           /* input exceeds a limit (nesting depth, size) */
    MC_E_INTERNAL = -12,        /* a bug in MapCore: please report it */
    MC_E_EXPRESSION = -13,      /* an expression or filter does not compile (path = key path) */
    MC_E_EVALUATION = -14       /* an expression failed while evaluating (the spec's run-time error) */
};

/* A short static name for a status code ("parse error"); "unknown error" for unknown codes.
 * Never NULL. Thread-safe. */
MC_API const char *mc_errstr(int code);

/* ---- Last error ------------------------------------------------------------------------ */

/* What the most recent failing call on this thread reported. */
typedef struct mc_error {
    int code;            /* the MC_E_* status that call returned; MC_OK if none since clearing */
    const char *message; /* UTF-8, never NULL ("" when code is MC_OK) */
    const char *path;    /* JSONPath of the offending value ("$.features[3].geometry"), or "" */
    int64_t offset;      /* byte offset in the input text, or -1 when not about a text input */
    int64_t line;        /* 1-based line of `offset`, or 0 */
    int64_t column;      /* 1-based byte column of `offset`, or 0 */
} mc_error;

/* The last error of the calling thread (libgit2 style: successful calls do not clear it).
 * Never NULL. The record and its strings stay valid until the next failing call or
 * mc_clear_error() on this same thread; other threads have their own record. */
MC_API const mc_error *mc_last_error(void);
/* Resets this thread's record to MC_OK. */
MC_API void mc_clear_error(void);

/* ---- Buffers --------------------------------------------------------------------------- */

/* Bytes the library produced: `data` holds `len` bytes followed by a NUL byte (not counted in
 * len). UTF-8 text, except where a call says it writes binary (MVT, MC_SERIALIZE_MSGPACK): then
 * the bytes may hold NULs, so read `len`, not up to the NUL. Initialise with MC_BUF_INIT;
 * release with mc_buf_dispose(). */
typedef struct mc_buf {
    char *data;
    size_t len;
} mc_buf;

#define MC_BUF_INIT {NULL, 0}

/* Frees the text of `buf` and resets it to MC_BUF_INIT, so it can be reused or disposed again.
 * NULL, or a buffer already disposed, does nothing. A function that fills a buffer overwrites
 * it without freeing what it held (it may be uninitialised): dispose a buffer before reusing it. */
MC_API void mc_buf_dispose(mc_buf *buf);

#ifdef __cplusplus
}
#endif

#endif /* MAPCORE_COMMON_H */
