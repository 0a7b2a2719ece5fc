"""The table's reads: what the person at a seat sees (``seat_view``) and a table's chat
(``chat_messages``). The pages and the API show them (docs/api.md, *Playing at a table*).

Everything the table shows comes from here, re-derived on every read from the database:
whose turn it is, the match's phase, the moves played for the person when a deadline
passed. A page that reloads, or reconnects after a network drop, asks again and is back
exactly where it was. ``position`` (the events of the game so far) only grows, so a page
that gets two answers out of order keeps the later game.
"""

from __future__ import annotations

from typing import Any

from engine.variants import load_game
from league.domain.table_phase import TablePhase, action_labels, moves_played_for, seat_turn
from league.models import (
    PERSON_MAX_STRIKES,
    ChatMessage,
    Match,
    MatchSeat,
    MatchStatus,
    SeatInvitation,
)
from league.replays import match_state_read
from league.selectors import User, match_error_for

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
            ).select_related("invitee")
        }
    seats: list[dict[str, Any]] = []
    missing: list[dict[str, Any]] = []
    for seat in range(num_seats):
        row = taken.get(seat)
        if row is None:
            invitation = missing_rows.get(seat)
            invitee = (
                invitation.invitee.get_username() if invitation and invitation.invitee else None
            )
            entry = {
                "seat": seat,
                "name": f"waiting for {invitee}" if invitee else "an open seat",
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
        "moved_for_you": moves_played_for(
            game=game,
            faults=mine.faults,
            move_seconds=match.tournament.move_seconds,
            strikes_allowed=PERSON_MAX_STRIKES,
        ),
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
        "author": message.author.get_username(),
        "text": message.text,
        "created_at": message.created_at.isoformat().replace("+00:00", "Z"),
    }


def chat_messages(*, match: Match, after: int | None = None) -> list[dict[str, Any]]:
    """The table's chat, oldest first: the latest CHAT_PAGE lines, or those after the
    line ``after`` (what a page that reconnects missed)."""
    lines = ChatMessage.objects.filter(match=match).select_related("author")
    if after is not None:
        lines = lines.filter(pk__gt=after)
    latest = list(lines.order_by("-id")[:CHAT_PAGE])
    return [chat_message_json(line) for line in reversed(latest)]
