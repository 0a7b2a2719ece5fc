"""A bot's view rebuilt from the bot protocol's JSON (``PlayerView.to_json``), for bots
written in Python that search with the engine. Apart from engine.game because it loads the
game by its string (engine.variants), which engine.game's own importers must not need."""

from __future__ import annotations

from typing import Any

from engine.cards import SUIT_LETTERS, parse_card
from engine.game import PlayerView, TrickView
from engine.variants import load_game


def view_from_json(data: dict[str, Any]) -> PlayerView:
    """The PlayerView of a view as the bot protocol sends it (``PlayerView.to_json``): what
    a bot written in Python rebuilds from a request's ``view`` to search with the engine.
    ``played`` is the cards of the deal's tricks, the one field the JSON leaves out.
    Raises the engine's errors (InvalidGameError, InvalidCardError, ...) for a view that
    is not one."""
    game = load_game(data["game"])
    tricks = tuple(
        TrickView(t["leader"], tuple(parse_card(c) for c in t["cards"]), t["winner"])
        for t in data["tricks"]
    )
    trick = tuple(parse_card(c) for c in data["trick"])
    played = 0
    for card in (*trick, *(c for t in tricks for c in t.cards)):
        played |= 1 << card
    hand = 0
    for name in data["hand"]:
        hand |= 1 << parse_card(name)
    trump = data["trump"]
    return PlayerView(
        game=game,
        seat=data["seat"],
        phase=data["phase"],
        to_act=data["to_act"],
        deal_number=data["deal"],
        deal_count=data["deals"],
        dealer=data["dealer"],
        hand=hand,
        hand_sizes=tuple(data["hand_sizes"]),
        contract=data["contract"],
        trump=SUIT_LETTERS.index(trump) if trump is not None else -1,
        leader=data["leader"],
        trick=trick,
        tricks=tricks,
        tricks_won=tuple(data["tricks_won"]),
        played=played,
        scores=tuple(data["scores"]),
        deal_scores=tuple(tuple(s) for s in data["deal_scores"]),
        legal=tuple(game.parse_action(action) for action in data["legal"]),
        public=data["public"],
        private=data["private"],
    )
