"""One exception handler for the whole API: every error is JSON with a message.

``{"detail": "message naming the problem"}``, plus ``"errors": {field: [messages]}`` for
invalid input. Domain errors (league.errors, the engine's and the bots' errors) become
4xx answers; anything unexpected is logged and answered 500 with a short message, never
a traceback.
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.exceptions import PermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from bots.services import BotServiceError
from engine.errors import EngineError
from league.database_outage import database_unavailable_api_response, is_database_unavailable
from league.errors import LeagueError

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
    return "; ".join(parts) or "invalid input"


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, LeagueError):
        data: dict[str, Any] = {"detail": exc.detail}
        if exc.errors:
            data["errors"] = exc.errors
        return Response(data, status=exc.status)
    if isinstance(exc, EngineError | BotServiceError):
        return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, DjangoValidationError):
        errors = _flatten(exc.message_dict if hasattr(exc, "error_dict") else exc.messages)
        return Response({"detail": _summary(errors), "errors": errors}, status=400)
    if isinstance(exc, exceptions.ValidationError):
        errors = _flatten(exc.detail)
        return Response({"detail": _summary(errors), "errors": errors}, status=400)
    if isinstance(exc, exceptions.ParseError):
        return Response({"detail": f"malformed request: {exc.detail}"}, status=400)
    if isinstance(exc, Http404 | PermissionDenied | exceptions.APIException):
        response = drf_exception_handler(exc, context)
        if response is not None:
            detail = response.data.get("detail") if isinstance(response.data, dict) else None
            response.data = {"detail": str(detail or response.data)}
            return response
    if is_database_unavailable(exc):  # 503 with Retry-After (league/database_outage.py)
        return database_unavailable_api_response(exc)
    logger.error("unexpected error in %s", context.get("view"), exc_info=exc)
    return Response(
        {"detail": "internal error; it has been logged"},
        status=status.HTTP_500_INTERNAL_SERVER_ERROR,
    )
