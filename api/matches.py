"""The API's rounds and matches: rounds, matches, their game records, a seat's view and
actions, the spectators' view and a table's chat (docs/api.md, "Rounds and matches",
"Playing at a table"). A tournament's records are in api.tournaments."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers
from rest_framework.exceptions import APIException
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema

from api.fields import QueryChoiceField, QueryIntegerField, StrictCharField, query_id_field
from api.operations import nested_serializers_named, responses, validated
from api.serializers import (
    AnalysisSerializer,
    ChatMessageSerializer,
    ChatSerializer,
    MatchSerializer,
    RoundSerializer,
    SeatViewSerializer,
    SpectatorViewSerializer,
    TablePresenceSerializer,
)
from api.throttles import ActionThrottle, ChatThrottle
from engine.game import spectator_view
from league.models import MatchStatus
from league.selectors.matches import (
    match_analysis_for,
    match_get,
    match_list,
    match_record,
    match_seat_get_for_owner,
    match_seat_of_viewer,
)
from league.selectors.replays import match_replay
from league.selectors.tables import CHAT_MAX_CHARS, chat_message_json, chat_messages, seat_view
from league.selectors.tournaments import round_list
from league.services.analysis import analysis_request
from league.services.matches import match_person_move
from league.services.presence import absence_vote, table_presence
from league.services.table_chat import chat_message_post


class RoundListApi(APIView):
    class QuerySerializer(serializers.Serializer[Any]):
        tournament = query_id_field()

    @extend_schema(
        parameters=[QuerySerializer],
        responses=responses(RoundSerializer(many=True)),
    )
    def get(self, request: Request) -> Response:
        query = validated(self.QuerySerializer, request.query_params)
        rounds = round_list(tournament_id=query.get("tournament"))
        return Response(RoundSerializer(rounds, many=True).data)


class MatchListApi(APIView):
    class QuerySerializer(serializers.Serializer[Any]):
        tournament = query_id_field()
        round = QueryIntegerField(min_value=1, max_value=2**31 - 1, required=False)
        competitor = query_id_field()
        status = QueryChoiceField(choices=MatchStatus.choices, required=False)

    @extend_schema(
        parameters=[QuerySerializer],
        responses=responses(MatchSerializer(many=True)),
    )
    def get(self, request: Request) -> Response:
        query = validated(self.QuerySerializer, request.query_params)
        matches = match_list(
            tournament_id=query.get("tournament"),
            round_number=query.get("round"),
            competitor_id=query.get("competitor"),
            status=query.get("status"),
        )
        return Response(MatchSerializer(matches, many=True, context={"request": request}).data)


class MatchDetailApi(APIView):
    @extend_schema(responses=responses(MatchSerializer))
    def get(self, request: Request, match_id: int) -> Response:
        match = match_get(match_id=match_id)
        return Response(MatchSerializer(match, context={"request": request}).data)


RECORD_MAX_AGE_SECONDS = 3600
"""How long a client or a shared cache keeps a finished match's record before asking again
(with its ETag: 304 when it is unchanged, which a finished record always is)."""


def finished_record_cache(match: Any, user: Any) -> dict[str, str]:
    """The caching headers of a finished match's record: an ETag (the match, its end, and
    who asks: faults' messages differ by viewer) and Cache-Control (public for anonymous
    readers, private for a signed-in one); none while the match is not finished."""
    if match.status != MatchStatus.FINISHED or match.finished_at is None:
        return {}
    who = f"u{user.pk}" if user.is_authenticated else "anyone"
    scope = "private" if user.is_authenticated else "public"
    return {
        "ETag": f'"record-{match.pk}-{match.finished_at.timestamp():.6f}-{who}"',
        "Cache-Control": f"{scope}, max-age={RECORD_MAX_AGE_SECONDS}",
        "Vary": "Authorization, Cookie",
    }


class MatchRecordApi(APIView):
    @extend_schema(responses=responses(OpenApiTypes.OBJECT))
    def get(self, request: Request, match_id: int) -> Response:
        match = match_get(match_id=match_id)
        cache = finished_record_cache(match, request.user)
        if cache and cache["ETag"] in request.headers.get("If-None-Match", ""):
            return Response(status=304, headers=cache)
        viewer = match_seat_of_viewer(match=match, user=request.user)
        record = match_record(match=match, viewer_seat=viewer, viewer=request.user)
        return Response(record, headers=cache)


class MatchAnalysisApi(APIView):
    """A finished match's analysis (GET: anyone who sees its record with every hand; 404
    otherwise) and a request for a new one (POST: staff, its players, its organisers)."""

    @extend_schema(responses=responses(AnalysisSerializer))
    def get(self, request: Request, match_id: int) -> Response:
        match = match_get(match_id=match_id)
        return Response(AnalysisSerializer(match_analysis_for(match=match, user=request.user)).data)

    @extend_schema(request=None, responses=responses(AnalysisSerializer, status=202))
    def post(self, request: Request, match_id: int) -> Response:
        match = match_get(match_id=match_id)
        analysis_request(actor=request.user, match=match)
        answer = match_analysis_for(match=match, user=request.user)
        return Response(AnalysisSerializer(answer).data, status=202)


class MatchSeatViewApi(APIView):
    @extend_schema(responses=responses(SeatViewSerializer))
    def get(self, request: Request, match_id: int, seat: int) -> Response:
        match = match_get(match_id=match_id)
        match_seat_get_for_owner(match=match, seat=seat, user=request.user)
        return Response(seat_view(match=match, seat=seat, user=request.user))


class MatchSeatActionApi(APIView):
    throttle_classes = (ActionThrottle,)

    class InputSerializer(serializers.Serializer[Any]):
        action = StrictCharField(max_length=40)

    @extend_schema(request=InputSerializer, responses=responses(SeatViewSerializer))
    def post(self, request: Request, match_id: int, seat: int) -> Response:
        try:
            data = validated(self.InputSerializer, request.data)
        except APIException:
            # A body refused: whose seat it is is said first (401, 403, 404), as before.
            match = match_get(match_id=match_id)
            match_seat_get_for_owner(match=match, seat=seat, user=request.user)
            raise
        # The match is read once, locked, with its seats (the seat checked to be the
        # person's), and answered as it stands after the move: the next person's deadline,
        # or the bots' turn, or the end.
        after = match_person_move(
            match_id=match_id, seat=seat, user=request.user, action=data["action"]
        )
        return Response(seat_view(match=after, seat=seat, user=request.user))


class MatchChatApi(APIView):
    """A table's chat: everyone reads it, the people seated write (docs/api.md)."""

    throttle_classes = (ChatThrottle,)

    class QuerySerializer(serializers.Serializer[Any]):
        after = QueryIntegerField(min_value=0, max_value=2**63 - 1, required=False)

    class InputSerializer(serializers.Serializer[Any]):
        text = StrictCharField(max_length=2000)

    @extend_schema(parameters=[QuerySerializer], responses=responses(ChatSerializer))
    def get(self, request: Request, match_id: int) -> Response:
        query = validated(self.QuerySerializer, request.query_params)
        match = match_get(match_id=match_id)
        return Response(
            {
                "messages": chat_messages(match=match, after=query.get("after")),
                "can_write": match_seat_of_viewer(match=match, user=request.user) is not None,
                "max_chars": CHAT_MAX_CHARS,
            }
        )

    @extend_schema(request=InputSerializer, responses=responses(ChatMessageSerializer, 201))
    def post(self, request: Request, match_id: int) -> Response:
        match = match_get(match_id=match_id)
        data = validated(self.InputSerializer, request.data)
        message = chat_message_post(match=match, user=request.user, text=data["text"])
        return Response(chat_message_json(message), status=201)


class MatchPresenceApi(APIView):
    """Who is at the table: each person's seat connected or gone, and the vote to seat a
    bot for one who is gone (docs/api.md); anyone may read it."""

    @extend_schema(responses=responses(TablePresenceSerializer))
    def get(self, request: Request, match_id: int) -> Response:
        return Response(table_presence(match=match_get(match_id=match_id)))


class MatchAbsenceVoteApi(APIView):
    """A person seated at the table votes to seat a bot for the person at ``seat``, who
    has been gone long enough (``vote_open``); a majority of the others seats it."""

    throttle_classes = (ActionThrottle,)

    @extend_schema(request=None, responses=responses(TablePresenceSerializer))
    def post(self, request: Request, match_id: int, seat: int) -> Response:
        return Response(absence_vote(user=request.user, match_id=match_id, seat=seat))


class MatchSpectateApi(APIView):
    @extend_schema(responses=responses(SpectatorViewSerializer))
    def get(self, request: Request, match_id: int) -> Response:
        match = match_get(match_id=match_id)
        state = match_replay(match).state
        return Response({"view": spectator_view(state.view_for(0)).to_json()})


nested_serializers_named(list(globals().values()))
