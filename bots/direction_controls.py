"""Bidirectional control characters in text people choose: found, refused or removed.

U+202A-U+202E (embeddings and overrides), U+2066-U+2069 (isolates), U+200E/U+200F (the
left-to-right and right-to-left marks) and U+061C (the Arabic letter mark) change the order
in which the characters around them are shown: ``"\\u202egnp.exe"`` shows as "exe.png". No
name needs one, so a name that holds one is refused with the characters named
(``direction_controls_in``: the services that create clubs, leagues, ladders, bots and
accounts), and a chat line has them removed (``direction_controls_removed``).

In bots/, the lowest layer with names (a bot's), so that league/ shares it.
docs/operations.md, *Hostile input*.
"""

from __future__ import annotations

from django.utils.translation import gettext as _

DIRECTION_CONTROLS = frozenset(
    [chr(code) for code in range(0x202A, 0x202F)]
    + [chr(code) for code in range(0x2066, 0x206A)]
    + ["\u200e", "\u200f", "\u061c"]
)


def direction_controls_in(text: str) -> list[str]:
    """The direction controls in ``text``, each once, as "U+202E", in code point order."""
    found = {ch for ch in text if ch in DIRECTION_CONTROLS}
    return [f"U+{ord(ch):04X}" for ch in sorted(found)]


def direction_controls_removed(text: str) -> str:
    """``text`` without its direction controls."""
    return "".join(ch for ch in text if ch not in DIRECTION_CONTROLS)


def direction_controls_refused_message(found: list[str]) -> str:
    """The words of a refusal of a name holding ``found`` (direction_controls_in)."""
    return _("may not contain characters that change the direction of the text (%(found)s)") % {
        "found": ", ".join(found)
    }
