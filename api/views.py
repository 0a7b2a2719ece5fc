"""The REST API: one thin view per operation (docs/api.md has the contract and examples).

A view parses its input with its nested ``InputSerializer``, calls a service or a
selector, and renders an output serializer. Errors are raised as league.errors and become
JSON through api.exceptions.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.db.models import Count
from django.http import HttpRequest, JsonResponse, StreamingHttpResponse
from django.views.decorators.csrf import csrf_exempt
from rest_framework import serializers
from rest_framework.parsers import MultiPartParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    extend_schema,
    extend_schema_field,
)

from api.accounts import TokenCreateApi as TokenCreateApi
from api.clubs import ClubDetailApi as ClubDetailApi
from api.clubs import ClubInvitationCreateApi as ClubInvitationCreateApi
from api.clubs import ClubListApi as ClubListApi
from api.clubs import ClubMemberListApi as ClubMemberListApi
from api.clubs import InvitationAcceptApi as InvitationAcceptApi
from api.clubs import InvitationDeclineApi as InvitationDeclineApi
from api.clubs import InvitationListApi as InvitationListApi
from api.competitors import CompetitorListApi as CompetitorListApi
from api.fields import (
    BotFileField,
    GameFamilyQueryField,
    QueryChoiceField,
    QueryIntegerField,
    SeatField,
    StrictBooleanField,
    StrictCharField,
    StrictFloatField,
    StrictIntegerField,
    id_field,
    query_id_field,
)
from api.operations import ERRORS as ERRORS
from api.operations import responses as responses
from api.operations import validated as validated
from api.serializers import (
    BotSerializer,
    BotVersionSerializer,
    CompetitorRatingsSerializer,
    MatchSerializer,
    RatingRowSerializer,
    RoundScheduleSerializer,
    RoundSerializer,
    SeatViewSerializer,
    SpectatorViewSerializer,
    StandingsSerializer,
    TournamentDetailSerializer,
    TournamentRatingsSerializer,
    TournamentSerializer,
)
from api.throttles import (
    ActionThrottle,
    TableThrottle,
    UploadThrottle,
)
from bots.models import Bot, BotFault, BotVersion
from bots.services import bot_create
from engine.view import spectator_view
from league.errors import InvalidInputError, NotAllowedError, NotFoundError
from league.models import (
    LEAGUE_FORMATS,
    Club,
    Competitor,
    MatchStatus,
    RoundSchedule,
    Tournament,
    TournamentFormat,
)
from league.selectors import (
    can_read_bot_private,
    competitor_ratings,
    match_get,
    match_list,
    match_record,
    match_seat_get_for_owner,
    match_seat_of_viewer,
    ratings_leaderboard,
    round_list,
    tournament_get,
    tournament_list,
    tournament_progress,
    tournament_ratings,
    tournament_records,
    tournament_standings,
)
from league.services.bot_versions import bot_version_submit
from league.services.competitors import bot_entry_consent_set
from league.services.matches import match_person_act, match_replay
from league.services.schedules import tournament_schedule_delete, tournament_schedule_set
from league.services.tournaments import (
    table_open,
    tournament_create,
    tournament_enter,
    tournament_finish,
    tournament_pause,
    tournament_resume,
    tournament_round_start,
)


def _object_or_404(queryset: Any, pk: int, what: str) -> Any:
    found = queryset.filter(pk=pk).first()
    if found is None:
        raise NotFoundError(f"no {what} {pk}")
    return found


# ---------------------------------------------------------------- auth


# ---------------------------------------------------------------- clubs


# ---------------------------------------------------------------- competitors and bots


class BotListApi(APIView):
    class InputSerializer(serializers.Serializer[Any]):
        name = StrictCharField(max_length=80)
        family = StrictCharField(max_length=40, required=False, blank=True, default="")

    @extend_schema(responses=responses(BotSerializer(many=True)))
    def get(self, request: Request) -> Response:
        bots = Bot.objects.select_related("owner").order_by("kind", "name", "id")
        return Response(BotSerializer(bots, many=True).data)

    @extend_schema(request=InputSerializer, responses=responses(BotSerializer, 201))
    def post(self, request: Request) -> Response:
        data = validated(self.InputSerializer, request.data)
        bot = bot_create(owner=request.user, name=data["name"], family=data["family"])  # type: ignore[arg-type]
        return Response(BotSerializer(bot).data, status=201)


class BotDetailApi(APIView):
    class OutputSerializer(BotSerializer):
        versions = BotVersionSerializer(many=True, read_only=True)

        class Meta(BotSerializer.Meta):
            fields = (*BotSerializer.Meta.fields, "versions")

    class InputSerializer(serializers.Serializer[Any]):
        club_organisers_may_enter = StrictBooleanField()

    @extend_schema(responses=responses(OutputSerializer))
    def get(self, request: Request, bot_id: int) -> Response:
        bot = _object_or_404(Bot.objects.prefetch_related("versions__competitor"), bot_id, "bot")
        return Response(self.OutputSerializer(bot, context={"request": request}).data)

    @extend_schema(request=InputSerializer, responses=responses(OutputSerializer))
    def patch(self, request: Request, bot_id: int) -> Response:
        """The owner's standing consent: may organisers of the owner's clubs enter it?"""
        bot = _object_or_404(Bot.objects.all(), bot_id, "bot")
        data = validated(self.InputSerializer, request.data)
        bot = bot_entry_consent_set(
            actor=request.user,
            bot=bot,
            club_organisers_may_enter=data["club_organisers_may_enter"],
        )
        return Response(self.OutputSerializer(bot, context={"request": request}).data)


class BotVersionListApi(APIView):
    parser_classes = (MultiPartParser,)
    throttle_classes = (UploadThrottle,)  # uploads only: GET is not limited

    class InputSerializer(serializers.Serializer[Any]):
        file = BotFileField()

    @extend_schema(responses=responses(BotVersionSerializer(many=True)))
    def get(self, request: Request, bot_id: int) -> Response:
        bot = _object_or_404(Bot.objects.all(), bot_id, "bot")
        versions = bot.versions.select_related("bot", "competitor").order_by("number")
        return Response(
            BotVersionSerializer(versions, many=True, context={"request": request}).data
        )

    @extend_schema(
        request={"multipart/form-data": InputSerializer},
        responses=responses(BotVersionSerializer, 201),
    )
    def post(self, request: Request, bot_id: int) -> Response:
        bot = _object_or_404(Bot.objects.all(), bot_id, "bot")
        if bot.owner_id != request.user.pk:
            raise NotAllowedError("only the bot's owner may upload its versions")
        data = validated(self.InputSerializer, request.data)
        upload = data["file"]
        version = bot_version_submit(
            owner=request.user,  # type: ignore[arg-type]
            bot=bot,
            filename=upload.name or "bot.py",
            data=upload.read(),
        )
        return Response(
            BotVersionSerializer(version, context={"request": request}).data, status=201
        )


class FaultListSerializer(serializers.ModelSerializer[BotFault]):
    """A fault of a bot version; its ``message`` (which may quote the bot) is null for
    anyone but the bot's owner and staff (``can_read_bot_private``)."""

    message = serializers.CharField(allow_null=True)

    class Meta:
        model = BotFault
        fields = ("id", "match_id", "seat", "cause", "message", "created_at")


class BotVersionDetailApi(APIView):
    class OutputSerializer(BotVersionSerializer):
        faults = serializers.SerializerMethodField()

        class Meta(BotVersionSerializer.Meta):
            fields = (*BotVersionSerializer.Meta.fields, "faults")

        @extend_schema_field(FaultListSerializer(many=True))
        def get_faults(self, version: BotVersion) -> list[dict[str, Any]]:
            faults = list(version.faults.order_by("-created_at", "-id")[:50])
            request = self.context.get("request")
            user = request.user if request is not None else AnonymousUser()
            if not can_read_bot_private(user=user, bot=version.bot):
                for fault in faults:
                    fault.message = None  # type: ignore[assignment]
            return list(FaultListSerializer(faults, many=True).data)

    @extend_schema(responses=responses(OutputSerializer))
    def get(self, request: Request, version_id: int) -> Response:
        version = _object_or_404(
            BotVersion.objects.select_related("bot", "competitor"), version_id, "bot version"
        )
        return Response(self.OutputSerializer(version, context={"request": request}).data)


# ---------------------------------------------------------------- tournaments


def _tournament_detail(tournament: Tournament) -> dict[str, Any]:
    entries = tournament.entries.select_related("competitor").order_by("id")
    data = dict(TournamentSerializer(tournament).data)
    data["entrant_count"] = len(entries)
    data["rounds_started"] = tournament.round_set.count()
    data["entrants"] = [
        {"competitor": e.competitor_id, "name": e.competitor.name, "kind": e.competitor.kind}
        for e in entries
    ]
    data.update(tournament_progress(tournament_id=tournament.pk))
    return data


class TournamentListApi(APIView):
    class InputSerializer(serializers.Serializer[Any]):
        name = StrictCharField(max_length=120)
        club = id_field()
        game = StrictCharField(max_length=200)
        format = serializers.ChoiceField(
            choices=LEAGUE_FORMATS,
            default=TournamentFormat.ROUND_ROBIN,
        )
        rounds = StrictIntegerField(min_value=1, max_value=1000, default=1)
        deals = StrictIntegerField(min_value=1, max_value=1000, required=False, allow_null=True)
        move_seconds = StrictFloatField(min_value=0.1, max_value=3600, default=30.0)
        time_bank_seconds = StrictFloatField(min_value=0, max_value=36000, default=60.0)
        entrants = serializers.ListField(child=id_field(), required=False, default=list)

    class QuerySerializer(serializers.Serializer[Any]):
        club = query_id_field()

    @extend_schema(
        parameters=[QuerySerializer],
        responses=responses(TournamentSerializer(many=True)),
    )
    def get(self, request: Request) -> Response:
        query = validated(self.QuerySerializer, request.query_params)
        tournaments = tournament_list(club_id=query.get("club")).annotate(
            rounds_started=Count("round_set", distinct=True)
        )
        return Response(TournamentSerializer(tournaments, many=True).data)

    @extend_schema(request=InputSerializer, responses=responses(TournamentDetailSerializer, 201))
    def post(self, request: Request) -> Response:
        data = validated(self.InputSerializer, request.data)
        club = Club.objects.filter(pk=data.pop("club")).first()
        if club is None:
            raise InvalidInputError("club: no such club", errors={"club": ["no such club"]})
        wanted = data.pop("entrants")
        entrants = list(Competitor.objects.filter(pk__in=wanted))
        missing = sorted(set(wanted) - {c.pk for c in entrants})
        if missing:
            raise InvalidInputError(
                f"entrants: no competitor {missing[0]}", errors={"entrants": ["unknown competitor"]}
            )
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
        competitor = (
            Competitor.objects.select_related("bot_version__bot")
            .filter(pk=data["competitor"])
            .first()
        )
        if competitor is None:
            raise InvalidInputError(
                "competitor: no such competitor", errors={"competitor": ["not found"]}
            )
        tournament_enter(actor=request.user, tournament=tournament, competitor=competitor)
        return Response(_tournament_detail(tournament), status=201)


class TournamentRoundStartApi(APIView):
    @extend_schema(request=None, responses=responses(RoundSerializer, 201))
    def post(self, request: Request, tournament_id: int) -> Response:
        tournament = tournament_get(tournament_id=tournament_id)
        round_ = tournament_round_start(actor=request.user, tournament=tournament)
        return Response(RoundSerializer(round_list().get(pk=round_.pk)).data, status=201)


class TournamentPauseApi(APIView):
    @extend_schema(request=None, responses=responses(TournamentDetailSerializer))
    def post(self, request: Request, tournament_id: int) -> Response:
        tournament = tournament_pause(
            actor=request.user, tournament=tournament_get(tournament_id=tournament_id)
        )
        return Response(_tournament_detail(tournament))


class TournamentResumeApi(APIView):
    @extend_schema(request=None, responses=responses(TournamentDetailSerializer))
    def post(self, request: Request, tournament_id: int) -> Response:
        tournament = tournament_resume(
            actor=request.user, tournament=tournament_get(tournament_id=tournament_id)
        )
        return Response(_tournament_detail(tournament))


class TournamentFinishApi(APIView):
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


class TournamentRatingsApi(APIView):
    @extend_schema(responses=responses(TournamentRatingsSerializer))
    def get(self, request: Request, tournament_id: int) -> Response:
        tournament = tournament_get(tournament_id=tournament_id)
        return Response(tournament_ratings(tournament=tournament))


class TournamentScheduleApi(APIView):
    """Rounds started on a schedule (a celery beat entry): cron-like or every N minutes."""

    class InputSerializer(serializers.Serializer[Any]):
        cron = StrictCharField(max_length=100, required=False, blank=True, default="")
        interval_minutes = StrictIntegerField(
            min_value=1, max_value=366 * 24 * 60, required=False, allow_null=True, default=None
        )
        time_zone = StrictCharField(max_length=64, required=False, default="UTC")

    @extend_schema(responses=responses(RoundScheduleSerializer))
    def get(self, request: Request, tournament_id: int) -> Response:
        tournament = tournament_get(tournament_id=tournament_id)
        schedule = (
            RoundSchedule.objects.select_related("periodic_task")
            .filter(tournament=tournament)
            .first()
        )
        if schedule is None:
            raise NotFoundError(f"tournament {tournament_id} has no schedule")
        return Response(RoundScheduleSerializer(schedule).data)

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


class CompetitorRatingsApi(APIView):
    class QuerySerializer(serializers.Serializer[Any]):
        game = GameFamilyQueryField(required=False)
        tournament = query_id_field()

    @extend_schema(
        parameters=[QuerySerializer],
        responses=responses(CompetitorRatingsSerializer),
    )
    def get(self, request: Request, competitor_id: int) -> Response:
        query = validated(self.QuerySerializer, request.query_params)
        return Response(
            competitor_ratings(
                competitor_id=competitor_id,
                family=query.get("game"),
                tournament_id=query.get("tournament"),
            )
        )


class RatingLeaderboardApi(APIView):
    class QuerySerializer(serializers.Serializer[Any]):
        game = GameFamilyQueryField()  # a family's options are ignored: kingen(rules=iwwa)
        min_games = QueryIntegerField(min_value=0, max_value=2**31 - 1, required=False)

    @extend_schema(
        parameters=[QuerySerializer],
        responses=responses(RatingRowSerializer(many=True)),
    )
    def get(self, request: Request) -> Response:
        query = validated(self.QuerySerializer, request.query_params)
        return Response(
            ratings_leaderboard(family=query["game"], min_games=query.get("min_games", 0))
        )


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
