"""What the API says of a request's fields it does not take (never silently ignored:
api.operations.validated_every_field), in the request's language."""

from __future__ import annotations

from collections.abc import Iterable

from django.utils.translation import gettext


def field_unknown(accepted: Iterable[str]) -> str:
    """A request's field the operation does not know (never silently ignored)."""
    return gettext("unknown field: this request takes %(accepted)s") % {
        "accepted": ", ".join(accepted)
    }


def field_read_only() -> str:
    return gettext("read-only: it cannot be changed by this request")


def fields_refused(names: Iterable[str]) -> str:
    """The message of a request refused for fields it may not send."""
    return gettext("fields this request does not take: %(names)s") % {"names": ", ".join(names)}
