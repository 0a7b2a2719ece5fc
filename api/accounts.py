"""The API's accounts: the person's own settings (``/api/account/``: the display name and
who sees their profile) and tokens for API clients (docs/api.md, "Your account", "Tokens").

``POST /api/auth/token/`` with a username and password answers the person's old-style token
(the same one every time, every scope) so that existing scripts keep working; named tokens
with scopes are made in the site's settings (/settings/tokens/) or at /api/auth/tokens/.
``DELETE /api/auth/token/`` revokes the token the request is made with, named or old-style.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.utils.functional import lazy
from django.utils.translation import gettext as _
from rest_framework import serializers
from rest_framework.authtoken.models import Token
from rest_framework.parsers import FormParser
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from drf_spectacular.utils import extend_schema

from accounts.account_settings import profile_visibility_of, profile_visibility_set
from accounts.api_tokens import (
    ALL_SCOPES,
    api_token_create,
    api_token_revoke,
    api_tokens_active,
    legacy_api_token_get_or_create,
    legacy_api_token_revoke,
)
from api.fields import DISPLAY_NAME_PATTERN, ChosenNameValidator, StrictCharField
from api.input_objects import ClosedInputObject
from api.operations import (
    nested_serializers_named,
    responses,
    validated,
    validated_every_field,
)
from api.parsers import JSONParser
from api.throttles import SettingsThrottle, SignInThrottle, password_authenticate
from api.token_scopes import SIGNED_IN, ApiTokenAuthentication
from league.errors import InvalidInputError
from league.models import ApiToken, ApiTokenScope, ProfileVisibility
from league.selectors.person_names import display_name_of, person_name
from league.services.person_names import DISPLAY_NAME_MAX, display_name_set


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


class ApiTokenOutputSerializer(serializers.Serializer[Any]):
    """A named token as its person sees it: never its key, only the key's first characters."""

    id = serializers.IntegerField()
    name = serializers.CharField()
    prefix = serializers.CharField()
    scopes = serializers.ListField(child=serializers.ChoiceField(choices=sorted(ALL_SCOPES)))
    created_at = serializers.DateTimeField()
    last_used_at = serializers.DateTimeField(allow_null=True)
    expires_at = serializers.DateTimeField(allow_null=True)


def _person(request: Request) -> User:
    """The signed-in person (the views' SIGNED_IN permission lets no one else in)."""
    assert isinstance(request.user, User)
    return request.user


def _made_with(request: Request) -> ApiToken | None:
    """The named token of the request, which bounds what it may do to tokens; None for the
    session and the old token (the password's equal: every scope)."""
    return request.auth if isinstance(request.auth, ApiToken) else None


class ApiTokenListApi(APIView):
    """The person's named tokens (``GET``), and a new one (``POST``): its key is in the 201
    answer only. A named token makes only tokens within its own scopes and expiry."""

    permission_classes = SIGNED_IN
    token_scope = ApiTokenScope.READ  # and within the token's own scopes (accounts.api_tokens)

    class InputSerializer(serializers.Serializer[Any]):
        name = StrictCharField(max_length=100)
        scopes = serializers.ListField(
            # min_length too: the schema's minItems (allow_empty alone left it out, and
            # schemathesis' positive data sent [] and got a 400)
            child=serializers.ChoiceField(choices=sorted(ALL_SCOPES)),
            allow_empty=False,
            min_length=1,
        )
        expires_in_days = serializers.IntegerField(
            required=False, allow_null=True, min_value=1, max_value=3650
        )

    class OutputSerializer(ApiTokenOutputSerializer):
        token = serializers.CharField(help_text="The key: shown in this answer only.")

    @extend_schema(responses=responses(ApiTokenOutputSerializer(many=True)))
    def get(self, request: Request) -> Response:
        tokens = api_tokens_active(user=_person(request))
        return Response(ApiTokenOutputSerializer(tokens, many=True).data)

    @extend_schema(request=InputSerializer, responses=responses(OutputSerializer, 201))
    def post(self, request: Request) -> Response:
        data = validated(self.InputSerializer, request.data)
        token, key = api_token_create(
            user=_person(request),
            name=data["name"],
            scopes=data["scopes"],
            expires_in_days=data.get("expires_in_days"),
            made_with=_made_with(request),
        )
        return Response({**ApiTokenOutputSerializer(token).data, "token": key}, status=201)


class ApiTokenDetailApi(APIView):
    """Revoke one of the person's named tokens: refused from its next request on."""

    permission_classes = SIGNED_IN
    token_scope = ApiTokenScope.READ  # and no scope the token lacks (accounts.api_tokens)

    @extend_schema(request=None, responses=responses(None, 204))
    def delete(self, request: Request, token_id: int) -> Response:
        api_token_revoke(user=_person(request), token_id=token_id, made_with=_made_with(request))
        return Response(status=204)


def _display_name_refused() -> str:
    return _(
        "A display name has at most %(count)d characters, and no control characters or line breaks."
    ) % {"count": DISPLAY_NAME_MAX}


class AccountApi(APIView):
    """The person's own settings (``GET``), and a change of some of them (``PATCH``): the
    display name others see (blank: the username) and who sees their games, partners and
    bots. A display name with bidirectional or other control characters, or over 40
    characters, is a 400 naming ``display_name``."""

    permission_classes = SIGNED_IN
    throttle_classes = (SettingsThrottle,)

    class InputSerializer(ClosedInputObject):
        # the schema's pattern says what the service checks (trimmed, the length and no
        # control characters); the service also refuses another person's username
        display_name = StrictCharField(
            blank=True,
            trim_whitespace=False,
            max_length=200,
            required=False,
            pattern=ChosenNameValidator(
                DISPLAY_NAME_PATTERN,
                message=lazy(_display_name_refused, str)(),
            ),
        )
        profile_visibility = serializers.ChoiceField(
            choices=ProfileVisibility.choices, required=False
        )

    class OutputSerializer(serializers.Serializer[Any]):
        username = serializers.CharField(help_text="In links and invitations; never changes.")
        display_name = serializers.CharField(help_text="Blank: others see the username.")
        name = serializers.CharField(help_text="What others see: the display name or username.")
        profile_visibility = serializers.ChoiceField(choices=ProfileVisibility.choices)

    @staticmethod
    def _body(user: User) -> dict[str, Any]:
        return {
            "username": user.get_username(),
            "display_name": display_name_of(user=user),
            "name": person_name(user),
            "profile_visibility": profile_visibility_of(user_id=user.pk),
        }

    @extend_schema(responses=responses(OutputSerializer))
    def get(self, request: Request) -> Response:
        return Response(self._body(_person(request)))

    @extend_schema(request=InputSerializer, responses=responses(OutputSerializer))
    def patch(self, request: Request) -> Response:
        data = validated_every_field(
            self.InputSerializer, request.data, read_only=("username", "name")
        )
        user = _person(request)
        if "display_name" in data:
            display_name_set(user=user, display_name=data["display_name"])
        if "profile_visibility" in data:
            profile_visibility_set(user=user, visibility=data["profile_visibility"])
        return Response(self._body(user))


nested_serializers_named([AccountApi, TokenCreateApi, ApiTokenListApi, ApiTokenDetailApi])
