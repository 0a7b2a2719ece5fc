from typing import Any

from django.apps import AppConfig


class WebConfig(AppConfig):
    """The web pages: accounts, the replay viewer, the table, standings and bot pages."""

    name = "web"
    verbose_name = "Web pages"

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_in

        user_logged_in.connect(_session_remember, dispatch_uid="web.session_remember")

        # Imported here, not at the top: it imports the models, not ready before ready().
        from accounts.kept_users import kept_users_connect

        kept_users_connect()  # a user saved: its copy for signed-in cache hits is old


def _session_remember(sender: Any, request: Any, user: Any, **kwargs: Any) -> None:
    """Every sign-in through the site (the page, sign-up, the admin) is listed in the
    person's sessions (accounts.account_settings), to be ended from there."""
    # Imported here, not at the top: apps.py is imported before the models are ready.
    from accounts.account_settings import signed_in_session_record

    # The same reason: sign_in imports the models too.
    from accounts.sign_in import client_address

    session = getattr(request, "session", None)
    if session is None:
        return
    if session.session_key is None:
        session.save()
    signed_in_session_record(
        user=user,
        session_key=session.session_key,
        user_agent=request.META.get("HTTP_USER_AGENT", ""),
        address=client_address(request),
    )
