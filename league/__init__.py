"""King League: the Django project and the league app.

The Celery app is imported here so that `celery -A league worker` finds it and @shared_task
binds to it.
"""

from league.celery import app as celery_app

__all__ = ("celery_app",)
