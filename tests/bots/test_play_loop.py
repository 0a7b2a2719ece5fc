"""The one play loop (bots.match.seats_play): the command line and the league play the same
game with it, and its hooks store each action and stop at a person's turn."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from bots.match import BotSpec, deciding_seat, match_play, seats_play
from bots.protocol import TimeControl
from bots.seats import BuiltinSeat, seat_seed
from engine.chance import Chance
from engine.game import State
from engine.variants import load_game
from league.models import Match, MatchResult, MatchSeat, MatchStatus
from league.services.matches import PERSON_MAX_STRIKES, match_deadline_expire, match_run
from league.services.tables import table_open
from league.services.tournaments import tournament_round_start
from tests.league.builders import bot_tournament, user_create


def events_without_times(record: dict[str, Any]) -> dict[str, Any]:
    """What was played: the seed, the prelude, each deal's actions and scores, the result
    (not how long each action took, nor who the seats are or the meta)."""

    def untimed(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{k: v for k, v in event.items() if k != "ms"} for event in events]

    return {
        "game": record["game"],
        "seed": record["seed"],
        "prelude": untimed(record["prelude"]),
        "deals": [{**deal, "actions": untimed(deal["actions"])} for deal in record["deals"]],
        "complete": record["complete"],
        "scores": record["scores"],
    }


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("game", "bot"),
    [("kingen", "greedy"), ("priffe(players=3,rubbers_per_game=1)", "greedy"), ("king", "random")],
)
def test_the_command_line_and_the_league_play_the_same_events(game: str, bot: str) -> None:
    tournament, organiser = bot_tournament(game=game, bot=bot, entrants=2)
    match = tournament_round_start(actor=organiser, tournament=tournament).matches.get()
    bots = {
        row.seat: row.competitor.bot_version.builtin_name
        for row in match.seats.select_related("competitor__bot_version")
        if row.competitor.bot_version is not None
    }
    # a seat nobody sits at (Priffe's träkarl when three play) is never asked to act
    seats = [BotSpec.builtin(bots.get(seat, "random")) for seat in range(load_game(game).num_seats)]

    assert match_run(match_id=match.pk, worker="test").outcome == "finished"
    stored = MatchResult.objects.get(match=match).record
    local = match_play(match.game, seats, seed=match.seed, sandbox=False).record

    assert stored["complete"]
    assert events_without_times(local) == events_without_times(stored)


class Hooks:
    """Records what the loop reports; a person answers with their first legal action for
    ``answers`` turns, then the loop is told to stop."""

    def __init__(self, answers: int) -> None:
        self.answers = answers
        self.applied: list[int] = []
        self.asked: list[int] = []

    def actions_applied(self, state: State[Any], times: dict[int, float]) -> None:
        self.applied.append(len(state.log))

    def person_to_act(self, state: State[Any], seat: int) -> int | None:
        self.asked.append(seat)
        if len(self.asked) > self.answers:
            return None
        return state.view_for(seat).legal[0]


def bots_and_a_person(game: str, seed: int, person: int) -> list[BuiltinSeat | None]:
    seats = load_game(game).num_seats
    return [
        None if seat == person else BuiltinSeat("greedy", seat_seed(seed, seat))
        for seat in range(seats)
    ]


def test_the_loop_stops_at_a_persons_turn_after_each_action_was_reported() -> None:
    state = load_game("kingen").new_initial_state(seed=11)
    hooks = Hooks(answers=2)

    played = seats_play(
        state, bots_and_a_person("kingen", 11, 2), time_control=TimeControl(), hooks=hooks
    )

    assert played.waiting_seat == 2
    assert not state.is_terminal()
    assert deciding_seat(state) == 2
    assert hooks.asked == [2, 2, 2]
    assert played.reports[2] is None
    assert all(report is not None for seat, report in enumerate(played.reports) if seat != 2)
    # every action was reported as it was applied, the last one included
    assert len(hooks.applied) == played.decisions
    assert hooks.applied == sorted(set(hooks.applied))
    assert hooks.applied[-1] == len(state.log)
    actions = [i for i, entry in enumerate(state.log) if not isinstance(entry, Chance)]
    assert sorted(played.times) == actions


def test_a_person_who_answers_every_turn_plays_the_match_to_its_end() -> None:
    state = load_game("kingen(players=3)").new_initial_state(seed=5)
    hooks = Hooks(answers=10**6)

    played = seats_play(
        state, bots_and_a_person("kingen(players=3)", 5, 0), time_control=TimeControl(), hooks=hooks
    )

    assert played.waiting_seat is None
    assert state.is_terminal()
    assert played.decisions == sum(1 for entry in state.log if not isinstance(entry, Chance))
    assert len(hooks.asked) == sum(
        1 for entry in state.log if not isinstance(entry, Chance) and entry >> 10 == 0
    )


def test_a_resumed_state_keeps_the_times_of_its_earlier_actions() -> None:
    state = load_game("kingen").new_initial_state(seed=3)
    first = seats_play(
        state, bots_and_a_person("kingen", 3, 1), time_control=TimeControl(), hooks=Hooks(0)
    )
    earlier = dict(first.times)

    resumed = seats_play(
        state,
        bots_and_a_person("kingen", 3, 1),
        time_control=TimeControl(),
        times=first.times,
        hooks=Hooks(1),
    )

    assert earlier
    assert {k: resumed.times[k] for k in earlier} == earlier
    assert len(resumed.times) > len(earlier)
    assert resumed.waiting_seat == 1


@pytest.mark.django_db
def test_a_person_who_misses_every_deadline_gets_timeouts_then_forfeits_to_a_bot() -> None:
    ann = user_create("ann")
    match = table_open(
        actor=ann, game="kingen", seats=["me", "builtin:greedy", "builtin:greedy", "builtin:random"]
    )
    expired = 0
    for _ in range(1000):
        match.refresh_from_db()
        if match.status == MatchStatus.QUEUED:
            assert match_run(match_id=match.pk, worker="test").outcome != "failed"
        elif match.status == MatchStatus.RUNNING:
            assert match.waiting_seat == 0
            # a moment after the deadline it set: when the fallback leaves this seat to act
            # again (it won the trick and leads), the next deadline counts from that moment
            assert match.deadline is not None
            missed = match.deadline + timedelta(seconds=1)
            assert match_deadline_expire(match_id=match.pk, now=missed)
            expired += 1
        else:
            break

    assert match.status == MatchStatus.FINISHED
    assert expired == PERSON_MAX_STRIKES
    seat = MatchSeat.objects.get(match=match, seat=0)
    assert (seat.strikes, seat.replaced, seat.outcome) == (PERSON_MAX_STRIKES, True, "forfeit")
    move = Match.objects.select_related("tournament").get(pk=match.pk).tournament.move_seconds
    assert [sorted(fault) for fault in seat.faults] == [
        ["cause", "deal", "decision", "fallback", "message"]
    ] * PERSON_MAX_STRIKES
    assert {(f["cause"], f["message"]) for f in seat.faults} == {
        ("timeout", f"no move within {move:g} s")
    }
    result = MatchResult.objects.get(match=match)
    assert result.outcomes[0] == "forfeit"
    assert result.record["seats"][0]["outcome"] == "forfeit"
    assert result.record["meta"]["faults"] == [{"seat": 0, **f} for f in seat.faults]
    assert result.standings_input["seats"][0]["outcome"] == "forfeit"
