"""Ratings: ridge least squares worked by hand, openskill Plackett-Luce, determinism,
incremental equals recomputation, and a league of 10,000 matches."""

import math
import random

import pytest
from openskill.models import PlackettLuce

from league.ratings import (
    DEFAULT_MU,
    DEFAULT_SIGMA,
    MarginRatingAccumulator,
    RatingPrior,
    SkillAccumulator,
    SkillRating,
    margin_ratings,
    new_version_prior,
    plackett_luce_update,
    skill_ratings,
)
from league.ratings import _plackett_luce_general as plackett_luce_general
from league.scheduling.model import TRAKARL, Mode, Occupant, PlayerId
from league.scheduling.rotating_partners import rotating_partners
from league.standings import MatchResult, StandingsRules, compute_standings

P = PlayerId


def result(match_id: int, seats: tuple[Occupant, ...], scores: tuple[int, ...]) -> MatchResult:
    return MatchResult(match_id=match_id, round_number=1, seats=seats, scores=scores)


def test_ridge_one_partnership_game_by_hand() -> None:
    """x = (1, -1, 1, -1), margin m = 12; (xxᵀ + I)s = x·m gives s = x·m/(|x|² + 1) = ±2.4.
    Residual 12 - 4·2.4 = 2.4, one observation, so sd² = 5.76 (one degree of freedom kept);
    diag((xxᵀ + I)⁻¹) = 1 - 1/5, so SE = sqrt(5.76·0.8)."""
    ratings = margin_ratings(
        [result(1, (P(1), P(2), P(3), P(4)), (6, -6, 6, -6))], mode=Mode.PARTNERSHIP
    )
    values = {k: r.value for k, r in ratings.ratings.items()}
    assert values == pytest.approx({1: 2.4, 2: -2.4, 3: 2.4, 4: -2.4})
    assert ratings.residual_sd == pytest.approx(2.4)
    assert ratings.ratings[P(1)].standard_error == pytest.approx(math.sqrt(5.76 * 0.8))


def test_ridge_one_individual_table_by_hand() -> None:
    """Rows are the centring matrix C; Cy = y for scores summing to zero, so
    (C + I)s = y gives s = y/2."""
    ratings = margin_ratings(
        [result(1, (P(1), P(2), P(3), P(4)), (30, 10, -10, -30))], mode=Mode.SOLO, ridge=1.0
    )
    values = {k: r.value for k, r in ratings.ratings.items()}
    assert values == pytest.approx({1: 15, 2: 5, 3: -5, 4: -15})
    assert [p for p, _ in ratings.ranked()] == [1, 2, 3, 4]


def test_ridge_corrects_for_partners_where_totals_cannot() -> None:
    """1 mostly partners the strong 9, 2 mostly the weak 10; 1 and 2 are equally good. Totals
    put 1 far above 2, the margin rating sees that they are equal."""
    rng = random.Random(4)
    neutral = [20, 21, 22, 23, 24, 25]
    skill = {1: 0.0, 2: 0.0, 9: 5.0, 10: -5.0} | dict.fromkeys(neutral, 0.0)
    results: list[MatchResult] = []

    def play(a: int, b: int, c: int, d: int) -> None:
        d_ = round(skill[a] + skill[c] - skill[b] - skill[d] + rng.gauss(0, 2))
        results.append(result(len(results), (P(a), P(b), P(c), P(d)), (d_, -d_, d_, -d_)))

    for _ in range(300):
        for p, mate in ((1, 9), (2, 10)):
            x, y, z = rng.sample(neutral, 3)
            play(p, x, mate if rng.random() < 0.8 else z, y)
        w, x, y, z = rng.sample(neutral, 4)
        play(9, x, w, y)
        play(10, z, w, y)
    totals = compute_standings(results, StandingsRules(mode=Mode.PARTNERSHIP))
    assert totals.row(P(1)).total - totals.row(P(2)).total > 2000
    ratings = margin_ratings(results, mode=Mode.PARTNERSHIP, ridge=1.0).ratings
    # about 8 points a game apart in the totals, equal within their standard errors here
    gap = ratings[P(1)].value - ratings[P(2)].value
    assert abs(gap) < 2.0
    assert abs(gap) < ratings[P(1)].standard_error
    # the margin is side minus side (2d when each winner gets d): strengths are 2 x skill
    assert ratings[P(9)].value - ratings[P(10)].value == pytest.approx(20, abs=2.0)


def test_on_a_whist_design_raw_totals_and_ridge_agree() -> None:
    """notes §6.1: on a complete Wh(12) raw totals rank exactly by skill, like the fit."""
    players = [P(i) for i in range(12)]
    skill = {p: float(p) for p in players}
    rounds = rotating_partners(players, seed=3).rounds
    results: list[MatchResult] = []
    for round_ in rounds:
        for table in round_.tables:
            a, b, c, d = (skill[p] for p in table.players)
            m = round(a + c - b - d)
            results.append(result(len(results), table.seats, (m, -m, m, -m)))
    standings = compute_standings(results, StandingsRules(mode=Mode.PARTNERSHIP))
    fit = margin_ratings(results, mode=Mode.PARTNERSHIP, ridge=0.01)
    assert [r.player for r in standings.rows] == [p for p, _ in fit.ranked()] == players[::-1]


def test_trakarl_gets_a_strength_of_its_own() -> None:
    results = [
        result(i, (P(i % 3), TRAKARL, P((i + 1) % 3), P((i + 2) % 3)), (4, -4, 4, -4))
        for i in range(30)
    ]
    ratings = margin_ratings(results, mode=Mode.PARTNERSHIP).ratings
    assert TRAKARL in ratings
    assert ratings[TRAKARL].value < 0  # the side without the träkarl always lost


def test_plackett_luce_update_is_openskills_computation() -> None:
    model = PlackettLuce()
    rng = random.Random(3)
    for _ in range(500):
        shape = rng.choice([[1, 1, 1, 1], [2, 2]])
        teams = [[(rng.uniform(5, 45), rng.uniform(0.5, 9)) for _ in range(k)] for k in shape]
        scores = [float(rng.choice([0, 1, 2, 3])) for _ in shape]  # many ties
        reference = model.rate(
            [[model.rating(mu=mu, sigma=s) for mu, s in team] for team in teams], scores=scores
        )
        ours = plackett_luce_update(
            teams, scores, beta=model.beta, tau=model.tau, kappa=model.kappa
        )
        for ref_team, our_team in zip(reference, ours, strict=True):
            for ref, (mu, sigma) in zip(ref_team, our_team, strict=True):
                assert mu == pytest.approx(ref.mu, abs=1e-12)
                assert sigma == pytest.approx(ref.sigma, abs=1e-12)


def test_the_written_out_shapes_give_the_same_bits_as_the_general_update() -> None:
    """One-player teams and two teams without a tie take a shorter path: exactly the
    general computation's floats (so the ratings queue and a recomputation, which both use
    it, agree bit for bit with what was stored before)."""
    model = PlackettLuce()
    rng = random.Random(11)

    def rating() -> tuple[float, float]:
        mu = rng.choice([rng.uniform(-20, 70), 25.0, 0.0, -0.0, rng.gauss(25, 3)])
        sigma = rng.choice([rng.uniform(0.001, 12), DEFAULT_SIGMA, 1e-6, rng.uniform(0.5, 9)])
        return (mu, sigma)

    shortened = 0
    for _ in range(20_000):
        k = rng.choice([2, 2, 3, 4, 4, 5])
        sizes = [1] * k if k > 2 or rng.random() < 0.5 else [rng.randint(1, 3) for _ in range(2)]
        teams = [[rating() for _ in range(size)] for size in sizes]
        scores = [float(s) for s in rng.sample(range(-60, 60), k)]  # no tie
        if rng.random() < 0.2:
            scores[-1] = scores[0]  # a tie: the general path
        else:
            shortened += 1
        expected = plackett_luce_general(
            teams, scores, beta=model.beta, tau=model.tau, kappa=model.kappa
        )
        assert (
            plackett_luce_update(teams, scores, beta=model.beta, tau=model.tau, kappa=model.kappa)
            == expected
        )
    assert shortened > 15_000


def test_openskill_first_game_by_the_library() -> None:
    results = [result(1, (P(1), P(2), P(3), P(4)), (30, 10, 10, -30))]
    ratings = skill_ratings(results, mode=Mode.SOLO).ratings
    model = PlackettLuce()
    expected = model.rate([[model.rating()] for _ in range(4)], scores=[30, 10, 10, -30])
    for p, [reference] in zip((1, 2, 3, 4), expected, strict=True):
        assert ratings[P(p)].mu == pytest.approx(reference.mu)
        assert ratings[P(p)].sigma == pytest.approx(reference.sigma)
    assert ratings[P(1)].mu > ratings[P(2)].mu == ratings[P(3)].mu > ratings[P(4)].mu
    assert ratings[P(1)].conservative == pytest.approx(ratings[P(1)].mu - 3 * ratings[P(1)].sigma)


def test_partnerships_rate_as_teams_of_two_and_fillers_stay_fixed() -> None:
    results = [result(1, (P(1), P(2), TRAKARL, None), (5, -5, 5, -5))]
    ratings = skill_ratings(results, mode=Mode.PARTNERSHIP)
    assert set(ratings.ratings) == {1, 2}
    assert ratings.ratings[P(1)].mu > DEFAULT_MU > ratings.ratings[P(2)].mu
    assert [c.player for c in ratings.history] == [1, 2]


def test_a_new_bot_version_starts_wide() -> None:
    parent = SkillRating(mu=31.0, sigma=2.0, games=500)
    prior = new_version_prior(parent)
    assert prior == RatingPrior(31.0, DEFAULT_SIGMA)
    assert new_version_prior(parent, sigma=12.0).sigma == 12.0
    assert new_version_prior(None) == RatingPrior(DEFAULT_MU, DEFAULT_SIGMA)
    # the wide sigma makes the first results move the new version further
    results = [result(1, (P(1), P(2), P(3), P(4)), (10, 0, 0, 0))]
    narrow = skill_ratings(results, mode=Mode.SOLO, priors={P(1): RatingPrior(31.0, 2.0)})
    wide = skill_ratings(results, mode=Mode.SOLO, priors={P(1): prior})
    assert wide.ratings[P(1)].mu - 31.0 > 5 * (narrow.ratings[P(1)].mu - 31.0)


def league(count: int, seed: int, mode: Mode) -> tuple[list[MatchResult], dict[PlayerId, float]]:
    rng = random.Random(seed)
    players = [P(i) for i in range(40)]
    skill = {p: rng.gauss(0, 1) for p in players}
    results = []
    for i in range(count):
        seats = rng.sample(players, 4)
        scores: tuple[int, ...]
        if mode is Mode.PARTNERSHIP:
            a, b, c, d = (skill[p] for p in seats)
            m = round(2 * (a + c - b - d) + rng.gauss(0, 8))
            scores = (m, -m, m, -m)
        else:
            scores = tuple(round(10 * skill[p] + rng.gauss(0, 40)) for p in seats)
        results.append(
            MatchResult(match_id=i, round_number=i // 10, seats=tuple(seats), scores=scores)
        )
    return results, skill


def spearman(a: list[float], b: list[float]) -> float:
    def ranks(xs: list[float]) -> list[int]:
        order = sorted(range(len(xs)), key=xs.__getitem__)
        out = [0] * len(xs)
        for r, i in enumerate(order):
            out[i] = r
        return out

    ra, rb = ranks(a), ranks(b)
    n = len(a)
    return 1 - 6 * sum((x - y) ** 2 for x, y in zip(ra, rb, strict=True)) / (n * (n * n - 1))


@pytest.mark.parametrize("mode", [Mode.SOLO, Mode.PARTNERSHIP])
def test_a_league_of_ten_thousand_matches(mode: Mode) -> None:
    results, skill = league(10_000, seed=2, mode=mode)
    players = sorted(skill)
    fit = margin_ratings(results, mode=mode, ridge=5.0)
    skills = skill_ratings(results, mode=mode, keep_history=False)
    truth = [skill[p] for p in players]
    assert spearman([fit.ratings[p].value for p in players], truth) > 0.9
    assert spearman([skills.ratings[p].mu for p in players], truth) > 0.8
    assert sum(r.games for r in skills.ratings.values()) == 40_000


def test_recomputation_is_deterministic_and_incremental_equals_full() -> None:
    results, _ = league(800, seed=8, mode=Mode.PARTNERSHIP)
    full = skill_ratings(results, mode=Mode.PARTNERSHIP)
    assert full == skill_ratings(results, mode=Mode.PARTNERSHIP)
    accumulator = SkillAccumulator(Mode.PARTNERSHIP)
    for r in results:
        accumulator.apply(r)
    assert not accumulator.apply(results[5])
    assert accumulator.ratings() == full
    # the least-squares statistics are exact integers: any order, same fit
    shuffled = list(results)
    random.Random(2).shuffle(shuffled)
    margin = MarginRatingAccumulator(Mode.PARTNERSHIP, ridge=2.0)
    for r in shuffled:
        margin.apply(r)
    assert margin.solve() == margin_ratings(results, mode=Mode.PARTNERSHIP, ridge=2.0)
