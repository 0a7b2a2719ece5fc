"""One exception handler for the whole API: every error is JSON with a message.

``{"detail": "message naming the problem"}``, plus ``"errors": {field: [messages]}`` for
invalid input. Domain errors (league.errors, the engine's and the bots' errors) become
4xx answers, and so does a body that cannot be read: malformed JSON or multipart (the
parsers' ParseError, api/parsers.py), a media type the view does not take (415,
naming the ones it does) and Django's own limits (413 for a body too large, 400 for too
many fields or files). Anything unexpected is logged and answered 500 with a short
message, never a traceback.
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.core.exceptions import (
    BadRequest,
    PermissionDenied,
    RequestDataTooBig,
    SuspiciousOperation,
    TooManyFieldsSent,
    TooManyFilesSent,
)
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import InterfaceError, OperationalError
from django.http import Http404
from django.utils.translation import gettext as _
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from bots.bundle import MIB
from bots.services import BotServiceError
from engine.errors import EngineError, IllegalActionError
from league.errors import LeagueError
from league.words.engine_refusals import refusal_in_language
from league.words.upload_refusals import upload_refusal_in_language

DATABASE_UNAVAILABLE = (OperationalError, InterfaceError)
"""The database is down or the connection was lost: "try again shortly", not a bug."""

logger = logging.getLogger(__name__)


def _flatten(errors: Any, prefix: str = "") -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    if isinstance(errors, dict):
        for key, value in errors.items():
            name = f"{prefix}.{key}" if prefix else str(key)
            out.update(_flatten(value, name))
    elif isinstance(errors, list):
        if all(not isinstance(e, dict | list) for e in errors):
            out[prefix or "non_field_errors"] = [str(e) for e in errors]
        else:
            for index, value in enumerate(errors):
                out.update(_flatten(value, f"{prefix}.{index}" if prefix else str(index)))
    else:
        out[prefix or "non_field_errors"] = [str(errors)]
    return out


def _summary(errors: dict[str, list[str]]) -> str:
    parts = [f"{field}: {' '.join(messages)}" for field, messages in errors.items()]
    return "; ".join(parts) or _("invalid input")


def _request_refused(exc: SuspiciousOperation | BadRequest) -> Response:
    """Django's refusals while it reads a request (its limits, a malformed body): a 4xx
    naming the limit, not the 500 of an unexpected error."""
    if isinstance(exc, RequestDataTooBig):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE or 0
        return Response(
            {
                "detail": _("the request is too large: at most %(size)s MiB besides files")
                % {"size": f"{limit / MIB:g}"}
            },
            status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE,
        )
    if isinstance(exc, TooManyFieldsSent):
        limit = settings.DATA_UPLOAD_MAX_NUMBER_FIELDS
        return Response(
            {"detail": _("too many fields in the request: at most %(limit)s") % {"limit": limit}},
            400,
        )
    if isinstance(exc, TooManyFilesSent):
        limit = settings.DATA_UPLOAD_MAX_NUMBER_FILES
        return Response(
            {"detail": _("too many files in the request: at most %(limit)s") % {"limit": limit}},
            400,
        )
    return Response(
        {"detail": _("bad request: %(reason)s") % {"reason": exc}},
        status=status.HTTP_400_BAD_REQUEST,
    )


def _media_types(view: Any) -> str:
    parsers = getattr(view, "parser_classes", ()) or ()
    types = [parser.media_type for parser in parsers]
    return " or ".join(types) if types else "application/json"


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, LeagueError):
        data: dict[str, Any] = {"detail": exc.detail}
        if exc.errors:
            data["errors"] = exc.errors
        if exc.answer_fields:
            data.update(exc.answer_fields)
        return Response(data, status=exc.status)
    if isinstance(exc, IllegalActionError):
        return Response({"detail": refusal_in_language(exc)}, status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, BotServiceError):
        refusal = upload_refusal_in_language(str(exc))
        return Response({"detail": refusal}, status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, EngineError):
        return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, DjangoValidationError):
        errors = _flatten(exc.message_dict if hasattr(exc, "error_dict") else exc.messages)
        return Response({"detail": _summary(errors), "errors": errors}, status=400)
    if isinstance(exc, exceptions.ValidationError):
        errors = _flatten(exc.detail)
        return Response({"detail": _summary(errors), "errors": errors}, status=400)
    if isinstance(exc, exceptions.ParseError):
        return Response(
            {"detail": _("malformed request: %(reason)s") % {"reason": exc.detail}}, status=400
        )
    if isinstance(exc, SuspiciousOperation | BadRequest):
        return _request_refused(exc)
    if isinstance(exc, exceptions.UnsupportedMediaType):
        return Response(
            {
                "detail": _("%(reason)s Send %(types)s.")
                % {"reason": exc.detail, "types": _media_types(context.get("view"))}
            },
            status=exc.status_code,
        )
    if isinstance(exc, Http404 | PermissionDenied | exceptions.APIException):
        response = drf_exception_handler(exc, context)
        if response is not None:
            detail = response.data.get("detail") if isinstance(response.data, dict) else None
            response.data = {"detail": str(detail or response.data)}
            return response
    if isinstance(exc, DATABASE_UNAVAILABLE):
        # Not answered here: DRF raises it on, and the project's middleware answers every
        # view alike, 503 with Retry-After (config/database_outage.py).
        return None
    logger.error("unexpected error in %s", context.get("view"), exc_info=exc)
    return Response(
        {"detail": _("internal error; it has been logged")},
        status=status.HTTP_500_INTERNAL_SERVER_ERROR,
    )
