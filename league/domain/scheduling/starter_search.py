"""Offline search for whist-tournament starters; its results ship in ``data/whist_starters.json``.

Two kinds of starter (docs/scheduling.md §2.2), both developed by adding ``j mod m`` to every
finite entry for round ``j``:

* **1-rotational** Wh(m + 1), ``m ≡ 3 (mod 4)``: ``n = (m + 1) / 4`` games on ``Z_m + {inf}``;
  ``inf`` stays put. Works iff the partner differences hit every non-zero residue once and the
  opponent differences every non-zero residue twice.
* **cyclic** Wh(m), ``m ≡ 1 (mod 4)``: ``n = (m - 1) / 4`` games on ``Z_m \\ {0}``; player ``j``
  sits out round ``j``. Same difference conditions.

The search has two stages:

1. a random *starter* in the Room-square sense: pairs partitioning the residues but one, whose
   differences ``±(b - a)`` hit every non-zero residue exactly once (these become the partner
   pairs; the residue left over partners ``∞``, or sits out in the cyclic case);
2. a depth-first grouping of those pairs into games, two pairs per game, keeping each
   opponent-difference class at most twice. In a game of pairs ``{a, c}`` and ``{b, d}`` the
   opponents are the four cross pairs whatever the seating, so the seating is free for stage 3.

3. the direction of each game is chosen (exhaustively, ``2^n`` ways) to balance left-hand
   opponents: the one-sided differences ``lho - player`` should hit ``δ`` and ``-δ`` equally.

Stage 2 is small (``(2n - 3)!!`` groupings at most, heavily pruned), so for Wh(28)...Wh(40) a
few random starters suffice: seconds to a minute where the one-stage searches of the notes
found nothing in minutes. The search is deterministic for a seed and bounded by node counts,
not by the clock. Run ``python -m league.domain.scheduling.starter_search`` to regenerate the data.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Final

INF: Final = -1
"""The fixed point ``∞`` of a 1-rotational starter (``"inf"`` in the JSON data)."""

Game = tuple[int, int, int, int]
"""Clockwise seats; partners are entries 0-2 and 1-3."""

DATA_PATH: Final = Path(__file__).with_name("data") / "whist_starters.json"


def _cls(x: int, m: int) -> int:
    x %= m
    return min(x, m - x)


def _random_room_starter(m: int, rng: random.Random) -> list[tuple[int, int]] | None:
    """Pairs partitioning ``Z_m \\ {0}`` whose difference classes are all distinct."""
    k = (m - 1) // 2
    used = [False] * m
    used[0] = True
    class_used = [False] * (k + 1)
    pairs: list[tuple[int, int]] = []

    def extend() -> bool:
        try:
            x = used.index(False)
        except ValueError:
            return True
        classes = list(range(1, k + 1))
        rng.shuffle(classes)
        for d in classes:
            if class_used[d]:
                continue
            for y in ((x + d) % m, (x - d) % m):
                if not used[y]:
                    used[x] = used[y] = True
                    class_used[d] = True
                    pairs.append((x, y))
                    if extend():
                        return True
                    used[x] = used[y] = False
                    class_used[d] = False
                    pairs.pop()
        return False

    return pairs if extend() else None


class _BudgetError(Exception):
    pass


def _group_pairs(
    m: int, pairs: Sequence[tuple[int, int]], counts: list[int], max_nodes: int
) -> list[tuple[tuple[int, int], tuple[int, int]]] | None:
    """Group ``pairs`` two by two so that every opponent class reaches exactly 2."""
    used = [False] * len(pairs)
    games: list[tuple[tuple[int, int], tuple[int, int]]] = []
    nodes = [0]

    def cross(p: tuple[int, int], q: tuple[int, int]) -> tuple[int, int, int, int]:
        (a, c), (b, d) = p, q
        return (_cls(a - b, m), _cls(a - d, m), _cls(c - b, m), _cls(c - d, m))

    def extend() -> bool:
        nodes[0] += 1
        if nodes[0] > max_nodes:
            raise _BudgetError
        try:
            i = used.index(False)
        except ValueError:
            return True
        used[i] = True
        for j in range(i + 1, len(pairs)):
            if used[j]:
                continue
            classes = cross(pairs[i], pairs[j])
            for c in classes:
                counts[c] += 1
            if all(counts[c] <= 2 for c in classes):
                used[j] = True
                games.append((pairs[i], pairs[j]))
                if extend():
                    return True
                used[j] = False
                games.pop()
            for c in classes:
                counts[c] -= 1
        used[i] = False
        return False

    try:
        return games if extend() else None
    except _BudgetError:
        return None


def lho_imbalance(m: int, starter: Sequence[Game]) -> int:
    """``Σ_δ (#δ - #(-δ))²`` over the one-sided left-hand differences of the finite seats."""
    counts = [0] * m
    for game in starter:
        for s in range(4):
            x, y = game[s], game[(s + 1) % 4]
            if x != INF and y != INF:
                counts[(y - x) % m] += 1
    return sum((counts[d] - counts[m - d]) ** 2 for d in range(1, (m + 1) // 2))


def orient(m: int, starter: Sequence[Game]) -> tuple[Game, ...]:
    """Choose each game's direction to minimise :func:`lho_imbalance` (all ``2^n`` ways)."""
    best: tuple[int, tuple[Game, ...]] | None = None
    for mask in range(1 << len(starter)):
        games = tuple(
            (g[0], g[3], g[2], g[1]) if mask >> i & 1 else g for i, g in enumerate(starter)
        )
        cost = lho_imbalance(m, games)
        if best is None or cost < best[0]:
            best = (cost, games)
    assert best is not None
    return best[1]


def search_starter(
    m: int, *, seed: int, attempts: int = 10_000, max_nodes: int = 200_000
) -> tuple[Game, ...] | None:
    """A starter for Wh(m + 1) (``m ≡ 3 mod 4``, 1-rotational) or Wh(m) (``m ≡ 1``, cyclic)."""
    if m % 2 == 0 or m < 3:
        raise ValueError("the modulus must be odd and at least 3")
    one_rotational = m % 4 == 3
    rng = random.Random(f"whist-starter:{m}:{seed}")
    for _ in range(attempts):
        pairs = _random_room_starter(m, rng)
        if pairs is None:
            continue
        rng.shuffle(pairs)
        if not one_rotational:
            grouped = _group_pairs(m, pairs, [0] * (m // 2 + 1), max_nodes)
            if grouped is not None:
                return orient(m, [(p[0], q[0], p[1], q[1]) for p, q in grouped])
            continue
        # 1-rotational: residue 0 partners ∞; the pair {b, d} at ∞'s table faces both.
        for idx, (b, d) in enumerate(pairs):
            counts = [0] * (m // 2 + 1)
            counts[_cls(b, m)] += 1
            counts[_cls(d, m)] += 1
            rest = pairs[:idx] + pairs[idx + 1 :]
            grouped = _group_pairs(m, rest, counts, max_nodes)
            if grouped is not None:
                games = [(0, b, INF, d)] + [(p[0], q[0], p[1], q[1]) for p, q in grouped]
                return orient(m, games)
    return None


def starter_to_json(starter: Sequence[Game]) -> list[list[int | str]]:
    return [["inf" if x == INF else x for x in game] for game in starter]


def starter_from_json(data: Sequence[Sequence[int | str]]) -> tuple[Game, ...]:
    games: list[Game] = []
    for game in data:
        entries = [INF if x == "inf" else int(x) for x in game]
        if len(entries) != 4:
            raise ValueError(f"a game has four seats: {game}")
        games.append((entries[0], entries[1], entries[2], entries[3]))
    return tuple(games)


def main(argv: Sequence[str] = ()) -> int:
    """Search every player count of ``argv`` (default: those shipped) and write the data file."""
    sizes = [int(a) for a in argv] or [8, 12, 16, 20, 21, 24, 28, 32, 33, 36, 40]
    data: dict[str, object] = {}
    if DATA_PATH.exists():
        data = json.loads(DATA_PATH.read_text())
    designs = dict(data.get("designs", {}))  # type: ignore[call-overload]
    for players in sizes:
        m = players - 1 if players % 4 == 0 else players
        starter = search_starter(m, seed=0)
        if starter is None:
            sys.stderr.write(f"{players}: no starter found\n")
            return 1
        designs[str(players)] = {
            "construction": "1-rotational" if players % 4 == 0 else "cyclic",
            "modulus": m,
            "starter": starter_to_json(starter),
            "lho_imbalance": lho_imbalance(m, starter),
            "found_by": "league.domain.scheduling.starter_search, seed 0",
        }
        sys.stdout.write(f"{players}: {starter_to_json(starter)}\n")
    out = {
        "about": (
            "Whist-tournament starters (docs/scheduling.md 2.2). 1-rotational: players "
            "0..m-1 and inf; round j adds j mod m to every finite entry. cyclic: players "
            "0..m-1; round j adds j, player j sits out. Seats clockwise, partners 0-2 and 1-3."
        ),
        "designs": dict(sorted(designs.items(), key=lambda kv: int(kv[0]))),
    }
    DATA_PATH.write_text(_dump(out))
    return 0


def _dump(out: Mapping[str, object]) -> str:
    """JSON with one line per design field (starters stay on one line)."""
    lines = ["{", f'  "about": {json.dumps(out["about"], ensure_ascii=False)},', '  "designs": {']
    designs = out["designs"]
    assert isinstance(designs, dict)
    for i, (players, design) in enumerate(designs.items()):
        fields = ",\n".join(
            f"      {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in design.items()
        )
        comma = "," if i < len(designs) - 1 else ""
        lines.append(f"    {json.dumps(players)}: {{\n{fields}\n    }}{comma}")
    lines += ["  }", "}"]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
