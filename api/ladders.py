"""The API's ladders (docs/api.md, "Ladders"): the ladders, a ladder's leaderboard, a
version's games and rating history, the owner's choices for a version, challenges, and an
author's seat logs (owner and staff only: 403 for anyone else)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema

from api.fields import StrictBooleanField, id_field
from api.input_objects import ClosedInputObject
from api.operations import nested_serializers_named, responses, validated, validated_every_field
from api.throttles import SettingsThrottle
from league.models import ApiTokenScope
from league.selectors.ladders import (
    challenges_of,
    ladder_board,
    ladder_get,
    ladder_version,
    ladders_list,
    seat_log_read,
)
from league.services.ladder_authors import challenge_create, ladder_entrant_update
from league.services.rated_games import rated_game_with_bots


class LadderSummarySerializer(serializers.Serializer[Any]):
    slug = serializers.CharField()
    name = serializers.CharField()
    game = serializers.CharField()
    family = serializers.CharField()
    running = serializers.BooleanField()


class LadderRowSerializer(serializers.Serializer[Any]):
    rank = serializers.IntegerField()
    competitor = serializers.IntegerField()
    name = serializers.CharField()
    owner = serializers.CharField(allow_blank=True)
    anchor = serializers.BooleanField()
    status = serializers.CharField()
    opted_out = serializers.BooleanField()
    challengeable = serializers.BooleanField()
    consecutive_failures = serializers.IntegerField()
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    conservative = serializers.FloatField()
    games = serializers.IntegerField()
    confidence = serializers.FloatField(
        allow_null=True, help_text="P(truly stronger than the next row); null for the last."
    )


class LadderSerializer(LadderSummarySerializer):
    queued_limit = serializers.IntegerField()
    concurrent_limit = serializers.IntegerField()
    placement_games = serializers.IntegerField()
    time_control = serializers.CharField(help_text="live or correspondence.")
    move_seconds = serializers.FloatField(help_text="A bot's time per move, in seconds.")
    time_bank_seconds = serializers.FloatField(
        help_text="A bot's time bank for the whole match, in seconds."
    )
    seats = serializers.IntegerField()
    rows = LadderRowSerializer(many=True)


class ChallengeSerializer(serializers.Serializer[Any]):
    match = serializers.IntegerField()
    name = serializers.CharField()
    status = serializers.CharField()
    scores = serializers.ListField(child=serializers.IntegerField(), allow_null=True)
    created_at = serializers.DateTimeField()
    replay = serializers.CharField()


class ChallengeCreatedSerializer(serializers.Serializer[Any]):
    match = serializers.IntegerField()
    status = serializers.CharField()


class LadderListApi(APIView):
    @extend_schema(responses=responses(LadderSummarySerializer(many=True)))
    def get(self, request: Request) -> Response:
        return Response(ladders_list())


class LadderDetailApi(APIView):
    @extend_schema(responses=responses(LadderSerializer))
    def get(self, request: Request, slug: str) -> Response:
        return Response(ladder_board(ladder_get(slug)))


class LadderVersionApi(APIView):
    @extend_schema(responses=responses(OpenApiTypes.OBJECT))
    def get(self, request: Request, slug: str, competitor_id: int) -> Response:
        return Response(ladder_version(ladder_get(slug), competitor_id))


class LadderEntrantApi(APIView):
    token_scope = ApiTokenScope.BOTS
    throttle_classes = (SettingsThrottle,)

    class InputSerializer(ClosedInputObject):
        opted_out = StrictBooleanField(required=False, help_text="Take it off the ladder.")
        challengeable = StrictBooleanField(
            required=False, help_text="Other authors may challenge it."
        )
        resume = StrictBooleanField(required=False, help_text="Resume a suspended version.")

    @extend_schema(request=InputSerializer, responses=responses(OpenApiTypes.OBJECT))
    def patch(self, request: Request, slug: str, competitor_id: int) -> Response:
        data = validated_every_field(self.InputSerializer, request.data)
        ladder = ladder_get(slug)
        ladder_entrant_update(
            actor=request.user,
            ladder=ladder,
            competitor_id=competitor_id,
            opted_out=data.get("opted_out"),
            challengeable=data.get("challengeable"),
            resume=bool(data.get("resume", False)),
        )
        return Response(ladder_version(ladder, competitor_id))


class LadderChallengeListApi(APIView):
    token_scope = ApiTokenScope.BOTS
    throttle_classes = (SettingsThrottle,)

    class InputSerializer(serializers.Serializer[Any]):
        version = id_field(help_text="Your version's competitor id.")
        opponents = serializers.ListField(
            child=id_field(),
            min_length=1,
            max_length=4,
            help_text="Competitor ids, clockwise from seat 1.",
        )

    @extend_schema(responses=responses(ChallengeSerializer(many=True)))
    def get(self, request: Request, slug: str) -> Response:
        return Response(challenges_of(user=request.user, ladder=ladder_get(slug)))

    @extend_schema(request=InputSerializer, responses=responses(ChallengeCreatedSerializer, 201))
    def post(self, request: Request, slug: str) -> Response:
        data = validated(self.InputSerializer, request.data)
        ladder = ladder_get(slug)
        match = challenge_create(
            actor=request.user,
            ladder=ladder,
            competitor_id=data["version"],
            opponent_ids=data["opponents"],
        )
        return Response({"match": match.pk, "status": match.status}, status=201)


class LadderRatedGameApi(APIView):
    throttle_classes = (SettingsThrottle,)

    class InputSerializer(serializers.Serializer[Any]):
        opponents = serializers.ListField(
            child=id_field(),
            min_length=1,
            max_length=4,
            help_text="Ladder versions' competitor ids, one per other seat, clockwise from "
            "seat 1 (you sit in seat 0).",
        )

    @extend_schema(request=InputSerializer, responses=responses(ChallengeCreatedSerializer, 201))
    def post(self, request: Request, slug: str) -> Response:
        """A rated game of yours against chosen versions of the ladder: a table queued at
        once on the interactive lane; 403 when a version's owner does not allow rated games
        against people."""
        data = validated(self.InputSerializer, request.data)
        match = rated_game_with_bots(
            actor=request.user, ladder=ladder_get(slug), opponents=data["opponents"]
        )
        return Response({"match": match.pk, "status": match.status}, status=201)


class MatchSeatLogApi(APIView):
    @extend_schema(responses=responses(OpenApiTypes.OBJECT))
    def get(self, request: Request, match_id: int, seat: int) -> Response:
        return Response(seat_log_read(user=request.user, match_id=match_id, seat=seat))


nested_serializers_named(list(globals().values()))
