"""The API's people: a person's public profile (docs/api.md, "People"): their games, their
ratings per game family with history, how they fare with and against the players they meet
most, and their bots. The same reads as the profile page (league.selectors.profiles);
nothing private: the games, partners and bots only to whom the person lets see them
(``private`` is true and those lists are empty otherwise)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from django.utils.translation import gettext_lazy
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from drf_spectacular.utils import extend_schema

from accounts.account_settings import profile_details_visible
from api.fields import QueryIntegerField
from api.operations import nested_serializers_named, responses, validated
from league.domain.tablemates import Tablemate
from league.selectors.person_names import person_name
from league.selectors.profiles import (
    person_bots,
    person_competitor,
    person_games,
    person_get,
    person_ratings,
    person_tablemates,
)


class PersonRatingPointSerializer(serializers.Serializer[Any]):
    game = serializers.IntegerField(
        help_text=gettext_lazy("Rated games so far (0: where it started).")
    )
    conservative = serializers.FloatField(help_text=gettext_lazy("mu - 3 sigma after that game."))


class PersonRatingSerializer(serializers.Serializer[Any]):
    family = serializers.CharField()
    title = serializers.CharField(help_text=gettext_lazy("The game's name for people."))
    rating = serializers.CharField(
        help_text=gettext_lazy("For people: '24.1 ± 6.9' (mu ± 3 sigma).")
    )
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    conservative = serializers.FloatField(
        help_text=gettext_lazy("mu - 3 sigma: what leaderboards rank by.")
    )
    games = serializers.IntegerField()
    history = PersonRatingPointSerializer(many=True)


class PersonGameSerializer(serializers.Serializer[Any]):
    match = serializers.IntegerField()
    game = serializers.CharField()
    family = serializers.CharField()
    tournament = serializers.IntegerField()
    tournament_name = serializers.CharField()
    casual = serializers.BooleanField(
        help_text=gettext_lazy("A casual table, not a league's match.")
    )
    round = serializers.IntegerField(allow_null=True)
    status = serializers.CharField()
    seat = serializers.IntegerField()
    score = serializers.IntegerField(allow_null=True)
    place = serializers.IntegerField(
        allow_null=True, help_text=gettext_lazy("1: the best score at the table.")
    )
    seats = serializers.IntegerField()
    tablemates = serializers.ListField(child=serializers.CharField())
    when = serializers.DateTimeField()


class PersonGamesSerializer(serializers.Serializer[Any]):
    page = serializers.IntegerField()
    pages = serializers.IntegerField()
    total = serializers.IntegerField()
    results = PersonGameSerializer(many=True)


class PartnerSerializer(serializers.Serializer[Any]):
    competitor = serializers.IntegerField()
    name = serializers.CharField()
    kind = serializers.ChoiceField(choices=["person", "bot"])
    username = serializers.CharField(allow_null=True)
    bot = serializers.IntegerField(allow_null=True)
    games = serializers.IntegerField(help_text=gettext_lazy("Games at one table."))
    partner_units = serializers.IntegerField()
    partner_average = serializers.FloatField(allow_null=True)
    opponent_units = serializers.IntegerField()
    opponent_average = serializers.FloatField(allow_null=True)


class TablemateSerializer(serializers.Serializer[Any]):
    competitor = serializers.IntegerField()
    name = serializers.CharField()
    kind = serializers.ChoiceField(choices=["person", "bot"])
    username = serializers.CharField(allow_null=True)
    bot = serializers.IntegerField(allow_null=True)
    games = serializers.IntegerField()
    average = serializers.FloatField(allow_null=True)
    their_average = serializers.FloatField(allow_null=True)
    ahead = serializers.IntegerField(
        help_text=gettext_lazy("Games the person finished above them.")
    )


class OwnedBotSerializer(serializers.Serializer[Any]):
    bot = serializers.IntegerField()
    name = serializers.CharField()
    families = serializers.ListField(
        child=serializers.CharField(),
        help_text=gettext_lazy("The game families it plays; empty: none named yet."),
    )
    versions = serializers.IntegerField()


class PersonSerializer(serializers.Serializer[Any]):
    username = serializers.CharField()
    name = serializers.CharField(
        help_text=gettext_lazy("The name the person is shown by: their display name or username.")
    )
    private = serializers.BooleanField(
        help_text=gettext_lazy(
            "The person keeps their games, partners and bots from you: those lists are empty."
        )
    )
    joined = serializers.DateTimeField()
    competitor = serializers.IntegerField(allow_null=True)
    ratings = PersonRatingSerializer(many=True)
    games = PersonGamesSerializer()
    unit = serializers.CharField(
        help_text=gettext_lazy("What a unit of partnership play is called.")
    )
    partners = PartnerSerializer(many=True)
    tablemates = TablemateSerializer(many=True)
    bots = OwnedBotSerializer(many=True)


def _mate(mate: Tablemate) -> dict[str, Any]:
    return {
        "competitor": mate.competitor,
        "name": mate.name,
        "kind": mate.kind,
        "username": mate.username,
        "bot": mate.bot,
    }


class PersonDetailApi(APIView):
    class QuerySerializer(serializers.Serializer[Any]):
        page = QueryIntegerField(min_value=1, max_value=2**31 - 1, required=False)

    @extend_schema(parameters=[QuerySerializer], responses=responses(PersonSerializer))
    def get(self, request: Request, username: str) -> Response:
        query = validated(self.QuerySerializer, request.query_params)
        person = person_get(username=username)
        competitor = person_competitor(person=person)
        # The person's choice of who sees their games, partners and bots (their settings).
        visible = profile_details_visible(person_id=person.pk, viewer=request.user)
        games = person_games(competitor=competitor if visible else None, page=query.get("page", 1))
        mates = person_tablemates(competitor=competitor if visible else None)
        body = {
            "username": person.get_username(),
            "name": person_name(person),
            "private": not visible,
            "joined": person.date_joined,
            "competitor": competitor.pk if competitor is not None else None,
            "ratings": [
                {
                    "family": r.family,
                    "title": r.title,
                    "rating": f"{r.mu:.1f} ± {3 * r.sigma:.1f}",
                    "mu": r.mu,
                    "sigma": r.sigma,
                    "conservative": r.conservative,
                    "games": r.games,
                    "history": [{"game": int(x), "conservative": y} for x, y in r.history],
                }
                for r in person_ratings(competitor=competitor)
            ],
            "games": {
                "page": games.number,
                "pages": games.pages,
                "total": games.total,
                "results": [asdict(game) for game in games.games],
            },
            "unit": mates.unit,
            "partners": [
                {
                    **_mate(m),
                    "games": m.games,
                    "partner_units": m.partner_units,
                    "partner_average": m.partner_average,
                    "opponent_units": m.opponent_units,
                    "opponent_average": m.opponent_average,
                }
                for m in mates.partnership
            ],
            "tablemates": [
                {
                    **_mate(m),
                    "games": m.tablemate_games,
                    "average": m.tablemate_average,
                    "their_average": m.their_tablemate_average,
                    "ahead": m.ahead,
                }
                for m in mates.individual
            ],
            "bots": [
                {"bot": b.bot, "name": b.name, "families": b.families, "versions": b.versions}
                for b in (person_bots(person=person) if visible else [])
            ],
        }
        return Response(PersonSerializer(body).data)


nested_serializers_named(list(globals().values()))
