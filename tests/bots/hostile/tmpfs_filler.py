"""A hostile bot: fills its private /tmp (tests/bots/hostile/README.md).

Writes 16 MiB files (the sandbox's largest file) into /tmp until the file system is
full, reports ``FILLED MiB`` and plays on with the files kept.
"""

import errno
import signal
import sys

import kingbot  # type: ignore[import-not-found]  # the league's copy, in the sandbox

PER_FILE = 16 * 1024 * 1024
TOTAL = 2 * 1024 * 1024 * 1024


def report(*words: object) -> None:
    sys.stderr.write(" ".join(str(word) for word in words) + "\n")
    sys.stderr.flush()


def fill() -> None:
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # past the file-size limit: EFBIG
    chunk = b"\x01" * (1024 * 1024)
    filled = 0
    number = 0
    while filled < TOTAL:
        number += 1
        try:
            with open(f"/tmp/fill-{number}", "wb", buffering=0) as file:
                written = 0
                while written < PER_FILE:
                    count = file.write(chunk)
                    written += count
                    filled += count
        except OSError as exc:
            if exc.errno == errno.EFBIG:
                continue
            report("STOPPED", exc.errno)
            break
    report("FILLED", filled >> 20)


def choose(request: kingbot.Request) -> str:
    if request.id == 1:
        fill()
    return request.legal[0]


kingbot.run(choose)
