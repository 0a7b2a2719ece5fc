"""The Django project: settings, URLs, ASGI/WSGI, the Celery app, WebSocket routing, and
the processes' wiring (beat's scheduler, the workers' sweeper, /healthz, the supervisor of
``scripts/run``). Everything the league does lives in ``league/``; this package only puts
the parts together (docs/architecture.md).

The Celery app is imported here so that ``celery -A config worker`` finds it and every
``@shared_task`` binds to it.
"""

from config.celery import app as celery_app

__all__ = ("celery_app",)
