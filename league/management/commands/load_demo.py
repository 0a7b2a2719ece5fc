"""``python manage.py load_demo``: a demo club with a dozen built-in bots, a Kingen league
and a Priffe rotating-partner league, and their first rounds queued for the workers.

Idempotent: a second run finds everything and changes nothing (it starts no second
round). Its bots are built-ins, which belong to nobody and need no one's consent to be
entered (league.services.competitors.entry_consent_require); its only person, ``demo``,
owns the club and enters no one. ``scripts/run`` calls it, so a newcomer sees standings
and replays within a minute of starting the service.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.core.management.base import BaseCommand
from django.db import transaction

from engine.variants import FAMILIES, load_game
from league.models import Club, Entry, Tournament, TournamentFormat
from league.services.clubs import club_create
from league.services.competitors import competitor_builtin
from league.services.tournaments import tournament_create, tournament_round_start

DEMO_USER = "demo"
DEMO_CLUB = "Demo Club"
DEMO_BOTS: list[tuple[str, str, dict[str, Any]]] = [
    ("Random Rita", "random", {}),
    ("Random Rolf", "random", {}),
    ("Greedy Gus", "greedy", {}),
    ("Greedy Greta", "greedy", {}),
    ("Greedy Gil", "greedy", {}),
    ("Greedy Gaia", "greedy", {}),
    ("Strong Sam (4 deals)", "strong", {"samples": 4, "time_budget_ms": 30}),
    ("Strong Sue (4 deals)", "strong", {"samples": 4, "time_budget_ms": 30}),
    ("Strong Stan (8 deals)", "strong", {"samples": 8, "time_budget_ms": 50}),
    ("Strong Stella (8 deals)", "strong", {"samples": 8, "time_budget_ms": 50}),
    ("Strong Sol (16 deals)", "strong", {"samples": 16, "time_budget_ms": 80}),
    ("Strong Sky (16 deals)", "strong", {"samples": 16, "time_budget_ms": 80}),
]
"""Name, bots.builtin player and options: random, greedy, and the search bot with three
budgets (deals sampled per card), so the standings have a visible order."""


def demo_leagues() -> list[dict[str, Any]]:
    """The two demo leagues, their games asked of the engine: the first family played
    seat against seat (Kingen) as a round robin, and the first whose partners rotate
    (Priffe) as a rotating-partners league of two-deal games."""
    games = [load_game(family) for family in FAMILIES]
    alone = next(game for game in games if not game.partnership_play)
    rotating = next(game for game in games if game.partnerships_rotate)
    return [
        {
            "name": f"Demo {alone.title} league",
            "game": str(alone),
            "format": TournamentFormat.ROUND_ROBIN,
            "rounds": 6,
            "deals": None,
        },
        {
            "name": f"Demo {rotating.title} rotating partners",
            "game": str(rotating),
            "format": TournamentFormat.ROTATING_PARTNERS,
            "rounds": 6,
            "deals": 2,
        },
    ]


class Command(BaseCommand):
    help = "Create the demo club, its bots and two leagues, and queue their first rounds."

    def handle(self, *args: Any, **options: Any) -> None:
        with transaction.atomic():
            organiser, _ = User.objects.get_or_create(username=DEMO_USER)
            if not organiser.has_usable_password():
                organiser.set_unusable_password()
                organiser.save(update_fields=["password"])
            club = Club.objects.filter(name=DEMO_CLUB).first() or club_create(
                user=organiser,
                name=DEMO_CLUB,
                description="Built-in bots of three strengths playing two leagues.",
            )
            bots = [
                competitor_builtin(name=builtin, options=opts, bot_name=name)
                for name, builtin, opts in DEMO_BOTS
            ]
            started = []
            for league in demo_leagues():
                tournament = Tournament.objects.filter(club=club, name=league["name"]).first()
                if tournament is None:
                    tournament = tournament_create(
                        actor=organiser, club=club, entrants=bots, **league
                    )
                for bot in bots:
                    Entry.objects.get_or_create(tournament=tournament, competitor=bot)
                if not tournament.round_set.exists():
                    tournament_round_start(actor=organiser, tournament=tournament)
                    started.append(tournament)
        for tournament in started:
            self.stdout.write(f"demo: {tournament.name}: round 1 queued")
        for tournament in club.tournaments.order_by("id"):
            self.stdout.write(
                f"demo: {tournament.name}: /api/tournaments/{tournament.pk}/standings/"
            )
