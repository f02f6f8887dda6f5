#ifndef CZLIB_SHIM_H
#define CZLIB_SHIM_H

// zlib's API as Debian's zlib1g-dev installs it, for the codec benchmark (docs/benchmarks.md).
#include <zlib.h>

/// `deflateInit2` is a macro over `deflateInit2_` that passes the header's version and the stream's
/// size: Swift cannot call a function-like macro, so this wraps it.
static inline int czlib_deflate_init_raw(z_streamp stream, int level) {
    // windowBits -15: a raw deflate stream, no zlib header or checksum (the store has its own).
    return deflateInit2(stream, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
}

/// `inflateInit2` is a macro too; -15 reads the raw stream `czlib_deflate_init_raw` writes.
static inline int czlib_inflate_init_raw(z_streamp stream) {
    return inflateInit2(stream, -15);
}

#endif
