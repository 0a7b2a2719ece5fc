"""Ladder pages (docs/web.md, *Ladders*): the ladders, a ladder's leaderboard (with your
challenges and a form to ask for one), a version's page (its games, its results against
each opponent, its rating chart, and for its owner: opt out, allow challenges, resume), and
an author's seat logs: browsable and downloadable, for the bot's owner and staff only
(403 for anyone else)."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import pgettext_lazy
from django.views.decorators.http import require_GET, require_POST

from league.errors import LeagueError, NotAllowedError, NotFoundError
from league.models import Ladder, LadderEntrantStatus, MatchStatus
from league.reads_generation import settled_read
from league.selectors.ladders import (
    challenges_of,
    ladder_board,
    ladder_get,
    ladder_version,
    ladder_version_owner_id,
    ladders_list,
    rated_game_opponents,
    seat_log_read,
)
from league.selectors.version_standing import competitor_ladder_standing
from league.services.ladder_authors import (
    challenge_create,
    challenges_left,
    ladder_entrant_update,
)
from league.services.rated_games import rated_game_with_bots
from web.charts import line_chart_svg
from web.personal_parts import base_parts, personal_parts

ENTRANT_STATUS_LABELS = {
    LadderEntrantStatus.PLAYING: pgettext_lazy("ladder version", "playing"),
    LadderEntrantStatus.SUPERSEDED: pgettext_lazy("ladder version", "superseded"),
    LadderEntrantStatus.SUSPENDED: pgettext_lazy("ladder version", "suspended"),
}
"""A version's state on a ladder, as its pages say it (the model's choices carry no
labels, and adding them would need a migration)."""


def _entrant_status(status: str) -> str:
    return str(ENTRANT_STATUS_LABELS.get(status, status))  # type: ignore[call-overload]


def _match_status(status: str) -> str:
    return str(MatchStatus(status).label) if status in MatchStatus.values else status


def _ladder(slug: str) -> Ladder:
    try:
        return ladder_get(slug)
    except NotFoundError:
        raise Http404(_("No such ladder.")) from None


@require_GET
def ladder_index(request: HttpRequest) -> HttpResponse:
    return render(request, "web/ladders.html", {"ladders": ladders_list()})


@require_GET
def ladder_detail(request: HttpRequest, slug: str) -> HttpResponse:
    ladder = _ladder(slug)
    board = ladder_board(ladder)
    for row in board["rows"]:
        row["status_label"] = _entrant_status(row["status"])
    context = {"ladder": ladder, "board": board} | _ladder_own_context(request, ladder, board)
    return render(request, "web/ladder.html", context)


def _ladder_own_context(
    request: HttpRequest, ladder: Ladder, board: dict[str, Any]
) -> dict[str, object]:
    """What the ladder page's own part of the person reading it shows
    (web/_ladder_personal.html): their challenges and the forms to ask for one or for a
    rated game (nothing for a visitor)."""
    if not request.user.is_authenticated:
        return {}
    user_id = int(request.user.pk)
    challenges = challenges_of(user=request.user, ladder=ladder)
    for challenge in challenges:
        challenge["status_label"] = _match_status(challenge["status"])
    return {
        "board": board,
        "challenges": challenges,
        "challenges_left": challenges_left(user_id=user_id),
        "my_versions": [
            row for row in board["rows"] if row["owner"] == request.user.get_username()
        ],
        "opponents": [row for row in board["rows"] if row["challengeable"]],
        "seats": range(1, int(board["seats"])),
        "rated_opponents": rated_game_opponents(ladder, user_id=user_id, board=board),
    }


def _ladder_shared(slug: str) -> tuple[Ladder, dict[str, Any]]:
    """The ladder and its board, read once for every signed-in reader while no write but a
    running match's progress happens (league.reads_generation.settled_read)."""

    def read() -> tuple[Ladder, dict[str, Any]]:
        ladder = _ladder(slug)
        return ladder, ladder_board(ladder)

    return settled_read(f"ladder:{slug}", read)


def ladder_personal(request: HttpRequest, slug: str) -> dict[str, str]:
    """The ladder page's parts of the signed-in person reading it (api.read_cache's
    ``personal``): base.html's and the page's own (challenges, a rated game)."""
    ladder, board = _ladder_shared(slug)
    context = _ladder_own_context(request, ladder, board)
    return personal_parts(request, "web/_ladder_personal_parts.html", context)


@require_POST
def ladder_challenge(request: HttpRequest, slug: str) -> HttpResponse:
    ladder = _ladder(slug)
    if not request.user.is_authenticated:
        return redirect("web:login")
    try:
        version = int(request.POST.get("version", ""))
        opponents = [int(value) for value in request.POST.getlist("opponent")]
        match = challenge_create(
            actor=request.user, ladder=ladder, competitor_id=version, opponent_ids=opponents
        )
    except ValueError:
        messages.error(request, _("Choose your version and every opponent."))
    except LeagueError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, _("Challenge queued: match %(match)s.") % {"match": match.pk})
    return redirect("web:ladder", slug=ladder.slug)


@require_POST
def ladder_rated_game(request: HttpRequest, slug: str) -> HttpResponse:
    """A rated game of the person against the versions they chose: to their seat at once."""
    ladder = _ladder(slug)
    if not request.user.is_authenticated:
        return redirect("web:login")
    try:
        opponents = [int(value) for value in request.POST.getlist("opponent")]
        match = rated_game_with_bots(actor=request.user, ladder=ladder, opponents=opponents)
    except ValueError:
        messages.error(request, _("Choose a version for every other seat."))
    except LeagueError as exc:
        messages.error(request, str(exc))
    else:
        return redirect("web:table", match_id=match.pk, seat=0)
    return redirect("web:ladder", slug=ladder.slug)


@require_GET
def ladder_version_page(request: HttpRequest, slug: str, competitor_id: int) -> HttpResponse:
    ladder = _ladder(slug)
    try:
        version = ladder_version(ladder, competitor_id)
    except NotFoundError:
        raise Http404(_("This version is not on the ladder.")) from None
    version["status_label"] = _entrant_status(version["status"])
    for game in version["games"]:
        game["status_label"] = _match_status(game["status"])
    owner = _owns_version(request, version["owner_id"])
    points = [(float(i), row["conservative"]) for i, row in enumerate(version["history"], 1)]
    chart = line_chart_svg(
        [(version["name"], points)],
        title=_("Ladder rating of %(name)s") % {"name": version["name"]},
        x_label=_("ladder games rated"),
        y_label=_("rating's low end"),
        chart_id=f"ladder-{ladder.pk}-{competitor_id}",
    )
    standing = competitor_ladder_standing(competitor_id=competitor_id, ladder_slug=ladder.slug)
    context = {"ladder": ladder, "version": version, "owner": owner, "chart": chart}
    context["standing"] = standing
    return render(request, "web/ladder_version.html", context)


def _owns_version(request: HttpRequest, owner_id: int | None) -> bool:
    """Whether the person reading a version's page sees its owner's part (its log links,
    its place on the ladder's controls): its bot's owner, and staff."""
    user = request.user
    return user.is_authenticated and (user.pk == owner_id or getattr(user, "is_staff", False))


def ladder_version_personal(
    request: HttpRequest, slug: str, competitor_id: int
) -> dict[str, str] | None:
    """A version page's parts of the signed-in person reading it (api.read_cache's
    ``personal``): base.html's; the page whole for its owner (and staff)."""

    def owner_id() -> int | None:
        return ladder_version_owner_id(_ladder(slug), competitor_id)

    if _owns_version(
        request, settled_read(f"ladder-version-owner:{slug}:{competitor_id}", owner_id)
    ):
        return None
    return base_parts(request)


@require_POST
def ladder_version_update(request: HttpRequest, slug: str, competitor_id: int) -> HttpResponse:
    ladder = _ladder(slug)
    what = request.POST.get("what", "")
    choices: dict[str, dict[str, bool]] = {
        "opt_out": {"opted_out": True},
        "opt_in": {"opted_out": False},
        "allow_challenges": {"challengeable": True},
        "refuse_challenges": {"challengeable": False},
        "resume": {"resume": True},
    }
    if what not in choices:
        messages.error(request, _("Unknown change."))
    else:
        try:
            ladder_entrant_update(
                actor=request.user, ladder=ladder, competitor_id=competitor_id, **choices[what]
            )
        except NotAllowedError:
            raise PermissionDenied(_("only the bot's owner changes its place")) from None
        except LeagueError as exc:
            messages.error(request, str(exc))
        else:
            messages.success(request, _("Saved."))
    return redirect("web:ladder-version", slug=ladder.slug, competitor_id=competitor_id)


def _log(request: HttpRequest, match_id: int, seat: int) -> dict[str, object]:
    try:
        return seat_log_read(user=request.user, match_id=match_id, seat=seat)
    except NotAllowedError:
        raise PermissionDenied(_("a seat's logs are for its bot's owner and staff")) from None
    except NotFoundError:
        raise Http404(_("No log was kept for this seat.")) from None


@require_GET
def seat_log(request: HttpRequest, match_id: int, seat: int) -> HttpResponse:
    return render(request, "web/seat_log.html", {"log": _log(request, match_id, seat)})


@require_GET
def seat_log_download(request: HttpRequest, match_id: int, seat: int) -> HttpResponse:
    log = _log(request, match_id, seat)
    response = HttpResponse(str(log["stderr"]), content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = (
        f'attachment; filename="match-{match_id}-seat-{seat}-stderr.txt"'
    )
    response["Cache-Control"] = "private, no-store"
    return response
