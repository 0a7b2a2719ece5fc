"""A rematch's seating: the same players, each moved on by one seat (the player of seat 0
sits at seat 1, the last seat's at seat 0), so that the deal and the lead move round the
table as they would at the next game of a real one."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

Occupant = TypeVar("Occupant")


def seats_rotated(occupants: Sequence[Occupant], by: int = 1) -> list[Occupant]:
    """``occupants`` by seat, each moved on ``by`` seats: new seat ``(s + by) % n`` takes
    the occupant of seat ``s``."""
    count = len(occupants)
    if count == 0:
        return []
    return [occupants[(seat - by) % count] for seat in range(count)]
