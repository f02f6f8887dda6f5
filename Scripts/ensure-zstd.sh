#!/usr/bin/env bash
# Installs zstd's development files when pkg-config cannot find them: Debian's libzstd-dev (the
# runtime library alone, libzstd1, ships no header), or Homebrew's zstd. EventJournal compresses
# journal entries with it (decision 0029), so nothing builds without it. Sourced by the set-up
# scripts, because nothing installed by hand survives a fresh machine.
source "$(dirname "${BASH_SOURCE[0]}")/ensure-library.sh"
ensure_library libzstd libzstd-dev zstd
