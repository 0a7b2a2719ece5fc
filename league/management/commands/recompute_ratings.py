from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from league.models import Tournament
from league.services.ratings import ratings_recompute


class Command(BaseCommand):
    help = (
        "Recompute the openskill ratings and their history from the stored results, in the "
        "order the ratings queue rated them (the same numbers), then rate any result not "
        "rated yet. Only history rows and ratings that differ are written. --tournament ID "
        "recomputes that tournament's own ratings only (the family leaderboards span "
        "tournaments and are recomputed as a whole)."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--tournament", type=int, help="only this tournament's ratings")

    def handle(self, *args: Any, **options: Any) -> None:
        tournament_id = options.get("tournament")
        if tournament_id is not None and not Tournament.objects.filter(pk=tournament_id).exists():
            raise CommandError(f"--tournament: no tournament {tournament_id}")
        report = ratings_recompute(tournament_id=tournament_id)
        where = f"tournament {tournament_id}" if tournament_id is not None else "every scope"
        self.stdout.write(
            f"ratings of {where}: {report.results} rated results replayed, "
            f"{report.changes} history rows ({report.written} written, the others were "
            f"the same), {report.ratings} ratings; "
            f"{report.rated_after} results rated for the first time"
        )
