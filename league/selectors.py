"""Reads of the league: lists, access checks and what a viewer may see of a match.

Access to a seat goes through ``match_seat_get_for_owner`` only (Zulip's access_*
functions): a seat's hand and its actions belong to the person who sits there.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.contrib.auth.models import User as Account
from django.db.models import Count, Q, QuerySet

from league.errors import NotAllowedError, NotFoundError
from league.models import (
    Club,
    Match,
    MatchSeat,
    MatchStatus,
    Membership,
    Round,
    Tournament,
)

User = Account | AnonymousUser


def club_role_of(*, user: User, club: Club) -> str | None:
    if not user.is_authenticated:
        return None
    return (
        Membership.objects.filter(club=club, user_id=user.pk).values_list("role", flat=True).first()
    )


def club_list() -> QuerySet[Club]:
    return Club.objects.annotate(member_count=Count("memberships")).order_by("name")


def club_get(*, club_id: int) -> Club:
    club = club_list().filter(pk=club_id).first()
    if club is None:
        raise NotFoundError(f"no club {club_id}")
    return club


def tournament_get(*, tournament_id: int) -> Tournament:
    tournament = Tournament.objects.select_related("club").filter(pk=tournament_id).first()
    if tournament is None:
        raise NotFoundError(f"no tournament {tournament_id}")
    return tournament


def tournament_list(*, club_id: int | None = None) -> QuerySet[Tournament]:
    tournaments = Tournament.objects.select_related("club").annotate(
        entrant_count=Count("entries", distinct=True)
    )
    if club_id is not None:
        tournaments = tournaments.filter(club_id=club_id)
    return tournaments.order_by("-created_at", "-id")


def round_list(*, tournament_id: int | None = None) -> QuerySet[Round]:
    rounds = Round.objects.annotate(
        match_count=Count("matches"),
        finished_count=Count("matches", filter=Q(matches__status=MatchStatus.FINISHED)),
    )
    if tournament_id is not None:
        rounds = rounds.filter(tournament_id=tournament_id)
    return rounds.order_by("tournament_id", "number")


def match_list(
    *,
    tournament_id: int | None = None,
    round_number: int | None = None,
    competitor_id: int | None = None,
    status: str | None = None,
) -> QuerySet[Match]:
    matches = Match.objects.select_related("round", "result").prefetch_related("seats__competitor")
    if tournament_id is not None:
        matches = matches.filter(tournament_id=tournament_id)
    if round_number is not None:
        matches = matches.filter(round__number=round_number)
    if competitor_id is not None:
        matches = matches.filter(seats__competitor_id=competitor_id).distinct()
    if status is not None:
        matches = matches.filter(status=status)
    return matches.order_by("id")


def match_get(*, match_id: int) -> Match:
    match = match_list().filter(pk=match_id).first()
    if match is None:
        raise NotFoundError(f"no match {match_id}")
    return match


def match_seat_of_viewer(*, match: Match, user: User) -> int | None:
    """The seat that ``user`` holds in ``match`` as a person, if any (the first one)."""
    if not user.is_authenticated:
        return None
    seats = sorted(s.seat for s in match.seats.all() if s.competitor.user_id == user.pk)
    return seats[0] if seats else None


def match_seat_get_for_owner(*, match: Match, seat: int, user: User) -> MatchSeat:
    """The seat, if ``user`` is the person who sits there; NotAllowedError otherwise."""
    found = next((s for s in match.seats.all() if s.seat == seat), None)
    if found is None:
        raise NotFoundError(f"match {match.pk} has no seat {seat}")
    if not user.is_authenticated:
        raise NotAllowedError(f"log in as the player of seat {seat}")
    if found.competitor.user_id is None:
        raise NotAllowedError(f"seat {seat} is played by a bot; nobody acts for it")
    if found.competitor.user_id != user.pk:
        raise NotAllowedError(f"seat {seat} belongs to another player")
    return found


def tournament_progress(*, tournament_id: int) -> dict[str, int]:
    counts = Match.objects.filter(tournament_id=tournament_id).aggregate(
        total=Count("id"), finished=Count("id", filter=Q(status=MatchStatus.FINISHED))
    )
    return {"finished": counts["finished"] or 0, "total": counts["total"] or 0}


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


def tournament_standings(*, tournament: Tournament) -> dict[str, Any]:
    """The standings of a tournament from its stored results (league/standings.py):
    games, total, average, wins, per-round points, strength of opposition, duplicate
    matchpoints and percentage, and for each ranked row whether its lead over the next
    is statistically meaningful (``next_gap``). Entrants without a game are listed last,
    unranked; filler bots are not entrants and are not listed.

    Every game is ranked as individual play: a Priffe match rotates partners between its
    rubbers itself, so its seats are not fixed partnerships.
    """
    from league.models import Entry, MatchResult
    from league.scheduling.model import SEATS, Mode, PlayerId
    from league.standings import MatchResult as StandingsResult
    from league.standings import RankBy, StandingsRules, compute_standings

    names = dict(
        Entry.objects.filter(tournament=tournament).values_list("competitor_id", "competitor__name")
    )
    duplicate = tournament.format == "duplicate"
    results = []
    for match_id, standings_input in MatchResult.objects.filter(
        match__tournament=tournament
    ).values_list("match_id", "standings_input"):
        seats = sorted(standings_input["seats"], key=lambda s: s["seat"])
        if len(seats) != SEATS:
            continue
        results.append(
            StandingsResult(
                match_id=match_id,
                round_number=standings_input["round"],
                seats=tuple(
                    PlayerId(s["competitor"]) if s["competitor"] in names else None for s in seats
                ),
                scores=tuple(s["score"] for s in seats),
                board=standings_input["round"] if duplicate else None,
            )
        )
    rules = StandingsRules(
        mode=Mode.SOLO, rank_by=RankBy.PERCENTAGE if duplicate else RankBy.AVERAGE
    )
    standings = compute_standings(results, rules)
    rows: list[dict[str, Any]] = []
    for row in standings.rows:
        gap = row.next_gap
        rows.append(
            {
                "rank": row.rank,
                "competitor": int(row.player),
                "name": names.get(int(row.player), "?"),
                "games": row.games,
                "total": row.total,
                "average": round(row.average, 3),
                "wins": row.wins,
                "per_round": [{"round": r, "points": p} for r, p in row.per_round],
                "opposition": round(row.opposition, 3),
                "matchpoints": row.matchpoints,
                "percentage": None if row.percentage is None else round(row.percentage, 2),
                "next_gap": None
                if gap is None
                else {
                    "difference": round(gap.difference, 3),
                    "low": None if gap.low is None else round(gap.low, 3),
                    "high": None if gap.high is None else round(gap.high, 3),
                    "p_value": None if gap.p_value is None else round(gap.p_value, 4),
                    "significant": gap.significant,
                },
            }
        )
    listed = {r["competitor"] for r in rows}
    for competitor, name in sorted(names.items(), key=lambda item: (item[1], item[0])):
        if competitor not in listed:
            rows.append(
                {
                    "rank": None,
                    "competitor": competitor,
                    "name": name,
                    "games": 0,
                    "total": 0,
                    "average": 0.0,
                    "wins": 0,
                    "per_round": [],
                    "opposition": 0.0,
                    "matchpoints": None,
                    "percentage": None,
                    "next_gap": None,
                }
            )
    progress = tournament_progress(tournament_id=tournament.pk)
    return {"tournament": tournament.pk, **progress, "rows": rows}


def match_record(*, match: Match, viewer_seat: int | None) -> dict[str, Any]:
    """The game record of a match (docs/record-format.md). Finished: the whole record.
    Otherwise rebuilt from the stored events and redacted for ``viewer_seat`` (a seat's
    own cards only; None: no hidden card at all), without the seed, which decides every
    deal."""
    from engine.record import record_from_state, redact_record
    from league.services.matches import match_replay

    result = getattr(match, "result", None)
    if match.status == MatchStatus.FINISHED and result is not None:
        return dict(result.record)
    replay = match_replay(match)
    seats = [{"name": s.competitor.name, "competitor": s.competitor_id} for s in match.seats.all()]
    record = record_from_state(
        replay.state,
        seats=seats,
        times=replay.times,
        meta={"match": match.pk, "tournament": match.tournament_id, "status": match.status},
    )
    record.pop("seed", None)
    return redact_record(record, viewer_seat)
