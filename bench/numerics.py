"""Numerics and processes: the kept libraries against the hand-written code they replaced.

    python -m bench.numerics            # --runs 5 --matches 10000

Each figure is timed in this process against a reference, and the two results compared:

- **Welch's test** (``league.domain.standings_maths.welch``: scipy's Student's t through
  ``scipy.special.stdtr``/``stdtrit``) against the hand-written incomplete beta and Newton
  quantile it replaced (kept below as the reference) and against ``scipy.stats``
  (``ttest_ind_from_stats(equal_var=False)`` with ``t.ppf``): microseconds a test, the
  largest difference of the interval and p-value, and how many ``significant`` flags differ;
- **the margin rating's ridge solve** (``MarginRatingAccumulator.solve``: LAPACK's Cholesky
  through ``scipy.linalg.cho_factor``/``cho_solve``) against the hand-written Cholesky with
  exactly rounded sums (below), on a league of 40 entrants;
- **Plackett-Luce**: ``league.domain.ratings_maths.plackett_luce_update`` (written out for
  the league's shapes) against ``openskill``'s ``PlackettLuce.rate`` on the same teams, per
  update and for the ratings of a whole league (``SkillAccumulator``);
- **a sandbox user's processes** (``bots.runner.sandbox.user_processes``: psutil) against
  the hand-written scan of /proc/PID/status, for a user without processes (``nobody``,
  as when a seat's user is released) and for this process's own user; and a process's
  children (``bots.runner.process.child_pids``, read from /proc/PID/task/*/children)
  against psutil's ``Process.children()``, which reads the parent of every process.

Medians of ``--runs``. It prints figures; it asserts nothing.
"""

from __future__ import annotations

import os
import sys

if not __package__:
    _here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _here]
    sys.path.insert(0, os.path.dirname(_here))

import argparse
import contextlib
import gc
import math
import platform
import random
import signal
import statistics
import subprocess
import time
from collections.abc import Callable, Sequence
from functools import partial
from statistics import NormalDist

import psutil
from openskill.models import PlackettLuce
from scipy import stats

import league.domain.ratings_maths as ratings_maths
from bench.league_scheduling import random_league
from bots.runner.process import child_pids
from bots.runner.sandbox import user_processes
from league.domain.ratings_maths import (
    MarginRatingAccumulator,
    MarginRatings,
    SkillAccumulator,
    plackett_luce_update,
)
from league.domain.scheduling import Mode
from league.domain.standings_maths import ScoredMatch, Separation, welch


def out(text: str = "") -> None:
    print(text, flush=True)  # noqa: T201


def median_seconds(fn: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        gc.collect()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


# ------------------------------------------------------------ the references (hand-written)


def reference_betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def reference_regularized_beta(x: float, a: float, b: float) -> float:
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = (
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    front = math.exp(log_front)
    if x < (a + 1.0) / (a + b + 2.0):
        return front * reference_betacf(a, b, x) / a
    return 1.0 - front * reference_betacf(b, a, 1.0 - x) / b


def reference_t_cdf(t: float, df: float) -> float:
    tail = 0.5 * reference_regularized_beta(df / (df + t * t), df / 2.0, 0.5)
    return 1.0 - tail if t >= 0 else tail


def reference_t_quantile(p: float, df: float) -> float:
    z = NormalDist().inv_cdf(p)
    if df >= 100:  # Cornish-Fisher expansion (Abramowitz & Stegun 26.7.5)
        z2 = z * z
        return (
            z
            + z * (z2 + 1) / (4 * df)
            + z * (5 * z2 * z2 + 16 * z2 + 3) / (96 * df**2)
            + z * (3 * z2**3 + 19 * z2 * z2 + 17 * z2 - 15) / (384 * df**3)
            + z * (79 * z2**4 + 776 * z2**3 + 1482 * z2 * z2 - 1920 * z2 - 945) / (92160 * df**4)
        )
    log_norm = math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi)
    t = z
    lo, hi = 0.0, math.inf
    for _ in range(60):
        err = reference_t_cdf(t, df) - p
        if abs(err) < 1e-13:
            break
        if err < 0:
            lo = t
        else:
            hi = t
        density = math.exp(log_norm - (df + 1) / 2 * math.log1p(t * t / df))
        step = t - err / density if density > 0 else math.inf
        if not lo < step < hi:
            step = (lo + hi) / 2 if hi < math.inf else 2 * t + 1
        t = step
    return t


def reference_welch(
    upper: tuple[int, float, float], lower: tuple[int, float, float], confidence: float
) -> Separation:
    """The hand-written Welch test (the samples here have n >= 2 and a positive variance)."""
    n1, m1, v1 = upper
    n2, m2, v2 = lower
    diff = m1 - m2
    a, b = v1 / n1, v2 / n2
    se2 = a + b
    se = math.sqrt(se2)
    df = se2 * se2 / (a * a / (n1 - 1) + b * b / (n2 - 1))
    p = 2.0 * (1.0 - reference_t_cdf(abs(diff / se), df))
    half = reference_t_quantile(0.5 + confidence / 2, df) * se
    return Separation(diff, diff - half, diff + half, p, diff - half > 0 or diff + half < 0)


def scipy_stats_welch(
    upper: tuple[int, float, float], lower: tuple[int, float, float], confidence: float
) -> Separation:
    """The same through ``scipy.stats``' public functions."""
    n1, m1, v1 = upper
    n2, m2, v2 = lower
    diff = m1 - m2
    test = stats.ttest_ind_from_stats(m1, math.sqrt(v1), n1, m2, math.sqrt(v2), n2, equal_var=False)
    a, b = v1 / n1, v2 / n2
    df = (a + b) ** 2 / (a * a / (n1 - 1) + b * b / (n2 - 1))
    half = float(stats.t.ppf(0.5 + confidence / 2, df)) * math.sqrt(a + b)
    return Separation(
        diff, diff - half, diff + half, float(test.pvalue), diff - half > 0 or diff + half < 0
    )


def reference_cholesky(matrix: Sequence[Sequence[float]]) -> list[list[float]]:
    n = len(matrix)
    low = [[0.0] * n for _ in range(n)]
    for i in range(n):
        row_i = low[i]
        for j in range(i + 1):
            row_j = low[j]
            s = matrix[i][j] - math.fsum(row_i[k] * row_j[k] for k in range(j))
            if i == j:
                row_i[i] = math.sqrt(s)
            else:
                row_i[j] = s / row_j[j]
    return low


def reference_cholesky_solve(low: Sequence[Sequence[float]], b: Sequence[float]) -> list[float]:
    n = len(low)
    y = [0.0] * n
    for i in range(n):
        y[i] = (b[i] - math.fsum(low[i][k] * y[k] for k in range(i))) / low[i][i]
    x = [0.0] * n
    for i in reversed(range(n)):
        x[i] = (y[i] - math.fsum(low[k][i] * x[k] for k in range(i + 1, n))) / low[i][i]
    return x


def reference_inverse_diagonal(low: Sequence[Sequence[float]]) -> list[float]:
    n = len(low)
    inv = [[0.0] * n for _ in range(n)]
    for i in range(n):
        inv[i][i] = 1.0 / low[i][i]
        for j in range(i):
            inv[i][j] = -math.fsum(low[i][k] * inv[k][j] for k in range(j, i)) / low[i][i]
    return [math.fsum(inv[k][i] ** 2 for k in range(i, n)) for i in range(n)]


def reference_margin_solve(acc: MarginRatingAccumulator) -> list[tuple[float, float]]:
    """The hand-written solve of the accumulator's sums: (value, standard error) in column
    order (as ``MarginRatingAccumulator.solve`` before scipy)."""
    played = sorted(
        acc._index.items(),
        key=lambda oi: (
            (2, 0) if oi[0] is None else (0, oi[0]) if isinstance(oi[0], int) else (1, 0)
        ),
    )
    p = len(played)
    kx, ky = acc._x_scale, acc._y_scale
    position = {i: column for column, (_, i) in enumerate(played)}
    rows = acc._rows()
    gram = [[0] * p for _ in range(p)]
    for column, (_, i) in enumerate(played):
        for j, value in rows[i].items():
            gram[column][position[j]] += value
    matrix = [[value / (kx * kx) for value in row] for row in gram]
    for i in range(p):
        matrix[i][i] += acc.ridge
    rhs = [acc._rhs[i] / (kx * ky) for _, i in played]
    factor = reference_cholesky(matrix)
    solution = reference_cholesky_solve(factor, rhs)
    fitted = math.fsum(
        solution[i] * solution[j] * gram[i][j] / (kx * kx)
        for i in range(p)
        for j in range(p)
        if gram[i][j]
    )
    explained = math.fsum(s * r for s, r in zip(solution, rhs, strict=True))
    rss = acc._target_sq / (ky * ky) - 2 * explained + fitted
    sigma2 = max(rss, 0.0) / max(1, acc._observations - p)
    inverse = reference_inverse_diagonal(factor)
    return [(solution[k], math.sqrt(sigma2 * inverse[k])) for k in range(p)]


def reference_user_processes(uid: int) -> list[int]:
    """The hand-written scan: /proc/PID/status of every process, live ones of ``uid``."""
    pids = []
    wanted = {str(uid).encode()}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/status", "rb") as status:
                text = status.read(2048)
        except OSError:
            continue
        start = text.find(b"\nUid:")
        if start < 0:
            continue
        real, effective, *_ = text[start + 5 : text.find(b"\n", start + 5)].split()
        if real not in wanted and effective not in wanted:
            continue
        state = text.find(b"\nState:")
        if state >= 0 and text[state + 7 : state + 10].strip()[:1] in (b"Z", b"X"):
            continue
        pids.append(int(entry.name))
    return pids


# ------------------------------------------------------------ the figures


def bench_welch(runs: int) -> None:
    rng = random.Random(5)
    pairs = [
        tuple((rng.randint(2, 400), rng.gauss(0, 20), rng.uniform(0.5, 900.0)) for _ in range(2))
        for _ in range(2000)
    ]
    confidence = 0.95

    def timed(fn: Callable[..., Separation | None]) -> float:
        return median_seconds(lambda: [fn(a, b, confidence) for a, b in pairs], runs) / len(pairs)

    ours = [welch(a, b, confidence) for a, b in pairs]
    reference = [reference_welch(a, b, confidence) for a, b in pairs]
    library = [scipy_stats_welch(a, b, confidence) for a, b in pairs]
    t_ours, t_ref, t_stats = timed(welch), timed(reference_welch), timed(scipy_stats_welch)

    def worst(xs: list[Separation | None], ys: list[Separation]) -> tuple[float, float, int]:
        bound = p_bound = 0.0
        flags = 0
        for x, y in zip(xs, ys, strict=True):
            assert x is not None
            assert None not in (x.low, x.high, x.p_value, y.low, y.high, y.p_value)
            bound = max(bound, abs(x.low - y.low), abs(x.high - y.high))  # type: ignore[operator]
            p_bound = max(p_bound, abs(x.p_value - y.p_value))  # type: ignore[operator]
            flags += x.significant != y.significant
        return bound, p_bound, flags

    out(f"Welch's test, {len(pairs)} pairs of samples (n 2-400), 95 % interval")
    out(f"  hand-written (reference)           {t_ref * 1e6:8.1f} us a test")
    out(f"  scipy.stats (ttest + t.ppf)        {t_stats * 1e6:8.1f} us   x{t_stats / t_ref:.2f}")
    out(f"  league welch (scipy.special)       {t_ours * 1e6:8.1f} us   x{t_ours / t_ref:.2f}")
    bound, p_bound, flags = worst(ours, reference)
    out(
        f"  vs the reference: interval bounds within {bound:.1e}, p within {p_bound:.1e}, "
        f"{flags} significance flags differ"
    )
    bound, p_bound, flags = worst(ours, library)
    out(
        f"  vs scipy.stats:   interval bounds within {bound:.1e}, p within {p_bound:.1e}, "
        f"{flags} significance flags differ"
    )


def bench_margin(matches: int, runs: int) -> None:
    for mode in (Mode.SOLO, Mode.PARTNERSHIP):
        acc = MarginRatingAccumulator(mode, ridge=2.0).apply_all(
            random_league(matches, mode=mode, seed=7)
        )
        fit: MarginRatings = acc.solve()
        reference = reference_margin_solve(acc)
        ordered = sorted(
            fit.ratings.items(),
            key=lambda kr: (
                (2, 0) if kr[0] is None else (0, kr[0]) if isinstance(kr[0], int) else (1, 0)
            ),
        )
        worst = max(
            max(abs(r.value - v), abs(r.standard_error - e))
            for (_, r), (v, e) in zip(ordered, reference, strict=True)
        )
        t_ours = median_seconds(acc.solve, runs)
        t_ref = median_seconds(partial(reference_margin_solve, acc), runs)
        out(f"margin rating's solve, {mode.value}, {len(ordered)} occupants, {matches} matches")
        out(f"  hand-written Cholesky (reference)  {t_ref * 1e3:8.2f} ms")
        out(f"  scipy.linalg cho_factor/cho_solve  {t_ours * 1e3:8.2f} ms   x{t_ours / t_ref:.2f}")
        out(f"  values and standard errors within {worst:.1e} of the reference")


def bench_plackett_luce(matches: int, runs: int) -> None:
    model = PlackettLuce()
    rng = random.Random(9)
    shapes = {"4 one-player teams": [1] * 4, "2 teams of two": [2, 2]}
    shapes |= {"3 one-player teams": [1] * 3, "5 one-player teams": [1] * 5}
    for label, shape in shapes.items():
        games = []
        for _ in range(2000):
            teams = [[(rng.uniform(10, 40), rng.uniform(1, 8)) for _ in range(k)] for k in shape]
            scores = [float(x) for x in rng.sample(range(-60, 60), len(shape))]
            games.append((teams, scores))

        def ours(
            games: list[tuple[list[list[tuple[float, float]]], list[float]]] = games,
        ) -> object:
            return [
                plackett_luce_update(t, s, beta=model.beta, tau=model.tau, kappa=model.kappa)
                for t, s in games
            ]

        def library(
            games: list[tuple[list[list[tuple[float, float]]], list[float]]] = games,
        ) -> object:
            return [
                [
                    [(r.mu, r.sigma) for r in team]
                    for team in model.rate(
                        [[model.rating(mu=mu, sigma=sg) for mu, sg in team] for team in t],
                        scores=s,
                    )
                ]
                for t, s in games
            ]

        a, b = ours(), library()
        worst = max(
            abs(x - y)
            for ga, gb in zip(a, b, strict=True)  # type: ignore[call-overload]
            for ta, tb in zip(ga, gb, strict=True)
            for ra, rb in zip(ta, tb, strict=True)
            for x, y in zip(ra, rb, strict=True)
        )
        t_ours = median_seconds(ours, runs) / len(games)
        t_lib = median_seconds(library, runs) / len(games)
        out(f"Plackett-Luce update, {label}")
        out(f"  openskill PlackettLuce.rate (reference) {t_lib * 1e6:7.1f} us an update")
        out(
            f"  league plackett_luce_update        {t_ours * 1e6:8.1f} us   x{t_ours / t_lib:.2f}"
            f"   (within {worst:.1e})"
        )
    for mode in (Mode.SOLO, Mode.PARTNERSHIP):
        results = random_league(matches, mode=mode, seed=3)
        t_ours = median_seconds(partial(written_out_ratings, mode, results), runs)
        t_lib = median_seconds(partial(openskill_ratings, mode, results), runs)
        out(f"openskill ratings with history, {mode.value}, {matches} matches")
        out(f"  through openskill's rate()         {t_lib * 1e3:8.0f} ms")
        out(f"  through plackett_luce_update       {t_ours * 1e3:8.0f} ms   x{t_ours / t_lib:.2f}")


def written_out_ratings(mode: Mode, results: Sequence[ScoredMatch]) -> SkillAccumulator:
    """``SkillAccumulator`` over ``results`` as the league rates them."""
    return SkillAccumulator(mode).apply_all(results)


def openskill_ratings(mode: Mode, results: Sequence[ScoredMatch]) -> SkillAccumulator:
    """``SkillAccumulator`` over ``results``, each match rated by openskill's own ``rate()``."""
    model = PlackettLuce()

    def through_openskill(
        teams: Sequence[Sequence[tuple[float, float]]], scores: Sequence[float], **_: float
    ) -> list[list[tuple[float, float]]]:
        rated = model.rate(
            [[model.rating(mu=mu, sigma=sg) for mu, sg in team] for team in teams],
            scores=list(scores),
        )
        return [[(r.mu, r.sigma) for r in team] for team in rated]

    original = ratings_maths.plackett_luce_update
    ratings_maths.plackett_luce_update = through_openskill
    try:
        return SkillAccumulator(mode).apply_all(results)
    finally:
        ratings_maths.plackett_luce_update = original


def bench_processes(runs: int) -> None:
    count = sum(1 for name in os.listdir("/proc") if name.isdigit())
    repeat = 20

    def scans(scan: Callable[[int], list[int]], uid: int) -> None:
        for _ in range(repeat):
            scan(uid)

    for label, uid in (("nobody", 65534), ("this process's user", os.getuid())):
        # interleaved, so that both see the same machine (other processes come and go)
        times: dict[Callable[[int], list[int]], list[float]] = {}
        for _ in range(3 * runs):
            for scan in (user_processes, reference_user_processes):
                times.setdefault(scan, []).append(median_seconds(partial(scans, scan, uid), 1))
        t_ours = statistics.median(times[user_processes])
        t_ref = statistics.median(times[reference_user_processes])
        ours, reference = set(user_processes(uid)), set(reference_user_processes(uid))
        out(f"a user's processes ({label}: {len(ours)}), {count} processes on the machine")
        out(f"  hand-written /proc/PID/status scan {t_ref / repeat * 1e3:8.2f} ms")
        out(
            f"  psutil (user_processes)            {t_ours / repeat * 1e3:8.2f} ms"
            f"   x{t_ours / t_ref:.2f}   (the same pids: {ours == reference})"
        )
    parent = subprocess.Popen(["sh", "-c", "sleep 60 & sleep 60 & sleep 60 & wait"])
    try:
        deadline = time.monotonic() + 5
        while len(child_pids(parent.pid)) < 3 and time.monotonic() < deadline:
            time.sleep(0.01)
        repeat = 50
        t_own = median_seconds(lambda: [child_pids(parent.pid) for _ in range(repeat)], runs)
        t_lib = median_seconds(
            lambda: [psutil.Process(parent.pid).children() for _ in range(repeat)], runs
        )
        same = sorted(child_pids(parent.pid)) == sorted(
            c.pid for c in psutil.Process(parent.pid).children()
        )
        out("a process's children (bots.runner.process.child_pids), 3 children")
        out(f"  /proc/PID/task/*/children          {t_own / repeat * 1e3:8.3f} ms")
        out(
            f"  psutil Process.children()          {t_lib / repeat * 1e3:8.3f} ms"
            f"   x{t_lib / t_own:.0f}   (the same pids: {same})"
        )
    finally:
        for child in child_pids(parent.pid):
            with contextlib.suppress(OSError):
                os.kill(child, signal.SIGKILL)
        parent.kill()
        parent.wait()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--matches", type=int, default=10_000)
    args = parser.parse_args(argv)
    out(f"python {platform.python_version()}, load average {os.getloadavg()[0]:.2f}")
    bench_welch(args.runs)
    bench_margin(args.matches, args.runs)
    bench_plackett_luce(args.matches, args.runs)
    bench_processes(args.runs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
