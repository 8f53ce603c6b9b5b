#ifndef MEDIAD_CZLIB_SHIM_H
#define MEDIAD_CZLIB_SHIM_H

#include <zlib.h>

/// `deflateInit2` is a macro over `deflateInit2_`; Swift cannot import macros that take arguments.
static inline int mediad_deflate_init_gzip(z_streamp stream, int level) {
    /* windowBits 15 + 16: a gzip header and trailer instead of zlib's. */
    return deflateInit2(stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
}

#endif
