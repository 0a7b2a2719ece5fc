# shellcheck shell=bash
# Sourced by .ci/run, scripts/runtimes-install and scripts/_venv.sh: install Debian packages
# that are missing, as root. Another apt or dpkg (an unattended upgrade, a second checkout's
# CI) may hold the dpkg lock: apt waits for it (DPkg::Lock::Timeout, up to APT_LOCK_SECONDS,
# default 600 s) instead of failing at once. `apt-get update` runs once per shell, and only
# when something is missing.

APT_LOCK_SECONDS="${APT_LOCK_SECONDS:-600}"
APT_LISTS_UPDATED=""

apt_get() {
    DEBIAN_FRONTEND=noninteractive apt-get -qq -o "DPkg::Lock::Timeout=${APT_LOCK_SECONDS}" "$@"
}

apt_install() {
    # apt_install [--no-install-recommends] PACKAGE...: install those not installed yet.
    local options=() missing=() package
    if [ "${1:-}" = "--no-install-recommends" ]; then
        options+=("$1")
        shift
    fi
    for package in "$@"; do
        dpkg -s "${package}" >/dev/null 2>&1 || missing+=("${package}")
    done
    [ "${#missing[@]}" -eq 0 ] && return 0
    echo "king-league: apt-get install ${missing[*]}" >&2
    if [ -z "${APT_LISTS_UPDATED}" ]; then
        apt_get update || return 1
        APT_LISTS_UPDATED=yes
    fi
    apt_get install -y "${options[@]}" "${missing[@]}" >/dev/null
}
