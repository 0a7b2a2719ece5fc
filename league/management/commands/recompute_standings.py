from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from league.models import Tournament
from league.services.standings import standings_recompute


class Command(BaseCommand):
    help = (
        "Rebuild the stored standings from the stored results (every tournament, or "
        "--tournament ID); the table is the same as the one kept up to date result by result."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--tournament", type=int, help="only this tournament")

    def handle(self, *args: Any, **options: Any) -> None:
        tournaments = Tournament.objects.order_by("id")
        if options.get("tournament") is not None:
            tournaments = tournaments.filter(pk=options["tournament"])
            if not tournaments.exists():
                raise CommandError(f"--tournament: no tournament {options['tournament']}")
        for tournament in tournaments:
            count = standings_recompute(tournament=tournament)
            self.stdout.write(f"tournament {tournament.pk}: standings of {count} results")
