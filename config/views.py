"""/healthz: the project's health, for docker compose and monitoring; ``/healthz?scope=web``
for a load balancer in front of several web machines (docs/operations.md, "Web machines")."""

from django.http import HttpRequest, JsonResponse

from asgiref.sync import sync_to_async

from config.health import (
    HEALTH_SCOPES,
    HealthReport,
    beat_health,
    broker_only_health,
    database_health,
    messaging_health,
)


async def healthz(request: HttpRequest) -> JsonResponse:
    """Database, broker, worker and beat: 200 when all answer (and beat ticked lately),
    else 503 naming them. With ``scope=web``, only what this web machine needs to serve
    (the database and Redis, as it reaches them): a balancer takes a machine out when it
    cannot serve, not when beat or the workers, which no web machine can replace, are down.

    The broker and worker checks wait on the network, so they run off Django's shared
    thread for sync code and do not hold up other requests.
    """
    scope = request.GET.get("scope", "")
    if scope not in HEALTH_SCOPES:
        expected = " or ".join(repr(s) for s in HEALTH_SCOPES if s)
        return JsonResponse(
            {"detail": f"scope: expected {expected} (or none), got {scope!r}"}, status=400
        )
    database = await sync_to_async(database_health)()
    if scope == "web":
        broker = await sync_to_async(broker_only_health, thread_sensitive=False)()
        web = HealthReport(components=(database, broker))
        return JsonResponse(web.as_json(), status=200 if web.ok else 503)
    beat = await sync_to_async(beat_health)(database=database)
    broker, worker = await sync_to_async(messaging_health, thread_sensitive=False)()
    report = HealthReport(components=(database, broker, worker, beat))
    return JsonResponse(report.as_json(), status=200 if report.ok else 503)
