"""Each starter kit's README, "From nothing to a match", run as written.

The commands run in bash, one script a kit, from a copy of the repository's bots/ and
engine/ (the commands write into the kit's folder, and ``pip install ./engine`` builds in
it) with an author's Python: a fresh virtual environment that sees the project's packages
(Django, pip, setuptools) and gets its own installs (the Python kit's
``pip install ./bots/sdk ./engine``: no index, no build isolation, so no network).
``python`` and ``python3`` are that environment's.

The README's steps that install a toolchain (``apt-get install``, rustup, numpy for the
server's runtime) are not run: the test checks that what they install is there, and skips
the kit otherwise, except under CI=true, where .ci/run installs every one of them
(scripts/runtimes-install native node java python-numpy) and a missing one fails it. Each
match must end with the kit's bot in seat 0 having played every decision itself. The
folders the READMEs build into (/tmp/cbot ...) are the test's own: the Rust and Java kits
build into the same folders as tests/bots/kits.py, so each is compiled once a session.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sysconfig
import venv
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bots.runner.sandbox import sandbox_unavailable_reason
from tests.bots import kits
from tests.bots.kits import EXAMPLES, PROJECT, missing, require_runtime, require_tool

pytestmark = pytest.mark.sandbox


@dataclass(frozen=True)
class InstallStep:
    """A README line that installs a toolchain: not run; ``check`` skips (or fails under
    CI) when what it installs is missing."""

    pattern: str
    check: Callable[[], None]


def _tools(*names: str) -> Callable[[], None]:
    def check() -> None:
        for name in names:
            require_tool(name)

    return check


INSTALL_STEPS = (
    InstallStep(r"^apt-get install gcc libc6-dev make\b", _tools("gcc", "make")),
    InstallStep(r"^apt-get install default-jdk-headless\b", _tools("javac", "jar")),
    InstallStep(r"^apt-get install nodejs\b", _tools("node")),
    InstallStep(r"^curl https://sh\.rustup\.rs", _tools("cargo")),
    InstallStep(r"^python3 -m pip install numpy==", lambda: require_runtime("python-numpy")),
)
KITS = {
    "python": EXAMPLES / "python",
    "python-numpy": EXAMPLES / "python-numpy",
    "c": EXAMPLES / "native" / "c",
    "rust": EXAMPLES / "native" / "rust",
    "node": EXAMPLES / "node",
    "java": EXAMPLES / "java",
}


def readme_commands(readme: Path) -> list[str]:
    """The shell commands of the README's "From nothing to a match" block, continuation
    lines joined."""
    text = readme.read_text(encoding="utf-8")
    section = text.split("## From nothing to a match", 1)[1]
    block = re.search(r"```sh\n(.*?)```", section, re.DOTALL)
    assert block is not None, f"{readme}: no sh block under 'From nothing to a match'"
    joined = block.group(1).replace("\\\n", " ")
    return [line.strip() for line in joined.splitlines() if line.strip()]


@pytest.fixture(scope="module")
def authors_machine(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A copy of the repository's bots/ and engine/, and an author's virtual environment."""
    root = tmp_path_factory.mktemp("readme")
    clone = root / "repository"
    ignore = shutil.ignore_patterns("__pycache__", "target", "build", "*.egg-info", "bot.zip")
    for name in ("bots", "engine"):
        shutil.copytree(PROJECT / name, clone / name, ignore=ignore)
    environment = root / "venv"
    venv.create(environment, with_pip=False)
    site_packages = next((environment / "lib").glob("python3*/site-packages"))
    project_packages = sysconfig.get_paths()["purelib"]
    (site_packages / "project-packages.pth").write_text(
        f"import site; site.addsitedir({project_packages!r})\n"
    )
    return {"root": root, "clone": clone, "bin": environment / "bin"}


def _match_summaries(stdout: str) -> list[dict[str, Any]]:
    """The JSON summaries ``python -m bots match`` printed, in order."""
    decoder = json.JSONDecoder()
    found = []
    for start in (m.start() for m in re.finditer(r"^\{$", stdout, re.MULTILINE)):
        summary, _end = decoder.raw_decode(stdout, start)
        if isinstance(summary, dict) and "seats" in summary:
            found.append(summary)
    return found


@pytest.mark.slow
@pytest.mark.parametrize("kit", sorted(KITS))
def test_the_kits_readme_runs_as_written(kit: str, authors_machine: dict[str, Path]) -> None:
    reason = sandbox_unavailable_reason()
    if reason is not None:
        missing(f"the bot sandbox: {reason}")
    commands = readme_commands(KITS[kit] / "README.md")
    script = ["set -euo pipefail"]
    for command in commands:
        step = next((s for s in INSTALL_STEPS if re.search(s.pattern, command)), None)
        if step is not None:
            step.check()
            continue
        script.append(command)
    # The READMEs' /tmp/... are the test's: the Rust and Java kits build where
    # tests/bots/kits.py does; the rest in a folder of the kit's, where the C kit's folder
    # (/tmp/cbot) does not exist yet.
    folder = authors_machine["root"] / f"out-{kit}"
    folder.mkdir()
    text = "\n".join(script)
    text = text.replace("/tmp/rustbot", str(kits._scratch() / "rust-kit"))
    text = text.replace("/tmp/javabot", str(kits._scratch() / "java-kit"))
    text = text.replace("/tmp/", f"{folder}/")
    cargo = shutil.which("cargo") or str(Path.home() / ".cargo" / "bin" / "cargo")
    path = os.pathsep.join([str(authors_machine["bin"]), str(Path(cargo).parent)])
    environment = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))},
        "PATH": f"{path}{os.pathsep}{os.environ.get('PATH', '')}",
        "PIP_NO_INDEX": "1",
        "PIP_NO_BUILD_ISOLATION": "0",  # pip's spelling of --no-build-isolation
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    }
    result = subprocess.run(
        ["bash", "-c", text],
        cwd=authors_machine["clone"],
        env=environment,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert result.returncode == 0, f"{text}\n--- stdout\n{result.stdout}\n--- {result.stderr}"
    matches = _match_summaries(result.stdout)
    assert len(matches) == sum("python -m bots match" in line for line in script)
    assert matches, f"{kit}: the README plays no match"
    for summary in matches:
        seat = summary["seats"][0]
        assert (seat["outcome"], seat["fallbacks"], seat["kind"]) == ("ok", 0, "uploaded"), seat
    pages = sorted(folder.glob("*.html"))  # python -m engine show ... --html
    assert len(pages) == text.count(" --html ")
    for page in pages:
        assert 'id="replay-documents"' in page.read_text(encoding="utf-8")
