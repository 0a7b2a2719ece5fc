"""Live updates for open pages, pushed through the Channels layer when the transaction
commits (a person's notices, kept in the database and mailed, are league.services.notifications).

Groups and messages (the web side's consumers forward them to the browser):

- ``match-{id}``: ``{"type": "league.update", "event": "update", "match": id,
  "event_index": n}`` whenever events of the match are stored or it finishes;
- ``tournament-{id}``: ``{"type": "league.update", "event": "progress", "tournament": id,
  "finished": n, "total": m}`` whenever a match of the tournament finishes.

A notification that cannot be sent is logged and dropped: the database is the truth and
clients refetch.
"""

from __future__ import annotations

import logging
from typing import Any

from django.db import transaction

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from league.selectors import tournament_progress

logger = logging.getLogger(__name__)


def group_send(group: str, message: dict[str, Any]) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(group, message)
    except Exception:  # a notification must never break a match
        logger.warning("could not notify %s", group, exc_info=True)


def match_updated(match_id: int, event_index: int) -> None:
    """Tell the match's watchers, once the transaction commits."""
    message = {
        "type": "league.update",
        "event": "update",
        "match": match_id,
        "event_index": event_index,
    }
    transaction.on_commit(lambda: group_send(f"match-{match_id}", message))


def tournament_progressed(tournament_id: int) -> None:
    """Tell the tournament's watchers how many of its matches are finished."""

    def send() -> None:
        progress = tournament_progress(tournament_id=tournament_id)
        group_send(
            f"tournament-{tournament_id}",
            {"type": "league.update", "event": "progress", "tournament": tournament_id, **progress},
        )

    transaction.on_commit(send)
