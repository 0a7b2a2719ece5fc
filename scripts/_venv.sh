# shellcheck shell=bash
# Sourced by scripts/run, scripts/test and .ci/run: make sure .venv exists and holds exactly
# the locked versions (requirements/dev.lock, every file checked against its sha256) and this
# project, editable. Reinstalls only when the lock, pyproject.toml or setup.py changed since
# the last install (their sha256 is kept in .venv/.install-sha256). pip's wheel cache
# (~/.cache/pip) persists between runs, so a repeated install unpacks wheels and downloads
# nothing. Then compiles the translation catalogues (locale/*/LC_MESSAGES/*.po -> .mo, not
# committed) when a .po is newer than its .mo, installing Debian's gettext first if msgfmt is
# missing. docs/operations.md ("The locked install") says how to update the lock.

KING_LEAGUE_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
KING_LEAGUE_VENV="${KING_LEAGUE_ROOT}/.venv"
# shellcheck source=scripts/_apt.sh
source "${KING_LEAGUE_ROOT}/scripts/_apt.sh"

venv_python_find() {
    # The interpreter that creates the venv: $PYTHON if set, else python3.11, else python3.
    local candidate
    for candidate in "${PYTHON:-}" python3.11 python3; do
        [ -n "${candidate}" ] || continue
        if command -v "${candidate}" >/dev/null 2>&1 \
            && "${candidate}" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
            echo "${candidate}"
            return 0
        fi
    done
    echo "king-league: Python 3.11 or newer is needed (set PYTHON=/path/to/python3.11)" >&2
    return 1
}

venv_ensure() {
    local python stamp wanted pip
    if [ ! -x "${KING_LEAGUE_VENV}/bin/python" ]; then
        python="$(venv_python_find)" || return 1
        echo "king-league: creating ${KING_LEAGUE_VENV}" >&2
        "${python}" -m venv "${KING_LEAGUE_VENV}" || return 1
    fi
    stamp="${KING_LEAGUE_VENV}/.install-sha256"
    wanted="$(cd "${KING_LEAGUE_ROOT}" && cat requirements/dev.lock pyproject.toml setup.py | sha256sum | cut -d' ' -f1)"
    if [ ! -f "${stamp}" ] || [ "$(cat "${stamp}")" != "${wanted}" ]; then
        echo "king-league: installing requirements/dev.lock and the project into ${KING_LEAGUE_VENV} (first install, or the lock changed)" >&2
        pip=("${KING_LEAGUE_VENV}/bin/python" -m pip --disable-pip-version-check)
        # Exactly the locked files (--require-hashes, --no-deps: the lock is the whole
        # closure), then the project itself with the locked setuptools (no build isolation,
        # so nothing is fetched to build it; setup.py compiles the solver where cc exists).
        "${pip[@]}" install --quiet --quiet --require-hashes --no-deps \
            -r "${KING_LEAGUE_ROOT}/requirements/dev.lock" || return 1
        "${pip[@]}" install --quiet --no-deps --no-build-isolation \
            -e "${KING_LEAGUE_ROOT}" || return 1
        echo "${wanted}" >"${stamp}"
    fi
    export PATH="${KING_LEAGUE_VENV}/bin:${PATH}"
    export VIRTUAL_ENV="${KING_LEAGUE_VENV}"
    catalogues_compile
}

catalogues_compile() {
    # The .mo files Django reads, built from the committed .po files when one is missing or
    # older than its .po (a fresh clone, a pulled translation).
    local po stale=""
    for po in "${KING_LEAGUE_ROOT}"/locale/*/LC_MESSAGES/*.po; do
        [ -e "${po}" ] || continue
        if [ ! -f "${po%.po}.mo" ] || [ "${po}" -nt "${po%.po}.mo" ]; then
            stale=yes
        fi
    done
    [ -n "${stale}" ] || return 0
    if ! command -v msgfmt >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
        echo "king-league: installing gettext (msgfmt compiles the translation catalogues)" >&2
        apt_install gettext || true
    fi
    if command -v msgfmt >/dev/null 2>&1; then
        (cd "${KING_LEAGUE_ROOT}" && "${KING_LEAGUE_VENV}/bin/python" manage.py compilemessages --verbosity 0 --ignore .venv) || return 1
    else
        # No gettext and no root to install it (a fresh machine with Python only): polib, a
        # dependency of the project, writes the same .mo files.
        echo "king-league: no msgfmt here (apt-get install gettext); compiling the catalogues with polib" >&2
        "${KING_LEAGUE_VENV}/bin/python" - "${KING_LEAGUE_ROOT}"/locale/*/LC_MESSAGES/*.po <<'PYTHON' || return 1
import sys

import polib

for po in sys.argv[1:]:
    polib.pofile(po).save_as_mofile(po[: -len(".po")] + ".mo")
PYTHON
    fi
}

AXE_LOCK_DIR="${KING_LEAGUE_ROOT}/requirements/axe"
AXE_CORE_DIR="${KING_LEAGUE_ROOT}/.axe"

axe_ensure() {
    # axe-core (the accessibility checker the browser tests inject into the pages, offline)
    # in a folder of its own, .axe/ (not committed): `npm ci` installs exactly what
    # requirements/axe/package-lock.json locks (with its sha512), when it is missing or the
    # lock changed; Debian's npm is installed first if there is none (as root).
    if [ -f "${AXE_CORE_DIR}/node_modules/axe-core/axe.min.js" ] \
        && cmp -s "${AXE_LOCK_DIR}/package-lock.json" "${AXE_CORE_DIR}/package-lock.json"; then
        return 0
    fi
    if ! command -v npm >/dev/null 2>&1; then
        if [ "$(id -u)" != 0 ]; then
            echo "king-league: no npm here (apt-get install npm): axe-core is not installed, so the accessibility tests skip (under CI=true they fail)" >&2
            return 1
        fi
        echo "king-league: installing npm (it installs axe-core for the browser tests)" >&2
        apt_install npm || return 1
    fi
    echo "king-league: installing axe-core into ${AXE_CORE_DIR} (requirements/axe/package-lock.json)" >&2
    rm -rf "${AXE_CORE_DIR}"
    mkdir -p "${AXE_CORE_DIR}"
    cp "${AXE_LOCK_DIR}/package.json" "${AXE_LOCK_DIR}/package-lock.json" "${AXE_CORE_DIR}/"
    (cd "${AXE_CORE_DIR}" && npm ci --silent --no-audit --no-fund >/dev/null) || return 1
}
