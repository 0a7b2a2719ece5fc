"""The language switcher (on every page) and /settings/display/: a person's language,
time zone, four-colour deck and large cards (docs/web.md, *Languages and display*)."""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext, gettext_lazy
from django.views.decorators.http import require_http_methods, require_POST
from django.views.i18n import set_language

from api.throttles import SettingsThrottle
from league.display_settings import (
    display_settings_checked,
    display_settings_of,
    display_settings_set,
    language_set,
    time_zone_names,
)
from league.errors import InvalidInputError
from web.person_display import session_display_keep
from web.throttling import rate_limited


@require_POST
def language_switch(request: HttpRequest) -> HttpResponse:
    """Django's set_language (the cookie, then back to ``next``), and for a signed-in
    person the language kept in their settings too."""
    language = request.POST.get("language", "")
    if request.user.is_authenticated and language in dict(settings.LANGUAGES):
        language_set(user=request.user, language=language)
        session_display_keep(request, display_settings_of(user_id=int(request.user.pk or 0)))
    return set_language(request)


class DisplaySettingsForm(forms.Form):
    language = forms.ChoiceField(
        label=gettext_lazy("Language"),
        required=False,
        choices=[("", gettext_lazy("As my browser asks")), *settings.LANGUAGES],
    )
    time_zone = forms.ChoiceField(
        label=gettext_lazy("Time zone"),
        required=False,
        help_text=gettext_lazy("Deadlines and dates are shown in this time zone."),
    )
    four_colour_deck = forms.BooleanField(
        label=gettext_lazy("Four-colour deck (clubs green, diamonds blue)"), required=False
    )
    large_cards = forms.BooleanField(label=gettext_lazy("Large cards"), required=False)

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        field = self.fields["time_zone"]
        assert isinstance(field, forms.ChoiceField)
        field.choices = [("", gettext_lazy("UTC (the site's)"))] + [
            (name, name) for name in time_zone_names()
        ]


@login_required
@require_http_methods(["GET", "POST"])
@rate_limited(SettingsThrottle)
def display_settings(request: HttpRequest) -> HttpResponse:
    current = display_settings_of(user_id=int(request.user.pk or 0))
    form = DisplaySettingsForm(request.POST or None, initial=current.as_dict())
    if request.method == "POST" and form.is_valid():
        try:
            chosen = display_settings_checked(**form.cleaned_data)
        except InvalidInputError as error:
            form.add_error(None, error.detail)
        else:
            display_settings_set(user=request.user, chosen=chosen)
            session_display_keep(request, chosen)
            response = redirect("web:display-settings")
            if chosen.language:
                response.set_cookie(
                    settings.LANGUAGE_COOKIE_NAME,
                    chosen.language,
                    samesite="Lax",
                )
            else:
                response.delete_cookie(settings.LANGUAGE_COOKIE_NAME)
            messages.success(request, gettext("Your display settings are saved."))
            return response
    return render(request, "web/display_settings.html", {"form": form})
