"""/healthz: the project's health, for load balancers and docker compose."""

from django.http import HttpRequest, JsonResponse

from asgiref.sync import sync_to_async

from config.health import HealthReport, beat_health, database_health, messaging_health


async def healthz(request: HttpRequest) -> JsonResponse:
    """Database, broker, worker and beat: 200 when all answer (and beat ticked lately),
    else 503 naming them.

    The broker and worker checks wait on the network, so they run off Django's shared
    thread for sync code and do not hold up other requests.
    """
    database = await sync_to_async(database_health)()
    beat = await sync_to_async(beat_health)(database=database)
    broker, worker = await sync_to_async(messaging_health, thread_sensitive=False)()
    report = HealthReport(components=(database, broker, worker, beat))
    return JsonResponse(report.as_json(), status=200 if report.ok else 503)
