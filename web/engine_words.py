"""The engine's fixed words that people read, gathered for the translation catalogues (the
engine imports only the standard library and speaks English): not imported by any page,
only read by makemessages; the pages, the API and league/words/ ask the catalogue.

Action labels (``choose a contract``), explanations of every action, the verbs and the
objects of action strings (``contract kings_jacks`` -> ``contract`` and ``kings jacks``),
the families' names and their games' names, the rule options' descriptions and choices,
the units of a game's length and the ranks of Kung och Adel's seats: each game gives them
(nothing here knows one family from another). ``python manage.py engine_words`` writes
them as two lists the catalogues are made from: web/engine_messages.py for the pages
(gettext) and web/static/web/js/engine_words.js for the table and the replay viewer
(Django's JavaScript catalogue); tests/web/test_translations.py checks they are current.
"""

from __future__ import annotations

import re
from pathlib import Path

from engine.errors import EngineError
from engine.game import DEAL_UNIT, GAME_UNIT
from engine.variants import FAMILIES, load_game

SEAT_RANKS = ("monarch", "noble", "peasant", "fool")
"""The ranks a game may show by its seats (``view.public.ranks``: Kung och Adel's)."""
ACTION_CODES_SEARCHED = 1024
"""Action codes tried for every game (cards, trumps, the shared and the family's own)."""
_CARD_OR_NUMBER = re.compile(r"^((10|[2-9TJQKA])[CDHS]|[CDHS]|NT|\d+|\d+(up|down))$")

WEB_DIR = Path(__file__).resolve().parent
PYTHON_LIST = WEB_DIR / "engine_messages.py"
JS_LIST = WEB_DIR / "static" / "web" / "js" / "engine_words.js"


def engine_words() -> tuple[list[str], list[str]]:
    """(words, verbs): every word or sentence of the engine people read, and the verbs of
    its action strings (translated with the context ``action verb``), each sorted."""
    words: set[str] = {GAME_UNIT.singular, GAME_UNIT.plural, DEAL_UNIT.singular, DEAL_UNIT.plural}
    words.update(SEAT_RANKS)
    verbs: set[str] = set()
    for name, family in FAMILIES.items():
        words.add(family.title or name)
        for spec in family.rules_class.option_specs().values():
            words.add(spec.doc)
            words.update(choice.replace("_", " ") for choice in spec.choices)
        for example in family.example_games():
            try:
                game = load_game(example)
            except EngineError:  # an example that does not load names nothing to translate
                continue
            words.update((game.display_name, game.title or name))
            words.update((game.match_unit.singular, game.match_unit.plural))
            words.update(game.action_labels().values())
            for code in range(ACTION_CODES_SEARCHED):
                try:
                    action = game.action_to_string(code)
                    explanation = game.action_explanation(code)
                except (ValueError, EngineError):
                    continue
                verb, _space, rest = action.partition(" ")
                verbs.add(verb)
                if rest and not _CARD_OR_NUMBER.match(rest):
                    words.add(rest.replace("_", " "))
                if explanation:
                    words.add(explanation)
    words.discard("")
    return sorted(words), sorted(verbs)


_NUMBERED_SHEET_WORD = re.compile(r"^(deal \d+|rubber \d+, deal \d+|took trick \d+|seat \d+)$")
"""Words of a score sheet with a number in them (league/words/score_sheet.py says them)."""


def sheet_words() -> list[str]:
    """Every fixed word of the families' score sheets for a club night (engine/table_sheet.py:
    the lines' titles, the fields' labels and choices, the notes, who deals, the dummy's
    name), sorted; the numbered ones are left to league/words/score_sheet.py's patterns."""
    words: set[str] = set()
    for family in FAMILIES.values():
        for example in family.example_games():
            try:
                game = load_game(example)
            except EngineError:  # an example that does not load names nothing to translate
                continue
            sheet = game.score_sheet()
            words.update(sheet.notes)
            words.add(sheet.dealer_rule)
            words.add(game.dummy_name)
            for line in sheet.lines:
                words.add(line.title)
                for field in line.fields:
                    words.add(field.label)
                    words.update(choice.replace("_", " ") for choice in field.choices)
    return sorted(w for w in words if w and not _NUMBERED_SHEET_WORD.match(w))


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def python_list() -> str:
    words, verbs = engine_words()
    lines = [
        '"""The engine\'s words for the catalogues: written by `python manage.py engine_words`',
        '(web/engine_words.py), never by hand."""',
        "",
        "# ruff: noqa: E501",
        "",
        "from django.utils.translation import gettext_noop, pgettext_lazy",
        "",
        "ENGINE_WORDS = [",
        *(f"    gettext_noop({_quoted(w)})," for w in words),
        "]",
        "ACTION_VERBS = [",
        *(f'    pgettext_lazy("action verb", {_quoted(v)}),' for v in verbs),
        "]",
        "SHEET_WORDS = [",
        *(f"    gettext_noop({_quoted(w)})," for w in sheet_words()),
        "]",
        "",
    ]
    return "\n".join(lines)


def js_list() -> str:
    words, verbs = engine_words()
    lines = [
        "// The engine's words for the JavaScript catalogue: written by",
        "// `python manage.py engine_words` (web/engine_words.py), never by hand. Not loaded",
        "// by any page: makemessages reads it, cards.js asks the catalogue for these words.",
        "/* global gettext_noop, pgettext */",
        "export const ENGINE_WORDS = [",
        *(f"  gettext_noop({_quoted(w)})," for w in words),
        "];",
        "export const ACTION_VERBS = [",
        *(f'  pgettext("action verb", {_quoted(v)}),' for v in verbs),
        "];",
        "",
    ]
    return "\n".join(lines)
