"""The API's clubs: clubs, their members and invitations
(docs/api.md, "Clubs, members, invitations")."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User as Account
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from drf_spectacular.utils import extend_schema

from api.fields import ChosenNameValidator, StrictCharField, id_field
from api.input_objects import InputObject, OneOf
from api.operations import ERRORS, nested_serializers_named, responses, validated
from api.serializers import ClubSerializer, MemberSerializer
from api.token_scopes import SIGNED_IN
from league.errors import InvalidInputError
from league.models import ApiTokenScope, Invitation, Membership, Role
from league.selectors.clubs import club_get, club_list, club_member_list, invitations_pending_for
from league.selectors.profiles import user_find
from league.services.clubs import (
    club_create,
    club_person_role_set,
    invitation_accept,
    invitation_create,
    invitation_decline,
)


class ClubListApi(APIView):
    token_scope = ApiTokenScope.CLUBS

    class InputSerializer(serializers.Serializer[Any]):
        name = StrictCharField(max_length=100, pattern=ChosenNameValidator())
        description = StrictCharField(required=False, blank=True, default="")

    @extend_schema(responses=responses(ClubSerializer(many=True)))
    def get(self, request: Request) -> Response:
        return Response(ClubSerializer(club_list(), many=True).data)

    @extend_schema(request=InputSerializer, responses=responses(ClubSerializer, 201))
    def post(self, request: Request) -> Response:
        data = validated(self.InputSerializer, request.data)
        club = club_create(user=request.user, **data)
        return Response(ClubSerializer(club_get(club_id=club.pk)).data, status=201)


class ClubDetailApi(APIView):
    token_scope = ApiTokenScope.CLUBS

    @extend_schema(responses=responses(ClubSerializer))
    def get(self, request: Request, club_id: int) -> Response:
        return Response(ClubSerializer(club_get(club_id=club_id)).data)


class InvitationSerializer(serializers.ModelSerializer[Invitation]):
    """An invitation; ``invitee`` is set for a personal one (only that person answers it)."""

    club_name = serializers.CharField(source="club.name", read_only=True)
    invitee_username = serializers.SerializerMethodField()
    invited_by = serializers.CharField(source="created_by.get_username", read_only=True)

    class Meta:
        model = Invitation
        fields = (
            "code",
            "club",
            "club_name",
            "role",
            "invitee",
            "invitee_username",
            "invited_by",
            "created_at",
            "expires_at",
        )

    def get_invitee_username(self, invitation: Invitation) -> str | None:
        invitee = invitation.invitee
        return invitee.get_username() if invitee is not None else None


class PersonInputSerializer(InputObject):
    """A person named by ``user`` (id) or ``username``, and a club role."""

    one_of = OneOf(("user", "username"), gettext_lazy("give exactly one of 'user' or 'username'"))

    user = id_field(required=False)
    username = StrictCharField(required=False, max_length=150)
    role = serializers.ChoiceField(choices=Role.choices, default=Role.PLAYER)


def _person_named(data: dict[str, Any]) -> Account:
    person = user_find(user_id=data.get("user"), username=data.get("username"))
    if person is None:
        raise InvalidInputError(_("user: no such user"), errors={"user": ["no such user"]})
    return person


class ClubMemberListApi(APIView):
    token_scope = ApiTokenScope.CLUBS

    class InputSerializer(PersonInputSerializer):
        pass

    @extend_schema(responses=responses(MemberSerializer(many=True)))
    def get(self, request: Request, club_id: int) -> Response:
        members = club_member_list(club=club_get(club_id=club_id))
        return Response(MemberSerializer(members, many=True).data)

    @extend_schema(
        request=InputSerializer,
        responses={200: MemberSerializer, 202: InvitationSerializer, **ERRORS},
    )
    def post(self, request: Request, club_id: int) -> Response:
        """A member's new role (200); a person who is not a member is sent a personal
        invitation instead (202): joining is their own act."""
        club = club_get(club_id=club_id)
        data = validated(self.InputSerializer, request.data)
        made = club_person_role_set(
            actor=request.user, club=club, person=_person_named(data), role=data["role"]
        )
        if isinstance(made, Membership):
            return Response(MemberSerializer(made).data)
        return Response(InvitationSerializer(made).data, status=202)


class ClubInvitationCreateApi(APIView):
    token_scope = ApiTokenScope.CLUBS

    class InputSerializer(InputObject):
        one_of = OneOf(
            ("user", "username"),
            gettext_lazy("give at most one of 'user' or 'username'"),
            at_most=True,
        )

        role = serializers.ChoiceField(choices=Role.choices, default=Role.PLAYER)
        user = id_field(required=False)
        username = StrictCharField(required=False, max_length=150)

    @extend_schema(request=InputSerializer, responses=responses(InvitationSerializer, 201))
    def post(self, request: Request, club_id: int) -> Response:
        """A code to hand to someone, or with ``user``/``username`` a personal invitation."""
        club = club_get(club_id=club_id)
        data = validated(self.InputSerializer, request.data)
        invitee = _person_named(data) if "user" in data or "username" in data else None
        invitation = invitation_create(
            actor=request.user, club=club, role=data["role"], invitee=invitee
        )
        return Response(InvitationSerializer(invitation).data, status=201)


class InvitationListApi(APIView):
    """The personal invitations waiting for the caller's answer."""

    permission_classes = SIGNED_IN

    @extend_schema(responses=responses(InvitationSerializer(many=True)))
    def get(self, request: Request) -> Response:
        invitations = invitations_pending_for(user=request.user)
        return Response(InvitationSerializer(invitations, many=True).data)


class InvitationAcceptApi(APIView):
    token_scope = ApiTokenScope.CLUBS
    permission_classes = SIGNED_IN

    @extend_schema(request=None, responses=responses(MemberSerializer))
    def post(self, request: Request, code: str) -> Response:
        membership = invitation_accept(user=request.user, code=code)
        return Response(MemberSerializer(membership).data)


class InvitationDeclineApi(APIView):
    token_scope = ApiTokenScope.CLUBS
    permission_classes = SIGNED_IN

    @extend_schema(request=None, responses=responses(InvitationSerializer))
    def post(self, request: Request, code: str) -> Response:
        invitation = invitation_decline(user=request.user, code=code)
        return Response(InvitationSerializer(invitation).data)


nested_serializers_named(list(globals().values()))
