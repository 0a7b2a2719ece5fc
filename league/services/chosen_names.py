"""A name a person chooses (a club's, a league's, a ladder's, an account's) is refused when
it holds a bidirectional control character (bots/direction_controls.py): one check, called
by every service that stores such a name."""

from __future__ import annotations

from bots.direction_controls import direction_controls_in, direction_controls_refused_message
from league.errors import InvalidInputError


def chosen_name_check(name: str, *, field: str = "name") -> str:
    """``name``, or InvalidInputError naming ``field`` and the characters refused."""
    found = direction_controls_in(name)
    if found:
        message = direction_controls_refused_message(found)
        raise InvalidInputError(f"{field}: {message}", errors={field: [message]})
    return name
