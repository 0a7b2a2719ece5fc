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
    Competitor,
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


def competitor_of_user(*, user: User) -> Competitor | None:
    if not user.is_authenticated:
        return None
    return Competitor.objects.filter(user_id=user.pk).first()


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
    """Standings from the stored results' standings input: games, total, average and
    wins (a table's top score; shared on a tie) per entrant, ranked by average, then
    total. The seam for league/standings.py (issue 9), which brings tie-breaks,
    partnerships, duplicate scoring and confidence."""
    from league.models import Entry, MatchResult

    entrants = list(
        Entry.objects.filter(tournament=tournament).select_related("competitor").order_by("id")
    )
    sheet: dict[int, dict[str, Any]] = {
        e.competitor_id: {
            "competitor": e.competitor_id,
            "name": e.competitor.name,
            "games": 0,
            "total": 0,
            "wins": 0.0,
        }
        for e in entrants
    }
    for standings_input in MatchResult.objects.filter(match__tournament=tournament).values_list(
        "standings_input", flat=True
    ):
        seats = standings_input["seats"]
        top = max(s["score"] for s in seats)
        winners = [s for s in seats if s["score"] == top]
        for s in seats:
            row = sheet.get(s["competitor"])
            if row is None:  # a filler bot, not an entrant
                continue
            row["games"] += 1
            row["total"] += s["score"]
            if s in winners:
                row["wins"] += 1 / len(winners)
    rows = list(sheet.values())
    for row in rows:
        row["average"] = round(row["total"] / row["games"], 3) if row["games"] else 0.0
        row["wins"] = round(row["wins"], 3)
    rows.sort(key=lambda r: (r["games"] == 0, -r["average"], -r["total"], r["name"]))
    rank = 0
    for position, row in enumerate(rows, start=1):
        if row["games"] == 0:
            row["rank"] = None
            continue
        previous = rows[position - 2] if position > 1 else None
        if previous is None or (previous["average"], previous["total"]) != (
            row["average"],
            row["total"],
        ):
            rank = position
        row["rank"] = rank
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
