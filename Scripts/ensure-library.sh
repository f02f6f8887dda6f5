#!/usr/bin/env bash
# `ensure_library PKG_CONFIG_NAME DEBIAN_PACKAGE BREW_FORMULA`: installs a C library the package
# links through pkg-config when pkg-config cannot find it: the Debian package with apt-get, or on
# macOS the Homebrew formula (and pkgconf, whose search path is how SwiftPM finds Homebrew's .pc
# files). Sourced by ensure-lmdb.sh and ensure-zstd.sh, because nothing installed by hand survives
# a fresh machine.
source "$(dirname "${BASH_SOURCE[0]}")/apt-install.sh"
if ! declare -F ensure_library >/dev/null; then
    ensure_library() {
        local module=$1 debian_package=$2 formula=$3
        if pkg-config --exists "$module" 2>/dev/null; then return 0; fi
        if [ "$(uname -s)" = "Darwin" ]; then
            if ! command -v brew >/dev/null 2>&1; then
                echo "$module is missing: install Homebrew (https://brew.sh), then: brew install $formula pkgconf" >&2
                exit 1
            fi
            echo "$module is missing: installing it with brew" >&2
            brew install "$formula" pkgconf
        else
            echo "$debian_package is missing: installing it with apt-get" >&2
            apt_install "$debian_package" pkg-config
        fi
    }
fi
