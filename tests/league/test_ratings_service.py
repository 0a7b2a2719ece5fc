"""openskill ratings of stored results (league.services.ratings): rated once each, in
order, with history; the same numbers as league.domain.ratings_maths computes from the same results;
recomputable by ``manage.py recompute_ratings``; a new bot version starts wide; and a real
worker consuming the `ratings` queue rates what ``match_finish`` stores."""

from __future__ import annotations

import io
import time
from collections.abc import Callable
from typing import Any

from django.core.management import call_command
from django.db import connection

import pytest

from bench.synthetic import synthetic_results
from bots.models import BotVersion
from league.domain.ratings_maths import DEFAULT_MU, DEFAULT_SIGMA, skill_ratings
from league.domain.scored_results import standings_results_of
from league.models import (
    Competitor,
    MatchResult,
    RatedMatch,
    Rating,
    RatingChange,
    Tournament,
    TournamentFormat,
)
from league.selectors.standings import (
    result_rubbers_read,
    standings_rules_of,
    stored_result_of,
    tournament_entrants,
)
from league.services.competitors import competitor_builtin, competitor_for_bot_version
from league.services.ratings import ratings_enqueue, ratings_recompute, ratings_update
from league.services.tournaments import tournament_create
from tests.celery_workers import CeleryWorkerProcess
from tests.league.builders import bot_tournament, club_with_organiser
from tests.league.test_standings_service import rounds_played
from tests.servers import database_url_for

WorkerFactory = Callable[..., CeleryWorkerProcess]


def ratings_of(**scope: Any) -> dict[int, tuple[float, float, int]]:
    return {r.competitor_id: (r.mu, r.sigma, r.games) for r in Rating.objects.filter(**scope)}


def history_of(**scope: Any) -> list[tuple[Any, ...]]:
    return list(
        RatingChange.objects.filter(**scope)
        .order_by("rated_id", "competitor_id", "tournament_id")
        .values_list(
            "rated_id", "match_id", "competitor_id", "tournament_id", "mu_before", "mu", "sigma"
        )
    )


def pure_ratings(tournament: Tournament) -> Any:
    """league.domain.ratings_maths over the tournament's results in the order they were rated."""
    rules = standings_rules_of(tournament)
    entrants = tournament_entrants(tournament.pk)
    results = [
        r
        for rated in RatedMatch.objects.filter(tournament=tournament)
        .order_by("id")
        .select_related("result")
        for r in standings_results_of(
            stored_result_of(rated.result),
            game=tournament.game,
            entrants=entrants,
            rules=rules,
            rubbers_of=result_rubbers_read,
        )
    ]
    return skill_ratings(results, mode=rules.mode)


@pytest.mark.django_db
def test_each_result_is_rated_once_in_both_scopes_with_its_history() -> None:
    tournament, organiser = bot_tournament(entrants=6, rounds=2)
    rounds_played(tournament, organiser, 2)
    results = MatchResult.objects.filter(match__tournament=tournament).count()

    assert ratings_update() == results
    assert ratings_update() == 0  # nothing left: a duplicate task is a no-op

    assert RatedMatch.objects.count() == results
    entrants = tournament_entrants(tournament.pk)
    family = ratings_of(family="kingen", tournament__isnull=True)
    local = ratings_of(tournament=tournament)
    assert set(family) == set(local) == entrants  # the filler bots are not rated
    assert family == local  # one tournament: the leaderboard is the tournament's
    played = dict.fromkeys(entrants, 0)
    for result in MatchResult.objects.filter(match__tournament=tournament):
        for seat in result.standings_input["seats"]:
            if seat["competitor"] in entrants:
                played[seat["competitor"]] += 1
    assert {c: games for c, (_, _, games) in local.items()} == played
    assert RatingChange.objects.filter(tournament=tournament).count() == sum(played.values())
    for rating in Rating.objects.all():
        assert rating.conservative == pytest.approx(rating.mu - 3 * rating.sigma)
        assert rating.sigma < DEFAULT_SIGMA


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("game", "fmt", "entrants"),
    [
        ("kingen", TournamentFormat.ROUND_ROBIN, 8),
        ("kingen(players=3)", TournamentFormat.ROUND_ROBIN, 6),
        ("kingen(players=5)", TournamentFormat.ROUND_ROBIN, 7),
        ("priffe(rubbers_per_game=3)", "rotating", 8),
    ],
)
def test_the_service_gives_the_numbers_league_ratings_computes(
    game: str, fmt: str, entrants: int
) -> None:
    """Individual games: one team of one per seat (three to five) by score; Priffe: each
    rubber two teams of two (its partnerships) by their points: exactly skill_ratings
    over the same results."""
    tournament, organiser = bot_tournament(game=game, entrants=entrants, rounds=2)
    if fmt == "rotating":
        tournament.format = TournamentFormat.ROTATING_PARTNERS
        tournament.save()
    rounds_played(tournament, organiser, 2)
    ratings_update()

    expected = pure_ratings(tournament)

    stored = ratings_of(tournament=tournament)
    assert {c: (mu, sigma) for c, (mu, sigma, _) in stored.items()} == {
        int(p): (r.mu, r.sigma) for p, r in expected.ratings.items()
    }


@pytest.mark.django_db
def test_recompute_ratings_gives_the_same_numbers() -> None:
    first, organiser = bot_tournament(entrants=4, rounds=2)
    rounds_played(first, organiser, 2)
    second = tournament_create(
        actor=organiser,
        club=first.club,  # type: ignore[arg-type]
        name="Second",
        game="kingen",
        rounds=1,
        entrants=[e.competitor for e in first.entries.all()],
    )
    rounds_played(second, organiser, 1)
    ratings_update()
    before_ratings = ratings_of()
    before_history = history_of()
    out = io.StringIO()

    call_command("recompute_ratings", stdout=out)

    assert "3 rated results replayed" in out.getvalue()
    assert ratings_of() == before_ratings  # exactly: the same floats
    assert history_of() == before_history
    call_command("recompute_ratings", "--tournament", str(second.pk), stdout=io.StringIO())
    assert ratings_of() == before_ratings
    assert history_of() == before_history


@pytest.mark.django_db
def test_recompute_rates_what_was_not_rated_yet() -> None:
    tournament, organiser = bot_tournament(entrants=4, rounds=2)
    rounds_played(tournament, organiser, 1)
    ratings_update()
    rounds_played(tournament, organiser, 1)  # not rated yet

    report = ratings_recompute()

    assert (report.results, report.rated_after) == (1, 1)
    assert RatedMatch.objects.count() == 2


@pytest.mark.django_db
def test_a_new_bot_version_starts_from_its_parents_mu_with_a_wide_sigma() -> None:
    club, organiser = club_with_organiser()
    rivals = [competitor_builtin(name="random", bot_name=f"rival-{i}") for i in range(3)]
    first = competitor_builtin(name="greedy", bot_name="evolving")
    league = tournament_create(
        actor=organiser,
        club=club,
        name="First",
        game="kingen",
        rounds=3,
        entrants=[first, *rivals],
    )
    rounds_played(league, organiser, 3)
    ratings_update()
    parent = Rating.objects.get(competitor=first, tournament__isnull=True)
    assert parent.sigma < DEFAULT_SIGMA
    assert first.bot_version is not None
    version = BotVersion.objects.create(
        bot=first.bot_version.bot,
        number=2,
        kind=BotVersion.Kind.BUILTIN,
        builtin_name="greedy",
        options={},
        status=BotVersion.Status.ACTIVE,
    )
    second = competitor_for_bot_version(version=version)
    later = tournament_create(
        actor=organiser, club=club, name="Later", game="kingen", entrants=[second, *rivals]
    )
    rounds_played(later, organiser, 1)

    ratings_update()

    start = RatingChange.objects.get(competitor=second, tournament__isnull=True)
    assert (start.mu_before, start.sigma_before) == (parent.mu, DEFAULT_SIGMA)
    inside = RatingChange.objects.get(competitor=second, tournament=later)
    assert (inside.mu_before, inside.sigma_before) == (DEFAULT_MU, DEFAULT_SIGMA)  # new there
    before = ratings_of()
    ratings_recompute()
    assert ratings_of() == before


def rated_wait(count: int, *, worker: CeleryWorkerProcess, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if RatedMatch.objects.count() >= count:
            return
        if worker.process.poll() is not None:
            pytest.fail(f"the worker died:\n{worker.log()}")
        time.sleep(0.05)
    pytest.fail(f"not rated after {timeout:g} s:\n{worker.log()}")


@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_worker_on_the_ratings_queue_rates_what_match_finish_stores(
    celery_worker_factory: WorkerFactory, subprocess_environment: dict[str, str]
) -> None:
    """The worker consumes `ratings` only (as the production ratings worker does, with
    concurrency 1): a match played here sends its task there when its result commits."""
    environment = subprocess_environment | {
        "DATABASE_URL": database_url_for(connection.settings_dict)
    }
    worker = celery_worker_factory(environment, "ratings")
    tournament, organiser = bot_tournament(entrants=4, rounds=1)

    rounds_played(tournament, organiser, 1)

    rated_wait(1, worker=worker)
    assert "league.tasks.ratings_update" in worker.log()
    assert set(ratings_of(tournament=tournament)) == tournament_entrants(tournament.pk)


# ---------------------------------------------------------------- batches and recomputation


def history_by_match(**scope: Any) -> list[tuple[Any, ...]]:
    """The history by match (rated ids change when results are rated again)."""
    return sorted(
        RatingChange.objects.filter(**scope).values_list(
            "match_id",
            "competitor_id",
            "tournament_id",
            "family",
            "mu_before",
            "sigma_before",
            "mu",
            "sigma",
            "conservative",
        ),
        key=lambda row: (row[0], row[1], row[2] or 0),
    )


def every_rating(**scope: Any) -> dict[tuple[Any, ...], tuple[Any, ...]]:
    """Every rating, by competitor, family and tournament."""
    rows = Rating.objects.filter(**scope).values_list(
        "competitor_id", "family", "tournament_id", "mu", "sigma", "conservative", "games"
    )
    return {tuple(row[:3]): tuple(row[3:]) for row in rows}


def history_ids() -> set[int]:
    return set(RatingChange.objects.values_list("id", flat=True))


def synthetic_leagues() -> tuple[Tournament, Tournament, Tournament]:
    """Two Kingen tournaments sharing entrants (the family leaderboard spans both; the
    second has a new version of one entrant's bot) and a Priffe tournament, 60 stored
    results each, the second's and third's stored before the first's last ones."""
    club, organiser = club_with_organiser()
    entrants = [competitor_builtin(name="random", bot_name=f"entrant-{i}") for i in range(8)]
    parent = entrants[0].bot_version
    assert parent is not None
    version = BotVersion.objects.create(
        bot=parent.bot,
        number=2,
        kind=BotVersion.Kind.BUILTIN,
        builtin_name="random",
        options={},
        status=BotVersion.Status.ACTIVE,
    )
    tournaments = [
        tournament_create(
            actor=organiser, club=club, name=name, game=game, rounds=1000, entrants=players
        )
        for name, game, players in (
            ("First", "kingen", entrants),
            ("Second", "kingen", [competitor_for_bot_version(version=version), *entrants[1:]]),
            ("Priffe", "priffe(rubbers_per_game=2)", entrants),
        )
    ]
    first, second, priffe = tournaments
    synthetic_results(first, count=40, seed=1, priffe=False)
    synthetic_results(second, count=60, seed=2, priffe=False)
    synthetic_results(priffe, count=60, seed=3, priffe=True)
    synthetic_results(first, count=20, seed=4, priffe=False, first_round=100)
    return first, second, priffe


def rated_again(*, batch: int) -> None:
    RatedMatch.objects.all().delete()  # the history goes with them
    Rating.objects.all().delete()
    unqueued = MatchResult.objects.filter(rating_queue__isnull=True)  # waiting again
    ratings_enqueue(unqueued.order_by("id").values_list("id", flat=True))
    assert ratings_update(batch=batch) == MatchResult.objects.count()


@pytest.mark.django_db
def test_rating_in_batches_gives_the_numbers_of_rating_one_result_at_a_time() -> None:
    """The queue rates up to BATCH results in memory and writes once: the same ratings and
    history as one result per transaction, across tournaments, families and a new bot
    version whose parent is rated in the same batch."""
    synthetic_leagues()
    rated_again(batch=1)
    one_by_one = (every_rating(), history_by_match())
    assert len(one_by_one[1]) == 2 * 4 * 180

    rated_again(batch=200)
    assert (every_rating(), history_by_match()) == one_by_one
    rated_again(batch=7)
    assert (every_rating(), history_by_match()) == one_by_one


@pytest.mark.django_db
def test_a_recomputation_writes_only_what_differs() -> None:
    first, second, priffe = synthetic_leagues()
    ratings_update()
    ratings = every_rating()
    history = history_by_match()
    ids = history_ids()

    for tournament_id in (first.pk, second.pk, priffe.pk, None):
        report = ratings_recompute(tournament_id=tournament_id)
        assert report.written == 0
        assert (every_rating(), history_by_match(), history_ids()) == (ratings, history, ids)
    assert report.changes == len(history) == 2 * 4 * 180

    # another tournament's history and ratings are left alone by a tournament's recomputation
    changed = RatingChange.objects.filter(tournament=second).order_by("id").first()
    assert changed is not None
    RatingChange.objects.filter(pk=changed.pk).update(mu=changed.mu + 1)
    Rating.objects.filter(tournament=second).update(games=0)
    assert ratings_recompute(tournament_id=first.pk).written == 0
    assert RatingChange.objects.get(pk=changed.pk).mu == changed.mu + 1
    assert set(Rating.objects.filter(tournament=second).values_list("games", flat=True)) == {0}
    ratings_recompute(tournament_id=second.pk)
    assert (every_rating(), history_by_match()) == (ratings, history)


@pytest.mark.django_db
def test_a_recomputation_repairs_a_damaged_history_and_ratings() -> None:
    """Rows whose numbers differ are rewritten, missing rows inserted, rows no result gives
    deleted (in the tournament's scope, and on the family leaderboard)."""
    first, _, _ = synthetic_leagues()
    ratings_update()
    ratings = every_rating()
    history = history_by_match()
    for scope in ({"tournament": first}, {"tournament__isnull": True, "family": "kingen"}):
        rows = list(RatingChange.objects.filter(**scope).order_by("id")[:3])
        RatingChange.objects.filter(pk=rows[0].pk).update(sigma_before=1.0, conservative=0.0)
        RatingChange.objects.filter(pk=rows[1].pk).delete()
        stray = rows[2]
        stray.pk = None
        stray.competitor_id = Competitor.objects.exclude(pk=stray.competitor_id).values_list(
            "id", flat=True
        )[0]
        stray.save()
        rating = Rating.objects.filter(**scope).order_by("id").first()
        assert rating is not None
        Rating.objects.filter(pk=rating.pk).update(mu=0.5)
        Rating.objects.filter(**scope).order_by("-id").first().delete()  # type: ignore[union-attr]

    report = ratings_recompute(tournament_id=first.pk)
    assert report.written == 3
    assert every_rating(tournament=first) == {k: v for k, v in ratings.items() if k[2] == first.pk}
    assert history_by_match(tournament=first) == [h for h in history if h[2] == first.pk]
    assert history_by_match() != history  # the leaderboard's damage is still there
    assert every_rating() != ratings

    report = ratings_recompute()
    assert report.written == 3
    assert (every_rating(), history_by_match()) == (ratings, history)


@pytest.mark.django_db
def test_a_recomputation_fills_an_empty_history() -> None:
    synthetic_leagues()
    ratings_update()
    ratings = every_rating()
    history = history_by_match()
    RatingChange.objects.all().delete()
    Rating.objects.all().delete()

    report = ratings_recompute()

    assert report.written == report.changes == len(history)
    assert (every_rating(), history_by_match()) == (ratings, history)


@pytest.mark.django_db
def test_a_recomputation_reads_a_priffe_result_stored_without_rubbers_from_its_record() -> None:
    tournament, organiser = bot_tournament(game="priffe(rubbers_per_game=2)", entrants=6, rounds=2)
    tournament.format = TournamentFormat.ROTATING_PARTNERS
    tournament.save()
    rounds_played(tournament, organiser, 2)
    ratings_update()
    ratings = every_rating()
    history = history_by_match()
    result = MatchResult.objects.filter(match__tournament=tournament).order_by("id").first()
    assert result is not None
    rubbers = result.standings_input["rubbers"]
    legacy = {k: v for k, v in result.standings_input.items() if k != "rubbers"}
    MatchResult.objects.filter(pk=result.pk).update(standings_input=legacy)

    assert ratings_recompute().written == 0

    assert (every_rating(), history_by_match()) == (ratings, history)
    result.refresh_from_db()
    assert result.standings_input["rubbers"] == rubbers
