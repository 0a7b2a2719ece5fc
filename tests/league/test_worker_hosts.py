"""Workers on more machines: two worker hosts against one PostgreSQL and one Redis.

Each host is a network namespace of its own with its own address (tests/network_hosts.py),
reaching PostgreSQL and Redis, which listen on 127.0.0.1 only, through a forwarder on its
gateway's address, as a worker machine reaches the database server over the network. A
real Celery worker runs on each (its node name says its host; ``Match.played_by`` keeps
who played each match) and plays the ladder's matches, an uploaded version in the sandbox
among them. Then one host is killed in the middle of a match (every one of its processes
SIGKILLed, then its link cut): the other host's sweeper re-queues that match when its lease
runs out (MATCH_LEASE_SECONDS, short here) and plays it, and every ladder match queued ends
finished exactly once, with one verified result.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from django.contrib.auth.models import User
from django.db import connection

import pytest

from league.models import Competitor, Ladder, Match, MatchStatus
from league.services.ladders import ladder_anchor_add, ladder_matchmake, ladder_open
from tests.bots.botcode import PLAYER
from tests.celery_workers import CeleryWorkerProcess, process_stop, worker_start
from tests.league import worker_runs
from tests.league.builders import active_uploaded_version, user_create
from tests.network_hosts import NetworkHost, host_environment, network_hosts, servers_forwarded
from tests.servers import database_url_for

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.worker,
    pytest.mark.sandbox,
    pytest.mark.netns,
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
]

WAIT_SECONDS = 240.0
LEASE_SECONDS = 3
"""The workers' MATCH_LEASE_SECONDS: a lost host's match comes back within seconds."""
RESEND_SECONDS = 15
"""The workers' MATCH_RESEND_SECONDS: a task message the lost host had taken but not
started (none with a prefetch of one, but that is Celery's business) is sent again soon."""
GOOD_BOT = (
    PLAYER
    + "\nimport time\n\ndef hook(number, request):\n"
    + "    time.sleep(0.05)\n    report('move', str(number))\n\nplay()\n"
)
"""A legal player that takes 50 ms a decision: with the warm sandboxes a match of quick bots
ends within one batch of events (league.services.matches.FLUSH_SECONDS), before any is
stored; this one's matches take a second or so, so a host can be killed in the middle of one
that has stored events."""


def uploaded(owner: User, name: str) -> Competitor:
    """An active uploaded kingen version (played in the sandbox on whichever host)."""
    return active_uploaded_version(owner, name, GOOD_BOT)


def node_of(host: NetworkHost) -> str:
    return f"ladder@host-{host.name}"


@pytest.fixture
def hosts_with_workers(
    subprocess_environment: dict[str, str], tmp_path: Path
) -> Iterator[tuple[list[NetworkHost], list[CeleryWorkerProcess]]]:
    """Two hosts, a forwarder in front of PostgreSQL and Redis, a worker on each; all
    stopped and removed afterwards."""
    environment = subprocess_environment | {
        "DATABASE_URL": database_url_for(connection.settings_dict),
        "MATCH_LEASE_SECONDS": str(LEASE_SECONDS),
        "MATCH_RESEND_SECONDS": str(RESEND_SECONDS),
    }
    workers: list[CeleryWorkerProcess] = []
    with (
        network_hosts(2) as hosts,
        servers_forwarded(
            hosts,
            database_url=environment["DATABASE_URL"],
            redis_url=environment["REDIS_URL"],
            log_path=tmp_path / "forwarder.log",
        ),
    ):
        try:
            for host in hosts:
                workers.append(  # noqa: PERF401 - each is stopped even if the next fails
                    worker_start(
                        environment=host_environment(host, environment),
                        log_path=tmp_path / f"worker-{host.name}.log",
                        # the serial ratings queue: one process, on the host that stays
                        queues="default,matches" + (",ratings" if host.name == "b" else ""),
                        node_name=node_of(host),
                        command_prefix=host.command_prefix,
                    )
                )
            yield hosts, workers
        finally:
            for worker in workers:
                process_stop(worker.process, timeout=20)


def wait_until(what: str, predicate: Callable[[], Any], workers: list[CeleryWorkerProcess]) -> Any:
    return worker_runs.wait_until(what, predicate, *[w.log for w in workers], seconds=WAIT_SECONDS)


def played_on(ladder: Ladder, host: NetworkHost) -> int:
    return Match.objects.filter(
        tournament=ladder.tournament,
        status=MatchStatus.FINISHED,
        played_by__startswith=f"{node_of(host)}:",
    ).count()


def test_ladder_matches_spread_over_two_hosts_and_a_killed_host_loses_none(
    hosts_with_workers: tuple[list[NetworkHost], list[CeleryWorkerProcess]],
) -> None:
    hosts, workers = hosts_with_workers
    doomed, survivor = hosts
    ladder = ladder_open(
        game="kingen", anchors=("greedy", "random"), queued_limit=4, concurrent_limit=4
    )
    ladder_anchor_add(ladder=ladder, name="greedy", bot_name="greedy-2")
    # Its bots' moves take milliseconds: a short move time keeps the lease short (the
    # lease is MATCH_LEASE_SECONDS plus the move time and the time bank).
    ladder.tournament.move_seconds = 2.0
    ladder.tournament.time_bank_seconds = 0.0
    ladder.tournament.save(update_fields=["move_seconds", "time_bank_seconds"])
    uploaded(user_create("ann"), "roamer")
    assert ladder_matchmake(ladder_id=ladder.pk)  # then each finished match asks for more

    # Both hosts play the ladder's matches.
    wait_until(
        "both hosts finish ladder matches",
        lambda: played_on(ladder, doomed) >= 2 and played_on(ladder, survivor) >= 2,
        workers,
    )

    # Kill one host in the middle of a match: all its processes, then its link.
    def doomed_running() -> list[int]:
        return list(
            Match.objects.filter(
                tournament=ladder.tournament,
                status=MatchStatus.RUNNING,
                worker__startswith=f"{node_of(doomed)}:",
                events_stored__gt=0,
            ).values_list("id", flat=True)
        )

    wait_until("the doomed host is in the middle of a match", doomed_running, workers)
    killed = doomed.kill()
    doomed.cut()
    assert killed
    assert not doomed.pids()
    lost = doomed_running()  # what it held when it died: nobody else can change them yet
    assert lost, "the host finished its match before it was killed"
    finished_before = played_on(ladder, doomed)

    # The survivor picks the lost match up once its lease runs out, and plays on.
    wait_until(
        "the lost match is played by the surviving host",
        lambda: (
            Match.objects.filter(
                pk__in=lost,
                status=MatchStatus.FINISHED,
                played_by__startswith=f"{node_of(survivor)}:",
            ).count()
            == len(lost)
        ),
        workers[1:],
    )
    Ladder.objects.filter(pk=ladder.pk).update(running=False)  # no new tables from here
    wait_until(
        "every queued ladder match ends",
        lambda: (
            not Match.objects.filter(
                tournament=ladder.tournament, status__in=[MatchStatus.QUEUED, MatchStatus.RUNNING]
            ).exists()
        ),
        workers[1:],
    )

    matches = list(Match.objects.filter(tournament=ladder.tournament).order_by("id"))
    assert len(matches) > 4
    for match in matches:
        assert match.status == MatchStatus.FINISHED, (match.pk, match.status, match.error)
        worker_runs.assert_one_verified_result(match.pk)  # exactly once, and it replays
        assert match.played_by.split(":")[0] in {node_of(doomed), node_of(survivor)}
    for match in (m for m in matches if m.pk in lost):
        assert match.attempts == 2
        assert match.lease_expiries == 1
    assert played_on(ladder, doomed) == finished_before  # a dead host finishes nothing
    assert played_on(ladder, survivor) + finished_before == len(matches)
