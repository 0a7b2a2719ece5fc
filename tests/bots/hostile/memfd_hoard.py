"""A hostile bot: up to 2 GiB in memfd files (tests/bots/hostile/README.md).

Pages written into a memfd with ``write`` are in no address space. Each file stops at
16 MiB (the sandbox's largest file); the first 48 stay open, later ones are mapped and
their descriptors closed, so that neither the open-file limit nor the address space
alone stops the hoard.
"""

import errno
import mmap
import os
import signal
import sys

import kingbot  # type: ignore[import-not-found]  # the league's copy, in the sandbox

PER_FILE = 16 * 1024 * 1024
TOTAL = 2 * 1024 * 1024 * 1024
KEEP_OPEN = 48
KEPT: list[object] = []
"""The hoard, held for the rest of the match."""


def report(*words: object) -> None:
    sys.stderr.write(" ".join(str(word) for word in words) + "\n")
    sys.stderr.flush()


def hoard() -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # past the file-size limit: EFBIG
    chunk = b"\x01" * (1024 * 1024)
    kept = KEPT
    held = 0
    while held < TOTAL:
        try:
            fd = os.memfd_create("hoard")
        except OSError as exc:
            report("REFUSED memfd_create", exc.errno)
            break
        written = 0
        try:
            while written < PER_FILE:
                written += os.write(fd, chunk)
        except OSError as exc:
            if exc.errno != errno.EFBIG:
                report("STOPPED write", exc.errno)
                break
        held += written
        if len(kept) < KEEP_OPEN:
            kept.append(fd)
        else:
            try:
                kept.append(mmap.mmap(fd, written))
            except (OSError, ValueError) as exc:
                report("STOPPED mmap", getattr(exc, "errno", None))
                break
            os.close(fd)
        if held % (256 * 1024 * 1024) == 0:
            report("HELD", held >> 20)
    report("DONE", held >> 20)


def choose(request: kingbot.Request) -> str:
    if request.id == 1:
        hoard()
    return request.legal[0]


kingbot.run(choose)
