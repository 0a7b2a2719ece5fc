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

from api.fields import BotFileField, GameFamiliesField, StrictBooleanField, StrictCharField
from api.operations import (
    nested_serializers_named,
    responses,
    validated,
    validated_every_field,
)
from api.serializers import BotSerializer, BotVersionSerializer
from api.throttles import UploadThrottle
from bots.models import BotFault, BotVersion
from bots.runtimes import RUNTIME_NAMES
from league.errors import NotAllowedError
from league.selectors.bots import (
    bot_get,
    bot_list,
    bot_version_faults_for,
    bot_version_get,
    bot_version_list,
)
from league.services.bot_settings import bot_add, bot_settings_change
from league.services.bot_versions import bot_version_submit


class BotListApi(APIView):
    class InputSerializer(serializers.Serializer[Any]):
        name = StrictCharField(max_length=80)
        families = GameFamiliesField()

    @extend_schema(responses=responses(BotSerializer(many=True)))
    def get(self, request: Request) -> Response:
        return Response(BotSerializer(bot_list(), many=True).data)

    @extend_schema(request=InputSerializer, responses=responses(BotSerializer, 201))
    def post(self, request: Request) -> Response:
        """A bot of yours, playing one or more game families (none is refused)."""
        data = validated_every_field(
            self.InputSerializer, request.data, read_only=BotSerializer.Meta.fields
        )
        bot = bot_add(actor=request.user, name=data["name"], families=data["families"])
        return Response(BotSerializer(bot).data, status=201)


class BotDetailApi(APIView):
    class OutputSerializer(BotSerializer):
        versions = BotVersionSerializer(many=True, read_only=True)

        class Meta(BotSerializer.Meta):
            fields = (*BotSerializer.Meta.fields, "versions")

    class InputSerializer(serializers.Serializer[Any]):
        families = GameFamiliesField(required=False)
        club_organisers_may_enter = StrictBooleanField(
            required=False,
            help_text="The owner's standing consent: organisers of the owner's clubs may "
            "enter its versions in their clubs' tournaments.",
        )

    @extend_schema(responses=responses(OutputSerializer))
    def get(self, request: Request, bot_id: int) -> Response:
        bot = bot_get(bot_id=bot_id, with_versions=True)
        return Response(self.OutputSerializer(bot, context={"request": request}).data)

    @extend_schema(request=InputSerializer, responses=responses(OutputSerializer))
    def patch(self, request: Request, bot_id: int) -> Response:
        """The owner changes the bot: the fields sent, each of them (a field this does not
        take, or a read-only one, is a 400 naming it); those left out stay as they are."""
        bot = bot_get(bot_id=bot_id)
        data = validated_every_field(
            self.InputSerializer, request.data, read_only=self.OutputSerializer.Meta.fields
        )
        bot_settings_change(
            actor=request.user,
            bot=bot,
            families=data.get("families"),
            club_organisers_may_enter=data.get("club_organisers_may_enter"),
        )
        bot = bot_get(bot_id=bot_id, with_versions=True)
        return Response(self.OutputSerializer(bot, context={"request": request}).data)


class BotVersionListApi(APIView):
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
