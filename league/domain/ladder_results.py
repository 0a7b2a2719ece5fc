"""What a ladder's played games say, computed: the history the matchmaker seats by, the
leaderboard with the confidence of each position, a version's results against each
opponent, its crashes in a row, and who sits where at a table. Pure: plain data in and out
(league.services.ladders and league.selectors.ladders read and store)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from engine.errors import InvalidGameError
from engine.variants import load_game
from league.domain.ladder_matchmaking import Candidate, History, LadderShape, pair
from league.domain.ratings_maths import DEFAULT_MU, DEFAULT_SIGMA

LADDER_SUSPEND_AFTER = 3
"""K: a version that crashes or fails to start in this many ladder matches in a row is
suspended; its author is told, and resumes it (or uploads a new version)."""
MACHINE_FAULT = "uploaded bots cannot run here"
"""How a start failure that is the machine's (no sandbox on that worker) begins: it does
not count against the version."""
FAILURE_OUTCOMES = frozenset({"crash", "init_failure"})
"""What counts as a crash or a start failure (a timeout or an illegal action does not)."""


def tables_history(tables: Iterable[Mapping[int, int]], *, partnership: bool) -> History:
    """Meetings per pair, games per (player, seat) and partnerships per pair of ``tables``
    (each: seat -> player)."""
    meetings: dict[tuple[int, int], int] = {}
    seats: dict[tuple[int, int], int] = {}
    partners: dict[tuple[int, int], int] = {}
    for table in tables:
        for seat, player in table.items():
            seats[(player, seat)] = seats.get((player, seat), 0) + 1
            for other in table.values():
                if other > player:
                    meetings[pair(player, other)] = meetings.get(pair(player, other), 0) + 1
        if partnership and len(table) == 4:
            for a, b in ((0, 2), (1, 3)):
                if a in table and b in table:
                    key = pair(table[a], table[b])
                    partners[key] = partners.get(key, 0) + 1
    return History(meetings=meetings, seat_counts=seats, partnerships=partners)


def table_seats(
    num_seats: int, player_seats: Sequence[int], players: Sequence[int]
) -> list[int | None]:
    """Who sits where: ``players`` in the game's player seats, None in a dummy's seat (the
    träkarl, played by the filler bot)."""
    by_seat = dict(zip(player_seats, players, strict=True))
    return [by_seat.get(seat) for seat in range(num_seats)]


def machine_fault(faults: Iterable[Mapping[str, Any]]) -> bool:
    """Whether a seat's faults are the worker's, not the bot's (``MACHINE_FAULT``)."""
    return any(str(f.get("message", "")).startswith(MACHINE_FAULT) for f in faults)


def failures_in_a_row(before: int, outcome: str) -> int:
    """A version's crashes and start failures in a row after a match with ``outcome``."""
    return before + 1 if outcome in FAILURE_OUTCOMES else 0


@dataclass(frozen=True)
class BoardRow:
    id: int
    mu: float
    sigma: float
    games: int


def leaderboard_confidences(rows: Sequence[BoardRow]) -> list[float | None]:
    """For each row of a leaderboard (best first), how sure it is to be truly above the
    next one: P(skill_i > skill_next) = Phi((mu_i - mu_next) / sqrt(sigma_i^2 +
    sigma_next^2)), the ratings read as independent normal beliefs; None for the last."""
    out: list[float | None] = []
    for here, below in pairwise(rows):
        spread = math.sqrt(here.sigma**2 + below.sigma**2) or 1e-9
        out.append(0.5 * (1.0 + math.erf((here.mu - below.mu) / (spread * math.sqrt(2.0)))))
    if rows:
        out.append(None)
    return out


def ranked(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Leaderboard rows (``competitor``, ``mu``, ``sigma``, ``conservative``, ``games``)
    best conservative rating first, each with its ``rank`` and ``confidence``."""
    rows = sorted(rows, key=lambda row: (-row["conservative"], row["competitor"]))
    sure = leaderboard_confidences(
        [BoardRow(r["competitor"], r["mu"], r["sigma"], r["games"]) for r in rows]
    )
    for rank, (row, confidence) in enumerate(zip(rows, sure, strict=True), start=1):
        row.update(rank=rank, confidence=confidence)
    return rows


def head_to_head(
    games: Iterable[tuple[Sequence[int], Sequence[int]]], me: int, names: Mapping[int, str]
) -> list[dict[str, Any]]:
    """``me``'s results against each opponent over ``games`` (each: the players by seat and
    the scores by seat): games, won, tied and lost (its score against theirs), most met
    first."""
    lines: dict[int, dict[str, Any]] = {}
    for players, scores in games:
        mine = scores[players.index(me)]
        for seat, other in enumerate(players):
            if other == me:
                continue
            line = lines.setdefault(
                other,
                {
                    "competitor": other,
                    "name": names.get(other, ""),
                    "games": 0,
                    "won": 0,
                    "tied": 0,
                    "lost": 0,
                },
            )
            line["games"] += 1
            theirs = scores[seat]
            line["won" if mine > theirs else "tied" if mine == theirs else "lost"] += 1
    return sorted(lines.values(), key=lambda line: (-line["games"], line["competitor"]))


# ---------------------------------------------------------------- the roster and its state


def shape_of(game: str, *, concurrent_limit: int, placement_games: int) -> LadderShape:
    """What ``game`` says about a ladder's tables (the game describes itself: engine)."""
    loaded = load_game(game)
    return LadderShape(
        seats=len(loaded.player_seats),
        partnership=loaded.partnership_play,
        duplicate=loaded.deals_fixed_by_seed,
        concurrent_limit=concurrent_limit,
        placement_games=placement_games,
    )


def duplicate_game(game: str) -> str | None:
    """The game string of ``game`` with the family's options that fix every deal by the
    seed (``Game.fixed_deals_options``), so a ladder of it plays its tables in duplicate
    pairs; None when ``game``'s tables are paired already or no such options exist."""
    loaded = load_game(game)
    options = loaded.fixed_deals_options
    if loaded.deals_fixed_by_seed or not options:
        return None
    text = str(loaded)
    paired = f"{text[:-1]},{options})" if text.endswith(")") else f"{text}({options})"
    try:
        fixed = load_game(paired)
    except InvalidGameError:  # the options clash with the variant's own
        return None
    return str(fixed) if fixed.deals_fixed_by_seed else None


def candidates_of(
    entrants: Iterable[tuple[int, bool]],
    ratings: Mapping[int, tuple[float, float, int]],
    in_flight: Mapping[int, int],
) -> list[Candidate]:
    """The matchmaker's view of ``entrants`` (competitor, anchor): their ladder ratings
    (mu, sigma, games; the prior for none) and matches in flight."""
    out = []
    for competitor, anchor in entrants:
        mu, sigma, games = ratings.get(competitor, (DEFAULT_MU, DEFAULT_SIGMA, 0))
        out.append(Candidate(competitor, mu, sigma, games, in_flight.get(competitor, 0), anchor))
    return out


@dataclass(frozen=True)
class KnownEntrant:
    id: int
    bot: int
    competitor: int
    playing: bool
    opted_out: bool
    challengeable: bool


@dataclass
class RosterChanges:
    joining: list[tuple[int, int, bool, bool]] = field(default_factory=list)
    """(bot, competitor, opted out, challengeable) of each newest version not listed yet:
    the owner's choices are those of the bot's latest listed version."""
    superseded: list[int] = field(default_factory=list)
    """Entrants playing while a newer version of their bot is active."""


def roster_changes(newest: Mapping[int, int], known: Sequence[KnownEntrant]) -> RosterChanges:
    """Each bot plays its newest active version (``newest``: bot -> competitor); the
    others stop being matched (and stay listed)."""
    changes = RosterChanges()
    for bot, competitor in newest.items():
        mine = [e for e in known if e.bot == bot]
        if not any(e.competitor == competitor for e in mine):
            last = max(mine, key=lambda e: e.id, default=None)
            opted_out, challengeable = (
                (last.opted_out, last.challengeable) if last else (False, True)
            )
            changes.joining.append((bot, competitor, opted_out, challengeable))
        changes.superseded += [e.id for e in mine if e.playing and e.competitor != competitor]
    return changes


@dataclass(frozen=True)
class Failures:
    """A version's crashes and start failures in a row and their last faults."""

    count: int
    faults: list[dict[str, Any]]
    suspend: bool = False
    """True once ``count`` reaches the limit while the version plays."""


def failures_after(
    before: Failures, *, outcome: str, fault: dict[str, Any], limit: int, playing: bool
) -> Failures:
    """The failures after a ladder match with ``outcome`` (``fault``: what to tell the
    author of it): reset by a match without a crash, suspended at ``limit`` in a row."""
    count = failures_in_a_row(before.count, outcome)
    if count == 0:
        return Failures(0, before.faults)
    faults = [*before.faults[-(limit - 1) :], fault] if limit > 1 else [fault]
    return Failures(count, faults, suspend=playing and count >= limit)


@dataclass(frozen=True)
class OpponentFacts:
    name: str
    bot: bool
    builtin: bool
    own: bool
    """The challenger owns it (or is staff): their own older versions, typically."""
    allowed: bool
    """It is on the ladder and its owner allows challenges."""


@dataclass(frozen=True)
class ChallengeProblem:
    """Why a challenge is refused, as facts (league.words.ladder_messages says it)."""

    reason: str
    """``opponent_count``, ``not_a_bot`` or ``not_allowed``."""
    needed: int = 0
    given: int = 0
    competitor: int = 0
    name: str = ""

    @property
    def not_allowed(self) -> bool:
        """The challenger may not (an owner's choice), rather than asked for nonsense."""
        return self.reason == "not_allowed"


def challenge_problem(
    *, seats: int, opponents: Sequence[int], facts: Mapping[int, OpponentFacts]
) -> ChallengeProblem | None:
    """Why a challenge of these opponents is refused, or None. Built-in bots, the
    challenger's own versions and versions whose owners allow challenges may be
    challenged."""
    if len(opponents) != seats - 1:
        return ChallengeProblem("opponent_count", needed=seats - 1, given=len(opponents))
    for opponent in opponents:
        fact = facts.get(opponent)
        if fact is None or not fact.bot:
            return ChallengeProblem("not_a_bot", competitor=opponent)
        if not (fact.builtin or fact.own or fact.allowed):
            return ChallengeProblem("not_allowed", name=fact.name)
    return None


@dataclass(frozen=True)
class PlayedMatch:
    """A ladder match of a version, as its page lists it."""

    match: int
    status: str
    finished_at: Any
    seats: Sequence[tuple[int, int, str, str]]
    """(seat, competitor, name, outcome) by seat."""
    scores: Sequence[int] | None


def version_games(
    played: Sequence[PlayedMatch], me: int, *, recent: int
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """A version's ``recent`` latest games (as listed) and its results against each
    opponent over every finished one (``head_to_head``)."""
    games: list[dict[str, Any]] = []
    finished: list[tuple[list[int], Sequence[int]]] = []
    names: dict[int, str] = {}
    for p in played:
        names |= {competitor: name for _, competitor, name, _ in p.seats}
        seat, _, _, outcome = next(s for s in p.seats if s[1] == me)
        if p.scores is not None:
            finished.append(([competitor for _, competitor, _, _ in p.seats], p.scores))
        games.append(
            {"match": p.match, "status": p.status, "finished_at": p.finished_at, "seat": seat}
            | {"outcome": outcome, "scores": p.scores, "seats": [s[2] for s in p.seats]}
        )
    return games[:recent], head_to_head(finished, me, names)
