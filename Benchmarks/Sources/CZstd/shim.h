#ifndef CZSTD_SHIM_H
#define CZSTD_SHIM_H

// zstd's stable API and its dictionary builder, as Debian's libzstd-dev installs them, for the
// codec benchmark (docs/benchmarks.md). Benchmarks/Scripts/ensure-zstd.sh installs them.
#include <zstd.h>
#include <zdict.h>

#endif
