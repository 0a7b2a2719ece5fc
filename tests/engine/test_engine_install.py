"""``pip install ./engine`` into a clean virtual environment builds the compiled solver
where gcc is present (engine/setup.py), with no network: pip and setuptools are the
project's own, seen by the new environment as a second site folder, and the build is not
isolated. The engine's folder is copied first, so an earlier build in the clone (build/,
an in-place _dds*.so) cannot stand in for this one."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

from tests.servers import running_under_ci

PROJECT = Path(__file__).resolve().parents[2]
BUILD_TOOLS = ("setuptools", "pip", "_distutils_hack", "distutils-precedence.pth")


def _project_build_tools(folder: Path) -> Path:
    """A folder holding links to the project's own pip and setuptools (with their
    dist-info, where setuptools' commands are registered)."""
    site_packages = Path(sysconfig.get_paths()["purelib"])
    folder.mkdir()
    for entry in site_packages.iterdir():
        name = entry.name
        wanted = name in BUILD_TOOLS or (
            name.endswith(".dist-info") and name.split("-")[0] in ("setuptools", "pip")
        )
        if wanted:
            (folder / name).symlink_to(entry)
    assert (folder / "setuptools").is_dir()
    assert (folder / "pip").is_dir()
    return folder


@pytest.mark.slow
def test_pip_install_engine_builds_the_compiled_solver_in_a_clean_venv(tmp_path: Path) -> None:
    if shutil.which("gcc") is None:
        if running_under_ci():
            pytest.fail("CI must provide gcc (scripts/runtimes-install native)")
        pytest.skip("gcc is not installed: apt-get install gcc libc6-dev")
    source = tmp_path / "clone" / "engine"
    shutil.copytree(
        PROJECT / "engine",
        source,
        ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info", "*.so"),
    )
    environment = tmp_path / "venv"
    venv.create(environment, with_pip=False)
    python = environment / "bin" / "python"
    site_packages = Path(
        subprocess.run(
            [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    tools = _project_build_tools(tmp_path / "build-tools")
    (site_packages / "project-build-tools.pth").write_text(
        f"import site; site.addsitedir({str(tools)!r})\n"
    )
    clean_env = {key: value for key, value in os.environ.items() if not key.startswith("PYTHON")}
    clean_env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    install = subprocess.run(
        [
            python,
            "-m",
            "pip",
            "install",
            "--no-index",
            "--no-build-isolation",
            "--no-deps",
            str(source),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=clean_env,
        timeout=600,
        check=False,
    )
    assert install.returncode == 0, install.stdout + install.stderr
    probe = (
        "import engine, engine.double_dummy as d; "
        "print(engine.__file__); print(d.compiled_available()); "
        "print(d.compiled_unavailable_reason())"
    )
    result = subprocess.run(
        [python, "-c", probe], capture_output=True, text=True, cwd=environment, env=clean_env
    )
    assert result.returncode == 0, result.stderr
    location, compiled, reason = result.stdout.splitlines()
    assert location.startswith(str(site_packages))
    assert (compiled, reason) == ("True", "None")
    installed = sorted(path.name for path in (site_packages / "engine").iterdir())
    assert "setup.py" not in installed
    viewer = site_packages / "engine" / "viewer"  # what show --html inlines: package data
    assert (viewer / "replay.html").is_file()
    assert (viewer / "static" / "web" / "site.css").is_file()
    assert (viewer / "static" / "web" / "js" / "replay.js").is_file()
    assert len(list((viewer / "static" / "web" / "cards").glob("*.svg"))) == 53
    said = subprocess.run(
        [python, "-m", "engine", "solver"], capture_output=True, text=True, cwd=environment
    )
    assert said.returncode == 0
    assert "is built here" in said.stdout


def test_without_the_compiled_solver_the_engine_says_so_once() -> None:
    probe = (
        "import sys, warnings; sys.modules['engine._dds'] = None\n"
        "import engine.double_dummy as d\n"
        "from engine import load_game\n"
        "state = load_game('kingen').new_initial_state(seed=3)\n"
        "while state.phase != 'play' or max(h.bit_count() for h in state.hands) > 3:\n"
        "    state.apply_action(state.legal_actions()[0])\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        "    d.solve(state); d.solve(state)\n"
        "print(len(caught)); print(caught[0].message)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=PROJECT
    )
    assert result.returncode == 0, result.stderr
    count, message = result.stdout.splitlines()
    assert count == "1"
    assert "pure-Python search" in message
    assert "pip install --force-reinstall" in message
    said = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; sys.modules['engine._dds'] = None\n"
            "from engine.__main__ import main; raise SystemExit(main(['solver']))",
        ],
        capture_output=True,
        text=True,
        cwd=PROJECT,
    )
    assert said.returncode == 3
    assert "was not built" in said.stdout
