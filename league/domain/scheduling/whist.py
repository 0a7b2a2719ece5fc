"""Whist tournaments: every pair of players partners exactly once and opposes exactly twice.

A whist tournament Wh(v) exists for every v ≡ 0 or 1 (mod 4) (docs/scheduling.md §2.2). For
v = 4n it has 4n - 1 rounds of n tables; for v = 4n + 1 it has 4n + 1 rounds and each player
sits out exactly one. Three constructions, all checked in the tests for every v from 4 to 40:

* **primitive root** (§2.3) for v a prime or the square of a prime, v ≡ 1 (mod 4) (5, 9, 13,
  17, 25, 29, 37): computed here. Also *directed* (each player has every other once as
  left-hand and once as right-hand opponent) and *ordered* (every seat equally often).
* **1-rotational** (§2.4) for v ≡ 0 (mod 4): a starter on ``Z_(v-1) + {inf}`` developed mod
  v - 1. Starters for 8 ... 40 are shipped in ``data/whist_starters.json`` (found by
  :mod:`league.domain.scheduling.starter_search`); v = 4 is the single table ``(0, 1, inf, 2)``.
* **cyclic** for v ≡ 1 (mod 4) that are not prime powers (21, 33): a starter on ``Z_v``
  developed mod v, player j sitting out round j; shipped likewise.

A design is returned over the points ``0 .. v-1``; for 1-rotational designs ``∞`` is point
``v - 1`` (the point a träkarl takes when v - 1 people play). Seats are clockwise with
partners opposite; the dealer seat is chosen later (:mod:`league.domain.scheduling.seating`).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from league.domain.scheduling.starter_search import DATA_PATH, INF, Game, starter_from_json

SIX_RUBBER_CYCLE: Final[tuple[Game, ...]] = (
    (0, 2, 1, 3),
    (0, 1, 2, 3),
    (0, 1, 3, 2),
    (0, 3, 1, 2),
    (0, 3, 2, 1),
    (0, 2, 3, 1),
)
"""Four players, six rubbers (docs/scheduling.md §2.2): the three partnerships, then again
with the direction reversed. Every pair partners twice and opposes four times, and each player
has each opponent twice on the left and twice on the right."""


@dataclass(frozen=True, slots=True)
class WhistDesign:
    """A whist tournament on the points ``0 .. players-1``."""

    players: int
    rounds: tuple[tuple[Game, ...], ...]
    """Games per round, clockwise; partners are entries 0-2 and 1-3."""
    sit_outs: tuple[tuple[int, ...], ...]
    construction: str


def _is_prime(n: int) -> bool:
    return n >= 2 and all(n % d for d in range(2, int(n**0.5) + 1))


def _prime_square_root(v: int) -> int | None:
    """``p`` if ``v == p²`` for a prime ``p``."""
    p = round(v**0.5)
    return p if p * p == v and _is_prime(p) else None


class _Field:
    """GF(p) or GF(p²) (as ``a + b·t`` with ``t² = c``, c a non-residue), elements as ints."""

    def __init__(self, q: int) -> None:
        self.q = q
        if _is_prime(q):
            self.p, self.c = q, 0
        else:
            p = _prime_square_root(q)
            if p is None:
                raise ValueError(f"{q} is neither a prime nor the square of a prime")
            self.p = p
            squares = {x * x % p for x in range(1, p)}
            self.c = next(x for x in range(2, p) if x not in squares)

    def add(self, x: int, y: int) -> int:
        p = self.p
        if self.q == p:
            return (x + y) % p
        return (x % p + y % p) % p + p * ((x // p + y // p) % p)

    def mul(self, x: int, y: int) -> int:
        p = self.p
        if self.q == p:
            return x * y % p
        a, b, c, d = x % p, x // p, y % p, y // p
        return (a * c + b * d * self.c) % p + p * ((a * d + b * c) % p)

    def power(self, x: int, e: int) -> int:
        result = 1
        for _ in range(e):
            result = self.mul(result, x)
        return result

    def primitive_element(self) -> int:
        order = self.q - 1
        for w in range(2, self.q):
            x, k = w, 1
            while x != 1:
                x, k = self.mul(x, w), k + 1
            if k == order:
                return w
        raise ValueError(f"GF({self.q}) has no primitive element?")


def primitive_root_design(q: int) -> WhistDesign:
    """Wh(q) for q a prime or prime square, q ≡ 1 (mod 4): directed and ordered (§2.3)."""
    if q % 4 != 1:
        raise ValueError(f"the primitive-root construction needs q ≡ 1 (mod 4), got {q}")
    field = _Field(q)
    n = (q - 1) // 4
    w = field.primitive_element()
    start = [tuple(field.power(w, i + k * n) for k in range(4)) for i in range(n)]
    rounds = tuple(
        tuple(
            (field.add(g[0], j), field.add(g[1], j), field.add(g[2], j), field.add(g[3], j))
            for g in start
        )
        for j in range(q)
    )
    return WhistDesign(q, rounds, tuple((j,) for j in range(q)), f"primitive root in GF({q})")


def develop_one_rotational(m: int, starter: Sequence[Game]) -> WhistDesign:
    """Develop a 1-rotational starter mod ``m``; ``∞`` becomes point ``m``."""

    def shift(x: int, j: int) -> int:
        return m if x == INF else (x + j) % m

    rounds = tuple(
        tuple((shift(g[0], j), shift(g[1], j), shift(g[2], j), shift(g[3], j)) for g in starter)
        for j in range(m)
    )
    return WhistDesign(m + 1, rounds, tuple(() for _ in range(m)), f"1-rotational on Z_{m}+inf")


def develop_cyclic(m: int, starter: Sequence[Game]) -> WhistDesign:
    """Develop a cyclic starter mod ``m`` (point 0 sits out of the starter)."""
    rounds = tuple(
        tuple(((g[0] + j) % m, (g[1] + j) % m, (g[2] + j) % m, (g[3] + j) % m) for g in starter)
        for j in range(m)
    )
    return WhistDesign(m, rounds, tuple((j,) for j in range(m)), f"cyclic on Z_{m}")


@functools.cache
def shipped_starters() -> dict[int, tuple[str, int, tuple[Game, ...]]]:
    """The starters in ``data/whist_starters.json``: players -> (construction, modulus, games)."""
    data = json.loads(DATA_PATH.read_text())
    return {
        int(players): (
            entry["construction"],
            int(entry["modulus"]),
            starter_from_json(entry["starter"]),
        )
        for players, entry in data["designs"].items()
    }


def whist_sizes() -> tuple[int, ...]:
    """Every v for which :func:`whist_design` has a design (every v ≡ 0, 1 mod 4 to 40)."""
    sizes = {4, *shipped_starters()}
    sizes.update(q for q in range(5, 50, 4) if _is_prime(q) or _prime_square_root(q))
    return tuple(sorted(sizes))


@functools.cache
def whist_design(players: int) -> WhistDesign:
    """A Wh(``players``) (ValueError if none is available)."""
    if players == 4:
        return develop_one_rotational(3, ((0, 1, INF, 2),))
    if players % 4 == 1 and (_is_prime(players) or _prime_square_root(players)):
        return primitive_root_design(players)
    shipped = shipped_starters().get(players)
    if shipped is None:
        raise ValueError(
            f"no whist tournament for {players} players (needs ≡ 0 or 1 mod 4; "
            f"available: {', '.join(map(str, whist_sizes()))})"
        )
    construction, modulus, starter = shipped
    if construction == "1-rotational":
        return develop_one_rotational(modulus, starter)
    return develop_cyclic(modulus, starter)
