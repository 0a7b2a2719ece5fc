"""The reads of competitors (a person's account or a bot version, one competitor each): the
list, look-ups by id, and whether a bot may be entered by a person (``bot_entry_allowed``,
the consent rule league.services.competitors.entry_consent_require refuses by).
"""

from __future__ import annotations

from collections.abc import Iterable

from django.contrib.auth.models import AnonymousUser
from django.contrib.auth.models import User as Account
from django.db.models import QuerySet

from bots.models import Bot
from league.models import Club, Competitor, Role
from league.selectors.clubs import club_role_of

User = Account | AnonymousUser


def competitor_list(*, kind: str | None = None) -> QuerySet[Competitor]:
    """Every competitor by name; ``kind`` "person" or "bot" keeps only those."""
    competitors = Competitor.objects.order_by("name", "id")
    if kind == "person":
        competitors = competitors.filter(user__isnull=False)
    elif kind == "bot":
        competitors = competitors.filter(bot_version__isnull=False)
    return competitors


def competitor_find(*, competitor_id: int) -> Competitor | None:
    return Competitor.objects.select_related("bot_version__bot").filter(pk=competitor_id).first()


def competitors_find(*, competitor_ids: Iterable[int]) -> list[Competitor]:
    """The competitors of these ids that exist (a missing id is simply not there)."""
    return list(Competitor.objects.filter(pk__in=list(competitor_ids)))


def bot_entry_allowed(*, actor: User, bot: Bot, club: Club | None) -> bool:
    """Whether ``actor`` may enter ``bot`` in a tournament of ``club`` (None: seat it at a
    casual table): a built-in bot belongs to nobody; an uploaded bot is entered by its
    owner, or in a club's tournament by an owner or organiser of that club when the bot's
    owner is a member and allows it (``Bot.club_organisers_may_enter``; off by default)."""
    if bot.kind == Bot.Kind.BUILTIN or bot.owner_id is None:
        return True
    if actor.is_authenticated and bot.owner_id == actor.pk:
        return True
    return (
        club is not None
        and bot.club_organisers_may_enter
        and club_role_of(user=actor, club=club) in (Role.OWNER, Role.ORGANISER)
        and bot.owner is not None
        and club_role_of(user=bot.owner, club=club) is not None
    )
