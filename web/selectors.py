"""Reads that the web pages need beyond the league's own selectors: a match's timeline of
public facts, rating histories for the charts, what a person may do on a page, where a
competitor's name links to, the bots page's lists, and what the entry and new-table forms
offer (by the league's rules: league.selectors.competitors.bot_entry_allowed).

Everything here only reads; writes go through the league's and the bots' services.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.contrib.auth.models import User as Account
from django.core.cache import cache
from django.db.models import Q, QuerySet

from bots.models import Bot, BotVersion
from engine.record import record_from_state
from engine.timeline import TIMELINE_VERSION, record_timeline
from league.models import (
    Club,
    Competitor,
    Entry,
    Match,
    MatchResult,
    MatchSeat,
    MatchStatus,
    Membership,
    RatingChange,
    SeatLog,
    Tournament,
)
from league.selectors.clubs import club_role_of
from league.selectors.competitors import bot_entry_allowed
from league.selectors.matches import match_list
from league.selectors.replays import MatchLogError, match_replay
from league.selectors.tables import clubs_with_lobby
from league.services.clubs import ORGANISING_ROLES

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
    """The public facts after each event of ``match`` (engine.timeline), from its full record.

    A running match's record is rebuilt from its stored events on the server; only public
    facts leave this function, so anyone who may watch the match may have them.
    """
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
    """One competitor's conservative rating (mu - 3 sigma) after each rated match."""

    competitor: int
    name: str
    points: list[tuple[float, float]]


def tournament_rating_series(*, tournament: Tournament) -> list[RatingSeries]:
    """Chart lines of a tournament's ratings (league.services.ratings): each entrant's
    conservative rating where it started (round 0) and after its match of each round."""
    names = dict(
        Competitor.objects.filter(entries__tournament=tournament).values_list("id", "name")
    )
    changes = (
        RatingChange.objects.filter(tournament=tournament)
        .order_by("rated_id", "competitor_id")
        .values_list(
            "competitor_id", "match__round__number", "mu_before", "sigma_before", "conservative"
        )
    )
    series: dict[int, list[tuple[float, float]]] = {}
    for competitor, round_number, mu_before, sigma_before, conservative in changes:
        if competitor not in names:
            continue
        points = series.setdefault(competitor, [(0.0, round(mu_before - 3 * sigma_before, 2))])
        points.append((float(round_number or 0), round(conservative, 2)))
    return [
        RatingSeries(competitor=c, name=names[c], points=points)
        for c, points in sorted(series.items(), key=lambda kv: names[kv[0]])
    ]


@dataclass(frozen=True)
class HeadToHeadTable:
    """Each pair of entrants' record at one table, as a square: games together and the
    row's points minus the column's as opponents."""

    names: list[str]
    cells: list[list[tuple[int, int] | None]]


HEAD_TO_HEAD_MAX = 16
"""Entrants beyond which the head-to-head square is not drawn (it grows as a square)."""


def head_to_head_table(
    *, heads: list[dict[str, Any]], order: list[int], names: dict[int, str]
) -> HeadToHeadTable | None:
    """The square of the league's head-to-head pairs
    (league.selectors.standings.tournament_standings), rows and columns in the standings'
    ``order``."""
    players = [p for p in order if any(p in h["players"] for h in heads)]
    if not 2 <= len(players) <= HEAD_TO_HEAD_MAX:
        return None
    index = {player: i for i, player in enumerate(players)}
    cells: list[list[tuple[int, int] | None]] = [[None] * len(players) for _ in players]
    for head in heads:
        a, b = (int(p) for p in head["players"])
        if a in index and b in index and head["games"]:
            cells[index[a]][index[b]] = (head["games"], head["difference"])
            cells[index[b]][index[a]] = (head["games"], -head["difference"])
    return HeadToHeadTable(names=[names.get(p, "?") for p in players], cells=cells)


def bot_versions(*, bot: Bot) -> QuerySet[BotVersion]:
    return bot.versions.order_by("-number").prefetch_related("faults")


def bots_by_whose(*, user: User) -> dict[str, QuerySet[Bot]]:
    """The bots page's lists by name: ``mine`` (the person's), ``builtin``, ``others``."""
    bots = Bot.objects.prefetch_related("families").order_by("name")
    return {
        "mine": bots.filter(owner_id=user.pk) if user.is_authenticated else bots.none(),
        "builtin": bots.filter(kind=Bot.Kind.BUILTIN),
        "others": bots.filter(kind=Bot.Kind.UPLOADED).exclude(owner_id=user.pk),
    }


def matches_of_competitors(*, competitors: Iterable[Competitor], limit: int) -> list[Match]:
    """The latest ``limit`` matches of each competitor (league.selectors.matches.match_list),
    newest first."""
    matches: list[Match] = []
    for competitor in competitors:
        matches.extend(match_list(competitor_id=competitor.pk).order_by("-id")[:limit])
    return sorted(matches, key=lambda m: -m.pk)


def seat_logs_of(
    *, competitors: Iterable[Competitor], matches: Iterable[Match]
) -> dict[int, list[int]]:
    """Match id -> the seats of ``competitors`` there whose stderr and move times were kept
    (league.models.SeatLog; their page is the bot owner's and staff's only)."""
    rows = SeatLog.objects.filter(
        competitor__in=list(competitors), match__in=list(matches)
    ).order_by("match_id", "seat")
    seats: dict[int, list[int]] = {}
    for match_id, seat in rows.values_list("match_id", "seat"):
        seats.setdefault(match_id, []).append(seat)
    return seats


def bot_competitors(*, bot: Bot) -> QuerySet[Competitor]:
    return Competitor.objects.filter(bot_version__bot=bot)


def seat_names(seats: Iterable[MatchSeat]) -> list[dict[str, Any]]:
    return [
        {
            "seat": s.seat,
            "competitor": s.competitor_id,
            "name": s.competitor.name,
            "kind": s.competitor.kind,
        }
        for s in seats
    ]


@dataclass(frozen=True)
class CompetitorLink:
    """Where a competitor's name leads: a person's profile or a bot's page."""

    username: str | None
    bot: int | None


def competitor_links(*, competitor_ids: list[int]) -> dict[int, CompetitorLink]:
    """For each competitor, the person's username or the bot's id (pages link names)."""
    return {
        pk: CompetitorLink(username=username, bot=bot)
        for pk, username, bot in Competitor.objects.filter(pk__in=competitor_ids).values_list(
            "pk", "user__username", "bot_version__bot_id"
        )
    }


@dataclass(frozen=True)
class EntryCandidates:
    """Whom a person may enter in a tournament: themself (if not entered yet) and these bot
    versions (active uploads not entered yet, by name and number)."""

    themself: bool
    versions: list[BotVersion]


def entry_candidates(*, user: User, tournament: Tournament) -> EntryCandidates:
    """Whom ``user`` may enter in ``tournament``: nobody enters another person, and a bot
    version only where ``bot_entry_allowed`` (the query only narrows the versions to ask)."""
    if not user.is_authenticated:
        return EntryCandidates(themself=False, versions=[])
    entries = Entry.objects.filter(tournament=tournament)
    askable = Q(bot__owner_id=user.pk)
    if tournament.club is not None:
        members = Membership.objects.filter(club=tournament.club).values("user_id")
        askable |= Q(bot__club_organisers_may_enter=True, bot__owner_id__in=members)
    versions = (
        BotVersion.objects.filter(
            askable, status=BotVersion.Status.ACTIVE, kind=BotVersion.Kind.UPLOADED
        )
        .exclude(pk__in=entries.values("competitor__bot_version_id"))
        .select_related("bot__owner")
        .order_by("bot__name", "number")
    )
    return EntryCandidates(
        themself=not entries.filter(competitor__user_id=user.pk).exists(),
        versions=[
            v for v in versions if bot_entry_allowed(actor=user, bot=v.bot, club=tournament.club)
        ],
    )


def table_form_choices(*, user: User) -> dict[str, Any]:
    """What the new-table form offers ``user``: their clubs (``(id, name)``), their active
    uploaded bots (``("version:ID", label)``) and the usernames of their clubs' members
    (to keep a seat for, picked from a list)."""
    if not user.is_authenticated:
        return {"clubs": [], "bots": [], "people": []}
    clubs = [(c.pk, c.name) for c in clubs_with_lobby(user=user)]
    versions = (
        BotVersion.objects.filter(
            bot__owner_id=user.pk,
            status=BotVersion.Status.ACTIVE,
            kind=BotVersion.Kind.UPLOADED,
        )
        .select_related("bot")
        .order_by("bot__name", "-number")
    )
    people = (
        Membership.objects.filter(club_id__in=[pk for pk, _name in clubs])
        .exclude(user_id=user.pk)
        .values_list("user__username", flat=True)
        .distinct()
        .order_by("user__username")
    )
    return {
        "clubs": clubs,
        "bots": [(f"version:{v.pk}", f"{v.bot.name} v{v.number}") for v in versions],
        "people": list(people),
    }
