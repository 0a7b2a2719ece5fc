"""What a bot's author is told about the game families it plays, in the request's
language. The families are the engine's registry's (engine.variants.FAMILIES): nothing
here knows one by name."""

from __future__ import annotations

from django.utils.translation import gettext

from engine.variants import FAMILIES


def known_families() -> str:
    """The registered families' names, in the registry's order: what an author may name."""
    return ", ".join(FAMILIES)


def families_missing() -> str:
    """Why a bot of no family is refused, naming what to add."""
    return gettext(
        "add the game families the bot plays (families: one or more of %(known)s); "
        "a bot of no family plays no ladder"
    ) % {"known": known_families()}


def family_unknown(name: str) -> str:
    return gettext("unknown game family %(name)s (known: %(known)s)") % {
        "name": repr(name),
        "known": known_families(),
    }
