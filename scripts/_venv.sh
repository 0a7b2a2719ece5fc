# shellcheck shell=bash
# Sourced by scripts/run, scripts/test and .ci/run: make sure .venv exists and holds this
# project with its dev extras. Reinstalls only when pyproject.toml changed since the last
# install (its sha256 is kept in .venv/.pyproject-sha256).

KING_LEAGUE_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
KING_LEAGUE_VENV="${KING_LEAGUE_ROOT}/.venv"

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
    local python stamp wanted
    if [ ! -x "${KING_LEAGUE_VENV}/bin/python" ]; then
        python="$(venv_python_find)" || return 1
        echo "king-league: creating ${KING_LEAGUE_VENV}" >&2
        "${python}" -m venv "${KING_LEAGUE_VENV}" || return 1
    fi
    stamp="${KING_LEAGUE_VENV}/.pyproject-sha256"
    wanted="$(sha256sum "${KING_LEAGUE_ROOT}/pyproject.toml" | cut -d' ' -f1)"
    if [ ! -f "${stamp}" ] || [ "$(cat "${stamp}")" != "${wanted}" ]; then
        echo "king-league: installing the project into ${KING_LEAGUE_VENV} (first install, or pyproject.toml changed)" >&2
        "${KING_LEAGUE_VENV}/bin/python" -m pip install --quiet --disable-pip-version-check \
            -e "${KING_LEAGUE_ROOT}[dev]" || return 1
        echo "${wanted}" >"${stamp}"
    fi
    export PATH="${KING_LEAGUE_VENV}/bin:${PATH}"
    export VIRTUAL_ENV="${KING_LEAGUE_VENV}"
}
