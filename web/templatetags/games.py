"""Template filters about games: ``{{ tournament.game|game_name }}`` is the game's name for
people as the game gives it (engine.game.Game.display_name: ``Priffe, 2 rubbers``)."""

from __future__ import annotations

import functools

from django import template

from engine.errors import EngineError
from engine.variants import load_game
from league.models import Tournament
from league.words.games_and_times import game_name_words, move_time_words, time_control_words
from league.words.seats import seat_in_words
from web.rules_pages import rules_url_for_game

register = template.Library()


@functools.lru_cache(maxsize=256)
def _display_name(game: str) -> str:
    try:
        return load_game(game).display_name
    except EngineError:  # a family no longer registered: its game string as it is
        return game


@functools.lru_cache(maxsize=256)
def _num_seats(game: str) -> int:
    try:
        return load_game(game).num_seats
    except EngineError:
        return 4


@register.filter
def compass(seat: object, game: object) -> str:
    """``{{ seat.seat|compass:match.game }}``: the seat as people name it (``North``), in
    the page's language (league.words.seats)."""
    return seat_in_words(int(str(seat)), _num_seats(str(game)))


@register.filter
def move_time(tournament: Tournament) -> str:
    """``1 day per move``, ``30 seconds per move``: a league's time per move in words."""
    return move_time_words(tournament.move_seconds)


@register.filter
def game_name(game: object) -> str:
    """The name for people of a game string (the string itself if it does not load), in
    the page's language (web/engine_words.py lists the engine's names for the catalogue)."""
    return game_name_words(_display_name(str(game)))


@register.filter
def rules_url(game: object) -> str:
    """The rules page of a game string's family (web.rules_pages), or the rules index."""
    return rules_url_for_game(str(game))


@register.filter
def time_control_in_words(table: dict[str, object]) -> str:
    """A table's time control (league.selectors.tables's ``time_control``, ``move_seconds``,
    ``time_bank_seconds``) in the page's language."""
    return time_control_words(
        time_control=str(table.get("time_control", "")),
        move_seconds=float(str(table.get("move_seconds") or 0)),
        time_bank_seconds=float(str(table.get("time_bank_seconds") or 0)),
    )


@register.filter
def game_name_in_words(display_name: object) -> str:
    """A game's name for people already read (``Priffe, 2 rubbers``), in the page's language."""
    return game_name_words(str(display_name))
