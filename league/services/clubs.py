"""Clubs, their members and invitations. Only owners and organisers change a club."""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta

from django.contrib.auth.models import AnonymousUser
from django.contrib.auth.models import User as Account
from django.db import IntegrityError, transaction
from django.utils import timezone

from league.errors import ConflictError, InvalidInputError, NotAllowedError, NotFoundError
from league.models import Club, Invitation, Membership, Role
from league.selectors import club_role_of

INVITATION_DAYS = 14
ORGANISING_ROLES = (Role.OWNER, Role.ORGANISER)

User = Account | AnonymousUser


def club_organiser_require(*, user: User, club: Club) -> None:
    """NotAllowedError unless ``user`` is an owner or organiser of ``club``."""
    if club_role_of(user=user, club=club) not in ORGANISING_ROLES:
        raise NotAllowedError(f"only the organisers of {club.name!r} may do this")


@transaction.atomic
def club_create(*, user: User, name: str, description: str = "") -> Club:
    """A new club, with its creator as its owner."""
    if not user.is_authenticated:
        raise NotAllowedError("log in to create a club")
    name = name.strip()
    if not name:
        raise InvalidInputError("name: may not be blank", errors={"name": ["may not be blank"]})
    if Club.objects.filter(name__iexact=name).exists():
        raise ConflictError(f"a club named {name!r} exists already")
    club = Club(name=name, description=description)
    club.full_clean()
    club.save()
    Membership.objects.create(club=club, user=user, role=Role.OWNER)
    return club


@transaction.atomic
def club_member_add(*, actor: User, club: Club, member: Account, role: str) -> Membership:
    """Add ``member`` with ``role``, or change the role of a member.

    Organisers add players; owners give any role.
    """
    club_organiser_require(user=actor, club=club)
    if role not in Role.values:
        raise InvalidInputError(f"role: {role!r} is not one of {', '.join(Role.values)}")
    if role != Role.PLAYER and club_role_of(user=actor, club=club) != Role.OWNER:
        raise NotAllowedError("only an owner may make organisers or owners")
    membership, created = Membership.objects.select_for_update().get_or_create(
        club=club, user=member, defaults={"role": role}
    )
    if not created and membership.role != role:
        if membership.role == Role.OWNER and not _other_owner_exists(membership):
            raise ConflictError("a club keeps at least one owner")
        membership.role = role
        membership.save(update_fields=["role"])
    return membership


def _other_owner_exists(membership: Membership) -> bool:
    return (
        Membership.objects.filter(club_id=membership.club_id, role=Role.OWNER)
        .exclude(pk=membership.pk)
        .exists()
    )


@transaction.atomic
def invitation_create(
    *, actor: User, club: Club, role: str = Role.PLAYER, now: datetime | None = None
) -> Invitation:
    """An invitation code to join ``club`` with ``role``; valid for INVITATION_DAYS."""
    club_organiser_require(user=actor, club=club)
    if role not in Role.values:
        raise InvalidInputError(f"role: {role!r} is not one of {', '.join(Role.values)}")
    if role != Role.PLAYER and club_role_of(user=actor, club=club) != Role.OWNER:
        raise NotAllowedError("only an owner may invite organisers or owners")
    now = now or timezone.now()
    assert isinstance(actor, Account)
    return Invitation.objects.create(
        club=club,
        code=secrets.token_urlsafe(18),
        role=role,
        created_by=actor,
        created_at=now,
        expires_at=now + timedelta(days=INVITATION_DAYS),
    )


@transaction.atomic
def invitation_accept(*, user: User, code: str, now: datetime | None = None) -> Membership:
    """Join the club of an invitation. An invitation is used once."""
    if not user.is_authenticated:
        raise NotAllowedError("log in to accept an invitation")
    assert isinstance(user, Account)
    now = now or timezone.now()
    invitation = Invitation.objects.select_for_update().filter(code=code).first()
    if invitation is None:
        raise NotFoundError("no such invitation")
    if invitation.accepted_at is not None:
        raise ConflictError("this invitation has been used already")
    if invitation.expires_at <= now:
        raise ConflictError("this invitation has expired")
    try:
        with transaction.atomic():
            membership = Membership.objects.create(
                club_id=invitation.club_id, user=user, role=invitation.role
            )
    except IntegrityError:
        raise ConflictError("you are a member of this club already") from None
    invitation.accepted_by = user
    invitation.accepted_at = now
    invitation.save(update_fields=["accepted_by", "accepted_at"])
    return membership
