"""At the table, through the API (docs/api.md, *Playing at a table*, *A table's chat*): the
seat's view says the phase of the match in each state, the moves played for a person who
missed a deadline, the labels of the actions; the chat is written by the people seated,
read by everyone, capped, rate limited and pushed to the match's socket group; a spectator
of a table with a person sees public facts only.

Matches are played in process (``match_run``, the body of the ``run_match`` task)."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from django.contrib.auth.models import User
from django.db import connection
from django.utils import timezone
from rest_framework.test import APIClient

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.testing import WebsocketCommunicator

from config.asgi import application
from engine import load_game
from league.models import (
    PERSON_MAX_STRIKES,
    ChatMessage,
    Match,
    MatchSeat,
    MatchStatus,
    Notification,
    NotificationKind,
    SeatInvitation,
)
from league.selectors.replays import match_replay
from league.selectors.tables import CHAT_MAX_CHARS
from league.services.competitors import competitor_for_user
from league.services.match_notices import your_move_notify
from league.services.matches import match_deadline_expire, match_run
from league.words.games_and_times import duration_abbreviated
from league.words.table_notices import action_in_words
from tests.api_answers import client_for, ok, refused
from tests.league.builders import user_create

if TYPE_CHECKING:
    from pytest_django.fixtures import Settings


def table_open(user: User, *, seed: int | None = None) -> int:
    """A Kingen table of ``user`` with three built-in bots; with ``seed``, that deal."""
    created = ok(
        client_for(user).post(
            "/api/tables/",
            {
                "game": "kingen",
                "seats": ["me", "builtin:greedy", "builtin:greedy", "builtin:greedy"],
            },
            format="json",
        ),
        201,
    )
    if seed is not None:
        Match.objects.filter(pk=created["id"]).update(seed=seed)
    return int(created["id"])


def view_of(user: User, match_id: int, seat: int = 0) -> dict[str, Any]:
    return dict(ok(client_for(user).get(f"/api/matches/{match_id}/seats/{seat}/view/")))


def bots_play(match_id: int) -> None:
    """Let the workers' part happen: the bots play until a person is to act or the end."""
    match = Match.objects.get(pk=match_id)
    if match.status == MatchStatus.QUEUED:
        assert match_run(match_id=match_id, worker="test").outcome != "failed"


SEED_BOT_FIRST = next(
    s for s in range(100) if load_game("kingen").new_initial_state(seed=s).acting_seat() != 0
)
"""A seed whose first decision is not seat 0's (a bot acts before the person)."""


@pytest.mark.django_db
def test_the_seat_view_says_whose_turn_it_is_in_each_phase() -> None:
    ann = user_create("ann")
    match_id = table_open(ann, seed=SEED_BOT_FIRST)

    queued = view_of(ann, match_id)
    assert (queued["phase"], queued["status"], queued["your_turn"]) == (
        "bots_to_move",
        "queued",
        False,
    )
    assert queued["view"]["legal"] == []
    assert queued["actions"] == []
    assert queued["to_act"] != 0
    assert queued["deadline"] is None
    assert next(s["name"] for s in queued["seats"]) == "ann"
    assert queued["seats"][0]["you"] is True
    assert queued["missing"] == []

    bots_play(match_id)
    mine = view_of(ann, match_id)
    assert (mine["phase"], mine["your_turn"], mine["to_act"]) == ("your_move", True, 0)
    assert mine["deadline"] is not None
    assert mine["deadline"] == mine["to_act_deadline"]
    assert mine["position"] > queued["position"]
    assert mine["view"]["legal"]
    # Every legal action, with the game's plain label of its kind.
    assert [a["action"] for a in mine["actions"]] == mine["view"]["legal"]
    game = load_game("kingen")
    for action in mine["actions"]:
        code = game.parse_action(action["action"])
        assert action["label"] == game.action_label(code)
        assert action["explanation"] == game.action_explanation(code)

    # The move's answer is the table as it stands after it: the bots' turn now.
    after = ok(
        client_for(ann).post(
            f"/api/matches/{match_id}/seats/0/actions/",
            {"action": mine["view"]["legal"][0]},
            format="json",
        )
    )
    assert after["position"] == mine["position"] + 1
    assert after["phase"] in ("bots_to_move", "your_move")
    assert after == view_of(ann, match_id)

    # Stopped by an error: the sentence, never a traceback.
    Match.objects.filter(pk=match_id).update(
        status=MatchStatus.ERROR,
        waiting_seat=None,
        deadline=None,
        error="the worker failed: Traceback (most recent call last): secrets",
    )
    stopped = view_of(ann, match_id)
    assert stopped["phase"] == "error"
    assert stopped["your_turn"] is False
    assert "Traceback" not in stopped["error"]
    assert "secrets" not in stopped["error"]
    assert stopped["error"].startswith("the worker failed")


def statements_of(act: Callable[[], Any]) -> tuple[Any, list[str]]:
    """What ``act()`` answers and the SQL it ran (an execute wrapper: Django empties
    CaptureQueriesContext's log as a request starts)."""
    sql: list[str] = []

    def record(execute: Any, statement: str, *args: Any) -> Any:
        sql.append(statement)
        return execute(statement, *args)

    with connection.execute_wrapper(record):
        answer = act()
    return answer, sql


def rows_read(table: str, sql: list[str]) -> list[str]:
    """The statements of ``sql`` that read rows of ``table`` (a SELECT of its columns, or a
    cursor declared on it; not a subquery of another read)."""
    return [
        s
        for s in sql
        if s.lstrip().startswith((f'SELECT "{table}".', "DECLARE")) and f'FROM "{table}"' in s
    ]


def test_a_move_reads_the_match_once_and_answers_without_a_replay(
    transactional_db: None,
) -> None:
    """The person's move through the API reads the match and its seats once (locked, the
    seat checked to be hers) and answers with the position the move made, which it keeps
    for the next reads once committed: neither the answer nor the next page's read of
    that position replays the stored events (league.selectors.replays.match_state_keep).
    Committed for real (transactional_db), as the site runs: the position is kept only
    once the move's transaction commits."""
    ann = user_create("ann")
    match_id = table_open(ann, seed=SEED_BOT_FIRST)
    bots_play(match_id)
    before = view_of(ann, match_id)
    assert before["your_turn"] is True

    post = client_for(ann).post
    url = f"/api/matches/{match_id}/seats/0/actions/"
    response, sql = statements_of(
        lambda: post(url, {"action": before["view"]["legal"][0]}, format="json")
    )
    answer = ok(response)
    assert answer["position"] == before["position"] + 1
    assert len(rows_read("league_match", sql)) == 1
    assert len(rows_read("league_matchseat", sql)) == 1
    assert rows_read("league_matchevent", sql) == []

    again, sql = statements_of(lambda: view_of(ann, match_id))
    assert again == answer
    assert rows_read("league_matchevent", sql) == []
    # The stored events are those the kept position holds: a replay says the same.
    stored = match_replay(Match.objects.get(pk=match_id)).state.view_for(0).to_json()
    assert stored == again["view"]


@pytest.mark.django_db
def test_at_a_live_table_a_read_your_move_notice_costs_the_next_move_one_query() -> None:
    """A live game tells a person of their first move only. Once that notice is read (the
    person moved since), the next moves' notice costs one query in the move's
    transaction, which holds the table's lock: nothing is worded (no language or time
    zone read) and nothing written. An unread notice is still brought up to date."""
    ann = user_create("ann")
    match = Match.objects.select_related("tournament", "round").get(pk=table_open(ann))
    now = timezone.now()

    def notice_for(deadline: datetime) -> list[str]:
        _, sql = statements_of(
            lambda: your_move_notify(
                match=match, user_id=ann.pk, seat=0, decision=9, deadline=deadline, now=now
            )
        )
        return sql

    notice_for(now + timedelta(minutes=2))
    told = Notification.objects.get(user=ann, kind=NotificationKind.YOUR_MOVE)
    later = notice_for(now + timedelta(minutes=5))  # unread: the new deadline is written
    told.refresh_from_db()
    assert any(s.lstrip().startswith('UPDATE "league_notification"') for s in later)
    assert told.read_at is None

    Notification.objects.filter(pk=told.pk).update(read_at=now)
    sql = notice_for(now + timedelta(minutes=9))
    assert len(sql) == 1
    assert rows_read("league_notification", sql) == sql
    assert Notification.objects.get(pk=told.pk).text == told.text


@pytest.mark.django_db
def test_another_persons_move_is_waited_for_with_their_deadline() -> None:
    ann = user_create("ann")
    bea = user_create("bea")
    match_id = table_open(ann, seed=SEED_BOT_FIRST)
    first = match_replay(Match.objects.get(pk=match_id)).state.acting_seat()
    # bea sits at the seat that decides first (as a table of friends seats her).
    MatchSeat.objects.filter(match_id=match_id, seat=first).update(
        competitor=competitor_for_user(user=bea)
    )
    bots_play(match_id)
    match = Match.objects.get(pk=match_id)
    assert (match.status, match.waiting_seat) == (MatchStatus.RUNNING, first)

    waiting = view_of(ann, match_id)
    assert (waiting["phase"], waiting["your_turn"], waiting["actions"]) == (
        "player_to_move",
        False,
        [],
    )
    assert waiting["to_act"] == first
    assert waiting["seats"][first]["name"] == "bea"
    assert waiting["deadline"] is None
    assert waiting["to_act_deadline"] is not None
    assert view_of(bea, match_id, first)["phase"] == "your_move"


@pytest.mark.django_db
def test_a_table_waiting_for_players_says_so_and_who_is_missing() -> None:
    ann = user_create("ann")
    bob = user_create("bob")
    match_id = table_open(ann)
    # The lobby's table (league.services.tables) as the database holds it: seats 2 and 3
    # not taken yet, one reserved for bob and one open to whoever has the link.
    Match.objects.filter(pk=match_id).update(status=MatchStatus.WAITING)
    MatchSeat.objects.filter(match_id=match_id, seat__in=[2, 3]).delete()
    SeatInvitation.objects.create(
        match_id=match_id, seat=2, code="bob-code", invitee=bob, created_by=ann
    )
    SeatInvitation.objects.create(match_id=match_id, seat=3, code="open-code", created_by=ann)

    waiting = view_of(ann, match_id)
    assert waiting["phase"] == "waiting_for_players"
    assert waiting["view"] is None  # no card is shown before everyone sits down
    assert waiting["your_turn"] is False
    assert waiting["to_act"] is None
    assert waiting["missing"] == [{"seat": 2, "invitee": "bob"}, {"seat": 3, "invitee": None}]
    assert [s["kind"] for s in waiting["seats"]] == ["person", "bot", "empty", "empty"]
    assert waiting["seats"][2]["invitee"] == "bob"


@pytest.mark.django_db
def test_moves_played_for_a_person_are_in_the_view_with_their_labels() -> None:
    ann = user_create("ann")
    match_id = table_open(ann)
    played: list[str] = []
    for _ in range(200):
        bots_play(match_id)
        match = Match.objects.get(pk=match_id)
        if match.status != MatchStatus.RUNNING:
            break
        assert match.waiting_seat == 0
        played.append(view_of(ann, match_id)["view"]["legal"][0])  # the fallback: first legal
        assert match.deadline is not None
        # Just past the deadline (a fallback that leaves her to lead again sets the next
        # deadline from this moment).
        assert match_deadline_expire(match_id=match_id, now=match.deadline + timedelta(seconds=1))
        moved = view_of(ann, match_id)["moved_for_you"]
        assert [m["action"] for m in moved] == played
    finished = view_of(ann, match_id)
    assert finished["phase"] == "finished"
    assert finished["status"] == "finished"
    assert finished["replaced"] is True
    assert finished["seats"][0]["replaced"] is True
    moved = finished["moved_for_you"]
    assert len(moved) == PERSON_MAX_STRIKES
    assert [m["strike"] for m in moved] == list(range(1, PERSON_MAX_STRIKES + 1))
    assert {m["label"] for m in moved} == {"play a card"}
    first = moved[0]
    move = duration_abbreviated(Match.objects.get(pk=match_id).tournament.move_seconds)
    assert first["text"] == (
        f"No move within {move}: {action_in_words(played[0])} was played for you "
        f"(strike 1 of {PERSON_MAX_STRIKES})."
    )
    assert moved[-1]["text"].endswith("a bot plays your seat for the rest of the game.")


# ---------------------------------------------------------------- the chat


@pytest.mark.django_db
def test_the_people_seated_write_in_the_chat_and_everyone_reads_it() -> None:
    ann = user_create("ann")
    eve = user_create("eve")
    match_id = table_open(ann)
    url = f"/api/matches/{match_id}/chat/"

    line = ok(
        client_for(ann).post(url, {"text": "  <b>hi</b>\n\u2028\x07all  "}, format="json"), 201
    )
    # Kept as typed (tidied to one line): the pages write it as text, never as HTML.
    assert line["text"] == "<b>hi</b> all"
    assert (line["author"], line["seat"], line["match"]) == ("ann", 0, match_id)

    assert "seated" in refused(client_for(eve).post(url, {"text": "me too"}, format="json"), 403)
    refused(APIClient().post(url, {"text": "anonymous"}, format="json"), 401)
    refused(client_for(ann).post(url, {"text": " \n\t "}, format="json"), 400)
    refused(client_for(ann).post(url, {"text": "nul\x00"}, format="json"), 400)
    too_long = "x" * (CHAT_MAX_CHARS + 1)
    assert str(CHAT_MAX_CHARS) in refused(
        client_for(ann).post(url, {"text": too_long}, format="json"), 400
    )
    refused(client_for(ann).post(url, {"text": 5}, format="json"), 400)
    assert ChatMessage.objects.filter(match_id=match_id).count() == 1

    second = ok(client_for(ann).post(url, {"text": "good luck"}, format="json"), 201)
    for reader, can_write in (
        (client_for(ann), True),
        (client_for(eve), False),
        (APIClient(), False),
    ):
        chat = ok(reader.get(url))
        assert [m["text"] for m in chat["messages"]] == ["<b>hi</b> all", "good luck"]
        assert chat["can_write"] is can_write
        assert chat["max_chars"] == CHAT_MAX_CHARS
    assert [m["id"] for m in ok(APIClient().get(f"{url}?after={line['id']}"))["messages"]] == [
        second["id"]
    ]
    refused(APIClient().get(f"{url}?after=x"), 400)
    refused(APIClient().get("/api/matches/999999/chat/"), 404)


@pytest.mark.django_db
def test_the_chat_is_rate_limited_with_retry_after(settings: Settings) -> None:
    rates = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**rates, "chat": "2/minute"},
    }
    ann = user_create("ann")
    match_id = table_open(ann)
    url = f"/api/matches/{match_id}/chat/"
    for text in ("one", "two"):
        ok(client_for(ann).post(url, {"text": text}, format="json"), 201)
    response = client_for(ann).post(url, {"text": "three"}, format="json")
    assert "chat messages" in refused(response, 429)
    assert int(response["Retry-After"]) >= 1
    assert ChatMessage.objects.filter(match_id=match_id).count() == 2
    ok(client_for(ann).get(url))  # reading is not limited


def test_a_chat_line_is_pushed_to_the_match_socket(transactional_db: None) -> None:
    """Through the real channel layer (Redis), as the site runs: the socket of the match
    gets the line, and nothing else of the game."""
    ann = user_create("ann")
    match_id = table_open(ann)

    async def scenario() -> dict[str, Any]:
        socket = WebsocketCommunicator(
            application,
            f"/ws/matches/{match_id}/",
            headers=[(b"host", b"127.0.0.1"), (b"origin", b"http://127.0.0.1")],
        )
        assert (await socket.connect())[0]
        await sync_to_async(
            lambda: ok(
                client_for(ann).post(
                    f"/api/matches/{match_id}/chat/", {"text": "hello table"}, format="json"
                ),
                201,
            )
        )()
        message: dict[str, Any] = await socket.receive_json_from(timeout=5)
        while message["type"] == "presence":  # who is at the table, sent when it opens
            message = await socket.receive_json_from(timeout=5)
        await socket.disconnect()
        return message

    message = async_to_sync(scenario)()
    assert message["type"] == "chat"
    assert message["match"] == match_id
    assert set(message["chat"]) == {"id", "match", "seat", "author", "text", "created_at"}
    assert (message["chat"]["author"], message["chat"]["text"]) == ("ann", "hello table")


# ---------------------------------------------------------------- spectators


@pytest.mark.django_db
def test_a_spectator_of_a_table_with_a_person_sees_no_hidden_card() -> None:
    ann = user_create("ann")
    eve = user_create("eve")
    match_id = table_open(ann, seed=SEED_BOT_FIRST)
    bots_play(match_id)
    state = match_replay(Match.objects.get(pk=match_id)).state
    hidden = {card for seat in range(4) for card in state.view_for(seat).to_json()["hand"]}
    assert len(hidden) > 40
    for client in (client_for(eve), APIClient()):
        answers = [
            ok(client.get(f"/api/matches/{match_id}/spectate/")),
            ok(client.get(f"/api/matches/{match_id}/record/")),
            ok(client.get(f"/api/matches/{match_id}/")),
            ok(client.get(f"/api/matches/{match_id}/chat/")),
        ]
        timeline = client.get(f"/matches/{match_id}/timeline.json")
        assert timeline.status_code == 200
        answers.append(timeline.json())
        text = json.dumps(answers)
        shown = {card for card in hidden if f'"{card}"' in text or f"play {card}" in text}
        assert shown == set(), f"hidden cards shown to a spectator: {sorted(shown)}"
        refused(client.get(f"/api/matches/{match_id}/seats/0/view/"), 403)
