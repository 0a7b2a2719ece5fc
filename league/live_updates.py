"""Live updates for open pages, pushed through the Channels layer when the transaction
commits (a person's notices, kept in the database and mailed, are league.services.notifications).

Groups and messages (the web side's consumers forward them to the browser):

- ``match-{id}``: ``{"type": "league.update", "event": "update", "match": id,
  "event_index": n, "events": [...]}`` whenever events of the match are stored or it
  finishes; ``events`` (when the sender has them, at most
  league.domain.public_events.EVENTS_MAX) are the new events as anyone may see them (no
  dealt card, no private action's card), so that a table's pages draw a card at once;
- ``tournament-{id}``: ``{"type": "league.update", "event": "progress", "tournament": id,
  "finished": n, "total": m}`` whenever a match of the tournament finishes;
- ``person-{user_id}``: ``{"type": "league.update", "event": "counts"}`` whenever what the
  navigation bar counts for that person may have changed (a notice written or read, a game
  that starts or stops waiting for their move); only that person's socket joins the group.

A notification that cannot be sent is logged and dropped: the database is the truth and
clients refetch.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import Any

from django.db import transaction

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from league.person_counts import person_counts_moved_on
from league.selectors.tournaments import tournament_progress

logger = logging.getLogger(__name__)
_person_pending = threading.local()
"""The people to tell when the current transaction commits (per thread)."""


def group_send(group: str, message: dict[str, Any]) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(group, message)
    except Exception:  # a notification must never break a match
        logger.warning("could not notify %s", group, exc_info=True)


def match_updated(
    match_id: int, event_index: int, events: list[dict[str, Any]] | None = None
) -> None:
    """Tell the match's watchers, once the transaction commits; ``events``: the public
    events up to ``event_index`` (league.domain.public_events), when the sender has them."""
    message: dict[str, Any] = {
        "type": "league.update",
        "event": "update",
        "match": match_id,
        "event_index": event_index,
    }
    if events is not None:
        message["events"] = events
    # The people told of this transaction (person_updated) go in the same hop: they were
    # all named before the commit that runs this.
    transaction.on_commit(
        lambda: groups_send([(f"match-{match_id}", message), *_persons_messages()])
    )


def groups_send(messages: list[tuple[str, dict[str, Any]]]) -> None:
    """Send several groups their messages in one hop to the Channels layer, the sends
    running together (one wait for Redis instead of one per message)."""
    layer = get_channel_layer()
    if layer is None or not messages:
        return

    async def send_all() -> list[BaseException | None]:
        return await asyncio.gather(
            *(layer.group_send(group, message) for group, message in messages),
            return_exceptions=True,
        )

    try:
        outcomes = async_to_sync(send_all)()
    except Exception:  # a notification must never break a match
        logger.warning("could not notify %d groups", len(messages), exc_info=True)
        return
    for (group, _), outcome in zip(messages, outcomes, strict=True):
        if isinstance(outcome, BaseException):
            logger.warning("could not notify %s", group, exc_info=outcome)


def match_finished(
    *, match_id: int, tournament_id: int, event_index: int, events: list[dict[str, Any]] | None
) -> None:
    """A match's end, once the transaction commits: its watchers get its last events and
    the tournament's its progress, in one hop (``groups_send``)."""
    update: dict[str, Any] = {
        "type": "league.update",
        "event": "update",
        "match": match_id,
        "event_index": event_index,
    }
    if events is not None:
        update["events"] = events

    def send() -> None:
        progress = tournament_progress(tournament_id=tournament_id)
        groups_send(
            [
                (f"match-{match_id}", update),
                (
                    f"tournament-{tournament_id}",
                    {
                        "type": "league.update",
                        "event": "progress",
                        "tournament": tournament_id,
                        **progress,
                    },
                ),
            ]
        )

    transaction.on_commit(send)


def tournament_progressed(tournament_id: int) -> None:
    """Tell the tournament's watchers how many of its matches are finished."""

    def send() -> None:
        progress = tournament_progress(tournament_id=tournament_id)
        group_send(
            f"tournament-{tournament_id}",
            {"type": "league.update", "event": "progress", "tournament": tournament_id, **progress},
        )

    transaction.on_commit(send)


def person_updated(user_id: int) -> None:
    """Tell a person's open pages that their counts (unread notices, games awaiting their
    move) may have changed, once the transaction commits; the pages refetch them, and the
    counts kept in the cache for their pages' header are counted again
    (league.person_counts). Several
    calls in one transaction send one message per person (the first callback sends them
    all; the others find nothing left)."""
    pending: set[int] = getattr(_person_pending, "ids", None) or set()
    pending.add(user_id)
    _person_pending.ids = pending
    transaction.on_commit(_persons_send, robust=True)


def _persons_send() -> None:
    groups_send(_persons_messages())


def _persons_messages() -> list[tuple[str, dict[str, Any]]]:
    """The messages to the people named since the last send (taken: the next finds none)."""
    ids: set[int] = getattr(_person_pending, "ids", None) or set()
    _person_pending.ids = set()
    person_counts_moved_on(ids)  # before the pages refetch: the header's counts anew
    return [
        (f"person-{user_id}", {"type": "league.update", "event": "counts"})
        for user_id in sorted(ids)
    ]
