"""Pausing Python's cyclic garbage collector around a recomputation."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while a recomputation makes and keeps many small
    objects (every stored result's rows, sums and rating history; no cycles among them):
    its passes over the growing heap would find nothing to free and cost a third of the
    time (a full collection falling in the loop, 50-100 ms in a worker). The pause is the
    whole process's, for as long as the block runs; nothing is lost by it (a collection
    runs again once allocations resume)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
