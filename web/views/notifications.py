"""A person's notices and email choices (docs/web.md, *Notifications*): the list (newest
first, unread marked), opening one (marks it read and goes where it points), marking one or
all read, and /settings/notifications/, which kinds also come by email. Every page here is
the signed-in person's own; the writes are POSTs, limited as the API's."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from api.throttles import SettingsThrottle
from league.errors import InvalidInputError, NotFoundError
from league.models import EmailMode
from league.selectors.notifications import notification_preferences_of, notifications_of
from league.services.notifications import (
    notification_preferences_set,
    notification_read,
    notifications_read_all,
)
from web.throttling import rate_limited


@login_required
@require_GET
def notification_list(request: HttpRequest) -> HttpResponse:
    notices = list(notifications_of(user=request.user))
    return render(
        request,
        "web/notifications.html",
        {"notices": notices, "unread": sum(1 for n in notices if n.read_at is None)},
    )


@login_required
@require_POST
@rate_limited(SettingsThrottle)
def notification_open(request: HttpRequest, notification_id: int) -> HttpResponse:
    """Mark the notice read and go where it points (the list when it points nowhere, or
    somewhere off the site)."""
    try:
        notice = notification_read(user=request.user, notification_id=notification_id)
    except NotFoundError:
        raise Http404(_("No such notification.")) from None
    safe = url_has_allowed_host_and_scheme(
        notice.url, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    return redirect(notice.url if notice.url and safe else "web:notifications")


@login_required
@require_POST
@rate_limited(SettingsThrottle)
def notification_mark_read(request: HttpRequest, notification_id: int) -> HttpResponse:
    try:
        notification_read(user=request.user, notification_id=notification_id)
    except NotFoundError:
        raise Http404(_("No such notification.")) from None
    return redirect("web:notifications")


@login_required
@require_POST
@rate_limited(SettingsThrottle)
def notifications_mark_all_read(request: HttpRequest) -> HttpResponse:
    count = notifications_read_all(user=request.user)
    messages.success(
        request,
        ngettext(
            "%(count)d notification marked read.", "%(count)d notifications marked read.", count
        )
        % {"count": count}
        if count
        else _("Nothing was unread."),
    )
    return redirect("web:notifications")


@login_required
@require_http_methods(["GET", "POST"])
@rate_limited(SettingsThrottle)
def notification_settings(request: HttpRequest) -> HttpResponse:
    """Which kinds of notice also come by email, and how: at once, in a digest or not
    (one choice per kind; a form of checkboxes named ``email`` still says on or off)."""
    if request.method == "POST":
        kinds = [row["kind"] for row in notification_preferences_of(user=request.user)]
        modes = {k: request.POST[f"mode-{k}"] for k in kinds if f"mode-{k}" in request.POST}
        chosen = set(request.POST.getlist("email"))
        try:
            notification_preferences_set(
                user=request.user,
                email={} if modes else {k: k in chosen for k in kinds},
                modes=modes,
            )
        except InvalidInputError as exc:
            messages.error(request, str(exc.detail))
            return redirect("web:notification-settings")
        messages.success(request, _("Your email choices are saved."))
        return redirect("web:notification-settings")
    return render(
        request,
        "web/notification_settings.html",
        {
            "preferences": notification_preferences_of(user=request.user),
            "modes": EmailMode.choices,
            "email": getattr(request.user, "email", ""),
        },
    )
