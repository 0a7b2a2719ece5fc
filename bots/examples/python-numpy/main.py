"""A King League bot on the python-numpy runtime: it scores its playable cards with a small
linear policy in numpy (weights you would train offline and ship in the zip) and plays the
best; any other decision takes the first legal action.

The helper module kingbot is the league's (importable in the sandbox; ``pip install
./bots/sdk`` on your machine); numpy is the
server's pinned copy (docs/bot-protocol.md, "Runtimes"). Start from here: README.md.
"""

from __future__ import annotations

import kingbot  # type: ignore[import-not-found]  # pip install ./bots/sdk; the league's copy in a match
import numpy as np

RANKS = kingbot.RANKS
WEIGHTS = np.array([1.0, -0.6, -2.0])
"""Score = w0 * (ducks under the winning card) + w1 * rank/12 + w2 * (leads with it and
it is high): a policy a few lines of training could replace (np.load("weights.npy"))."""


def features(cards: list[str], request: kingbot.Request) -> np.ndarray:
    trick = request.trick
    best = kingbot.winning_card(trick, request.trump)
    led = trick[0][1] if trick else ""
    rows = []
    for card in cards:
        ducks = best is not None and not kingbot.beats(card, best, led, request.trump)
        rank = kingbot.rank(card) / 12
        rows.append([float(ducks), rank, float(not trick) * rank * rank])
    return np.array(rows)


def choose(request: kingbot.Request) -> str:
    cards: list[str] = request.playable_cards
    if not cards:
        return str(request.legal[0])  # a contract, trumps, a bid, ...
    scores = features(cards, request) @ WEIGHTS
    return "play " + cards[int(np.argmax(scores))]


if __name__ == "__main__":
    kingbot.run(choose)
