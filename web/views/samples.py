"""Sample replays and a sample table, served only when samples are enabled (web.samples)."""

from __future__ import annotations

import json
from typing import Any

from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from engine.errors import EngineError, IllegalActionError
from engine.timeline import record_timeline
from league.words.engine_refusals import refusal_in_language
from web.samples import (
    SampleTable,
    record_cut,
    sample_games,
    sample_record,
    sample_running_record,
    samples_enabled,
)
from web.templatetags.games import game_name

TABLE_SESSION_KEY = "web_sample_table"


def _require_samples() -> None:
    if not samples_enabled():
        raise Http404(_("Sample games are not served here."))


def _problem(message: str, status: int = 400) -> JsonResponse:
    return JsonResponse({"detail": message}, status=status)


def _game_and_seed(request: HttpRequest) -> tuple[str, int, int | None]:
    """(game, seed, events) from the query; ValueError naming the bad parameter."""
    game = request.GET.get("game") or sample_games()[0]
    try:
        seed = int(request.GET.get("seed", "1"))
    except ValueError:
        raise ValueError(_("seed must be a whole number")) from None
    events_text = request.GET.get("events")
    events = None
    if events_text:
        try:
            events = int(events_text)
        except ValueError:
            raise ValueError(_("events must be a whole number")) from None
    return game, seed, events


@require_GET
def sample_index(request: HttpRequest) -> HttpResponse:
    _require_samples()
    games = [(game, game_name(game)) for game in sample_games()]
    return render(request, "web/samples.html", {"games": games})


@require_GET
def sample_replay(request: HttpRequest) -> HttpResponse:
    _require_samples()
    try:
        game, seed, events = _game_and_seed(request)
        sample_record(game, seed)
    except (ValueError, EngineError) as exc:
        raise Http404(str(exc)) from None
    query: dict[str, Any] = {"game": game, "seed": seed}
    if events is not None:
        query["events"] = events
    encoded = urlencode(query)
    name = game_name(game)
    context = {
        "title": _("Sample replay: %(game_name)s, seed %(seed)s")
        % {"game_name": name, "seed": seed}
        + (_(" (running)") if events else ""),
        "record_url": f"{reverse('web:sample-record')}?{encoded}",
        "timeline_url": f"{reverse('web:sample-timeline')}?{encoded}",
        "socket_url": "",
        "running": events is not None,
        "game_name": name,
    }
    return render(request, "web/replay.html", context)


@require_GET
def sample_record_json(request: HttpRequest) -> JsonResponse:
    _require_samples()
    try:
        game, seed, events = _game_and_seed(request)
        if events is None:
            record = sample_record(game, seed)
        else:
            record = sample_running_record(game, seed, events)
    except (ValueError, EngineError) as exc:
        return _problem(str(exc))
    return JsonResponse(record)


@require_GET
def sample_timeline_json(request: HttpRequest) -> JsonResponse:
    _require_samples()
    try:
        game, seed, events = _game_and_seed(request)
        record = sample_record(game, seed)
    except (ValueError, EngineError) as exc:
        return _problem(str(exc))
    if events is not None:
        record = record_cut(record, events)
    return JsonResponse(record_timeline(record))


# ---------------------------------------------------------------- the sample table


def _table(request: HttpRequest) -> SampleTable | None:
    saved = request.session.get(TABLE_SESSION_KEY)
    if not isinstance(saved, dict):
        return None
    try:
        return SampleTable(str(saved["game"]), int(saved["seed"]), list(saved["actions"]))
    except (KeyError, TypeError, ValueError, EngineError):
        return None


def _save(request: HttpRequest, table: SampleTable) -> None:
    request.session[TABLE_SESSION_KEY] = {
        "game": str(table.game),
        "seed": table.seed,
        "actions": table.actions,
    }


@require_GET
def sample_table(request: HttpRequest) -> HttpResponse:
    _require_samples()
    table = _table(request)
    wanted_game = request.GET.get("game")
    if table is None or request.GET.get("new") or (wanted_game and wanted_game != str(table.game)):
        try:
            game, seed, _title = _game_and_seed(request)
            table = SampleTable(game, seed, [])
        except (ValueError, EngineError) as exc:
            raise Http404(str(exc)) from None
        _save(request, table)
    context = {
        "title": _("Sample table: %(game_name)s") % {"game_name": game_name(table.game)},
        "view_url": reverse("web:sample-table-view"),
        "action_url": reverse("web:sample-table-actions"),
        "socket_url": "",
        "seat": 0,
        "record_url": "",
    }
    return render(request, "web/table.html", context)


@require_GET
def sample_table_view(request: HttpRequest) -> JsonResponse:
    _require_samples()
    table = _table(request)
    if table is None:
        return _problem(_("No sample table is open: open /samples/table/ first."), status=404)
    return JsonResponse(table.view_json())


@require_POST
def sample_table_actions(request: HttpRequest) -> JsonResponse:
    _require_samples()
    table = _table(request)
    if table is None:
        return _problem(_("No sample table is open: open /samples/table/ first."), status=404)
    try:
        body = json.loads(request.body or b"{}")
    except ValueError:
        return _problem(_('The body must be JSON: {"action": "play QS"}.'))
    action = body.get("action") if isinstance(body, dict) else None
    if not isinstance(action, str) or not action.strip():
        return _problem(_("Missing field 'action' (a string such as \"play QS\")."))
    try:
        table.act(action.strip())
    except IllegalActionError as exc:
        return _problem(refusal_in_language(exc))
    except EngineError as exc:
        return _problem(str(exc))
    _save(request, table)
    return JsonResponse(table.view_json())
