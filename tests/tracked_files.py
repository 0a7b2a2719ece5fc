"""The test suite never modifies tracked files (tests/conftest.py wires this in).

Two guards:

- Always: an audit hook (``sys.addaudithook``) refuses, in the test process, every opening
  for writing, truncation, removal or renaming of a file git tracks, with a
  PermissionError naming the file, and remembers it; the test that tried fails in its
  teardown even if the code under test swallowed the error. Other people's uncommitted
  edits are never flagged: only this process's own writes are seen.
- Under CI on a clean checkout: at the end of the session ``git status`` must still show
  no change to a tracked file, which also catches the processes the tests started (a web
  server, workers, the engine's command line). A checkout with uncommitted edits at the
  start (a developer's, or several engineers' at once) skips this check, since it could
  not tell their edits from the run's.

Screenshots for the README go to a temporary folder unless KING_LEAGUE_SCREENSHOTS asks
for them (tests/web/browser.py); the folder it names is then exempt from both guards.
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.web.browser import SCREENSHOTS_VARIABLE

REPOSITORY_ROOT = Path(__file__).resolve().parents[1]
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC
PATH_EVENTS = {  # audit event -> (index of a path written, index of its dir_fd or None)
    "os.remove": ((0, 1),),
    "os.rename": ((0, 2), (1, 3)),  # os.rename and os.replace
    "os.truncate": ((0, None),),
    "os.rmdir": ((0, 1),),
    "shutil.copyfile": ((1, None),),
    "shutil.move": ((1, None),),
}


class TrackedFileWriteError(PermissionError):
    """A test tried to modify a file git tracks."""


@dataclass
class TrackedFilesGuard:
    root: Path = REPOSITORY_ROOT
    tracked: frozenset[str] = frozenset()
    current_test: str = ""
    attempts: list[tuple[str, str]] = field(default_factory=list)  # (test, path)
    clean_at_start: bool = False
    active: bool = False
    note: str = "tracked files: not guarded"
    changed_at_end: str = ""
    exempt: str = ""  # a folder the run was asked to write (screenshots), with a final "/"

    def start(self) -> None:
        """Read the tracked files and install the hook."""
        files = _git(self.root, "ls-files", "-z")
        if files is None:
            self.note = "tracked files: not a git checkout, not guarded"
            return
        self.tracked = frozenset(
            os.path.join(self.root, name) for name in files.split("\0") if name
        )
        asked = os.environ.get(SCREENSHOTS_VARIABLE, "").strip()
        self.exempt = os.path.join(os.path.abspath(self.root / asked), "") if asked else ""
        status = _git(self.root, "status", "--porcelain", "--untracked-files=no")
        self.clean_at_start = status == ""
        self.active = True
        sys.addaudithook(self._audit)
        self.note = f"tracked files: {len(self.tracked)} guarded against writes by the tests"

    def _audit(self, event: str, args: tuple[Any, ...]) -> None:
        if (event != "open" and event not in PATH_EVENTS) or not self.active:
            return
        if event == "open":
            path, mode, flags = args
            if mode is not None:
                if not any(c in str(mode) for c in "wax+"):
                    return
            elif not (flags or 0) & WRITE_FLAGS:
                return
            self._check(path)
        elif event in PATH_EVENTS:
            for index, dir_fd_index in PATH_EVENTS[event]:
                if index < len(args):
                    dir_fd = args[dir_fd_index] if dir_fd_index is not None else None
                    self._check(args[index], dir_fd if isinstance(dir_fd, int) else None)

    def _check(self, path: Any, dir_fd: int | None = None) -> None:
        if isinstance(path, int) or path is None:
            return  # a file descriptor: opened before, checked then
        try:
            name = os.fsdecode(os.fspath(path))
        except TypeError:
            return
        if dir_fd is not None and not os.path.isabs(name):
            # relative to an open folder (shutil.rmtree removes by dir_fd): resolve it there
            try:
                name = os.path.join(os.readlink(f"/proc/self/fd/{dir_fd}"), name)
            except OSError:
                return
        absolute = os.path.abspath(name)
        if absolute in self.tracked and not (self.exempt and absolute.startswith(self.exempt)):
            name = os.path.relpath(absolute, self.root)
            self.attempts.append((self.current_test, name))
            raise TrackedFileWriteError(
                f"{name} is tracked by git: the test suite never modifies tracked files "
                "(write to tmp_path; README screenshots: KING_LEAGUE_SCREENSHOTS)"
            )

    def attempts_of(self, test: str) -> list[str]:
        return [path for who, path in self.attempts if who == test]

    def changes_at_end(self) -> str | None:
        """Under CI on a clean checkout: ``git status`` of the tracked files now."""
        if not self.active or not self.clean_at_start:
            return None
        status = _git(self.root, "status", "--porcelain", "--untracked-files=no") or ""
        changed = [
            line
            for line in status.splitlines()
            if not (self.exempt and os.path.join(self.root, line[3:]).startswith(self.exempt))
        ]
        return "\n".join(changed) or None


def _git(root: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", *args],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


GUARD = TrackedFilesGuard()


def summary_lines(*, under_ci: bool) -> list[str]:
    """The session's verdict on tracked files, for the terminal summary."""
    lines = [GUARD.note]
    for test, path in GUARD.attempts:
        lines.append(f"FAILED: {test or 'outside a test'} tried to modify {path}")
    if GUARD.changed_at_end:
        lines.append("FAILED: tracked files changed during the run (git status):")
        lines.extend("  " + line for line in GUARD.changed_at_end.splitlines())
    elif GUARD.active and not (under_ci and GUARD.clean_at_start):
        lines.append(
            "git status not compared at the end: only under CI on a checkout clean at the start"
        )
    return lines


def session_finish(*, under_ci: bool) -> bool:
    """At the end of the session: True when the run must fail."""
    GUARD.changed_at_end = (GUARD.changes_at_end() or "") if under_ci else ""
    return bool(GUARD.attempts or GUARD.changed_at_end)
