"""A person's account in the settings (docs/web.md, *Your account*): the email address and its
verification, who sees their profile, their password (Django's own change and reset views
with our templates), their signed-in sessions and logging out everywhere, and their API
tokens (accounts.account_settings, accounts.api_tokens)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import PasswordResetForm
from django.contrib.auth.models import User
from django.contrib.auth.views import (
    PasswordChangeDoneView,
    PasswordChangeView,
    PasswordResetCompleteView,
    PasswordResetConfirmView,
    PasswordResetDoneView,
    PasswordResetView,
)
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse_lazy
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts.account_reads import api_tokens_of, users_with_verified_email
from accounts.account_settings import (
    email_set,
    email_verification_send,
    email_verify,
    log_out_everywhere,
    profile_visibility_of,
    profile_visibility_set,
    signed_in_session_end,
    signed_in_session_rekey,
    signed_in_sessions,
    verified_email_of,
)
from accounts.api_tokens import (
    api_token_create,
    api_token_revoke,
    legacy_api_token_exists,
    legacy_api_token_revoke,
)
from api.throttles import RateLimited, SettingsThrottle, SignInThrottle, throttle_check
from league.errors import InvalidInputError, NotFoundError
from league.models import ApiTokenScope, ProfileVisibility
from league.selectors.person_names import display_name_of, person_name
from league.services.person_names import display_name_set
from web.throttling import rate_limited, too_many_requests_page


def _user(request: HttpRequest) -> User:
    user = request.user
    assert isinstance(user, User)
    return user


# ---------------------------------------------------------------- address and privacy


class EmailForm(forms.Form):
    email = forms.EmailField(
        label=gettext_lazy("Email address"),
        required=False,
        help_text=gettext_lazy(
            "Only to reset a forgotten password and to send the notices you choose; never "
            "shown to anyone. Leave it empty to have none."
        ),
    )


class DisplayNameForm(forms.Form):
    display_name = forms.CharField(
        label=gettext_lazy("Display name"),
        required=False,
        strip=False,  # the service strips and checks (league.services.person_names)
        max_length=200,  # the service's own limit (40) is refused with its message
        help_text=gettext_lazy(
            "The name others see at tables, in standings, chat and notices; at most 40 "
            "characters. Leave it empty to be shown by your username."
        ),
    )


class PrivacyForm(forms.Form):
    profile_visibility = forms.ChoiceField(
        label=gettext_lazy("Who sees my games, partners and bots"),
        choices=ProfileVisibility.choices,
        widget=forms.RadioSelect,
        help_text=gettext_lazy("Your name and ratings are public in any case."),
    )


@login_required
@require_http_methods(["GET", "POST"])
@rate_limited(SettingsThrottle)
def account_settings(request: HttpRequest) -> HttpResponse:
    user = _user(request)
    action = request.POST.get("action", "")
    email_form = EmailForm(
        request.POST if action == "email" else None, initial={"email": user.email}
    )
    display_name_form = DisplayNameForm(
        request.POST if action == "display_name" else None,
        initial={"display_name": display_name_of(user=user)},
    )
    privacy_form = PrivacyForm(
        request.POST if action == "privacy" else None,
        initial={"profile_visibility": profile_visibility_of(user_id=user.pk)},
    )
    if action == "email" and email_form.is_valid():
        try:
            sent = email_set(user=user, email=email_form.cleaned_data["email"])
        except InvalidInputError as error:
            email_form.add_error("email", error.detail)
        else:
            if sent:
                messages.info(
                    request,
                    _("We sent a link to %(address)s: open it to confirm your address.")
                    % {"address": user.email},
                )
            else:
                messages.success(request, _("Your email address is saved."))
            return redirect("web:account-settings")
    if action == "display_name" and display_name_form.is_valid():
        try:
            display_name_set(user=user, display_name=display_name_form.cleaned_data["display_name"])
        except InvalidInputError as error:
            display_name_form.add_error(
                "display_name", (error.errors or {}).get("display_name") or error.detail
            )
        else:
            messages.success(request, _("Your display name is saved."))
            return redirect("web:account-settings")
    if action == "privacy" and privacy_form.is_valid():
        profile_visibility_set(
            user=user, visibility=privacy_form.cleaned_data["profile_visibility"]
        )
        messages.success(request, _("Your privacy settings are saved."))
        return redirect("web:account-settings")
    context = {
        "display_name_form": display_name_form,
        "shown_name": person_name(user),
        "email_form": email_form,
        "privacy_form": privacy_form,
        "verified": bool(verified_email_of(user=user)),
    }
    status = 400 if display_name_form.errors else 200
    return render(request, "web/account_settings.html", context, status=status)


@login_required
@require_POST
@rate_limited(SettingsThrottle)
def email_verification_resend(request: HttpRequest) -> HttpResponse:
    user = _user(request)
    if user.email and not verified_email_of(user=user):
        email_verification_send(user=user)
        messages.info(
            request,
            _("We sent a link to %(address)s: open it to confirm your address.")
            % {"address": user.email},
        )
    return redirect("web:account-settings")


@require_GET
def email_verify_page(request: HttpRequest, token: str) -> HttpResponse:
    """The link of a verification mail: works signed in or not (another browser, a phone)."""
    try:
        user = email_verify(token=token)
    except InvalidInputError as error:
        return render(request, "web/email_verified.html", {"problem": error.detail}, status=400)
    return render(request, "web/email_verified.html", {"address": user.email})


# ---------------------------------------------------------------- password


class VerifiedAddressPasswordResetForm(PasswordResetForm):
    """Django's reset form, mailing only an address its account has verified (an address
    someone typed at sign-up without owning it gets no reset link)."""

    def get_users(self, email: str) -> Any:
        return (
            user for user in users_with_verified_email(email=email) if user.has_usable_password()
        )


class SitePasswordResetView(PasswordResetView):
    """Limited per address like signing in: each request can mail someone."""

    template_name = "web/password_reset.html"
    email_template_name = "web/password_reset_email.txt"
    subject_template_name = "web/password_reset_subject.txt"
    form_class = VerifiedAddressPasswordResetForm
    success_url = reverse_lazy("web:password-reset-done")

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        try:
            throttle_check(request, SignInThrottle)
        except RateLimited as error:
            return too_many_requests_page(request, error)
        return super().post(request, *args, **kwargs)

    def form_valid(self, form: PasswordResetForm) -> HttpResponse:
        # The link in the mail starts with the site's address as people reach it.
        self.extra_email_context = {"site_url": str(settings.SITE_URL).rstrip("/")}
        return super().form_valid(form)


class SitePasswordResetDoneView(PasswordResetDoneView):
    template_name = "web/password_reset_done.html"


class SitePasswordResetConfirmView(PasswordResetConfirmView):
    template_name = "web/password_reset_confirm.html"
    success_url = reverse_lazy("web:password-reset-complete")


class SitePasswordResetCompleteView(PasswordResetCompleteView):
    template_name = "web/password_reset_complete.html"


class SitePasswordChangeView(PasswordChangeView):
    template_name = "web/password_change.html"
    success_url = reverse_lazy("web:password-change-done")

    def form_valid(self, form: Any) -> HttpResponse:
        old_key = self.request.session.session_key
        response = super().form_valid(form)  # signs the others out, cycles this one's key
        signed_in_session_rekey(old_key=old_key, new_key=self.request.session.session_key)
        return response


class SitePasswordChangeDoneView(PasswordChangeDoneView):
    template_name = "web/password_change_done.html"


# ---------------------------------------------------------------- sessions


@login_required
@require_http_methods(["GET", "POST"])
@rate_limited(SettingsThrottle)
def session_list(request: HttpRequest) -> HttpResponse:
    user = _user(request)
    current = request.session.session_key
    if request.method == "POST":
        if request.POST.get("action") == "everywhere":
            log_out_everywhere(user=user, keep_session_key=current)
            messages.success(
                request,
                _(
                    "You are logged out everywhere else, and every API token you had is "
                    "revoked. This browser stays signed in."
                ),
            )
        else:
            raw = request.POST.get("session", "")
            ended = raw.isdigit() and signed_in_session_end(user=user, session_id=int(raw))
            if ended:
                messages.success(request, _("That session is ended."))
            else:
                messages.error(request, _("That session had ended already."))
        return redirect("web:sessions")
    sessions = signed_in_sessions(user=user, current_key=current)
    return render(request, "web/sessions.html", {"sessions": sessions})


# ---------------------------------------------------------------- API tokens

EXPIRY_CHOICES = [
    ("30", gettext_lazy("in 30 days")),
    ("90", gettext_lazy("in 90 days")),
    ("365", gettext_lazy("in a year")),
    ("", gettext_lazy("never")),
]


class TokenForm(forms.Form):
    name = forms.CharField(
        label=gettext_lazy("Name"),
        max_length=100,
        help_text=gettext_lazy("What uses it, such as “my bot's runner” or “results script”."),
    )
    scopes = forms.MultipleChoiceField(
        label=gettext_lazy("It may"),
        choices=[
            (ApiTokenScope.READ, gettext_lazy("read: everything you can see")),
            (ApiTokenScope.PLAY, gettext_lazy("play: moves, tables, entering leagues")),
            (ApiTokenScope.BOTS, gettext_lazy("bots: upload bots, enter them on ladders")),
            (ApiTokenScope.CLUBS, gettext_lazy("clubs: run your clubs and their leagues")),
        ],
        widget=forms.CheckboxSelectMultiple,
        initial=[ApiTokenScope.READ],
    )
    expires = forms.ChoiceField(
        label=gettext_lazy("Expires"), choices=EXPIRY_CHOICES, required=False, initial="90"
    )


@login_required
@require_http_methods(["GET", "POST"])
@rate_limited(SettingsThrottle)
def token_list(request: HttpRequest) -> HttpResponse:
    user = _user(request)
    form = TokenForm(request.POST if request.POST.get("action") == "create" else None)
    new_key = ""
    if request.method == "POST":
        action = request.POST.get("action")
        if action == "create" and form.is_valid():
            expires = form.cleaned_data.get("expires") or ""
            try:
                _token, new_key = api_token_create(
                    user=user,
                    name=form.cleaned_data["name"],
                    scopes=form.cleaned_data["scopes"],
                    expires_in_days=int(expires) if expires else None,
                )
            except InvalidInputError as error:
                form.add_error(None, error.detail)
            else:
                form = TokenForm()
        elif action == "revoke":
            raw = request.POST.get("token", "")
            try:
                token = api_token_revoke(user=user, token_id=int(raw) if raw.isdigit() else 0)
            except NotFoundError as error:
                messages.error(request, error.detail)
            else:
                messages.success(
                    request, _("The token %(name)s is revoked.") % {"name": repr(token.name)}
                )
            return redirect("web:tokens")
        elif action == "revoke-legacy":
            legacy_api_token_revoke(user=user)
            messages.success(request, _("Your old API token is revoked."))
            return redirect("web:tokens")
    context = {
        "form": form,
        "new_key": new_key,
        "tokens": api_tokens_of(user_id=user.pk),
        "now": timezone.now(),
        "legacy": legacy_api_token_exists(user=user),
    }
    return render(request, "web/tokens.html", context)
