"""The API's notices of a person (docs/api.md, "Notifications"): the list, marking read,
the navigation bar's counts and the email choices. A person reaches their own notices
only; everything here needs a signed-in person (401 otherwise)."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from drf_spectacular.utils import extend_schema

from api.fields import KeyedDictField, QueryIntegerField, StrictBooleanField
from api.operations import nested_serializers_named, responses, validated
from api.throttles import SettingsThrottle
from api.token_scopes import SIGNED_IN
from league.domain.mail_grouping import EMAIL_MODES
from league.models import Notification, NotificationKind
from league.selectors.my_games import person_counts
from league.selectors.notifications import (
    NOTICES_SHOWN,
    notification_preferences_of,
    notifications_of,
)
from league.services.notifications import (
    notification_preferences_set,
    notification_read,
    notifications_read_all,
)


class NotificationSerializer(serializers.ModelSerializer[Notification]):
    unread = serializers.SerializerMethodField()

    class Meta:
        model = Notification
        fields = ("id", "kind", "text", "url", "match", "created_at", "read_at", "unread")

    def get_unread(self, notice: Notification) -> bool:
        return notice.read_at is None


class CountsSerializer(serializers.Serializer[Any]):
    unread = serializers.IntegerField(help_text=gettext_lazy("Unread notifications."))
    your_move = serializers.IntegerField(help_text=gettext_lazy("Games where it is your move."))


class PreferenceSerializer(serializers.Serializer[Any]):
    kind = serializers.ChoiceField(choices=NotificationKind.choices)
    description = serializers.CharField(help_text=gettext_lazy("What the kind tells."))
    email = serializers.BooleanField(help_text=gettext_lazy("Whether this kind is mailed to you."))
    mode = serializers.ChoiceField(
        choices=list(EMAIL_MODES),
        help_text=gettext_lazy(
            "How it is mailed: immediate (a correspondence game's notices grouped, one mail "
            "an hour at most), digest (gathered, one mail every three hours at most) or off."
        ),
    )
    email_by_default = serializers.BooleanField()
    chosen = serializers.BooleanField(help_text=gettext_lazy("False: the kind's default applies."))


class NotificationListApi(APIView):
    permission_classes = SIGNED_IN

    class QuerySerializer(serializers.Serializer[Any]):
        limit = QueryIntegerField(min_value=1, max_value=200, required=False)

    @extend_schema(
        parameters=[QuerySerializer], responses=responses(NotificationSerializer(many=True))
    )
    def get(self, request: Request) -> Response:
        query = validated(self.QuerySerializer, request.query_params)
        notices = notifications_of(user=request.user, limit=query.get("limit", NOTICES_SHOWN))
        return Response(NotificationSerializer(notices, many=True).data)


class NotificationReadApi(APIView):
    permission_classes = SIGNED_IN
    throttle_classes = (SettingsThrottle,)

    @extend_schema(request=None, responses=responses(NotificationSerializer))
    def post(self, request: Request, notification_id: int) -> Response:
        notice = notification_read(user=request.user, notification_id=notification_id)
        return Response(NotificationSerializer(notice).data)


class NotificationReadAllApi(APIView):
    permission_classes = SIGNED_IN
    throttle_classes = (SettingsThrottle,)

    class OutputSerializer(serializers.Serializer[Any]):
        marked = serializers.IntegerField(help_text=gettext_lazy("How many were unread."))

    @extend_schema(request=None, responses=responses(OutputSerializer))
    def post(self, request: Request) -> Response:
        return Response({"marked": notifications_read_all(user=request.user)})


class NotificationCountsApi(APIView):
    permission_classes = SIGNED_IN

    @extend_schema(responses=responses(CountsSerializer))
    def get(self, request: Request) -> Response:
        return Response(person_counts(user=request.user))


UNKNOWN_KIND = {"unknown_key": gettext_lazy("unknown kind {name}; the kinds are {keys}")}


class NotificationPreferencesApi(APIView):
    permission_classes = SIGNED_IN
    throttle_classes = (SettingsThrottle,)

    class InputSerializer(serializers.Serializer[Any]):
        email = KeyedDictField(
            keys=NotificationKind.values,
            child=StrictBooleanField(),
            error_messages=UNKNOWN_KIND,
            required=False,
            help_text='Kinds to mail or not, e.g. {"round_started": true, "your_move": false}.',
        )
        mode = KeyedDictField(
            keys=NotificationKind.values,
            child=serializers.ChoiceField(choices=list(EMAIL_MODES)),
            error_messages=UNKNOWN_KIND,
            required=False,
            help_text='How to mail kinds, e.g. {"your_move": "digest", "invited": "immediate"}.',
        )

    @extend_schema(responses=responses(PreferenceSerializer(many=True)))
    def get(self, request: Request) -> Response:
        return Response(notification_preferences_of(user=request.user))

    @extend_schema(request=InputSerializer, responses=responses(PreferenceSerializer(many=True)))
    def put(self, request: Request) -> Response:
        data = validated(self.InputSerializer, request.data)
        notification_preferences_set(
            user=request.user, email=data.get("email"), modes=data.get("mode")
        )
        return Response(notification_preferences_of(user=request.user))


nested_serializers_named(list(globals().values()))
