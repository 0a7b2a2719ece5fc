"""league.domain.ratings_book: what a result rates and a scope's ratings, without a database."""

from __future__ import annotations

import pytest

from league.domain.ratings_book import (
    FILLER,
    Book,
    HistoryRow,
    RatedGame,
    Unit,
    Versions,
    conservative,
    history_rows,
    result_units,
)
from league.domain.ratings_maths import DEFAULT_MU, DEFAULT_SIGMA, NEW_VERSION_SIGMA

SOLO = RatedGame("kingen", partnership=False, dummy_seat=-1)
PAIRS = RatedGame("priffe", partnership=True, dummy_seat=-1)
PAIRS_WITH_DUMMY = RatedGame("priffe", partnership=True, dummy_seat=3)


def seats(*scores: int) -> list[dict[str, int]]:
    """Seats 0, 1, ... taken by competitors 10, 11, ... with these scores (stored unordered)."""
    return [
        {"seat": s, "competitor": 10 + s, "score": scores[s]} for s in reversed(range(len(scores)))
    ]


def test_an_individual_game_rates_a_team_per_seat_in_seat_order() -> None:
    (unit,) = result_units(seats(5, -2, 0), [], rated=SOLO, entrants={10, 11, 12})
    assert unit == Unit(((10,), (11,), (12,)), (5.0, -2.0, 0.0))


def test_a_competitor_who_is_no_entrant_plays_as_a_filler() -> None:
    (unit,) = result_units(seats(5, -2, 0), [], rated=SOLO, entrants={10, 12})
    assert unit.teams == ((10,), (None,), (12,))


def test_each_rubber_rates_its_two_partnerships_by_their_points() -> None:
    rubbers = [
        {"seating": [0, 1, 2, 3], "points": [3, -1, 2, -4]},
        {"seating": [1, 0, 3, 2], "points": [1, 1, -1, -1]},
    ]
    units = result_units(seats(0, 0, 0, 0), rubbers, rated=PAIRS, entrants={10, 11, 12, 13})
    assert units == [
        Unit(((10, 12), (11, 13)), (5.0, -5.0)),
        Unit(((11, 13), (10, 12)), (0.0, 0.0)),
    ]
    with_dummy = result_units(
        seats(0, 0, 0, 0), rubbers[:1], rated=PAIRS_WITH_DUMMY, entrants={10, 11, 12, 13}
    )
    assert with_dummy[0].teams == ((10, 12), (11, None))  # the dummy is never rated


def test_versions_know_a_bots_earlier_versions_latest_first() -> None:
    versions = Versions.from_rows([(7, 1, 3), (5, 1, 1), (6, 1, 2), (9, 2, 1)])
    assert versions.earlier(7) == [6, 5]
    assert versions.earlier(5) == []
    assert versions.earlier(9) == []
    assert versions.earlier(42) == []  # a person, or a competitor of no bot


def test_a_book_rates_the_winner_up_and_a_new_version_starts_from_its_parent() -> None:
    book = Book()
    versions = Versions.from_rows([(10, 1, 1), (20, 1, 2)])
    changes = book.rate([Unit(((10,), (11,), (12,)), (9.0, 0.0, -9.0))], versions)
    assert [c[0] for c in changes] == [10, 11, 12]
    assert all(c[1:3] == (DEFAULT_MU, DEFAULT_SIGMA) for c in changes)
    winner, _, loser = changes
    assert winner[3] > DEFAULT_MU > loser[3]
    assert book.games == {10: 1, 11: 1, 12: 1}
    (newcomer,) = [c for c in book.rate([Unit(((20,), (11,)), (1.0, 0.0))], versions) if c[0] == 20]
    assert newcomer[1] == pytest.approx(winner[3])  # the parent's mu
    assert newcomer[2] == pytest.approx(max(NEW_VERSION_SIGMA, winner[4]))
    assert book.ratings[None] == FILLER  # a filler's seat keeps the default rating


def test_history_rows_carry_the_conservative_rating() -> None:
    rows: list[HistoryRow] = []
    history_rows(
        [(10, 25.0, 8.0, 27.0, 7.0)],
        rated_id=3,
        match_id=4,
        family="kingen",
        tournament_id=None,
        into=rows,
    )
    assert rows == [(3, 4, 10, "kingen", None, 25.0, 8.0, 27.0, 7.0, conservative(27.0, 7.0))]
    assert conservative(27.0, 7.0) == pytest.approx(6.0)
