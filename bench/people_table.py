"""The four-people table played whole: every card of a Kingen game by a click, in four
headless Chromium sessions against the suite's live site and a real worker.

The suite's test (tests/web/test_browser_people_table.py) starts its Kingen game late: the
engine makes the people's moves of the first eight deals through the table's service, and
the browsers click the last two (104 cards), then play a Priffe rubber. This benchmark runs
that test's whole-game form (``test_four_people_play_every_card_of_a_kingen_game``, marked
``benchmark`` and so left out of the suite): the same sign-ups, invitations and seating,
then all 520 cards by clicks, one person leaving and coming back midway. It proves the
same as the suite's test over ten deals, and measures each click's latency: from the click
to the clicking person's page showing the move made (bench/table_latency.py measures the
other pages' side, and under load).

    DATABASE_URL=postgres://... REDIS_URL=redis://... python -m bench.people_table
    python -m bench.people_table --no-reference   # the whole game only

Printed: the whole game's wall time and its clicks' latency (count, p50, p90, p99, max);
with the reference (the default), the suite's late-start test run in this process just
before, and the ratio of the two wall times. Both run through pytest with -n 0, each on a
test database of its own (pytest-django's), traffic to 127.0.0.1 only, bounded by the
tests' own deadlines. It prints figures; it asserts nothing of them.
"""

from __future__ import annotations

import os
import sys

if not __package__:
    _here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _here]
    sys.path.insert(0, os.path.dirname(_here))

import argparse
import json
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MODULE = "tests/web/test_browser_people_table.py"
WHOLE_GAME = f"{MODULE}::test_four_people_play_every_card_of_a_kingen_game"
LATE_START = f"{MODULE}::test_four_people_in_four_browsers_play_kingen_and_priffe_to_the_end"


def say(text: str) -> None:
    print(text, flush=True)  # noqa: T201 - a benchmark prints its figures


def pytest_run(test: str, *, marker: str, environment: dict[str, str]) -> float:
    """Run one test in a pytest process of its own; returns its wall time in seconds."""
    command = [sys.executable, "-m", "pytest", "-n", "0", "-q", "-p", "no:cacheprovider"]
    command += ["-m", marker, test]
    began = time.perf_counter()
    run = subprocess.run(command, cwd=ROOT, env=environment, check=False)
    seconds = time.perf_counter() - began
    if run.returncode != 0:
        raise SystemExit(f"people_table: {test} failed (pytest exit {run.returncode})")
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--no-reference",
        action="store_true",
        help="skip the reference run (the suite's late-start test)",
    )
    args = parser.parse_args()
    for name in ("DATABASE_URL", "REDIS_URL"):
        if not os.environ.get(name):
            raise SystemExit(f"people_table: {name} is not set (PostgreSQL and Redis are needed)")

    reference = None
    if not args.no_reference:
        say("(a) reference: the suite's test, Kingen from its last two deals, then Priffe")
        reference = pytest_run(LATE_START, marker="not benchmark", environment=dict(os.environ))
        say(f"    wall time {reference:.1f} s")

    with tempfile.TemporaryDirectory(prefix="people-table-bench-") as folder:
        latency_file = Path(folder) / "move-seconds.json"
        environment = dict(os.environ) | {"KING_LEAGUE_MOVE_SECONDS": str(latency_file)}
        say("(b) the whole Kingen game by clicks (520 cards)")
        whole = pytest_run(WHOLE_GAME, marker="benchmark", environment=environment)
        seconds = json.loads(latency_file.read_text())

    milliseconds = [1000 * s for s in seconds]
    percentiles = statistics.quantiles(milliseconds, n=100, method="inclusive")
    say(f"    wall time {whole:.1f} s; {len(milliseconds)} clicks")
    say(
        "    click to own page showing the move (ms): "
        f"p50 {percentiles[49]:.0f}, p90 {percentiles[89]:.0f}, "
        f"p99 {percentiles[98]:.0f}, max {max(milliseconds):.0f}"
    )
    if reference is not None:
        say(f"(b)/(a) wall time: {whole / reference:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
