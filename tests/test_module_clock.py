"""Where the suite's time goes, and the order it hands modules out in (tests/module_clock.py,
tests/parallel_processes.py)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.celery_workers import REPOSITORY_ROOT
from tests.module_clock import REFERENCE, module_seconds_known, seconds_read, whole_suite
from tests.parallel_processes import LONG_MODULE_SECONDS, SHORT_MODULE_SECONDS, expected_seconds

MODULE = "tests/test_hypothesis_profiles.py"
"""A quick module of the suite the runs below time."""


def test_the_measured_seconds_outrank_the_reference_and_markers_stand_in_for_none() -> None:
    known = {"tests/a.py": 12.5}
    assert expected_seconds("tests/a.py", known, {"tests/a.py"}) == 12.5
    assert expected_seconds("tests/b.py", known, {"tests/b.py"}) == LONG_MODULE_SECONDS
    assert expected_seconds("tests/c.py", known, set()) == SHORT_MODULE_SECONDS


def test_this_machines_cache_overrides_the_committed_reference(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    reference = seconds_read(REFERENCE)
    assert module_seconds_known() == reference
    cache = tmp_path / "king-league" / "module-seconds.json"
    cache.parent.mkdir()
    cache.write_text(json.dumps({MODULE: 99.0, "tests/unheard_of.py": 1.5}))
    assert module_seconds_known() == reference | {MODULE: 99.0, "tests/unheard_of.py": 1.5}
    cache.write_text("not json")
    assert module_seconds_known() == reference


def test_a_whole_run_says_where_its_time_went_and_keeps_it_for_the_next(tmp_path: Path) -> None:
    # "The whole suite" here is one module: the run takes its paths from testpaths.
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    finished = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "-q",
            "-n",
            "0",
            "-o",
            f"testpaths={MODULE}",
        ],
        cwd=REPOSITORY_ROOT,
        env=environment | {"XDG_CACHE_HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert finished.returncode == 0, finished.stdout[-2000:]
    assert "where the time went" in finished.stdout
    assert "main: " in finished.stdout
    assert f"CPU s  {MODULE}" in finished.stdout
    assert "the machine: " in finished.stdout
    kept = json.loads((tmp_path / "king-league" / "module-seconds.json").read_text())
    assert list(kept) == [MODULE]
    assert kept[MODULE] >= 0


def test_only_a_run_of_the_whole_suite_is_kept() -> None:
    sources = pytest.Config.ArgsSource
    assert whole_suite(sources.TESTPATHS, "")
    assert not whole_suite(sources.TESTPATHS, "browser")  # -k chose some tests
    assert not whole_suite(sources.ARGS, "")  # paths given
    assert not whole_suite(sources.INVOCATION_DIR, "")
