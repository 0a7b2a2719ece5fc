"""The API's accounts: tokens for API clients (docs/api.md, "Tokens").

``POST /api/auth/token/`` with a username and password answers the person's old-style token
(the same one every time, every scope) so that existing scripts keep working; named tokens
with scopes are made in the site's settings (/settings/tokens/). ``DELETE /api/auth/token/``
revokes the token the request is made with, named or old-style.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from rest_framework import serializers
from rest_framework.authtoken.models import Token
from rest_framework.parsers import FormParser
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from drf_spectacular.utils import extend_schema

from accounts.api_tokens import (
    api_token_revoke,
    legacy_api_token_get_or_create,
    legacy_api_token_revoke,
)
from api.fields import StrictCharField
from api.operations import nested_serializers_named, responses, validated
from api.parsers import JSONParser
from api.throttles import SignInThrottle, password_authenticate
from api.token_scopes import ApiTokenAuthentication
from league.errors import InvalidInputError
from league.models import ApiToken


class TokenCreateApi(APIView):
    """A token for API clients: ``Authorization: Token <token>``."""

    permission_classes = (AllowAny,)
    # The token, for DELETE (never the session: no CSRF to ask of a script)
    authentication_classes = (ApiTokenAuthentication,)
    parser_classes = (JSONParser, FormParser)  # curl -d username=...&password=... works
    throttle_classes = (SignInThrottle,)  # per address; wrong passwords lock the username

    class InputSerializer(serializers.Serializer[Any]):
        username = StrictCharField(max_length=150)
        password = StrictCharField(trim_whitespace=False)

    class OutputSerializer(serializers.Serializer[Any]):
        token = serializers.CharField()

    def get_permissions(self) -> list[Any]:
        return [IsAuthenticated()] if self.request.method == "DELETE" else [AllowAny()]

    @extend_schema(request=InputSerializer, responses=responses(OutputSerializer))
    def post(self, request: Request) -> Response:
        data = validated(self.InputSerializer, request.data)
        user = password_authenticate(request, username=data["username"], password=data["password"])
        return Response({"token": legacy_api_token_get_or_create(user=user)})

    @extend_schema(request=None, responses=responses(None, 204))
    def delete(self, request: Request) -> Response:
        """Revoke the token this request is made with (named or old-style)."""
        if isinstance(request.auth, ApiToken):
            api_token_revoke(user=request.auth.user, token_id=request.auth.pk)
        elif isinstance(request.auth, Token):
            legacy_api_token_revoke(user=request.auth.user)
        else:
            raise InvalidInputError(_("Send the token to revoke: Authorization: Token <token>."))
        return Response(status=204)


nested_serializers_named([TokenCreateApi])
