"""Who is at a live table, from plain facts (docs/web.md, *Presence*): whether a seat's
person has a table page open, since when they are gone, when the others may vote to seat a
bot for them and how many votes that takes. league.services.presence reads the connections
and asks this module; nothing here reads a card.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

HEARTBEAT_SECONDS = 10.0
"""A table page says it is still there this often on its socket."""
CONNECTION_TTL_SECONDS = 30.0
"""A connection whose last heartbeat is older than this no longer counts (its web process
died without closing it)."""
ABSENCE_VOTE_SECONDS = 60.0
"""By default, how long a person is gone before the others may vote to seat a bot for them
(the ``TABLE_ABSENCE_VOTE_SECONDS`` setting; never more than two move times,
``absence_vote_after``)."""
ABSENT = "absent"
"""The cause of the fault kept on a seat whose bot the others seated (its person was gone)."""
ABSENCE_VOTE_MOVE_TIMES = 2.0
"""The vote is open after at most this many move times, whatever the setting: always
before the third missed deadline would seat a bot anyway."""


@dataclass(frozen=True)
class Connection:
    """One socket of a seat's person: when it was last heard of, and whether it closed."""

    seen_at: datetime
    closed: bool


@dataclass(frozen=True)
class SeatPresence:
    """Whether the person at a seat is at the table, and for how long they are gone."""

    connected: bool
    away_seconds: float
    """0 while connected; else the seconds since they were last seen (or since the table
    started, if they never opened it)."""


def seat_presence(
    *, connections: Iterable[Connection], started_at: datetime, now: datetime
) -> SeatPresence:
    """A seat's presence from its person's connections: connected while one is open and
    was heard of within CONNECTION_TTL_SECONDS; gone since the last one was seen."""
    last_seen = started_at
    for connection in connections:
        fresh = (now - connection.seen_at).total_seconds() <= CONNECTION_TTL_SECONDS
        if not connection.closed and fresh:
            return SeatPresence(connected=True, away_seconds=0.0)
        last_seen = max(last_seen, connection.seen_at)
    return SeatPresence(connected=False, away_seconds=max(0.0, (now - last_seen).total_seconds()))


def absence_vote_after(*, setting_seconds: float, move_seconds: float) -> float:
    """Seconds a person must be gone before the vote opens: the setting, but at most
    ABSENCE_VOTE_MOVE_TIMES move times (shorter than three deadlines, after which the
    strikes seat a bot in any case)."""
    return max(0.0, min(setting_seconds, ABSENCE_VOTE_MOVE_TIMES * move_seconds))


def votes_needed(others: int) -> int:
    """Votes that seat a bot for a person who is gone: a majority of the other people
    seated at the table (1 of 1, 2 of 2, 2 of 3)."""
    return others // 2 + 1 if others > 0 else 1


def absence_vote_open(
    *, live: bool, playing: bool, person: bool, replaced: bool, presence: SeatPresence, after: float
) -> bool:
    """Whether the others may vote to seat a bot for this seat now: a person's seat in a
    live game being played, not already played by a bot, whose person has been gone for
    ``after`` seconds."""
    return (
        live
        and playing
        and person
        and not replaced
        and not presence.connected
        and presence.away_seconds >= after
    )


def bot_for_absent(*, replaced: bool, strikes: int, strikes_allowed: int, faults: Any) -> bool:
    """Whether a bot plays a seat because the others voted while its person was gone
    (an ``absent`` fault), and not because of missed deadlines: its person takes it back
    at the next deal."""
    if not replaced or strikes >= strikes_allowed:
        return False
    return any(isinstance(f, dict) and f.get("cause") == ABSENT for f in faults or [])


@dataclass(frozen=True)
class SeatFacts:
    """What the presence of a person's seat is told from, besides its connections."""

    seat: int
    name: str
    replaced: bool
    strikes: int
    faults: Any


def presence_entries(
    *,
    seats: Sequence[SeatFacts],
    connections: Mapping[int, Sequence[Connection]],
    votes: Mapping[int, int],
    started_at: datetime,
    now: datetime,
    live: bool,
    playing: bool,
    after: float,
    strikes_allowed: int,
) -> list[dict[str, Any]]:
    """Who is at the table, for each person's seat (``seats``) as everyone may see it:
    connected or for how long gone, whether a bot plays for them because the others voted,
    and the vote (open or not, the votes so far and needed)."""
    entries = []
    for facts in seats:
        presence = seat_presence(
            connections=connections.get(facts.seat, []), started_at=started_at, now=now
        )
        entries.append(
            {
                "seat": facts.seat,
                "name": facts.name,
                "connected": presence.connected,
                "away_seconds": round(presence.away_seconds),
                "bot_for_absent": bot_for_absent(
                    replaced=facts.replaced,
                    strikes=facts.strikes,
                    strikes_allowed=strikes_allowed,
                    faults=facts.faults,
                ),
                "vote_open": absence_vote_open(
                    live=live,
                    playing=playing,
                    person=True,
                    replaced=facts.replaced,
                    presence=presence,
                    after=after,
                ),
                "votes": votes.get(facts.seat, 0),
                "votes_needed": votes_needed(len(seats) - 1),
            }
        )
    return entries


def absent_fault(*, votes: int, decision: int, deal: int) -> dict[str, Any]:
    """The fault kept on a seat whose bot the others seated: why, and from when."""
    return {
        "cause": ABSENT,
        "message": f"gone from the table; {votes} of the others seated a bot",
        "decision": decision,
        "deal": deal,
        "fallback": None,
    }


def deal_started(*, deal_starts: Sequence[int], stored: int) -> bool:
    """Whether a deal started among the events from index ``stored`` on (the engine's
    ``deal_starts``: the index of each deal's first event)."""
    return bool(deal_starts) and deal_starts[-1] >= stored
