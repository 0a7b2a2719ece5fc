"""Reads of a person's profile (/people/{username}/ and GET /api/people/{username}/).

Only what anyone may see of a person: their games (public replays of league matches and
casual tables), their rating in each game family and its history, how they fare with and
against the people and bots they meet most, and the bots they own (names and families,
never a bot's private logs). No hand, no private fact of a seat and no email address is
read here. Selectors' rules apply: nothing here writes, and no service is imported.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User as Account
from django.core.paginator import Paginator
from django.db.models import Count
from django.utils.translation import gettext as _

from bots.models import Bot
from engine.errors import EngineError
from engine.variants import FAMILIES, load_game
from league.domain.scored_results import UNITS_KEY
from league.domain.tablemates import FinishedGame, Met, Tablemates, tablemates_tally
from league.errors import NotFoundError
from league.models import (
    Competitor,
    MatchResult,
    MatchSeat,
    MatchStatus,
    Rating,
    RatingChange,
    TournamentFormat,
)

GAMES_PER_PAGE = 20
RESULTS_READ = 500
"""The latest finished games whose results the partners and opponents are counted from."""
HIDDEN_STATUSES = (MatchStatus.WAITING,)
"""A table still waiting for players is nobody's game yet."""


def person_get(*, username: str) -> Account:
    """The active account named ``username``; NotFoundError otherwise."""
    person = get_user_model().objects.filter(username=username, is_active=True).first()
    if person is None:
        raise NotFoundError(_("nobody is called %(repr)s here") % {"repr": repr(username)})
    return person


def person_competitor(*, person: Account) -> Competitor | None:
    """The person's competitor (what sits at a table for them), if they ever played."""
    return Competitor.objects.filter(user_id=person.pk).first()


# ---------------------------------------------------------------- games


@dataclass(frozen=True)
class ProfileGame:
    match: int
    game: str
    family: str
    tournament: int
    tournament_name: str
    casual: bool
    """A casual table (not a league's match)."""
    round: int | None
    status: str
    seat: int
    score: int | None
    place: int | None
    """1 for the best score at the table (ties share a place), None before the end."""
    seats: int
    tablemates: list[str]
    when: datetime


@dataclass(frozen=True)
class GamesPage:
    games: list[ProfileGame]
    number: int
    pages: int
    total: int


def person_games(*, competitor: Competitor | None, page: int = 1) -> GamesPage:
    """The person's games, latest first, ``GAMES_PER_PAGE`` a page (a page beyond the last
    is the last)."""
    if competitor is None:
        return GamesPage(games=[], number=1, pages=1, total=0)
    seats = (
        MatchSeat.objects.filter(competitor=competitor)
        .exclude(match__status__in=HIDDEN_STATUSES)
        .select_related("match__tournament", "match__round", "match__result")
        .order_by("-match_id", "seat")
    )
    paginator = Paginator(seats, GAMES_PER_PAGE)
    current = paginator.get_page(page)
    match_ids = [seat.match_id for seat in current]
    others: dict[int, list[str]] = defaultdict(list)
    for match_id, name in (
        MatchSeat.objects.filter(match_id__in=match_ids)
        .exclude(competitor=competitor)
        .order_by("seat")
        .values_list("match_id", "competitor__name")
    ):
        if name not in others[match_id]:
            others[match_id].append(name)
    games = []
    for seat in current:
        match = seat.match
        result: MatchResult | None = getattr(match, "result", None)
        score = place = None
        if result is not None and seat.seat < len(result.scores):
            score = int(result.scores[seat.seat])
            place = 1 + sum(1 for other in result.scores if other > score)
        games.append(
            ProfileGame(
                match=match.pk,
                game=match.game,
                family=_family(match.game),
                tournament=match.tournament_id,
                tournament_name=match.tournament.name,
                casual=match.tournament.format == TournamentFormat.TABLE,
                round=match.round.number if match.round_id else None,
                status=match.status,
                seat=seat.seat,
                score=score,
                place=place,
                seats=len(result.scores) if result is not None else 0,
                tablemates=others[match.pk],
                when=match.finished_at or match.started_at or match.created_at,
            )
        )
    return GamesPage(
        games=games, number=current.number, pages=paginator.num_pages, total=paginator.count
    )


def _family(game: str) -> str:
    try:
        return load_game(game).family
    except EngineError:
        return game.split("(", 1)[0]


# ---------------------------------------------------------------- ratings


@dataclass(frozen=True)
class FamilyRating:
    family: str
    title: str
    mu: float
    sigma: float
    conservative: float
    games: int
    history: list[tuple[float, float]]
    """(rated game number, mu - 3 sigma after it), from the first rated game."""


def person_ratings(*, competitor: Competitor | None) -> list[FamilyRating]:
    """The person's rating on each family's leaderboard (not a league's own), best first,
    with its history."""
    if competitor is None:
        return []
    ratings = Rating.objects.filter(competitor=competitor, tournament__isnull=True).order_by(
        "-conservative", "family"
    )
    histories: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for family, mu_before, sigma_before, conservative in (
        RatingChange.objects.filter(competitor=competitor, tournament__isnull=True)
        .order_by("family", "rated_id")
        .values_list("family", "mu_before", "sigma_before", "conservative")
    ):
        points = histories[family]
        if not points:
            points.append((0.0, round(mu_before - 3 * sigma_before, 2)))
        points.append((float(len(points)), round(conservative, 2)))
    return [
        FamilyRating(
            family=rating.family,
            title=_family_title(rating.family),
            mu=rating.mu,
            sigma=rating.sigma,
            conservative=rating.conservative,
            games=rating.games,
            history=histories.get(rating.family, []),
        )
        for rating in ratings
    ]


def _family_title(family: str) -> str:
    game_class = FAMILIES.get(family)
    return (game_class.title or family) if game_class is not None else family


# ---------------------------------------------------------------- partners and opponents


def person_tablemates(*, competitor: Competitor | None) -> Tablemates:
    """The competitors the person met most, with the person's average score when partners
    and when opponents (partnership families, per unit as the game describes it:
    ``Game.partnership_units``), or as tablemates (individual families, per game), over
    the latest ``RESULTS_READ`` finished games (league.domain.tablemates counts them)."""
    if competitor is None:
        return Tablemates(partnership=[], individual=[], unit="rubber")
    match_ids = list(
        MatchSeat.objects.filter(competitor=competitor, match__status=MatchStatus.FINISHED)
        .order_by("-match_id")
        .values_list("match_id", flat=True)
        .distinct()[:RESULTS_READ]
    )
    seats_of: dict[int, dict[int, int]] = defaultdict(dict)
    met: dict[int, Met] = {}
    for match_id, seat, other, name, username, bot in MatchSeat.objects.filter(
        match_id__in=match_ids
    ).values_list(
        "match_id",
        "seat",
        "competitor_id",
        "competitor__name",
        "competitor__user__username",
        "competitor__bot_version__bot_id",
    ):
        seats_of[match_id][seat] = other
        met[other] = Met(name, "person" if username else "bot", username, bot)
    traits: dict[str, tuple[str, bool, str]] = {}  # each game asked once
    games = []
    for match_id, game, scores, standings_input in MatchResult.objects.filter(
        match_id__in=match_ids
    ).values_list("match_id", "match__game", "scores", "standings_input"):
        if game not in traits:
            traits[game] = (_family(game), _partnership_play(game), _unit_name(game))
        family, partnership, unit_name = traits[game]
        games.append(
            FinishedGame(
                seats=seats_of[match_id],
                scores=scores,
                family=family,
                partnership=partnership,
                units=(standings_input or {}).get(UNITS_KEY),
                unit_name=unit_name,
            )
        )
    return tablemates_tally(competitor=competitor.pk, games=games, met=met)


def _partnership_play(game: str) -> bool:
    try:
        return load_game(game).partnership_play
    except EngineError:
        return False


def _unit_name(game: str) -> str:
    try:
        return load_game(game).scoring_unit.singular
    except EngineError:
        return "rubber"


# ---------------------------------------------------------------- bots


@dataclass(frozen=True)
class OwnedBot:
    bot: int
    name: str
    families: list[str]
    family_titles: str
    """The families' names for people, joined; empty for a bot of no family."""
    versions: int


def person_bots(*, person: Account) -> list[OwnedBot]:
    """The bots the person uploaded: names, families and how many versions (nothing of
    their logs, faults or reports)."""
    bots = (
        Bot.objects.filter(owner_id=person.pk)
        .annotate(version_count=Count("versions"))
        .prefetch_related("families")
        .order_by("name", "id")
    )
    return [
        OwnedBot(
            bot=bot.pk,
            name=bot.name,
            families=bot.family_names,
            family_titles=", ".join(_family_title(family) for family in bot.family_names),
            versions=bot.version_count,
        )
        for bot in bots
    ]


def user_find(*, user_id: int | None = None, username: str | None = None) -> Account | None:
    """The account with this id, or else with this username; None if there is none."""
    users = get_user_model().objects
    if user_id is not None:
        return users.filter(pk=user_id).first()
    return users.filter(username=username).first()
