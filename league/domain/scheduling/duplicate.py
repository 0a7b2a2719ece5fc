"""Duplicate play: the same deals at every table, with the seats rotated.

Card games carry a lot of luck; duplicate play cancels most of it by comparing each result only
with the other results obtained with the same cards (duplicate bridge, duplicate poker; notes/
scheduling.md §8). It is the default format of bot leagues.

A **board** is one deal, fixed by its deal seed (:func:`deal_seed`). The tables of a round come
from any scheduler (round robin, rotating partners, Swiss); every table of round ``k`` plays the
same boards, and plays each board once per *seating* of the seating set:

* individual games: :data:`SOLO_ROTATIONS` (4 rotations: every competitor holds every hand of the
  board once), or :data:`SOLO_BALANCED_12` (12 seatings: every hand 3 times *and* every ordered
  pair of neighbours 4 times, so who plays after whom is balanced too);
* partnership games: :data:`PARTNERSHIP_SWAP` (the two partnerships swap cards: teams-of-four
  duplicate), or :data:`PARTNERSHIP_ROTATING_6` (3 partnerships x 2 sides: four competitors
  rotating partners on every board).

A seating ``s`` says which competitor of the table holds each hand: hand ``h`` (hand 0 deals
first) goes to the table's competitor ``s[h]``. The scoring side (matchpoints per group of equal
cards, percentages) is :func:`league.domain.standings_maths.duplicate_scores`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from league.domain.scheduling.model import Mode, Occupant, Round

Seating = tuple[int, int, int, int]

SOLO_ROTATIONS: Final[tuple[Seating, ...]] = (
    (0, 1, 2, 3),
    (1, 2, 3, 0),
    (2, 3, 0, 1),
    (3, 0, 1, 2),
)
_BALANCED_12 = "0123 0132 0312 1023 1032 1203 2130 2301 2310 3021 3201 3210"
SOLO_BALANCED_12: Final[tuple[Seating, ...]] = tuple(
    (int(s[0]), int(s[1]), int(s[2]), int(s[3])) for s in _BALANCED_12.split(" ")
)
"""Verified with CP-SAT in notes/scheduling.md §8.2 (and checked by the tests)."""
PARTNERSHIP_SWAP: Final[tuple[Seating, ...]] = ((0, 1, 2, 3), (1, 2, 3, 0))
PARTNERSHIP_ROTATING_6: Final[tuple[Seating, ...]] = (
    (0, 1, 2, 3),
    (1, 2, 3, 0),
    (0, 2, 1, 3),
    (2, 1, 3, 0),
    (0, 1, 3, 2),
    (1, 3, 2, 0),
)


def default_seatings(mode: Mode) -> tuple[Seating, ...]:
    """4 rotations for individual games, a swap of sides for partnerships."""
    return SOLO_ROTATIONS if mode is Mode.SOLO else PARTNERSHIP_SWAP


@dataclass(frozen=True, slots=True, kw_only=True)
class DuplicatePlay:
    """One play of one board at one table."""

    round_index: int
    """Index of the round in the schedule."""
    table: int
    """Index of the table in the round."""
    board: int
    """Board number; every table of the round plays the same boards."""
    deal_seed: int
    """Seed of the deal (the same for every play of the board)."""
    seating: int
    """Index in the seating set."""
    seats: tuple[Occupant, ...]
    """``seats[h]`` holds hand ``h``; hand 0 deals first."""


def deal_seed(seed: int, board: int) -> int:
    """The deal seed of ``board`` in an event seeded ``seed`` (63 bits, stable everywhere)."""
    digest = hashlib.sha256(f"king-league/deal/{seed}/{board}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def duplicate_plan(
    rounds: Sequence[Round],
    *,
    boards_per_round: int,
    seed: int,
    seatings: Sequence[Seating] = SOLO_ROTATIONS,
    first_board: int = 1,
) -> tuple[DuplicatePlay, ...]:
    """Every play of every board: round by round, table by table, board by board, seating."""
    if boards_per_round < 1:
        raise ValueError("a round plays at least one board")
    for seating in seatings:
        if sorted(seating) != [0, 1, 2, 3]:
            raise ValueError(f"a seating is a permutation of the four seats: {seating}")
    plays: list[DuplicatePlay] = []
    for r, round_ in enumerate(rounds):
        for b in range(boards_per_round):
            board = first_board + r * boards_per_round + b
            seed_of_board = deal_seed(seed, board)
            for t, table in enumerate(round_.tables):
                for k, seating in enumerate(seatings):
                    plays.append(
                        DuplicatePlay(
                            round_index=r,
                            table=t,
                            board=board,
                            deal_seed=seed_of_board,
                            seating=k,
                            seats=tuple(table.seats[i] for i in seating),
                        )
                    )
    return tuple(plays)
