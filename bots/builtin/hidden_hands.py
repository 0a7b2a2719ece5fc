"""The hidden hands of a view and deals drawn from it: moved to engine/hidden_hands.py
(issue 19), so that bot authors have them with the engine's distribution, inside the
sandbox too. Kept here for the built-in bots' imports."""

from engine.hidden_hands import (
    HandConstraints,
    HandSampler,
    InconsistentViewError,
    deck_of,
    hand_constraints,
    next_seats,
)

__all__ = [
    "HandConstraints",
    "HandSampler",
    "InconsistentViewError",
    "deck_of",
    "hand_constraints",
    "next_seats",
]
