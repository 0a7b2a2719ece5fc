"""Time controls (docs/league.md, *Time controls*): a league is played live (seconds per
move, everyone at the table at once) or by correspondence (hours or days per move, people
come and go, as lichess's correspondence games). A round's play-by date, after which
nobody's deadline falls, is league.services.rounds.
"""

from __future__ import annotations

from django.utils.translation import gettext as _

from league.errors import InvalidInputError
from league.models import CORRESPONDENCE_MIN_SECONDS, TimeControl

LIVE_MOVE_SECONDS = 30.0
"""A live league's time per move when none is given."""
LIVE_MAX_MOVE_SECONDS = 3600.0
"""The longest move of a live game; longer is correspondence."""
CORRESPONDENCE_MOVE_SECONDS = 86400.0
"""A correspondence league's time per move when none is given: a day."""
CORRESPONDENCE_MAX_MOVE_SECONDS = 14 * 86400.0
"""The longest move of a correspondence game: two weeks (as a table's,
league.services.tables)."""


def time_control_choose(
    *, time_control: str | None, move_seconds: float | None, people: bool
) -> tuple[str, float]:
    """The time control and the time per move of a new league: as given, or by default
    correspondence of a day per move when people play in it (entrants that are people, and
    no move time of a live game given), live of 30 seconds otherwise. InvalidInputError
    naming the field for a move time the time control does not take."""
    if time_control is None:
        live = move_seconds is not None and move_seconds < CORRESPONDENCE_MIN_SECONDS
        time_control = TimeControl.LIVE if live or not people else TimeControl.CORRESPONDENCE
    if time_control not in TimeControl.values:
        raise InvalidInputError(
            _("time_control: %(repr)s is not one of %(join)s")
            % {"repr": repr(time_control), "join": ", ".join(TimeControl.values)},
            errors={"time_control": [f"one of {', '.join(TimeControl.values)}"]},
        )
    if time_control == TimeControl.LIVE:
        seconds = LIVE_MOVE_SECONDS if move_seconds is None else move_seconds
        if not 0 < seconds <= LIVE_MAX_MOVE_SECONDS:
            message = (
                f"a live game takes up to {LIVE_MAX_MOVE_SECONDS:g} seconds per move; "
                "choose correspondence for longer"
            )
            raise InvalidInputError(
                _("move_seconds: %(message)s") % {"message": message},
                errors={"move_seconds": [message]},
            )
        return time_control, seconds
    seconds = CORRESPONDENCE_MOVE_SECONDS if move_seconds is None else move_seconds
    if not CORRESPONDENCE_MIN_SECONDS <= seconds <= CORRESPONDENCE_MAX_MOVE_SECONDS:
        message = (
            "a correspondence game takes from an hour to two weeks per move "
            f"({CORRESPONDENCE_MIN_SECONDS:g} to {CORRESPONDENCE_MAX_MOVE_SECONDS:g} seconds)"
        )
        raise InvalidInputError(
            _("move_seconds: %(message)s") % {"message": message},
            errors={"move_seconds": [message]},
        )
    return time_control, seconds
