#!/usr/bin/env bash
# Installs LMDB when pkg-config cannot find it: Debian's liblmdb-dev, or Homebrew's lmdb.
# Sourced by the set-up scripts, because nothing installed by hand survives a fresh machine.
source "$(dirname "${BASH_SOURCE[0]}")/ensure-library.sh"
ensure_library lmdb liblmdb-dev lmdb
