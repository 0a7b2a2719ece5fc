"""What a bot's owner changes about the bot (docs/api.md, *Competitors and bots*): the game
families it plays and the standing consent for organisers of the owner's clubs to enter it.
A change of families asks the ladders' matchmaker for a pass: the bot joins the ladders of
its new families at once, and its versions stop being matched in those it left
(league.services.ladders matches only the bots of a ladder's family)."""

from __future__ import annotations

from collections.abc import Sequence

from django.contrib.auth.models import AnonymousUser
from django.contrib.auth.models import User as Account
from django.db import transaction
from django.utils.translation import gettext as _

from bots.models import Bot
from bots.services import bot_create, bot_families_set
from engine.variants import FAMILIES
from league.errors import InvalidInputError, NotAllowedError
from league.services.competitors import bot_entry_consent_set
from league.services.task_outbox import task_enqueue
from league.task_names import LADDERS_MATCHMAKE
from league.words.bot_families import families_missing, family_unknown

User = Account | AnonymousUser


def families_require(families: Sequence[str]) -> list[str]:
    """``families`` as an author named them, refused (InvalidInputError naming
    ``families``) when there is none or one the engine does not know."""
    for name in families:
        if name not in FAMILIES:
            message = family_unknown(name)
            raise InvalidInputError(f"families: {message}", errors={"families": [message]})
    if not families:
        message = families_missing()
        raise InvalidInputError(f"families: {message}", errors={"families": [message]})
    return list(families)


@transaction.atomic
def bot_settings_change(
    *,
    actor: User,
    bot: Bot,
    families: Sequence[str] | None = None,
    club_organisers_may_enter: bool | None = None,
    people_may_play_rated: bool | None = None,
) -> Bot:
    """The owner's changes (None: left as it is): the families it plays (one or more),
    the consent for organisers of the owner's clubs to enter it, and the consent for people
    to ask for rated games against its ladder versions (league.services.rated_games)."""
    if not actor.is_authenticated or bot.owner_id is None or bot.owner_id != actor.pk:
        raise NotAllowedError(_("only the bot's owner changes its families or who may enter it"))
    if families is not None:
        added, removed = bot_families_set(bot=bot, families=families_require(families))
        if added or removed:
            task_enqueue(LADDERS_MATCHMAKE)
    if club_organisers_may_enter is not None:
        bot_entry_consent_set(
            actor=actor, bot=bot, club_organisers_may_enter=club_organisers_may_enter
        )
    if people_may_play_rated is not None:
        bot.people_may_play_rated = people_may_play_rated
        bot.save(update_fields=["people_may_play_rated"])
    return bot


def bot_add(*, actor: User, name: str, families: Sequence[str]) -> Bot:
    """A bot of ``actor``'s playing ``families`` (one or more: ``families_require``)."""
    if not actor.is_authenticated:
        raise NotAllowedError(_("log in to create a bot"))
    assert isinstance(actor, Account)
    return bot_create(owner=actor, name=name, families=families_require(families))
