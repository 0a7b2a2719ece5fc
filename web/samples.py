"""Sample games for developing and testing the web pages without the league's database.

Only served when ``settings.WEB_SAMPLES`` is true (default: ``settings.DEBUG``): the pages
under /samples/ show a replay of a game played by the engine's reference players from a
seed, and a sample table where a person plays seat 0 against greedy players. The sample
table speaks the same JSON as the league's table API (docs/web.md), so the table page runs
unchanged against either; its state lives in the person's session.

Games are played in process from their seed (deterministic), so nothing is stored.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.utils.translation import gettext

from engine.errors import EngineError
from engine.game import Game, State
from engine.players import make_player
from engine.record import record_from_state, redact_record
from engine.variants import FAMILIES, load_game
from league.domain.table_phase import TablePhase, action_labels


def sample_games() -> tuple[str, ...]:
    """Every registered family's example games (engine.game.Game.examples)."""
    return tuple(game for family in FAMILIES.values() for game in family.example_games())


SAMPLE_GAMES = sample_games()
"""The sample games of the families built in (a family registered later is in
:func:`sample_games`)."""
MAX_SEED = 10_000


def samples_enabled() -> bool:
    return bool(getattr(settings, "WEB_SAMPLES", settings.DEBUG))


@functools.lru_cache(maxsize=16)
def _played(game_string: str, seed: int) -> dict[str, Any]:
    game = load_game(game_string)
    players = [make_player("greedy", seed * 31 + seat) for seat in range(game.num_seats)]
    state = game.new_initial_state(seed=seed)
    while not state.is_terminal():
        seat = state.acting_seat()
        state.apply_action(players[seat].choose(state.view_for(seat)), seat=seat)
    seats = [{"name": f"greedy {seat}", "player": "builtin:greedy"} for seat in range(4)]
    return record_from_state(
        state,
        seats=seats[: game.num_seats],
        meta={"sample": True, "note": f"{game} played by greedy players from seed {seed}"},
    )


def sample_record(game_string: str, seed: int) -> dict[str, Any]:
    """The full record of ``game_string`` played by greedy players from ``seed``.

    EngineError for an unknown game string or a seed out of range.
    """
    if not 0 <= seed <= MAX_SEED:
        raise EngineError(f"seed must be from 0 to {MAX_SEED}")
    return _played(str(load_game(game_string)), seed)


def record_cut(record: Mapping[str, Any], events: int) -> dict[str, Any]:
    """The record as it stood after its first ``events`` deal events: a running game."""
    deals: list[dict[str, Any]] = []
    left = events
    totals = [0] * len(record["seats"])
    for deal in record["deals"]:
        if left <= 0:
            break
        actions = deal["actions"][:left]
        left -= len(actions)
        cut = {"deal": deal["deal"], "actions": actions}
        if len(actions) == len(deal["actions"]) and "scores" in deal and left > 0:
            cut["scores"] = deal["scores"]
            totals = [t + s for t, s in zip(totals, deal["scores"], strict=True)]
        deals.append(cut)
    out = {key: value for key, value in record.items() if key not in ("deals", "scores")}
    out.update(deals=deals, complete=False, scores=totals)
    return out


def sample_running_record(game_string: str, seed: int, events: int) -> dict[str, Any]:
    """A sample game cut after ``events`` events and redacted for a spectator."""
    return redact_record(record_cut(sample_record(game_string, seed), events), None)


# ---------------------------------------------------------------- the sample table

HUMAN_SEAT = 0


class SampleTable:
    """One person at seat 0 with greedy players at the other seats, rebuilt from its
    actions: (game string, seed, the person's actions so far)."""

    def __init__(self, game_string: str, seed: int, actions: list[str]) -> None:
        self.game: Game[Any] = load_game(game_string)
        self.seed = seed
        self.actions = list(actions)
        self.state: State[Any] = self.game.new_initial_state(seed=seed)
        self.players = [
            make_player("greedy", seed * 31 + seat) for seat in range(self.game.num_seats)
        ]
        self._advance()
        for text in actions:
            self._apply(text)

    def _advance(self) -> None:
        """Let the greedy players act until the person is to act or the game is over."""
        while not self.state.is_terminal() and self.state.acting_seat() != HUMAN_SEAT:
            seat = self.state.acting_seat()
            action = self.players[seat].choose(self.state.view_for(seat))
            self.state.apply_action(action, seat=seat)

    def _apply(self, text: str) -> None:
        action = self.state.parse_action(text)
        self.state.apply_action(action, seat=HUMAN_SEAT)
        self._advance()

    def act(self, text: str) -> None:
        """The person's action; IllegalActionError or EngineError names what is wrong."""
        if self.state.is_terminal():
            raise EngineError(gettext("the game is over"))
        if self.state.acting_seat() != HUMAN_SEAT:
            raise EngineError(gettext("it is not your turn"))
        self._apply(text)
        self.actions.append(text)

    def view_json(self) -> dict[str, Any]:
        view = self.state.view_for(HUMAN_SEAT).to_json()
        over = self.state.is_terminal()
        your_turn = not over and self.state.acting_seat() == HUMAN_SEAT
        return {
            "view": view,
            "deadline": None,
            "your_turn": your_turn,
            "phase": (
                TablePhase.FINISHED
                if over
                else TablePhase.YOUR_MOVE
                if your_turn
                else TablePhase.BOTS_TO_MOVE
            ),
            "position": len(self.state.log),
            "to_act": None if over else self.state.acting_seat(),
            "actions": action_labels(self.game, view["legal"]) if your_turn else [],
            "status": "finished" if over else "running",
            "seats": [
                {"seat": seat, "name": "You" if seat == HUMAN_SEAT else f"greedy {seat}"}
                for seat in range(self.game.num_seats)
            ],
        }
