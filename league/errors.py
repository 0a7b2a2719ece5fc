"""Domain errors of the league: each is a 4xx answer with a message naming the problem.

Services raise them; api.exceptions maps them (and the engine's errors) to JSON
``{"detail": ...}`` with the status below, so a user never sees a traceback.
"""

from __future__ import annotations

from typing import Any


class LeagueError(Exception):
    """Something the caller asked that the league refuses; ``status`` is the HTTP status."""

    status = 400

    def __init__(
        self,
        detail: str,
        *,
        errors: dict[str, list[str]] | None = None,
        answer_fields: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(detail)
        self.detail = detail
        self.errors = errors
        self.answer_fields = answer_fields
        """More fields of the JSON answer beside ``detail`` (what another phone entered)."""


class InvalidInputError(LeagueError):
    status = 400


class NotAllowedError(LeagueError):
    status = 403


class NotFoundError(LeagueError):
    status = 404


class ConflictError(LeagueError):
    """The request is valid but the thing is not in a state that allows it."""

    status = 409


class GoneError(LeagueError):
    """The thing was there and is no more (a table code that expired)."""

    status = 410


class UnknownTableCodeError(NotFoundError):
    """No table has this code: a mistyped code, or a guess (counted per address)."""
