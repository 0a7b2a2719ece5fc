"""Bot pages: a person's bots, one bot's versions (upload, validation, sha256, faults), its
matches and its rating chart. The validation log and the faults' messages and logs are
shown to the bot's owner and staff only
(league.selectors.bots.can_read_bot_private); everyone else sees outcomes and fault
kinds."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from api.throttles import UploadThrottle
from bots.models import Bot, BotVersion
from bots.services import BotServiceError
from league.errors import LeagueError, NotFoundError
from league.selectors.bots import (
    bot_get,
    bot_report_public,
    bots_without_family,
    can_read_bot_private,
)
from league.selectors.ratings import competitor_ratings
from league.selectors.version_standing import bot_version_standing
from league.services.bot_settings import bot_add, bot_settings_change
from league.services.bot_versions import bot_version_submit
from league.services.competitors import bot_entry_consent_set
from league.words.upload_refusals import upload_refusal_in_language
from web.charts import line_chart_svg
from web.forms import (
    BotConsentForm,
    BotFamiliesForm,
    BotForm,
    BotRatedGamesForm,
    BotUploadForm,
    family_choices,
)
from web.selectors import (
    bot_competitors,
    bot_versions,
    bots_by_whose,
    matches_of_competitors,
    seat_logs_of,
)
from web.templatetags.games import game_name
from web.throttling import rate_limited

MATCHES_SHOWN = 50


def _bot(bot_id: int) -> Bot:
    try:
        return bot_get(bot_id=bot_id)
    except NotFoundError:
        raise Http404(_("No such bot.")) from None


@require_http_methods(["GET", "POST"])
def bot_index(request: HttpRequest) -> HttpResponse:
    form = BotForm(request.POST or None)
    if request.method == "POST":
        if not request.user.is_authenticated:
            return redirect("web:login")
        if form.is_valid():
            try:
                bot = bot_add(
                    actor=request.user,
                    name=form.cleaned_data["name"],
                    families=form.cleaned_data["families"],
                )
            except BotServiceError as exc:
                form.add_error(None, upload_refusal_in_language(str(exc)))
            except LeagueError as exc:
                form.add_error(None, exc.detail)
            else:
                messages.success(
                    request,
                    _("%(name)s is created: upload its first version.") % {"name": bot.name},
                )
                return redirect("web:bot", bot_id=bot.pk)
    context = {
        **bots_by_whose(user=request.user),
        "form": form,
        "without_family": bots_without_family(user=request.user),
        "family_choices": family_choices(),
    }
    return render(request, "web/bots.html", context)


def _versions_context(request: HttpRequest, bot: Bot) -> dict[str, object]:
    versions = list(bot_versions(bot=bot))
    private = can_read_bot_private(user=request.user, bot=bot)
    standing = bot_version_standing(bot=bot, versions=versions)
    for version in versions:
        version.ladder_states = standing.get(version.pk, [])  # type: ignore[attr-defined]
        if not private:
            version.report = bot_report_public(version.report or {})
    return {
        "bot": bot,
        "versions": versions,
        "private": private,
        "pending": any(v.status == BotVersion.Status.PENDING for v in versions),
    }


@require_GET
def bot_detail(request: HttpRequest, bot_id: int) -> HttpResponse:
    bot = _bot(bot_id)
    competitors = list(bot_competitors(bot=bot))
    matches = matches_of_competitors(competitors=competitors, limit=MATCHES_SHOWN)[:MATCHES_SHOWN]
    series: list[tuple[str, list[tuple[float, float]]]] = []
    leaderboard: list[dict[str, object]] = []
    for competitor in competitors:
        rated = competitor_ratings(competitor_id=competitor.pk)
        label = competitor.name
        leaderboard += [
            {"name": label, **rating} for rating in rated["ratings"] if rating["tournament"] is None
        ]
        by_family: dict[str, list[tuple[float, float]]] = {}
        for change in rated["history"]:
            points = by_family.setdefault(change["family"], [])
            if not points:  # where the version started
                start = change["mu_before"] - 3 * change["sigma_before"]
                points.append((0.0, round(start, 2)))
            points.append((float(len(points)), round(change["conservative"], 2)))
        series += [(f"{label} ({family})", points) for family, points in by_family.items()]
    context = _versions_context(request, bot)
    if context["private"]:  # the owner's (and staff's) click to its seats' stderr and times
        logs = seat_logs_of(competitors=competitors, matches=matches)
        for match in matches:
            match.own_log_seats = logs.get(match.pk, [])  # type: ignore[attr-defined]
    owner = request.user.is_authenticated and bot.owner_id == request.user.pk
    context.update(
        owner=owner,
        upload_form=BotUploadForm(),
        consent_form=BotConsentForm(
            initial={"club_organisers_may_enter": bot.club_organisers_may_enter}
        ),
        rated_games_form=BotRatedGamesForm(
            initial={"people_may_play_rated": bot.people_may_play_rated}
        ),
        families_form=BotFamiliesForm(initial={"families": bot.family_names}),
        matches=matches,
        leaderboard=leaderboard,
        chart=line_chart_svg(
            series,
            title=_("Ratings of %(name)s") % {"name": bot.name},
            x_label=_("matches rated"),
            y_label=_("rating's low end"),
            chart_id=f"bot-{bot.pk}",
        ),
    )
    return render(request, "web/bot.html", context)


@require_GET
def bot_versions_fragment(request: HttpRequest, bot_id: int) -> HttpResponse:
    """The versions table alone: htmx reloads it while a validation is pending."""
    return render(request, "web/_bot_versions.html", _versions_context(request, _bot(bot_id)))


@login_required
@require_POST
@rate_limited(UploadThrottle)  # the API's uploads allowance
def bot_upload(request: HttpRequest, bot_id: int) -> HttpResponse:
    bot = _bot(bot_id)
    form = BotUploadForm(request.POST, request.FILES)
    if not form.is_valid():  # no file, an empty one, or one over the size limit
        problems = [str(problem) for problem in form.errors.get("file", [])]
        messages.error(request, _("Upload refused: %(join)s") % {"join": " ".join(problems)})
        return redirect("web:bot", bot_id=bot.pk)
    upload = form.cleaned_data["file"]
    try:
        version = bot_version_submit(
            owner=request.user,  # type: ignore[arg-type]
            bot=bot,
            filename=upload.name or "bot.py",
            data=upload.read(),
            runtime=form.cleaned_data.get("runtime") or None,
        )
    except BotServiceError as exc:
        messages.error(
            request, _("Upload refused: %(exc)s") % {"exc": upload_refusal_in_language(str(exc))}
        )
    else:
        messages.success(
            request,
            _(
                "Version %(number)s is uploaded (runtime %(runtime)s, sha256 %(sha256)s…); "
                "its validation game is being played."
            )
            % {"number": version.number, "runtime": version.runtime, "sha256": version.sha256[:12]},
        )
    return redirect("web:bot", bot_id=bot.pk)


@login_required
@require_POST
def bot_consent(request: HttpRequest, bot_id: int) -> HttpResponse:
    """The owner's standing consent for organisers of their clubs to enter the bot."""
    bot = _bot(bot_id)
    form = BotConsentForm(request.POST)
    allowed = form.is_valid() and bool(form.cleaned_data["club_organisers_may_enter"])
    return _owner_switch(
        request,
        bot,
        lambda: bot_entry_consent_set(
            actor=request.user, bot=bot, club_organisers_may_enter=allowed
        ),
        _("Organisers of your clubs may now enter this bot in their leagues.")
        if allowed
        else _("Only you enter this bot now."),
    )


@login_required
@require_POST
def bot_rated_games(request: HttpRequest, bot_id: int) -> HttpResponse:
    """The owner's consent for people to ask for rated games against the bot's ladder
    versions (league.services.rated_games)."""
    bot = _bot(bot_id)
    form = BotRatedGamesForm(request.POST)
    allowed = form.is_valid() and bool(form.cleaned_data["people_may_play_rated"])
    return _owner_switch(
        request,
        bot,
        lambda: bot_settings_change(actor=request.user, bot=bot, people_may_play_rated=allowed),
        _("People may now ask for rated games against this bot.")
        if allowed
        else _("Nobody may ask for rated games against this bot now."),
    )


def _owner_switch(
    request: HttpRequest, bot: Bot, change: Callable[[], object], done: str
) -> HttpResponse:
    """One of the owner's switches on the bot's page: ``change`` made, the page says
    ``done``; refused (not the owner, say), it says why."""
    try:
        change()
    except LeagueError as exc:
        messages.error(request, exc.detail[:1].upper() + exc.detail[1:] + ".")
    else:
        messages.success(request, done)
    return redirect("web:bot", bot_id=bot.pk)


@login_required
@require_POST
def bot_families(request: HttpRequest, bot_id: int) -> HttpResponse:
    """The owner changes the game families the bot plays (its page's form, or one click
    on a bot of no family: the bots page and the home page list those)."""
    bot = _bot(bot_id)
    form = BotFamiliesForm(request.POST)
    if not form.is_valid():
        problems = [str(problem) for problem in form.errors.get("families", [])]
        messages.error(request, " ".join(problems))
        return redirect("web:bot", bot_id=bot.pk)
    try:
        bot_settings_change(actor=request.user, bot=bot, families=form.cleaned_data["families"])
    except LeagueError as exc:
        messages.error(request, exc.detail[:1].upper() + exc.detail[1:] + ".")
    else:
        messages.success(
            request,
            _("%(name)s plays %(families)s now.")
            % {
                "name": bot.name,
                "families": ", ".join(game_name(f) for f in form.cleaned_data["families"]),
            },
        )
    back = request.POST.get("back")  # the page the click came from: only these two
    if back == "home":
        return redirect("home")
    if back == "bots":
        return redirect("web:bots")
    return redirect("web:bot", bot_id=bot.pk)
