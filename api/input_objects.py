"""Rules of a whole input object, declared once on its serializer and read by both the
validation and the OpenAPI schema (drf-spectacular), so that the two cannot drift apart:

- ``closed``: the object takes its fields and no other; any other is a 400 naming it
  (api.operations.validated_every_field), and the schema says ``additionalProperties:
  false``.
- ``one_of``: of some optional fields, exactly one (or at most one) is given; the schema
  says it with ``oneOf`` (or ``not``) over their ``required``, the validation with the
  rule's own message.

The rules of each field (types, lengths, patterns, bounds) are api.fields'.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from rest_framework import serializers

from drf_spectacular.extensions import OpenApiSerializerExtension

if TYPE_CHECKING:
    from django.utils.functional import _StrOrPromise as StrOrPromise


@dataclass(frozen=True)
class OneOf:
    """Of ``fields``, exactly one is given (``at_most=False``) or at most one (``at_most``);
    otherwise ``message`` (lazily translated)."""

    fields: tuple[str, ...]
    message: StrOrPromise
    at_most: bool = False

    def broken_by(self, attrs: dict[str, Any]) -> bool:
        given = sum(name in attrs for name in self.fields)
        return given > 1 or (given == 0 and not self.at_most)

    def schema(self) -> dict[str, Any]:
        """The rule in JSON Schema: which combinations of ``required`` it allows."""
        if self.at_most:
            pairs = [{"required": list(pair)} for pair in self._pairs()]
            return {"not": pairs[0] if len(pairs) == 1 else {"anyOf": pairs}}
        return {"oneOf": [{"required": [name]} for name in self.fields]}

    def _pairs(self) -> list[tuple[str, str]]:
        return [(a, b) for i, a in enumerate(self.fields) for b in self.fields[i + 1 :]]


class InputObject(serializers.Serializer[Any]):
    """An API input whose whole-object rules (``one_of``) are validated and in its schema."""

    closed: ClassVar[bool] = False
    one_of: ClassVar[OneOf | None] = None

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        rule = type(self).one_of
        if rule is not None and rule.broken_by(attrs):
            raise serializers.ValidationError(str(rule.message))
        return attrs


class ClosedInputObject(InputObject):
    """An input that takes its fields and no other (api.operations.validated_every_field
    refuses any other, naming it)."""

    closed = True


class InputObjectSchema(OpenApiSerializerExtension):  # type: ignore[no-untyped-call]
    """The schema drf-spectacular writes for the serializer, with the object's rules."""

    target_class = InputObject
    match_subclasses = True

    def map_serializer(self, auto_schema: Any, direction: str) -> dict[str, Any]:
        target = self.target
        schema: dict[str, Any] = auto_schema._map_serializer(
            target, direction, bypass_extensions=True
        )
        rules = type(target) if isinstance(target, InputObject) else target
        assert issubclass(rules, InputObject)
        if rules.closed:
            schema["additionalProperties"] = False
        if rules.one_of is not None:
            schema.update(rules.one_of.schema())
        return schema
