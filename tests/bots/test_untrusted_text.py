"""Text a bot controls is stored safely on every database (bots/untrusted_text.py).

PostgreSQL refuses NUL in text and ``\\u0000`` in jsonb; no database driver encodes a lone
surrogate. The hostile bot tests/bots/hostile/text_unstorable.py answers actions holding
NUL characters and writes NUL and invalid UTF-8 to its stderr: its validation and a league
match with it store every fault, log and record, escaped.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from django.conf import settings
from django.contrib.auth.models import User

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bots.models import BotFault, BotVersion
from bots.seats import FAULT_MESSAGE_CHARS, Fault, Outcome, SeatReport
from bots.services import bot_create, bot_version_store, bot_version_validate
from bots.untrusted_text import CUT_MARK, storable_text
from league.models import MatchResult, MatchSeat
from league.services.competitors import competitor_builtin, competitor_for_bot_version
from league.services.matches import match_run
from league.services.tables import table_open

HOSTILE = Path(__file__).resolve().parent / "hostile"
UNSTORABLE = (HOSTILE / "text_unstorable.py").read_bytes()
RAW = "play \x00\x00 \ud800 and \udfff end"


def test_nul_and_lone_surrogates_are_escaped_visibly() -> None:
    assert storable_text(RAW, limit=100) == "play \\x00\\x00 \\ud800 and \\udfff end"
    assert storable_text("plain é ♠ text", limit=100) == "plain é ♠ text"


def test_lengths_are_capped_keeping_the_start_or_the_end() -> None:
    assert storable_text("x" * 50, limit=20) == "x" * (20 - len(CUT_MARK)) + CUT_MARK
    assert storable_text("a" * 30 + "END", limit=10, keep="end") == "a" * 7 + "END"
    assert len(storable_text("\x00" * 100, limit=10)) == 10


@given(st.text(), st.integers(min_value=0, max_value=300), st.sampled_from(["start", "end"]))
def test_whatever_the_text_the_result_is_storable_and_short(
    text: str, limit: int, keep: str
) -> None:
    stored = storable_text(text, limit=limit, keep="end" if keep == "end" else "start")
    assert len(stored) <= limit
    assert "\x00" not in stored
    stored.encode("utf-8")  # no lone surrogate


def test_faults_and_logs_are_made_storable_where_they_are_captured() -> None:
    fault = Fault(Outcome.ILLEGAL_ACTION, RAW * 200, decision=1, deal=1, fallback="pass\x00")
    assert "\x00" not in fault.message
    assert len(fault.message) <= FAULT_MESSAGE_CHARS
    assert fault.fallback == "pass\\x00"
    report = SeatReport(label="bot", kind="uploaded")
    report.keep_log("start\x00" + "\ud800" + "y" * 300_000 + "LAST")
    assert report.log.endswith("LAST")
    report.log.encode("utf-8")
    report.fallback_note("choose() returned '\x00'")
    assert report.fallback_reasons == ["choose() returned '\\x00'"]


# ---------------------------------------------------------------- the databases themselves


def test_sqlite_stores_the_escaped_text_and_not_the_raw() -> None:
    with sqlite3.connect(":memory:") as connection:
        connection.execute("CREATE TABLE fault (message TEXT NOT NULL)")
        with pytest.raises(UnicodeEncodeError):
            connection.execute("INSERT INTO fault VALUES (?)", (RAW,))
        connection.execute("INSERT INTO fault VALUES (?)", (storable_text(RAW, limit=100),))
        (stored,) = connection.execute("SELECT message FROM fault").fetchone()
    assert stored == storable_text(RAW, limit=100)


@pytest.mark.postgres
def test_postgresql_stores_the_escaped_text_and_not_the_raw() -> None:
    import psycopg
    from psycopg.types.json import Jsonb

    database = settings.DATABASES["default"]
    with psycopg.connect(
        host=database.get("HOST") or None,
        port=database.get("PORT") or None,
        user=database.get("USER") or None,
        password=database.get("PASSWORD") or None,
        dbname=database.get("NAME") or None,
        autocommit=True,
    ) as connection:
        connection.execute("CREATE TEMPORARY TABLE fault (message text, faults jsonb)")
        nul_only = "play \x00"
        with pytest.raises(psycopg.DataError):
            connection.execute("INSERT INTO fault (message) VALUES (%s)", (nul_only,))
        with pytest.raises(psycopg.errors.UntranslatableCharacter):
            connection.execute(
                "INSERT INTO fault (faults) VALUES (%s)", (Jsonb([{"message": nul_only}]),)
            )
        with pytest.raises(UnicodeEncodeError):
            connection.execute("INSERT INTO fault (message) VALUES (%s)", (RAW,))
        safe = storable_text(RAW, limit=100)
        connection.execute(
            "INSERT INTO fault (message, faults) VALUES (%s, %s)",
            (safe, Jsonb([{"message": safe}])),
        )
        row = connection.execute("SELECT message, faults FROM fault").fetchone()
    assert row is not None
    assert row[0] == safe
    assert row[1] == [{"message": safe}]


# ---------------------------------------------------------------- every path that stores it


@pytest.fixture
def author() -> User:
    return User.objects.create_user("mallory", password="a long password 1")


def _contains_no_raw_text(value: object) -> None:
    text = json.dumps(value, ensure_ascii=False)
    assert "\\u0000" not in text
    text.encode("utf-8")


@pytest.mark.sandbox
@pytest.mark.django_db
def test_the_validation_of_a_bot_with_unstorable_text_stores_it_escaped(author: User) -> None:
    bot = bot_create(owner=author, name="nul", families=["kingen"])
    version = bot_version_store(owner=author, bot=bot, filename="nul.py", data=UNSTORABLE)

    validated = bot_version_validate(version_id=version.pk)

    assert validated is not None
    assert validated.status == BotVersion.Status.REJECTED
    assert validated.report["outcome"] == "illegal_action"
    faults = list(BotFault.objects.filter(version=version).order_by("id"))
    assert [f.cause for f in faults] == ["illegal_action"] * 3
    assert "play \\x00\\x00" in faults[0].message
    assert "NUL \\x00 and not UTF-8 \ufffd\ufffd" in faults[0].log
    assert "request 1 \\x00\\x00" in validated.report["log"]
    _contains_no_raw_text(validated.report)


@pytest.mark.sandbox
@pytest.mark.django_db
def test_a_league_match_with_unstorable_text_stores_it_escaped(author: User) -> None:
    bot = bot_create(owner=author, name="nul", families=["kingen"])
    version = bot_version_store(owner=author, bot=bot, filename="nul.py", data=UNSTORABLE)
    BotVersion.objects.filter(pk=version.pk).update(status=BotVersion.Status.ACTIVE)
    version.refresh_from_db()
    greedy = competitor_builtin(name="greedy").pk
    seats = [competitor_for_bot_version(version=version).pk, greedy, greedy, greedy]
    match = table_open(actor=author, game="kingen", seats=seats)

    assert match_run(match_id=match.pk, worker="test").outcome == "finished"

    result = MatchResult.objects.get(match=match)
    assert result.outcomes == ["illegal_action", "ok", "ok", "ok"]
    seat = MatchSeat.objects.get(match=match, seat=0)
    assert len(seat.faults) == 3
    assert "play \\x00\\x00" in seat.faults[0]["message"]
    for stored in (seat.faults, result.faults, result.record):
        _contains_no_raw_text(stored)
    (first, *_) = BotFault.objects.filter(match_id=match.pk).order_by("id")
    assert "play \\x00\\x00" in first.message
    assert "NUL \\x00" in first.log
