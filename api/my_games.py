"""The API's "my games" (docs/api.md, "My games"): a person's games where it is their move
(soonest deadline first), waiting to start, in progress and finished, and the next game
awaiting their move. Needs a signed-in person (401 otherwise)."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from drf_spectacular.utils import extend_schema

from api.fields import QueryIntegerField, query_id_field
from api.operations import nested_serializers_named, responses, validated
from api.token_scopes import SIGNED_IN
from league.selectors.my_games import FINISHED_SHOWN, my_games, next_game_for


class MyGameSerializer(serializers.Serializer[Any]):
    match = serializers.IntegerField()
    seat = serializers.IntegerField()
    game = serializers.CharField(help_text=gettext_lazy("The game string."))
    game_name = serializers.CharField(help_text=gettext_lazy("The game for people."))
    casual = serializers.BooleanField(
        help_text=gettext_lazy("A casual table rather than a league's game.")
    )
    tournament = serializers.IntegerField()
    tournament_name = serializers.CharField()
    time_control = serializers.CharField()
    round = serializers.IntegerField()
    table = serializers.IntegerField()
    status = serializers.CharField()
    deadline = serializers.DateTimeField(
        allow_null=True, help_text=gettext_lazy("When your move is due (your_move only).")
    )
    others = serializers.ListField(
        child=serializers.CharField(), help_text=gettext_lazy("Who else sits.")
    )
    url = serializers.CharField(
        help_text=gettext_lazy("Where to go: the table, or the replay when finished.")
    )
    replay_url = serializers.CharField()
    league_url = serializers.CharField()
    invited = serializers.BooleanField(
        required=False, help_text=gettext_lazy("waiting: a seat offered you.")
    )
    invitation = serializers.CharField(
        required=False, help_text=gettext_lazy("The invitation's code.")
    )
    invited_by = serializers.CharField(required=False)
    replaced = serializers.BooleanField(
        required=False, help_text=gettext_lazy("A bot plays your seat.")
    )
    score = serializers.IntegerField(required=False, allow_null=True)
    outcome = serializers.CharField(required=False)
    finished_at = serializers.DateTimeField(required=False, allow_null=True)


class MyGamesSerializer(serializers.Serializer[Any]):
    your_move = MyGameSerializer(many=True)
    waiting = MyGameSerializer(many=True)
    in_progress = MyGameSerializer(many=True)
    finished = MyGameSerializer(many=True)


class NextGameSerializer(serializers.Serializer[Any]):
    match = serializers.IntegerField(allow_null=True)
    seat = serializers.IntegerField(allow_null=True)
    deadline = serializers.DateTimeField(allow_null=True)
    game_name = serializers.CharField(allow_null=True)
    url = serializers.CharField(allow_null=True, help_text=gettext_lazy("The table of that game."))


class MyGamesApi(APIView):
    permission_classes = SIGNED_IN

    class QuerySerializer(serializers.Serializer[Any]):
        finished = QueryIntegerField(min_value=0, max_value=500, required=False)

    @extend_schema(parameters=[QuerySerializer], responses=responses(MyGamesSerializer))
    def get(self, request: Request) -> Response:
        query = validated(self.QuerySerializer, request.query_params)
        games = my_games(user=request.user, finished_limit=query.get("finished", FINISHED_SHOWN))
        return Response(MyGamesSerializer(games).data)


class MyNextGameApi(APIView):
    permission_classes = SIGNED_IN

    class QuerySerializer(serializers.Serializer[Any]):
        after = query_id_field(help_text=gettext_lazy("Leave out this match (the one you are at)."))

    @extend_schema(parameters=[QuerySerializer], responses=responses(NextGameSerializer))
    def get(self, request: Request) -> Response:
        query = validated(self.QuerySerializer, request.query_params)
        found = next_game_for(user=request.user, after=query.get("after"))
        empty = dict.fromkeys(("match", "seat", "deadline", "game_name", "url"))
        return Response(NextGameSerializer(found or empty).data)


nested_serializers_named(list(globals().values()))
