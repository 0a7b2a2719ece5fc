"""What the table tells the person at a seat in a sentence, in their language: each move
played for them when a deadline passed (from league.domain.table_phase.moves_played_for)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext

from league.words.engine_refusals import action_in_language
from league.words.games_and_times import duration_abbreviated


def moved_for_you_words(moved: Mapping[str, Any], *, move_seconds: float) -> str:
    """``No move within 2 min: play 2♣ was played for you (strike 1 of 2).``, and when it
    was the last strike, that a bot plays the seat for the rest of the game."""
    values = {
        "within": duration_abbreviated(move_seconds),
        "action": action_in_language(str(moved["action"])),
        "strike": moved["strike"],
        "strikes_allowed": moved["strikes_allowed"],
    }
    if moved["forfeit"]:
        return (
            gettext(
                "No move within %(within)s: %(action)s was played for you (strike %(strike)s of "
                "%(strikes_allowed)s); a bot plays your seat for the rest of the game."
            )
            % values
        )
    return (
        gettext(
            "No move within %(within)s: %(action)s was played for you (strike %(strike)s of "
            "%(strikes_allowed)s)."
        )
        % values
    )
