#!/usr/bin/env bash
# Installs Debian's liblmdb-dev when pkg-config cannot find LMDB. Sourced by the set-up scripts,
# because nothing installed by hand survives a fresh machine.
if ! pkg-config --exists lmdb 2>/dev/null; then
    echo "liblmdb-dev is missing: installing it with apt-get" >&2
    SUDO=""
    if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq liblmdb-dev pkg-config
fi
