"""A hostile bot: a child process that allocates past the seat's memory while the bot
itself plays on (tests/bots/hostile/README.md).

At its first request the bot forks a child that writes 32 MiB blocks, up to 2 GiB (each
under the process's own address-space limit only for the first ones), and waits for it:
the kernel kills the child, the largest process of the seat (cgroup v1), or the whole
seat (cgroup v2's ``memory.oom.group``). The bot says how its child ended
(``CHILD signal``) and plays the rest of the match with the first legal action.
"""

import os
import sys

import kingbot  # type: ignore[import-not-found]  # the league's copy, in the sandbox

BLOCK = 32 * 1024 * 1024
TOTAL = 2 * 1024 * 1024 * 1024


def report(*words: object) -> None:
    sys.stderr.write(" ".join(str(word) for word in words) + "\n")
    sys.stderr.flush()


def child() -> None:
    held: list[bytes] = []
    try:
        while len(held) * BLOCK < TOTAL:
            held.append(b"\x01" * BLOCK)
        report("CHILD_DONE", len(held) * BLOCK >> 20)
    except MemoryError:
        report("CHILD_LIMIT", len(held) * BLOCK >> 20)
    finally:
        os._exit(0)


def bomb() -> None:
    pid = os.fork()
    if pid == 0:
        child()
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        report("CHILD", os.WTERMSIG(status))
    else:
        report("CHILD_EXIT", os.WEXITSTATUS(status))


def choose(request: kingbot.Request) -> str:
    if request.id == 1:
        bomb()
        report("PLAYING_ON", request.id)
    return request.legal[0]


kingbot.run(choose)
