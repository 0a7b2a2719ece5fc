"""Clubs, their members and invitations. Only owners and organisers change a club, and
nobody becomes a member but by their own act: accepting an invitation (a code, or a
personal invitation that only its invitee may accept or decline)."""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta

from django.contrib.auth.models import AnonymousUser
from django.contrib.auth.models import User as Account
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from league.display_settings import language_of
from league.errors import ConflictError, InvalidInputError, NotAllowedError, NotFoundError
from league.models import Club, Invitation, Membership, NotificationKind, Role
from league.selectors.clubs import club_role_of
from league.selectors.person_names import person_name
from league.services.chosen_names import chosen_name_check
from league.services.notifications import notify

INVITATION_DAYS = 14
ORGANISING_ROLES = (Role.OWNER, Role.ORGANISER)

User = Account | AnonymousUser


def club_organiser_require(*, user: User, club: Club) -> None:
    """NotAllowedError unless ``user`` is an owner or organiser of ``club``."""
    if club_role_of(user=user, club=club) not in ORGANISING_ROLES:
        raise NotAllowedError(
            _("only the organisers of %(repr)s may do this") % {"repr": repr(club.name)}
        )


@transaction.atomic
def club_create(*, user: User, name: str, description: str = "") -> Club:
    """A new club, with its creator as its owner."""
    if not user.is_authenticated:
        raise NotAllowedError(_("log in to create a club"))
    name = chosen_name_check(name.strip())
    if not name:
        raise InvalidInputError(_("name: may not be blank"), errors={"name": ["may not be blank"]})
    if Club.objects.filter(name__iexact=name).exists():
        raise ConflictError(_("a club named %(repr)s exists already") % {"repr": repr(name)})
    club = Club(name=name, description=description)
    club.full_clean()
    club.save()
    Membership.objects.create(club=club, user=user, role=Role.OWNER)
    return club


@transaction.atomic
def club_member_role_set(*, actor: User, club: Club, member: Account, role: str) -> Membership:
    """Change the role of a member of ``club``. Owners give any role; organisers may only
    make a player of a player (an organiser's or owner's role is the owners' to change).
    Nobody becomes a member this way: joining is the person's own act
    (``invitation_accept``), so a person who is not a member is a ConflictError (the API
    invites them instead: ``invitation_create`` with ``invitee``)."""
    club_organiser_require(user=actor, club=club)
    if role not in Role.values:
        raise InvalidInputError(
            _("role: %(repr)s is not one of %(join)s")
            % {"repr": repr(role), "join": ", ".join(Role.values)}
        )
    if role != Role.PLAYER and club_role_of(user=actor, club=club) != Role.OWNER:
        raise NotAllowedError(_("only an owner may make organisers or owners"))
    membership = Membership.objects.select_for_update().filter(club=club, user=member).first()
    if membership is None:
        raise ConflictError(
            f"{member.get_username()} is not a member of {club.name!r}; joining is their own "
            "act: invite them and they accept"
        )
    if membership.role != role:
        if membership.role != Role.PLAYER and club_role_of(user=actor, club=club) != Role.OWNER:
            raise NotAllowedError(_("only an owner may change the role of an organiser or owner"))
        if membership.role == Role.OWNER and not _other_owner_exists(membership):
            raise ConflictError(_("a club keeps at least one owner"))
        membership.role = role
        membership.save(update_fields=["role"])
    return membership


@transaction.atomic
def club_person_role_set(
    *, actor: User, club: Club, person: Account, role: str
) -> Membership | Invitation:
    """A member's new ``role`` (``club_member_role_set``); a person who is not a member is
    sent a personal invitation with ``role`` instead (``invitation_create``): joining is
    their own act."""
    if Membership.objects.filter(club=club, user=person).exists():
        return club_member_role_set(actor=actor, club=club, member=person, role=role)
    return invitation_create(actor=actor, club=club, role=role, invitee=person)


def _other_owner_exists(membership: Membership) -> bool:
    return (
        Membership.objects.filter(club_id=membership.club_id, role=Role.OWNER)
        .exclude(pk=membership.pk)
        .exists()
    )


@transaction.atomic
def invitation_create(
    *,
    actor: User,
    club: Club,
    role: str = Role.PLAYER,
    invitee: Account | None = None,
    now: datetime | None = None,
) -> Invitation:
    """An invitation to join ``club`` with ``role``, valid for INVITATION_DAYS: a code for
    whoever the organiser gives it to, or, with ``invitee``, a personal invitation that
    only that person may accept or decline (they see it in their list of invitations)."""
    club_organiser_require(user=actor, club=club)
    if role not in Role.values:
        raise InvalidInputError(
            _("role: %(repr)s is not one of %(join)s")
            % {"repr": repr(role), "join": ", ".join(Role.values)}
        )
    if role != Role.PLAYER and club_role_of(user=actor, club=club) != Role.OWNER:
        raise NotAllowedError(_("only an owner may invite organisers or owners"))
    now = now or timezone.now()
    assert isinstance(actor, Account)
    if invitee is not None:
        name = invitee.get_username()
        if Membership.objects.filter(club=club, user=invitee).exists():
            raise ConflictError(
                _("%(name)s is a member of %(repr)s already")
                % {"name": name, "repr": repr(club.name)}
            )
        pending = (
            Invitation.objects.select_for_update()
            .filter(club=club, invitee=invitee, accepted_at__isnull=True, declined_at__isnull=True)
            .first()
        )
        if pending is not None:
            if pending.expires_at > now:
                raise ConflictError(
                    _(
                        "%(name)s has been invited already (until %(until)s); they accept "
                        "or decline it in their invitations"
                    )
                    % {"name": name, "until": f"{pending.expires_at:%Y-%m-%d}"}
                )
            pending.delete()  # expired unanswered: a new invitation replaces it
    invitation = Invitation.objects.create(
        club=club,
        code=secrets.token_urlsafe(18),
        role=role,
        created_by=actor,
        created_at=now,
        expires_at=now + timedelta(days=INVITATION_DAYS),
        invitee=invitee,
    )
    if invitee is not None:
        with translation.override(language_of(user_id=int(invitee.pk))):  # the invitee's
            text = _("%(sender)s invites you to join the club %(club)s.") % {
                "sender": person_name(actor),
                "club": club.name,
            }
        notify(
            user=invitee,
            kind=NotificationKind.INVITED,
            key=f"club-invitation-{invitation.pk}",
            text=text,
            url=reverse("web:invitations"),
        )
    return invitation


def _invitation_for_answer(*, user: User, code: str, now: datetime) -> Invitation:
    """The invitation ``code``, locked, if ``user`` may answer it now."""
    if not user.is_authenticated:
        raise NotAllowedError(_("log in to answer an invitation"))
    invitation = Invitation.objects.select_for_update().filter(code=code).first()
    if invitation is None:
        raise NotFoundError(_("no such invitation"))
    if invitation.invitee_id is not None and invitation.invitee_id != user.pk:
        raise NotAllowedError(_("this invitation is for another person; only they may answer it"))
    if invitation.accepted_at is not None:
        raise ConflictError(_("this invitation has been used already"))
    if invitation.declined_at is not None:
        raise ConflictError(_("this invitation has been declined"))
    if invitation.expires_at <= now:
        raise ConflictError(_("this invitation has expired"))
    return invitation


@transaction.atomic
def invitation_accept(*, user: User, code: str, now: datetime | None = None) -> Membership:
    """Join the club of an invitation: the person's own act. An invitation is used once;
    a personal one only by its invitee."""
    now = now or timezone.now()
    invitation = _invitation_for_answer(user=user, code=code, now=now)
    assert isinstance(user, Account)
    try:
        with transaction.atomic():
            membership = Membership.objects.create(
                club_id=invitation.club_id, user=user, role=invitation.role
            )
    except IntegrityError:
        raise ConflictError(_("you are a member of this club already")) from None
    invitation.accepted_by = user
    invitation.accepted_at = now
    invitation.save(update_fields=["accepted_by", "accepted_at"])
    return membership


@transaction.atomic
def invitation_decline(*, user: User, code: str, now: datetime | None = None) -> Invitation:
    """Decline a personal invitation (its invitee only); it cannot be used afterwards."""
    now = now or timezone.now()
    invitation = _invitation_for_answer(user=user, code=code, now=now)
    if invitation.invitee_id is None:
        raise ConflictError(
            _("only a personal invitation is declined; ignore a code you do not want")
        )
    invitation.declined_at = now
    invitation.save(update_fields=["declined_at"])
    return invitation
