"""Which notices go by mail now, together (league.domain.mail_grouping): at once, but a
correspondence game at most once per gap; a digest when its oldest notice is old enough;
whatever goes takes every notice due along."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from league.domain.mail_grouping import (
    DIGEST,
    DIGEST_AFTER,
    IMMEDIATE,
    MATCH_MAIL_GAP,
    OFF,
    DueNotice,
    email_mode,
    notices_to_mail,
)

NOW = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)


def notice(
    id: int, mode: str, age: timedelta, match: int | None = 7, correspondence: bool = True
) -> DueNotice:
    return DueNotice(
        id=id, mode=mode, created_at=NOW - age, match_id=match, correspondence=correspondence
    )


def test_at_once_a_correspondence_game_mails_once_per_gap_and_then_all_that_waited() -> None:
    minute = timedelta(minutes=1)
    due = [notice(2, IMMEDIATE, 2 * minute), notice(1, IMMEDIATE, 10 * minute)]
    assert notices_to_mail(due, last_mail_of_match={}, now=NOW) == [1, 2]
    just_mailed = {7: NOW - 14 * minute}
    assert notices_to_mail(due, last_mail_of_match=just_mailed, now=NOW) == []
    an_hour_ago = {7: NOW - MATCH_MAIL_GAP}
    assert notices_to_mail(due, last_mail_of_match=an_hour_ago, now=NOW) == [1, 2]
    # A live game's notice, or one about no game, is not held.
    live = [notice(3, IMMEDIATE, minute, correspondence=False)]
    assert notices_to_mail(live, last_mail_of_match=just_mailed, now=NOW) == [3]
    other = [*due, notice(4, IMMEDIATE, minute, match=8)]
    assert notices_to_mail(other, last_mail_of_match=just_mailed, now=NOW) == [1, 2, 4]


def test_a_digest_goes_when_its_oldest_notice_is_old_enough_with_everything_due() -> None:
    young = [notice(1, DIGEST, timedelta(hours=1)), notice(2, DIGEST, timedelta(minutes=5))]
    assert notices_to_mail(young, last_mail_of_match={}, now=NOW) == []
    old = [notice(3, DIGEST, DIGEST_AFTER), *young]
    assert notices_to_mail(old, last_mail_of_match={}, now=NOW) == [3, 1, 2]
    with_one_at_once = [*young, notice(4, IMMEDIATE, timedelta(0), match=None)]
    assert notices_to_mail(with_one_at_once, last_mail_of_match={}, now=NOW) == [1, 2, 4]


def test_the_stored_flags_read_as_a_mode() -> None:
    assert email_mode(email=False, digest=True) == OFF
    assert email_mode(email=True, digest=False) == IMMEDIATE
    assert email_mode(email=True, digest=True) == DIGEST
