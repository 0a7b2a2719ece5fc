"""The test suite never modifies tracked files: the guard of tests/tracked_files.py, and
the browser tests' screenshots in a temporary folder unless asked for."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.tracked_files import GUARD, REPOSITORY_ROOT, TrackedFilesGuard, TrackedFileWriteError
from tests.web.browser import SCREENSHOTS_VARIABLE, screenshot_folder

TRACKED = REPOSITORY_ROOT / "README.md"


@pytest.fixture
def attempts_forgiven(request: pytest.FixtureRequest) -> Iterator[None]:
    """This test's attempts are on purpose: forget them before the guard's own check."""
    yield
    GUARD.attempts = [a for a in GUARD.attempts if a[0] != request.node.nodeid]


def test_the_guard_is_on_in_this_session() -> None:
    assert GUARD.active
    assert str(TRACKED) in GUARD.tracked


@pytest.mark.usefixtures("attempts_forgiven")
def test_opening_a_tracked_file_for_writing_is_refused(tmp_path: Path) -> None:
    before = TRACKED.read_bytes()
    # Opening for appending changes nothing even if the guard let it through.
    with pytest.raises(TrackedFileWriteError, match=r"README\.md is tracked by git"):
        open(TRACKED, "a").close()
    with pytest.raises(TrackedFileWriteError):
        os.close(os.open(TRACKED, os.O_WRONLY | os.O_APPEND))
    with pytest.raises(TrackedFileWriteError):  # (the source does not exist: harmless)
        os.rename(tmp_path / "missing", TRACKED)
    assert TRACKED.read_bytes() == before
    assert TRACKED.read_text()  # reading is fine
    (tmp_path / "mine.txt").write_text("fine")  # so is writing elsewhere
    assert [path for _, path in GUARD.attempts[-3:]] == ["README.md"] * 3


def test_a_name_relative_to_an_open_folder_is_resolved_there(tmp_path: Path) -> None:
    """shutil.rmtree removes by dir_fd: a folder's own README.md is not the repository's."""
    folder = tmp_path / "reused"
    folder.mkdir()
    (folder / "README.md").write_text("a copy")
    (folder / ".gitignore").write_text("*")
    before = len(GUARD.attempts)
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.remove("README.md", dir_fd=fd)
    finally:
        os.close(fd)
    shutil.rmtree(folder)
    assert not folder.exists()
    assert len(GUARD.attempts) == before
    assert TRACKED.exists()


@pytest.mark.usefixtures("attempts_forgiven")
def test_a_tracked_file_named_relative_to_its_folder_is_refused() -> None:
    fd = os.open(REPOSITORY_ROOT, os.O_RDONLY)
    try:
        with pytest.raises(TrackedFileWriteError, match=r"README\.md is tracked"):
            os.remove("README.md", dir_fd=fd)
    finally:
        os.close(fd)
    assert TRACKED.exists()


@pytest.mark.skipif(
    os.environ.get("KING_LEAGUE_TRACKED_FILES_PROBE") != "1", reason="run by the test below"
)
def test_probe_that_swallows_the_refusal() -> None:
    with contextlib.suppress(OSError):  # code under test that hides the error
        open(TRACKED, "a").close()


def test_a_test_that_tried_fails_even_if_it_caught_the_error() -> None:
    environment = {**os.environ, "KING_LEAGUE_TRACKED_FILES_PROBE": "1", "CI": "false"}
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            f"{__file__}::test_probe_that_swallows_the_refusal",
        ],
        capture_output=True,
        text=True,
        cwd=REPOSITORY_ROOT,
        env=environment,
        timeout=300,
    )
    assert run.returncode == 1, run.stdout[-3000:]
    assert "the test tried to modify tracked files: README.md" in run.stdout
    assert "FAILED: tests/test_tracked_files.py::test_probe" in run.stdout


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    git(tmp_path, "init", "-q")
    (tmp_path / "kept.txt").write_text("one\n")
    git(tmp_path, "add", "kept.txt")
    git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one")
    return tmp_path


def test_under_ci_a_clean_checkout_must_stay_clean(repository: Path) -> None:
    guard = TrackedFilesGuard(root=repository)
    guard.start()
    try:
        assert guard.clean_at_start
        assert guard.changes_at_end() is None
        # A process the tests started (not this one, which the hook guards) changes it.
        subprocess.run(
            [sys.executable, "-c", "open('kept.txt', 'a').write('two')"],
            cwd=repository,
            check=True,
        )
        assert guard.changes_at_end() == " M kept.txt"
    finally:
        guard.active = False


def test_a_checkout_with_edits_at_the_start_is_not_compared(repository: Path) -> None:
    """Other engineers' uncommitted edits are not the run's: no end comparison at all."""
    (repository / "kept.txt").write_text("someone's edit\n")
    guard = TrackedFilesGuard(root=repository)
    guard.start()
    guard.active = False  # its hook would refuse the next write in this process
    assert not guard.clean_at_start
    (repository / "kept.txt").write_text("more\n")
    guard.active = True
    try:
        assert guard.changes_at_end() is None
    finally:
        guard.active = False


def test_screenshots_go_to_a_temporary_folder_unless_asked_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(SCREENSHOTS_VARIABLE, raising=False)
    folder = screenshot_folder.__wrapped__()
    assert not folder.resolve().is_relative_to(REPOSITORY_ROOT)
    monkeypatch.setenv(SCREENSHOTS_VARIABLE, "docs/screenshots")
    assert screenshot_folder.__wrapped__() == REPOSITORY_ROOT / "docs" / "screenshots"


def test_the_screenshots_asked_for_may_be_written(
    repository: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (repository / "shots").mkdir()
    (repository / "shots" / "a.png").write_bytes(b"old")
    git(repository, "add", "shots/a.png")
    git(repository, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "shot")
    monkeypatch.setenv(SCREENSHOTS_VARIABLE, "shots")
    guard = TrackedFilesGuard(root=repository)
    guard.start()
    try:
        (repository / "shots" / "a.png").write_bytes(b"new")  # allowed: asked for
        with pytest.raises(TrackedFileWriteError):
            open(repository / "kept.txt", "a").close()
        assert guard.changes_at_end() is None  # the screenshot's change is not counted
    finally:
        guard.active = False
