"""WebSocket consumers: the browser side of the league's live updates.

The league announces changes through the channel layer: ``group_send("match-{id}", {"type":
"league.update", ...})`` when a match event is stored or a match finishes, and
``group_send("tournament-{id}", {"type": "league.update", ...})`` when a match of the
tournament finishes. These consumers join those groups and forward each message to the
browser as JSON: the message's own fields, its ``event`` ("update", "progress") becoming
the browser-side ``type`` (see ``browser_message``).

Messages carry no hidden information, so anyone may listen: ids and counts, and a match's
new events as anyone may see them (league.domain.public_events: the cards played, no dealt
card, no private action's card); the page then refetches what it may see through the HTTP
API.
"""

from __future__ import annotations

from typing import Any, ClassVar

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from league.models import Match
from league.services.presence import (
    presence_announce,
    presence_beat,
    presence_close,
    presence_open,
    table_presence,
)


class LeagueGroupConsumer(AsyncJsonWebsocketConsumer):
    """Joins the group "<prefix>-<id>" of the URL's id and forwards "league.update"."""

    group_prefix: ClassVar[str] = ""
    browser_type: ClassVar[str] = "update"
    group_name: str = ""

    async def connect(self) -> None:
        object_id = self.scope["url_route"]["kwargs"]["object_id"]
        self.group_name = f"{self.group_prefix}-{int(object_id)}"
        await self.channel_layer.group_add(self.group_name, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        if self.group_name:
            await self.channel_layer.group_discard(self.group_name, self.channel_name)

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        """The browser only listens; anything it sends is ignored."""

    async def league_update(self, event: dict[str, Any]) -> None:
        await self.send_json(browser_message(event, self.browser_type))


def browser_message(event: dict[str, Any], default_type: str) -> dict[str, Any]:
    """What the browser receives for a channel-layer ``league.update`` event.

    The league names the browser-side type in ``event`` (league/live_updates.py):
    ``{"type": "league.update", "event": "update", "match": 7, "event_index": 12}`` becomes
    ``{"type": "update", "match": 7, "event_index": 12}``.
    """
    inner = event.get("message")
    if isinstance(inner, dict):
        payload = dict(inner)
    else:
        payload = {key: value for key, value in event.items() if key not in ("type", "event")}
        if isinstance(event.get("event"), str):
            payload["type"] = event["event"]
    if payload.get("type") in (None, "league.update"):
        payload["type"] = default_type
    return payload


class MatchConsumer(LeagueGroupConsumer):
    """/ws/matches/{id}/: {"type": "update", "match": id, "event_index": n, "events": [...]}
    (``events`` when the league has them: league/live_updates.py), and who is at the table:
    {"type": "presence", "seats": [...]} (league.services.presence.table_presence) when the
    socket opens, whenever a seated person's socket opens or closes, and in answer to the
    page's heartbeat {"type": "here"}.

    The socket of a person seated at the match counts as their presence at the table (the
    session's person, never a number from the browser); a watcher's counts for nobody."""

    group_prefix = "match"
    browser_type = "update"
    seated: bool = False
    match_id: int = 0

    async def connect(self) -> None:
        await super().connect()
        self.match_id = match_id = int(self.scope["url_route"]["kwargs"]["object_id"])
        user = self.scope.get("user")
        if user is not None and user.is_authenticated:
            self.seated = await _presence_open(match_id, int(user.pk), self.channel_name)
        snapshot = await _presence_snapshot(match_id, announce=self.seated)
        if snapshot is not None:
            await self.send_json(snapshot)

    async def disconnect(self, code: int) -> None:
        if self.seated:
            await _presence_close(self.channel_name, self.match_id)
        await super().disconnect(code)

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        """The page's heartbeat, ``{"type": "here"}``: answered with who is at the table.
        Anything else is ignored."""
        if not isinstance(content, dict) or content.get("type") != "here":
            return
        if self.seated:
            await _presence_beat(self.channel_name)
        snapshot = await _presence_snapshot(self.match_id, announce=False)
        if snapshot is not None:
            await self.send_json(snapshot)


@database_sync_to_async
def _presence_open(match_id: int, user_id: int, channel: str) -> bool:
    return presence_open(match_id=match_id, user_id=user_id, channel=channel)


@database_sync_to_async
def _presence_beat(channel: str) -> None:
    presence_beat(channel=channel)


@database_sync_to_async
def _presence_close(channel: str, match_id: int) -> None:
    presence_close(channel=channel)
    presence_announce(match_id)


@database_sync_to_async
def _presence_snapshot(match_id: int, *, announce: bool) -> dict[str, Any] | None:
    """Who is at the table (None for no such match); ``announce``: tell every watcher."""
    match = Match.objects.select_related("tournament").filter(pk=match_id).first()
    if match is None:
        return None
    if announce:
        presence_announce(match_id)
    return table_presence(match=match)


class PersonConsumer(AsyncJsonWebsocketConsumer):
    """/ws/me/: the signed-in person's own group, ``person-{user_id}``: ``{"type": "counts"}``
    when their unread notices or the games awaiting their move may have changed (the page
    then refetches the counts). Nobody else's: the group is the session's person, never a
    number from the URL; a visitor's socket is refused."""

    group_name: str = ""

    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is None or not user.is_authenticated:
            await self.close()
            return
        self.group_name = f"person-{int(user.pk)}"
        await self.channel_layer.group_add(self.group_name, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        if self.group_name:
            await self.channel_layer.group_discard(self.group_name, self.channel_name)

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        """The browser only listens; anything it sends is ignored."""

    async def league_update(self, event: dict[str, Any]) -> None:
        await self.send_json(browser_message(event, "counts"))


class TournamentConsumer(LeagueGroupConsumer):
    """/ws/tournaments/{id}/: {"type": "progress", "finished": n, "total": m}."""

    group_prefix = "tournament"
    browser_type = "progress"
