"""The API's tables: a single game at a table opened by a person, with bots or other
people in the other seats (docs/api.md, "Playing at a table"). Its match is read through
api.matches."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from drf_spectacular.utils import extend_schema

from api.fields import SeatField, StrictCharField
from api.operations import nested_serializers_named, responses, validated
from api.serializers import MatchSerializer
from api.throttles import TableThrottle
from league.selectors import match_get
from league.services.tables import table_open


class TableCreateApi(APIView):
    permission_classes = (IsAuthenticated,)
    throttle_classes = (TableThrottle,)

    class InputSerializer(serializers.Serializer[Any]):
        game = StrictCharField(max_length=200)
        seats = serializers.ListField(child=SeatField(), min_length=1, max_length=8)

    @extend_schema(request=InputSerializer, responses=responses(MatchSerializer, 201))
    def post(self, request: Request) -> Response:
        data = validated(self.InputSerializer, request.data)
        match = table_open(actor=request.user, game=data["game"], seats=data["seats"])
        created = match_get(match_id=match.pk)
        return Response(MatchSerializer(created, context={"request": request}).data, status=201)


nested_serializers_named([TableCreateApi])
