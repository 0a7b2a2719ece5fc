"""The reads of a match: lists, one match, the seat a viewer holds, its game record and its
analysis as a viewer may see them, and why it did not finish.

Access to a seat goes through ``match_seat_get_for_owner`` only (Zulip's access_*
functions): a seat's hand and its actions belong to the person who sits there. Until a
match is finished with its result, each viewer sees only their own seat's cards
(``record_shows_all_hands``), and so its analysis, which names hidden cards, is shown only
then.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.contrib.auth.models import User as Account
from django.db.models import Prefetch, QuerySet
from django.utils.translation import gettext as _

from engine.record import record_from_state, redact_record
from league.errors import NotAllowedError, NotFoundError
from league.models import (
    AnalysisStatus,
    Match,
    MatchAnalysis,
    MatchResult,
    MatchSeat,
    MatchStatus,
    Role,
)
from league.selectors.bots import record_for_viewer
from league.selectors.clubs import club_role_of
from league.selectors.replays import match_replay

User = Account | AnonymousUser


def match_error_for(*, match: Match, user: User) -> str:
    """Why a match did not finish. A worker's traceback (server code) is shown to staff
    only; everyone else reads the sentence before it."""
    error = match.error or ""
    if getattr(user, "is_staff", False):
        return error
    head, marker, _tail = error.partition("Traceback (most recent call last)")
    if not marker:
        return error
    head = head.rstrip(" ;:\n")
    return f"{head}{': ' if head else ''}a server error (its traceback is shown to staff only)"


def match_list(
    *,
    tournament_id: int | None = None,
    round_number: int | None = None,
    competitor_id: int | None = None,
    status: str | None = None,
) -> QuerySet[Match]:
    seats = MatchSeat.objects.select_related("competitor__bot_version__bot").order_by("seat")
    matches = Match.objects.select_related("round", "result").prefetch_related(
        Prefetch("seats", queryset=seats)
    )
    if tournament_id is not None:
        matches = matches.filter(tournament_id=tournament_id)
    if round_number is not None:
        matches = matches.filter(round__number=round_number)
    if competitor_id is not None:
        matches = matches.filter(seats__competitor_id=competitor_id).distinct()
    if status is not None:
        matches = matches.filter(status=status)
    return matches.order_by("id")


def match_get(*, match_id: int) -> Match:
    match = match_list().filter(pk=match_id).first()
    if match is None:
        raise NotFoundError(_("no match %(match_id)s") % {"match_id": match_id})
    return match


def match_seat_of_viewer(*, match: Match, user: User) -> int | None:
    """The seat that ``user`` holds in ``match`` as a person, if any (the first one)."""
    if not user.is_authenticated:
        return None
    seats = sorted(s.seat for s in match.seats.all() if s.competitor.user_id == user.pk)
    return seats[0] if seats else None


def match_seat_get_for_owner(*, match: Match, seat: int, user: User) -> MatchSeat:
    """The seat, if ``user`` is the person who sits there; NotAllowedError otherwise."""
    found = next((s for s in match.seats.all() if s.seat == seat), None)
    if found is None:
        raise NotFoundError(_("match %(pk)s has no seat %(seat)s") % {"pk": match.pk, "seat": seat})
    if not user.is_authenticated:
        raise NotAllowedError(_("log in as the player of seat %(seat)s") % {"seat": seat})
    if found.competitor.user_id is None:
        raise NotAllowedError(
            _("seat %(seat)s is played by a bot; nobody acts for it") % {"seat": seat}
        )
    if found.competitor.user_id != user.pk:
        raise NotAllowedError(_("seat %(seat)s belongs to another player") % {"seat": seat})
    return found


def match_record(
    *, match: Match, viewer_seat: int | None, viewer: User | None = None
) -> dict[str, Any]:
    """The game record of a match (docs/record-format.md). Finished: the whole record, its
    faults' messages only for the seats ``viewer`` may read (``record_for_viewer``; None:
    anyone's view). Otherwise rebuilt from the stored events and redacted for
    ``viewer_seat`` (a seat's own cards only; None: no hidden card at all), without the
    seed, which decides every deal."""
    result = getattr(match, "result", None)
    if record_shows_all_hands(match=match):
        assert result is not None
        return record_for_viewer(
            record=dict(result.record), seats=match.seats.all(), user=viewer or AnonymousUser()
        )
    replay = match_replay(match)
    seats = [{"name": s.competitor.name, "competitor": s.competitor_id} for s in match.seats.all()]
    record = record_from_state(
        replay.state,
        seats=seats,
        times=replay.times,
        meta={"match": match.pk, "tournament": match.tournament_id, "status": match.status},
    )
    return redact_record(record, viewer_seat)  # which drops the seed


def record_shows_all_hands(*, match: Match) -> bool:
    """Whether anyone who may see ``match`` sees its record with every hand: a finished
    match with its result (``match_record``; the replay page shows what the record shows).
    Until then each viewer sees only their own seat's cards."""
    return match.status == MatchStatus.FINISHED and MatchResult.objects.filter(match=match).exists()


def analysis_askers(*, match: Match) -> frozenset[int]:
    """The people who may ask for ``match``'s analysis whoever reads (staff and its club's
    organisers aside): who sat at it, the owners of its bots, its tournament's creator."""
    askers = {match.tournament.created_by_id}
    for seat in match.seats.select_related("competitor__bot_version__bot"):
        competitor = seat.competitor
        version = competitor.bot_version
        askers |= {competitor.user_id, version.bot.owner_id if version is not None else None}
    return frozenset(user_id for user_id in askers if user_id is not None)


def can_request_analysis(*, user: User, match: Match, askers: frozenset[int] | None = None) -> bool:
    """Who may ask for a match's analysis (league.services.analysis): staff, a person who
    sat at it, the owner of a bot that did, the tournament's organisers (its creator; a
    club's owners and organisers). ``askers``: ``analysis_askers(match=match)`` where the
    caller has them already."""
    if not user.is_authenticated:
        return False
    if getattr(user, "is_staff", False):
        return True
    if user.pk in (askers if askers is not None else analysis_askers(match=match)):
        return True
    club = match.tournament.club
    return club is not None and club_role_of(user=user, club=club) in (Role.OWNER, Role.ORGANISER)


ANALYSIS_FIELDS = ("status", "requested_at", "finished_at", "settings", "analysed", "not_analysed")


def match_analysis_for(*, match: Match, user: User, with_cards: bool = True) -> dict[str, Any]:
    """``match``'s analysis as ``user`` may read it (docs/api.md, "Analysis"). It names
    hidden cards (the best card of every position), so it is shown exactly where the
    record shows every hand (``record_shows_all_hands``); elsewhere, and where none was
    asked for, NotFoundError. Without ``with_cards`` (a page's summary) the verdicts and
    the deals' charts are not read."""
    rows = MatchAnalysis.objects.filter(match=match)
    analysis = (rows if with_cards else rows.defer("cards", "deals")).first()
    if analysis is None or not record_shows_all_hands(match=match):
        raise NotFoundError(_("match %(pk)s has no analysis") % {"pk": match.pk})
    answer: dict[str, Any] = {"match": match.pk}
    for name in ANALYSIS_FIELDS:
        answer[name] = getattr(analysis, name)
    answer["error"] = (
        analysis.error if getattr(user, "is_staff", False) or not analysis.error else "failed"
    )
    answer["summary"] = analysis.summary
    if with_cards:
        answer["deals"] = analysis.deals
        answer["cards"] = analysis.cards
    return answer


ANALYSIS_EXPORT_FIELDS = ("settings", "analysed", "not_analysed", "summary", "deals", "cards")


def analysis_export(*, match_id: int) -> dict[str, Any] | None:
    """A finished match's done analysis as a record's ``meta.analysis`` carries it (the
    NDJSON export), or None."""
    return (
        MatchAnalysis.objects.filter(
            match_id=match_id, status=AnalysisStatus.DONE, match__status=MatchStatus.FINISHED
        )
        .values(*ANALYSIS_EXPORT_FIELDS)
        .first()
    )
