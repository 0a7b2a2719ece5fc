"""Joining a club with an invitation code: the web's side of the league's invitation service."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser
from django.urls import reverse

from league.errors import LeagueError
from league.services.clubs import invitation_accept as league_invitation_accept


class InvitationError(Exception):
    """The code cannot be used; the message says why, for the person who typed it."""


@dataclass(frozen=True)
class JoinedClub:
    name: str
    url: str


def invitation_accept(*, user: AbstractBaseUser | AnonymousUser, code: str) -> JoinedClub:
    """Make ``user`` a member of the club that issued ``code`` (league.services.clubs)."""
    code = code.strip().rstrip("/").rsplit("/", 1)[-1]  # a pasted link works too
    try:
        membership = league_invitation_accept(user=user, code=code)  # type: ignore[arg-type]
    except LeagueError as exc:
        message = exc.detail
        raise InvitationError(message[:1].upper() + message[1:] + ".") from None
    club = membership.club
    return JoinedClub(name=club.name, url=reverse("web:club", args=[club.pk]))
