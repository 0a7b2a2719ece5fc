"""The reads of clubs: the list, one club with its member count, a person's role in a
club, its members, and the invitations to join one (docs/league.md). ``invitation_preview``
says what league.services.clubs.invitation_accept would, without writing anything.
"""

from __future__ import annotations

from datetime import datetime

from django.contrib.auth.models import AnonymousUser
from django.contrib.auth.models import User as Account
from django.db.models import Count, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from league.errors import NotFoundError
from league.models import (
    Club,
    Invitation,
    Membership,
)

User = Account | AnonymousUser


def club_role_of(*, user: User, club: Club) -> str | None:
    if not user.is_authenticated:
        return None
    return (
        Membership.objects.filter(club=club, user_id=user.pk).values_list("role", flat=True).first()
    )


def invitation_preview(
    *, user: User, code: str, now: datetime | None = None
) -> tuple[Invitation | None, str]:
    """The invitation ``code`` (with its club) as a person sees it before answering it,
    and why they could not use it (empty: they can); (None, why) for an unknown code.
    Says what league.services.clubs.invitation_accept would, without writing anything."""
    invitation = (
        Invitation.objects.filter(code=code).select_related("club", "created_by").first()
        if code
        else None
    )
    if invitation is None:
        return None, "no such invitation"
    if invitation.invitee_id is not None and invitation.invitee_id != user.pk:
        return invitation, "this invitation is for another person; only they may answer it"
    if invitation.accepted_at is not None:
        return invitation, "this invitation has been used already"
    if invitation.declined_at is not None:
        return invitation, "this invitation has been declined"
    if invitation.expires_at <= (now or timezone.now()):
        return invitation, "this invitation has expired"
    if club_role_of(user=user, club=invitation.club) is not None:
        return invitation, "you are a member of this club already"
    return invitation, ""


def invitations_pending_for(*, user: User, now: datetime | None = None) -> QuerySet[Invitation]:
    """The personal invitations waiting for ``user``'s answer, newest first."""
    if not user.is_authenticated:
        return Invitation.objects.none()
    return (
        Invitation.objects.filter(
            invitee_id=user.pk,
            accepted_at__isnull=True,
            declined_at__isnull=True,
            expires_at__gt=now or timezone.now(),
        )
        .select_related("club", "created_by__account_settings", "invitee")
        .order_by("-created_at", "-id")
    )


def club_list() -> QuerySet[Club]:
    return Club.objects.annotate(member_count=Count("memberships")).order_by("name")


def club_get(*, club_id: int) -> Club:
    club = club_list().filter(pk=club_id).first()
    if club is None:
        raise NotFoundError(_("no club %(club_id)s") % {"club_id": club_id})
    return club


def club_find(*, club_id: int) -> Club | None:
    return Club.objects.filter(pk=club_id).first()


def club_member_list(*, club: Club, by_role: bool = False) -> QuerySet[Membership]:
    """A club's members with their accounts, as they joined (or by role, then username)."""
    order = ("role", "user__username") if by_role else ("id",)
    return Membership.objects.filter(club=club).select_related("user").order_by(*order)
