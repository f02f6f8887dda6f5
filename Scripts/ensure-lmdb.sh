#!/usr/bin/env bash
# Installs LMDB when pkg-config cannot find it: Debian's liblmdb-dev with apt-get, or on macOS
# Homebrew's lmdb (and pkgconf, whose search path is how SwiftPM finds Homebrew's lmdb.pc).
# Sourced by the set-up scripts, because nothing installed by hand survives a fresh machine.
if ! pkg-config --exists lmdb 2>/dev/null; then
    if [ "$(uname -s)" = "Darwin" ]; then
        if ! command -v brew >/dev/null 2>&1; then
            echo "LMDB is missing: install Homebrew (https://brew.sh), then: brew install lmdb pkgconf" >&2
            exit 1
        fi
        echo "lmdb is missing: installing it with brew" >&2
        brew install lmdb pkgconf
    else
        echo "liblmdb-dev is missing: installing it with apt-get" >&2
        source "$(dirname "${BASH_SOURCE[0]}")/apt-install.sh"
        apt_install liblmdb-dev pkg-config
    fi
fi
