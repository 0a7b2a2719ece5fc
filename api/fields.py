"""Input fields whose OpenAPI schema says exactly what they accept (docs/api.md, *The schema*).

DRF's own fields are lenient where the schema is not: a ``CharField`` turns ``0`` into
``"0"``, an ``IntegerField`` takes ``"5"`` and ``5.0``, a ``FloatField`` takes ``"1.5"``,
and a query parameter given empty (``?tournament=``) counts as absent. The schema that
drf-spectacular writes from the same declarations forbids all of these, and allows what
the fields then refuse (a blank name: no ``minLength``; a NUL character: no pattern). The
fields here refuse what the schema forbids and carry every rule they enforce as a
validator (``minLength``, ``maxLength``, ``pattern``, ``minimum``, ``maximum``), which is
what the schema is generated from: one declaration, so the schema and the validation
cannot drift apart. Patterns are Python regular expressions, checked with ``re`` here and
by schemathesis in tests/api/test_schemathesis.py.
"""

from __future__ import annotations

import functools
import math
import re
import unicodedata
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.validators import ProhibitNullCharactersValidator, RegexValidator
from django.utils.functional import lazy
from django.utils.translation import gettext as _
from rest_framework import serializers
from rest_framework.fields import empty

from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field

from bots.bundle import MAX_BOT_BYTES, bot_too_large_message
from bots.direction_controls import (
    DIRECTION_CONTROLS,
    direction_controls_in,
    direction_controls_refused_message,
)
from bots.protocol import json_kind
from engine.variants import FAMILIES
from league.services.person_names import DISPLAY_NAME_MAX
from league.words.bot_families import families_missing

if TYPE_CHECKING:
    from django.utils.functional import _StrOrPromise as StrOrPromise

ID_MAX = 2**63 - 1
"""The largest id (a BigAutoField): any larger id is refused, not looked up."""


def _character_class(characters: list[str]) -> str:
    """The characters as the inside of a regex class, in ``\\uXXXX`` ranges, which
    Python's ``re``, ECMA-262 and the schema validators all read alike."""
    codes = sorted(ord(c) for c in characters)
    runs: list[list[int]] = []
    for code in codes:
        if runs and code == runs[-1][1] + 1:
            runs[-1][1] = code
        else:
            runs.append([code, code])
    return "".join(f"\\u{a:04x}" if a == b else f"\\u{a:04x}-\\u{b:04x}" for a, b in runs)


WHITE_SPACE = _character_class([chr(c) for c in range(0x10000) if chr(c).isspace()])
"""White space as ``str.strip`` and ``str.isspace`` see it, spelled out: ``\\s`` means
something else in each regex dialect."""
# \A and \Z: the whole text, in Python (drf-spectacular writes them as ^ and $, which
# mean the same in the schema's dialect; Python's $ would also match before a last \n).
# PostgreSQL text cannot hold NUL; lone surrogates are refused by the JSON parser.
TEXT_PATTERN = r"\A[^\u0000]*\Z"
VISIBLE_TEXT_PATTERN = rf"\A[{WHITE_SPACE}]*[^{WHITE_SPACE}\u0000][^\u0000]*\Z"
"""Text with at least one character that is not white space: a name, not a blank."""


DIRECTION_CONTROL_CLASS = _character_class(sorted(DIRECTION_CONTROLS))
CHOSEN_NAME_PATTERN = (
    rf"\A[{WHITE_SPACE}]*[^{WHITE_SPACE}\u0000{DIRECTION_CONTROL_CLASS}]"
    rf"[^\u0000{DIRECTION_CONTROL_CLASS}]*\Z"
)
"""A name a person chooses (a bot's, a club's, a tournament's): visible text without the
direction controls the services refuse (league.services.chosen_names)."""
CONTROL_CLASS = _character_class(
    [chr(c) for c in range(0x10000) if unicodedata.category(chr(c)) in ("Cc", "Cf", "Zl", "Zp")]
)
DISPLAY_NAME_PATTERN = (
    rf"\A[{WHITE_SPACE}]*([^{CONTROL_CLASS}]{{0,{DISPLAY_NAME_MAX - 1}}}"
    rf"[^{WHITE_SPACE}{CONTROL_CLASS}])?[{WHITE_SPACE}]*\Z"
)
"""A display name: blank, or at most DISPLAY_NAME_MAX characters once the white space
around it is dropped, without control characters or line breaks (NUL and the direction
controls among them) except in that white space (league.services.person_names). The few
such characters above U+FFFF (tag characters) are refused by the service but not named
here: the pattern's ``\\uXXXX`` syntax, the one every regex dialect reads alike, cannot
name them."""


class ChosenNameValidator(RegexValidator):
    """A name's pattern (CHOSEN_NAME_PATTERN by default); the message names the direction
    controls found, if any, as the services' refusal does."""

    def __init__(
        self,
        pattern: str = CHOSEN_NAME_PATTERN,
        message: StrOrPromise = "May not contain NUL characters.",
    ) -> None:
        super().__init__(pattern, message=message)

    def __call__(self, value: Any) -> None:
        found = direction_controls_in(str(value))
        if found:
            raise DjangoValidationError(direction_controls_refused_message(found))
        super().__call__(value)


class StrictCharField(serializers.CharField):
    """A JSON string, and only a string: at most ``max_length`` characters as sent, never
    NUL or a lone surrogate, and not blank (empty or only white space) unless
    ``blank=True``. Surrounding white space is trimmed after the checks (unless
    ``trim_whitespace=False``), so the limits apply to what was sent, as the schema says."""

    default_error_messages: ClassVar[dict[str, StrOrPromise]] = {
        "not_a_string": "Expected a string, got {kind}.",
        "unstorable": "May not contain NUL characters.",
    }

    def __init__(
        self, *, blank: bool = False, pattern: RegexValidator | None = None, **kwargs: Any
    ) -> None:
        """``pattern``: what the text must match instead of the storable-text pattern (it
        must then itself refuse what is not storable, or the value is not stored)."""
        if "allow_blank" in kwargs:
            raise TypeError("StrictCharField takes blank=, not allow_blank=")
        if not blank:
            kwargs.setdefault("min_length", 1)
        super().__init__(**kwargs)
        self.blank = blank
        # the pattern says what DRF's NUL validator checks, and the schema carries one
        # pattern: it is the field's only one
        self.validators = [
            v for v in self.validators if not isinstance(v, ProhibitNullCharactersValidator)
        ]
        if pattern is None:
            pattern = RegexValidator(
                TEXT_PATTERN if blank else VISIBLE_TEXT_PATTERN,
                message=self.error_messages["unstorable"],
            )
        self.validators.append(pattern)

    def run_validation(self, data: Any = empty) -> Any:
        if data is not empty and data is not None and not isinstance(data, str):
            self.fail("not_a_string", kind=json_kind(data))
        is_empty, value = self.validate_empty_values(data)
        if is_empty:
            return value
        assert isinstance(value, str)
        if not self.blank and not value.strip():
            self.fail("blank")
        self.run_validators(value)
        return value.strip() if self.trim_whitespace else value


class StrictIntegerField(serializers.IntegerField):
    """A JSON integer, and only an integer: not ``"5"``, not ``5.0``, not ``true``."""

    default_error_messages: ClassVar[dict[str, StrOrPromise]] = {
        "not_an_integer": "Expected an integer, got {kind}."
    }

    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("not_an_integer", kind=json_kind(data))
        return data


def id_field(**kwargs: Any) -> StrictIntegerField:
    """The id of a stored object: 1 to ``ID_MAX``."""
    return StrictIntegerField(min_value=1, max_value=ID_MAX, **kwargs)


class StrictFloatField(serializers.FloatField):
    """A JSON number (an integer or a fraction), and only a number: not ``"1.5"``."""

    default_error_messages: ClassVar[dict[str, StrOrPromise]] = {
        "not_a_number": "Expected a number, got {kind}."
    }

    def to_internal_value(self, data: Any) -> float:
        if isinstance(data, bool) or not isinstance(data, int | float):
            self.fail("not_a_number", kind=json_kind(data))
        try:
            number = float(data)
        except OverflowError:  # an integer of hundreds of digits
            self.fail("invalid")
        if not math.isfinite(number):
            self.fail("invalid")
        return number


class StrictBooleanField(serializers.BooleanField):
    """A JSON boolean, and only a boolean: not ``"true"``, ``1`` or ``"yes"``."""

    default_error_messages: ClassVar[dict[str, StrOrPromise]] = {
        "not_a_boolean": "Expected a boolean, got {kind}."
    }

    def to_internal_value(self, data: Any) -> bool:
        if not isinstance(data, bool):
            self.fail("not_a_boolean", kind=json_kind(data))
        return data


class _QueryValue(serializers.Field[Any, Any, Any, Any]):
    """A query parameter given empty (``?x=``) is given, and refused unless the field
    allows it; DRF would take it for absent, which the schema does not say."""

    def get_value(self, dictionary: Any) -> Any:
        if self.field_name not in dictionary:
            return empty
        return dictionary.get(self.field_name)


class QueryIntegerField(_QueryValue, serializers.IntegerField):
    """An integer in the query string, written as the schema's integer is: digits with an
    optional minus; not ``1.0``, ``+1`` or `` 1``."""

    DIGITS = re.compile(r"-?[0-9]+")

    def to_internal_value(self, data: Any) -> int:
        if not isinstance(data, str) or not self.DIGITS.fullmatch(data):
            self.fail("invalid")
        try:
            return int(data)
        except ValueError:  # more digits than Python converts
            self.fail("max_string_length")


def query_id_field(**kwargs: Any) -> QueryIntegerField:
    kwargs.setdefault("required", False)
    return QueryIntegerField(min_value=1, max_value=ID_MAX, **kwargs)


class QueryChoiceField(_QueryValue, serializers.ChoiceField):
    """One of the choices in the query string; empty is not one of them."""


def game_family_pattern(families: frozenset[str]) -> str:
    """A game string of one of ``families`` (its options not checked here), as a pattern."""
    return rf"\A[{WHITE_SPACE}]*({'|'.join(sorted(families))})[{WHITE_SPACE}]*(\([\s\S]*)?\Z"


@functools.cache
def _game_family(families: frozenset[str]) -> re.Pattern[str]:
    return re.compile(game_family_pattern(families))


GAME_FAMILY_PATTERN = game_family_pattern(frozenset(FAMILIES))
"""The schema's pattern: the families registered when the schema is made."""


class GameFamilyValidator(RegexValidator):
    """A game family, or a game string of one; the message names the family given."""

    def __init__(self) -> None:
        super().__init__(GAME_FAMILY_PATTERN)

    def __call__(self, value: Any) -> None:
        # The families registered now (a family may register after this module's import).
        if not _game_family(frozenset(FAMILIES)).search(str(value)):
            family = str(value).split("(", 1)[0].strip()
            raise DjangoValidationError(
                _("unknown game %(repr)s (known games: %(join)s)")
                % {"repr": repr(family), "join": ", ".join(sorted(FAMILIES))}
            )


class GameFamilyQueryField(_QueryValue, StrictCharField):
    """``?game=FAMILY``: a game family, or a game string whose options are ignored
    (``kingen(rules=iwwa)`` is ``kingen``); the validated value is the family."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(max_length=200, pattern=GameFamilyValidator(), **kwargs)
        self.error_messages["required"] = f"give a game family ({', '.join(sorted(FAMILIES))})"

    def run_validation(self, data: Any = empty) -> Any:
        value = super().run_validation(data)
        return value.split("(", 1)[0].strip() if isinstance(value, str) else value


class GameFamiliesField(serializers.ListField):
    """The game families a bot plays: one or more names of the engine's registry
    (engine.variants.FAMILIES), each once; none is refused with a message naming what to
    add (league.words.bot_families)."""

    def __init__(self, **kwargs: Any) -> None:
        missing = lazy(families_missing, str)()
        super().__init__(
            child=serializers.ChoiceField(choices=list(FAMILIES)),
            min_length=1,
            max_length=len(FAMILIES),
            help_text="The game families the bot plays, one or more "
            f"({', '.join(FAMILIES)}); its versions play the ladders of these families.",
            error_messages={"required": missing, "empty": missing, "min_length": missing},
            **kwargs,
        )

    def to_internal_value(self, data: Any) -> list[str]:
        names = super().to_internal_value(data)
        # The schema's maxItems, of the list sent: what follows keeps each name once, and
        # the length validator (which runs after) would see that shorter list.
        if self.max_length is not None and len(names) > self.max_length:
            self.fail("max_length", max_length=self.max_length)
        return [name for name in FAMILIES if name in names]


SEAT_TEXT_PATTERN = rf"\A(me|open|(builtin|invite):[^{WHITE_SPACE}\u0000]+)\Z"
SEAT_TEXTS = "'me', 'open', 'invite:USERNAME' or 'builtin:NAME'"


class SeatField(serializers.Field[Any, Any, Any, Any]):
    """A seat at a table: ``"me"``, ``"open"`` (anyone may take it), ``"invite:USERNAME"``
    (kept for that person), ``"builtin:NAME"`` or a competitor id."""

    default_error_messages: ClassVar[dict[str, StrOrPromise]] = {
        "invalid": f"A seat is {SEAT_TEXTS} or a competitor id; got {{kind}}.",
    }

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.text = StrictCharField(
            max_length=100,
            pattern=RegexValidator(SEAT_TEXT_PATTERN, message=f"Not {SEAT_TEXTS}."),
        )
        self.number = id_field()

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, str):
            return self.text.run_validation(data)
        if isinstance(data, int) and not isinstance(data, bool):
            return self.number.run_validation(data)
        self.fail("invalid", kind=json_kind(data))

    def to_representation(self, value: Any) -> Any:
        return value


class SeatFieldSchema(OpenApiSerializerFieldExtension):  # type: ignore[no-untyped-call]
    """The seat's schema from its two fields: a string of the pattern, or an id."""

    target_class = SeatField

    def map_serializer_field(self, auto_schema: Any, direction: str) -> dict[str, Any]:
        field = self.target
        assert isinstance(field, SeatField)
        choices = []
        for part in (field.text, field.number):
            schema = auto_schema._map_serializer_field(part, direction)
            auto_schema._insert_field_validators(part, schema)
            choices.append(schema)
        return {"oneOf": choices}


@extend_schema_field(OpenApiTypes.BINARY)
class BotFileField(serializers.FileField):
    """The bot's file (multipart): no larger than the one limit (bots.bundle), refused
    before it is read."""

    def to_internal_value(self, data: Any) -> Any:
        upload = super().to_internal_value(data)
        if upload.size > MAX_BOT_BYTES:
            raise serializers.ValidationError(
                bot_too_large_message(upload.name or "the file", upload.size)
            )
        return upload


@extend_schema_field({"type": "object", "additionalProperties": {}})
class JsonObjectField(serializers.JSONField):
    """A JSON object, and only an object: not an array, a string, a number or null."""

    default_error_messages: ClassVar[dict[str, StrOrPromise]] = {
        "not_an_object": "Expected a JSON object, got {kind}.",
    }

    def to_internal_value(self, data: Any) -> Any:
        if not isinstance(data, dict):
            self.fail("not_an_object", kind=json_kind(data))
        return super().to_internal_value(data)


class KeyedDictField(serializers.DictField):
    """A JSON object whose keys are among ``keys`` (any of them may be left out), each
    value read by ``child``; its schema names each key (``additionalProperties: false``)."""

    default_error_messages: ClassVar[dict[str, StrOrPromise]] = {
        "unknown_key": "unknown key {name}; the keys are {keys}",
    }

    def __init__(self, *, keys: Sequence[str], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.keys = tuple(keys)

    def to_internal_value(self, data: Any) -> dict[str, Any]:
        value = dict(super().to_internal_value(data))
        unknown = [key for key in value if key not in self.keys]
        if unknown:
            self.fail("unknown_key", name=repr(unknown[0]), keys=", ".join(self.keys))
        return value


class KeyedDictFieldSchema(OpenApiSerializerFieldExtension):  # type: ignore[no-untyped-call]
    """The object's schema: each key with the child's schema, and no other key."""

    target_class = KeyedDictField

    def map_serializer_field(self, auto_schema: Any, direction: str) -> dict[str, Any]:
        field = self.target
        assert isinstance(field, KeyedDictField)
        child = auto_schema._map_serializer_field(field.child, direction)
        auto_schema._insert_field_validators(field.child, child)
        return {
            "type": "object",
            "properties": dict.fromkeys(field.keys, child),
            "additionalProperties": False,
        }
