"""A hostile bot that will not leave (tests/bots/hostile/README.md).

It starts a grandchild in a session of its own that sleeps, plays normally, and at ``end``
sleeps instead of exiting, so the runner has to kill it and everything it started.
"""

import os
import time

import kingbot  # type: ignore[import-not-found]  # the league's copy, in the sandbox


def spawn() -> None:
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            time.sleep(600)
        os._exit(0)
    os.wait()


def linger(message: dict[str, object]) -> None:
    time.sleep(600)


spawn()
kingbot.run(lambda request: request.legal[0], on_end=linger)
