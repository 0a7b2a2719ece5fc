"""Sign up, log in, log out, and joining a club with an invitation code."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import UserCreationForm
from django.contrib.auth.views import LoginView, LogoutView
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_http_methods

from web.invitations import InvitationError, invitation_accept


class SignUpForm(UserCreationForm):  # type: ignore[type-arg]
    """A username and a password twice (Django's password validators apply)."""


class SiteLoginView(LoginView):
    template_name = "web/login.html"
    next_page = "home"
    redirect_authenticated_user = True


class SiteLogoutView(LogoutView):
    next_page = "home"


def _safe_next(request: HttpRequest) -> str | None:
    target = request.POST.get("next") or request.GET.get("next")
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return None


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect(_safe_next(request) or "home")
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, f"Welcome, {user.get_username()}. Your account is ready.")
        return redirect(_safe_next(request) or "home")
    return render(request, "web/signup.html", {"form": form, "next": _safe_next(request)})


class InvitationForm(forms.Form):
    code = forms.CharField(
        label="Invitation code",
        max_length=64,
        strip=True,
        help_text="The code a club organiser gave you, or the end of the invitation link.",
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
            messages.success(request, f"You joined {club.name}.")
            return redirect(club.url)
    return render(request, "web/join_club.html", {"form": form})
