"""The API's request parsers: DRF's, with every way a body can be malformed a ParseError.

A ParseError goes through api.exceptions like any error: a 400 with a message.
DRF's JSON parser lets a RecursionError through for an array or object nested deeper than
Python's decoder goes (``[[[[...]]]]``), which would be a 500; and it accepts a string
holding a lone surrogate (``"\\ud800"``), which is not Unicode text: nothing can store or
even encode it, and no schema validator's regular expressions can speak of it, so a
document with one is refused here, whole, before any field sees it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import IO, Any

from rest_framework import parsers
from rest_framework.exceptions import ParseError

LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def lone_surrogate_in(document: Any) -> str | None:
    """The first lone surrogate in a parsed JSON document's strings (keys too), or None."""
    pending = [document]
    while pending:
        value = pending.pop()
        if isinstance(value, str):
            found = LONE_SURROGATE.search(value)
            if found:
                return found.group()
        elif isinstance(value, dict):
            pending.extend(value.keys())
            pending.extend(value.values())
        elif isinstance(value, list):
            pending.extend(value)
    return None


class JSONParser(parsers.JSONParser):
    def parse(
        self,
        stream: IO[Any],
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        try:
            document = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON parse error - nested too deeply") from None
        surrogate = lone_surrogate_in(document)
        if surrogate is not None:
            raise ParseError(
                f"JSON parse error - a string holds a lone surrogate (\\u{ord(surrogate):04x}),"
                " which is not Unicode text"
            )
        return document
