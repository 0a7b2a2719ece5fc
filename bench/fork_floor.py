"""The floor of a forked seat: what forking a Python bot costs on this machine before the
sandbox, the child's control group and the runner add anything.

    python -m bench.fork_floor                       # 300 forks a figure, 20 tables of seats
    python -m bench.fork_floor --forks 1000 --seat-lives 0

A spawner's seat life (bench.bots ``--seat-lives``) is a fork of an interpreter that has
imported what bots commonly import (bots.runner.fork_server.PRELOADED), a child that
runs the bot, and the worker's side around them. This bench starts the bots' own
interpreter (bots.runner.sandbox.BOT_PYTHON, ``-E -s -S -B`` as the launcher's) with the
same imports, outside any sandbox, and has it fork, in CPU ms and minor page faults per
fork (the server's own and its children's, from ``getrusage``):

- **fork and exit**: a child that calls ``os._exit(0)`` at once: the price of forking
  and ending a Python interpreter, whatever the child does (the page tables copied, the
  pages the interpreter writes after a fork copied, the child's memory unmapped);
- **the trivial bot's life**: a child that opens its standard streams, compiles and runs
  bench.bots.TRIVIAL_BOT over plain pipes (``hello``, ``ready``, ``end``) and exits: the
  least a forked seat costs, with no sandbox, FIFO, control group or runner;
- **the same in huge pages**: the prototype of a cheaper fork, the interpreter's heap in
  transparent huge pages (``PYTHONMALLOC=malloc`` and ``glibc.malloc.hugetlb=1``: fewer
  page-table entries to copy at a fork and to unmap at an exit), where the kernel offers
  them (``madvise`` or ``always``);

and, as the reference of the same run, a seat's life forked by a spawner in the sandbox
(bench.bots.seat_lives), with each figure's share of it. It prints figures; it asserts
nothing.
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
import subprocess
import tempfile
from pathlib import Path

from bench.bots import TRIVIAL_BOT, seat_lives
from bots.runner.fork_server import PRELOADED
from bots.runner.sandbox import BOT_PYTHON, sandbox_unavailable_reason

SDK = Path(__file__).resolve().parent.parent / "bots" / "sdk"
"""Where the league's kingbot.py is (one of the preloaded modules)."""
THP_SETTING = Path("/sys/kernel/mm/transparent_hugepage/enabled")

SERVER = r"""
import gc, json, os, resource, sys
mode, forks, lib, bot_path, *preload = sys.argv[1:]
forks = int(forks)
sys.path.insert(0, lib)
for name in preload:
    __import__(name)
with open(bot_path, "rb") as source:
    bot = source.read()
gc.collect()
gc.freeze()
gc.disable()
HELLO = b'{"type": "hello", "protocol": 1, "seat": 0, "seats": 4, "game": "kingen"}\n'
END = b'{"type": "end", "scores": [0, 0, 0, 0], "outcome": "ok"}\n'


def usage():
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (
        own.ru_utime + own.ru_stime,
        children.ru_utime + children.ru_stime,
        own.ru_minflt,
        children.ru_minflt,
    )


def read_line(fd):
    data = b""
    while not data.endswith(b"\n"):
        chunk = os.read(fd, 4096)
        if not chunk:
            break
        data += chunk
    return data


before = usage()
for _ in range(forks):
    if mode == "exit":
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
        continue
    bot_in, runner_in = os.pipe()
    runner_out, bot_out = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.dup2(bot_in, 0)
        os.dup2(bot_out, 1)
        os.closerange(3, 256)
        gc.enable()
        sys.stdin = open(0, encoding="utf-8", newline="\n", closefd=False)
        sys.stdout = open(1, "w", encoding="utf-8", newline="\n", closefd=False)
        main = type(sys)("__main__")
        sys.modules["__main__"] = main
        exec(compile(bot, "main.py", "exec"), main.__dict__)
        sys.stdout.flush()
        os._exit(0)
    os.close(bot_in)
    os.close(bot_out)
    os.write(runner_in, HELLO)
    assert b"ready" in read_line(runner_out)
    os.write(runner_in, END)
    os.close(runner_in)
    read_line(runner_out)
    os.close(runner_out)
    os.waitpid(pid, 0)
after = usage()
print(json.dumps([(b - a) / forks for a, b in zip(before, after)]))
"""


def huge_pages_offered() -> bool:
    """Whether the kernel gives a heap that asks for them transparent huge pages."""
    try:
        setting = THP_SETTING.read_text()
    except OSError:
        return False
    return "[never]" not in setting


def forked(mode: str, forks: int, bot_path: str, *, huge_pages: bool = False) -> list[float]:
    """Per fork: the server's CPU ms, its children's CPU ms, the server's minor faults,
    its children's minor faults."""
    env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
    if huge_pages:
        env |= {"PYTHONMALLOC": "malloc", "GLIBC_TUNABLES": "glibc.malloc.hugetlb=1"}
    command = [BOT_PYTHON, "-s", "-S", "-B", "-c", SERVER]  # no -E: PYTHONMALLOC is read
    if not huge_pages:
        command.insert(1, "-E")
    done = subprocess.run(
        [*command, mode, str(forks), str(SDK), bot_path, *PRELOADED],
        env=env,
        capture_output=True,
        check=True,
        text=True,
    )
    server_cpu, children_cpu, server_faults, children_faults = json.loads(done.stdout)
    return [server_cpu * 1000, children_cpu * 1000, server_faults, children_faults]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--forks", type=int, default=300, help="forks a figure")
    parser.add_argument(
        "--seat-lives",
        type=int,
        default=20,
        help="tables of four seats forked by spawners, the reference (0: none)",
    )
    args = parser.parse_args()
    if not os.path.exists(BOT_PYTHON):
        sys.stdout.write(f"# {BOT_PYTHON} is missing: the bots' interpreter\n")
        return 1
    with tempfile.TemporaryDirectory(prefix="fork-floor-") as folder:
        bot_path = os.path.join(folder, "main.py")
        Path(bot_path).write_bytes(TRIVIAL_BOT)
        rows = [
            ("fork and exit", forked("exit", args.forks, bot_path)),
            ("the trivial bot's life", forked("bot", args.forks, bot_path)),
        ]
        if huge_pages_offered():
            rows.append(
                (
                    "the trivial bot's life, heap in huge pages",
                    forked("bot", args.forks, bot_path, huge_pages=True),
                )
            )
        else:
            sys.stdout.write("# no transparent huge pages here: that row is left out\n")
    reference = None
    if args.seat_lives:
        reason = sandbox_unavailable_reason()
        if reason is None:
            reference = seat_lives(args.seat_lives, sandbox=True, spawned=True)[0]
        else:
            sys.stdout.write(f"# no sandbox here ({reason}): no reference\n")
    sys.stdout.write(
        f"# {BOT_PYTHON} -S -B, imports {', '.join(PRELOADED)}; {args.forks} forks a row;"
        " CPU from getrusage (the server's own, its children's)\n"
    )
    for label, (server_ms, child_ms, server_faults, child_faults) in rows:
        line = (
            f"{label}: {server_ms + child_ms:.2f} ms a fork (the server {server_ms:.2f} ms,"
            f" the child {child_ms:.2f} ms); minor faults: the server {server_faults:.0f},"
            f" the child {child_faults:.0f}"
        )
        if reference:
            line += f"; {(server_ms + child_ms) / reference:.2f} x the reference"
        sys.stdout.write(line + "\n")
    if reference:
        sys.stdout.write(
            f"reference: a seat's life forked by a spawner in the sandbox (bench.bots"
            f" --seat-lives {args.seat_lives}), the runner included: {reference:.2f} ms\n"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
