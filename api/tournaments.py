"""The API's tournaments: tournaments, their entries, rounds started and scheduled, their
standings and their records (docs/api.md, "Tournaments"). A tournament's ratings are in
api.ratings, its rounds and matches in api.matches."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from django.http import StreamingHttpResponse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from rest_framework import serializers
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema

from api.fields import (
    ChosenNameValidator,
    GameFamilyValidator,
    StrictBooleanField,
    StrictCharField,
    StrictFloatField,
    StrictIntegerField,
    id_field,
    query_id_field,
)
from api.input_objects import InputObject, OneOf
from api.operations import ERRORS, nested_serializers_named, responses, validated
from api.serializers import (
    RoundScheduleSerializer,
    RoundSerializer,
    StandingsSerializer,
    TournamentDetailSerializer,
    TournamentSerializer,
)
from league.errors import InvalidInputError
from league.models import (
    LEAGUE_FORMATS,
    ApiTokenScope,
    Club,
    Competitor,
    TimeControl,
    Tournament,
    TournamentFormat,
)
from league.selectors.clubs import club_find
from league.selectors.competitors import competitor_find, competitors_find
from league.selectors.standings import tournament_standings
from league.selectors.tournaments import (
    league_progress_of,
    round_get,
    tournament_detail,
    tournament_get,
    tournament_list_with_rounds,
    tournament_records,
    tournament_schedule_get,
)
from league.services.schedules import tournament_schedule_delete, tournament_schedule_set
from league.services.tournaments import (
    tournament_create,
    tournament_enter,
    tournament_finish,
    tournament_pause,
    tournament_resume,
    tournament_round_start,
)
from league.words.league_progress import progress_words


def _tournament_detail(tournament: Tournament) -> dict[str, Any]:
    """A tournament's fields with its entrants and progress (TournamentDetailSerializer)."""
    standing = league_progress_of(tournament=tournament)
    return {
        **TournamentSerializer(tournament).data,
        **tournament_detail(tournament=tournament),
        "standing": {
            "current_round": standing.current_round,
            "rounds_planned": standing.rounds_planned,
            "round_numbers": list(standing.round_numbers),
            "games_played": standing.games_played,
            "games_total": standing.games_total,
            "games_waiting": standing.games_waiting,
            "next_step": standing.next_step,
            "next_round_at": standing.next_round_at,
            "words": progress_words(standing),
        },
    }


def _club_named(club_id: int) -> Club:
    club = club_find(club_id=club_id)
    if club is None:
        raise InvalidInputError(_("club: no such club"), errors={"club": ["no such club"]})
    return club


def _entrants_named(wanted: list[int]) -> list[Competitor]:
    entrants = competitors_find(competitor_ids=wanted)
    missing = sorted(set(wanted) - {c.pk for c in entrants})
    if missing:
        raise InvalidInputError(
            _("entrants: no competitor %(missing_0)s") % {"missing_0": missing[0]},
            errors={"entrants": ["unknown competitor"]},
        )
    return entrants


class TournamentListApi(APIView):
    token_scope = ApiTokenScope.CLUBS

    class InputSerializer(serializers.Serializer[Any]):
        name = StrictCharField(max_length=120, pattern=ChosenNameValidator())
        club = id_field()
        game = StrictCharField(max_length=200, pattern=GameFamilyValidator())
        format = serializers.ChoiceField(
            choices=LEAGUE_FORMATS,
            default=TournamentFormat.ROUND_ROBIN,
        )
        rounds = StrictIntegerField(min_value=1, max_value=1000, default=1)
        deals = StrictIntegerField(min_value=1, max_value=1000, required=False, allow_null=True)
        time_control = serializers.ChoiceField(
            choices=TimeControl.choices,
            required=False,
            help_text="live (seconds per move) or correspondence (an hour to two weeks per "
            "move). Default: correspondence when people are among the entrants and no "
            "live move time is given, live otherwise.",
        )
        move_seconds = StrictFloatField(
            min_value=0.1,
            max_value=14 * 86400,
            required=False,
            help_text=gettext_lazy(
                "Time per move: default 30 (live) or 86400, a day (correspondence)."
            ),
        )
        time_bank_seconds = StrictFloatField(min_value=0, max_value=36000, default=60.0)
        entrants = serializers.ListField(child=id_field(), required=False, default=list)
        at_club = StrictBooleanField(
            default=False,
            help_text="Played with real cards at the club's tables: no worker plays the "
            "matches; each table enters its scores by its code (docs/league.md, A club night).",
        )
        totals_allowed = StrictBooleanField(
            default=False,
            help_text="At the club: a table may enter the game's totals instead of each deal "
            "(not for a game ranked per rubber, such as Priffe).",
        )

    class QuerySerializer(serializers.Serializer[Any]):
        club = query_id_field()

    @extend_schema(
        parameters=[QuerySerializer],
        responses=responses(TournamentSerializer(many=True)),
    )
    def get(self, request: Request) -> Response:
        query = validated(self.QuerySerializer, request.query_params)
        tournaments = tournament_list_with_rounds(club_id=query.get("club"))
        return Response(TournamentSerializer(tournaments, many=True).data)

    @extend_schema(request=InputSerializer, responses=responses(TournamentDetailSerializer, 201))
    def post(self, request: Request) -> Response:
        data = validated(self.InputSerializer, request.data)
        club = _club_named(data.pop("club"))
        entrants = _entrants_named(data.pop("entrants"))
        tournament = tournament_create(actor=request.user, club=club, entrants=entrants, **data)
        return Response(_tournament_detail(tournament), status=201)


class TournamentDetailApi(APIView):
    @extend_schema(responses=responses(TournamentDetailSerializer))
    def get(self, request: Request, tournament_id: int) -> Response:
        return Response(_tournament_detail(tournament_get(tournament_id=tournament_id)))


class TournamentEntryCreateApi(APIView):
    class InputSerializer(serializers.Serializer[Any]):
        competitor = id_field()

    @extend_schema(request=InputSerializer, responses=responses(TournamentDetailSerializer, 201))
    def post(self, request: Request, tournament_id: int) -> Response:
        tournament = tournament_get(tournament_id=tournament_id)
        data = validated(self.InputSerializer, request.data)
        competitor = competitor_find(competitor_id=data["competitor"])
        if competitor is None:
            raise InvalidInputError(
                _("competitor: no such competitor"), errors={"competitor": ["not found"]}
            )
        tournament_enter(actor=request.user, tournament=tournament, competitor=competitor)
        return Response(_tournament_detail(tournament), status=201)


class TournamentRoundStartApi(APIView):
    token_scope = ApiTokenScope.CLUBS

    @extend_schema(request=None, responses=responses(RoundSerializer, 201))
    def post(self, request: Request, tournament_id: int) -> Response:
        tournament = tournament_get(tournament_id=tournament_id)
        round_ = tournament_round_start(actor=request.user, tournament=tournament)
        return Response(RoundSerializer(round_get(round_id=round_.pk)).data, status=201)


class TournamentPauseApi(APIView):
    token_scope = ApiTokenScope.CLUBS

    @extend_schema(request=None, responses=responses(TournamentDetailSerializer))
    def post(self, request: Request, tournament_id: int) -> Response:
        tournament = tournament_pause(
            actor=request.user, tournament=tournament_get(tournament_id=tournament_id)
        )
        return Response(_tournament_detail(tournament))


class TournamentResumeApi(APIView):
    token_scope = ApiTokenScope.CLUBS

    @extend_schema(request=None, responses=responses(TournamentDetailSerializer))
    def post(self, request: Request, tournament_id: int) -> Response:
        tournament = tournament_resume(
            actor=request.user, tournament=tournament_get(tournament_id=tournament_id)
        )
        return Response(_tournament_detail(tournament))


class TournamentFinishApi(APIView):
    token_scope = ApiTokenScope.CLUBS

    @extend_schema(request=None, responses=responses(TournamentDetailSerializer))
    def post(self, request: Request, tournament_id: int) -> Response:
        tournament = tournament_finish(
            actor=request.user, tournament=tournament_get(tournament_id=tournament_id)
        )
        return Response(_tournament_detail(tournament))


class TournamentStandingsApi(APIView):
    @extend_schema(responses=responses(StandingsSerializer))
    def get(self, request: Request, tournament_id: int) -> Response:
        tournament = tournament_get(tournament_id=tournament_id)
        return Response(tournament_standings(tournament=tournament))


class TournamentScheduleApi(APIView):
    """Rounds started on a schedule (a celery beat entry): cron-like or every N minutes."""

    token_scope = ApiTokenScope.CLUBS

    class InputSerializer(InputObject):
        one_of = OneOf(
            ("cron", "interval_minutes"), gettext_lazy("give either cron or interval_minutes")
        )

        cron = StrictCharField(max_length=100, required=False)
        interval_minutes = StrictIntegerField(min_value=1, max_value=366 * 24 * 60, required=False)
        time_zone = StrictCharField(max_length=64, required=False, default="UTC")

    @extend_schema(responses=responses(RoundScheduleSerializer))
    def get(self, request: Request, tournament_id: int) -> Response:
        tournament = tournament_get(tournament_id=tournament_id)
        return Response(
            RoundScheduleSerializer(tournament_schedule_get(tournament=tournament)).data
        )

    @extend_schema(request=InputSerializer, responses=responses(RoundScheduleSerializer))
    def put(self, request: Request, tournament_id: int) -> Response:
        tournament = tournament_get(tournament_id=tournament_id)
        data = validated(self.InputSerializer, request.data)
        schedule = tournament_schedule_set(actor=request.user, tournament=tournament, **data)
        return Response(RoundScheduleSerializer(schedule).data)

    @extend_schema(request=None, responses={204: None, **ERRORS})
    def delete(self, request: Request, tournament_id: int) -> Response:
        tournament = tournament_get(tournament_id=tournament_id)
        tournament_schedule_delete(actor=request.user, tournament=tournament)
        return Response(status=204)


class NDJSONRenderer(BaseRenderer):
    media_type = "application/x-ndjson"
    format = "ndjson"
    charset = "utf-8"

    def render(
        self, data: Any, accepted_media_type: str | None = None, renderer_context: Any = None
    ) -> bytes:
        return (json.dumps(data) + "\n").encode()


class TournamentRecordsApi(APIView):
    """Every finished match's game record, one JSON document per line."""

    renderer_classes = (JSONRenderer, NDJSONRenderer)  # errors are JSON like everywhere

    @extend_schema(responses={(200, "application/x-ndjson"): OpenApiTypes.STR, 404: ERRORS[404]})
    def get(self, request: Request, tournament_id: int) -> StreamingHttpResponse:
        tournament = tournament_get(tournament_id=tournament_id)
        viewer = request.user

        def lines() -> Iterator[str]:
            for record in tournament_records(tournament=tournament, viewer=viewer):
                yield json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"

        response = StreamingHttpResponse(lines(), content_type="application/x-ndjson")
        response["Content-Disposition"] = (
            f'attachment; filename="tournament-{tournament.pk}-records.ndjson"'
        )
        return response


nested_serializers_named(list(globals().values()))
