"""Reads of what awaits a person (docs/web.md, *My games*): the games where it is their
move (soonest deadline first), the games waiting to start (tables where they sit or are
invited), their games in progress and their finished games, and the navigation bar's
counts. Only the person's own seats are read: nothing here names another person's games
or shows a hidden card (a game is described by its public facts).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import F, Q, QuerySet
from django.urls import reverse

from engine.variants import load_game
from league.models import (
    Match,
    MatchResult,
    MatchSeat,
    MatchStatus,
    Notification,
    SeatInvitation,
    TournamentFormat,
)
from league.selectors.person_names import person_name

FINISHED_SHOWN = 30
"""How many finished games the list shows by default (the newest)."""

Person = AbstractBaseUser | AnonymousUser


def _person_id(user: Person) -> int | None:
    return int(user.pk) if user.is_authenticated else None


def your_move_seats(*, user_id: int) -> QuerySet[MatchSeat]:
    """The person's seats where the game waits for their move, soonest deadline first."""
    return (
        MatchSeat.objects.filter(
            competitor__user_id=user_id,
            replaced=False,
            match__status=MatchStatus.RUNNING,
            match__waiting_seat=F("seat"),
        )
        .select_related("match__tournament", "match__round")
        .order_by(F("match__deadline").asc(nulls_last=True), "match_id")
    )


def person_counts(*, user: Person) -> dict[str, int]:
    """The navigation bar's counts: unread notices, and games where it is the person's move."""
    user_id = _person_id(user)
    if user_id is None:
        return {"unread": 0, "your_move": 0}
    return {
        "unread": Notification.objects.filter(user_id=user_id, read_at__isnull=True).count(),
        "your_move": your_move_seats(user_id=user_id).count(),
    }


def _game_name(game: str, names: dict[str, str]) -> str:
    if game not in names:
        names[game] = load_game(game).display_name
    return names[game]


def _item(
    match: Match,
    seat: int,
    *,
    opponents: dict[int, list[tuple[int, str]]],
    names: dict[str, str],
) -> dict[str, Any]:
    """One game as the lists show it: public facts only."""
    tournament = match.tournament
    casual = tournament.format == TournamentFormat.TABLE
    return {
        "match": match.pk,
        "seat": seat,
        "game": match.game,
        "game_name": _game_name(match.game, names),
        "casual": casual,
        "tournament": tournament.pk,
        "tournament_name": tournament.name,
        "time_control": tournament.time_control,
        "round": match.round.number,
        "table": match.table,
        "status": match.status,
        "deadline": None,
        "others": [name for other, name in opponents.get(match.pk, []) if other != seat],
        "url": reverse("web:table", args=[match.pk, seat]),
        "replay_url": reverse("web:match", args=[match.pk]),
        "league_url": "" if casual else reverse("web:league", args=[tournament.pk]),
    }


def _others(match_ids: Iterable[int]) -> dict[int, list[tuple[int, str]]]:
    seated: dict[int, list[tuple[int, str]]] = {}
    rows = (
        MatchSeat.objects.filter(match_id__in=list(match_ids))
        .order_by("match_id", "seat")
        .values_list("match_id", "seat", "competitor__name")
    )
    for match_id, seat, name in rows:
        seated.setdefault(match_id, []).append((seat, name))
    return seated


def my_games(
    *, user: Person, finished_limit: int = FINISHED_SHOWN
) -> dict[str, list[dict[str, Any]]]:
    """The person's games in four lists: ``your_move`` (running, their move: soonest
    deadline first), ``waiting`` (tables not yet started where they sit, and seats they
    are invited to take), ``in_progress`` (the others still being played, newest first)
    and ``finished`` (newest first, at most ``finished_limit``: score and outcome, a
    link to the replay). Empty lists for someone not signed in."""
    empty: dict[str, list[dict[str, Any]]] = {
        "your_move": [],
        "waiting": [],
        "in_progress": [],
        "finished": [],
    }
    user_id = _person_id(user)
    if user_id is None:
        return empty
    mine = MatchSeat.objects.filter(competitor__user_id=user_id).select_related(
        "match__tournament", "match__round"
    )
    current = list(
        mine.filter(
            match__status__in=[MatchStatus.WAITING, MatchStatus.QUEUED, MatchStatus.RUNNING]
        ).order_by("-match_id")
    )
    finished = list(
        mine.filter(match__status__in=[MatchStatus.FINISHED, MatchStatus.ERROR]).order_by(
            F("match__finished_at").desc(nulls_last=True), "-match_id"
        )[:finished_limit]
    )
    invitations = list(
        SeatInvitation.objects.filter(
            invitee_id=user_id,
            accepted_at__isnull=True,
            declined_at__isnull=True,
            cancelled_at__isnull=True,
            match__status=MatchStatus.WAITING,
        )
        .select_related("match__tournament", "match__round", "created_by__account_settings")
        .order_by("-created_at")
    )
    match_ids = {row.match_id for row in current + finished} | {i.match_id for i in invitations}
    others = _others(match_ids)
    names: dict[str, str] = {}
    lists = empty
    for row in current:
        match = row.match
        item = _item(match, row.seat, opponents=others, names=names)
        if match.status == MatchStatus.WAITING:
            lists["waiting"].append({**item, "invited": False})
        elif (
            match.status == MatchStatus.RUNNING
            and match.waiting_seat == row.seat
            and not row.replaced
        ):
            item["deadline"] = match.deadline
            lists["your_move"].append(item)
        else:
            item["replaced"] = row.replaced
            lists["in_progress"].append(item)
    lists["your_move"].sort(
        key=lambda item: (
            item["deadline"] is None,
            item["deadline"].timestamp() if item["deadline"] is not None else 0.0,
            item["match"],
        )
    )
    for invitation in invitations:
        item = _item(invitation.match, invitation.seat, opponents=others, names=names)
        item.update(
            invited=True,
            invitation=invitation.code,
            invited_by=person_name(invitation.created_by),
            url=reverse("web:table-invitation", args=[invitation.code]),
        )
        lists["waiting"].append(item)
    scores = dict(
        MatchResult.objects.filter(match_id__in=[row.match_id for row in finished]).values_list(
            "match_id", "scores"
        )
    )
    for row in finished:
        item = _item(row.match, row.seat, opponents=others, names=names)
        match_scores = scores.get(row.match_id)
        item.update(
            url=item["replay_url"],
            score=None if match_scores is None else match_scores[row.seat],
            outcome=row.outcome,
            finished_at=row.match.finished_at,
        )
        lists["finished"].append(item)
    return lists


def next_game_for(*, user: Person, after: int | None = None) -> dict[str, Any] | None:
    """The game where it is the person's move with the soonest deadline (not match
    ``after``, the one they are at): its match, seat, deadline and table URL; None when
    no game awaits them."""
    user_id = _person_id(user)
    if user_id is None:
        return None
    seats = your_move_seats(user_id=user_id)
    if after is not None:
        seats = seats.filter(~Q(match_id=after))
    row = seats.first()
    if row is None:
        return None
    return {
        "match": row.match_id,
        "seat": row.seat,
        "deadline": row.match.deadline,
        "game_name": load_game(row.match.game).display_name,
        "url": reverse("web:table", args=[row.match_id, row.seat]),
    }
