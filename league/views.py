from django.http import HttpRequest, JsonResponse
from django.views.generic import TemplateView

from asgiref.sync import sync_to_async

from league.health import HealthReport, database_health, messaging_health


class HomeView(TemplateView):
    template_name = "home.html"


async def healthz(request: HttpRequest) -> JsonResponse:
    """Database, broker and worker reachability: 200 when all answer, else 503 naming them.

    The broker and worker checks wait on the network, so they run off Django's shared
    thread for sync code and do not hold up other requests.
    """
    database = await sync_to_async(database_health)()
    broker, worker = await sync_to_async(messaging_health, thread_sensitive=False)()
    report = HealthReport(components=(database, broker, worker))
    return JsonResponse(report.as_json(), status=200 if report.ok else 503)
