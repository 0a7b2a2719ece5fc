#!/usr/bin/env python3
"""A King League bot with a simple strategy: duck. Uses the helper module kingbot.

Most King-family deals punish taking tricks or the cards in them, so this bot tries not
to win tricks, and sheds its high cards when that is safe:

- following, when some legal card would not win the trick so far: the highest of those;
- when every legal card would win: the highest if it plays last to the trick (it wins
  anyway), else the lowest;
- leading: the lowest card;
- any other decision (a bid, a contract, trumps, tribute): the first legal action.

From a terminal (``pip install ./bots/sdk`` once, for kingbot; in a match the league provides it):

    python3 bots/examples/python/main.py

then type a hello line and request lines (docs/bot-protocol.md has real ones).
"""

import kingbot  # type: ignore[import-not-found]  # pip install ./bots/sdk; the league's copy in a match


def choose(request: kingbot.Request) -> str:
    cards = request.playable_cards
    if not cards or len(cards) != len(request.legal):
        return request.legal[0]
    trick = request.trick
    if not trick:
        return "play " + min(cards, key=kingbot.rank)
    trump = request.trump
    best = kingbot.winning_card(trick, trump)
    assert best is not None
    led = trick[0][1]
    ducking = [c for c in cards if not kingbot.beats(c, best, led, trump)]
    if ducking:
        return "play " + max(ducking, key=kingbot.rank)
    last_to_play = len(trick) == len(request.view["hand_sizes"]) - 1
    pick = max(cards, key=kingbot.rank) if last_to_play else min(cards, key=kingbot.rank)
    return "play " + pick


if __name__ == "__main__":
    kingbot.run(choose)
