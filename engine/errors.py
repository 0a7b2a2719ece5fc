"""The engine's errors. Every message names the problem in words a player understands."""

from __future__ import annotations


class EngineError(Exception):
    """Base of every error the engine raises on purpose."""


class InvalidGameError(EngineError, ValueError):
    """A game string that names an unknown family, an unknown option or a bad value."""


class InvalidCardError(EngineError, ValueError):
    """A card or suit string that is not one."""


class IllegalActionError(EngineError, ValueError):
    """An action the rules do not allow now; ``rule`` says which rule forbids it."""

    def __init__(self, rule: str, action: str | None = None) -> None:
        self.rule = rule
        self.action = action
        super().__init__(f"{action}: {rule}" if action else rule)


class InvalidChanceError(EngineError, ValueError):
    """A chance event (a deal, a draw) that is impossible, e.g. a card dealt twice."""


class RecordError(EngineError, ValueError):
    """A game record that is not a valid record (bad JSON, missing fields, unknown game)."""


class ScoreEntryError(EngineError, ValueError):
    """Scores written at a physical table that do not add up under the rules (a deal's
    tricks or penalty cards, a zero-sum game, the order of the contracts); the message
    names the deal and what is wrong."""
