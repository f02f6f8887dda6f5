#!/usr/bin/env bash
# Installs Debian's libsqlcipher-dev when its header is missing. sqlcipher-baseline (the soup
# benchmark's encrypted SmartStore baseline) includes <sqlcipher/sqlite3.h> and links
# libsqlcipher from the system's default paths, so the benchmark package does not build without
# them; nothing installed by hand survives a fresh machine, hence this script. Sourced by
# Benchmarks/Scripts/build (which .ci/run runs); run it once before a first build by hand.
sqlcipher_header=/usr/include/sqlcipher/sqlite3.h
if [ ! -e "$sqlcipher_header" ]; then
    if [ "$(uname -s)" != "Linux" ]; then
        # Homebrew's sqlcipher lives outside the default paths: pass them to swift build.
        echo "SQLCipher is missing: brew install sqlcipher, then build with" \
            "-Xcc -I\$(brew --prefix)/include -Xlinker -L\$(brew --prefix)/lib" >&2
        exit 1
    fi
    echo "libsqlcipher-dev is missing: installing it with apt-get" >&2
    source "$(dirname "${BASH_SOURCE[0]}")/../../Scripts/apt-install.sh"
    apt_install libsqlcipher-dev
fi
