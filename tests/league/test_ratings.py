"""Ratings: ridge least squares worked by hand, openskill Plackett-Luce, determinism,
incremental equals recomputation, and a league of 10,000 matches."""

import hashlib
import json
import math
import os
import random
import subprocess
import sys
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from openskill.models import PlackettLuce

from league.domain.ratings_maths import (
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
from league.domain.ratings_maths import _plackett_luce_general as plackett_luce_general
from league.domain.scheduling.model import TRAKARL, Mode, Occupant, PlayerId
from league.domain.scheduling.rotating_partners import rotating_partners
from league.domain.standings_maths import ScoredMatch, StandingsRules, compute_standings

P = PlayerId
ROOT = Path(__file__).resolve().parents[2]


def result(match_id: int, seats: tuple[Occupant, ...], scores: tuple[int, ...]) -> ScoredMatch:
    return ScoredMatch(match_id=match_id, round_number=1, seats=seats, scores=scores)


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
    results: list[ScoredMatch] = []

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
    results: list[ScoredMatch] = []
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


def league(count: int, seed: int, mode: Mode) -> tuple[list[ScoredMatch], dict[PlayerId, float]]:
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
            ScoredMatch(match_id=i, round_number=i // 10, seats=tuple(seats), scores=scores)
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


# ---------------------------------------------------------------- the margin rating's sums


def filler_results(count: int, *, seed: int, mode: Mode, table: int = 4) -> list[ScoredMatch]:
    """Random tables of 12 players; some with the träkarl (Priffe) or a built-in bot, some
    with two built-in bots (one occupant at two seats: partners or opponents)."""
    rng = random.Random(seed)
    players = [P(i) for i in range(1, 13)]
    out = []
    for i in range(count):
        seats: list[Occupant] = list(rng.sample(players, table))
        if rng.random() < 0.2:
            seats[rng.randrange(table)] = TRAKARL if mode is Mode.PARTNERSHIP else None
        if rng.random() < 0.2:
            for s in rng.sample(range(table), 2):
                seats[s] = None
        scores: tuple[int, ...]
        if mode is Mode.PARTNERSHIP:
            d = rng.randint(-12, 12)
            scores = (d, -d, d, -d)
        else:
            scores = tuple(rng.randint(-40, 60) for _ in range(table))
        out.append(result(i, tuple(seats), scores))
    return out


def occupant_key(occupant: Occupant) -> int | str:
    return "bot" if occupant is None else "trakarl" if occupant is TRAKARL else int(occupant)


def parts_by_definition(results: list[ScoredMatch], mode: Mode) -> dict[str, object]:
    """MarginRatingAccumulator.to_parts written from the rows of X: Priffe one row a result,
    x = ±1 (partners +, opponents -), y = 2·margin; individual games one row a seat of a
    table of n, x = 60·(own seat - 1/n each seat), y = 60·(score - table mean). XᵀX summed
    over every ordered pair of seats (a filler at two seats included)."""
    gram: dict[tuple[Occupant, Occupant], int] = {}
    rhs: dict[Occupant, int] = {}
    games: dict[Occupant, int] = {}
    target_sq = observations = 0
    for r in results:
        n = len(r.seats)
        rows: list[tuple[list[int], int]]
        if mode is Mode.PARTNERSHIP:
            signs = [1, -1, 1, -1]
            rows = [(signs, sum(sign * x for sign, x in zip(signs, r.scores, strict=True)))]
            observations += 1
        else:
            total = sum(r.scores)
            q = 60 // n  # 60 is a multiple of 3, 4 and 5
            rows = [
                ([60 * (s == i) - q for s in range(n)], 60 * r.scores[i] - q * total)
                for i in range(n)
            ]
            observations += n - 1
        for x, y in rows:
            target_sq += y * y
            for a in range(n):
                rhs[r.seats[a]] = rhs.get(r.seats[a], 0) + x[a] * y
                for b in range(n):
                    key = (r.seats[a], r.seats[b])
                    gram[key] = gram.get(key, 0) + x[a] * x[b]
        for occupant in r.seats:
            games[occupant] = games.get(occupant, 0) + 1

    def order(occupant: Occupant) -> tuple[int, int]:
        key = occupant_key(occupant)
        return (0, key) if isinstance(key, int) else (1 if key == "trakarl" else 2, 0)

    parts: dict[str, object] = {"m": [target_sq, observations, len(results)]}
    for occupant, count in games.items():
        row = sorted(
            ((b, value) for (a, b), value in gram.items() if a == occupant),
            key=lambda bv: order(bv[0]),
        )
        parts[f"m:{occupant_key(occupant)}"] = [
            [[occupant_key(b), value] for b, value in row],
            rhs[occupant],
            count,
        ]
    return parts


@pytest.mark.parametrize(
    ("mode", "table"), [(Mode.PARTNERSHIP, 4), (Mode.SOLO, 3), (Mode.SOLO, 4), (Mode.SOLO, 5)]
)
def test_the_margin_sums_are_those_of_the_rows_of_x(mode: Mode, table: int) -> None:
    results = filler_results(400, seed=17, mode=mode, table=table)
    if mode is Mode.SOLO:  # tables of every size in one tournament
        results += [
            replace(r, match_id=1000 * other + r.match_id)
            for other in (3, 4, 5)
            if other != table
            for r in filler_results(100, seed=other, mode=mode, table=other)
        ]
    parts = MarginRatingAccumulator(mode).apply_all(results).to_parts()
    assert parts == parts_by_definition(results, mode)
    if mode is Mode.PARTNERSHIP:  # partners as often as opponents: the zero is still written
        rows = [part[0] for key, part in parts.items() if key != "m"]
        assert any(value == 0 for row in rows for _, value in row)


def margin_fit_digest(mode: Mode) -> str:
    """A digest of every bit of the margin rating's fit of 500 filler results."""
    fit = margin_ratings(filler_results(500, seed=21, mode=mode), mode=mode, ridge=2.0)
    rows = sorted(
        (repr(k), r.value.hex(), r.standard_error.hex(), r.games) for k, r in fit.ratings.items()
    )
    text = repr([*rows, fit.residual_sd.hex(), fit.games])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@pytest.mark.parametrize("mode", [Mode.SOLO, Mode.PARTNERSHIP])
def test_the_margin_rating_gives_the_same_bits_in_every_process(mode: Mode) -> None:
    """The fit is deterministic to the bit: the same results give the same floats, run after
    run and in another interpreter with other hash seeds (the order of sets and dicts of
    names must not reach the sums).

    The digests are not pinned across library versions: the solve is LAPACK's Cholesky
    (``scipy.linalg.cho_solve``) and a new numpy or scipy wheel brings another OpenBLAS
    build, whose kernels may round the last bit differently (numpy 2.4.6 with scipy 1.17.1
    did). :func:`test_the_margin_rating_is_the_exact_least_squares_fit` holds the values to
    the exact rational solution instead."""
    here = margin_fit_digest(mode)
    assert margin_fit_digest(mode) == here
    script = (
        "from league.domain.scheduling.model import Mode\n"
        "from tests.league.test_ratings import margin_fit_digest\n"
        f"print(margin_fit_digest(Mode.{mode.name}))\n"
    )
    for seed in ("0", "12345"):
        environment = {**os.environ, "PYTHONHASHSEED": seed}
        other = subprocess.run(
            [sys.executable, "-c", script],
            cwd=ROOT,
            env=environment,
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        assert other.stdout.strip().splitlines()[-1] == here, other.stderr


def exact_fit(
    parts: dict[str, Any], mode: Mode, ridge: Fraction
) -> tuple[dict[str, Fraction], dict[str, Fraction], Fraction]:
    """The ridge fit of :func:`parts_by_definition`'s sums in exact rationals (Gauss-Jordan):
    each strength, each variance ``sd²·diag((XᵀX + λI)⁻¹)`` and ``sd²``."""
    kx, ky = (1, 2) if mode is Mode.PARTNERSHIP else (60, 60)

    def order(key: str) -> tuple[int, int]:
        return (0, int(key)) if key.lstrip("-").isdigit() else (1 if key == "trakarl" else 2, 0)

    names = sorted((key[2:] for key in parts if key != "m"), key=order)
    p = len(names)
    column = {name: i for i, name in enumerate(names)}
    gram = [[Fraction(0)] * p for _ in range(p)]
    rhs = [Fraction(0)] * p
    for name in names:
        row, right, _ = parts[f"m:{name}"]
        for other, value in row:
            gram[column[name]][column[str(other)]] = Fraction(value, kx * kx)
        rhs[column[name]] = Fraction(right, kx * ky)
    # [A | b | I] reduced to [I | A⁻¹b | A⁻¹]
    rows = [[*gram[i], rhs[i], *(Fraction(int(i == j)) for j in range(p))] for i in range(p)]
    for i in range(p):
        rows[i][i] += ridge
    for i in range(p):
        pivot = rows[i][i]
        rows[i] = [value / pivot for value in rows[i]]
        for k in range(p):
            if k != i and rows[k][i]:
                factor = rows[k][i]
                rows[k] = [a - factor * b for a, b in zip(rows[k], rows[i], strict=True)]
    solution = [rows[i][p] for i in range(p)]
    target_sq, observations, _ = parts["m"]
    rss = (
        Fraction(target_sq, ky * ky)
        - 2 * sum(s * r for s, r in zip(solution, rhs, strict=True))
        + sum(solution[i] * solution[j] * gram[i][j] for i in range(p) for j in range(p))
    )
    sigma2 = max(rss, Fraction(0)) / max(1, observations - p)
    values = dict(zip(names, solution, strict=True))
    variances = {name: sigma2 * rows[i][p + 1 + i] for i, name in enumerate(names)}
    return values, variances, sigma2


@pytest.mark.parametrize("mode", [Mode.SOLO, Mode.PARTNERSHIP])
def test_the_margin_rating_is_the_exact_least_squares_fit(mode: Mode) -> None:
    """LAPACK's Cholesky (scipy.linalg) solves the ridge fit to within 1e-12 of the exact
    rational solution, standard errors and residual sd included (fillers included)."""
    results = filler_results(500, seed=21, mode=mode)
    fit = margin_ratings(results, mode=mode, ridge=2.0)
    values, variances, sigma2 = exact_fit(parts_by_definition(results, mode), mode, Fraction(2))
    assert {occupant_key(k) for k in fit.ratings} == {
        int(k) if k.lstrip("-").isdigit() else k for k in values
    }
    for occupant, rating in fit.ratings.items():
        name = str(occupant_key(occupant))
        assert abs(rating.value - values[name]) <= 1e-12
        assert abs(rating.standard_error - math.sqrt(variances[name])) <= 1e-12
    assert abs(fit.residual_sd - math.sqrt(sigma2)) <= 1e-12


@pytest.mark.parametrize(
    ("scores", "strengths"),
    [((30, 0, -30), (15, 0, -15)), ((40, 20, 0, -20, -40), (20, 10, 0, -10, -20))],
)
def test_ridge_one_table_of_three_or_five_by_hand(
    scores: tuple[int, ...], strengths: tuple[int, ...]
) -> None:
    """As for four: the rows are the centring matrix C of the table, (C + I)s = y gives
    s = y/2 for scores summing to zero; the residuals are y/2 (one degree of freedom kept)."""
    seats = tuple(P(i) for i in range(1, len(scores) + 1))
    ratings = margin_ratings([result(1, seats, scores)], mode=Mode.SOLO)
    assert {k: r.value for k, r in ratings.ratings.items()} == pytest.approx(
        dict(zip(seats, strengths, strict=True))
    )
    assert ratings.residual_sd == pytest.approx(math.sqrt(sum(x * x / 4 for x in scores)))


def test_stored_parts_of_tables_of_three_to_five_give_the_whole_fit() -> None:
    """Individual results of three, four and five seats applied one at a time to the parts
    of their occupants (through JSON, as league.services.standings stores them)."""
    results = [
        replace(r, match_id=1000 * table + r.match_id)
        for table in (3, 4, 5)
        for r in filler_results(150, seed=table, mode=Mode.SOLO, table=table)
    ]
    random.Random(4).shuffle(results)
    stored: dict[str, object] = {}
    for r in results:
        keys = MarginRatingAccumulator.part_keys(r)
        parts = json.loads(json.dumps({k: stored[k] for k in keys if k in stored}))
        accumulator = MarginRatingAccumulator.from_parts(Mode.SOLO, parts)
        accumulator.apply(r)
        stored |= json.loads(json.dumps(accumulator.to_parts()))
    whole = MarginRatingAccumulator(Mode.SOLO).apply_all(results)
    assert stored == json.loads(json.dumps(whole.to_parts()))
    assert MarginRatingAccumulator.from_parts(Mode.SOLO, stored).solve() == whole.solve()


def test_partnership_accumulators_refuse_tables_not_of_four() -> None:
    three = result(1, (P(1), P(2), P(3)), (5, -5, 0))
    five = result(2, (P(1), P(2), P(3), P(4), P(5)), (5, -5, 5, -5, 0))
    for r in (three, five):
        with pytest.raises(ValueError, match="tables of four"):
            MarginRatingAccumulator(Mode.PARTNERSHIP).apply(r)
        with pytest.raises(ValueError, match="tables of four"):
            SkillAccumulator(Mode.PARTNERSHIP).apply(r)


@pytest.mark.parametrize("table", [3, 5])
def test_openskill_rates_every_seat_of_a_table_of_three_or_five(table: int) -> None:
    """One team of one per seat, ranked by score: plackett_luce_update's numbers."""
    seats = tuple(P(i) for i in range(1, table + 1))
    scores = tuple(range(10 * table, 0, -10))
    ratings = skill_ratings([result(1, seats, scores)], mode=Mode.SOLO).ratings
    model = SkillAccumulator(Mode.SOLO).model
    expected = plackett_luce_update(
        [[(DEFAULT_MU, DEFAULT_SIGMA)] for _ in seats],
        [float(x) for x in scores],
        beta=model.beta,
        tau=model.tau,
        kappa=model.kappa,
    )
    assert [(ratings[p].mu, ratings[p].sigma, ratings[p].games) for p in seats] == [
        (mu, sigma, 1) for [(mu, sigma)] in expected
    ]
    assert ratings[seats[0]].mu > ratings[seats[-1]].mu
