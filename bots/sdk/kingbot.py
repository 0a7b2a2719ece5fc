"""kingbot: a small helper for King League bots (standard library only).

Install it (``pip install ./bots/sdk`` from the league's repository: the distribution
``king-league-kingbot``, whose major version is the protocol's) to run your bot on your
machine; in the league just ``import kingbot``: the sandbox puts its own copy on the path
of every Python bot it runs, so an upload needs nothing more. The protocol it speaks is in
docs/bot-protocol.md; you can also write it by hand in twenty lines.

    import kingbot

    def choose(request: kingbot.Request) -> str:
        return request.legal[0]          # one of the legal action strings

    kingbot.run(choose)

``run`` answers ``hello`` with ``ready``, calls ``choose`` once per request and writes its
answer, and returns at ``end`` (or when its input ends). If ``choose`` raises or returns
something that is not a legal action, ``run`` prints the error to stderr (which the league
keeps for you) and plays the first legal action instead, so one bug costs one move rather
than the match; pass ``safe=False`` to let the error end the bot. Such an answer carries
``"fallback"`` (why) so the league knows the move was not your code's: a version whose
code fails at every decision of its validation game is rejected, and says why.

Cards are two-character strings: rank ``23456789TJQKA`` then suit ``CDHS`` (``"QS"``,
``"TH"``); actions are strings such as ``"play QS"``, ``"trump H"``, ``"pass"``.
"""

from __future__ import annotations

import json
import sys
import traceback
from collections.abc import Callable
from typing import IO, Any

PROTOCOL_VERSION = 1
__version__ = "1.0.0"
"""The distribution's version (bots/sdk/pyproject.toml); its major number is the protocol's."""
RANKS = "23456789TJQKA"
SUITS = "CDHS"


def rank(card: str) -> int:
    """0 for a two ... 12 for an ace."""
    return RANKS.index(card[0])


def suit(card: str) -> str:
    return card[1]


def card_of(action: str) -> str | None:
    """The card of a ``play`` action (``"play QS"`` -> ``"QS"``), else None."""
    verb, _, argument = action.partition(" ")
    return argument if verb == "play" else None


def winning_card(trick: list[str], trump: str | None) -> str | None:
    """The card that wins ``trick`` so far (the first card was led), or None if empty."""
    if not trick:
        return None
    best = trick[0]
    for card in trick[1:]:
        if beats(card, best, trick[0][1], trump):
            best = card
    return best


def beats(card: str, best: str, led: str, trump: str | None) -> bool:
    """Whether ``card`` beats the winning card ``best`` of a trick whose led suit is ``led``."""
    if card[1] == best[1]:
        return rank(card) > rank(best)
    return trump is not None and card[1] == trump


class Request:
    """One decision: the seat's view, its legal actions and its time."""

    def __init__(self, message: dict[str, Any], hello: dict[str, Any]) -> None:
        self.message = message
        self.hello = hello
        self.id: int = message["id"]
        self.view: dict[str, Any] = message["view"]
        self.legal: list[str] = message["legal"]
        time = message.get("time", {})
        self.move_ms: int = time.get("move_ms", 0)
        self.bank_ms: int = time.get("bank_ms", 0)

    @property
    def seat(self) -> int:
        return int(self.view["seat"])

    @property
    def game(self) -> str:
        return str(self.view["game"])

    @property
    def phase(self) -> str:
        return str(self.view["phase"])

    @property
    def hand(self) -> list[str]:
        return list(self.view["hand"])

    @property
    def trick(self) -> list[str]:
        """Cards of the current trick in play order (the first was led)."""
        return list(self.view["trick"])

    @property
    def trump(self) -> str | None:
        trump = self.view.get("trump")
        return str(trump) if trump else None

    @property
    def contract(self) -> str:
        return str(self.view.get("contract", ""))

    @property
    def playable_cards(self) -> list[str]:
        """The cards among the legal actions (empty when the decision is not a card)."""
        return [c for c in map(card_of, self.legal) if c is not None]


Chooser = Callable[[Request], str]


def run(
    choose: Chooser,
    *,
    on_hello: Callable[[dict[str, Any]], None] | None = None,
    on_end: Callable[[dict[str, Any]], None] | None = None,
    safe: bool = True,
    stdin: IO[str] | None = None,
    stdout: IO[str] | None = None,
) -> None:
    """Speak the protocol on stdin/stdout until the match ends."""
    source = stdin if stdin is not None else sys.stdin
    sink = stdout if stdout is not None else sys.stdout
    hello: dict[str, Any] = {}
    for line in source:
        if not line.strip():
            continue
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            hello = message
            if message.get("protocol") != PROTOCOL_VERSION:
                log(f"kingbot speaks protocol {PROTOCOL_VERSION}, got {message.get('protocol')}")
            if on_hello is not None:
                on_hello(message)
            answer: dict[str, Any] = {"type": "ready"}
        elif kind == "request":
            request = Request(message, hello)
            action, fallback = _decide(choose, request, safe)
            answer = {"id": request.id, "action": action}
            if fallback is not None:
                answer["fallback"] = fallback
        elif kind == "end":
            if on_end is not None:
                on_end(message)
            return
        else:
            continue  # a message of a later protocol version: ignore it
        sink.write(json.dumps(answer) + "\n")
        sink.flush()


def _decide(choose: Chooser, request: Request, safe: bool) -> tuple[str, str | None]:
    """The action to answer, and why it is the fallback (None: it is ``choose``'s)."""
    if not safe:
        return choose(request), None
    try:
        action = choose(request)
    except Exception as exc:
        log(f"choose() raised on request {request.id}; playing {request.legal[0]!r}")
        traceback.print_exc(file=sys.stderr)
        return request.legal[0], _plain(f"choose() raised {type(exc).__name__}: {exc}")
    if action not in request.legal:
        log(f"choose() returned {action!r}, not a legal action; playing {request.legal[0]!r}")
        return request.legal[0], _plain(f"choose() returned {action!r}, not a legal action")
    return action, None


def _plain(text: str) -> str:
    """Short, and valid UTF-8 on the wire (a lone surrogate would spoil the whole line)."""
    return text[:300].encode("utf-8", "backslashreplace").decode("utf-8")


def log(text: str) -> None:
    """A line on stderr: the league keeps a bot's stderr (capped) for its author."""
    sys.stderr.write(text + "\n")
    sys.stderr.flush()
