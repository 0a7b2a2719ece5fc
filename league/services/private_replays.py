"""A person's private replays: a game record uploaded to their own account, checked by the
engine (a record that is not one, or breaks the rules, is refused with the problem named),
kept for them alone (league/selectors/private_replays.py reads them for their owner only).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from django.contrib.auth.models import User as Account
from django.utils.translation import gettext as _

from engine.errors import EngineError
from engine.record import parse_record, verify_record
from engine.variants import load_game
from league.errors import InvalidInputError, NotAllowedError
from league.models import PrivateReplay

MAX_PRIVATE_REPLAY_BYTES = 4 * 1024 * 1024
"""The largest record a person may upload (a whole local match is some tens of KiB)."""
MAX_PRIVATE_REPLAYS = 200
"""The most private replays a person keeps; the oldest go first to make room."""
MAX_TITLE_CHARS = 200


def _refused(message: str, field: str = "record") -> InvalidInputError:
    return InvalidInputError(message, errors={field: [message]})


def _record_of(source: bytes | str | Mapping[str, Any]) -> dict[str, Any]:
    if isinstance(source, bytes | str):
        if len(source) > MAX_PRIVATE_REPLAY_BYTES:
            limit = MAX_PRIVATE_REPLAY_BYTES // (1024 * 1024)
            raise _refused(_("The record is larger than %(mib)s MiB.") % {"mib": limit})
    else:
        if len(json.dumps(source)) > MAX_PRIVATE_REPLAY_BYTES:
            limit = MAX_PRIVATE_REPLAY_BYTES // (1024 * 1024)
            raise _refused(_("The record is larger than %(mib)s MiB.") % {"mib": limit})
    try:
        record = parse_record(source)
    except EngineError as exc:
        raise _refused(_("This is not a game record: %(problem)s") % {"problem": exc}) from None
    verification = verify_record(record)
    if not verification.ok:
        raise _refused(
            _("The record breaks the game's rules: %(problem)s") % {"problem": verification.problem}
        )
    return record


def _default_title(record: Mapping[str, Any]) -> str:
    names = [
        str(seat.get("name") or seat.get("player") or f"seat {index}")
        for index, seat in enumerate(record["seats"])
    ]
    return f"{load_game(str(record['game']))}: {', '.join(names)}"[:MAX_TITLE_CHARS]


def private_replay_upload(
    *, owner: Account, source: bytes | str | Mapping[str, Any], title: str = ""
) -> PrivateReplay:
    """Keep ``source`` (a record: its JSON text, or parsed) as a private replay of ``owner``.

    Raises InvalidInputError naming the problem: too large, not a record, breaks the rules,
    a title too long."""
    if not owner.is_authenticated:
        raise NotAllowedError(_("Sign in to keep a replay."))
    title = title.strip()
    if len(title) > MAX_TITLE_CHARS:
        raise _refused(
            _("The title may be at most %(count)s characters.") % {"count": MAX_TITLE_CHARS},
            "title",
        )
    record = _record_of(source)
    replay = PrivateReplay.objects.create(
        owner=owner,
        title=title or _default_title(record),
        game=str(record["game"]),
        record=record,
    )
    kept = PrivateReplay.objects.filter(owner=owner).order_by("-created_at", "-id")
    old = list(kept.values_list("id", flat=True)[MAX_PRIVATE_REPLAYS:])
    if old:
        PrivateReplay.objects.filter(id__in=old).delete()
    return replay


def private_replay_delete(*, owner: Account, replay: PrivateReplay) -> None:
    if replay.owner_id != owner.pk:
        raise NotAllowedError(_("Only its owner may delete a replay."))
    replay.delete()
