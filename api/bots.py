"""The API's bots: bots, their uploaded versions and the faults they made
(docs/api.md, "Competitors and bots"; uploading: docs/bot-protocol.md)."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from rest_framework import serializers
from rest_framework.parsers import MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from drf_spectacular.utils import extend_schema, extend_schema_field

from api.fields import BotFileField, StrictBooleanField, StrictCharField
from api.operations import nested_serializers_named, responses, validated
from api.serializers import BotSerializer, BotVersionSerializer
from api.throttles import UploadThrottle
from bots.models import BotFault, BotVersion
from bots.runtimes import RUNTIME_NAMES
from bots.services import bot_create
from league.errors import NotAllowedError
from league.models import ApiTokenScope
from league.selectors.bots import (
    bot_get,
    bot_list,
    bot_version_faults_for,
    bot_version_get,
    bot_version_list,
)
from league.services.bot_versions import bot_version_submit
from league.services.competitors import bot_entry_consent_set


class BotListApi(APIView):
    token_scope = ApiTokenScope.BOTS

    class InputSerializer(serializers.Serializer[Any]):
        name = StrictCharField(max_length=80)
        family = StrictCharField(max_length=40, required=False, blank=True, default="")

    @extend_schema(responses=responses(BotSerializer(many=True)))
    def get(self, request: Request) -> Response:
        return Response(BotSerializer(bot_list(), many=True).data)

    @extend_schema(request=InputSerializer, responses=responses(BotSerializer, 201))
    def post(self, request: Request) -> Response:
        data = validated(self.InputSerializer, request.data)
        bot = bot_create(owner=request.user, name=data["name"], family=data["family"])  # type: ignore[arg-type]
        return Response(BotSerializer(bot).data, status=201)


class BotDetailApi(APIView):
    token_scope = ApiTokenScope.BOTS

    class OutputSerializer(BotSerializer):
        versions = BotVersionSerializer(many=True, read_only=True)

        class Meta(BotSerializer.Meta):
            fields = (*BotSerializer.Meta.fields, "versions")

    class InputSerializer(serializers.Serializer[Any]):
        club_organisers_may_enter = StrictBooleanField()

    @extend_schema(responses=responses(OutputSerializer))
    def get(self, request: Request, bot_id: int) -> Response:
        bot = bot_get(bot_id=bot_id, with_versions=True)
        return Response(self.OutputSerializer(bot, context={"request": request}).data)

    @extend_schema(request=InputSerializer, responses=responses(OutputSerializer))
    def patch(self, request: Request, bot_id: int) -> Response:
        """The owner's standing consent: may organisers of the owner's clubs enter it?"""
        bot = bot_get(bot_id=bot_id)
        data = validated(self.InputSerializer, request.data)
        bot_entry_consent_set(
            actor=request.user,
            bot=bot,
            club_organisers_may_enter=data["club_organisers_may_enter"],
        )
        bot = bot_get(bot_id=bot_id, with_versions=True)
        return Response(self.OutputSerializer(bot, context={"request": request}).data)


class BotVersionListApi(APIView):
    token_scope = ApiTokenScope.BOTS
    parser_classes = (MultiPartParser,)
    throttle_classes = (UploadThrottle,)  # uploads only: GET is not limited

    class InputSerializer(serializers.Serializer[Any]):
        file = BotFileField()
        runtime = serializers.ChoiceField(
            choices=[("", "recognise from the files"), *((name, name) for name in RUNTIME_NAMES)],
            required=False,
            allow_blank=True,
            help_text="What runs the bot (docs/bot-protocol.md, Runtimes); left out: "
            "recognised from its files (main.py, main, main.js, bot.jar).",
        )

    @extend_schema(responses=responses(BotVersionSerializer(many=True)))
    def get(self, request: Request, bot_id: int) -> Response:
        versions = bot_version_list(bot=bot_get(bot_id=bot_id))
        return Response(
            BotVersionSerializer(versions, many=True, context={"request": request}).data
        )

    @extend_schema(
        request={"multipart/form-data": InputSerializer},
        responses=responses(BotVersionSerializer, 201),
    )
    def post(self, request: Request, bot_id: int) -> Response:
        bot = bot_get(bot_id=bot_id)
        if bot.owner_id != request.user.pk:
            raise NotAllowedError(_("only the bot's owner may upload its versions"))
        data = validated(self.InputSerializer, request.data)
        upload = data["file"]
        version = bot_version_submit(
            owner=request.user,  # type: ignore[arg-type]
            bot=bot,
            filename=upload.name or "bot.py",
            data=upload.read(),
            runtime=data.get("runtime") or None,
        )
        stored = bot_version_get(version_id=version.pk)  # with its bot and competitor
        return Response(BotVersionSerializer(stored, context={"request": request}).data, status=201)


class FaultListSerializer(serializers.ModelSerializer[BotFault]):
    """A fault of a bot version; its ``message`` (which may quote the bot) is null for
    anyone but the bot's owner and staff (``can_read_bot_private``)."""

    message = serializers.CharField(allow_null=True)

    class Meta:
        model = BotFault
        fields = ("id", "match_id", "seat", "cause", "message", "created_at")


class BotVersionDetailApi(APIView):
    token_scope = ApiTokenScope.BOTS

    class OutputSerializer(BotVersionSerializer):
        # The latest faults, read for the viewer by the view (bot_version_faults_for) and
        # passed as the context's "faults": the serializer runs no query of its own.
        faults = serializers.SerializerMethodField()

        class Meta(BotVersionSerializer.Meta):
            fields = (*BotVersionSerializer.Meta.fields, "faults")

        @extend_schema_field(FaultListSerializer(many=True))
        def get_faults(self, version: BotVersion) -> list[dict[str, Any]]:
            return list(FaultListSerializer(self.context["faults"], many=True).data)

    @extend_schema(responses=responses(OutputSerializer))
    def get(self, request: Request, version_id: int) -> Response:
        version = bot_version_get(version_id=version_id)
        faults = bot_version_faults_for(version=version, user=request.user)
        context = {"request": request, "faults": faults}
        return Response(self.OutputSerializer(version, context=context).data)


nested_serializers_named(list(globals().values()))
