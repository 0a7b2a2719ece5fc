"""A fake clock for the tests of deadlines: ``django.utils.timezone.now`` made to return a
time the test sets, so that a day per move passes in an instant and every deadline is
where the test put it (the services and the sweep read the time through it).

``sign_in_clock`` also makes the sign-in lock's ``time.time()`` (accounts.sign_in)
read it, so a test waits out a lock by moving the clock instead of sleeping."""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from types import ModuleType
from typing import Any

from django.utils import timezone

import pytest


@dataclass
class Clock:
    now: datetime

    def advance(self, **delta: float) -> datetime:
        self.now += timedelta(**delta)
        return self.now

    def set(self, moment: datetime) -> datetime:
        self.now = moment
        return self.now

    def time(self) -> float:
        """The clock's moment in seconds since the epoch, as ``time.time()`` gives it."""
        return self.now.timestamp()


class TimeModuleOnClock:
    """The ``time`` module as one module of the project sees it: ``time()`` reads the
    clock, everything else is the real module's."""

    def __init__(self, clock: Clock) -> None:
        self._clock = clock

    def time(self) -> float:
        return self._clock.time()

    def __getattr__(self, name: str) -> Any:
        return getattr(time, name)


def module_time_on_clock(monkeypatch: pytest.MonkeyPatch, module: ModuleType, clock: Clock) -> None:
    """Make ``time.time()`` in ``module`` (which did ``import time``) read ``clock``, for
    the test only; the time module itself, and every other module, keep the real time."""
    monkeypatch.setattr(module, "time", TimeModuleOnClock(clock))


@pytest.fixture(name="clock")
def clock_fixture(monkeypatch: pytest.MonkeyPatch) -> Clock:
    """Starts at the real time, rounded to the minute, and moves only when told. A test
    module takes it with ``from tests.league.clock import clock_fixture``."""
    fake = Clock(timezone.now().replace(second=0, microsecond=0))
    monkeypatch.setattr(timezone, "now", lambda: fake.now)
    return fake


@pytest.fixture(name="sign_in_clock")
def sign_in_clock_fixture(clock: Clock, monkeypatch: pytest.MonkeyPatch) -> Clock:
    """``clock``, read by the sign-in lock too (its ``time.time()``): a test moves past a
    lock with ``sign_in_clock.advance(seconds=...)``. A module takes it with
    ``from tests.league.clock import clock_fixture, sign_in_clock_fixture``."""
    from accounts import sign_in

    module_time_on_clock(monkeypatch, sign_in, clock)
    return clock
