#!/usr/bin/env bash
# Installs SQLite's development files (Smart SQL's executor, decision 0203) when pkg-config
# cannot find them: Debian's libsqlite3-dev with apt-get. Apple platforms use the SDK's system
# SQLite, which needs no pkg-config file, so nothing is installed there. Sourced by the set-up
# scripts, because nothing installed by hand survives a fresh machine.
if [ "$(uname -s)" != "Darwin" ] && ! pkg-config --exists sqlite3 2>/dev/null; then
    echo "libsqlite3-dev is missing: installing it with apt-get" >&2
    source "$(dirname "${BASH_SOURCE[0]}")/apt-install.sh"
    apt_install libsqlite3-dev pkg-config
fi
