"""The REST API: one thin view per operation (docs/api.md has the contract and examples).

A view parses its input with its nested ``InputSerializer``, calls a service or a
selector, and renders an output serializer. Errors are raised as league.errors and become
JSON through api.exceptions.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from rest_framework import serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    extend_schema,
)

from api.accounts import TokenCreateApi as TokenCreateApi
from api.bots import BotDetailApi as BotDetailApi
from api.bots import BotListApi as BotListApi
from api.bots import BotVersionDetailApi as BotVersionDetailApi
from api.bots import BotVersionListApi as BotVersionListApi
from api.clubs import ClubDetailApi as ClubDetailApi
from api.clubs import ClubInvitationCreateApi as ClubInvitationCreateApi
from api.clubs import ClubListApi as ClubListApi
from api.clubs import ClubMemberListApi as ClubMemberListApi
from api.clubs import InvitationAcceptApi as InvitationAcceptApi
from api.clubs import InvitationDeclineApi as InvitationDeclineApi
from api.clubs import InvitationListApi as InvitationListApi
from api.competitors import CompetitorListApi as CompetitorListApi
from api.fields import (
    QueryChoiceField,
    QueryIntegerField,
    SeatField,
    StrictCharField,
    query_id_field,
)
from api.operations import ERRORS as ERRORS
from api.operations import responses as responses
from api.operations import validated as validated
from api.ratings import CompetitorRatingsApi as CompetitorRatingsApi
from api.ratings import RatingLeaderboardApi as RatingLeaderboardApi
from api.ratings import TournamentRatingsApi as TournamentRatingsApi
from api.serializers import (
    MatchSerializer,
    RoundSerializer,
    SeatViewSerializer,
    SpectatorViewSerializer,
)
from api.throttles import (
    ActionThrottle,
    TableThrottle,
)
from api.tournaments import TournamentDetailApi as TournamentDetailApi
from api.tournaments import TournamentEntryCreateApi as TournamentEntryCreateApi
from api.tournaments import TournamentFinishApi as TournamentFinishApi
from api.tournaments import TournamentListApi as TournamentListApi
from api.tournaments import TournamentPauseApi as TournamentPauseApi
from api.tournaments import TournamentRecordsApi as TournamentRecordsApi
from api.tournaments import TournamentResumeApi as TournamentResumeApi
from api.tournaments import TournamentRoundStartApi as TournamentRoundStartApi
from api.tournaments import TournamentScheduleApi as TournamentScheduleApi
from api.tournaments import TournamentStandingsApi as TournamentStandingsApi
from engine.view import spectator_view
from league.models import (
    MatchStatus,
)
from league.selectors import (
    match_get,
    match_list,
    match_record,
    match_seat_get_for_owner,
    match_seat_of_viewer,
    round_list,
)
from league.services.matches import match_person_act, match_replay
from league.services.tournaments import (
    table_open,
)

# ---------------------------------------------------------------- auth


# ---------------------------------------------------------------- clubs


# ---------------------------------------------------------------- competitors and bots


# ---------------------------------------------------------------- tournaments


# ---------------------------------------------------------------- rounds and matches


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
        match.refresh_from_db(fields=["status", "waiting_seat", "deadline"])
        your_turn = match.status == MatchStatus.RUNNING and match.waiting_seat == seat
        return Response(
            {
                "view": view.to_json(),
                "deadline": match.deadline if your_turn else None,
                "your_turn": your_turn,
            }
        )


class MatchSpectateApi(APIView):
    @extend_schema(responses=responses(SpectatorViewSerializer))
    def get(self, request: Request, match_id: int) -> Response:
        match = match_get(match_id=match_id)
        state = match_replay(match).state
        return Response({"view": spectator_view(state.view_for(0)).to_json()})


class TableCreateApi(APIView):
    permission_classes = (IsAuthenticated,)
    throttle_classes = (TableThrottle,)

    class InputSerializer(serializers.Serializer[Any]):
        game = StrictCharField(max_length=200)
        seats = serializers.ListField(child=SeatField(), min_length=1, max_length=8)

    @extend_schema(request=InputSerializer, responses=responses(MatchSerializer, 201))
    def post(self, request: Request) -> Response:
        data = validated(self.InputSerializer, request.data)
        match = table_open(actor=request.user, game=data["game"], seats=data["seats"])
        created = match_get(match_id=match.pk)
        return Response(MatchSerializer(created, context={"request": request}).data, status=201)


def _serializer_names_unique(view: type[APIView]) -> None:
    """Name each API's nested serializers after the API (``TokenCreateInput``...), so that
    the OpenAPI components do not collide."""
    base = view.__name__.removesuffix("Api")
    for kind in ("InputSerializer", "OutputSerializer", "QuerySerializer"):
        nested = view.__dict__.get(kind)
        if nested is not None:
            nested.__name__ = f"{base}{kind}"


for _view in [
    v for v in list(globals().values()) if isinstance(v, type) and issubclass(v, APIView)
]:
    _serializer_names_unique(_view)


@csrf_exempt
def api_not_found(request: HttpRequest, *args: Any, **kwargs: Any) -> JsonResponse:
    """Any other path under /api/: a JSON 404, like every other API error."""
    return JsonResponse({"detail": f"no API endpoint at {request.path}"}, status=404)
