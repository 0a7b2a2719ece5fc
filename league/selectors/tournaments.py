"""The reads of tournaments and their rounds: lists, one tournament with its entrants,
rounds and progress, its schedule, and every finished match's game record as a viewer may
see it (the export). The standings are league.selectors.standings', the ratings
league.selectors.ratings'.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.contrib.auth.models import User as Account
from django.db.models import Count, Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from league.domain.league_progress import LeagueProgress, RoundCount, league_progress
from league.errors import NotFoundError
from league.models import (
    AnalysisStatus,
    Competitor,
    Entry,
    Match,
    MatchAnalysis,
    MatchResult,
    MatchSeat,
    MatchStatus,
    Round,
    RoundSchedule,
    Tournament,
    TournamentStatus,
)
from league.selectors.bots import can_read_competitor_private, fault_public
from league.selectors.matches import analysis_export

User = Account | AnonymousUser


def tournament_get(*, tournament_id: int) -> Tournament:
    tournament = Tournament.objects.select_related("club").filter(pk=tournament_id).first()
    if tournament is None:
        raise NotFoundError(_("no tournament %(tournament_id)s") % {"tournament_id": tournament_id})
    return tournament


def tournament_list(
    *, club_id: int | None = None, formats_left_out: Iterable[str] = ()
) -> QuerySet[Tournament]:
    """Tournaments, newest first (of a club; without the ``formats_left_out``)."""
    tournaments = Tournament.objects.select_related("club").annotate(
        entrant_count=Count("entries", distinct=True)
    )
    if club_id is not None:
        tournaments = tournaments.filter(club_id=club_id)
    return tournaments.exclude(format__in=list(formats_left_out)).order_by("-created_at", "-id")


def entry_list(*, tournament: Tournament, by_name: bool = False) -> QuerySet[Entry]:
    """A tournament's entries with their competitors, as entered (or by name)."""
    order = ("competitor__name", "id") if by_name else ("id",)
    return Entry.objects.filter(tournament=tournament).select_related("competitor").order_by(*order)


def round_list(*, tournament_id: int | None = None) -> QuerySet[Round]:
    rounds = Round.objects.annotate(
        match_count=Count("matches"),
        finished_count=Count("matches", filter=Q(matches__status=MatchStatus.FINISHED)),
    )
    if tournament_id is not None:
        rounds = rounds.filter(tournament_id=tournament_id)
    return rounds.order_by("tournament_id", "number")


def tournament_progress(*, tournament_id: int) -> dict[str, int]:
    counts = Match.objects.filter(tournament_id=tournament_id).aggregate(
        total=Count("id"), finished=Count("id", filter=Q(status=MatchStatus.FINISHED))
    )
    return {"finished": counts["finished"] or 0, "total": counts["total"] or 0}


def next_scheduled_round_at(*, tournament: Tournament) -> datetime | None:
    """When the tournament's round schedule next starts a round (None: no schedule, or it
    is switched off)."""
    schedule = (
        RoundSchedule.objects.select_related("periodic_task").filter(tournament=tournament).first()
    )
    if schedule is None or not schedule.periodic_task.enabled:
        return None
    task = schedule.periodic_task
    now = timezone.now()
    last = task.last_run_at or task.start_time or task.date_changed or now
    try:
        remaining = task.schedule.remaining_estimate(last)
    except (ValueError, TypeError, OverflowError):  # a schedule celery cannot read
        return None
    return max(now, now + remaining)


def league_progress_of(*, tournament: Tournament) -> LeagueProgress:
    """Where the league stands: its round out of those planned, its games played and what
    comes next (league.domain.league_progress; league.words.league_progress says it)."""
    rounds = [
        RoundCount(number=number, games=games, finished=finished)
        for number, games, finished in Round.objects.filter(tournament=tournament)
        .annotate(
            games=Count("matches"),
            finished=Count("matches", filter=Q(matches__status=MatchStatus.FINISHED)),
        )
        .values_list("number", "games", "finished")
    ]
    finished = tournament.status == TournamentStatus.FINISHED
    return league_progress(
        rounds_planned=tournament.rounds,
        rounds=rounds,
        league_finished=finished,
        next_round_at=None if finished else next_scheduled_round_at(tournament=tournament),
    )


def tournament_records(*, tournament: Tournament, viewer: User) -> Iterator[dict[str, Any]]:
    """Every finished match's game record in match order, as ``viewer`` may see it
    (``record_for_viewer``: fault messages only of the seats the viewer may read)."""
    competitors = (
        Competitor.objects.filter(seats__match__tournament=tournament)
        .distinct()
        .select_related("bot_version__bot")
    )
    readers = {c.pk for c in competitors if can_read_competitor_private(user=viewer, competitor=c)}
    readable: set[tuple[int, int]] = set()
    if readers:
        readable = set(
            MatchSeat.objects.filter(
                match__tournament=tournament, competitor_id__in=readers
            ).values_list("match_id", "seat")
        )
    records = (
        MatchResult.objects.filter(match__tournament=tournament)
        .order_by("match_id")
        .values_list("match_id", "record")
    )
    analysed = set(
        MatchAnalysis.objects.filter(
            match__tournament=tournament, status=AnalysisStatus.DONE
        ).values_list("match_id", flat=True)
    )
    for match_id, stored in records.iterator(chunk_size=100):
        record = stored
        if match_id in analysed and isinstance(record, dict):
            analysis = analysis_export(match_id=match_id)
            if analysis is not None:  # docs/record-format.md, "meta.analysis"
                record = {**record, "meta": {**(record.get("meta") or {}), "analysis": analysis}}
        faults = (record.get("meta") or {}).get("faults") if isinstance(record, dict) else None
        if not faults:
            yield record
            continue
        shown = [
            f if (match_id, f.get("seat")) in readable else fault_public(f)
            for f in faults
            if isinstance(f, dict)
        ]
        yield {**record, "meta": {**record["meta"], "faults": shown}}


def tournament_list_with_rounds(*, club_id: int | None = None) -> QuerySet[Tournament]:
    """``tournament_list`` with each tournament's ``rounds_started``."""
    return tournament_list(club_id=club_id).annotate(
        rounds_started=Count("round_set", distinct=True)
    )


def tournament_detail(*, tournament: Tournament) -> dict[str, Any]:
    """What the API adds to a tournament's fields: its entrants, how many rounds started
    and its matches' progress (``tournament_progress``)."""
    entrants = [
        {"competitor": e.competitor_id, "name": e.competitor.name, "kind": e.competitor.kind}
        for e in entry_list(tournament=tournament)
    ]
    return {
        "entrant_count": len(entrants),
        "rounds_started": Round.objects.filter(tournament=tournament).count(),
        "entrants": entrants,
        **tournament_progress(tournament_id=tournament.pk),
    }


def round_find(*, tournament_id: int, number: int) -> Round | None:
    """A tournament's round by its number, with its match counts (``round_list``)."""
    return round_list(tournament_id=tournament_id).filter(number=number).first()


def round_get(*, round_id: int) -> Round:
    """A round with its match counts (``round_list``)."""
    found = round_list().filter(pk=round_id).first()
    if found is None:
        raise NotFoundError(_("no round %(round_id)s") % {"round_id": round_id})
    return found


def tournament_schedule_get(*, tournament: Tournament) -> RoundSchedule:
    schedule = (
        RoundSchedule.objects.select_related("periodic_task").filter(tournament=tournament).first()
    )
    if schedule is None:
        raise NotFoundError(_("tournament %(pk)s has no schedule") % {"pk": tournament.pk})
    return schedule
