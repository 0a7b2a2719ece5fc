"""The mail the service sends (people's notices, league.services.notification_emails) and
the site's address for the links in it, read from the environment: EMAIL_URL,
DEFAULT_FROM_EMAIL and SITE_URL (docs/configuration.md). A bad value is a
ConfigurationError whose one line names the variable, as for every other variable.
"""

from collections.abc import Mapping
from email.utils import parseaddr
from typing import Any
from urllib.parse import unquote, urlsplit

from config.configuration import ConfigurationError, url_for_display

EMAIL_SCHEMES = {
    # scheme: (TLS after connecting, TLS from the start, default port)
    "smtp": (False, False, 25),
    "smtp+tls": (True, False, 587),
    "smtps": (False, True, 465),
    "smtp+ssl": (False, True, 465),
}
EMAIL_TIMEOUT_SECONDS = 10


def email_from_env(environ: Mapping[str, str]) -> dict[str, Any]:
    """EMAIL_URL as Django's email settings: ``smtp://user:password@host:25``,
    ``smtp+tls://...:587`` (STARTTLS) or ``smtps://...:465`` (TLS from the start); the user
    and password are percent-decoded. ``console://`` or unset: mails are written to the
    log (the console backend), sent nowhere."""
    raw = environ.get("EMAIL_URL", "").strip()
    if not raw or raw == "console://":
        return {
            "EMAIL_BACKEND": "django.core.mail.backends.console.EmailBackend",
            "EMAIL_HOST": "localhost",
            "EMAIL_PORT": 25,
            "EMAIL_HOST_USER": "",
            "EMAIL_HOST_PASSWORD": "",
            "EMAIL_USE_TLS": False,
            "EMAIL_USE_SSL": False,
            "EMAIL_TIMEOUT": EMAIL_TIMEOUT_SECONDS,
        }
    try:
        parts = urlsplit(raw)
        port = parts.port
    except ValueError as exc:
        raise ConfigurationError("EMAIL_URL", f"not a URL ({exc}): {url_for_display(raw)}") from exc
    if parts.scheme not in EMAIL_SCHEMES:
        raise ConfigurationError(
            "EMAIL_URL",
            f"expected smtp://, smtp+tls://, smtps:// or console://, got {url_for_display(raw)}",
        )
    if not parts.hostname:
        raise ConfigurationError("EMAIL_URL", f"no host in {url_for_display(raw)}")
    starttls, ssl, default_port = EMAIL_SCHEMES[parts.scheme]
    return {
        "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
        "EMAIL_HOST": parts.hostname,
        "EMAIL_PORT": port or default_port,
        "EMAIL_HOST_USER": unquote(parts.username or ""),
        "EMAIL_HOST_PASSWORD": unquote(parts.password or ""),
        "EMAIL_USE_TLS": starttls,
        "EMAIL_USE_SSL": ssl,
        "EMAIL_TIMEOUT": EMAIL_TIMEOUT_SECONDS,
    }


def from_email_from_env(environ: Mapping[str, str], *, default: str) -> str:
    """DEFAULT_FROM_EMAIL: ``league@example.org`` or ``King League <league@example.org>``."""
    raw = environ.get("DEFAULT_FROM_EMAIL", "").strip()
    if not raw:
        return default
    _, address = parseaddr(raw)
    local, at, domain = address.partition("@")
    if not (local and at and "." in domain) or any(c in raw for c in "\r\n"):
        raise ConfigurationError(
            "DEFAULT_FROM_EMAIL",
            f"expected an address such as King League <league@example.org>, got {raw!r}",
        )
    return raw


def site_url_from_env(environ: Mapping[str, str], *, default: str) -> str:
    """SITE_URL: the site's address as people reach it (``https://league.example.org``),
    for the links in mails; no trailing slash."""
    raw = environ.get("SITE_URL", "").strip()
    if not raw:
        return default
    try:
        parts = urlsplit(raw)
        parts.port  # noqa: B018 - raises ValueError for a bad port
    except ValueError as exc:
        raise ConfigurationError("SITE_URL", f"not a URL ({exc}): {raw!r}") from exc
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigurationError(
            "SITE_URL",
            "expected http(s)://host[:port][/path], such as https://league.example.org, "
            f"got {raw!r}",
        )
    if parts.query or parts.fragment:
        raise ConfigurationError("SITE_URL", f"expected no query or fragment, got {raw!r}")
    return raw.rstrip("/")
