"""A hostile bot: 12 processes that each hold 128 MiB at once (tests/bots/hostile/README.md).

Each child fills its 128 MiB and says so (its pid on a pipe); the parent waits until every
child holds its block or is dead, then reports how many hold theirs at the same time
(``TOGETHER n`` and ``MIB n*128``), kills them and plays on.
"""

import os
import select
import signal
import sys
import time

import kingbot  # type: ignore[import-not-found]  # the league's copy, in the sandbox

CHILDREN = 12
EACH = 128 * 1024 * 1024
SETTLE_SECONDS = 0.5
PATIENCE_SECONDS = 20.0


def report(*words: object) -> None:
    sys.stderr.write(" ".join(str(word) for word in words) + "\n")
    sys.stderr.flush()


def child(writer: int) -> None:
    try:
        block = b"\x01" * EACH
        os.write(writer, f"{os.getpid()}\n".encode())
        time.sleep(60)
        del block
    finally:
        os._exit(0)


def hoard() -> None:
    reader, writer = os.pipe()
    children: list[int] = []
    for _ in range(CHILDREN):
        try:
            pid = os.fork()
        except OSError as exc:
            report("FORK_REFUSED", len(children), exc.errno)
            break
        if pid == 0:
            os.close(reader)
            child(writer)
        children.append(pid)
    os.close(writer)
    holding: set[int] = set()
    dead: set[int] = set()
    pending = b""
    last_change = time.monotonic()
    deadline = last_change + PATIENCE_SECONDS
    while time.monotonic() < deadline:
        changed = False
        if select.select([reader], [], [], 0.05)[0]:
            data = os.read(reader, 4096)
            pending += data
            *lines, pending = pending.split(b"\n")
            for line in lines:
                holding.add(int(line))
                changed = True
        while True:
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            dead.add(pid)
            changed = True
        if changed:
            last_change = time.monotonic()
        settled = all(pid in holding or pid in dead for pid in children)
        if settled and time.monotonic() - last_change > SETTLE_SECONDS:
            break
    together = len(holding - dead)
    report(
        "CHILDREN",
        len(children),
        "KILLED",
        len(dead - holding),
        "DIED_HOLDING",
        len(dead & holding),
    )
    report("TOGETHER", together)
    report("MIB", together * (EACH >> 20))
    for pid in children:
        if pid not in dead:
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except OSError:
                pass
    os.close(reader)


def choose(request: kingbot.Request) -> str:
    if request.id == 1:
        hoard()
    return request.legal[0]


kingbot.run(choose)
