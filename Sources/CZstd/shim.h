#ifndef CZSTD_SHIM_H
#define CZSTD_SHIM_H

// zstd's stable API, as Debian's libzstd-dev (pkg-config libzstd) and Homebrew's zstd install
// it: the codec of compressed journal entries (decisions 0028, 0029). Scripts/ensure-zstd.sh
// installs it when it is missing. The benchmarks use its dictionary builder too.
#include <zstd.h>
#include <zdict.h>

#endif
