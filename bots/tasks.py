"""Celery tasks of the bots app: thin, they take ids and call a service."""

from celery import shared_task
from celery.contrib.django.task import DjangoTask

from bots.services import bot_version_validate as bot_version_validate_service


@shared_task(base=DjangoTask)
def bot_version_validate(version_id: int) -> None:
    """Play the validation game of an uploaded version (bots.services)."""
    bot_version_validate_service(version_id=version_id)
