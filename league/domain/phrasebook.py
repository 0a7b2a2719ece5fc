"""The engine's and the runtimes' English sentences told in another language, by the
catalogue's own messages.

The engine says a refusal in English with its values in it (``must follow suit (you hold
a heart)``); the catalogue holds the same sentence with named blanks (``must follow suit
(you hold a %(suit)s)``) and its translations. A :class:`Phrasebook` reads each of its
sentences as a pattern: the text outside the blanks must stand as written, each blank
matches what the book says that name holds (``BLANKS``: a suit is a word, a count is a
number, anything else any text), so one line names a sentence once, for both the match and
the translation. A match is then said again: the translated sentence (``translate``: the
catalogue's gettext) with each blank filled by its ``fill`` (a suit's name, a card in
short, in the active language; the text as it stands where no fill is given).

Pure: the caller gives the translation and the fills (league.words.engine_refusals,
league.words.score_sheet, league.words.upload_refusals), nothing here reads a catalogue,
and no sentence is written here: the words people read are league/words/'s.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

Fill = Callable[[str], str]
Translate = Callable[[str], str]

BLANK = re.compile(r"%\((\w+)\)s")
"""A named blank of a catalogue message."""
ANY_TEXT = ".+?"
"""What a blank the book says nothing of matches: any text, as little as will do."""


def sentence_pattern(sentence: str, blanks: Mapping[str, str]) -> re.Pattern[str]:
    """``sentence`` as a pattern: its text escaped, each blank a named group matching
    ``blanks[name]`` (``ANY_TEXT`` if absent); a blank named twice must hold the same text."""
    parts: list[str] = []
    seen: set[str] = set()
    at = 0
    for blank in BLANK.finditer(sentence):
        parts.append(re.escape(sentence[at : blank.start()]))
        name = blank[1]
        if name in seen:
            parts.append(f"(?P={name})")
        else:
            parts.append(f"(?P<{name}>{blanks.get(name, ANY_TEXT)})")
            seen.add(name)
        at = blank.end()
    parts.append(re.escape(sentence[at:]))
    return re.compile("".join(parts))


@dataclass(frozen=True, slots=True)
class Sentence:
    """A sentence whose blanks are filled otherwise than the book's fills say (the same
    name may hold a bid in one sentence and a contract in another), or whose English is
    not its text with the blanks filled in (``pattern``: ``unknown fields? ...`` where the
    catalogue has one sentence for one field and several)."""

    text: str
    fills: Mapping[str, Fill] = field(default_factory=dict)
    pattern: str | None = None


@dataclass(frozen=True, slots=True)
class Said:
    """Where in the text a sentence of the book stood, and the sentence said again."""

    start: int
    end: int
    words: str


class Phrasebook:
    """Sentences tried in order (a longer one before one that begins as it does, when the
    book is searched), each with the book's ``blanks`` and ``fills`` unless it has its own."""

    def __init__(
        self,
        sentences: Iterable[str | Sentence],
        *,
        blanks: Mapping[str, str] | None = None,
        fills: Mapping[str, Fill] | None = None,
    ) -> None:
        self.blanks = dict(blanks or {})
        self.fills = dict(fills or {})
        self.entries = [
            (
                re.compile(entry.pattern)
                if entry.pattern is not None
                else sentence_pattern(entry.text, self.blanks),
                entry,
            )
            for entry in (s if isinstance(s, Sentence) else Sentence(s) for s in sentences)
        ]

    def _said(self, entry: Sentence, found: re.Match[str], translate: Translate) -> str:
        values = {
            name: {**self.fills, **entry.fills}.get(name, str)(text)
            for name, text in found.groupdict().items()
        }
        return translate(entry.text) % values if values else translate(entry.text)

    def say(self, text: str, translate: Translate) -> str | None:
        """``text`` said again when it is one of the book's sentences; None otherwise."""
        for pattern, entry in self.entries:
            found = pattern.fullmatch(text)
            if found is not None:
                return self._said(entry, found, translate)
        return None

    def say_within(self, text: str, translate: Translate) -> Said | None:
        """The first of the book's sentences found anywhere in ``text``, said again."""
        for pattern, entry in self.entries:
            found = pattern.search(text)
            if found is not None:
                return Said(found.start(), found.end(), self._said(entry, found, translate))
        return None
