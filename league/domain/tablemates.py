"""How a person fared with and against the competitors they met (a profile's *Tablemates*),
counted from their finished games as plain data: who sat where, the scores, and for
partnership play each unit's seating and points (``engine.game.PartnershipUnit``).

In partnership play (a family whose game says ``partnership_play``: Priffe) each unit
counts once for the partner and once for each opponent, with the person's points of that
unit (and each opponent's own). In individual play every other seat is a tablemate: the
person's score and theirs per game, and whether the person finished above them.

league.selectors.profiles reads the games from the database and asks the games what they are; this
module only counts.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

TABLEMATES_SHOWN = 12
"""The people and bots met most often that a profile lists, per kind of play."""


@dataclass(frozen=True)
class Met:
    """A competitor as a profile names and links it."""

    name: str
    kind: str
    """``person`` or ``bot``."""
    username: str | None
    bot: int | None


@dataclass(frozen=True)
class FinishedGame:
    """One finished game of the person's, as the tally reads it."""

    seats: Mapping[int, int]
    """seat -> competitor (a dummy's seat is in no game's seats: nobody sits there)."""
    scores: Sequence[int]
    family: str
    partnership: bool
    """Whether the game is ranked as partnership play per unit (the game says so)."""
    units: Any
    """The stored units of partnership play (a list of ``PartnershipUnit``), or None."""
    unit_name: str
    """What the game calls a unit of partnership play (``rubber``)."""


@dataclass
class Tablemate:
    """How the person fared with or against one other competitor."""

    competitor: int
    name: str
    kind: str
    username: str | None
    bot: int | None
    games: int = 0
    """Games at one table."""
    partner_units: int = 0
    partner_points: int = 0
    opponent_units: int = 0
    opponent_points: int = 0
    their_points_as_opponent: int = 0
    tablemate_games: int = 0
    tablemate_points: int = 0
    their_tablemate_points: int = 0
    ahead: int = 0
    """Games (of individual play) the person finished above them."""
    families: set[str] = field(default_factory=set)

    @property
    def partner_average(self) -> float | None:
        return _average(self.partner_points, self.partner_units)

    @property
    def opponent_average(self) -> float | None:
        return _average(self.opponent_points, self.opponent_units)

    @property
    def their_opponent_average(self) -> float | None:
        return _average(self.their_points_as_opponent, self.opponent_units)

    @property
    def tablemate_average(self) -> float | None:
        return _average(self.tablemate_points, self.tablemate_games)

    @property
    def their_tablemate_average(self) -> float | None:
        return _average(self.their_tablemate_points, self.tablemate_games)


def _average(points: int, count: int) -> float | None:
    return round(points / count, 2) if count else None


@dataclass(frozen=True)
class Tablemates:
    partnership: list[Tablemate]
    """Met in partnership play, most units together first (with or against)."""
    individual: list[Tablemate]
    """Met in games of individual play, most games together first."""
    unit: str
    """What a unit of partnership play is called (``rubber``), for the headings."""


def unit_sides(seating: Sequence[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The two partnerships of a unit of partnership play, as ``engine.game.PartnershipUnit``
    describes its clockwise seating: partners opposite, so seating[0] with [2] and [1]
    with [3]."""
    return tuple(seating[0::2]), tuple(seating[1::2])


def tablemates_tally(
    *,
    competitor: int,
    games: Iterable[FinishedGame],
    met: Mapping[int, Met],
    shown: int = TABLEMATES_SHOWN,
) -> Tablemates:
    """The competitors ``competitor`` met most in ``games`` (``met``: who each one is),
    with the person's average score when partners and when opponents (partnership play,
    per unit), or as tablemates (individual play, per game): at most ``shown`` of each."""
    mates: dict[int, Tablemate] = {}

    def mate(other: int) -> Tablemate:
        if other not in mates:
            who = met[other]
            mates[other] = Tablemate(
                competitor=other, name=who.name, kind=who.kind, username=who.username, bot=who.bot
            )
        return mates[other]

    unit = "rubber"
    for game in games:
        seats = game.seats
        scores = game.scores
        mine = [seat for seat, other in seats.items() if other == competitor]
        if len(mine) != 1:
            continue  # a person twice at one table (a test table): no partner or opponent
        me = mine[0]
        for other in {o for o in seats.values() if o != competitor}:
            mate(other).games += 1
            mate(other).families.add(game.family)
        if game.partnership and isinstance(game.units, list):
            unit = game.unit_name
            for played in game.units:
                _count_unit(played, me, seats, mate)
            continue
        for seat, other in seats.items():
            if other == competitor or seat >= len(scores) or me >= len(scores):
                continue
            record = mate(other)
            record.tablemate_games += 1
            record.tablemate_points += int(scores[me])
            record.their_tablemate_points += int(scores[seat])
            record.ahead += int(scores[me] > scores[seat])
    partnership = sorted(
        (m for m in mates.values() if m.partner_units or m.opponent_units),
        key=lambda m: (-(m.partner_units + m.opponent_units), m.name),
    )[:shown]
    individual = sorted(
        (m for m in mates.values() if m.tablemate_games),
        key=lambda m: (-m.tablemate_games, m.name),
    )[:shown]
    return Tablemates(partnership=partnership, individual=individual, unit=unit)


def _count_unit(played: Any, me: int, seats: Mapping[int, int], mate: Any) -> None:
    """One unit of partnership play: the person's partner and the two opponents (the
    unit's partnerships, ``unit_sides``), with the person's and their points of it."""
    if not isinstance(played, dict):
        return
    seating = list(played.get("seating") or [])
    points = list(played.get("points") or [])
    if me not in seating or len(seating) != 4 or me >= len(points):
        return
    ours, theirs = unit_sides(seating)
    if me not in ours:
        ours, theirs = theirs, ours
    for seat in (*(s for s in ours if s != me), *theirs):
        other = seats.get(seat)
        if other is None:  # a dummy's seat (Priffe's träkarl): nobody sits there
            continue
        record = mate(other)
        if seat in ours:
            record.partner_units += 1
            record.partner_points += int(points[me])
        else:
            record.opponent_units += 1
            record.opponent_points += int(points[me])
            record.their_points_as_opponent += int(points[seat]) if seat < len(points) else 0
