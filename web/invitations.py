"""Joining a club with an invitation code: the web's side of the league's invitation service."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser


class InvitationError(Exception):
    """The code cannot be used; the message says why, for the person who typed it."""


@dataclass(frozen=True)
class JoinedClub:
    name: str
    url: str


def invitation_accept(*, user: AbstractBaseUser | AnonymousUser, code: str) -> JoinedClub:
    """Make ``user`` a member of the club that issued ``code``.

    Phase 1 of the web pages: the league's clubs are not there yet, so no code is known.
    """
    raise InvitationError(f"No club has the invitation code {code!r}.")
