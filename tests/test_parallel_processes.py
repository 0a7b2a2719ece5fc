"""The Redis database of each process of a parallel run (tests/parallel_processes.py)."""

import pytest

from tests.parallel_processes import redis_url_of_process


@pytest.mark.parametrize(
    ("url", "worker", "expected"),
    [
        ("redis://127.0.0.1:6379/0", "gw0", "redis://127.0.0.1:6379/0"),
        ("redis://127.0.0.1:6379/0", "gw3", "redis://127.0.0.1:6379/3"),
        ("redis://127.0.0.1:6379", "gw1", "redis://127.0.0.1:6379/1"),
        ("rediss://:secret@cache.example:6380/14", "gw3", "rediss://:secret@cache.example:6380/1"),
        ("unix:///run/redis.sock?db=2", "gw1", "unix:///run/redis.sock?db=3"),
        ("unix:///run/redis.sock", "gw2", "unix:///run/redis.sock?db=2"),
    ],
)
def test_each_process_has_the_database_after_the_urls_by_its_number(
    url: str, worker: str, expected: str
) -> None:
    assert redis_url_of_process(url, worker) == expected
