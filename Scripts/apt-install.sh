#!/usr/bin/env bash
# `apt_install PACKAGE…`: installs Debian packages with apt-get, as root or through sudo, and
# refreshes the package lists only once per shell however many ensure-*.sh scripts need
# something. Sourced by those scripts; each decides for itself whether its package is missing.
if ! declare -F apt_install >/dev/null; then
    apt_install() {
        local as_root=""
        if [ "$(id -u)" -ne 0 ]; then as_root="sudo"; fi
        if [ -z "${SYNCJOURNAL_APT_UPDATED:-}" ]; then
            $as_root apt-get update -qq
            SYNCJOURNAL_APT_UPDATED=1
        fi
        DEBIAN_FRONTEND=noninteractive $as_root apt-get install -y -qq "$@"
    }
fi
