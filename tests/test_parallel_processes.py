"""The Redis database of each process of a parallel run (tests/parallel_processes.py)."""

import os
import subprocess
import sys
import uuid
from urllib.parse import urlsplit, urlunsplit

import pytest
import redis

from tests.celery_workers import REPOSITORY_ROOT
from tests.parallel_processes import (
    GIVEN_REDIS_URL,
    RedisDatabaseNotGivenError,
    redis_database_of,
    redis_own_database_flush,
    redis_url_of_process,
)


@pytest.mark.parametrize(
    ("url", "worker", "expected"),
    [
        ("redis://127.0.0.1:6379/0", "gw0", "redis://127.0.0.1:6379/0"),
        ("redis://127.0.0.1:6379/0", "gw3", "redis://127.0.0.1:6379/3"),
        ("redis://127.0.0.1:6379", "gw1", "redis://127.0.0.1:6379/1"),
        ("rediss://:secret@cache.example:6380/10", "gw3", "rediss://:secret@cache.example:6380/13"),
        ("redis://127.0.0.1:6379/13", "gw2", "redis://127.0.0.1:6379/15"),
        ("unix:///run/redis.sock?db=2", "gw1", "unix:///run/redis.sock?db=3"),
        ("unix:///run/redis.sock", "gw2", "unix:///run/redis.sock?db=2"),
    ],
)
def test_each_process_has_the_database_after_the_urls_by_its_number(
    url: str, worker: str, expected: str
) -> None:
    assert redis_url_of_process(url, worker) == expected


@pytest.mark.parametrize(
    ("url", "worker", "database"),
    [
        ("redis://127.0.0.1:6379/13", "gw3", 16),
        ("rediss://:secret@cache.example:6380/14", "gw3", 17),
        ("unix:///run/redis.sock?db=15", "gw1", 16),
    ],
)
def test_a_process_past_the_last_database_is_refused_rather_than_wrapped(
    url: str, worker: str, database: int
) -> None:
    """Before, gw3 of /14 wrapped around to /1: another run's database, maybe."""
    with pytest.raises(RedisDatabaseNotGivenError) as refused:
        redis_url_of_process(url, worker)
    assert f"{worker} would use Redis database {database}" in str(refused.value)
    assert "the Redis server has 16 databases (0-15)" in str(refused.value)


def test_a_server_with_more_databases_has_room_for_more_processes() -> None:
    assert redis_url_of_process("redis://127.0.0.1:6379/14", "gw3", databases=32) == (
        "redis://127.0.0.1:6379/17"
    )
    with pytest.raises(RedisDatabaseNotGivenError):
        redis_url_of_process("redis://127.0.0.1:6379/2", "gw2", databases=4)


def test_a_run_whose_process_has_no_database_left_stops_with_the_reason() -> None:
    """A process (gw7 of REDIS_URL /13: database 20 of 16) stops the run before any test,
    without using REDIS_URL's own database (the first process's) either."""
    environment = os.environ | {
        "PYTEST_XDIST_WORKER": "gw7",
        "REDIS_URL": "redis://127.0.0.1:6379/13",
    }
    finished = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "--collect-only",
            "-q",
            "tests/test_parallel_processes.py",
        ],
        cwd=REPOSITORY_ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert finished.returncode == pytest.ExitCode.USAGE_ERROR, finished.stdout[-2000:]
    assert "test process gw7 would use Redis database 20" in finished.stderr, finished.stderr


@pytest.mark.redis
def test_a_process_empties_its_own_redis_database_and_no_other() -> None:
    own = os.environ["REDIS_URL"]
    # Another database of this run: the first process's, or (in the first process) the
    # second's; only a key of this test's is written there, and removed.
    database, first = redis_database_of(own), redis_database_of(GIVEN_REDIS_URL or own)
    other_database = first if database != first else first + 1
    other = urlunsplit(urlsplit(own)._replace(path=f"/{other_database}"))
    key = f"test-parallel-processes-{uuid.uuid4().hex}"
    with redis.Redis.from_url(own) as mine, redis.Redis.from_url(other) as theirs:
        mine.set(key, "mine", ex=60)
        theirs.set(key, "theirs", ex=60)
        try:
            with pytest.raises(RedisDatabaseNotGivenError, match="is not this process's own"):
                redis_own_database_flush(other)
            assert theirs.get(key) == b"theirs"
            redis_own_database_flush(own)
            assert mine.get(key) is None
        finally:
            theirs.delete(key)
