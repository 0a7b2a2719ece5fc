"""The API's ratings: a tournament's ratings, a game family's leaderboard and a
competitor's ratings (docs/api.md, "Ratings")."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from drf_spectacular.utils import extend_schema

from api.fields import GameFamilyQueryField, QueryIntegerField, query_id_field
from api.operations import nested_serializers_named, responses, validated
from api.serializers import (
    CompetitorRatingsSerializer,
    RatingListRowSerializer,
    TournamentRatingsSerializer,
)
from league.selectors.ratings import (
    RATING_LIST_WHO,
    competitor_ratings,
    ratings_leaderboard,
    tournament_ratings,
)
from league.selectors.tournaments import tournament_get


class TournamentRatingsApi(APIView):
    @extend_schema(responses=responses(TournamentRatingsSerializer))
    def get(self, request: Request, tournament_id: int) -> Response:
        tournament = tournament_get(tournament_id=tournament_id)
        return Response(tournament_ratings(tournament=tournament))


class CompetitorRatingsApi(APIView):
    class QuerySerializer(serializers.Serializer[Any]):
        game = GameFamilyQueryField(required=False)
        tournament = query_id_field()

    @extend_schema(
        parameters=[QuerySerializer],
        responses=responses(CompetitorRatingsSerializer),
    )
    def get(self, request: Request, competitor_id: int) -> Response:
        query = validated(self.QuerySerializer, request.query_params)
        return Response(
            competitor_ratings(
                competitor_id=competitor_id,
                family=query.get("game"),
                tournament_id=query.get("tournament"),
            )
        )


class RatingLeaderboardApi(APIView):
    class QuerySerializer(serializers.Serializer[Any]):
        game = GameFamilyQueryField()  # a family's options are ignored: kingen(rules=iwwa)
        min_games = QueryIntegerField(min_value=0, max_value=2**31 - 1, required=False)
        who = serializers.ChoiceField(
            choices=RATING_LIST_WHO,
            required=False,
            help_text="People and bots together (both, the default), or only people or bots.",
        )

    @extend_schema(
        parameters=[QuerySerializer],
        responses=responses(RatingListRowSerializer(many=True)),
    )
    def get(self, request: Request) -> Response:
        """A family's rating list: people and bots on one openskill scale (docs/league.md,
        *One rating list for people and bots*), best conservative rating first."""
        query = validated(self.QuerySerializer, request.query_params)
        return Response(
            ratings_leaderboard(
                family=query["game"],
                min_games=query.get("min_games", 0),
                who=query.get("who", "both"),
            )
        )


nested_serializers_named(list(globals().values()))
