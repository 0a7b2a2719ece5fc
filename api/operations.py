"""What every API operation shares: reading its input through a serializer, the error
answers its schema documents, and the names of its nested serializers in the schema.

A view of api/ parses the request (``validated``), calls one selector or service of the
league and renders the answer; it never queries the database itself
(tests/api/test_thin_views.py holds the views to that).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from rest_framework import serializers
from rest_framework.views import APIView

from drf_spectacular.utils import OpenApiResponse

from api.input_objects import ClosedInputObject
from api.serializers import ErrorSerializer
from league.errors import InvalidInputError
from league.words.request_fields import field_read_only, field_unknown, fields_refused

ERRORS: dict[int | tuple[int, str], Any] = {
    400: OpenApiResponse(ErrorSerializer, description="Invalid input; the message names it."),
    401: OpenApiResponse(ErrorSerializer, description="Not logged in."),
    403: OpenApiResponse(ErrorSerializer, description="Not allowed."),
    404: OpenApiResponse(ErrorSerializer, description="Not found."),
    409: OpenApiResponse(ErrorSerializer, description="Not in a state that allows it."),
}


def responses(ok: Any, status: int = 200) -> dict[int | tuple[int, str], Any]:
    """The schema's answers of an operation: ``ok`` with ``status``, and the errors."""
    return {status: ok, **ERRORS}


def validated(serializer_class: type[serializers.Serializer[Any]], data: Any) -> dict[str, Any]:
    """``data`` (a body or the query parameters) read by ``serializer_class``; invalid input
    is a 400 naming the fields (api.exceptions)."""
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


def validated_every_field(
    serializer_class: type[ClosedInputObject],
    data: Any,
    *,
    read_only: Iterable[str] = (),
) -> dict[str, Any]:
    """``validated``, and a body's fields that ``serializer_class`` does not take are a 400
    naming each (``read_only``: the answer's fields this request cannot change, said so),
    never ignored: a request that answers 200 changed everything it sent. The class is a
    ClosedInputObject, whose schema says so (``additionalProperties: false``)."""
    if isinstance(data, Mapping):
        taken = list(serializer_class().fields)
        fixed = set(read_only)
        refused = {
            str(name): [field_read_only() if name in fixed else field_unknown(taken)]
            for name in data
            if name not in taken
        }
        if refused:
            raise InvalidInputError(fields_refused(refused), errors=refused)
    return validated(serializer_class, data)


def nested_serializers_named(views: Iterable[Any]) -> None:
    """Name each API's nested serializers after the API (``TokenCreateInput``...), so that
    the OpenAPI components do not collide. Called by each resource module on its views."""
    for view in views:
        if not (isinstance(view, type) and issubclass(view, APIView)):
            continue
        base = view.__name__.removesuffix("Api")
        for kind in ("InputSerializer", "OutputSerializer", "QuerySerializer"):
            nested = view.__dict__.get(kind)
            if nested is not None:
                nested.__name__ = f"{base}{kind}"
