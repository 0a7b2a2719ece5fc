"""The rating queue (league.models.RatingQueueEntry): a result is stored with its entry,
the ratings queue rates what waits there and deletes the entries in the same transaction,
a batch that fails leaves them, two runs at once rate each result once, a recomputation
leaves no result both rated and waiting, and migration 0007 puts the results stored
before the queue existed in it."""

from __future__ import annotations

import importlib
import threading

from django.apps import apps
from django.db import connection, connections, transaction

import pytest

from bench.synthetic import synthetic_results
from league.models import MatchResult, RatedMatch, RatingQueueEntry, Tournament
from league.services.ratings import ratings_recompute, ratings_update
from league.services.tournaments import tournament_create
from tests.league.builders import bot_tournament, builtin_competitors, club_with_organiser
from tests.league.test_standings_service import rounds_played


def waiting() -> list[int]:
    return list(RatingQueueEntry.objects.order_by("result_id").values_list("result_id", flat=True))


def rated() -> list[int]:
    return list(RatedMatch.objects.order_by("id").values_list("result_id", flat=True))


def kingen(name: str = "Queue") -> Tournament:
    club, organiser = club_with_organiser(name=name, organiser=f"{name.lower()}-organiser")
    return tournament_create(
        actor=organiser,
        club=club,
        name=name,
        game="kingen",
        rounds=1000,
        entrants=builtin_competitors(6, "random"),
    )


@pytest.mark.django_db
def test_match_finish_stores_the_result_waiting_and_the_queue_rates_it_and_drops_it() -> None:
    tournament, organiser = bot_tournament(entrants=8, rounds=1)
    rounds_played(tournament, organiser, 1)
    results = list(MatchResult.objects.order_by("id").values_list("id", flat=True))
    assert len(results) == 2
    assert waiting() == results
    assert rated() == []

    assert ratings_update() == 2

    assert waiting() == []
    assert rated() == results  # oldest first
    assert ratings_update() == 0


@pytest.mark.django_db
def test_the_queue_rates_in_batches_oldest_first() -> None:
    results = [r.pk for r in synthetic_results(kingen(), count=7, seed=1, priffe=False)]

    assert ratings_update(batch=3) == 7

    assert rated() == results
    assert waiting() == []


@pytest.mark.django_db
def test_a_batch_that_fails_leaves_its_results_waiting() -> None:
    """The third result's stored input is broken: the batch holding it rolls back, its
    rated matches and deleted entries with it; the batch before it stays committed."""
    results = [r.pk for r in synthetic_results(kingen(), count=4, seed=1, priffe=False)]
    broken = MatchResult.objects.get(pk=results[2])
    seats = broken.standings_input["seats"]
    MatchResult.objects.filter(pk=broken.pk).update(standings_input={"round": 1})

    with pytest.raises(KeyError):
        ratings_update(batch=2)

    assert rated() == results[:2]
    assert waiting() == results[2:]

    MatchResult.objects.filter(pk=broken.pk).update(standings_input={"round": 1, "seats": seats})
    assert ratings_update(batch=2) == 2
    assert rated() == results
    assert waiting() == []


@pytest.mark.django_db
def test_an_entry_of_a_result_rated_already_is_only_dropped() -> None:
    results = [r.pk for r in synthetic_results(kingen(), count=3, seed=1, priffe=False)]
    ratings_update()
    RatingQueueEntry.objects.create(result_id=results[1])  # by hand

    assert ratings_update() == 0

    assert waiting() == []
    assert rated() == results


@pytest.mark.django_db
def test_a_recomputation_leaves_no_result_rated_and_waiting_nor_unrated_unqueued() -> None:
    first, second = kingen("First"), kingen("Second")
    done = [r.pk for r in synthetic_results(first, count=3, seed=1, priffe=False)]
    ratings_update()
    RatingQueueEntry.objects.create(result_id=done[0])  # rated and waiting
    lost = [r.pk for r in synthetic_results(first, count=2, seed=2, priffe=False, first_round=100)]
    other = [r.pk for r in synthetic_results(second, count=2, seed=3, priffe=False)]
    RatingQueueEntry.objects.filter(result_id__in=[lost[0], other[0]]).delete()

    # a recomputation of `first` queues (and rates) its unrated results, `second`'s
    # result without an entry is outside its scope: its waiting one is rated
    report = ratings_recompute(tournament_id=first.pk)

    assert report.rated_after == 3  # lost[0], lost[1], other[1]
    assert waiting() == []
    assert sorted(rated()) == sorted([*done, *lost, other[1]])

    report = ratings_recompute()  # every scope
    assert report.rated_after == 1
    assert sorted(rated()) == sorted([*done, *lost, *other])
    assert waiting() == []


@pytest.mark.django_db
def test_migration_0007_puts_the_unrated_results_in_the_queue() -> None:
    """As on a deployment that stored results before the queue: rated results, unrated
    ones without an entry, and one that waits already (left as it is)."""
    tournament = kingen()
    done = [r.pk for r in synthetic_results(tournament, count=3, seed=1, priffe=False)]
    ratings_update()
    unrated = [
        r.pk for r in synthetic_results(tournament, count=4, seed=2, priffe=False, first_round=100)
    ]
    RatingQueueEntry.objects.filter(result_id__in=unrated[:3]).delete()
    assert waiting() == unrated[3:]

    migration = importlib.import_module("league.migrations.0007_rating_queue")
    migration.unrated_results_queue(apps, connection.schema_editor())

    assert waiting() == unrated
    assert ratings_update() == 4
    assert rated() == [*done, *unrated]


def _rate_in_a_thread(outcome: dict[str, object]) -> None:
    try:
        outcome["rated"] = ratings_update()
    except Exception as exc:  # reported to the test
        outcome["error"] = exc
    finally:
        connections.close_all()


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_runs_at_once_rate_each_result_once() -> None:
    """A run holds the lock (this test's transaction) while a second run starts in
    another connection: the second waits, then finds the queue empty."""
    if connection.vendor != "postgresql":
        pytest.skip("the advisory lock is PostgreSQL's")
    results = [r.pk for r in synthetic_results(kingen(), count=5, seed=1, priffe=False)]
    outcome: dict[str, object] = {}
    with transaction.atomic():
        assert ratings_update() == 5  # the lock is held until this block commits
        second = threading.Thread(target=_rate_in_a_thread, args=(outcome,))
        second.start()
        second.join(timeout=1.0)
        assert second.is_alive()  # waiting for the lock
    second.join(timeout=30.0)

    assert outcome == {"rated": 0}
    assert rated() == results
    assert waiting() == []
