#!/usr/bin/env bash
# Installs zstd's development files when pkg-config cannot find them: Debian's libzstd-dev with
# apt-get (the runtime library alone, libzstd1, ships no header), or on macOS Homebrew's zstd
# and pkgconf. EventJournal compresses journal entries with it (decision 0029), so nothing builds
# without it. Sourced by the set-up scripts, because nothing installed by hand survives a fresh
# machine.
if ! pkg-config --exists libzstd 2>/dev/null; then
    if [ "$(uname -s)" = "Darwin" ]; then
        if ! command -v brew >/dev/null 2>&1; then
            echo "zstd is missing: install Homebrew (https://brew.sh), then: brew install zstd pkgconf" >&2
            exit 1
        fi
        echo "zstd is missing: installing it with brew" >&2
        brew install zstd pkgconf
    else
        echo "libzstd-dev is missing: installing it with apt-get" >&2
        source "$(dirname "${BASH_SOURCE[0]}")/apt-install.sh"
        apt_install libzstd-dev pkg-config
    fi
fi
