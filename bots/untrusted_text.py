"""Text a bot controls, made safe to store: ``storable_text``.

A bot decides what its answers' action strings and its stderr hold, and so part of every
fault message and log the league keeps about it. Some of that cannot be stored as it is:
PostgreSQL refuses a NUL character in text and in ``jsonb`` (``\\u0000``), and a lone
surrogate (``"\\ud800"`` is valid JSON, and a valid Python string) cannot be encoded as
UTF-8 for any database. ``storable_text`` escapes both visibly (``\\x00``, ``\\ud800``),
so the author still sees what the bot sent, and caps the length.

bots.seats applies it where a fault or a log is captured (``Fault``, ``SeatReport.log``),
so everything built from them (match records, seats' faults, ``BotFault`` rows, the
validation report) holds only storable text; bots.services applies it again where it
writes ``BotFault`` rows.
"""

from __future__ import annotations

from typing import Literal

CUT_MARK = " [...]"


def storable_text(text: str, *, limit: int, keep: Literal["start", "end"] = "start") -> str:
    """``text`` with NUL characters and lone surrogates escaped, at most ``limit``
    characters long: its start (with ``CUT_MARK`` at the cut), or with ``keep="end"`` its
    end (a log's last lines matter most)."""
    if "\x00" in text or not _encodable(text):
        text = text.replace("\x00", "\\x00").encode("utf-8", "backslashreplace").decode("utf-8")
    if len(text) <= limit:
        return text
    if keep == "end":
        return text[len(text) - limit :]
    if limit <= len(CUT_MARK):
        return text[:limit]
    return text[: limit - len(CUT_MARK)] + CUT_MARK


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
