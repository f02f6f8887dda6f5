#!/usr/bin/env bash
# Installs Debian's libzstd-dev when its header is missing. The codec benchmark
# (journal-benchmarks codec) includes <zstd.h> and <zdict.h> and links libzstd from the system's
# default paths, so the benchmark package does not build without them; the runtime library alone
# (libzstd1) ships no header. Sourced by Benchmarks/Scripts/build (which .ci/run runs); run it
# once before a first build by hand.
zstd_header=/usr/include/zdict.h
if [ ! -e "$zstd_header" ]; then
    if [ "$(uname -s)" != "Linux" ]; then
        # Homebrew's zstd lives outside the default paths: pass them to swift build.
        echo "zstd is missing: brew install zstd, then build with" \
            "-Xcc -I\$(brew --prefix)/include -Xlinker -L\$(brew --prefix)/lib" >&2
        exit 1
    fi
    echo "libzstd-dev is missing: installing it with apt-get" >&2
    as_root=""
    if [ "$(id -u)" -ne 0 ]; then as_root="sudo"; fi
    $as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $as_root apt-get install -y -qq libzstd-dev
fi
