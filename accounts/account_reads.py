"""Reads of people's accounts (accounts.account_settings writes them)."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User

from league.models import AccountSettings, ApiToken


def users_with_verified_email(*, email: str) -> list[User]:
    """The active accounts whose confirmed address is ``email`` (any case): the only ones a
    password-reset link is mailed to."""
    verified = AccountSettings.objects.filter(verified_email__iexact=email).values("user_id")
    return list(
        get_user_model().objects.filter(email__iexact=email, is_active=True, pk__in=verified)
    )


def api_tokens_of(*, user_id: int) -> list[ApiToken]:
    """The person's named API tokens, revoked and expired ones too, newest first."""
    return list(ApiToken.objects.filter(user_id=user_id).order_by("-created_at", "-id"))
