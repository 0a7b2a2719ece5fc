"""Sign up, log in, log out, and joining a club with an invitation code.

Logging in goes through the sign-in lock (accounts/sign_in.py): after too many wrong
passwords the username is locked for a while, and the page says until when (status 429).
Log-in attempts from one address are rate limited like the API's token endpoint.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm
from django.contrib.auth.views import LoginView, LogoutView
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods

from accounts.account_settings import signed_in_session_forget
from accounts.sign_in import (
    SignInLock,
    account_create,
    known_device_remember,
    sign_in_lock_for,
)
from api.throttles import RateLimited, SignInThrottle, SignUpThrottle, throttle_check
from league.errors import LeagueError
from league.selectors.clubs import invitation_preview
from league.services.demo import demo_table_open
from web.invitations import InvitationError, invitation_accept
from web.throttling import rate_limited, too_many_requests_page


class SignUpForm(UserCreationForm):  # type: ignore[type-arg]
    """A username, an email address (optional) and a password twice (Django's password
    validators apply)."""

    email = forms.EmailField(
        label=gettext_lazy("Email address (optional)"),
        required=False,
        help_text=gettext_lazy(
            "Only to reset a forgotten password and to send the notices you choose; never "
            "shown to anyone. We mail you a link to confirm it."
        ),
    )

    class Meta(UserCreationForm.Meta):
        fields = ("username", "email")


class SignInForm(AuthenticationForm):
    """Django's log-in form; for a locked username, the lock's message instead of "wrong
    password" (``lock`` is set then)."""

    lock: SignInLock | None = None

    def clean(self) -> dict[str, Any]:
        try:
            return super().clean()
        except ValidationError:
            username = self.cleaned_data.get("username")
            self.lock = sign_in_lock_for(self.request, username=username) if username else None
            if self.lock is None:
                raise
            raise ValidationError(self.lock.message(), code="locked") from None


class SiteLoginView(LoginView):
    template_name = "web/login.html"
    form_class = SignInForm
    next_page = "home"
    redirect_authenticated_user = True

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        try:
            throttle_check(request, SignInThrottle)
        except RateLimited as error:
            return too_many_requests_page(request, error)
        return super().post(request, *args, **kwargs)

    def form_valid(self, form: AuthenticationForm) -> HttpResponse:
        response = super().form_valid(form)
        known_device_remember(self.request, response, username=form.get_user().get_username())
        return response

    def form_invalid(self, form: AuthenticationForm) -> HttpResponse:
        response = super().form_invalid(form)
        lock = getattr(form, "lock", None)
        if isinstance(lock, SignInLock):
            response.status_code = 429
            response["Retry-After"] = str(lock.seconds_left())
        return response


class SiteLogoutView(LogoutView):
    next_page = "home"

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        signed_in_session_forget(session_key=request.session.session_key)
        return super().post(request, *args, **kwargs)


def _safe_next(request: HttpRequest) -> str | None:
    target = request.POST.get("next") or request.GET.get("next")
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return None


def _first_page(request: HttpRequest, user: Any, next_page: str | None) -> HttpResponse:
    """Where a newcomer lands: seated at a new *Play now* table when they came from *Play
    now* (signing up is their click on it), else the page they came from, else home."""
    if next_page == reverse("web:play-now"):
        try:
            match = demo_table_open(actor=user)
        except LeagueError as exc:
            messages.error(request, exc.detail)  # the play-now page says what it is
        else:
            messages.success(request, _("Your table is ready: you sit at seat 0. Good luck!"))
            return redirect("web:table", match_id=match.pk, seat=0)
    return redirect(next_page or "home")


@require_http_methods(["GET", "POST"])
@rate_limited(SignUpThrottle)
def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect(_safe_next(request) or "home")
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = account_create(
            username=form.cleaned_data["username"],
            password=form.cleaned_data["password1"],
            email=form.cleaned_data.get("email") or "",
        )
        login(request, user, backend=settings.AUTHENTICATION_BACKENDS[0])
        messages.success(
            request,
            _("Welcome, %(get_username)s. Your account is ready.")
            % {"get_username": user.get_username()},
        )
        if user.email:
            messages.info(
                request,
                _("We sent a link to %(address)s: open it to confirm your address.")
                % {"address": user.email},
            )
        response = _first_page(request, user, _safe_next(request))
        known_device_remember(request, response, username=user.get_username())
        return response
    return render(request, "web/signup.html", {"form": form, "next": _safe_next(request)})


class InvitationForm(forms.Form):
    code = forms.CharField(
        label=gettext_lazy("Invitation code"),
        max_length=64,
        strip=True,
        help_text=gettext_lazy(
            "The code a club organiser gave you, or the end of the invitation link."
        ),
    )


@login_required
@require_http_methods(["GET", "POST"])
def join_club(request: HttpRequest, code: str = "") -> HttpResponse:
    form = InvitationForm(request.POST or None, initial={"code": code})
    if request.method == "POST" and form.is_valid():
        try:
            club = invitation_accept(user=request.user, code=form.cleaned_data["code"])
        except InvitationError as exc:
            form.add_error("code", str(exc))
        else:
            messages.success(request, _("You joined %(name)s.") % {"name": club.name})
            return redirect(club.url)
    # A link names its club before anyone joins it: the person sees what they agree to.
    code = code.strip()
    invitation, problem = invitation_preview(user=request.user, code=code) if code else (None, "")
    context = {
        "form": form,
        "code": code,
        "invitation": invitation,
        "problem": problem[:1].upper() + problem[1:] if problem else "",
    }
    return render(request, "web/join_club.html", context)
