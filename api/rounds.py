"""The API's round changes (docs/api.md, "Rounds and matches"): an organiser sets a round's
play-by date. Rounds are listed by api.matches."""

from __future__ import annotations

from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from drf_spectacular.utils import extend_schema

from api.input_objects import ClosedInputObject
from api.operations import nested_serializers_named, responses, validated_every_field
from api.serializers import RoundSerializer
from api.throttles import SettingsThrottle
from league.models import ApiTokenScope
from league.selectors.tournaments import round_get
from league.services.rounds import round_play_by_set


class RoundDetailApi(APIView):
    token_scope = ApiTokenScope.CLUBS
    throttle_classes = (SettingsThrottle,)

    class InputSerializer(ClosedInputObject):
        play_by = serializers.DateTimeField(
            allow_null=True,
            help_text="The date by which the round's games are to be played (ISO 8601 with "
            "a time zone), or null for none; no person's deadline falls after it.",
        )

    @extend_schema(responses=responses(RoundSerializer))
    def get(self, request: Request, round_id: int) -> Response:
        return Response(RoundSerializer(round_get(round_id=round_id)).data)

    @extend_schema(request=InputSerializer, responses=responses(RoundSerializer))
    def patch(self, request: Request, round_id: int) -> Response:
        round_ = round_get(round_id=round_id)
        data = validated_every_field(self.InputSerializer, request.data)
        round_play_by_set(actor=request.user, round_=round_, play_by=data["play_by"])
        return Response(RoundSerializer(round_get(round_id=round_id)).data)


nested_serializers_named(list(globals().values()))
