"""A person's private replays: the list with an upload form, and each replay in the site's
viewer, for its owner alone (another person is told there is no such replay: 404)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods

from api.throttles import UploadThrottle
from engine.timeline import record_timeline
from league.errors import LeagueError, NotFoundError
from league.models import PrivateReplay
from league.selectors.private_replays import private_replay_get, private_replay_list
from league.services.private_replays import private_replay_upload
from web.forms import PrivateReplayUploadForm
from web.templatetags.games import game_name
from web.throttling import rate_limited


def _replay(request: HttpRequest, replay_id: int) -> PrivateReplay:
    try:
        return private_replay_get(replay_id=replay_id, user=request.user)
    except NotFoundError as exc:
        raise Http404(exc.detail) from None


@login_required
@require_http_methods(["GET", "POST"])
@rate_limited(UploadThrottle)  # the API's uploads allowance
def private_replays(request: HttpRequest) -> HttpResponse:
    form = PrivateReplayUploadForm()
    status = 200
    if request.method == "POST":
        form = PrivateReplayUploadForm(request.POST, request.FILES)
        if form.is_valid():
            try:
                replay = private_replay_upload(
                    owner=request.user,  # type: ignore[arg-type]
                    source=form.cleaned_data["file"].read(),
                    title=form.cleaned_data["title"],
                )
            except LeagueError as exc:
                form.add_error("file", exc.detail)
            else:
                messages.success(request, _("Your replay is kept: only you can see it."))
                return redirect("web:private-replay", replay_id=replay.pk)
        status = 400
    context = {"form": form, "replays": private_replay_list(user=request.user)}
    return render(request, "web/private_replays.html", context, status=status)


@login_required
@require_GET
def private_replay(request: HttpRequest, replay_id: int) -> HttpResponse:
    replay = _replay(request, replay_id)
    context = {
        "title": replay.title,
        "game_name": game_name(replay.game),
        "record_url": reverse("web:private-replay-record", args=[replay.pk]),
        "timeline_url": reverse("web:private-replay-timeline", args=[replay.pk]),
        "socket_url": "",
        "private_replay": replay,
    }
    return render(request, "web/private_replay.html", context)


@login_required
@require_GET
def private_replay_record_json(request: HttpRequest, replay_id: int) -> JsonResponse:
    response = JsonResponse(_replay(request, replay_id).record)
    response["Cache-Control"] = "private, no-store"
    return response


@login_required
@require_GET
def private_replay_timeline_json(request: HttpRequest, replay_id: int) -> JsonResponse:
    response = JsonResponse(record_timeline(_replay(request, replay_id).record))
    response["Cache-Control"] = "private, no-store"
    return response
