"""Redis over a soak: the ladder plays for a set time while Redis's memory and keys are sampled.

    DATABASE_URL=postgres://... REDIS_URL=redis://.../N python -m bench.redis_soak
    python -m bench.redis_soak --minutes 10

It makes a scratch database of its own (``<name>_redis_soak_bench``, dropped at the end)
holding the Kingen ladder of built-in bots that ``bench.web_reads`` uses, starts a real
Celery worker on the queues the ladder uses, and lets the ladder play for ``--minutes``
(30 by default; the matchmaker is also run at each sample, as beat would). Every
``--every`` seconds (60 by default) it samples, in the Redis database of ``REDIS_URL``
(the broker, the caches and the channel layer all live there): the number of keys, the
bytes those keys hold (``MEMORY USAGE`` summed over them) and the server's
``used_memory`` (the whole server's: other databases on it count too), and the matches
finished so far. At the end it prints the series and the least-squares slope of each per
hour. It prints figures; it asserts nothing.
"""

from __future__ import annotations

import os
import sys

if not __package__:
    _here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _here]
    sys.path.insert(0, os.path.dirname(_here))

import argparse
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django

django.setup()

from django.db import connection  # noqa: E402

import redis  # noqa: E402

import league.tasks  # noqa: E402, F401 (registers the tasks this process sends)
from bench.scratch_database import scratch_database  # noqa: E402
from bench.web_reads import (  # noqa: E402
    environment_for,
    ladder_kick,
    ladder_opened,
    loadavg,
    say,
    worker,
)
from league.models import Match, MatchStatus  # noqa: E402


@dataclass(frozen=True)
class Sample:
    minute: float
    keys: int
    key_bytes: int
    used_memory: int
    finished: int
    matches: int


def key_bytes(client: redis.Redis) -> int:
    """The bytes the database's keys hold, as Redis counts them (``MEMORY USAGE``)."""
    total = 0
    for key in client.scan_iter(count=500):
        total += int(client.memory_usage(key, samples=0) or 0)
    return total


def sample(client: redis.Redis, started: float) -> Sample:
    info = client.info("memory")
    return Sample(
        minute=(time.monotonic() - started) / 60,
        keys=int(client.dbsize()),
        key_bytes=key_bytes(client),
        used_memory=int(info["used_memory"]),
        finished=Match.objects.filter(status=MatchStatus.FINISHED).count(),
        matches=Match.objects.count(),
    )


def slope(xs: Sequence[float], ys: Sequence[float]) -> float:
    """The least-squares slope of ys over xs (0 with fewer than two points)."""
    if len(xs) < 2:
        return 0.0
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    spread = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / spread if spread else 0.0


def report(samples: Sequence[Sample]) -> None:
    say("minute  keys  key KB  used_memory MB  matches finished")
    for s in samples:
        say(
            f"{s.minute:6.1f} {s.keys:5d} {s.key_bytes / 1024:7.0f} "
            f"{s.used_memory / 2**20:14.1f} {s.finished:17d}"
        )
    # The first sample is taken before the ladder warms up: the slope is of the rest.
    steady = list(samples[1:]) if len(samples) > 2 else list(samples)
    hours = [s.minute / 60 for s in steady]
    say(
        "slope per hour (from the second sample on): "
        f"keys {slope(hours, [s.keys for s in steady]):+.0f}, "
        f"key bytes {slope(hours, [s.key_bytes for s in steady]) / 1024:+.0f} KB, "
        f"used_memory {slope(hours, [s.used_memory for s in steady]) / 2**20:+.1f} MB, "
        f"matches {slope(hours, [s.finished for s in steady]):+.0f}"
    )
    say(f"loadavg at the end {loadavg()}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=30, help="how long the ladder plays")
    parser.add_argument("--every", type=float, default=60, help="seconds between samples")
    args = parser.parse_args()
    if not 0.1 <= args.minutes <= 24 * 60 or not 1 <= args.every <= 3600:
        raise SystemExit("--minutes: 0.1 to 1440; --every: 1 to 3600")
    url = os.environ.get("REDIS_URL", "")
    if not url:
        raise SystemExit("REDIS_URL is needed: the broker, the caches and the channel layer")
    client = redis.Redis.from_url(url)

    with scratch_database("redis_soak_bench"):
        say(f"database: {connection.settings_dict['NAME']}; loadavg {loadavg()}")
        ladder_opened()
        with tempfile.TemporaryDirectory(prefix="redis-soak-") as name:
            folder = Path(name)
            environment = environment_for(folder, cache=True)
            with worker(environment, folder / "worker.log"):
                started = time.monotonic()
                end = started + args.minutes * 60
                ladder_kick()
                samples = [sample(client, started)]
                say(f"sampled at {samples[-1].minute:.1f} min: {samples[-1]}")
                while time.monotonic() < end:
                    time.sleep(max(0.0, min(args.every, end - time.monotonic())))
                    ladder_kick()
                    samples.append(sample(client, started))
                    say(f"sampled at {samples[-1].minute:.1f} min: {samples[-1]}")
        report(samples)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
