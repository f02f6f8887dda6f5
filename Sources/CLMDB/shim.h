#ifndef CLMDB_SHIM_H
#define CLMDB_SHIM_H

// The whole LMDB C API comes from Debian's liblmdb-dev. Nothing here needs a C helper:
// every function Swift calls is a plain C function in lmdb.h.
#include <lmdb.h>

#endif
