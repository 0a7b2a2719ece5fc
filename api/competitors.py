"""The API's competitors: who enters tournaments, a person or a bot's version
(docs/api.md, "Competitors and bots"). A competitor's ratings are in api.ratings."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from drf_spectacular.utils import extend_schema

from api.fields import QueryChoiceField, id_field
from api.input_objects import InputObject, OneOf
from api.operations import nested_serializers_named, responses, validated
from api.serializers import CompetitorSerializer
from league.models import ApiTokenScope
from league.selectors.competitors import competitor_list
from league.services.competitors import competitor_create


class CompetitorListApi(APIView):
    token_scope = ApiTokenScope.BOTS

    class InputSerializer(InputObject):
        one_of = OneOf(
            ("user", "bot_version"),
            gettext_lazy("give exactly one of 'user' (your own account) or 'bot_version'"),
        )

        user = id_field(required=False)
        bot_version = id_field(required=False)

    class QuerySerializer(serializers.Serializer[Any]):
        kind = QueryChoiceField(choices=["person", "bot"], required=False)

    @extend_schema(
        parameters=[QuerySerializer],
        responses=responses(CompetitorSerializer(many=True)),
    )
    def get(self, request: Request) -> Response:
        kind = validated(self.QuerySerializer, request.query_params).get("kind")
        return Response(CompetitorSerializer(competitor_list(kind=kind), many=True).data)

    @extend_schema(request=InputSerializer, responses=responses(CompetitorSerializer, 201))
    def post(self, request: Request) -> Response:
        data = validated(self.InputSerializer, request.data)
        competitor = competitor_create(
            actor=request.user, user_id=data.get("user"), bot_version_id=data.get("bot_version")
        )
        return Response(CompetitorSerializer(competitor).data, status=201)


nested_serializers_named([CompetitorListApi])
