"""Named API tokens with scopes (docs/api.md, *Tokens*), like GitHub's and lichess's: a
person makes a token with a name, the scopes it may use and maybe an expiry; sees when each
was last used; revokes any. Only the key's SHA-256 is stored: the key is shown once.

The token of /api/auth/token/ (Django REST framework's one token per person) still works,
with every scope, until its person revokes it (``DELETE /api/auth/token/``) or logs out
everywhere: scripts keep working until they move to named tokens.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterable
from datetime import datetime, timedelta

from django.contrib.auth.models import AbstractBaseUser, User
from django.db.models import Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext
from rest_framework.authtoken.models import Token

from league.errors import InvalidInputError, NotAllowedError, NotFoundError
from league.models import ApiToken, ApiTokenScope

KEY_PREFIX = "kl_"
"""Every named token's key starts so: a leaked key is recognisable (secret scanners)."""
LAST_USED_PRECISION = timedelta(minutes=1)
"""``last_used_at`` is written at most once a minute per token, not at every request."""
ALL_SCOPES = frozenset(ApiTokenScope.values)
TOKENS_PER_PERSON = 50


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


def api_token_create(
    *,
    user: AbstractBaseUser,
    name: str,
    scopes: Iterable[str],
    expires_in_days: int | None = None,
    now: datetime | None = None,
    made_with: ApiToken | None = None,
) -> tuple[ApiToken, str]:
    """A new token of ``user`` and its key (shown to the person once, stored nowhere).

    ``made_with``: the named token the request was made with (the API), whose scopes and
    expiry bound the new token's, so that a token never makes a wider or longer-lived one."""
    now = now or timezone.now()
    name = name.strip()
    chosen = sorted(set(scopes))
    if not name:
        raise InvalidInputError(gettext("Give the token a name, such as the script that uses it."))
    if not chosen:
        raise InvalidInputError(gettext("Choose at least one scope."))
    unknown = [scope for scope in chosen if scope not in ALL_SCOPES]
    if unknown:
        raise InvalidInputError(
            gettext("Unknown scope %(scope)s: choose from read, play, bots and clubs.")
            % {"scope": repr(unknown[0])}
        )
    if expires_in_days is not None and not 1 <= expires_in_days <= 3650:
        raise InvalidInputError(gettext("A token expires after 1 to 3650 days, or never."))
    expires_at = now + timedelta(days=expires_in_days) if expires_in_days else None
    if made_with is not None:
        _within_token(made_with, chosen, expires_at)
    if api_tokens_active(user=user, now=now).count() >= TOKENS_PER_PERSON:
        raise InvalidInputError(
            gettext("You have %(count)d tokens: revoke one you no longer use first.")
            % {"count": TOKENS_PER_PERSON}
        )
    key = KEY_PREFIX + secrets.token_urlsafe(30)
    token = ApiToken.objects.create(
        user_id=user.pk,
        name=name[:100],
        key_digest=_digest(key),
        prefix=key[:8],
        scopes=chosen,
        created_at=now,
        expires_at=expires_at,
    )
    return token, key


def _within_token(made_with: ApiToken, scopes: list[str], expires_at: datetime | None) -> None:
    wider = [scope for scope in scopes if scope not in made_with.scopes]
    if wider:
        raise NotAllowedError(
            gettext("A token can only make tokens with its own scopes (%(scopes)s), not %(wider)s.")
            % {"scopes": ", ".join(sorted(made_with.scopes)), "wider": ", ".join(wider)}
        )
    if made_with.expires_at is not None and (
        expires_at is None or expires_at > made_with.expires_at
    ):
        raise NotAllowedError(
            gettext("A token can only make tokens that expire no later than itself (%(date)s).")
            % {"date": made_with.expires_at.date().isoformat()}
        )


def api_tokens_active(*, user: AbstractBaseUser, now: datetime | None = None) -> QuerySet[ApiToken]:
    """The person's tokens not revoked and not expired, newest first."""
    now = now or timezone.now()
    return ApiToken.objects.filter(
        Q(expires_at__isnull=True) | Q(expires_at__gt=now), user_id=user.pk, revoked_at__isnull=True
    )


def api_token_revoke(
    *, user: AbstractBaseUser, token_id: int, made_with: ApiToken | None = None
) -> ApiToken:
    """Revoke one of the person's tokens: refused from its next request on.

    ``made_with``: the named token the request was made with (the API); it revokes itself
    or a token with no scope it lacks, never a wider one (a leaked narrow token cannot cut
    off the person's other scripts)."""
    token = ApiToken.objects.filter(user_id=user.pk, pk=token_id).first()
    if token is None:
        raise NotFoundError(gettext("You have no such token."))
    if (
        made_with is not None
        and token.pk != made_with.pk
        and not set(token.scopes) <= set(made_with.scopes)
    ):
        raise NotAllowedError(
            gettext("A token can only revoke itself or tokens with no scope it lacks.")
        )
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
    return token


def api_token_authenticate(*, key: str, now: datetime | None = None) -> ApiToken | None:
    """The live token of ``key`` with its person, or None (unknown, revoked, expired, or
    its person deactivated); notes that it was used."""
    now = now or timezone.now()
    token = (
        ApiToken.objects.select_related("user")
        .filter(key_digest=_digest(key), revoked_at__isnull=True)
        .first()
    )
    if token is None or not token.user.is_active:
        return None
    if token.expires_at is not None and token.expires_at <= now:
        return None
    if token.last_used_at is None or token.last_used_at <= now - LAST_USED_PRECISION:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
    return token


def legacy_api_token_get_or_create(*, user: User) -> str:
    """The key of ``user``'s old-style token (``/api/auth/token/``), made on first use."""
    token, _ = Token.objects.get_or_create(user=user)
    return str(token.key)


def legacy_api_token_revoke(*, user: AbstractBaseUser) -> bool:
    """Revoke the person's old-style token; True if there was one."""
    deleted, _ = Token.objects.filter(user_id=user.pk).delete()
    return deleted > 0


def legacy_api_token_exists(*, user: AbstractBaseUser) -> bool:
    return Token.objects.filter(user_id=user.pk).exists()
