"""The API's accounts: a token for API clients (docs/api.md, "Authentication and errors")."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers
from rest_framework.parsers import FormParser
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from drf_spectacular.utils import extend_schema

from api.fields import StrictCharField
from api.operations import nested_serializers_named, responses, validated
from api.parsers import JSONParser
from api.throttles import SignInThrottle, password_authenticate
from league.services.sign_in import api_token_get_or_create


class TokenCreateApi(APIView):
    """A token for API clients: ``Authorization: Token <token>``."""

    permission_classes = (AllowAny,)
    authentication_classes = ()
    parser_classes = (JSONParser, FormParser)  # curl -d username=...&password=... works
    throttle_classes = (SignInThrottle,)  # per address; wrong passwords lock the username

    class InputSerializer(serializers.Serializer[Any]):
        username = StrictCharField(max_length=150)
        password = StrictCharField(trim_whitespace=False)

    class OutputSerializer(serializers.Serializer[Any]):
        token = serializers.CharField()

    @extend_schema(request=InputSerializer, responses=responses(OutputSerializer))
    def post(self, request: Request) -> Response:
        data = validated(self.InputSerializer, request.data)
        user = password_authenticate(request, username=data["username"], password=data["password"])
        return Response({"token": api_token_get_or_create(user=user)})


nested_serializers_named([TokenCreateApi])
