"""The demo: a club of built-in bots whose leagues keep playing, and a table where a
newcomer sits down with three of its bots at once (docs/league.md, *The demo*).

``demo_load`` (``manage.py load_demo``, which ``./scripts/run`` calls) creates the user
``demo`` (no password), the *Demo Club*, a dozen built-in bots of three strengths and two
leagues, starts their first rounds and gives each league a round every
DEMO_ROUND_MINUTES on the tournaments' own schedule (league.services.schedules: a round
starts only once the previous one is over). It also installs one beat entry,
``demo_seasons_renew``, that looks every DEMO_ROUND_MINUTES for a demo league whose every
round has been played: that league is finished and its next **season** opens, a new
league with the same game, format and entrants, its first round queued at once and its
own schedule. So a newcomer sees standings move within a minute of starting the service,
however long it has been running. Everything here is idempotent: a second ``demo_load``
changes nothing, a second renewal of the same season finds it renewed.

Its bots are built-ins, which belong to nobody and need no one's consent to be entered
(league.services.competitors.entry_consent_require); its only person, ``demo``, owns the
club and enters no one.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User as Account
from django.db import transaction
from django.utils.translation import gettext as _

from django_celery_beat.models import IntervalSchedule, PeriodicTask

from engine.variants import FAMILIES, load_game
from league.errors import NotAllowedError
from league.models import (
    Club,
    Competitor,
    Entry,
    Match,
    MatchStatus,
    RoundSchedule,
    Tournament,
    TournamentFormat,
    TournamentStatus,
)
from league.services.clubs import club_create
from league.services.competitors import competitor_builtin
from league.services.schedules import tournament_schedule_set
from league.services.tables import table_open
from league.services.tournaments import (
    tournament_create,
    tournament_finish,
    tournament_next_round_start,
)
from league.task_names import DEMO_SEASONS_RENEW

DEMO_USER = "demo"
DEMO_CLUB = "Demo Club"
DEMO_ROUND_MINUTES = 1
"""A demo league starts its next round this often, once the previous one is over."""
DEMO_SEASONS_TASK = "league: demo seasons"
"""The name of the beat entry that opens a demo league's next season."""
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
DEMO_TABLE_BOTS = ("Greedy Gus", "Strong Sam (4 deals)", "Greedy Greta")
"""Who sits with a newcomer at a demo table: a fair game, quick to play."""
SEASON = re.compile(r"^(?P<base>.+), season (?P<number>[0-9]+)$")


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


def demo_table_game() -> str:
    """The demo table's game: the demo's first league's (Kingen)."""
    return str(demo_leagues()[0]["game"])


def season_base_name(name: str) -> tuple[str, int]:
    """``"Demo Kingen league, season 3"`` -> ``("Demo Kingen league", 3)``; a first
    season has no suffix."""
    found = SEASON.match(name)
    if found is None:
        return name, 1
    return found["base"], int(found["number"])


def season_name(base: str, number: int) -> str:
    return base if number == 1 else f"{base}, season {number}"


@dataclass
class DemoReport:
    """What ``demo_load`` did, for the command to print."""

    started: list[Tournament]
    leagues: list[Tournament]


def _demo_organiser() -> Account:
    organiser, _created = Account.objects.get_or_create(username=DEMO_USER)
    if organiser.has_usable_password():
        organiser.set_unusable_password()
        organiser.save(update_fields=["password"])
    return organiser


def demo_bots() -> list[Competitor]:
    return [
        competitor_builtin(name=builtin, options=options, bot_name=name)
        for name, builtin, options in DEMO_BOTS
    ]


def _current_season(club: Club, base: str) -> Tournament | None:
    """The newest season of the demo league ``base``."""
    seasons = [
        t
        for t in Tournament.objects.filter(club=club, name__startswith=base)
        if season_base_name(t.name)[0] == base
    ]
    return max(seasons, key=lambda t: (season_base_name(t.name)[1], t.pk), default=None)


def _season_schedule(*, organiser: Account, tournament: Tournament) -> None:
    """A round every DEMO_ROUND_MINUTES once the previous one is over (the tournaments'
    own schedules), unless the season has one already."""
    if not RoundSchedule.objects.filter(tournament=tournament).exists():
        tournament_schedule_set(
            actor=organiser, tournament=tournament, interval_minutes=DEMO_ROUND_MINUTES
        )


def _seasons_task() -> None:
    every, _created = IntervalSchedule.objects.get_or_create(
        every=DEMO_ROUND_MINUTES, period=IntervalSchedule.MINUTES
    )
    PeriodicTask.objects.update_or_create(
        name=DEMO_SEASONS_TASK,
        defaults={
            "task": DEMO_SEASONS_RENEW,
            "interval": every,
            "crontab": None,
            "args": json.dumps([]),
            "enabled": True,
            "description": "Opens the next season of a demo league whose rounds are played.",
        },
    )


@transaction.atomic
def demo_load() -> DemoReport:
    """The demo club, its bots and leagues (their current seasons), the leagues' first
    rounds and schedules, and the beat entry of the seasons; idempotent."""
    organiser = _demo_organiser()
    club = Club.objects.filter(name=DEMO_CLUB).first() or club_create(
        user=organiser,
        name=DEMO_CLUB,
        description="Built-in bots of three strengths playing two leagues, season after season.",
    )
    bots = demo_bots()
    started: list[Tournament] = []
    leagues: list[Tournament] = []
    for league in demo_leagues():
        tournament = _current_season(club, league["name"])
        if tournament is None:
            tournament = tournament_create(actor=organiser, club=club, entrants=bots, **league)
        for bot in bots:
            Entry.objects.get_or_create(tournament=tournament, competitor=bot)
        if not tournament.round_set.exists():
            tournament_next_round_start(tournament=tournament)
            started.append(tournament)
        if tournament.status != TournamentStatus.FINISHED:
            _season_schedule(organiser=organiser, tournament=tournament)
        leagues.append(tournament)
    _seasons_task()
    return DemoReport(started=started, leagues=leagues)


def _season_over(tournament: Tournament) -> bool:
    """Every round has been started (or an organiser finished the league) and none of its
    matches is still to be played."""
    finished = tournament.status == TournamentStatus.FINISHED
    if not finished and tournament.round_set.count() < tournament.rounds:
        return False
    return not Match.objects.filter(
        tournament=tournament,
        status__in=[MatchStatus.WAITING, MatchStatus.QUEUED, MatchStatus.RUNNING],
    ).exists()


@transaction.atomic
def demo_seasons_renew() -> list[str]:
    """What the demo's beat entry runs: each demo league whose season is over is finished
    and its next season opened (same game, format, rounds, deals and entrants; round 1
    queued; the schedule of its rounds). What was done, one line per league."""
    club = Club.objects.filter(name=DEMO_CLUB).first()
    if club is None:
        return ["no demo club"]
    organiser = _demo_organiser()
    done: list[str] = []
    for league in demo_leagues():
        current = _current_season(club, league["name"])
        if current is None:
            continue
        current = Tournament.objects.select_for_update().get(pk=current.pk)  # one renewal
        if current.status == TournamentStatus.PAUSED or not _season_over(current):
            continue
        if current.status != TournamentStatus.FINISHED:
            tournament_finish(actor=organiser, tournament=current)
        base, number = season_base_name(current.name)
        entrants = [
            entry.competitor
            for entry in current.entries.select_related("competitor").order_by("id")
        ]
        following = tournament_create(
            actor=organiser,
            club=club,
            name=season_name(base, number + 1),
            game=league["game"],
            format=current.format,
            rounds=current.rounds,
            deals=current.deals,
            move_seconds=current.move_seconds,
            time_bank_seconds=current.time_bank_seconds,
            time_control=current.time_control,
            entrants=entrants,
        )
        tournament_next_round_start(tournament=following)
        _season_schedule(organiser=organiser, tournament=following)
        done.append(f"{current.name} is over: {following.name} started")
    return done


def demo_table_open(*, actor: Account) -> Match:
    """A table for ``actor`` with three of the demo's bots, ready to play: Kingen, the
    person at seat 0 (their first table is one click away, nobody else is asked)."""
    if not actor.is_authenticated:
        raise NotAllowedError(_("sign up or log in to sit down at a table"))
    bots = {bot.name: bot for bot in demo_bots()}
    seats: list[Any] = ["me", *(bots[name].pk for name in DEMO_TABLE_BOTS)]
    game = demo_table_game()
    seats = seats[: load_game(game).num_seats]
    return table_open(actor=actor, game=game, seats=seats)
