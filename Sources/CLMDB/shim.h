#ifndef CLMDB_SHIM_H
#define CLMDB_SHIM_H

// The whole LMDB C API comes from lmdb.h: Debian's liblmdb-dev, or Homebrew's lmdb on macOS,
// found through pkg-config (lmdb.pc gives the include and library folders). Nothing here needs
// a C helper: every function Swift calls is a plain C function in lmdb.h.
#include <lmdb.h>

#endif
