"""A King League search bot on the league's rules engine (``import engine``: the league
puts the version it runs on every Python bot's path, read-only; ``pip install ./engine``
for your own machine).

At each card to play it draws deals consistent with what its seat knows (the other hands
at random, within what the view proves: engine.hidden_hands), plays each legal card in
each drawn deal, finishes the deal with random cards, and plays the card whose deals
scored best for its seat (determinized Monte Carlo, the simplest search there is). Any
other decision (a contract, trumps, a bid) takes the first legal action. It spends at
most a fifth of its move time.

    python -m bots match kingen bots/examples/python/search_bot.py \
        builtin:greedy builtin:greedy builtin:random
"""

from __future__ import annotations

import random
import time

import kingbot  # type: ignore[import-not-found]  # pip install ./bots/sdk; the league's copy in a match

from engine.hidden_hands import HandSampler, InconsistentViewError, search_state
from engine.protocol_view import view_from_json

RNG = random.Random()
MAX_WORLDS = 24


def playout_score(state, action: int, seat: int) -> int:  # type: ignore[no-untyped-def]
    """``seat``'s score of the deal after ``action`` and random play to the deal's end."""
    state.apply_action(action)
    while not state.is_terminal():
        state.apply_action(RNG.choice(state.legal_actions()))
    return int(state.deal_scores[-1][seat])


def choose(request: kingbot.Request) -> str:
    cards = request.playable_cards
    if not cards or len(cards) != len(request.legal):
        return str(request.legal[0])  # not a card to play: the engine searches card play
    if len(cards) == 1:
        return str(request.legal[0])
    view = view_from_json(request.view)
    try:
        sampler = HandSampler(view)
    except InconsistentViewError:
        return str(request.legal[0])
    deadline = time.perf_counter() + (request.move_ms or 1000) / 5000
    totals = dict.fromkeys(view.legal, 0)
    for _ in range(MAX_WORLDS):
        world = search_state(view, RNG, sampler)
        for action in view.legal:
            totals[action] += playout_score(world.clone(), action, view.seat)
        if time.perf_counter() > deadline:
            break
    best = max(view.legal, key=lambda action: totals[action])
    return str(view.game.action_to_string(best))


if __name__ == "__main__":
    kingbot.run(choose)
