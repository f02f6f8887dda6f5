#!/usr/bin/env bash
# Installs Debian's Chromium when no Chromium is on the machine: the inspector's browser test
# (Tests/JournalInspectorTests/InspectorBrowserTests.swift) opens its pages headless and fails,
# rather than skips, without one. On macOS set $CHROMIUM to a Chrome or Chromium binary instead.
# Sourced by Scripts/test, because nothing installed by hand survives a fresh machine.
if [ "$(uname -s)" != "Darwin" ] && [ -z "${CHROMIUM:-}" ] \
    && ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1; then
    echo "chromium is missing: installing it with apt-get (the inspector's browser test)" >&2
    source "$(dirname "${BASH_SOURCE[0]}")/apt-install.sh"
    apt_install --no-install-recommends chromium
fi
