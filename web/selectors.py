"""Reads that the web pages need beyond the league's own selectors: a match's timeline of
public facts, rating histories for the charts, and what a person may do on a page.

Everything here only reads; writes go through the league's and the bots' services.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.contrib.auth.models import User as Account
from django.core.cache import cache
from django.db.models import QuerySet

from bots.models import Bot, BotVersion
from engine.record import record_from_state
from engine.variants import load_game
from league.models import Club, Competitor, Match, MatchResult, MatchStatus, Membership, Tournament
from league.ratings import DEFAULT_MU, DEFAULT_SIGMA, skill_ratings
from league.scheduling.model import Mode, PlayerId
from league.selectors import club_role_of
from league.services.clubs import ORGANISING_ROLES
from league.standings import MatchResult as StandingsResult
from league.standings import StandingsRules, compute_standings
from web.timeline import TIMELINE_VERSION, record_timeline

User = Account | AnonymousUser


def can_organise(*, user: User, tournament: Tournament) -> bool:
    """Whether ``user`` may change ``tournament`` (the league's services decide for real)."""
    if tournament.club is None:
        return user.is_authenticated and user.pk == tournament.created_by_id
    return club_role_of(user=user, club=tournament.club) in ORGANISING_ROLES


def can_organise_club(*, user: User, club: Club) -> bool:
    return club_role_of(user=user, club=club) in ORGANISING_ROLES


def clubs_of(*, user: User) -> QuerySet[Membership]:
    if not user.is_authenticated:
        return Membership.objects.none()
    return Membership.objects.filter(user_id=user.pk).select_related("club").order_by("club__name")


def match_timeline(*, match: Match) -> dict[str, Any]:
    """The public facts after each event of ``match`` (web.timeline), from its full record.

    A running match's record is rebuilt from its stored events on the server; only public
    facts leave this function, so anyone who may watch the match may have them.
    """
    from league.services.matches import MatchLogError, match_replay

    result = MatchResult.objects.filter(match_id=match.pk).first()
    if match.status == MatchStatus.FINISHED and result is not None:
        # A finished match never changes: its timeline is computed once per cache.
        key = f"web:timeline:{TIMELINE_VERSION}:{match.pk}:{result.pk}"
        timeline: dict[str, Any] | None = cache.get(key)
        if timeline is None:
            timeline = record_timeline(result.record)
            cache.set(key, timeline, 24 * 60 * 60)
        return timeline
    try:
        replay = match_replay(match)
    except MatchLogError as exc:  # the viewer shows the record without the facts
        return {"version": TIMELINE_VERSION, "error": str(exc)}
    return record_timeline(record_from_state(replay.state))


@dataclass(frozen=True)
class RatingSeries:
    """One competitor's conservative rating (mu - 3 sigma) after each of its matches."""

    competitor: int
    name: str
    points: list[tuple[int, float]]
    """(round, rating after the competitor's match of that round); round 0 is the start."""


def _standings_results(tournament: Tournament) -> list[StandingsResult]:
    rows = (
        MatchResult.objects.filter(match__tournament=tournament)
        .order_by("created_at", "match_id")
        .values_list("match_id", "standings_input")
    )
    entrants = set(tournament.entries.values_list("competitor_id", flat=True))
    results = []
    for match_id, standings_input in rows:
        seats = sorted(standings_input["seats"], key=lambda s: s["seat"])
        if len(seats) != 4:  # ratings and standings take tables of four
            continue
        results.append(
            StandingsResult(
                match_id=match_id,
                round_number=int(standings_input.get("round", 1)),
                seats=tuple(
                    PlayerId(int(s["competitor"])) if s["competitor"] in entrants else None
                    for s in seats
                ),
                scores=tuple(int(s["score"]) for s in seats),
            )
        )
    return results


def rating_histories(*, tournament: Tournament) -> list[RatingSeries]:
    """openskill ratings (league.ratings) of the entrants after each of their finished
    matches (in the order the matches finished), by round; partnerships for Priffe,
    individual games otherwise."""
    results = _standings_results(tournament)
    if not results:
        return []
    family = load_game(tournament.game).family
    mode = Mode.PARTNERSHIP if family == "priffe" else Mode.SOLO
    try:
        ratings = skill_ratings(results, mode=mode)
    except (ValueError, KeyError):  # results the rating model does not take: no chart
        return []
    names = dict(
        Competitor.objects.filter(entries__tournament=tournament).values_list("id", "name")
    )
    rounds = {result.match_id: result.round_number for result in results}
    start = round(DEFAULT_MU - 3 * DEFAULT_SIGMA, 2)
    series: dict[int, list[tuple[int, float]]] = {}
    for change in ratings.history:
        player = int(change.player)
        if player in names:
            series.setdefault(player, [(0, start)]).append(
                (rounds[change.match_id], round(change.mu - 3 * change.sigma, 2))
            )
    return [
        RatingSeries(competitor=player, name=names[player], points=points)
        for player, points in sorted(series.items(), key=lambda kv: names[kv[0]])
    ]


@dataclass(frozen=True)
class HeadToHeadTable:
    """Each pair of entrants' record at one table: games and the row's point difference
    over the column as opponents (league.standings)."""

    names: list[str]
    cells: list[list[tuple[int, int] | None]]
    """cells[i][j]: (games together, points of i minus points of j as opponents)."""


HEAD_TO_HEAD_MAX = 16
"""Entrants beyond which the head-to-head table is not drawn (it grows as a square)."""


def head_to_head(*, tournament: Tournament) -> HeadToHeadTable | None:
    """The head-to-head table of a league with up to HEAD_TO_HEAD_MAX entrants who played."""
    results = _standings_results(tournament)
    if not results:
        return None
    standings = compute_standings(results, StandingsRules(mode=Mode.SOLO))
    players = [row.player for row in standings.rows if row.games]
    if not 2 <= len(players) <= HEAD_TO_HEAD_MAX:
        return None
    names = dict(
        Competitor.objects.filter(pk__in=[int(p) for p in players]).values_list("id", "name")
    )
    cells: list[list[tuple[int, int] | None]] = []
    for a in players:
        line: list[tuple[int, int] | None] = []
        for b in players:
            record = standings.head_to_head_of(a, b) if a != b else None
            if record is None or not record.games:
                line.append(None)
            else:
                line.append((record.games, record.difference))
        cells.append(line)
    return HeadToHeadTable(names=[names.get(int(p), "?") for p in players], cells=cells)


def bot_versions(*, bot: Bot) -> QuerySet[BotVersion]:
    return bot.versions.order_by("-number").prefetch_related("faults")


def bot_competitors(*, bot: Bot) -> QuerySet[Competitor]:
    return Competitor.objects.filter(bot_version__bot=bot)


def bot_tournaments(*, bot: Bot, limit: int = 5) -> list[Tournament]:
    """The latest tournaments in which a version of ``bot`` finished a match."""
    ids = (
        MatchResult.objects.filter(match__seats__competitor__bot_version__bot=bot)
        .order_by("-created_at")
        .values_list("match__tournament_id", flat=True)
    )
    seen: list[int] = []
    for tournament_id in ids.iterator():
        if tournament_id not in seen:
            seen.append(tournament_id)
        if len(seen) >= limit:
            break
    by_id = Tournament.objects.in_bulk(seen)
    return [by_id[i] for i in seen if i in by_id]
