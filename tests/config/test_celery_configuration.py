"""Celery is set up for tasks that must not be lost (docs/operations.md)."""

from django.conf import settings

from config.celery import app


def test_tasks_are_acknowledged_late_and_requeued_when_a_worker_dies() -> None:
    assert app.conf.task_acks_late is True
    assert app.conf.task_reject_on_worker_lost is True
    assert app.conf.worker_prefetch_multiplier == 1
    assert app.conf.task_serializer == "json"
    assert app.conf.accept_content == ["json"]


def test_time_limits_stay_below_the_redelivery_timeout() -> None:
    assert app.conf.task_soft_time_limit < app.conf.task_time_limit
    assert app.conf.task_time_limit < settings.CELERY_BROKER_VISIBILITY_TIMEOUT
    if not settings.MESSAGING.embedded:
        visibility = app.conf.broker_transport_options["visibility_timeout"]
        assert visibility == settings.CELERY_BROKER_VISIBILITY_TIMEOUT


def test_match_tasks_go_to_their_lanes_queues_and_the_rest_to_default() -> None:
    def queue_of(task_name: str) -> str:
        name: str = app.amqp.router.route({}, task_name)["queue"].name
        return name

    assert queue_of("league.tasks.run_match_interactive") == "interactive"  # a person waits
    assert queue_of("league.tasks.run_match_challenge") == "interactive"  # its author waits
    assert queue_of("league.tasks.run_match") == "matches"
    assert queue_of("league.tasks.run_match_deal") == "matches"
    assert queue_of("league.tasks.run_match_ladder") == "matches"
    assert queue_of("league.tasks.heartbeat_record") == "default"
    assert queue_of("league.tasks.ratings_update") == "ratings"  # the serial queue
    assert queue_of("league.tasks.match_analyse") == "analysis"  # long solves, apart


def test_a_worker_consumes_every_queue_by_default() -> None:
    assert set(app.amqp.queues) == {"interactive", "default", "matches", "ratings", "analysis"}
    routing = {name: queue.routing_key for name, queue in app.amqp.queues.items()}
    assert routing == {
        "interactive": "interactive",
        "default": "default",
        "matches": "matches",
        "ratings": "ratings",
        "analysis": "analysis",
    }


def test_ladder_matches_go_at_the_lowest_priority_and_every_other_match_at_the_highest() -> None:
    """On Redis a worker polls each queue's priority-0 list before any priority-9 one, so
    a league's match (run_match, no priority: 0) is taken before waiting ladder games
    (docs/operations.md, *Queues and priorities*; tests/league/test_ladder_worker.py)."""

    def priority_of(task_name: str) -> object:
        return app.amqp.router.route({}, task_name).get("priority")

    assert priority_of("league.tasks.run_match_ladder") == 9
    assert priority_of("league.tasks.run_match") is None
    assert priority_of("league.tasks.run_match_interactive") is None
    assert priority_of("league.tasks.run_match_challenge") == 3  # after the people's tables
    assert priority_of("league.tasks.ladders_matchmake") is None
