"""manage.py ladder_open GAME: an operator opens a ladder (docs/league.md, *Ladders*)."""

from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from league.domain.ladder_results import duplicate_game
from league.errors import LeagueError
from league.services.ladders import DEFAULT_ANCHORS, ladder_open


class Command(BaseCommand):
    help = (
        "Open an always-running ladder of GAME (a family such as kingen, or a variant such "
        "as 'kingen(players=5)'): every active uploaded version of the family plays on it "
        "unless its owner opts out, anchored by built-in bots."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("game")
        parser.add_argument("--name", default="")
        parser.add_argument("--slug", default="")
        parser.add_argument(
            "--anchors",
            default=",".join(DEFAULT_ANCHORS),
            help="built-in bots anchoring the scale, comma-separated (default: %(default)s)",
        )
        parser.add_argument("--queued-limit", type=int, default=6)
        parser.add_argument("--concurrent-limit", type=int, default=2)
        parser.add_argument("--placement-games", type=int, default=10)

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            ladder = ladder_open(
                game=options["game"],
                name=options["name"],
                slug=options["slug"],
                anchors=[a.strip() for a in options["anchors"].split(",") if a.strip()],
                queued_limit=options["queued_limit"],
                concurrent_limit=options["concurrent_limit"],
                placement_games=options["placement_games"],
            )
        except LeagueError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(f"ladder {ladder.slug}: {ladder.game}, /ladders/{ladder.slug}/")
        paired = duplicate_game(ladder.game)
        if paired is not None:
            self.stdout.write(
                f"its tables are dealt one by one: in {ladder.game} the deals depend on the "
                f"play. A ladder of {paired} plays each table twice on one seed with the "
                "seats turned (duplicate pairs), so the luck of the cards cancels out and its "
                "order settles in fewer games (docs/scheduling.md, 5b)."
            )
