"""A person's account (docs/web.md, *Your account*): the email address and its verification
link, who sees their profile, the browser sessions they are signed in with, and logging out
everywhere (every session and every API token).

Verification links are Django signatures (``django.core.signing``) of the account and the
address, valid ``EMAIL_VERIFICATION_DAYS``: nothing is stored until the link is opened, and
a link for an address the person has since changed proves nothing.
"""

from __future__ import annotations

import ipaddress
import logging
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, User
from django.contrib.sessions.backends.base import SessionBase
from django.contrib.sessions.models import Session
from django.core import signing
from django.core.cache import caches
from django.core.mail import EmailMessage
from django.db import transaction
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.module_loading import import_string
from django.utils.translation import gettext
from rest_framework.authtoken.models import Token

from league.display_settings import language_of
from league.errors import InvalidInputError
from league.models import AccountSettings, ApiToken, Membership, ProfileVisibility, SignedInSession
from league.selectors.person_names import person_name
from league.services.notification_emails import absolute_url

logger = logging.getLogger(__name__)

EMAIL_VERIFICATION_DAYS = 7
_VERIFICATION_SALT = "league.accounts.email-verification"


def _settings_of(user_id: int) -> AccountSettings | None:
    return AccountSettings.objects.filter(user_id=user_id).first()


# ---------------------------------------------------------------- the email address


def verified_email_of(*, user: AbstractBaseUser) -> str:
    """The account's address if the person proved it is theirs, else ''."""
    address = str(getattr(user, "email", "") or "").strip()
    if not address:
        return ""
    row = _settings_of(int(user.pk or 0))
    return address if row is not None and row.verified_email.lower() == address.lower() else ""


def email_verification_url(*, user: AbstractBaseUser) -> str:
    """The absolute link that proves ``user``'s current address is theirs."""
    token = signing.dumps(
        {"u": user.pk, "e": str(getattr(user, "email", ""))}, salt=_VERIFICATION_SALT
    )
    return absolute_url(reverse("web:email-verify", args=[token]))


def email_verification_send(*, user: User) -> None:
    """Mail the verification link to the account's address, in the person's language. A mail
    server that fails is logged, not raised: the person can ask again in their settings."""
    if not user.email:
        return
    with translation.override(language_of(user_id=int(user.pk or 0))):
        subject = gettext("Confirm your email address · King League")
        body = "\n".join(
            [
                gettext("Hello %(name)s,") % {"name": person_name(user)},
                "",
                gettext(
                    "Open this link to confirm that %(address)s is your address at King "
                    "League. Only then do we mail you (a forgotten password, the notices you "
                    "chose)."
                )
                % {"address": user.email},
                "",
                email_verification_url(user=user),
                "",
                gettext("The link works for %(days)d days. If you did not ask for it, ignore it.")
                % {"days": EMAIL_VERIFICATION_DAYS},
            ]
        )
    try:
        EmailMessage(subject=subject, body=body, to=[user.email]).send(fail_silently=False)
    except Exception:  # the mail server: the account and its address are kept
        logger.warning("account %s: the verification mail was not sent", user.pk, exc_info=True)


def email_set(*, user: User, email: str) -> bool:
    """Give the account ``email`` (blank: none). True if a verification mail went out (a new
    address); an address another account has verified is refused."""
    email = get_user_model().objects.normalize_email(email.strip())
    if email.lower() == user.email.lower():
        if email and not verified_email_of(user=user):
            email_verification_send(user=user)
            return True
        return False
    if (
        email
        and AccountSettings.objects.filter(
            ~Q(user_id=user.pk), verified_email__iexact=email
        ).exists()
    ):
        raise InvalidInputError(gettext("Another account uses this email address."))
    user.email = email
    user.save(update_fields=["email"])
    if email:
        email_verification_send(user=user)
    return bool(email)


def email_verify(*, token: str) -> User:
    """Mark the address of a verification link as the account's verified one; the account.
    InvalidInputError for a link that is broken, too old, or for an address since changed."""
    try:
        data = signing.loads(
            token, salt=_VERIFICATION_SALT, max_age=EMAIL_VERIFICATION_DAYS * 24 * 3600
        )
    except signing.SignatureExpired:
        raise InvalidInputError(
            gettext("This link is too old. Ask for a new one in your account's settings.")
        ) from None
    except signing.BadSignature:
        raise InvalidInputError(gettext("This link is not a whole verification link.")) from None
    user = get_user_model().objects.filter(pk=data.get("u")).first()
    if user is None or not user.email or user.email != data.get("e"):
        raise InvalidInputError(gettext("This link is for an address the account no longer has."))
    with transaction.atomic():
        row, _ = AccountSettings.objects.select_for_update().get_or_create(user=user)
        row.verified_email = user.email
        row.save(update_fields=["verified_email"])
    return user


# ---------------------------------------------------------------- privacy


def profile_visibility_of(*, user_id: int) -> str:
    row = _settings_of(user_id)
    return row.profile_visibility if row is not None else ProfileVisibility.EVERYONE


def profile_visibility_set(*, user: AbstractBaseUser, visibility: str) -> None:
    if visibility not in ProfileVisibility.values:
        raise InvalidInputError(gettext("Choose everyone, people in your clubs, or nobody."))
    AccountSettings.objects.update_or_create(
        user_id=user.pk, defaults={"profile_visibility": visibility}
    )


def profile_details_visible(
    *, person_id: int, viewer: AbstractBaseUser | AnonymousUser | None
) -> bool:
    """Whether ``viewer`` (None or anonymous: a visitor) sees the person's games, partners
    and bots: always their own; else by the person's choice (people in my clubs: the viewer
    is a member of a club the person is a member of)."""
    if viewer is not None and viewer.is_authenticated and viewer.pk == person_id:
        return True
    visibility = profile_visibility_of(user_id=person_id)
    if visibility == ProfileVisibility.EVERYONE:
        return True
    if visibility == ProfileVisibility.NOBODY or viewer is None or not viewer.is_authenticated:
        return False
    person_clubs = Membership.objects.filter(user_id=person_id).values("club_id")
    return Membership.objects.filter(user_id=viewer.pk, club_id__in=person_clubs).exists()


# ---------------------------------------------------------------- sessions


@dataclass(frozen=True, kw_only=True, slots=True)
class SessionShown:
    id: int
    created_at: datetime
    user_agent: str
    address: str
    current: bool


def signed_in_session_record(
    *, user: AbstractBaseUser, session_key: str, user_agent: str, address: str | None
) -> None:
    """Remember a new signed-in session of ``user`` (on Django's user_logged_in)."""
    try:
        address = str(ipaddress.ip_address(address or ""))
    except ValueError:  # no address (a test client's force_login, a socket)
        address = None
    SignedInSession.objects.update_or_create(
        session_key=session_key,
        defaults={
            "user_id": user.pk,
            "created_at": timezone.now(),
            "user_agent": user_agent[:200],
            "address": address or None,
        },
    )


def signed_in_sessions(*, user: AbstractBaseUser, current_key: str | None) -> list[SessionShown]:
    """The person's sessions still alive, newest first (ended ones are forgotten here)."""
    rows = list(SignedInSession.objects.filter(user_id=user.pk))
    alive = set(
        Session.objects.filter(
            session_key__in=[r.session_key for r in rows], expire_date__gt=timezone.now()
        ).values_list("session_key", flat=True)
    )
    SignedInSession.objects.filter(user_id=user.pk).exclude(session_key__in=alive).delete()
    return [
        SessionShown(
            id=r.pk,
            created_at=r.created_at,
            user_agent=r.user_agent,
            address=str(r.address or ""),
            current=r.session_key == current_key,
        )
        for r in rows
        if r.session_key in alive
    ]


def _sessions_delete(keys: list[str]) -> None:
    """End the sessions of ``keys`` in the session store: their rows, and (with
    ``cached_db``, config/settings.py) their copies in the cache, at once and again once
    the transaction commits (a request that read a row before then may have put it back
    in the cache)."""
    store: type[SessionBase] = import_string(f"{settings.SESSION_ENGINE}.SessionStore")
    Session.objects.filter(session_key__in=keys).delete()
    cache_keys = [
        store(session_key=key).cache_key  # type: ignore[attr-defined]
        for key in keys
        if hasattr(store, "cache_key_prefix")
    ]
    if not cache_keys:
        return
    copies = caches[settings.SESSION_CACHE_ALIAS]
    copies.delete_many(cache_keys)
    transaction.on_commit(lambda: copies.delete_many(cache_keys), robust=True)


def signed_in_session_end(*, user: AbstractBaseUser, session_id: int) -> bool:
    """End one of the person's sessions (signed out at its next request); False if none."""
    row = SignedInSession.objects.filter(user_id=user.pk, pk=session_id).first()
    if row is None:
        return False
    _sessions_delete([row.session_key])
    row.delete()
    return True


def signed_in_session_rekey(*, old_key: str | None, new_key: str | None) -> None:
    """The session kept its person under a new key (a password change cycles it)."""
    if old_key and new_key and old_key != new_key:
        SignedInSession.objects.filter(session_key=old_key).update(session_key=new_key)


def signed_in_session_forget(*, session_key: str | None) -> None:
    """A session logged out by its own person: nothing to list any more."""
    if session_key:
        SignedInSession.objects.filter(session_key=session_key).delete()


def log_out_everywhere(*, user: AbstractBaseUser, keep_session_key: str | None = None) -> int:
    """End every session of the person but ``keep_session_key`` and revoke every API token
    (the named ones and the old one of /api/auth/token/); how many things were ended."""
    with transaction.atomic():
        rows = SignedInSession.objects.filter(user_id=user.pk)
        if keep_session_key:
            rows = rows.exclude(session_key=keep_session_key)
        keys = list(rows.values_list("session_key", flat=True))
        _sessions_delete(keys)
        rows.delete()
        tokens = ApiToken.objects.filter(user_id=user.pk, revoked_at__isnull=True).update(
            revoked_at=timezone.now()
        )
        legacy, _ = Token.objects.filter(user_id=user.pk).delete()
    return len(keys) + tokens + legacy
