"""What people read of times and durations, said here in English: league.words.games_and_times
(the words of the pages, the API and the notices, and the table's short move time)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone

from django.utils import translation

import pytest

from league.words.games_and_times import (
    duration_abbreviated,
    duration_words,
    moment_words,
    move_time_words,
    time_control_in_english,
    time_control_words,
    wait_in_words,
)


@pytest.fixture(autouse=True)
def english() -> Iterator[None]:
    with translation.override("en"):
        yield


@pytest.mark.parametrize(
    ("seconds", "words"),
    [
        (86400, "1 day"),
        (3 * 86400, "3 days"),
        (3600, "1 hour"),
        (12 * 3600, "12 hours"),
        (90 * 60, "90 minutes"),  # not a whole number of hours
        (60, "1 minute"),
        (120, "2 minutes"),
        (90, "90 seconds"),
        (30, "30 seconds"),
        (1.5, "1.5 seconds"),
        (25 * 3600, "25 hours"),
    ],
)
def test_a_duration_is_said_in_its_largest_whole_unit(seconds: float, words: str) -> None:
    assert duration_words(seconds) == words


@pytest.mark.parametrize(
    ("seconds", "words"),
    [
        (5, "5 s"),
        (30, "30 s"),
        (119, "119 s"),
        (120, "2 min"),
        (150, "2 min"),  # rounded to its unit
        (7199, "120 min"),
        (7200, "2 h"),
        (12 * 3600, "12 h"),
        (2 * 86400, "2 days"),
        (14 * 86400, "14 days"),
    ],
)
def test_a_table_notice_abbreviates_a_move_time(seconds: float, words: str) -> None:
    assert duration_abbreviated(seconds) == words


@pytest.mark.parametrize(
    ("seconds", "words"),
    [
        (1, "1 second"),
        (45, "45 seconds"),
        (60, "1 minute"),
        (61, "2 minutes"),  # a wait is never said shorter than it is
        (290, "5 minutes"),
        (3600, "60 minutes"),
    ],
)
def test_a_wait_is_rounded_up_to_the_minute(seconds: int, words: str) -> None:
    assert wait_in_words(seconds) == words


def test_a_time_per_move_and_a_time_control() -> None:
    assert move_time_words(86400) == "1 day per move"
    assert move_time_words(30) == "30 seconds per move"
    assert (
        time_control_words(time_control="live", move_seconds=120, time_bank_seconds=60)
        == "live, 2 minutes a move + 1 minute bank"
    )
    assert (
        time_control_words(time_control="correspondence", move_seconds=86400, time_bank_seconds=0)
        == "correspondence, 1 day a move"
    )


def test_the_lobbys_time_control_is_english_whatever_the_language() -> None:
    with translation.override("sv"):
        assert time_control_in_english(
            time_control="live", move_seconds=120, time_bank_seconds=60
        ) == ("live, 2 minutes a move + 1 minute bank")


def test_a_moment_is_said_in_the_zone_asked_for_whatever_its_own() -> None:
    stockholm = timezone(timedelta(hours=1))
    assert moment_words(datetime(2026, 11, 25, 21, 0, tzinfo=stockholm), UTC) == (
        "Wed 25 Nov 2026, 20:00 UTC"
    )
    assert moment_words(datetime(2026, 11, 26, 0, 30, tzinfo=stockholm), UTC) == (
        "Wed 25 Nov 2026, 23:30 UTC"
    )
