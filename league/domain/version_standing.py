"""Why a bot version is (not) playing: its state in each ladder of its bot's families, told
from plain facts (league.selectors.version_standing reads them; league.words.version_standing
says them to people). Pure: no clock, no database, no words.

A version is in one of these states in a ladder (``LadderState.state``), in the order they
are decided, the first that holds:

- ``not_in_ladder`` (``ladder`` None): no ladder could play it, and ``reason`` says why:
  ``builtin`` (built-in bots play ladders only as anchors, chosen by the operator),
  ``pending`` (its validation game is still being played), ``rejected`` (by that game),
  ``no_family`` (its bot names none), ``no_ladder`` (no ladder of its families);
- ``superseded``: a newer active version of the bot plays instead (``newer``);
- ``joining``: the newest active version, not yet on the ladder: the matchmaker's next
  pass adds it;
- ``suspended``: it crashed or failed to start in ``faults`` matches in a row;
- ``opted_out``: its owner took it off the ladder;
- ``family_left``: its bot no longer plays the ladder's family;
- ``paused``: the ladder is not running;
- ``placement`` or ``rated``: it plays; ``placement_left`` games until it is placed, or its
  rating, position (``rank`` of ``ranked``) and how sure that position is (``confidence``);
  ``queued``/``running`` are its matches now, and ``limit`` says which limit holds it back
  (``concurrent``: its matches at once; ``queue``: the ladder's queued matches).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from league.domain.ladder_results import FAILURE_OUTCOMES

STATES = (
    "not_in_ladder",
    "superseded",
    "joining",
    "suspended",
    "opted_out",
    "family_left",
    "paused",
    "placement",
    "rated",
)
"""A version's states in a ladder, in the order they are decided (the module's list)."""
REASONS = ("builtin", "pending", "rejected", "no_family", "no_ladder")
"""Why a version is in no ladder (``not_in_ladder``), in the order they are decided."""
LIMITS = ("concurrent", "queue")


@dataclass(frozen=True)
class EntrantFacts:
    """The version's entrant on one ladder, and its place there."""

    status: str
    """playing, superseded or suspended (league.models.LadderEntrantStatus)."""
    opted_out: bool
    suspension_faults: Sequence[Mapping[str, Any]] = ()
    """The faults of its last failures in a row: ``match``, ``seat``, ``outcome``."""
    games: int = 0
    """Rated ladder games."""
    mu: float = 0.0
    sigma: float = 0.0
    conservative: float = 0.0
    rank: int | None = None
    ranked: int = 0
    """Rows on the ladder's leaderboard."""
    confidence: float | None = None
    """P(truly above the next row); None for the last."""
    queued: int = 0
    running: int = 0


@dataclass(frozen=True)
class LadderFacts:
    slug: str
    name: str
    family: str
    running: bool
    queued_limit: int
    concurrent_limit: int
    placement_games: int
    queued_now: int
    """The ladder's matches queued now (all versions')."""
    entrant: EntrantFacts | None = None
    """This version on the ladder; None: it never joined."""


@dataclass(frozen=True)
class VersionFacts:
    number: int
    status: str
    """pending, active or rejected (bots.models.BotVersion.Status)."""
    builtin: bool
    families: Sequence[str]
    """Its bot's families."""
    newest_active: int | None
    """The number of the bot's newest active version; None: none is active."""
    ladders: Sequence[LadderFacts] = ()
    """The ladders of its bot's families."""


@dataclass(frozen=True)
class LadderState:
    state: str
    ladder: str | None = None
    """The ladder's slug; None for ``not_in_ladder``."""
    ladder_name: str = ""
    reason: str | None = None
    """Why it is in no ladder (``not_in_ladder`` only)."""
    newer: int | None = None
    failures: Mapping[str, int] = field(default_factory=dict)
    """Suspended: its failures in a row by outcome (``crash``: 3)."""
    faults: Sequence[Mapping[str, Any]] = ()
    placement_left: int = 0
    games: int = 0
    mu: float | None = None
    sigma: float | None = None
    conservative: float | None = None
    rank: int | None = None
    ranked: int = 0
    confidence: float | None = None
    queued: int = 0
    running: int = 0
    limit: str | None = None
    """What holds it back while it plays: ``concurrent`` or ``queue``; None: nothing."""
    limit_value: int | None = None


def failures_by_outcome(faults: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """A suspension's failures counted by outcome (crash, init_failure), in that order."""
    counts: dict[str, int] = {}
    for outcome in sorted(FAILURE_OUTCOMES):
        n = sum(1 for fault in faults if fault.get("outcome") == outcome)
        if n:
            counts[outcome] = n
    return counts


def _playing_state(ladder: LadderFacts, entrant: EntrantFacts) -> LadderState:
    in_flight = entrant.queued + entrant.running
    limit: str | None = None
    limit_value: int | None = None
    if in_flight >= ladder.concurrent_limit:
        limit, limit_value = "concurrent", ladder.concurrent_limit
    elif ladder.queued_now >= ladder.queued_limit:
        limit, limit_value = "queue", ladder.queued_limit
    placement_left = max(0, ladder.placement_games - entrant.games)
    return LadderState(
        state="placement" if placement_left else "rated",
        ladder=ladder.slug,
        ladder_name=ladder.name,
        placement_left=placement_left,
        games=entrant.games,
        mu=entrant.mu,
        sigma=entrant.sigma,
        conservative=entrant.conservative,
        rank=entrant.rank,
        ranked=entrant.ranked,
        confidence=entrant.confidence,
        queued=entrant.queued,
        running=entrant.running,
        limit=limit,
        limit_value=limit_value,
    )


def ladder_state(version: VersionFacts, ladder: LadderFacts) -> LadderState:
    """The version's state on one ladder of its families (the module's list, in order)."""
    entrant = ladder.entrant
    here = LadderState("", ladder=ladder.slug, ladder_name=ladder.name)
    if entrant is None or entrant.status == "superseded":
        newest = version.newest_active
        if newest is not None and newest != version.number:
            return replace(here, state="superseded", newer=newest)
        return replace(here, state="joining" if entrant is None else "superseded")
    here = replace(
        here,
        games=entrant.games,
        queued=entrant.queued,
        running=entrant.running,
        rank=entrant.rank,
        ranked=entrant.ranked,
    )
    if entrant.status == "suspended":
        faults = list(entrant.suspension_faults)
        return replace(here, state="suspended", failures=failures_by_outcome(faults), faults=faults)
    if entrant.opted_out:
        return replace(here, state="opted_out")
    if ladder.family not in version.families:
        return replace(here, state="family_left")
    if not ladder.running:
        return replace(here, state="paused")
    return _playing_state(ladder, entrant)


def version_states(version: VersionFacts) -> list[LadderState]:
    """The version's state in each ladder of its families (and in any other it is still
    on), or one ``not_in_ladder`` state saying why it is in none."""
    if version.builtin:
        return [LadderState("not_in_ladder", reason="builtin")]
    if version.status == "pending":
        return [LadderState("not_in_ladder", reason="pending")]
    if version.status == "rejected":
        return [LadderState("not_in_ladder", reason="rejected")]
    if not version.families:
        return [LadderState("not_in_ladder", reason="no_family")]
    if not version.ladders:
        return [LadderState("not_in_ladder", reason="no_ladder")]
    return [ladder_state(version, ladder) for ladder in version.ladders]
