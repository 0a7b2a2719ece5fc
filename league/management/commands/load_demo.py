"""``python manage.py load_demo``: the demo club with a dozen built-in bots, a Kingen league
and a Priffe rotating-partner league that keep playing (a round every minute once the
previous one is over, a new season when one ends), their first rounds queued for the
workers (league.services.demo).

Idempotent: a second run finds everything and changes nothing (it starts no second
round). ``scripts/run`` calls it, so a newcomer sees standings and replays within a minute
of starting the service.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from league.services.demo import DEMO_ROUND_MINUTES, demo_load


class Command(BaseCommand):
    help = (
        "Create the demo club, its bots and two leagues that keep playing, and queue their "
        "first rounds."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        report = demo_load()
        for tournament in report.started:
            self.stdout.write(f"demo: {tournament.name}: round 1 queued")
        for tournament in report.leagues:
            self.stdout.write(
                f"demo: {tournament.name}: a round every {DEMO_ROUND_MINUTES} min;"
                f" /api/tournaments/{tournament.pk}/standings/"
            )
