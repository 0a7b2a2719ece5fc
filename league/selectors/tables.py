"""The reads of tables (docs/league.md, *Tables*): a table with its seats and invitations,
the invitations waiting for a person, the lobby's lists (tables waiting for players, games
being played, games just finished), what the person at a seat sees (``seat_view``) and a
table's chat (``chat_messages``). The pages and the API show them (docs/api.md, *Playing at
a table*).

Who sees what: a table in a club is listed for the club's members only (the site-wide
lobby shows the tables of no club and those of the clubs you belong to); a table's
invitation codes are its host's (to hand on) and each reserved seat's code is also its
invitee's. Everything else about a table is as public as its match.

What a seat sees is re-derived on every read from the database: whose turn it is, the
match's phase, the moves played for the person when a deadline passed. A page that
reloads, or reconnects after a network drop, asks again and is back exactly where it was.
``position`` (the events of the game so far) only grows, so a page that gets two answers
out of order keeps the later game.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.contrib.auth.models import User as Account
from django.db.models import Prefetch, Q, QuerySet
from django.utils.translation import gettext as _

from engine.variants import load_game
from league.domain.table_phase import TablePhase, action_labels, moves_played_for, seat_turn
from league.errors import NotAllowedError, NotFoundError
from league.models import (
    PERSON_MAX_STRIKES,
    ChatMessage,
    Club,
    Match,
    MatchSeat,
    MatchStatus,
    Membership,
    SeatInvitation,
    TournamentFormat,
)
from league.selectors.matches import match_error_for
from league.selectors.person_names import person_name
from league.selectors.replays import match_state_read
from league.words.games_and_times import time_control_in_english as time_control_words
from league.words.table_notices import moved_for_you_words

User = Account | AnonymousUser

LOBBY_LIST_LENGTH = 20
"""How many games each of the lobby's lists of games shows (the newest)."""


def _tables() -> QuerySet[Match]:
    seats = MatchSeat.objects.select_related("competitor").order_by("seat")
    invitations = SeatInvitation.objects.select_related(
        "invitee__account_settings", "accepted_by"
    ).order_by("seat", "id")
    return (
        Match.objects.filter(tournament__format=TournamentFormat.TABLE)
        .select_related("tournament__club", "tournament__created_by__account_settings", "result")
        .prefetch_related(
            Prefetch("seats", queryset=seats), Prefetch("seat_invitations", queryset=invitations)
        )
    )


def table_get(*, match_id: int) -> Match:
    """A table's match with its tournament, club, host, seats and invitations loaded."""
    match = _tables().filter(pk=match_id).first()
    if match is None:
        raise NotFoundError(_("no table %(match_id)s") % {"match_id": match_id})
    return match


def _club_ids_of(user: User) -> set[int]:
    if not user.is_authenticated:
        return set()
    return set(Membership.objects.filter(user_id=user.pk).values_list("club_id", flat=True))


def _pending(invitations: Iterable[SeatInvitation]) -> list[SeatInvitation]:
    return [i for i in invitations if i.pending]


def table_summary(*, match: Match, user: User, club_ids: set[int] | None = None) -> dict[str, Any]:
    """A table as the lobby lists it: its game for people, time control, host, club, how
    many seats are taken and open, and whether ``user`` may join it (take an open seat)."""
    tournament = match.tournament
    loaded = load_game(match.game)
    seats = list(match.seats.all())
    invitations = list(match.seat_invitations.all())
    pending = _pending(invitations)
    open_seats = sorted(i.seat for i in pending if i.invitee_id is None)
    seated = {s.competitor.user_id for s in seats if s.competitor.user_id is not None}
    if club_ids is None:
        club_ids = _club_ids_of(user)
    invited_here = user.is_authenticated and any(i.invitee_id == user.pk for i in pending)
    can_join = (
        match.status == MatchStatus.WAITING
        and bool(open_seats)
        and user.is_authenticated
        and user.pk not in seated
        and not invited_here
        and (tournament.club_id is None or tournament.club_id in club_ids)
    )
    host = tournament.created_by
    return {
        "id": match.pk,
        "game": match.game,
        "game_name": loaded.display_name,
        "status": match.status,
        "host": tournament.created_by_id,
        "host_username": host.get_username() if host is not None else None,
        "host_name": person_name(host) if host is not None else None,
        "club": tournament.club_id,
        "club_name": tournament.club.name if tournament.club is not None else None,
        "time_control": tournament.time_control,
        "move_seconds": tournament.move_seconds,
        "time_bank_seconds": tournament.time_bank_seconds,
        "time_words": time_control_words(
            time_control=tournament.time_control,
            move_seconds=tournament.move_seconds,
            time_bank_seconds=tournament.time_bank_seconds,
        ),
        "players": len(loaded.player_seats),
        "seats_taken": sum(1 for s in seats if s.seat != loaded.dummy_seat),
        "open_seats": open_seats,
        "players_seated": [s.competitor.name for s in seats if s.competitor.user_id is not None],
        "can_join": can_join,
        "created_at": match.created_at,
    }


def table_seats(*, match: Match, user: User) -> list[dict[str, Any]]:
    """Every seat of a table: ``taken`` (who sits there), ``open`` (anyone may take it),
    ``reserved`` (kept for a person, waiting for their answer), ``empty`` (declined or
    withdrawn: the host opens it, invites someone or gives it to a bot) or ``dummy``
    (nobody sits there). ``code`` is the seat's invitation code for those who may hand it
    on or use it: the host, and a reserved seat's invitee."""
    loaded = load_game(match.game)
    host_id = match.tournament.created_by_id
    is_host = user.is_authenticated and user.pk == host_id
    taken = {s.seat: s for s in match.seats.all()}
    invitations = list(match.seat_invitations.all())
    rows = []
    for seat in range(loaded.num_seats):
        mine = [i for i in invitations if i.seat == seat]
        pending = next((i for i in mine if i.pending), None)
        last = mine[-1] if mine else None
        row: dict[str, Any] = {
            "seat": seat,
            "state": "empty",
            "competitor": None,
            "name": None,
            "kind": None,
            "invitee": None,
            "invitee_username": None,
            "invitee_name": None,
            "code": None,
            "declined_by": None,
        }
        if seat in taken:
            competitor = taken[seat].competitor
            row |= {
                "state": "dummy" if seat == loaded.dummy_seat else "taken",
                "competitor": competitor.pk,
                "name": competitor.name,
                "kind": competitor.kind,
            }
        elif pending is not None:
            invitee = pending.invitee
            yours = invitee is not None and user.is_authenticated and invitee.pk == user.pk
            row |= {
                "state": "open" if invitee is None else "reserved",
                "invitee": pending.invitee_id,
                "invitee_username": invitee.get_username() if invitee is not None else None,
                "invitee_name": person_name(invitee) if invitee is not None else None,
                "code": pending.code if is_host or yours else None,
            }
        elif is_host and last is not None and last.declined_at is not None:
            assert last.invitee is not None  # only a reserved seat is declined
            row["declined_by"] = person_name(last.invitee)
        rows.append(row)
    return rows


def table_detail(*, match: Match, user: User) -> dict[str, Any]:
    """A table for its page and ``GET /api/tables/{id}/``: the summary, every seat, and
    ``user``'s place at it (their seat, the code of a seat kept for them, whether they
    host it)."""
    summary = table_summary(match=match, user=user)
    seats = table_seats(match=match, user=user)
    your_seat = next(
        (
            s.seat
            for s in match.seats.all()
            if user.is_authenticated and s.competitor.user_id == user.pk
        ),
        None,
    )
    invited = next(
        (
            i
            for i in _pending(match.seat_invitations.all())
            if user.is_authenticated and i.invitee_id == user.pk
        ),
        None,
    )
    return summary | {
        "seat_list": seats,
        "is_host": user.is_authenticated and user.pk == match.tournament.created_by_id,
        "your_seat": your_seat,
        "your_invitation": invited.code if invited is not None else None,
        "cancelled": match.status == MatchStatus.ERROR and match.started_at is None,
    }


def seat_invitation_get(*, code: str) -> SeatInvitation:
    """The invitation of a link, with its table (its match, tournament, club and host)."""
    invitation = (
        SeatInvitation.objects.select_related(
            "match__tournament__club", "match__tournament__created_by__account_settings", "invitee"
        )
        .filter(code=code)
        .first()
    )
    if invitation is None:
        raise NotFoundError(_("no such table invitation (the link may be mistyped)"))
    return invitation


def seat_invitations_pending_for(*, user: User) -> list[SeatInvitation]:
    """The seats kept for ``user`` at tables still waiting for their answer."""
    if not user.is_authenticated:
        return []
    return list(
        SeatInvitation.objects.filter(
            invitee_id=user.pk,
            accepted_at=None,
            declined_at=None,
            cancelled_at=None,
            match__status=MatchStatus.WAITING,
        )
        .select_related(
            "match__tournament__created_by__account_settings", "match__tournament__club"
        )
        .order_by("-created_at", "-id")
    )


def _visible(matches: QuerySet[Match], *, club: Club | None, club_ids: set[int]) -> Any:
    """Tables of no club and of the clubs the person belongs to (``club``: that club's)."""
    if club is not None:
        return matches.filter(tournament__club=club)
    return matches.filter(Q(tournament__club__isnull=True) | Q(tournament__club_id__in=club_ids))


def _game_row(match: Match) -> dict[str, Any]:
    tournament = match.tournament
    result = getattr(match, "result", None) if match.status == MatchStatus.FINISHED else None
    seats = list(match.seats.all())
    return {
        "id": match.pk,
        "game": match.game,
        "game_name": load_game(match.game).display_name,
        "tournament": tournament.pk,
        "tournament_name": tournament.name,
        "table": tournament.format == TournamentFormat.TABLE,
        "club_name": tournament.club.name if tournament.club is not None else None,
        "status": match.status,
        "players": [s.competitor.name for s in seats],
        "scores": list(result.scores) if result is not None else None,
        "started_at": match.started_at,
        "finished_at": match.finished_at,
    }


def lobby(*, user: User, club: Club | None = None) -> dict[str, Any]:
    """The lobby: ``open_tables`` (waiting, with a seat anyone may take), ``your_tables``
    (waiting tables you host, sit at or are invited to), ``playing`` (games being played,
    tables and league matches alike, to watch) and ``finished`` (the latest games), newest
    first. ``club``: that club's lobby, for its members only (NotAllowedError otherwise);
    the site-wide lobby lists the tables of no club and of the clubs you belong to.

    A table is in one list only: a table of yours is not among the open ones. For the
    lobby page, ``kept_for_you`` (the pending invitations to you, with their links) and
    ``hosted_or_seated`` (your tables but those, which the invitations list already)."""
    club_ids = _club_ids_of(user)
    if club is not None and club.pk not in club_ids:
        raise NotAllowedError(
            _("the lobby of %(repr)s is for its members: join the club") % {"repr": repr(club.name)}
        )
    tables = _visible(_tables(), club=club, club_ids=club_ids)
    waiting = tables.filter(status=MatchStatus.WAITING).order_by("-created_at", "-id")
    yours: list[Match] = []
    if user.is_authenticated:
        involved = _tables() if club is None else tables  # invited to a club's table too
        yours = list(
            involved.filter(status=MatchStatus.WAITING)
            .order_by("-created_at", "-id")
            .filter(
                Q(tournament__created_by_id=user.pk)
                | Q(seats__competitor__user_id=user.pk)
                | Q(
                    seat_invitations__invitee_id=user.pk,
                    seat_invitations__accepted_at__isnull=True,
                    seat_invitations__declined_at__isnull=True,
                    seat_invitations__cancelled_at__isnull=True,
                )
            )
            .distinct()[:LOBBY_LIST_LENGTH]
        )
    # A table is listed once: yours (hosted, sat at or kept for you) are not open tables too.
    open_tables = (
        waiting.filter(
            seat_invitations__invitee__isnull=True,
            seat_invitations__accepted_at__isnull=True,
            seat_invitations__declined_at__isnull=True,
            seat_invitations__cancelled_at__isnull=True,
        )
        .exclude(pk__in=[m.pk for m in yours])
        .distinct()[:LOBBY_LIST_LENGTH]
    )
    kept_for_you = seat_invitations_pending_for(user=user)
    if club is not None:
        kept_for_you = [i for i in kept_for_you if i.match.tournament.club_id == club.pk]
    kept_tables = {i.match_id for i in kept_for_you}
    watch = games_to_watch(user=user, club=club, club_ids=club_ids)
    return {
        "club": club.pk if club is not None else None,
        "club_name": club.name if club is not None else None,
        "open_tables": [table_summary(match=m, user=user, club_ids=club_ids) for m in open_tables],
        "your_tables": [table_summary(match=m, user=user, club_ids=club_ids) for m in yours],
        "kept_for_you": kept_for_you,
        "hosted_or_seated": [
            table_summary(match=m, user=user, club_ids=club_ids)
            for m in yours
            if m.pk not in kept_tables
        ],
        **watch,
    }


def games_to_watch(
    *,
    user: User,
    club: Club | None = None,
    club_ids: set[int] | None = None,
    limit: int = LOBBY_LIST_LENGTH,
) -> dict[str, list[dict[str, Any]]]:
    """``playing`` (games being played, tables and league matches alike, newest first) and
    ``finished`` (the latest games, to replay) that ``user`` may watch: the lobby's lists,
    and the home page's (``limit`` each). ``club``: that club's only; otherwise leagues and
    the tables of no club or of the person's clubs (``club_ids``, read when not given)."""
    if club_ids is None:
        club_ids = _club_ids_of(user) if club is None else set()
    seats = MatchSeat.objects.select_related("competitor").order_by("seat")
    games = Match.objects.select_related("tournament__club", "result").prefetch_related(
        Prefetch("seats", queryset=seats)
    )
    if club is not None:
        games = games.filter(tournament__club=club)
    else:  # a club's tables are its members'; leagues are public
        games = games.exclude(
            Q(tournament__format=TournamentFormat.TABLE)
            & Q(tournament__club__isnull=False)
            & ~Q(tournament__club_id__in=club_ids)
        )
    playing = games.filter(status__in=[MatchStatus.QUEUED, MatchStatus.RUNNING]).order_by(
        "-started_at", "-id"
    )[:limit]
    finished = games.filter(status=MatchStatus.FINISHED).order_by("-finished_at", "-id")[:limit]
    return {
        "playing": [_game_row(m) for m in playing],
        "finished": [_game_row(m) for m in finished],
    }


def clubs_with_lobby(*, user: User) -> list[Club]:
    """The clubs whose lobbies ``user`` may open (their own clubs)."""
    if not user.is_authenticated:
        return []
    return list(Club.objects.filter(memberships__user_id=user.pk).order_by("name"))


# ---------------------------------------------------------------- a seat's view and the chat

CHAT_MAX_CHARS = ChatMessage._meta.get_field("text").max_length or 500
"""The longest line of a table's chat."""
CHAT_PAGE = 200
"""The most chat lines one read returns (the latest)."""


def _seats(
    match: Match, rows: list[MatchSeat], num_seats: int, me: int
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Every seat (name, kind, a bot playing for a person) and the seats still empty."""
    taken = {row.seat: row for row in rows}
    missing_rows: dict[int, SeatInvitation] = {}
    if len(taken) < num_seats:
        missing_rows = {
            invitation.seat: invitation
            for invitation in SeatInvitation.objects.filter(
                match=match, accepted_at=None, declined_at=None, cancelled_at=None
            ).select_related("invitee__account_settings")
        }
    seats: list[dict[str, Any]] = []
    missing: list[dict[str, Any]] = []
    for seat in range(num_seats):
        row = taken.get(seat)
        if row is None:
            invitation = missing_rows.get(seat)
            invitee_user = invitation.invitee if invitation else None
            invitee = invitee_user.get_username() if invitee_user is not None else None
            entry = {
                "seat": seat,
                "name": f"waiting for {person_name(invitee_user)}"
                if invitee_user is not None
                else "an open seat",
                "kind": "empty",
                "invitee": invitee,
                "you": False,
                "replaced": False,
            }
            seats.append(entry)
            missing.append({"seat": seat, "invitee": invitee})
            continue
        seats.append(
            {
                "seat": seat,
                "name": row.competitor.name,
                "kind": row.competitor.kind,
                "invitee": None,
                "you": seat == me,
                "replaced": row.replaced,
            }
        )
    return seats, missing


def seat_view(*, match: Match, seat: int, user: User) -> dict[str, Any]:
    """What the person at ``seat`` sees (the caller checked that the seat is theirs; the
    shape is docs/api.md's *Playing at a table*): their view of the game (null while the
    table waits for players), the phase, who is to act and until when, every seat, the
    seats still empty, the legal actions with their labels, and the moves played for them.
    """
    rows = sorted(match.seats.all(), key=lambda r: r.seat)
    game = load_game(match.game)
    seats, missing = _seats(match, rows, game.num_seats, seat)
    mine = next(r for r in rows if r.seat == seat)
    base: dict[str, Any] = {
        "match": match.pk,
        "seat": seat,
        "status": match.status,
        "seats": seats,
        "missing": missing,
        "moved_for_you": [
            {
                **moved,
                "text": moved_for_you_words(moved, move_seconds=match.tournament.move_seconds),
            }
            for moved in moves_played_for(
                game=game, faults=mine.faults, strikes_allowed=PERSON_MAX_STRIKES
            )
        ],
        "replaced": mine.replaced,
        "error": "",
    }
    if match.status == MatchStatus.WAITING:
        return {
            **base,
            "phase": TablePhase.WAITING_FOR_PLAYERS,
            "view": None,
            "position": 0,
            "to_act": None,
            "your_turn": False,
            "deadline": None,
            "to_act_deadline": None,
            "actions": [],
        }
    state = match_state_read(match)
    view = state.view_for(seat).to_json()
    game_over = state.is_terminal()
    turn = seat_turn(
        seat=seat,
        running=match.status == MatchStatus.RUNNING,
        failed=match.status == MatchStatus.ERROR,
        finished=match.status == MatchStatus.FINISHED,
        game_over=game_over,
        acting_seat=None if game_over else state.acting_seat(),
        waiting_seat=match.waiting_seat,
    )
    your_turn = turn.your_turn
    if not your_turn:
        view["legal"] = []  # the engine's turn but not the league's yet: nothing to send
    return {
        **base,
        "phase": turn.phase,
        "view": view,
        "position": len(state.log),
        "to_act": turn.to_act,
        "your_turn": your_turn,
        "deadline": match.deadline if your_turn else None,
        "to_act_deadline": match.deadline if turn.person_waited_for else None,
        "actions": action_labels(state.game, view["legal"]) if your_turn else [],
        "error": match_error_for(match=match, user=user) if turn.phase == TablePhase.ERROR else "",
    }


def chat_message_json(message: ChatMessage) -> dict[str, Any]:
    """A chat line as the API and the match's socket carry it (the author's name, never
    more of the account)."""
    return {
        "id": message.pk,
        "match": message.match_id,
        "seat": message.seat,
        "author": person_name(message.author),
        "text": message.text,
        "created_at": message.created_at.isoformat().replace("+00:00", "Z"),
    }


def chat_messages(*, match: Match, after: int | None = None) -> list[dict[str, Any]]:
    """The table's chat, oldest first: the latest CHAT_PAGE lines, or those after the
    line ``after`` (what a page that reconnects missed)."""
    lines = ChatMessage.objects.filter(match=match).select_related("author__account_settings")
    if after is not None:
        lines = lines.filter(pk__gt=after)
    latest = list(lines.order_by("-id")[:CHAT_PAGE])
    return [chat_message_json(line) for line in reversed(latest)]


def table_players(*, match: Match) -> list[dict[str, Any]]:
    """Who sat at each seat of a table when it began (a seat's first occupant, not a bot
    that stood in later), by seat: ``user_id`` and ``username`` of a person, else ``bot``
    (``builtin:NAME`` of a built-in bot, or the competitor's id) and the ``name``. The
    seats of a rematch and of *New table with these players*."""
    rows = (
        MatchSeat.objects.filter(match=match)
        .select_related("competitor__user", "competitor__bot_version")
        .order_by("seat", "pk")
    )
    players: dict[int, dict[str, Any]] = {}
    for row in rows:
        if row.seat in players:
            continue
        competitor = row.competitor
        version = competitor.bot_version
        players[row.seat] = {
            "seat": row.seat,
            "name": competitor.name,
            "competitor": competitor.pk,
            "user_id": competitor.user_id,
            "username": competitor.user.get_username() if competitor.user is not None else None,
            "bot": None
            if competitor.user_id is not None
            else (
                f"builtin:{version.builtin_name}"
                if version is not None and version.builtin_name
                else competitor.pk
            ),
        }
    return [players[seat] for seat in sorted(players)]
