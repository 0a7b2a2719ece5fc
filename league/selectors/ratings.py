"""The ratings, read: a tournament's (their history, how many results wait for the ratings
queue, a partnership game's margin rating), a competitor's in every family and tournament,
and a family's leaderboard. league.services.ratings writes them.
"""

from __future__ import annotations

from typing import Any

from django.db.models import F
from django.utils.translation import gettext as _

from engine.variants import load_game
from league.domain.ladder_results import ranked
from league.domain.scored_results import game_partnership_play
from league.domain.standings_table import margin_json
from league.errors import NotFoundError
from league.models import (
    Competitor,
    Rating,
    RatingChange,
    RatingQueueEntry,
    Tournament,
)
from league.selectors.standings import standings_current


def _rating_row(rating: Any, rank: int) -> dict[str, Any]:
    return {
        "rank": rank,
        "competitor": rating.competitor_id,
        "name": rating.competitor.name,
        "kind": rating.competitor.kind,
        "mu": rating.mu,
        "sigma": rating.sigma,
        "conservative": rating.conservative,
        "games": rating.games,
    }


def tournament_ratings(*, tournament: Tournament) -> dict[str, Any]:
    """The openskill ratings within a tournament (best conservative rating first), their
    history in the order rated, how many results wait for the ratings queue, and for a
    game of partnership play (Priffe) the ridge margin rating (league.services.ratings and
    .standings; docs/api.md has the shape)."""
    family = load_game(tournament.game).family
    ratings = Rating.objects.filter(tournament=tournament).select_related("competitor")
    rows = [
        _rating_row(r, rank)
        for rank, r in enumerate(ratings.order_by("-conservative", "competitor_id"), start=1)
    ]
    history = [
        {
            "competitor": competitor,
            "match": match,
            "round": round_number,
            "mu": mu,
            "sigma": sigma,
            "conservative": conservative,
        }
        for competitor, match, round_number, mu, sigma, conservative in RatingChange.objects.filter(
            tournament=tournament
        )
        .order_by("rated_id", "competitor_id")
        .values_list(
            "competitor_id", "match_id", "match__round__number", "mu", "sigma", "conservative"
        )
    ]
    pending = RatingQueueEntry.objects.filter(result__match__tournament=tournament).count()
    margin: dict[str, Any] | None = None
    if game_partnership_play(tournament.game):
        solved = standings_current(tournament=tournament).margin
        if solved is not None:
            names = dict(
                Competitor.objects.filter(entries__tournament=tournament).values_list("id", "name")
            )
            margin = margin_json(solved, names)
    return {
        "tournament": tournament.pk,
        "family": family,
        "pending": pending,
        "ratings": rows,
        "history": history,
        "margin": margin,
    }


def competitor_ratings(
    *, competitor_id: int, family: str | None = None, tournament_id: int | None = None
) -> dict[str, Any]:
    """A competitor's ratings now (every family and tournament) and its history: one row
    per rated match, on the family leaderboards, or within ``tournament_id``."""
    competitor = Competitor.objects.filter(pk=competitor_id).first()
    if competitor is None:
        raise NotFoundError(_("no competitor %(competitor_id)s") % {"competitor_id": competitor_id})
    # The family's rating (no tournament) first on every database (NULLs sort last on
    # PostgreSQL and first on SQLite by default).
    ratings = Rating.objects.filter(competitor=competitor).order_by(
        "family", F("tournament_id").asc(nulls_first=True), "id"
    )
    changes = RatingChange.objects.filter(competitor=competitor)
    if tournament_id is not None:
        changes = changes.filter(tournament_id=tournament_id)
    else:
        changes = changes.filter(tournament__isnull=True)
    if family is not None:
        changes = changes.filter(family=family)
    history = [
        {
            "match": match,
            "tournament": tournament,
            "round": round_number,
            "family": row_family,
            "mu_before": mu_before,
            "sigma_before": sigma_before,
            "mu": mu,
            "sigma": sigma,
            "conservative": conservative,
            "rated_at": rated_at,
        }
        for (
            match,
            tournament,
            round_number,
            row_family,
            mu_before,
            sigma_before,
            mu,
            sigma,
            conservative,
            rated_at,
        ) in changes.order_by("rated_id").values_list(
            "match_id",
            "match__tournament_id",
            "match__round__number",
            "family",
            "mu_before",
            "sigma_before",
            "mu",
            "sigma",
            "conservative",
            "rated__created_at",
        )
    ]
    return {
        "competitor": competitor.pk,
        "name": competitor.name,
        "kind": competitor.kind,
        "ratings": [
            {
                "family": r.family,
                "tournament": r.tournament_id,
                "mu": r.mu,
                "sigma": r.sigma,
                "conservative": r.conservative,
                "games": r.games,
            }
            for r in ratings
        ],
        "history": history,
    }


RATING_LIST_WHO = ("both", "people", "bots")
"""Who a family's rating list shows: people and bots together, or only one kind."""


def ratings_leaderboard(
    *, family: str, min_games: int = 0, who: str = "both"
) -> list[dict[str, Any]]:
    """A game family's rating list: every competitor rated in it (people and bots on one
    openskill scale, or only ``who``: ``people`` or ``bots``), best conservative rating
    (mu - 3 sigma) first, each with how sure its position is to be above the next
    (``confidence``, as a ladder's board says it). One query of ``Rating``."""
    ratings = Rating.objects.filter(family=family, tournament__isnull=True, games__gte=min_games)
    if who == "people":
        ratings = ratings.filter(competitor__user__isnull=False)
    elif who == "bots":
        ratings = ratings.filter(competitor__bot_version__isnull=False)
    rows = [
        {
            "competitor": competitor,
            "name": name,
            "kind": "person" if user else "bot",  # a user id is never 0
            "mu": mu,
            "sigma": sigma,
            "conservative": rated_conservative,
            "games": games,
        }
        for competitor, name, user, mu, sigma, rated_conservative, games in ratings.order_by(
            "-conservative", "competitor_id"
        ).values_list(
            "competitor_id",
            "competitor__name",
            "competitor__user_id",
            "mu",
            "sigma",
            "conservative",
            "games",
        )
    ]
    return ranked(rows)
