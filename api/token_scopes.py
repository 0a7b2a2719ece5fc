"""The API's credentials and what they may do (docs/api.md, *Tokens*).

``ApiTokenAuthentication`` reads ``Authorization: Token <key>`` (or ``Bearer <key>``): a
named token's key (``kl_...``, accounts.api_tokens) or the old token of
/api/auth/token/, which has every scope. A revoked or expired token is refused at once
(looked up at every request, never cached).

``TokenScopeRequired`` is the permission every API view lists: a request made with a named
token needs the ``read`` scope to read and, to write, the view's ``token_scope`` (``play``
unless the view says ``bots`` or ``clubs``). Requests signed in by the session (the site's
own pages) or anonymous are not limited by it.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from rest_framework.authentication import TokenAuthentication, get_authorization_header
from rest_framework.exceptions import AuthenticationFailed
from rest_framework.permissions import SAFE_METHODS, BasePermission, IsAuthenticated
from rest_framework.request import Request

from accounts.api_tokens import KEY_PREFIX, api_token_authenticate
from league.models import ApiToken, ApiTokenScope

WRITE_SCOPE_DEFAULT = ApiTokenScope.PLAY


class ApiTokenAuthentication(TokenAuthentication):
    """Named tokens with scopes, and the old token of /api/auth/token/."""

    def authenticate(self, request: Request) -> tuple[Any, Any] | None:
        header = get_authorization_header(request).split()
        if len(header) == 2 and header[0].lower() == b"bearer":
            # lichess's and GitHub's word for the same thing
            return self.authenticate_credentials(header[1].decode("latin-1"))
        return super().authenticate(request)

    def authenticate_credentials(self, key: str) -> tuple[Any, Any]:
        if not key.startswith(KEY_PREFIX):
            return super().authenticate_credentials(key)
        token = api_token_authenticate(key=key)
        if token is None:
            raise AuthenticationFailed(_("This token is unknown, revoked or expired."))
        return token.user, token


def token_scopes(request: Request) -> frozenset[str] | None:
    """The scopes of the request's named token; None when it was not made with one."""
    auth = getattr(request, "auth", None)
    return frozenset(auth.scopes) if isinstance(auth, ApiToken) else None


def scope_needed(request: Request, view: Any) -> str:
    if request.method in SAFE_METHODS:
        return str(ApiTokenScope.READ)
    return str(getattr(view, "token_scope", WRITE_SCOPE_DEFAULT))


class TokenScopeRequired(BasePermission):
    """A named token may do only what its scopes allow (403 naming the missing scope)."""

    def has_permission(self, request: Request, view: Any) -> bool:
        scopes = token_scopes(request)
        if scopes is None:
            return True
        needed = scope_needed(request, view)
        if needed in scopes:
            return True
        self.message = _(
            "This token may not do this: it needs the %(scope)s scope (it has: %(scopes)s)."
        ) % {"scope": repr(needed), "scopes": ", ".join(sorted(scopes))}
        return False


SIGNED_IN = (IsAuthenticated, TokenScopeRequired)
"""``permission_classes`` of a view only for signed-in people."""
