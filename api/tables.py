"""The API's tables and lobby (docs/api.md, "Playing at a table"): opening a table for any
mix of people and bots, its seats and invitations, accepting or declining an invitation,
taking an open seat, the host's changes (a bot for a seat, another invitation, cancelling)
and the lobby. The match a table plays is read through api.matches as any match."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from drf_spectacular.utils import extend_schema

from api.fields import (
    GameFamilyValidator,
    SeatField,
    StrictCharField,
    StrictFloatField,
    StrictIntegerField,
    id_field,
    query_id_field,
)
from api.operations import nested_serializers_named, responses, validated
from api.serializers import MatchSerializer
from api.throttles import TableJoinThrottle, TableThrottle
from api.token_scopes import SIGNED_IN
from engine.variants import load_game
from league.errors import InvalidInputError
from league.models import Match, MatchStatus, SeatInvitation, TimeControl
from league.selectors.clubs import club_find
from league.selectors.tables import (
    lobby,
    seat_invitation_get,
    seat_invitations_pending_for,
    table_detail,
    table_get,
)
from league.services.tables import (
    invitation_url,
    seat_invitation_accept,
    seat_invitation_decline,
    table_cancel,
    table_join,
    table_open,
    table_seat_bot,
    table_seat_invite,
)

SEAT_STATES = ["taken", "open", "reserved", "empty", "dummy"]


class TableSeatingSerializer(serializers.Serializer[Any]):
    """One seat of a table and its state (league.selectors.tables.table_seats)."""

    seat = serializers.IntegerField()
    state = serializers.ChoiceField(choices=SEAT_STATES)
    competitor = serializers.IntegerField(allow_null=True)
    name = serializers.CharField(allow_null=True)
    kind = serializers.CharField(allow_null=True)
    invitee = serializers.IntegerField(allow_null=True)
    invitee_username = serializers.CharField(allow_null=True)
    invitee_name = serializers.CharField(
        allow_null=True, help_text="The invitee's display name (or username)."
    )
    code = serializers.CharField(allow_null=True)
    declined_by = serializers.CharField(allow_null=True)


class TableSerializer(MatchSerializer):
    """A table: its match (as ``GET /api/matches/{id}/``: ``seats`` are the seats taken)
    and what the table adds: host, club, time control, every seat with its state
    (``table_seats``) and the caller's place at it. The view puts the table's reads
    (league.selectors.tables.table_detail) on the match as ``table_info``."""

    game_name = serializers.CharField(source="table_info.game_name", read_only=True)
    host = serializers.IntegerField(source="table_info.host", allow_null=True, read_only=True)
    host_username = serializers.CharField(
        source="table_info.host_username", allow_null=True, read_only=True
    )
    host_name = serializers.CharField(
        source="table_info.host_name", allow_null=True, read_only=True
    )
    club = serializers.IntegerField(source="table_info.club", allow_null=True, read_only=True)
    club_name = serializers.CharField(
        source="table_info.club_name", allow_null=True, read_only=True
    )
    time_control = serializers.ChoiceField(
        choices=TimeControl.values, source="table_info.time_control", read_only=True
    )
    move_seconds = serializers.FloatField(source="table_info.move_seconds", read_only=True)
    time_bank_seconds = serializers.FloatField(
        source="table_info.time_bank_seconds", read_only=True
    )
    time_words = serializers.CharField(source="table_info.time_words", read_only=True)
    players = serializers.IntegerField(source="table_info.players", read_only=True)
    seats_taken = serializers.IntegerField(source="table_info.seats_taken", read_only=True)
    open_seats = serializers.ListField(
        child=serializers.IntegerField(), source="table_info.open_seats", read_only=True
    )
    table_seats = TableSeatingSerializer(many=True, source="table_info.seat_list", read_only=True)
    can_join = serializers.BooleanField(source="table_info.can_join", read_only=True)
    is_host = serializers.BooleanField(source="table_info.is_host", read_only=True)
    your_seat = serializers.IntegerField(
        source="table_info.your_seat", allow_null=True, read_only=True
    )
    your_invitation = serializers.CharField(
        source="table_info.your_invitation", allow_null=True, read_only=True
    )
    cancelled = serializers.BooleanField(source="table_info.cancelled", read_only=True)

    class Meta(MatchSerializer.Meta):
        fields = (
            *MatchSerializer.Meta.fields,
            "game_name",
            "host",
            "host_username",
            "host_name",
            "club",
            "club_name",
            "time_control",
            "move_seconds",
            "time_bank_seconds",
            "time_words",
            "players",
            "seats_taken",
            "open_seats",
            "table_seats",
            "can_join",
            "is_host",
            "your_seat",
            "your_invitation",
            "cancelled",
        )


def table_answer(request: Request, match_id: int, status: int = 200) -> Response:
    """The table as the caller sees it (codes only for its host and a seat's invitee)."""
    match = table_get(match_id=match_id)
    # the serializer reads the table's fields from here (a Match has no such field)
    setattr(match, "table_info", table_detail(match=match, user=request.user))  # noqa: B010
    data = TableSerializer(match, context={"request": request}).data
    return Response(data, status=status)


class TableCreateApi(APIView):
    permission_classes = SIGNED_IN
    throttle_classes = (TableThrottle,)

    class InputSerializer(serializers.Serializer[Any]):
        game = StrictCharField(max_length=200, pattern=GameFamilyValidator())
        seats = serializers.ListField(child=SeatField(), min_length=1, max_length=8)
        time_control = serializers.ChoiceField(choices=TimeControl.values, default=TimeControl.LIVE)
        move_seconds = StrictFloatField(required=False)
        time_bank_seconds = StrictFloatField(required=False)
        club = id_field(required=False)

    @extend_schema(request=InputSerializer, responses=responses(TableSerializer, 201))
    def post(self, request: Request) -> Response:
        """Open a table. Open and reserved seats wait (``status`` ``waiting``) until
        someone takes them; a table of yourself and bots starts at once."""
        data = validated(self.InputSerializer, request.data)
        club = None
        if "club" in data:
            club = club_find(club_id=data["club"])
            if club is None:
                raise InvalidInputError(
                    _("club: no club %(data_club)s") % {"data_club": data["club"]},
                    errors={"club": ["no such club"]},
                )
        match = table_open(
            actor=request.user,
            game=data["game"],
            seats=data["seats"],
            time_control=data["time_control"],
            move_seconds=data.get("move_seconds"),
            time_bank_seconds=data.get("time_bank_seconds"),
            club=club,
        )
        return table_answer(request, match.pk, status=201)


class TableDetailApi(APIView):
    @extend_schema(responses=responses(TableSerializer))
    def get(self, request: Request, match_id: int) -> Response:
        return table_answer(request, match_id)


class TableJoinApi(APIView):
    permission_classes = SIGNED_IN
    throttle_classes = (TableJoinThrottle,)

    class InputSerializer(serializers.Serializer[Any]):
        seat = StrictIntegerField(required=False, min_value=0, max_value=7)

    @extend_schema(request=InputSerializer, responses=responses(TableSerializer))
    def post(self, request: Request, match_id: int) -> Response:
        """Take an open seat (``seat``, or the first one open)."""
        data = validated(self.InputSerializer, request.data)
        table_join(user=request.user, match_id=match_id, seat=data.get("seat"))
        return table_answer(request, match_id)


class TableSeatBotApi(APIView):
    permission_classes = SIGNED_IN

    class InputSerializer(serializers.Serializer[Any]):
        bot = SeatField()

    @extend_schema(request=InputSerializer, responses=responses(TableSerializer))
    def post(self, request: Request, match_id: int, seat: int) -> Response:
        """The host gives an empty seat to a bot (``builtin:NAME`` or a bot's competitor
        id); its pending invitation is withdrawn."""
        data = validated(self.InputSerializer, request.data)
        table_seat_bot(actor=request.user, match_id=match_id, seat=seat, bot=data["bot"])
        return table_answer(request, match_id)


class TableSeatInviteApi(APIView):
    permission_classes = SIGNED_IN

    class InputSerializer(serializers.Serializer[Any]):
        username = StrictCharField(max_length=150, required=False)

    @extend_schema(request=InputSerializer, responses=responses(TableSerializer))
    def post(self, request: Request, match_id: int, seat: int) -> Response:
        """The host invites ``username`` to an empty seat, or opens it to anyone (no
        username): a new link; the seat's pending invitation is withdrawn."""
        data = validated(self.InputSerializer, request.data)
        table_seat_invite(
            actor=request.user, match_id=match_id, seat=seat, username=data.get("username")
        )
        return table_answer(request, match_id)


class TableCancelApi(APIView):
    permission_classes = SIGNED_IN

    @extend_schema(request=None, responses=responses(TableSerializer))
    def post(self, request: Request, match_id: int) -> Response:
        """The host calls off a table that has not started."""
        table_cancel(actor=request.user, match_id=match_id)
        return table_answer(request, match_id)


class SeatInvitationSerializer(serializers.Serializer[Any]):
    """An invitation to a table's seat: ``invitee`` null for an open seat."""

    code = serializers.CharField()
    table = serializers.IntegerField(source="match_id")
    seat = serializers.IntegerField()
    invitee = serializers.IntegerField(source="invitee_id", allow_null=True)
    invitee_username = serializers.SerializerMethodField()
    host_username = serializers.SerializerMethodField()
    game = serializers.CharField(source="match.game")
    game_name = serializers.SerializerMethodField()
    club_name = serializers.SerializerMethodField()
    table_status = serializers.CharField(source="match.status")
    state = serializers.SerializerMethodField()
    link = serializers.SerializerMethodField()
    created_at = serializers.DateTimeField()

    def get_invitee_username(self, invitation: SeatInvitation) -> str | None:
        return invitation.invitee.get_username() if invitation.invitee is not None else None

    def get_host_username(self, invitation: SeatInvitation) -> str | None:
        host = invitation.match.tournament.created_by
        return host.get_username() if host is not None else None

    def get_game_name(self, invitation: SeatInvitation) -> str:
        return _game_name(invitation.match)

    def get_club_name(self, invitation: SeatInvitation) -> str | None:
        club = invitation.match.tournament.club
        return club.name if club is not None else None

    def get_state(self, invitation: SeatInvitation) -> str:
        """pending, accepted, declined or cancelled (withdrawn by the host, or the table
        was cancelled)."""
        if invitation.accepted_at is not None:
            return "accepted"
        if invitation.declined_at is not None:
            return "declined"
        if invitation.cancelled_at is not None or invitation.match.status == MatchStatus.ERROR:
            return "cancelled"
        return "pending"

    def get_link(self, invitation: SeatInvitation) -> str:
        """The page where it is accepted or declined."""
        return invitation_url(invitation)


def _game_name(match: Match) -> str:
    return load_game(match.game).display_name


class SeatInvitationListApi(APIView):
    permission_classes = SIGNED_IN

    @extend_schema(responses=responses(SeatInvitationSerializer(many=True)))
    def get(self, request: Request) -> Response:
        """The seats kept for you at tables waiting for your answer."""
        invitations = seat_invitations_pending_for(user=request.user)
        return Response(SeatInvitationSerializer(invitations, many=True).data)


class SeatInvitationDetailApi(APIView):
    @extend_schema(responses=responses(SeatInvitationSerializer))
    def get(self, request: Request, code: str) -> Response:
        """An invitation by its code (whoever holds the link may read it)."""
        return Response(SeatInvitationSerializer(seat_invitation_get(code=code)).data)


class SeatInvitationAcceptApi(APIView):
    permission_classes = SIGNED_IN
    throttle_classes = (TableJoinThrottle,)

    @extend_schema(request=None, responses=responses(TableSerializer))
    def post(self, request: Request, code: str) -> Response:
        """Take the seat: a reserved seat by its invitee only, an open one by anyone (a
        club's table: its members)."""
        invitation = seat_invitation_accept(user=request.user, code=code)
        return table_answer(request, invitation.match_id)


class SeatInvitationDeclineApi(APIView):
    permission_classes = SIGNED_IN

    @extend_schema(request=None, responses=responses(SeatInvitationSerializer))
    def post(self, request: Request, code: str) -> Response:
        """Decline a seat kept for you (its invitee only)."""
        seat_invitation_decline(user=request.user, code=code)
        return Response(SeatInvitationSerializer(seat_invitation_get(code=code)).data)


class LobbyTableSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    game = serializers.CharField()
    game_name = serializers.CharField()
    status = serializers.CharField()
    host = serializers.IntegerField(allow_null=True)
    host_username = serializers.CharField(allow_null=True)
    host_name = serializers.CharField(
        allow_null=True, help_text="The host's display name (or username)."
    )
    club = serializers.IntegerField(allow_null=True)
    club_name = serializers.CharField(allow_null=True)
    time_control = serializers.ChoiceField(choices=TimeControl.values)
    move_seconds = serializers.FloatField()
    time_bank_seconds = serializers.FloatField()
    time_words = serializers.CharField()
    players = serializers.IntegerField()
    seats_taken = serializers.IntegerField()
    open_seats = serializers.ListField(child=serializers.IntegerField())
    players_seated = serializers.ListField(child=serializers.CharField())
    can_join = serializers.BooleanField()
    created_at = serializers.DateTimeField()


class LobbyGameSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    game = serializers.CharField()
    game_name = serializers.CharField()
    tournament = serializers.IntegerField()
    tournament_name = serializers.CharField()
    table = serializers.BooleanField()
    club_name = serializers.CharField(allow_null=True)
    status = serializers.CharField()
    players = serializers.ListField(child=serializers.CharField())
    scores = serializers.ListField(child=serializers.IntegerField(), allow_null=True)
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)


class LobbySerializer(serializers.Serializer[Any]):
    club = serializers.IntegerField(allow_null=True)
    club_name = serializers.CharField(allow_null=True)
    open_tables = LobbyTableSerializer(many=True)
    your_tables = LobbyTableSerializer(many=True)
    playing = LobbyGameSerializer(many=True)
    finished = LobbyGameSerializer(many=True)


class LobbyApi(APIView):
    class QuerySerializer(serializers.Serializer[Any]):
        club = query_id_field()

    @extend_schema(
        parameters=[QuerySerializer],
        responses=responses(LobbySerializer),
    )
    def get(self, request: Request) -> Response:
        """Tables waiting for players (site-wide: of no club and of your clubs; or one
        club's), games being played (to watch) and the latest finished."""
        query = validated(self.QuerySerializer, request.query_params)
        club = None
        if query.get("club") is not None:
            club = club_find(club_id=query["club"])
            if club is None:
                raise InvalidInputError(_("club: no such club"), errors={"club": ["no such club"]})
        return Response(LobbySerializer(lobby(user=request.user, club=club)).data)


nested_serializers_named(list(globals().values()))
