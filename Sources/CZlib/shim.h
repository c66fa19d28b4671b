/* zlib for Swift: the init macros take the library version and stream size, which Swift cannot
 * pass through a macro, so they are wrapped here. */
#ifndef MAPCORE_CZLIB_SHIM_H
#define MAPCORE_CZLIB_SHIM_H
#include <zlib.h>

/* Inflate gzip or zlib data (window bits 15, +32: detect the header). */
static inline int mc_zlib_inflate_init(z_stream *s) { return inflateInit2(s, 15 + 32); }

/* Deflate to gzip (window bits 15, +16: gzip header), default level. */
static inline int mc_zlib_deflate_gzip_init(z_stream *s) {
    return deflateInit2(s, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
}
#endif
