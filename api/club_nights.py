"""The API of club nights (docs/api.md, "Club nights"): who is present, a round's table
cards and seating list, a table's score entry by its code (no account needed), its
confirmation from the other side's code, the organisers' closing of a night and their
corrections.

The phones of a club night share the venue's address: entries and confirmations are
limited per table code and per phone (api.throttles), and only wrong codes per address,
for reads and writes alike."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema

from api.fields import StrictCharField, StrictIntegerField, id_field
from api.operations import nested_serializers_named, responses, validated
from api.serializers import ErrorSerializer
from api.throttles import (
    TableCodeWriteThrottle,
    TableSessionWriteThrottle,
    phone_of,
    table_code_guesses_limited,
)
from league.models import ApiTokenScope, MatchResult, ScoreCorrection
from league.selectors.club_nights import (
    club_organiser_check,
    club_round,
    match_corrections,
    round_attendance,
    round_cards,
    table_code_open,
    table_entry_view,
)
from league.selectors.matches import match_get
from league.selectors.tournaments import tournament_get
from league.services.club_nights import (
    club_attendance_set,
    club_night_close,
    table_scores_confirm,
    table_scores_confirm_by_organiser,
    table_scores_correct,
    table_scores_enter,
)

ENTRY_HELP = gettext_lazy(
    "The score sheet: one object per deal, in the order played, with the fields the "
    "game's sheet lists (GET /api/club-tables/{code}/ gives them; docs/record-format.md)."
)


class AttendanceSerializer(serializers.Serializer[Any]):
    round = serializers.IntegerField(allow_null=True)
    present = serializers.ListField(child=serializers.IntegerField())
    reserves = serializers.ListField(child=serializers.IntegerField())
    byes = serializers.ListField(child=serializers.IntegerField())


class ResultSerializer(serializers.Serializer[Any]):
    match = serializers.IntegerField()
    scores = serializers.ListField(child=serializers.IntegerField())


class CorrectionSerializer(serializers.Serializer[Any]):
    corrected_by = serializers.CharField(allow_null=True)
    corrected_at = serializers.DateTimeField()
    before = serializers.JSONField()
    after = serializers.JSONField()
    reason = serializers.CharField(allow_blank=True)


class ScoresInput(serializers.Serializer[Any]):
    entry = serializers.ListField(
        child=serializers.DictField(), required=False, max_length=400, help_text=ENTRY_HELP
    )
    totals = serializers.ListField(
        child=StrictIntegerField(min_value=-1_000_000, max_value=1_000_000),
        required=False,
        max_length=5,
        help_text=gettext_lazy("The game's totals by seat, where the organiser allows them."),
    )


def _result(result: MatchResult) -> dict[str, Any]:
    return {"match": result.match_id, "scores": result.scores}


def _correction(correction: ScoreCorrection) -> dict[str, Any]:
    return {
        "corrected_by": correction.corrected_by.username if correction.corrected_by else None,
        "corrected_at": correction.corrected_at,
        "before": correction.before,
        "after": correction.after,
        "reason": correction.reason,
    }


class AttendanceApi(APIView):
    token_scope = ApiTokenScope.CLUBS  # an organiser's writes

    class InputSerializer(serializers.Serializer[Any]):
        present = serializers.ListField(
            child=id_field(),
            max_length=1000,
            help_text=gettext_lazy("Competitor ids of the entrants present."),
        )
        reserves = serializers.ListField(
            child=id_field(),
            max_length=100,
            default=list,
            help_text=gettext_lazy(
                "Competitor ids of club members (no entrants) who fill a short table."
            ),
        )

    @extend_schema(responses=responses(AttendanceSerializer))
    def get(self, request: Request, tournament_id: int) -> Response:
        tournament = tournament_get(tournament_id=tournament_id)
        return Response(round_attendance(tournament=tournament))

    @extend_schema(request=InputSerializer, responses=responses(AttendanceSerializer))
    def post(self, request: Request, tournament_id: int) -> Response:
        tournament = tournament_get(tournament_id=tournament_id)
        data = validated(self.InputSerializer, request.data)
        club_attendance_set(actor=request.user, tournament=tournament, **data)
        return Response(round_attendance(tournament=tournament))


class RoundCardsApi(APIView):
    @extend_schema(responses=responses(OpenApiTypes.OBJECT))
    def get(self, request: Request, tournament_id: int, number: int) -> Response:
        tournament = tournament_get(tournament_id=tournament_id)
        club_organiser_check(user=request.user, tournament=tournament)
        round_ = club_round(tournament=tournament, number=number)
        return Response(round_cards(round_=round_, base_url=request.build_absolute_uri("/")[:-1]))


class RoundCloseApi(APIView):
    token_scope = ApiTokenScope.CLUBS  # an organiser's writes

    @extend_schema(request=None, responses=responses(OpenApiTypes.OBJECT))
    def post(self, request: Request, tournament_id: int, number: int) -> Response:
        tournament = tournament_get(tournament_id=tournament_id)
        closed = club_night_close(actor=request.user, tournament=tournament, number=number)
        return Response({"round": number, "tables_closed": closed})


def code_responses(ok: Any) -> dict[int | tuple[int, str], Any]:
    """The answers of an operation by a table code: those of every operation, and the
    code's own refusals."""
    return {
        **responses(ok),
        410: OpenApiResponse(
            ErrorSerializer,
            description="The code no longer opens its table (confirmed, the night closed, "
            "the league over, expired); the message says which.",
        ),
        429: OpenApiResponse(
            ErrorSerializer,
            description="Too many wrong codes from this address (reads and writes alike), "
            "or too many writes through this code or from this phone; Retry-After says "
            "in how many seconds to try again.",
        ),
    }


SEAT_HELP = gettext_lazy("Your seat at the table: one of the seats of your code's side.")
TABLE_WRITES = (TableCodeWriteThrottle, TableSessionWriteThrottle)
"""Per table code and per phone, never per address: a club night shares one address."""


class ClubTableApi(APIView):
    permission_classes = (AllowAny,)  # the table's code is the key: no account needed
    throttle_classes = ()  # reads: only wrong codes are counted, per address

    @extend_schema(responses=code_responses(OpenApiTypes.OBJECT))
    def get(self, request: Request, code: str) -> Response:
        with table_code_guesses_limited(request, code):
            opened = table_code_open(code=code)
        return Response(table_entry_view(sheet=opened.sheet, opened=opened))


class ClubTableScoresApi(APIView):
    permission_classes = (AllowAny,)  # the table's code is the key: no account needed
    throttle_classes = TABLE_WRITES

    class InputSerializer(ScoresInput):
        seat = StrictIntegerField(min_value=0, max_value=1000, help_text=SEAT_HELP)
        version = StrictIntegerField(
            min_value=0,
            max_value=1_000_000,
            default=0,
            help_text=gettext_lazy(
                "The sheet's version the entry was made from (GET gives it; 0: nothing was "
                "entered). An entry made from an older one is refused (409) with what was "
                "entered since, in 'entered'."
            ),
        )

    @extend_schema(request=InputSerializer, responses=code_responses(OpenApiTypes.OBJECT))
    def post(self, request: Request, code: str) -> Response:
        data = validated(self.InputSerializer, request.data)
        with table_code_guesses_limited(request, code):
            sheet = table_scores_enter(
                code=code,
                seat=data["seat"],
                entry=data.get("entry"),
                totals=data.get("totals"),
                version=data["version"],
                phone=phone_of(request),
            )
            opened = table_code_open(code=code)
        return Response(table_entry_view(sheet=sheet, opened=opened))


class ClubTableConfirmApi(APIView):
    permission_classes = (AllowAny,)  # the table's code is the key: no account needed
    throttle_classes = TABLE_WRITES

    class InputSerializer(serializers.Serializer[Any]):
        seat = StrictIntegerField(
            min_value=0,
            max_value=1000,
            help_text=gettext_lazy(
                "Your seat: on the other side from the seat that entered (your side's code)."
            ),
        )
        version = StrictIntegerField(
            min_value=0,
            max_value=1_000_000,
            required=False,
            help_text=gettext_lazy(
                "The sheet's version you checked; refused (409) if it was entered again since."
            ),
        )

    @extend_schema(request=InputSerializer, responses=code_responses(ResultSerializer))
    def post(self, request: Request, code: str) -> Response:
        data = validated(self.InputSerializer, request.data)
        with table_code_guesses_limited(request, code):
            result = table_scores_confirm(
                code=code,
                seat=data["seat"],
                version=data.get("version"),
                phone=phone_of(request),
            )
        return Response(_result(result))


class MatchScoresConfirmApi(APIView):
    token_scope = ApiTokenScope.CLUBS  # an organiser's writes

    @extend_schema(request=None, responses=responses(ResultSerializer))
    def post(self, request: Request, match_id: int) -> Response:
        match = match_get(match_id=match_id)
        return Response(_result(table_scores_confirm_by_organiser(actor=request.user, match=match)))


class MatchCorrectionsApi(APIView):
    token_scope = ApiTokenScope.CLUBS  # an organiser's writes

    class InputSerializer(ScoresInput):
        reason = StrictCharField(max_length=300, required=False, default="", blank=True)

    @extend_schema(responses=responses(CorrectionSerializer(many=True)))
    def get(self, request: Request, match_id: int) -> Response:
        return Response(match_corrections(match=match_get(match_id=match_id)))

    @extend_schema(request=InputSerializer, responses=responses(CorrectionSerializer, 201))
    def post(self, request: Request, match_id: int) -> Response:
        data = validated(self.InputSerializer, request.data)
        correction = table_scores_correct(
            actor=request.user,
            match=match_get(match_id=match_id),
            entry=data.get("entry"),
            totals=data.get("totals"),
            reason=data["reason"],
        )
        return Response(_correction(correction), status=201)


nested_serializers_named(list(globals().values()))
