"""Swiss for tables of four: tables of players close in the standings, avoiding rematches.

Chess Swiss systems pair two players; a table of four is a grouping problem. This is the
mahjong "Swiss seating" (MahjongPantheon; docs/scheduling.md §2.3):

1. **Byes** (with byes): the ``N mod 4`` players with the fewest byes so far sit out, the
   lowest-ranked first among equals. **Fillers** (bots or träkarls): one each at the bottom
   tables.
2. **Tables, top down**: the highest-ranked unseated player opens a table; it is filled with the
   next-ranked players whose addition keeps the table's *crossings* (earlier meetings among its
   players, each earlier meeting counted; partnerships count 3 in Priffe) at most ``cap``; on a
   dead end the search backtracks. It starts at ``cap = 0`` and relaxes the cap by one whenever
   no seating exists (or the node budget runs out), so a rematch happens only when the field
   forces it.
3. **Partners** (Priffe): of the three ways to split a table into two partnerships, the one with
   the fewest earlier partnerships (then opponents) is played.
4. **Seats**: dealer seat and direction are balanced over the season
   (:mod:`league.domain.scheduling.seating`).

Deterministic: no randomness at all (the standings order breaks every tie).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from league.domain.scheduling.balance import Pair, balance_of, pair
from league.domain.scheduling.local_search import bye_baseline, table_layout
from league.domain.scheduling.model import (
    SEATS,
    TRAKARL,
    Fill,
    Mode,
    Occupant,
    PlayerId,
    Round,
    Table,
    Trakarl,
)
from league.domain.scheduling.seating import seat_rounds

PARTNER_CROSSING = 3
"""An earlier partnership counts this many crossings when forming Priffe tables."""


class _OutOfNodesError(Exception):
    pass


def swiss_round(
    standings: Sequence[PlayerId],
    *,
    mode: Mode,
    fill: Fill = Fill.BYES,
    history: Sequence[Round] = (),
    max_nodes: int = 20_000,
) -> Round:
    """Seat the next round for ``standings`` (present players, best first)."""
    order = list(standings)
    if len(set(order)) != len(order):
        raise ValueError("a player is listed twice")
    if fill is Fill.TRAKARL and mode is not Mode.PARTNERSHIP:
        raise ValueError("the träkarl completes Priffe tables only")
    tables, fillers, byes = table_layout(len(order), fill)
    if tables == 0:
        raise ValueError(f"{len(order)} players cannot fill a table")
    if fillers > tables:
        raise ValueError(f"{fillers} fillers for {tables} tables: use byes")
    balance = balance_of(history)
    rank = {p: i for i, p in enumerate(order)}
    bye_counts = bye_baseline(order, history)
    sitting_out = sorted(order, key=lambda p: (bye_counts[p], -rank[p]))[:byes]
    playing = [p for p in order if p not in set(sitting_out)]

    def crossings(a: PlayerId, b: PlayerId) -> int:
        key = pair(a, b)
        extra = PARTNER_CROSSING - 1 if mode is Mode.PARTNERSHIP else 0
        return balance.meetings[key] + extra * balance.partners[key]

    sizes = [SEATS] * (tables - fillers) + [SEATS - 1] * fillers
    cap = 0
    while True:
        grouping = _group(playing, sizes, cap, crossings, max_nodes)
        if grouping is not None:
            break
        cap += 1
    filler: Occupant = TRAKARL if fill is Fill.TRAKARL else None
    seated: list[Table] = []
    for group in grouping:
        seats: list[Occupant] = list(group)
        if len(seats) < SEATS:
            seats.append(filler)
        if mode is Mode.PARTNERSHIP:
            seats = _best_partnerships(seats, balance.partners, balance.opponents)
        seated.append(Table(tuple(seats)))
    round_ = Round(tuple(seated), tuple(sitting_out))
    return seat_rounds([round_], mode=mode, history=history)[0]


def _group(
    playing: list[PlayerId],
    sizes: list[int],
    cap: int,
    crossings: Callable[[PlayerId, PlayerId], int],
    max_nodes: int,
) -> list[list[PlayerId]] | None:
    """Tables of the given sizes, top down, each with at most ``cap`` crossings."""
    position = {p: i for i, p in enumerate(playing)}
    unseated = list(playing)
    groups: list[list[PlayerId]] = []
    nodes = [0]

    def fill_table(t: int, table: list[PlayerId], used: int, start: int) -> bool:
        nodes[0] += 1
        if nodes[0] > max_nodes:
            raise _OutOfNodesError
        if len(table) == sizes[t]:
            groups.append(list(table))
            for p in table:
                unseated.remove(p)
            if open_table(t + 1):
                return True
            unseated.extend(table)
            unseated.sort(key=position.__getitem__)
            groups.pop()
            return False
        for i in range(start, len(unseated)):
            p = unseated[i]
            if p in table:
                continue
            extra = sum(crossings(p, q) for q in table)
            if used + extra > cap:
                continue
            table.append(p)
            if fill_table(t, table, used + extra, i + 1):
                return True
            table.pop()
        return False

    def open_table(t: int) -> bool:
        if t == len(sizes):
            return True
        return fill_table(t, [unseated[0]], 0, 1)

    try:
        return groups if open_table(0) else None
    except _OutOfNodesError:
        return None


def _best_partnerships(
    seats: list[Occupant], partners: Mapping[Pair, int], opponents: Mapping[Pair, int]
) -> list[Occupant]:
    """The split of the table into partnerships with the fewest repeats."""
    a, b, c, d = seats
    options = [[a, b, c, d], [a, c, b, d], [a, b, d, c]]  # partners a-c, a-b, a-d

    def count(counter: Mapping[Pair, int], x: Occupant, y: Occupant) -> int:
        if x is None or y is None or isinstance(x, Trakarl) or isinstance(y, Trakarl):
            return 0
        return counter.get(pair(x, y), 0)

    def cost(s: list[Occupant]) -> tuple[int, int]:
        p = count(partners, s[0], s[2]) ** 2 + count(partners, s[1], s[3]) ** 2
        o = sum(count(opponents, s[i], s[(i + 1) % SEATS]) ** 2 for i in range(SEATS))
        return (p, o)

    return min(options, key=cost)
