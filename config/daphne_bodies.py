"""Leave request bodies to Django when daphne serves the site.

daphne's requests are Twisted's, and Twisted parses the body of every POST sent as a form
(``application/x-www-form-urlencoded`` or ``multipart/form-data``) itself, before daphne
hands the request to Django. A multipart body Twisted cannot parse gets Twisted's own
empty 400 and a closed connection: no JSON, no message, nothing logged by the league.
Django parses the body anyway (and refuses a malformed one through the API's exception
handler, api/exceptions.py, or the site's 400 page), so Twisted's parse is only
work done twice. Twisted's ``Request`` takes ``parsePOSTFormSubmission=False`` for that:
``daphne_leaves_bodies_to_django`` makes daphne build its requests so.

It changes nothing unless daphne's server is already loaded (it is, by ``daphne`` and by
``manage.py runserver``, before they load config.asgi), and nothing if this Twisted has
no such parameter (older than 24.7).
"""

from __future__ import annotations

import inspect
import sys
from typing import Any


def daphne_leaves_bodies_to_django() -> bool:
    """Make the running daphne leave POST bodies to Django; True if it does now."""
    http_protocol = sys.modules.get("daphne.http_protocol")
    if http_protocol is None:
        return False
    base = http_protocol.WebRequest
    if getattr(base, "leaves_bodies_to_django", False):
        return True
    from twisted.web import http

    if "parsePOSTFormSubmission" not in inspect.signature(http.Request.__init__).parameters:
        return False

    class WebRequest(base):  # type: ignore[misc, valid-type]
        """daphne's request, built with Twisted's form parsing turned off."""

        leaves_bodies_to_django = True

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            kwargs["parsePOSTFormSubmission"] = False
            super().__init__(*args, **kwargs)

    # HTTPFactory.buildProtocol reads the module's WebRequest for every connection
    http_protocol.WebRequest = WebRequest  # type: ignore[attr-defined]
    return True
