"""Competitors: a person's account or a bot version, one competitor each, and the one rule
of consent for putting a competitor in a tournament or at a table (``entry_consent_require``;
docs/api.md, "Who may see and do what")."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.contrib.auth.models import User as Account
from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _

from bots.models import Bot, BotVersion
from bots.services import BotServiceError, builtin_version_get_or_create
from league.errors import InvalidInputError, NotAllowedError
from league.models import Club, Competitor
from league.selectors.competitors import bot_entry_allowed
from league.selectors.person_names import person_name

User = Account | AnonymousUser


def competitor_for_user(*, user: Account) -> Competitor:
    """The competitor of a person's account, created on first use."""
    competitor = Competitor.objects.filter(user_id=user.pk).first()
    if competitor is not None:
        return competitor
    try:
        with transaction.atomic():
            return Competitor.objects.create(user=user, name=person_name(user))
    except IntegrityError:
        return Competitor.objects.get(user_id=user.pk)


def competitor_for_bot_version(*, version: BotVersion) -> Competitor:
    """The competitor of a bot version, created on first use."""
    competitor = Competitor.objects.filter(bot_version=version).first()
    if competitor is not None:
        return competitor
    try:
        with transaction.atomic():
            return Competitor.objects.create(bot_version=version, name=version.label_for_league)
    except IntegrityError:
        return Competitor.objects.get(bot_version=version)


def competitor_builtin(
    *, name: str, options: dict[str, Any] | None = None, bot_name: str | None = None
) -> Competitor:
    """The competitor of a built-in bot (``builtin:NAME``), created on first use."""
    try:
        version = builtin_version_get_or_create(name=name, options=options, bot_name=bot_name)
    except BotServiceError as exc:
        raise InvalidInputError(str(exc)) from None
    return competitor_for_bot_version(version=version)


PERSON_NEEDS_INVITATION = (
    "seating another person needs their acceptance: invite them to the seat "
    "('invite:USERNAME', or an open seat anyone may take); you seat yourself ('me'), "
    "built-in bots and your own bots"
)


def entry_consent_require(*, actor: User, competitor: Competitor, club: Club | None) -> None:
    """NotAllowedError unless the competitor has agreed to be entered by ``actor`` in a
    tournament of ``club`` (None: seated at a casual table). The one rule, for every path
    that makes an entry or a seat (tournament_create, tournament_enter, league.services.tables):

    - a person enters (or sits down) themselves: nobody else may enter or seat them;
    - a bot as league.selectors.competitors.bot_entry_allowed says (which the pages ask
      too, to offer only what may be entered): a built-in bot needs no consent, an uploaded
      one is entered by its owner, or in a club's tournament by an organiser of that club
      when the owner is a member and has given standing consent.

    Whether ``actor`` may enter anyone in that tournament at all (a member or an organiser
    of the club) is the tournament's own check.
    """
    if competitor.user_id is not None:
        if actor.is_authenticated and competitor.user_id == actor.pk:
            return
        if club is None:
            raise NotAllowedError(PERSON_NEEDS_INVITATION)
        raise NotAllowedError(
            f"{competitor.name} enters themselves: entering another person needs their "
            "consent, so they enter the tournament on their own account"
        )
    version = competitor.bot_version
    assert version is not None  # a competitor is a person or a bot version
    bot = version.bot
    if bot_entry_allowed(actor=actor, bot=bot, club=club):
        return
    owner = bot.owner.get_username() if bot.owner is not None else "its owner"
    where = "at a table" if club is None else "in this tournament"
    raise NotAllowedError(
        _("%(name)s is %(owner)s's bot: only its owner enters it %(where)s")
        % {"name": competitor.name, "owner": owner, "where": where}
        + (
            ""
            if club is None
            else ", unless they are a member of the club and allow its organisers to enter it"
        )
    )


@transaction.atomic
def bot_entry_consent_set(*, actor: User, bot: Bot, club_organisers_may_enter: bool) -> Bot:
    """The owner's standing consent for organisers of the owner's clubs to enter ``bot``."""
    if not actor.is_authenticated or bot.owner_id is None or bot.owner_id != actor.pk:
        raise NotAllowedError(_("only the bot's owner decides who may enter it"))
    bot.club_organisers_may_enter = club_organisers_may_enter
    bot.save(update_fields=["club_organisers_may_enter"])
    return bot


def competitor_create(
    *, actor: User, user_id: int | None = None, bot_version_id: int | None = None
) -> Competitor:
    """The competitor for the caller's own account, or for an active bot version: a
    built-in's, the caller's own bot's, or a bot whose owner lets organisers of their clubs
    enter it (where it may be entered is ``entry_consent_require``'s to say)."""
    if not actor.is_authenticated:
        raise NotAllowedError(_("log in to create a competitor"))
    assert isinstance(actor, Account)
    if (user_id is None) == (bot_version_id is None):
        raise InvalidInputError(
            _("give exactly one of 'user' (your own account) or 'bot_version'"),
            errors={"non_field_errors": ["exactly one of user, bot_version"]},
        )
    if user_id is not None:
        if user_id != actor.pk and not getattr(actor, "is_staff", False):
            raise NotAllowedError(_("you may only create the competitor of your own account"))
        user = Account.objects.filter(pk=user_id).first()
        if user is None:
            raise InvalidInputError(
                _("user: no user %(user_id)s") % {"user_id": user_id},
                errors={"user": ["no such user"]},
            )
        return competitor_for_user(user=user)
    assert bot_version_id is not None
    version = BotVersion.objects.select_related("bot").filter(pk=bot_version_id).first()
    if version is None:
        raise InvalidInputError(
            _("bot_version: no bot version %(bot_version_id)s")
            % {"bot_version_id": bot_version_id},
            errors={"bot_version": ["not found"]},
        )
    bot = version.bot
    if bot.owner_id is not None and bot.owner_id != actor.pk and not bot.club_organisers_may_enter:
        raise NotAllowedError(_("only the bot's owner may enter its versions"))
    if version.status != BotVersion.Status.ACTIVE:
        raise InvalidInputError(
            f"bot_version: version {version.number} of {version.bot.name} is {version.status}, "
            "not active (it must pass its validation game first)"
        )
    return competitor_for_bot_version(version=version)
