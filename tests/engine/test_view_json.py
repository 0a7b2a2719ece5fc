"""A view's JSON (what a bot's request and a person's table carry): every family's, over
whole games, is the view field by field, and a finished trick's entry is built once and
shared by the later views of its deal (half of a view's JSON was its finished tricks)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine import FAMILIES, load_game
from engine.cards import card_name
from engine.game import PlayerView


def by_hand(view: PlayerView) -> dict[str, Any]:
    """The JSON of ``view`` written out from its fields, one by one."""
    return {
        "game": str(view.game),
        "seat": view.seat,
        "phase": view.phase,
        "to_act": view.to_act,
        "deal": view.deal_number,
        "deals": view.deal_count,
        "dealer": view.dealer,
        "hand": [card_name(c) for c in range(52) if view.hand >> c & 1],
        "hand_sizes": list(view.hand_sizes),
        "contract": view.contract,
        "trump": "CDHS"[view.trump] if view.trump >= 0 else None,
        "leader": view.leader,
        "trick": [card_name(c) for c in view.trick],
        "tricks": [
            {"leader": t.leader, "cards": [card_name(c) for c in t.cards], "winner": t.winner}
            for t in view.tricks
        ],
        "tricks_won": list(view.tricks_won),
        "scores": list(view.scores),
        "deal_scores": [list(s) for s in view.deal_scores],
        "legal": [view.game.action_to_string(a) for a in view.legal],
        "public": view.public,
        "private": view.private,
    }


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_every_view_of_a_game_is_its_fields(family: str) -> None:
    game = load_game(family)
    rng = random.Random(7)
    state = game.new_initial_state(seed=7)
    views = 0
    while not state.is_terminal():
        seat = state.current_seat
        view = state.view_for(seat)
        shown = view.to_json()
        expected = by_hand(view)
        assert sorted(shown["hand"]) == sorted(expected.pop("hand"))
        shown.pop("hand")
        assert shown == expected
        views += 1
        state.apply_action(rng.choice(state.legal_actions()))
    assert views > 50


def test_a_finished_trick_is_built_once_for_the_views_after_it() -> None:
    game = load_game("kingen")
    state = game.new_initial_state(seed=1)
    while len(state.view_for(state.current_seat).tricks) < 2:
        state.apply_action(state.legal_actions()[0])
    first = state.view_for(state.current_seat).to_json()
    state.apply_action(state.legal_actions()[0])
    other_seat = state.view_for(state.current_seat).to_json()
    assert first["tricks"] == other_seat["tricks"][: len(first["tricks"])]
    assert all(
        a is b for a, b in zip(first["tricks"], other_seat["tricks"], strict=False)
    )  # the same entries, not rebuilt
