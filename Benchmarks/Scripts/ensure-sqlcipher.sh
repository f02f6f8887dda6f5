#!/usr/bin/env bash
# Installs SQLCipher when pkg-config cannot find it: Debian's libsqlcipher-dev with apt-get, or
# on macOS Homebrew's sqlcipher. The benchmarks' `sqlcipher-baseline` links it (the encrypted
# SmartStore baseline of `journal-benchmarks soup`), so the benchmark package does not build
# without it; nothing installed by hand survives a fresh machine, hence this script.
# Sourced by .ci/run before it builds the benchmarks; run it by hand before a first build.
if ! pkg-config --exists sqlcipher 2>/dev/null; then
    if [ "$(uname -s)" = "Darwin" ]; then
        if ! command -v brew >/dev/null 2>&1; then
            echo "SQLCipher is missing: install Homebrew (https://brew.sh), then: brew install sqlcipher pkgconf" >&2
            exit 1
        fi
        echo "sqlcipher is missing: installing it with brew" >&2
        brew install sqlcipher pkgconf
    else
        echo "libsqlcipher-dev is missing: installing it with apt-get" >&2
        SUDO=""
        if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
        $SUDO apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq libsqlcipher-dev pkg-config
    fi
fi
