"""The API's private replays: a game record uploaded to one's own account (a local match:
``python -m bots match ... --record FILE``), read back by its owner alone (docs/api.md,
"Private replays"). Anyone else gets 404, as for a replay that does not exist."""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from rest_framework import serializers
from rest_framework.parsers import MultiPartParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema

from api.fields import JsonObjectField
from api.operations import nested_serializers_named, responses, validated
from api.parsers import JSONParser
from api.throttles import UploadThrottle
from api.token_scopes import TokenScopeRequired
from league.errors import InvalidInputError
from league.models import PrivateReplay
from league.selectors.private_replays import private_replay_get, private_replay_list
from league.services.private_replays import (
    MAX_PRIVATE_REPLAY_BYTES,
    MAX_TITLE_CHARS,
    private_replay_delete,
    private_replay_upload,
)


class PrivateReplaySerializer(serializers.ModelSerializer[PrivateReplay]):
    page = serializers.SerializerMethodField(help_text="The replay viewer's page (the owner's).")
    record_url = serializers.SerializerMethodField(help_text="The record itself (JSON).")

    class Meta:
        model = PrivateReplay
        fields = ("id", "title", "game", "created_at", "page", "record_url")

    def get_page(self, replay: PrivateReplay) -> str:
        return reverse("web:private-replay", args=[replay.pk])

    def get_record_url(self, replay: PrivateReplay) -> str:
        return reverse("api-private-replay-record", args=[replay.pk])


class RecordFileField(serializers.FileField):
    """The record's file (multipart), refused before it is read when over the limit."""

    def to_internal_value(self, data: Any) -> Any:
        upload = super().to_internal_value(data)
        if upload.size > MAX_PRIVATE_REPLAY_BYTES:
            limit = MAX_PRIVATE_REPLAY_BYTES // (1024 * 1024)
            raise serializers.ValidationError(
                _("The record is larger than %(mib)s MiB.") % {"mib": limit}
            )
        return upload


class PrivateReplayListApi(APIView):
    """GET: one's own private replays, newest first. POST: upload a record, as the file
    ``file`` (multipart) or as JSON ``{"record": {...}, "title": "..."}``."""

    permission_classes = (IsAuthenticated, TokenScopeRequired)
    parser_classes = (JSONParser, MultiPartParser)

    class FileInputSerializer(serializers.Serializer[Any]):
        file = RecordFileField(help_text="The record: python -m bots match ... --record FILE")
        title = serializers.CharField(max_length=MAX_TITLE_CHARS, required=False, default="")

    class JsonInputSerializer(serializers.Serializer[Any]):
        record = JsonObjectField(
            help_text="The record (docs/record-format.md).",
            error_messages={"not_an_object": gettext_lazy("a game record is a JSON object")},
        )
        title = serializers.CharField(max_length=MAX_TITLE_CHARS, required=False, default="")

    def get_throttles(self) -> list[Any]:
        return [UploadThrottle()] if self.request.method == "POST" else []

    @extend_schema(responses=responses(PrivateReplaySerializer(many=True)))
    def get(self, request: Request) -> Response:
        replays = private_replay_list(user=request.user)
        return Response(PrivateReplaySerializer(replays, many=True).data)

    @extend_schema(
        request={
            "multipart/form-data": FileInputSerializer,
            "application/json": JsonInputSerializer,
        },
        responses=responses(PrivateReplaySerializer, 201),
    )
    def post(self, request: Request) -> Response:
        source: Any
        if request.content_type.startswith("multipart/"):
            data = validated(self.FileInputSerializer, request.data)
            source = data["file"].read()
        else:
            if not isinstance(request.data, dict):
                raise InvalidInputError(_('Send {"record": {...}} or a file named "file".'))
            data = validated(self.JsonInputSerializer, request.data)
            source = data["record"]
        replay = private_replay_upload(
            owner=request.user,  # type: ignore[arg-type]
            source=source,
            title=data.get("title", ""),
        )
        return Response(PrivateReplaySerializer(replay).data, status=201)


class PrivateReplayApi(APIView):
    permission_classes = (IsAuthenticated, TokenScopeRequired)

    @extend_schema(responses=responses(PrivateReplaySerializer))
    def get(self, request: Request, replay_id: int) -> Response:
        replay = private_replay_get(replay_id=replay_id, user=request.user)
        return Response(PrivateReplaySerializer(replay).data)

    @extend_schema(responses=responses(None, 204))
    def delete(self, request: Request, replay_id: int) -> Response:
        replay = private_replay_get(replay_id=replay_id, user=request.user)
        private_replay_delete(owner=request.user, replay=replay)  # type: ignore[arg-type]
        return Response(status=204)


class PrivateReplayRecordApi(APIView):
    permission_classes = (IsAuthenticated, TokenScopeRequired)

    @extend_schema(responses=responses(OpenApiTypes.OBJECT))
    def get(self, request: Request, replay_id: int) -> Response:
        replay = private_replay_get(replay_id=replay_id, user=request.user)
        return Response(replay.record, headers={"Cache-Control": "private, no-store"})


nested_serializers_named([PrivateReplayListApi])
