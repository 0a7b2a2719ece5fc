"""Reading the translation catalogues in tests: the .po files parsed (no gettext tool
needed), and the English of the catalogue looked for in pages rendered in another language.
"""

from __future__ import annotations

import ast
import html
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

LOCALE_DIR = Path(__file__).resolve().parents[2] / "locale"
LANGUAGES = ("nl", "sv")
DOMAINS = ("django", "djangojs")
_KEYWORD = re.compile(r'^(msgctxt|msgid_plural|msgid|msgstr(?:\[\d+\])?)\s+(".*")$')
PLACEHOLDER = re.compile(r"%\(\w+\)[sd]|%[sd]")


@dataclass
class Message:
    """One entry of a catalogue."""

    msgid: str
    context: str | None = None
    plural: str | None = None
    translations: list[str] = field(default_factory=list)
    fuzzy: bool = False
    where: list[str] = field(default_factory=list)
    """The ``#:`` lines: the source files it comes from."""

    @property
    def untranslated(self) -> bool:
        return self.fuzzy or not self.translations or any(not t for t in self.translations)


def _unquote(literal: str) -> str:
    value = ast.literal_eval(literal)
    assert isinstance(value, str)
    return value


def catalogue(language: str, domain: str) -> list[Message]:
    """The entries of ``locale/<language>/LC_MESSAGES/<domain>.po`` (the header left out)."""
    path = LOCALE_DIR / language / "LC_MESSAGES" / f"{domain}.po"
    messages: list[Message] = []
    for block in re.split(r"\n\s*\n", path.read_text(encoding="utf-8")):
        fields: dict[str, str] = {}
        flags: set[str] = set()
        where: list[str] = []
        key = None
        for line in block.splitlines():
            if line.startswith("#,"):
                flags.update(flag.strip() for flag in line[2:].split(","))
            elif line.startswith("#:"):
                where += line[2:].split()
            elif line.startswith("#"):
                continue
            elif match := _KEYWORD.match(line):
                key = match.group(1)
                fields[key] = _unquote(match.group(2))
            elif line.startswith('"') and key is not None:
                fields[key] += _unquote(line)
        if "msgid" not in fields or fields["msgid"] == "":
            continue  # the header, or an obsolete entry
        translations = [v for k, v in sorted(fields.items()) if k.startswith("msgstr")]
        messages.append(
            Message(
                msgid=fields["msgid"],
                context=fields.get("msgctxt"),
                plural=fields.get("msgid_plural"),
                translations=translations,
                fuzzy="fuzzy" in flags,
                where=where,
            )
        )
    return messages


class _VisibleText(HTMLParser):
    """The text a person reads or hears: text outside scripts and styles, and the
    attributes read aloud or shown (aria-label, title, alt, placeholder, value of a button).
    Text in ``<code>`` is left out: it is what one types (a game string's options and
    values, ``kung_och_adel(first_leader_chooser=eldest)``, an action such as ``lead 2``),
    the same in every language, as the rules pages' option tables show it."""

    SPOKEN = ("aria-label", "title", "alt", "placeholder", "aria-description")

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style", "template", "code"):
            self._hidden += 1
        for name, value in attrs:
            if name in self.SPOKEN and value:
                self.parts.append(value)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style", "template", "code") and self._hidden:
            self._hidden -= 1

    def handle_data(self, data: str) -> None:
        if not self._hidden and data.strip():
            self.parts.append(data)


def visible_texts(page: str) -> list[str]:
    """Every piece of visible or spoken text of ``page``, whitespace squeezed."""
    parser = _VisibleText()
    parser.feed(page)
    return [" ".join(html.unescape(part).split()) for part in parser.parts]


def english_left(texts: list[str], messages: list[Message]) -> list[str]:
    """The catalogue's English messages (those whose translation differs) found in
    ``texts``: a whole piece of text equal to a message, or a long message (five words or
    more) inside one. Messages with placeholders are matched by their fixed words."""
    found = []
    joined = "\n".join(texts)
    pieces = set(texts)
    for message in messages:
        english = " ".join(message.msgid.split())
        if not message.translations or message.translations[0].strip() == english.strip():
            continue
        fixed = [p.strip() for p in PLACEHOLDER.split(english.replace("%%", "%")) if p.strip()]
        if not fixed:
            continue
        longest = max(fixed, key=len)
        if len(longest.split()) >= 5:
            if longest in joined:
                found.append(message.msgid)
        elif len(fixed) == 1 and longest == english and english in pieces and len(english) > 3:
            found.append(message.msgid)
    return found
