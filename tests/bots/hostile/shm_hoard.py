"""A hostile bot: up to 2 GiB in System V shared memory (tests/bots/hostile/README.md).

Each 256 MiB segment is created, attached, written and detached: a detached segment keeps
its pages, held by no address space, so the address-space rlimit never sees them.
"""

import ctypes
import sys

import kingbot  # type: ignore[import-not-found]  # the league's copy, in the sandbox

SEGMENT = 256 * 1024 * 1024
TOTAL = 2 * 1024 * 1024 * 1024
IPC_PRIVATE = 0
IPC_CREAT = 0o1000
FAILED = ctypes.c_void_p(-1).value


def report(*words: object) -> None:
    sys.stderr.write(" ".join(str(word) for word in words) + "\n")
    sys.stderr.flush()


def hoard() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.shmget.argtypes = [ctypes.c_int, ctypes.c_size_t, ctypes.c_int]
    libc.shmget.restype = ctypes.c_int
    libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
    libc.shmat.restype = ctypes.c_void_p
    libc.shmdt.argtypes = [ctypes.c_void_p]
    held = 0
    while held < TOTAL:
        ident = libc.shmget(IPC_PRIVATE, SEGMENT, IPC_CREAT | 0o600)
        if ident < 0:
            report("REFUSED shmget", ctypes.get_errno())
            break
        address = libc.shmat(ident, None, 0)
        if address is None or address == FAILED:
            report("REFUSED shmat", ctypes.get_errno())
            break
        ctypes.memset(address, 1, SEGMENT)
        libc.shmdt(address)
        held += SEGMENT
        report("HELD", held >> 20)
    report("DONE", held >> 20)


def choose(request: kingbot.Request) -> str:
    if request.id == 1:
        hoard()
    return request.legal[0]


kingbot.run(choose)
