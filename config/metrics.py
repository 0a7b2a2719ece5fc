"""Prometheus metrics at ``/metrics`` (docs/operations.md, *Metrics*), for operators only.

Two kinds:

- **requests**, by django-prometheus's middleware (``django_http_*``: counts by view, method
  and status, latency histograms), summed over the web server's processes (each writes
  its own to a file under PROMETHEUS_MULTIPROC_DIR, prometheus_client's multiprocess mode);
- **the league's own**, read from the database and the broker when Prometheus scrapes
  (``LeagueCollector``), so they are the same whichever process answers and include what
  every worker on every machine did: matches finished (a counter: ``rate()`` gives matches
  per minute), matches by status, queue depths per Celery queue and priority, match and
  move durations (histograms over the latest finished matches), sandbox start times (a
  histogram over the latest uploaded seats), bot faults by kind, tasks
  waiting in the outbox, and ladder games per version.

``/metrics`` answers only a request carrying ``Authorization: Bearer <METRICS_TOKEN>`` (the
setting, from the environment) or a signed-in staff member; anyone else gets 404, as if
it were not there.
"""

from __future__ import annotations

import hmac
import os
from collections.abc import Iterator, Sequence
from typing import Any

from django.conf import settings
from django.db.models import Count, DurationField, ExpressionWrapper, F
from django.http import Http404, HttpRequest, HttpResponse

from prometheus_client import REGISTRY, CollectorRegistry, generate_latest, multiprocess
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)

from bots.models import BotFault
from league.models import (
    LadderEntrant,
    Match,
    MatchEvent,
    MatchStatus,
    OutboxTask,
    Rating,
    SeatLog,
)

MULTIPROCESS_VARIABLE = "PROMETHEUS_MULTIPROC_DIR"
QUEUES = ("interactive", "default", "matches", "ratings", "analysis")
PRIORITY_STEPS = (0, 3, 6, 9)
"""kombu's Redis priority steps: a message of priority p waits in ``queue\\x06\\x16p``."""
RECENT_MATCHES = 200
"""Finished matches the duration histograms are drawn from (the latest ones)."""
MATCH_BUCKETS = (1.0, 2.0, 5.0, 10.0, 20.0, 30.0, 60.0, 120.0, 300.0, 600.0)
MOVE_BUCKETS_MS = (1.0, 5.0, 10.0, 25.0, 50.0, 100.0, 250.0, 500.0, 1000.0, 2500.0, 5000.0)
RECENT_SEAT_STARTS = 1000
"""Uploaded seats the sandbox start histogram is drawn from (the latest ones)."""
START_BUCKETS_MS = (1.0, 5.0, 10.0, 25.0, 50.0, 100.0, 250.0, 500.0, 1000.0, 2500.0, 5000.0)


def _histogram(
    name: str, documentation: str, values: Sequence[float], buckets: Sequence[float]
) -> HistogramMetricFamily:
    cumulative = [(str(bound), float(sum(v <= bound for v in values))) for bound in buckets]
    cumulative.append(("+Inf", float(len(values))))
    return HistogramMetricFamily(
        name, documentation, buckets=cumulative, sum_value=float(sum(values))
    )


def queue_depths(broker_url: str) -> dict[tuple[str, int], int]:
    """Messages waiting per (queue, priority) on a Redis broker; empty for another one."""
    if not broker_url.startswith(("redis://", "rediss://")):
        return {}
    # The client is the broker's (celery[redis]); imported here, where it is needed.
    import redis  # why: only a Redis broker has lists to count

    client = redis.Redis.from_url(broker_url, socket_timeout=2, socket_connect_timeout=2)
    try:
        keys = [(q, p) for q in QUEUES for p in PRIORITY_STEPS]
        with client.pipeline() as pipe:
            for queue, priority in keys:
                pipe.llen(queue if priority == 0 else f"{queue}\x06\x16{priority}")
            return dict(zip(keys, (int(n) for n in pipe.execute()), strict=True))
    finally:
        client.close()


class LeagueCollector:
    """The league's metrics, read at scrape time (see the module)."""

    def collect(self) -> Iterator[Metric]:
        by_status = dict(
            Match.objects.values_list("status").annotate(n=Count("id")).values_list("status", "n")
        )
        finished = CounterMetricFamily(
            "kingleague_matches_finished", "Matches finished since the start (rate: per minute)."
        )
        finished.add_metric([], float(by_status.get(MatchStatus.FINISHED, 0)))
        yield finished
        matches = GaugeMetricFamily("kingleague_matches", "Matches by status.", labels=["status"])
        for status in MatchStatus:
            matches.add_metric([status.value], float(by_status.get(status.value, 0)))
        yield matches
        yield from self._durations()
        faults = CounterMetricFamily(
            "kingleague_bot_faults", "Faults of uploaded bots by kind.", labels=["cause"]
        )
        for cause, n in BotFault.objects.values_list("cause").annotate(n=Count("id")):
            faults.add_metric([cause or "unknown"], float(n))
        yield faults
        outbox = GaugeMetricFamily("kingleague_outbox_waiting", "Tasks waiting for the broker.")
        outbox.add_metric([], float(OutboxTask.objects.count()))
        yield outbox
        yield self._queues()
        yield self._ladder_games()

    def _durations(self) -> Iterator[Metric]:
        recent = list(
            Match.objects.filter(status=MatchStatus.FINISHED, started_at__isnull=False)
            .order_by("-id")
            .annotate(took=ExpressionWrapper(F("finished_at") - F("started_at"), DurationField()))
            .values_list("id", "took")[:RECENT_MATCHES]
        )
        yield _histogram(
            "kingleague_match_duration_seconds",
            f"From a match's first claim to its end, over the latest {RECENT_MATCHES} matches.",
            [took.total_seconds() for _, took in recent if took is not None],
            MATCH_BUCKETS,
        )
        moves = MatchEvent.objects.filter(
            match_id__in=[pk for pk, _ in recent[:20]], seat__isnull=False, ms__isnull=False
        ).values_list("ms", flat=True)
        yield _histogram(
            "kingleague_move_duration_milliseconds",
            "A seat's time per move, over the latest 20 finished matches.",
            [float(ms) for ms in moves if ms is not None],
            MOVE_BUCKETS_MS,
        )
        starts = SeatLog.objects.filter(startup_ms__isnull=False).order_by("-id")
        latest = starts.values_list("startup_ms", flat=True)[:RECENT_SEAT_STARTS]
        yield _histogram(
            "kingleague_sandbox_start_milliseconds",
            "How long a match waited for an uploaded bot's ready (its sandbox's start; less "
            f"for a bot started ahead), over the latest {RECENT_SEAT_STARTS} uploaded seats.",
            [float(ms) for ms in latest if ms is not None],
            START_BUCKETS_MS,
        )

    def _queues(self) -> Metric:
        depth = GaugeMetricFamily(
            "kingleague_queue_depth",
            "Messages waiting per Celery queue and priority (Redis broker).",
            labels=["queue", "priority"],
        )
        try:
            depths = queue_depths(str(settings.CELERY_BROKER_URL))
        except Exception:  # the broker is away: no sample, and the scrape still answers
            depths = {}
        for (queue, priority), n in depths.items():
            depth.add_metric([queue, str(priority)], float(n))
        return depth

    def _ladder_games(self) -> Metric:
        games = CounterMetricFamily(
            "kingleague_ladder_games",
            "Rated ladder games per version.",
            labels=["ladder", "version"],
        )
        entrants = LadderEntrant.objects.values_list(
            "ladder__slug", "ladder__tournament_id", "competitor_id", "competitor__name"
        )
        rated = {
            (tournament, competitor): n
            for tournament, competitor, n in Rating.objects.filter(
                tournament__format="ladder"
            ).values_list("tournament_id", "competitor_id", "games")
        }
        for slug, tournament, competitor, name in entrants:
            n = rated.get((tournament, competitor), 0)
            games.add_metric([slug, f"{name} ({competitor})"], float(n))
        return games


_registry: CollectorRegistry | None = None


def registry() -> CollectorRegistry:
    """The request metrics with the league's. Under production's web server of several
    processes (PROMETHEUS_MULTIPROC_DIR set by config/web_server.py) every process writes
    its counts to a file of its own there and a scrape sums them all, whichever process
    answers; otherwise the process's own default registry (django-prometheus's)."""
    global _registry
    if _registry is None:
        if os.environ.get(MULTIPROCESS_VARIABLE):
            own = CollectorRegistry()
            multiprocess.MultiProcessCollector(own)  # type: ignore[no-untyped-call]
            own.register(LeagueCollector())
            _registry = own
        else:
            REGISTRY.register(LeagueCollector())
            _registry = REGISTRY
    return _registry


def _allowed(request: HttpRequest) -> bool:
    token = str(getattr(settings, "METRICS_TOKEN", "") or "")
    given = request.headers.get("Authorization", "")
    if token and hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
        return True
    user: Any = request.user
    return bool(user.is_authenticated and user.is_staff)


def metrics_view(request: HttpRequest) -> HttpResponse:
    if not _allowed(request):
        raise Http404("Not found.")
    return HttpResponse(
        generate_latest(registry()), content_type="text/plain; version=0.0.4; charset=utf-8"
    )
