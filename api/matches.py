"""The API's rounds and matches: rounds, matches, their game records, a seat's view and
actions, and the spectators' view (docs/api.md, "Rounds and matches"). A tournament's
records are in api.tournaments."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema

from api.fields import QueryChoiceField, QueryIntegerField, StrictCharField, query_id_field
from api.operations import nested_serializers_named, responses, validated
from api.serializers import (
    MatchSerializer,
    RoundSerializer,
    SeatViewSerializer,
    SpectatorViewSerializer,
)
from api.throttles import ActionThrottle
from engine.view import spectator_view
from league.models import MatchStatus
from league.replays import match_replay
from league.selectors import (
    match_get,
    match_list,
    match_record,
    match_seat_get_for_owner,
    match_seat_of_viewer,
    match_seat_turn,
    round_list,
)
from league.services.matches import match_person_act


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


class MatchRecordApi(APIView):
    @extend_schema(responses=responses(OpenApiTypes.OBJECT))
    def get(self, request: Request, match_id: int) -> Response:
        match = match_get(match_id=match_id)
        viewer = match_seat_of_viewer(match=match, user=request.user)
        return Response(match_record(match=match, viewer_seat=viewer, viewer=request.user))


class MatchSeatViewApi(APIView):
    @extend_schema(responses=responses(SeatViewSerializer))
    def get(self, request: Request, match_id: int, seat: int) -> Response:
        match = match_get(match_id=match_id)
        match_seat_get_for_owner(match=match, seat=seat, user=request.user)
        state = match_replay(match).state
        your_turn = (
            match.status == MatchStatus.RUNNING
            and match.waiting_seat == seat
            and not state.is_terminal()
        )
        return Response(
            {
                "view": state.view_for(seat).to_json(),
                "deadline": match.deadline if your_turn else None,
                "your_turn": your_turn,
            }
        )


class MatchSeatActionApi(APIView):
    throttle_classes = (ActionThrottle,)

    class InputSerializer(serializers.Serializer[Any]):
        action = StrictCharField(max_length=40)

    @extend_schema(request=InputSerializer, responses=responses(SeatViewSerializer))
    def post(self, request: Request, match_id: int, seat: int) -> Response:
        match = match_get(match_id=match_id)
        match_seat_get_for_owner(match=match, seat=seat, user=request.user)
        data = validated(self.InputSerializer, request.data)
        view = match_person_act(match=match, seat=seat, action=data["action"])
        your_turn, deadline = match_seat_turn(match_id=match.pk, seat=seat)
        return Response({"view": view.to_json(), "deadline": deadline, "your_turn": your_turn})


class MatchSpectateApi(APIView):
    @extend_schema(responses=responses(SpectatorViewSerializer))
    def get(self, request: Request, match_id: int) -> Response:
        match = match_get(match_id=match_id)
        state = match_replay(match).state
        return Response({"view": spectator_view(state.view_for(0)).to_json()})


nested_serializers_named(list(globals().values()))
