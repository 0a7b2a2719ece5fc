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

from api.fields import (
    BotFileField,
    ChosenNameValidator,
    GameFamiliesField,
    StrictBooleanField,
    StrictCharField,
)
from api.input_objects import ClosedInputObject
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
from league.domain.version_standing import LIMITS, REASONS, STATES
from league.errors import NotAllowedError
from league.models import ApiTokenScope
from league.selectors.bots import (
    bot_get,
    bot_list,
    bot_version_faults_for,
    bot_version_get,
    bot_version_list,
)
from league.selectors.version_standing import bot_version_standing
from league.services.bot_settings import bot_add, bot_settings_change
from league.services.bot_versions import bot_version_submit


class SuspensionFaultSerializer(serializers.Serializer[Any]):
    match = serializers.IntegerField()
    seat = serializers.IntegerField(required=False)
    outcome = serializers.CharField()


class LadderStateSerializer(serializers.Serializer[Any]):
    """Why a version is (not) playing in one ladder (league.domain.version_standing)."""

    state = serializers.ChoiceField(choices=list(STATES))
    text = serializers.CharField(help_text="The state in one sentence, in your language.")
    ladder = serializers.CharField(allow_null=True, help_text="The ladder's slug.")
    ladder_name = serializers.CharField(allow_blank=True)
    reason = serializers.ChoiceField(
        choices=list(REASONS),
        allow_null=True,
        help_text="Why it is in no ladder (state not_in_ladder only).",
    )
    newer = serializers.IntegerField(
        allow_null=True, help_text="Superseded: the version that plays instead."
    )
    failures = serializers.DictField(
        child=serializers.IntegerField(),
        help_text="Suspended: its failures in a row by outcome (crash, init_failure).",
    )
    faults = SuspensionFaultSerializer(many=True, help_text="Suspended: the matches it failed.")
    placement_left = serializers.IntegerField()
    games = serializers.IntegerField(help_text="Rated games on the ladder.")
    mu = serializers.FloatField(allow_null=True)
    sigma = serializers.FloatField(allow_null=True)
    conservative = serializers.FloatField(allow_null=True)
    rank = serializers.IntegerField(allow_null=True, help_text="Its position on the ladder.")
    ranked = serializers.IntegerField(help_text="Rows on the ladder's leaderboard.")
    confidence = serializers.FloatField(
        allow_null=True, help_text="P(truly above the next row); null for the last."
    )
    queued = serializers.IntegerField()
    running = serializers.IntegerField()
    limit = serializers.ChoiceField(
        choices=list(LIMITS),
        allow_null=True,
        help_text="What holds it back: its matches at once, or the ladder's queue.",
    )
    limit_value = serializers.IntegerField(allow_null=True)


class BotVersionWithLaddersSerializer(BotVersionSerializer):
    """A version and its state in each ladder, read by the view (bot_version_standing) and
    passed as the context's "ladders" (version id -> states)."""

    ladders = serializers.SerializerMethodField()

    class Meta(BotVersionSerializer.Meta):
        fields = (*BotVersionSerializer.Meta.fields, "ladders")

    @extend_schema_field(LadderStateSerializer(many=True))
    def get_ladders(self, version: BotVersion) -> list[dict[str, Any]]:
        return list(self.context["ladders"].get(version.pk, []))


class BotListApi(APIView):
    token_scope = ApiTokenScope.BOTS

    class InputSerializer(ClosedInputObject):
        name = StrictCharField(max_length=80, pattern=ChosenNameValidator())
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
    token_scope = ApiTokenScope.BOTS

    class OutputSerializer(BotSerializer):
        versions = BotVersionWithLaddersSerializer(many=True, read_only=True)

        class Meta(BotSerializer.Meta):
            fields = (*BotSerializer.Meta.fields, "versions")

    class InputSerializer(ClosedInputObject):
        families = GameFamiliesField(required=False)
        club_organisers_may_enter = StrictBooleanField(
            required=False,
            help_text="The owner's standing consent: organisers of the owner's clubs may "
            "enter its versions in their clubs' tournaments.",
        )
        people_may_play_rated = StrictBooleanField(
            required=False,
            help_text="The owner's standing consent: a person may ask for a rated game "
            "against its versions on its ladders (on by default).",
        )

    def _answer(self, request: Request, bot_id: int) -> Response:
        bot = bot_get(bot_id=bot_id, with_versions=True)
        ladders = bot_version_standing(bot=bot, versions=list(bot.versions.all()))
        context = {"request": request, "ladders": ladders}
        return Response(self.OutputSerializer(bot, context=context).data)

    @extend_schema(responses=responses(OutputSerializer))
    def get(self, request: Request, bot_id: int) -> Response:
        """The bot, its versions and why each is (not) playing in each ladder."""
        return self._answer(request, bot_id)

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
            people_may_play_rated=data.get("people_may_play_rated"),
        )
        return self._answer(request, bot_id)


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

    class OutputSerializer(BotVersionWithLaddersSerializer):
        # The latest faults, read for the viewer by the view (bot_version_faults_for) and
        # passed as the context's "faults": the serializer runs no query of its own.
        faults = serializers.SerializerMethodField()

        class Meta(BotVersionWithLaddersSerializer.Meta):
            fields = (*BotVersionWithLaddersSerializer.Meta.fields, "faults")

        @extend_schema_field(FaultListSerializer(many=True))
        def get_faults(self, version: BotVersion) -> list[dict[str, Any]]:
            return list(FaultListSerializer(self.context["faults"], many=True).data)

    @extend_schema(responses=responses(OutputSerializer))
    def get(self, request: Request, version_id: int) -> Response:
        version = bot_version_get(version_id=version_id)
        faults = bot_version_faults_for(version=version, user=request.user)
        ladders = bot_version_standing(bot=version.bot, versions=[version])
        context = {"request": request, "faults": faults, "ladders": ladders}
        return Response(self.OutputSerializer(version, context=context).data)


nested_serializers_named(list(globals().values()))
