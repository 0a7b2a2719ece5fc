"""What a person is told about their games (docs/web.md, *Notifications*): a game awaits
your move, a deadline is near, a move was played for you on timeout, a round started, a
league finished. Each function writes its notice through ``notify`` in the caller's
transaction, keyed so that a retried task or two sweeps at once tell it once.

Deadlines are written as dates and times (UTC), never as seconds. In a live game (seconds
per move) the player is at the table: the notices about each move stay in the site and are
not mailed, apart from the first your-move notice of a match and a forfeit.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from django.db.models import Q
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext

from engine.variants import load_game
from league.display_settings import language_of, person_zone, time_zone_of
from league.live_updates import person_updated
from league.models import (
    Match,
    MatchSeat,
    Notification,
    NotificationKind,
    Round,
    TimeControl,
    Tournament,
    TournamentFormat,
)
from league.services.notifications import email_wanted, notify
from league.services.task_outbox import task_enqueue
from league.task_names import NOTIFICATION_EMAIL_SEND
from league.words.games_and_times import moment_words, move_time_words
from league.words.table_notices import action_in_words

DEADLINE_NEAR_FRACTION = 0.2
"""A deadline is near when a fifth of the move time (``Tournament.move_seconds``) is left."""


def match_in_words(match: Match) -> str:
    """``Kingen in Spring league, round 2, table 3`` (a casual table: ``Kingen at table 12``)."""
    game = gettext(load_game(match.game).display_name)
    tournament = match.tournament
    if tournament.format == TournamentFormat.TABLE:
        return gettext("%(game)s at table %(table)s") % {"game": game, "table": match.pk}
    return gettext("%(game)s in %(league)s, round %(round)s, table %(table)s") % {
        "game": game,
        "league": tournament.name,
        "round": match.round.number,
        "table": match.table,
    }


def is_live(tournament: Tournament) -> bool:
    return tournament.time_control == TimeControl.LIVE


def _deadline(moment: datetime, user_id: int) -> str:
    """A deadline as the person reads it: in their time zone and the active language."""
    return moment_words(moment, person_zone(time_zone_of(user_id=user_id)))


def table_url(match: Match, seat: int) -> str:
    return reverse("web:table", args=[match.pk, seat])


def your_move_notify(
    *, match: Match, user_id: int, seat: int, decision: int, deadline: datetime, now: datetime
) -> None:
    """A game awaits the person's move ``decision`` (the index of the event to come).

    One unread your-move notice per match is enough: while one is unread (the person did
    not move, and a move was played for them at the deadline), it is brought up to date
    with the new deadline instead of a second one, and mailed again in a correspondence
    game. A correspondence game tells each move (the person's own move marks the notice
    read); a live game tells the first one only, by mail too, the person being at the
    table afterwards."""
    live = is_live(match.tournament)
    key = f"your_move:{match.pk}" if live else f"your_move:{match.pk}:{decision}"
    if live and _told_and_read(user_id=user_id, key=key):
        # The common case at a live table, in the move's transaction: the first notice
        # was read (the person has moved since), so nothing is worded or written.
        return
    with translation.override(language_of(user_id=user_id)):
        text = gettext("Your move in %(match)s: play by %(deadline)s.") % {
            "match": match_in_words(match),
            "deadline": _deadline(deadline, user_id),
        }
    url = table_url(match, seat)
    unread = Notification.objects.filter(
        user_id=user_id, match_id=match.pk, kind=NotificationKind.YOUR_MOVE, read_at__isnull=True
    ).first()
    if unread is not None:  # not answered: their last move was played for them
        if unread.text != text:
            unread.text, unread.url, unread.created_at = text[:400], url, now
            fields = ["text", "url", "created_at"]
            if not live and email_wanted(user_id=user_id, kind=NotificationKind.YOUR_MOVE):
                unread.email_due, unread.emailed_at = True, None  # the new deadline, by mail
                fields += ["email_due", "emailed_at"]
                task_enqueue(NOTIFICATION_EMAIL_SEND, unread.pk)
            unread.save(update_fields=fields)
            person_updated(user_id)
        return
    notify(
        user=user_id,
        kind=NotificationKind.YOUR_MOVE,
        key=key,
        text=text,
        url=url,
        match=match,
    )


def _told_and_read(*, user_id: int, key: str) -> bool:
    """Whether the person has the notice ``key`` and has read it: one query."""
    read_at = Notification.objects.filter(user_id=user_id, key=key).values_list("read_at")[:1]
    return any(moment is not None for (moment,) in read_at)


def deadline_near(*, deadline: datetime, move_seconds: float, now: datetime) -> bool:
    """Whether a deadline still to come is near: a fifth of the move time or less left."""
    left = (deadline - now).total_seconds()
    return 0 < left <= move_seconds * DEADLINE_NEAR_FRACTION


def deadline_near_notify(
    *, match: Match, user_id: int, seat: int, decision: int, deadline: datetime
) -> bool:
    """The person's deadline for move ``decision`` is near (once per move); not mailed in a
    live game. True if the notice is new."""
    with translation.override(language_of(user_id=user_id)):
        text = gettext(
            "Your deadline in %(match)s is near: play by %(deadline)s, or the first legal "
            "move is played for you."
        ) % {"match": match_in_words(match), "deadline": _deadline(deadline, user_id)}
    return (
        notify(
            user=user_id,
            kind=NotificationKind.DEADLINE_NEAR,
            key=f"deadline_near:{match.pk}:{decision}",
            text=text,
            url=table_url(match, seat),
            match=match,
            email=not is_live(match.tournament),
        )
        is not None
    )


def moved_for_you_notify(
    *,
    match: Match,
    user_id: int,
    seat: int,
    index: int,
    action: int,
    deadline: datetime,
    strikes: int,
    max_strikes: int,
    forfeit: bool,
) -> None:
    """The deadline of move ``index`` passed and ``action`` was played for the person: the
    action with the game's plain label, the strikes so far, and the forfeit if it is one."""
    game = load_game(match.game)
    with translation.override(language_of(user_id=user_id)):
        played = action_in_words(game.action_to_string(action))
        text = gettext(
            "No move from you in %(match)s by %(deadline)s: %(played)s was played for you. "
            "Missed deadlines: %(strikes)s of %(max_strikes)s."
        ) % {
            "match": match_in_words(match),
            "deadline": _deadline(deadline, user_id),
            "played": played,
            "strikes": strikes,
            "max_strikes": max_strikes,
        }
        if forfeit:
            text += " " + gettext(
                "Your seat is forfeited: a bot plays it for the rest of the match."
            )
    notify(
        user=user_id,
        kind=NotificationKind.MOVED_FOR_YOU,
        key=f"moved_for_you:{match.pk}:{index}",
        text=text,
        url=table_url(match, seat) if not forfeit else reverse("web:match", args=[match.pk]),
        match=match,
        email=forfeit or not is_live(match.tournament),
    )


def _names(seats: Sequence[MatchSeat], but: int) -> str:
    others = [row.competitor.name for row in seats if row.seat != but]
    if len(others) <= 1:
        return "".join(others)
    return gettext("%(some)s and %(last)s") % {"some": ", ".join(others[:-1]), "last": others[-1]}


def round_started_notify(*, round_: Round, matches: Iterable[Match]) -> int:
    """Tell every person seated in the round's matches where they play; how many were
    told. Not for a casual table (its host opened it, its guests accepted a seat)."""
    tournament = round_.tournament
    if tournament.format == TournamentFormat.TABLE:
        return 0
    told = 0
    by_match: dict[int, list[MatchSeat]] = {}
    seats = MatchSeat.objects.filter(match__in=[m.pk for m in matches]).select_related("competitor")
    for row in seats.order_by("match_id", "seat"):
        by_match.setdefault(row.match_id, []).append(row)
    for match in matches:
        for row in by_match.get(match.pk, []):
            if row.competitor.user_id is None:
                continue
            with translation.override(language_of(user_id=row.competitor.user_id)):
                text = gettext(
                    "Round %(round)s of %(league)s started: you play %(game)s at table "
                    "%(table)s with %(others)s (%(per_move)s)."
                ) % {
                    "round": round_.number,
                    "league": tournament.name,
                    "game": gettext(load_game(match.game).display_name),
                    "table": match.table,
                    "others": _names(by_match[match.pk], row.seat),
                    "per_move": (
                        gettext("at the club, with real cards")
                        if tournament.at_club
                        else move_time_words(tournament.move_seconds)
                    ),
                }
                if round_.play_by:
                    text += " " + gettext("Play by %(deadline)s.") % {
                        "deadline": _deadline(round_.play_by, row.competitor.user_id)
                    }
            told += (
                notify(
                    user=row.competitor.user_id,
                    kind=NotificationKind.ROUND_STARTED,
                    key=f"round_started:{round_.pk}",
                    text=text,
                    url=f"/matches/{match.pk}/"
                    if tournament.at_club
                    else table_url(match, row.seat),
                    match=match,
                )
                is not None
            )
    return told


def league_finished_notify(*, tournament: Tournament, rows: Sequence[dict[str, Any]]) -> int:
    """Tell the league's entrants who are people that it finished, with their place in
    ``rows`` (the standings' rows) when they have one; how many were told."""
    places = {
        int(row["competitor"]): int(row["rank"])
        for row in rows
        if row.get("rank") is not None  # unranked: no game yet, or below min_games
    }
    told = 0
    entrants = tournament.entries.filter(Q(competitor__user__isnull=False)).values_list(
        "competitor_id", "competitor__user_id"
    )
    for competitor_id, user_id in entrants:
        place = places.get(competitor_id)
        with translation.override(language_of(user_id=user_id)):
            if place:
                text = gettext("%(league)s finished: you placed %(place)s of %(count)s.") % {
                    "league": tournament.name,
                    "place": place,
                    "count": len(rows),
                }
            else:
                text = gettext("%(league)s finished.") % {"league": tournament.name}
        told += (
            notify(
                user=user_id,
                kind=NotificationKind.LEAGUE_FINISHED,
                key=f"league_finished:{tournament.pk}",
                text=text,
                url=reverse("web:league", args=[tournament.pk]),
            )
            is not None
        )
    return told
