"""The match's socket carries each move as anyone may see it (league.domain.public_events):
a spectator's socket at a table of people, through the real channel layer (Redis), gets
every card played with its trick's winner, and never a dealt card nor the card of a private
action (Kung och Adel's face-down tribute and its return)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.testing import WebsocketCommunicator

from config.asgi import application
from engine.chance import Chance
from league.models import Match, MatchStatus, SeatInvitation
from league.selectors.replays import match_replay
from league.services.matches import match_person_act, match_run
from league.services.tables import seat_invitation_accept, table_open
from tests.league.builders import user_create

pytestmark = pytest.mark.django_db(transaction=True)

PEOPLE = ("ann", "bob", "cid", "dee")
MOVES = 150
"""Past the first deal of Kung och Adel (52 cards and the trump), into the tributes of the
second."""
CARD = re.compile(r"\b[2-9TJQKA][CDHS]\b")
PRIVATE = ("tribute", "return")


def table_of_people(game: str) -> int:
    """A table of four people, each seat accepted, its first deal dealt."""
    host, *guests = [user_create(name) for name in PEOPLE]
    match = table_open(
        actor=host,
        game=game,
        seats=["me", *[f"invite:{guest.get_username()}" for guest in guests]],
        move_seconds=3600,
    )
    for guest in guests:
        code = SeatInvitation.objects.get(match=match, invitee=guest).code
        seat_invitation_accept(user=guest, code=code)
    assert Match.objects.get(pk=match.pk).status == MatchStatus.QUEUED
    match_run(match_id=match.pk, worker="test")  # deals and hands over to the first person
    return match.pk


def person_moves(match_id: int, moves: int) -> None:
    """The person to act plays their first legal action, ``moves`` times."""
    for _ in range(moves):
        match = Match.objects.get(pk=match_id)
        if match.status == MatchStatus.FINISHED:
            return
        assert match.waiting_seat is not None
        state = match_replay(match).state
        action = state.view_for(match.waiting_seat).to_json()["legal"][0]
        match_person_act(match=match, seat=match.waiting_seat, action=action)


def spectated(match_id: int, moves: int) -> list[dict[str, Any]]:
    """What a spectator's socket receives while the people make ``moves`` moves."""

    async def scenario() -> list[dict[str, Any]]:
        socket = WebsocketCommunicator(
            application,
            f"/ws/matches/{match_id}/",
            headers=[(b"host", b"127.0.0.1"), (b"origin", b"http://127.0.0.1")],
        )
        assert (await socket.connect())[0]
        received = []
        for _ in range(0, moves, 10):  # a few at a time: the layer keeps a socket's backlog short
            await sync_to_async(person_moves)(match_id, 10)
            while not await socket.receive_nothing(timeout=1):
                received.append(await socket.receive_json_from(timeout=5))
        await socket.disconnect()
        return received

    return async_to_sync(scenario)()


def test_each_move_reaches_a_spectators_socket_without_a_hidden_card() -> None:
    match_id = table_of_people("kung_och_adel")
    messages = spectated(match_id, MOVES)
    state = match_replay(Match.objects.get(pk=match_id)).state
    game = state.game
    updates = [m for m in messages if m["type"] == "update"]
    assert len(updates) == MOVES  # one a move
    events = [e for m in updates for e in m["events"]]
    assert [e["index"] for e in events] == list(range(events[0]["index"], len(state.log)))
    for message in updates:
        assert message["event_index"] == message["events"][-1]["index"]

    seen_private = 0
    for event in events:
        entry = state.log[event["index"]]
        if isinstance(entry, Chance):
            assert event == {"index": event["index"], "chance": entry.kind}
            continue
        assert set(event) <= {"index", "seat", "action", "won"}
        action = game.action_to_string(entry & 1023)
        verb = action.split(" ", 1)[0]
        if verb in PRIVATE:
            assert event["action"] == verb, "a private action's card went out on the socket"
            seen_private += 1
        else:
            assert event["action"] == action
    assert seen_private >= 2  # the second deal's tribute and its return were told
    assert sum("won" in e for e in events) >= 13  # every trick of the first deal, its winner

    # No card outside the cards played: no dealt card, no tribute, nothing else.
    text = json.dumps(messages)
    without_play = re.sub(r"play [2-9TJQKA][CDHS]", "", text)
    assert CARD.findall(without_play) == []
