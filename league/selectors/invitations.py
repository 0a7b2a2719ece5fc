"""The invitations waiting for a person's answer, of every kind (a club's personal
invitation, a seat kept for them at a table), for the home page: what someone asked of
them comes first, before anything to read."""

from __future__ import annotations

from typing import Any

from django.urls import reverse

from engine.variants import load_game
from league.models import MatchStatus, SeatInvitation
from league.selectors.clubs import invitations_pending_for
from league.selectors.person_names import person_name
from league.words.games_and_times import game_name_words


def invitations_waiting_for(*, user: Any) -> list[dict[str, Any]]:
    """Each invitation waiting for ``user``: ``kind`` (``club`` or ``table``), who sent it,
    what it is for (a club's name, a table's game) and where to answer it; newest first."""
    if not user.is_authenticated:
        return []
    waiting: list[dict[str, Any]] = [
        {
            "kind": "club",
            "sender": person_name(invitation.created_by),
            "subject": invitation.club.name,
            "url": reverse("web:invitations"),
            "created_at": invitation.created_at,
        }
        for invitation in invitations_pending_for(user=user)
    ]
    seats = (
        SeatInvitation.objects.filter(
            invitee_id=user.pk,
            accepted_at__isnull=True,
            declined_at__isnull=True,
            cancelled_at__isnull=True,
            match__status=MatchStatus.WAITING,
        )
        .select_related("match", "created_by__account_settings")
        .order_by("-created_at")
    )
    waiting += [
        {
            "kind": "table",
            "sender": person_name(seat.created_by),
            "subject": game_name_words(load_game(seat.match.game).display_name),
            "url": reverse("web:table-invitation", args=[seat.code]),
            "created_at": seat.created_at,
        }
        for seat in seats
    ]
    return sorted(waiting, key=lambda item: item["created_at"], reverse=True)
