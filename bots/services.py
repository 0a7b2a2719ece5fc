"""Writes of the bots app: bots, uploaded versions and their validation, built-in versions.

An upload is checked at once (bots.bundle: size, its runtime and entry file; the runtime
installed here: bots.runner.runtimes); it is
stored as a ``pending`` version and a validation game in the sandbox against built-in
bots decides whether it becomes ``active`` (no fault) or ``rejected`` (the report says
why). A version whose own code failed at every decision (its helper module, kingbot,
played each move for it) is rejected too. Built-in versions (``builtin:NAME`` with
options) are created on demand.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from bots.bundle import BotBundle, BotBundleError, bot_bundle_check, bundle_kind
from bots.direction_controls import direction_controls_in, direction_controls_refused_message
from bots.match import BotSpec, match_play
from bots.models import Bot, BotFamily, BotFault, BotVersion
from bots.runner.runtimes import runtime_unavailable_reason
from bots.runner.sandbox import SandboxUnavailableError
from bots.seats import Outcome, SeatReport, builtin_names
from bots.untrusted_text import storable_text
from engine.errors import InvalidGameError
from engine.variants import FAMILIES, load_game


def validation_game(families: Sequence[str]) -> str:
    """The game a new version plays to be validated: the short game
    (engine.game.Game.short_game) of the first of its bot's families in the registry's
    order, or the first registered family's for a bot of no family (one stored before
    families were required)."""
    played = [game for name, game in FAMILIES.items() if name in families]
    if not played and families:  # a family no longer registered: refused when it loads
        return families[0]
    return (played or list(FAMILIES.values()))[0].short_game_string()


FAMILIES_MISSING = "families: name the game families the bot plays, one or more of %(known)s"
"""How a bot of no family is refused (league.words.bot_families says it to people)."""


def families_checked(families: Iterable[str]) -> list[str]:
    """The game families named, each once, in the registry's order; BotServiceError for
    none (``FAMILIES_MISSING``) or an unknown one."""
    named = set(families)
    unknown = sorted(named - set(FAMILIES))
    if unknown:
        raise BotServiceError(
            f"families: unknown game family {unknown[0]!r} (known: {', '.join(FAMILIES)})"
        )
    if not named:
        raise BotServiceError(FAMILIES_MISSING % {"known": ", ".join(FAMILIES)})
    return [name for name in FAMILIES if name in named]


VALIDATION_SEED = 1
BOT_FAULT_LOG_CHARS = 64 * 1024
"""How much of a bot's stderr a fault of its validation game keeps (the end)."""
BOT_FAULT_MESSAGE_CHARS = 1000
REPORT_LOG_CHARS = 4000
"""How much of a bot's stderr the validation report keeps (the end)."""


class BotServiceError(ValueError):
    """A request about bots that cannot be carried out; the message says why."""


@transaction.atomic
def bot_create(*, owner: User, name: str, families: Sequence[str]) -> Bot:
    """An uploaded bot of ``owner`` playing ``families`` (one or more: ``families_checked``)."""
    name = name.strip()
    if not name:
        raise BotServiceError("name: may not be blank")
    if found := direction_controls_in(name):
        raise BotServiceError(f"name: {direction_controls_refused_message(found)}")
    checked = families_checked(families)
    if Bot.objects.filter(owner=owner, name=name).exists():
        raise BotServiceError(f"you have a bot named {name!r} already")
    bot = Bot(owner=owner, name=name, kind=Bot.Kind.UPLOADED)
    bot.full_clean()
    bot.save()
    BotFamily.objects.bulk_create(BotFamily(bot=bot, family=family) for family in checked)
    return bot


@transaction.atomic
def bot_families_set(*, bot: Bot, families: Sequence[str]) -> tuple[list[str], list[str]]:
    """The bot plays ``families`` from now on (``families_checked``); the families added
    and those removed. Who may change them is the caller's to check."""
    checked = families_checked(families)
    before = set(bot.families.values_list("family", flat=True))
    removed = sorted(before - set(checked))
    added = [family for family in checked if family not in before]
    bot.families.filter(family__in=removed).delete()
    BotFamily.objects.bulk_create(BotFamily(bot=bot, family=family) for family in added)
    return added, removed


def bot_version_store(
    *, owner: User, bot: Bot, filename: str, data: bytes, runtime: str | None = None
) -> BotVersion:
    """Store a checked upload as the bot's next version, pending its validation game.

    ``runtime`` is the uploader's choice (bots.runtimes); None or "" recognises it from
    the files (the version's ``runtime`` shows what was settled). A runtime this server
    cannot run is refused here, naming what to install, never at match time.

    Sending the validation task is the caller's: the league sends it through its task
    outbox in the same transaction (league.services.bot_versions.bot_version_submit), so an
    upload is never left pending for want of a broker; tests call
    ``bot_version_validate`` directly."""
    if bot.owner_id != owner.pk:
        raise BotServiceError("only the bot's owner may upload its versions")
    try:
        bundle = bot_bundle_check(filename, data, runtime)
    except BotBundleError as exc:
        raise BotServiceError(str(exc)) from None
    missing = runtime_unavailable_reason(bundle.runtime)
    if missing is not None:
        raise BotServiceError(f"the {bundle.runtime} runtime is not installed here: {missing}")
    with transaction.atomic():
        Bot.objects.select_for_update().filter(pk=bot.pk).first()
        number = (bot.versions.aggregate(top=Max("number"))["top"] or 0) + 1
        return BotVersion.objects.create(
            bot=bot,
            number=number,
            filename=bundle.filename,
            runtime=bundle.runtime,
            code=bundle.data,
            sha256=hashlib.sha256(bundle.data).hexdigest(),
            size=len(bundle.data),
            status=BotVersion.Status.PENDING,
            report={"structure": "ok", "game": "pending"},
        )


def bot_version_bundle(version: BotVersion) -> BotBundle:
    if version.is_builtin:
        raise BotServiceError(f"{version} is a built-in bot")
    code = bytes(version.code)
    return BotBundle(
        version.filename, bundle_kind(version.filename, code) or "py", code, version.runtime
    )


def bot_version_validate(*, version_id: int) -> BotVersion | None:
    """Play the validation game of a pending version and activate or reject it.

    The uploaded bot plays seat 0 in the sandbox against built-in greedy bots; it becomes
    active when it finishes without any fault, else rejected, with a BotFault (no match
    id) for each fault. Where the sandbox is missing the version stays pending and its
    report says what to install. Idempotent: a version that is no longer pending is left
    as it is.
    """
    version = BotVersion.objects.select_related("bot").filter(pk=version_id).first()
    if version is None or version.status != BotVersion.Status.PENDING:
        return version
    game = validation_game(version.bot.family_names)
    report: dict[str, Any] = {"structure": "ok", "game": game}
    fallbacks: int | None = None
    try:
        seats = load_game(game).num_seats
        result = match_play(
            game,
            [BotSpec.uploaded(bot_version_bundle(version), label=version.label)]
            + [BotSpec.builtin("greedy")] * (seats - 1),
            seed=VALIDATION_SEED,
        )
    except SandboxUnavailableError as exc:
        # not the bot's fault: it stays pending, and a later run of the task validates it
        report["problem"] = str(exc)
        BotVersion.objects.filter(pk=version.pk, status=BotVersion.Status.PENDING).update(
            report=report
        )
        version.refresh_from_db()
        return version
    except (InvalidGameError, ValueError) as exc:
        report["problem"] = str(exc)
        status = BotVersion.Status.REJECTED
        faults: list[BotFault] = []
    else:
        seat = result.seats[0]
        report["outcome"] = seat.outcome.value
        report["faults"] = [fault.to_json() for fault in seat.faults]
        report["log"] = storable_text(seat.log, limit=REPORT_LOG_CHARS, keep="end")
        report["scores"] = result.scores
        fallbacks = seat.fallbacks
        report["fallbacks"] = {
            "count": seat.fallbacks,
            "decisions": seat.decisions,
            "reasons": seat.fallback_reasons,
        }
        status = (
            BotVersion.Status.ACTIVE if seat.outcome is Outcome.OK else BotVersion.Status.REJECTED
        )
        if status == BotVersion.Status.REJECTED:
            report["problem"] = f"the validation game ended with {seat.outcome.value}"
        elif own_code_never_decided(seat):
            status = BotVersion.Status.REJECTED
            report["problem"] = fallbacks_problem(seat)
        elif seat.fallbacks:
            report["problem"] = fallbacks_problem(seat)
        faults = [
            bot_fault_row(
                version=version,
                match_id=None,
                seat=0,
                cause=fault.cause.value,
                message=fault.message,
                log=seat.log,
            )
            for fault in seat.faults
        ]
    json.dumps(report)  # the report must be JSON
    with transaction.atomic():
        updated = BotVersion.objects.filter(pk=version.pk, status=BotVersion.Status.PENDING).update(
            status=status,
            report=report,
            validated_at=timezone.now(),
            validation_fallbacks=fallbacks,
        )
        if updated and faults:
            BotFault.objects.bulk_create(faults)
    version.refresh_from_db()
    return version


def own_code_never_decided(seat: SeatReport) -> bool:
    """Whether the helper module (bots/sdk/kingbot.py) played every decision of the seat
    for the bot's own code, which failed each time (it raised, or answered something not
    legal): the version has not shown that its code can play."""
    return seat.decisions > 0 and seat.replaced_at is None and seat.fallbacks >= seat.decisions


def fallbacks_problem(seat: SeatReport) -> str:
    """What the report tells the author about the moves kingbot played for the code."""
    reason = seat.fallback_reasons[0] if seat.fallback_reasons else "no reason given"
    if own_code_never_decided(seat):
        return (
            f"your code failed at every one of its {seat.decisions} decisions: the helper "
            f"module kingbot played the first legal action for it each time (first: {reason}); "
            "the output below has the tracebacks"
        )
    return (
        f"the helper module kingbot played {seat.fallbacks} of the {seat.decisions} "
        f"decisions for your code, which failed at them (first: {reason})"
    )


def bot_fault_row(
    *,
    version: BotVersion,
    match_id: int | None,
    seat: int | None,
    cause: str,
    message: str,
    log: str,
) -> BotFault:
    """A BotFault (unsaved) whose text, the bot's own (its answers, its stderr), can be
    stored in any database: NUL and lone surrogates escaped, lengths capped."""
    return BotFault(
        version=version,
        match_id=match_id,
        seat=seat,
        cause=cause,
        message=storable_text(message, limit=BOT_FAULT_MESSAGE_CHARS),
        log=storable_text(log, limit=BOT_FAULT_LOG_CHARS, keep="end"),
    )


@transaction.atomic
def builtin_version_get_or_create(
    *, name: str, options: dict[str, Any] | None = None, bot_name: str | None = None
) -> BotVersion:
    """The built-in bot ``bot_name`` (default ``name``) playing ``bots.builtin`` player
    ``name`` with ``options``: one bot, one version, created on first use."""
    if name not in builtin_names():
        known = ", ".join(f"builtin:{n}" for n in builtin_names())
        raise BotServiceError(f"unknown built-in bot {name!r} (known: {known})")
    bot, _ = Bot.objects.get_or_create(
        name=bot_name or name, kind=Bot.Kind.BUILTIN, defaults={"owner": None}
    )
    version = bot.versions.order_by("number").first()
    if version is None:
        version = BotVersion.objects.create(
            bot=bot,
            number=1,
            kind=BotVersion.Kind.BUILTIN,
            builtin_name=name,
            options=options or {},
            status=BotVersion.Status.ACTIVE,
            report={"builtin": True},
        )
    return version
