"""Declared rule options and the game-string grammar.

Every rule variant of a family is a field of that family's frozen ``Rules`` dataclass,
declared with :func:`option` (a default, a one-line description, and the values it
accepts). A game string names the family and the options that differ from the
defaults: ``kingen(players=5,k_hearts_points=4)``. A family may define presets
(``kingen(rules=iwwa)``): a preset replaces the defaults, and explicit options then
override the preset. ``str(game)`` is canonical: the preset if any, then the options
that differ from it, keys sorted.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, Self

from engine.errors import InvalidGameError

OptionKind = Literal["bool", "int", "choice", "ints", "names"]

_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_VALUE = re.compile(r"^[A-Za-z0-9_./+\-]+$")


def option(
    default: Any,
    doc: str,
    *,
    kind: OptionKind | None = None,
    choices: tuple[str, ...] = (),
    minimum: int | None = None,
    maximum: int | None = None,
) -> Any:
    """Declare one rule option of a ``Rules`` dataclass."""
    if kind is None:
        kind = (
            "bool" if isinstance(default, bool) else "int" if isinstance(default, int) else "choice"
        )
    return field(
        default=default,
        metadata={"doc": doc, "kind": kind, "choices": choices, "min": minimum, "max": maximum},
    )


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """What the documentation and the parser know of one option."""

    name: str
    kind: OptionKind
    default: Any
    doc: str
    choices: tuple[str, ...]
    minimum: int | None
    maximum: int | None

    def parse(self, raw: str) -> Any:
        where = f"option {self.name}"
        if self.kind == "bool":
            if raw.lower() in ("true", "1", "yes", "on"):
                return True
            if raw.lower() in ("false", "0", "no", "off"):
                return False
            raise InvalidGameError(f"{where}: expected true or false, got {raw!r}")
        if self.kind == "int":
            try:
                value = int(raw)
            except ValueError:
                raise InvalidGameError(f"{where}: expected a whole number, got {raw!r}") from None
            self._check_range(value)
            return value
        if self.kind == "choice":
            if raw not in self.choices:
                raise InvalidGameError(
                    f"{where}: expected one of {', '.join(self.choices)}, got {raw!r}"
                )
            return raw
        if self.kind == "ints":
            try:
                values = tuple(int(part) for part in raw.split("-"))
            except ValueError:
                raise InvalidGameError(
                    f"{where}: expected numbers joined by '-', e.g. 4-4-5, got {raw!r}"
                ) from None
            for v in values:
                self._check_range(v)
            return values
        names = tuple(raw.split("/"))
        for name in names:
            if name not in self.choices:
                raise InvalidGameError(f"{where}: {name!r} is not one of {', '.join(self.choices)}")
        return names

    def format(self, value: Any) -> str:
        if self.kind == "bool":
            return "true" if value else "false"
        if self.kind == "ints":
            return "-".join(str(v) for v in value)
        if self.kind == "names":
            return "/".join(value)
        return str(value)

    def _check_range(self, value: int) -> None:
        if self.minimum is not None and value < self.minimum:
            raise InvalidGameError(
                f"option {self.name}: {value} is below the minimum {self.minimum}"
            )
        if self.maximum is not None and value > self.maximum:
            raise InvalidGameError(
                f"option {self.name}: {value} is above the maximum {self.maximum}"
            )


@dataclass(frozen=True, kw_only=True, slots=True)
class Rules:
    """Base of every family's rule options. Subclasses add fields with :func:`option`."""

    presets: ClassVar[Mapping[str, Mapping[str, Any]]] = {}
    """Named sets of defaults, selected with ``rules=NAME`` in the game string."""

    @classmethod
    def option_specs(cls) -> dict[str, OptionSpec]:
        specs = {}
        for f in dataclasses.fields(cls):
            meta = f.metadata
            specs[f.name] = OptionSpec(
                f.name,
                meta["kind"],
                f.default,
                meta["doc"],
                meta["choices"],
                meta["min"],
                meta["max"],
            )
        return specs

    @classmethod
    def from_options(cls, raw: Mapping[str, str]) -> tuple[Self, str | None]:
        """Parse option strings (and an optional ``rules`` preset) into rules."""
        specs = cls.option_specs()
        values: dict[str, Any] = {}
        preset = raw.get("rules")
        if preset is not None:
            if preset not in cls.presets:
                known = ", ".join(sorted(cls.presets)) or "none"
                raise InvalidGameError(f"option rules: unknown preset {preset!r} (known: {known})")
            values.update(cls.presets[preset])
        for key, text in raw.items():
            if key == "rules":
                continue
            spec = specs.get(key)
            if spec is None:
                known = ", ".join(sorted([*specs, *(["rules"] if cls.presets else [])]))
                raise InvalidGameError(f"unknown option {key!r} (known options: {known})")
            values[key] = spec.parse(text)
        rules = cls(**values)
        rules.validate()
        return rules, preset

    def validate(self) -> None:
        """Cross-option checks; raise InvalidGameError naming the options in conflict."""

    def canonical_options(self, preset: str | None) -> dict[str, str]:
        """The options that differ from the preset (or the defaults), as strings."""
        base: Mapping[str, Any] = self.presets.get(preset, {}) if preset else {}
        out = {"rules": preset} if preset else {}
        for name, spec in self.option_specs().items():
            value = getattr(self, name)
            if value != base.get(name, spec.default):
                out[name] = spec.format(value)
        return out


def parse_game_string(text: str) -> tuple[str, dict[str, str]]:
    """Split ``family(key=value,...)`` into the family and the raw option strings."""
    s = text.strip()
    if not s:
        raise InvalidGameError("empty game string")
    name, sep, rest = s.partition("(")
    name = name.strip()
    if not _NAME.match(name):
        raise InvalidGameError(f"not a game name: {name!r}")
    options: dict[str, str] = {}
    if sep:
        if not rest.endswith(")"):
            raise InvalidGameError(f"missing ')' at the end of {text!r}")
        body = rest[:-1].strip()
        for part in body.split(",") if body else []:
            key, eq, value = (p.strip() for p in part.partition("="))
            if not eq or not _NAME.match(key) or not _VALUE.match(value):
                raise InvalidGameError(f"bad option {part.strip()!r}: expected key=value")
            if key in options:
                raise InvalidGameError(f"option {key!r} given twice")
            options[key] = value
    return name, options


def format_game_string(family: str, options: Mapping[str, str]) -> str:
    if not options:
        return family
    return f"{family}({','.join(f'{k}={options[k]}' for k in sorted(options))})"
