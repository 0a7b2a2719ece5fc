"""Bot runtimes benchmark: start-up, round trip and memory of every runtime, beside Python.

    python -m bench.runtimes                  # sandboxed, pinned to one CPU
    python -m bench.runtimes --starts 20 --matches 3 --cpus all

Each runtime plays with its starter kit (bots/examples/<runtime>/: the same ducking
strategy in each language, on each language's helper), built here from source (gcc,
cargo, javac; a runtime whose tools are missing is left out, saying why). Printed per
runtime, in one run so that the ratios against Python's compare like with like:

- **start-up to ready**, p50 and max: from starting the sandbox to the bot's ``ready``
  line, one bot at a time, the runtimes in turn (a change of the machine's load during
  the run weighs on all of them alike);
- **per-move round trip**, p50 and p99: from the runner starting a decision to the checked
  action, as the match records it, of one bot of the runtime playing whole ``kingen``
  matches against three built-in bots (a new process each match, as in the league: a JIT
  starts cold each time), one match of each runtime in turn;
- **memory at rest**: the resident memory of the bot's process (the runtime, its threads)
  just after ``ready``, bubblewrap's own processes left out.

Targets (docs/benchmarks.md): native and Node within 1.5 times Python's start-up and
round trip; Java's start-up stated, within its start-up allowance with room to spare. It
prints figures; it asserts nothing.
"""

from __future__ import annotations

import os
import sys

if not __package__:
    _here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _here]
    sys.path.insert(0, os.path.dirname(_here))

import argparse
import io
import platform
import shutil
import statistics
import subprocess
import tempfile
import zipfile
from pathlib import Path

import psutil

from bench.bots import percentile, pin, say
from bots.bundle import BotBundle, bot_bundle_check
from bots.match import BotSpec, match_play
from bots.protocol import TimeControl
from bots.runner.runtimes import runtime_unavailable_reason
from bots.runner.sandbox import sandbox_unavailable_reason
from bots.runner.seat import UploadedSeat
from bots.runtimes import RUNTIMES
from bots.seats import Hello
from engine import load_game

EXAMPLES = Path(__file__).resolve().parents[1] / "bots" / "examples"
GAME = "kingen"
MiB = 1024 * 1024


def _zip(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in files.items():
            archive.writestr(name, content)
    return buffer.getvalue()


def _tool(name: str) -> str | None:
    cargo_home = Path.home() / ".cargo" / "bin" / name
    return shutil.which(name) or (str(cargo_home) if cargo_home.exists() else None)


def kit_bundles(scratch: Path) -> tuple[dict[str, BotBundle], dict[str, str]]:
    """Each runtime's starter kit, built; and why a runtime was left out."""
    bundles: dict[str, BotBundle] = {}
    skipped: dict[str, str] = {}
    bundles["python"] = bot_bundle_check("main.py", (EXAMPLES / "python" / "main.py").read_bytes())
    numpy_bot = (EXAMPLES / "python-numpy" / "main.py").read_bytes()
    bundles["python-numpy"] = bot_bundle_check("main.py", numpy_bot)
    if _tool("gcc"):
        subprocess.run(
            [
                "make",
                "-s",
                "-C",
                str(EXAMPLES / "native" / "c"),
                f"OUT={scratch}",
                str(scratch / "main"),
            ],
            check=True,
        )
        bundles["native (C)"] = bot_bundle_check(
            "c.zip", _zip({"main": (scratch / "main").read_bytes()})
        )
    else:
        skipped["native (C)"] = "gcc is missing"
    cargo = _tool("cargo")
    if cargo:
        out = scratch / "rust"
        env = {**os.environ, "PATH": f"{Path(cargo).parent}:{os.environ.get('PATH', '')}"}
        subprocess.run(
            [str(EXAMPLES / "native" / "rust" / "build.sh"), str(out)],
            check=True,
            env=env,
            capture_output=True,
        )
        bundles["native (Rust)"] = bot_bundle_check("rust.zip", (out / "bot.zip").read_bytes())
    else:
        skipped["native (Rust)"] = "cargo is missing"
    node = {name: (EXAMPLES / "node" / name).read_bytes() for name in ("main.js", "kingbot.js")}
    bundles["node"] = bot_bundle_check("node.zip", _zip(node))
    if _tool("javac"):
        out = scratch / "java"
        subprocess.run(
            [str(EXAMPLES / "java" / "build.sh"), str(out)], check=True, capture_output=True
        )
        bundles["java"] = bot_bundle_check("bot.jar", (out / "bot.jar").read_bytes())
    else:
        skipped["java"] = "javac is missing"
    for label, bundle in list(bundles.items()):
        reason = runtime_unavailable_reason(bundle.runtime)
        if reason is not None:
            skipped[label] = reason
            del bundles[label]
    return bundles, skipped


def resident_mib(seat: UploadedSeat) -> float:
    """The resident memory of the bot's processes (bubblewrap's left out), in MiB."""
    pid = seat.process.pid if seat.process is not None else None
    assert pid is not None
    total = 0
    try:
        outer = psutil.Process(pid)
        for process in [outer, *outer.children(recursive=True)]:
            try:
                if process.name() != "bwrap":
                    total += process.memory_info().rss
            except psutil.NoSuchProcess:
                continue
    except psutil.NoSuchProcess:
        return 0.0
    return total / MiB


def startup(bundle: BotBundle, seed: int, sandbox: bool) -> tuple[float, float]:
    """Milliseconds from start to ready of one bot, and its MiB at rest."""
    seat = UploadedSeat(bundle, seed=seed, sandboxed=sandbox)
    try:
        seat.start(Hello(load_game(GAME), 0, TimeControl()))
        seat.wait_ready()
        assert seat.startup_ms is not None, seat.report().faults
        return seat.startup_ms, resident_mib(seat)
    finally:
        seat.close()


def round_trips(bundle: BotBundle, seed: int, sandbox: bool) -> list[float]:
    """Milliseconds per decision of a bot of ``bundle`` at seat 0 against three built-in
    bots, over one match (a new process: the JIT starts cold each time)."""
    specs = [BotSpec.uploaded(bundle)] + [BotSpec.builtin("greedy")] * 3
    result = match_play(GAME, specs, seed=seed, sandbox=sandbox)
    assert all(r.outcome.value == "ok" for r in result.seats), result.to_json()
    return [
        float(e["ms"])
        for deal in result.record["deals"]
        for e in deal["actions"]
        if "ms" in e and e.get("seat") == 0
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cpus", choices=["one", "all"], default="one")
    parser.add_argument("--matches", type=int, default=6)
    parser.add_argument("--starts", type=int, default=10)
    parser.add_argument("--no-sandbox", dest="sandbox", action="store_false", default=True)
    parser.add_argument(
        "--only", nargs="+", metavar="RUNTIME", help="these runtimes only (python always)"
    )
    args = parser.parse_args()
    if args.sandbox and (reason := sandbox_unavailable_reason()) is not None:
        say(f"the sandbox is missing here: {reason}")
        return 3
    pinning = pin(args.cpus)
    version = f"{platform.python_implementation()} {platform.python_version()}"
    say(f"# bench.runtimes: {version}, {pinning}")
    say(f"# {'sandboxed' if args.sandbox else 'unsandboxed'}; starter kits; game {GAME}")
    with tempfile.TemporaryDirectory(prefix="king-league-bench-") as scratch:
        bundles, skipped = kit_bundles(Path(scratch))
    for label, reason in skipped.items():
        say(f"{label}: left out ({reason})")
    chosen = {
        label: bundle
        for label, bundle in bundles.items()
        if not args.only or label == "python" or bundle.runtime in args.only
    }
    for bundle in chosen.values():
        round_trips(bundle, 0, args.sandbox)  # warm-up: caches, the JIT's files, users
    # round-robin, one start (one match) of each runtime in turn: a change of the machine's
    # load during the run weighs on every runtime alike, not on whichever ran then
    times: dict[str, list[float]] = {label: [] for label in chosen}
    memory: dict[str, list[float]] = {label: [] for label in chosen}
    moves: dict[str, list[float]] = {label: [] for label in chosen}
    for index in range(args.starts):
        for label, bundle in chosen.items():
            started, resident = startup(bundle, index, args.sandbox)
            times[label].append(started)
            memory[label].append(resident)
    for seed in range(args.matches):
        for label, bundle in chosen.items():
            moves[label] += round_trips(bundle, seed, args.sandbox)
    rows = {}
    for label, bundle in chosen.items():
        rows[label] = {
            "start_p50": statistics.median(times[label]),
            "start_max": max(times[label]),
            "move_p50": percentile(moves[label], 0.5) * 1000,
            "move_p99": percentile(moves[label], 0.99) * 1000,
            "memory": statistics.median(memory[label]),
            "allowance": TimeControl().startup_ms
            + RUNTIMES[bundle.runtime].profile.startup_extra_ms,
        }
    python = rows["python"]
    say(
        "| runtime | start-up p50 (x python) | start-up max | move p50 (x python) | move p99 "
        "| memory at rest | start-up allowance |"
    )
    for label, row in rows.items():
        start_ratio = row["start_p50"] / python["start_p50"]
        move_ratio = row["move_p50"] / python["move_p50"]
        say(
            f"| {label} | {row['start_p50']:.1f} ms ({start_ratio:.2f}) "
            f"| {row['start_max']:.1f} ms | {row['move_p50']:.0f} us ({move_ratio:.2f}) "
            f"| {row['move_p99']:.0f} us | {row['memory']:.1f} MiB | {row['allowance']} ms |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
