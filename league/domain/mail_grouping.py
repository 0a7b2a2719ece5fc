"""Which of a person's notices go by mail now, and together (docs/web.md, *Notifications*).

A person chooses, per kind of notice, to have it mailed at once, gathered in a digest, or
not at all. Whatever goes, goes in one mail: every notice of the person still due rides
along with the first that is ready. A notice is ready

- at once: when it is written, except that a correspondence game mails a person at most
  once per ``match_gap`` (its later notices wait, and go together when the gap is over);
- in a digest: when it is ``digest_after`` old (so a digest mail comes at most that often).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

IMMEDIATE = "immediate"
DIGEST = "digest"
OFF = "off"
EMAIL_MODES = (IMMEDIATE, DIGEST, OFF)

MATCH_MAIL_GAP = timedelta(hours=1)
"""At once, a correspondence game mails a person at most this often."""
DIGEST_AFTER = timedelta(hours=3)
"""A digest's notices go when the oldest is this old."""


@dataclass(frozen=True)
class DueNotice:
    """A notice that is to be mailed and is not yet."""

    id: int
    mode: str
    """IMMEDIATE or DIGEST (an OFF notice is not due)."""
    created_at: datetime
    match_id: int | None
    correspondence: bool
    """About a correspondence game (its mails are grouped per game)."""


def notice_ready(
    notice: DueNotice,
    *,
    last_mail_of_match: Mapping[int, datetime],
    now: datetime,
    match_gap: timedelta = MATCH_MAIL_GAP,
    digest_after: timedelta = DIGEST_AFTER,
) -> bool:
    """Whether ``notice`` is due to go now (``last_mail_of_match``: when a mail about each
    game last went to the person)."""
    if notice.mode == DIGEST:
        return now - notice.created_at >= digest_after
    if notice.mode != IMMEDIATE:
        return False
    if not notice.correspondence or notice.match_id is None:
        return True
    last = last_mail_of_match.get(notice.match_id)
    return last is None or now - last >= match_gap


def notices_to_mail(
    due: Sequence[DueNotice],
    *,
    last_mail_of_match: Mapping[int, datetime],
    now: datetime,
    match_gap: timedelta = MATCH_MAIL_GAP,
    digest_after: timedelta = DIGEST_AFTER,
) -> list[int]:
    """The ids of the notices to mail now in one mail, oldest first: none while none is
    ready, else every notice due (the ready one and all that wait)."""
    ready = any(
        notice_ready(
            n,
            last_mail_of_match=last_mail_of_match,
            now=now,
            match_gap=match_gap,
            digest_after=digest_after,
        )
        for n in due
    )
    if not ready:
        return []
    return [n.id for n in sorted(due, key=lambda n: (n.created_at, n.id))]


def email_mode(*, email: bool, digest: bool) -> str:
    """A stored choice (``NotificationPreference``'s two flags) as a mode."""
    if not email:
        return OFF
    return DIGEST if digest else IMMEDIATE
