"""The plain data every scheduler returns: players, tables, rounds.

A *table* lists its four seats clockwise. Seat 0 deals first (or chooses first, in the games
where the dealer chooses), seat ``s + 1`` plays immediately after seat ``s`` (it is seat ``s``'s
left-hand opponent), and in a partnership game seats 0 and 2 are partners against seats 1 and 3.

A seat holds an entrant (a person or a bot version, by id), ``None`` when a built-in bot fills
it (the organiser's choice in the individual games), or :data:`TRAKARL`, the Priffe dummy that
completes a table of three.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final, NewType, TypeAlias

PlayerId = NewType("PlayerId", int)
"""An entrant of a tournament (a person or a bot version); opaque to the schedulers."""

SEATS: Final = 4
"""Seats at a table: every game scheduled here is played by four."""


class Trakarl(enum.Enum):
    """The Priffe *träkarl*: a dummy hand that makes three players a table of four."""

    TRAKARL = "trakarl"

    def __repr__(self) -> str:
        return "TRAKARL"


TRAKARL: Final = Trakarl.TRAKARL

Occupant: TypeAlias = PlayerId | Trakarl | None
"""Who holds a seat: an entrant, the träkarl, or ``None`` for a built-in bot."""


class Fill(enum.StrEnum):
    """What happens to the seats left over when the players do not fill whole tables."""

    BYES = "byes"
    """The players who do not fit sit out the round (a bye); byes are spread evenly."""
    BOTS = "bots"
    """Built-in bots (``None`` seats) complete the tables; at most one per table if possible."""
    TRAKARL = "trakarl"
    """Priffe: a träkarl completes each table of three (at most one per table)."""


class Mode(enum.StrEnum):
    """What a schedule balances."""

    SOLO = "solo"
    """Individual games (Kingen, King, Kung och Adel): who meets whom at a table."""
    PARTNERSHIP = "partnership"
    """Priffe: who partners whom (seats 0-2 and 1-3) and who opposes whom."""


@dataclass(frozen=True, slots=True)
class Table:
    """Four seats, clockwise from the first dealer (seat 0)."""

    seats: tuple[Occupant, ...]

    def __post_init__(self) -> None:
        if len(self.seats) != SEATS:
            raise ValueError(f"a table has {SEATS} seats, got {len(self.seats)}")
        ids = self.players
        if len(set(ids)) != len(ids):
            raise ValueError(f"a player holds two seats at one table: {self.seats}")

    @property
    def players(self) -> tuple[PlayerId, ...]:
        """The entrants at the table, in seat order (fillers left out)."""
        return tuple(
            occupant
            for occupant in self.seats
            if occupant is not None and not isinstance(occupant, Trakarl)
        )

    def seat_of(self, player: PlayerId) -> int:
        """The seat ``player`` holds (ValueError if not at this table)."""
        return self.seats.index(player)

    def partner_of(self, seat: int) -> Occupant:
        """The partner of ``seat`` in a partnership game (the seat opposite)."""
        return self.seats[(seat + 2) % SEATS]


@dataclass(frozen=True, slots=True)
class Round:
    """One round: every present player is at one table or has a bye."""

    tables: tuple[Table, ...]
    byes: tuple[PlayerId, ...] = ()

    def __post_init__(self) -> None:
        seen = [p for table in self.tables for p in table.players] + list(self.byes)
        if len(set(seen)) != len(seen):
            raise ValueError("a player appears twice in one round")

    @property
    def players(self) -> tuple[PlayerId, ...]:
        """Everyone present: seated players in table order, then the byes."""
        return tuple(p for table in self.tables for p in table.players) + self.byes

    def __iter__(self) -> Iterator[Table]:
        return iter(self.tables)


Schedule: TypeAlias = tuple[Round, ...]
"""Rounds in playing order."""


def is_filler(occupant: Occupant) -> bool:
    """True for a seat not held by an entrant (a built-in bot or the träkarl)."""
    return occupant is None or isinstance(occupant, Trakarl)
