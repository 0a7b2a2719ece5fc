"""The analysis of finished matches (engine/analysis.py), on the `analysis` queue.

``analysis_request`` (a person's request: the API, the replay page's button) and
``analysis_queue`` (a finished match with a person at it, league.services.matches) write a
queued ``MatchAnalysis`` and send ``league.tasks.match_analyse`` through the task outbox;
``match_analyse`` (the task) computes it and stores it. Who may ask: staff, a person who
sat at the match, the owner of a bot that did, and the tournament's organisers. Who may
read it: ``league.selectors.matches.match_analysis_for``.

Nothing asked for is lost. A worker claims an analysis (RUNNING, ``started_at``, one more
of its ``attempts``) and stores it only while the claim is still its own. An analysis
running longer than one may (``analysis_lost_after``: twice ANALYSIS_SECONDS and a minute)
lost its worker; one queued that long lost its task. ``analyses_sweep`` (with the
matches' sweep, every few seconds) sends either's task again, and gives up on an analysis
whose workers died ``ANALYSIS_ATTEMPTS`` times (FAILED, with why). A person who asks again
for a lost one is answered as if it were not under way.
"""

from __future__ import annotations

import time
import traceback
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from engine.analysis import AnalysisSettings, analyse_record
from engine.errors import EngineError
from league.errors import ConflictError, NotAllowedError
from league.models import AnalysisStatus, Match, MatchAnalysis, MatchResult, MatchStatus
from league.selectors.matches import User, can_request_analysis
from league.services.task_outbox import task_enqueue
from league.task_names import MATCH_ANALYSE

ANALYSIS_ATTEMPTS = 3
"""Workers that may die running one analysis before it is given up (FAILED)."""


def analysis_lost_after() -> timedelta:
    """How long an analysis may run (or wait for its task) before it counts as lost: twice
    its budget (ANALYSIS_SECONDS; the solver stops at its budget) and a minute."""
    return timedelta(seconds=2 * settings.ANALYSIS_SECONDS + 60)


def analysis_settings(*, match: Match) -> AnalysisSettings:
    """The settings' budget (ANALYSIS_NODE_LIMIT, ANALYSIS_SAMPLES, ANALYSIS_SECONDS), the
    match's seed for the deals drawn (so an analysis is reproducible)."""
    return AnalysisSettings(
        samples=settings.ANALYSIS_SAMPLES,
        node_limit=settings.ANALYSIS_NODE_LIMIT,
        seconds=settings.ANALYSIS_SECONDS,
        seed=match.seed,
    )


def analysis_queue(*, match: Match, user: User | None = None) -> MatchAnalysis:
    """A queued analysis of ``match`` (a new one replaces the stored one), its task sent
    when the transaction commits."""
    now = timezone.now()
    analysis, _created = MatchAnalysis.objects.update_or_create(
        match=match,
        defaults={
            "status": AnalysisStatus.QUEUED,
            "requested_by": user if user is not None and user.is_authenticated else None,
            "requested_at": now,
            "queued_at": now,
            "started_at": None,
            "attempts": 0,
            "finished_at": None,
            "error": "",
        },
    )
    task_enqueue(MATCH_ANALYSE, match.pk)
    return analysis


@transaction.atomic
def analysis_request(*, actor: User, match: Match) -> MatchAnalysis:
    """``actor`` asks for ``match``'s analysis: NotAllowedError unless they may
    (``can_request_analysis``), ConflictError unless the match is finished or while an
    analysis of it is waiting or running."""
    if not can_request_analysis(user=actor, match=match):
        raise NotAllowedError(
            _("only staff, the match's players and its organisers may ask for its analysis")
        )
    if match.status != MatchStatus.FINISHED or not MatchResult.objects.filter(match=match).exists():
        raise ConflictError(_("only a finished match can be analysed"))
    current = MatchAnalysis.objects.select_for_update().filter(match=match).first()
    if current is not None and _under_way(current, now=timezone.now()):
        raise ConflictError(_("this match's analysis is already under way"))
    return analysis_queue(match=match, user=actor)


def _under_way(analysis: MatchAnalysis, *, now: datetime) -> bool:
    """Waiting for its task or running, and not lost (``analysis_lost_after``)."""
    since = now - analysis_lost_after()
    if analysis.status == AnalysisStatus.QUEUED:
        return analysis.queued_at >= since
    if analysis.status == AnalysisStatus.RUNNING:
        return analysis.started_at is not None and analysis.started_at >= since
    return False


def match_analyse(*, match_id: int) -> str:
    """Compute and store the analysis of a finished match (the task); idempotent: a
    duplicate of a task whose analysis is done finds nothing to do. What happened, in a
    few words."""
    with transaction.atomic():
        analysis = (
            MatchAnalysis.objects.select_for_update()
            .filter(match_id=match_id)
            .select_related("match")
            .first()
        )
        if analysis is None:
            return "no analysis was asked for"
        if analysis.status in (AnalysisStatus.DONE, AnalysisStatus.FAILED):
            return f"{analysis.status} already"
        now = timezone.now()
        if analysis.status == AnalysisStatus.RUNNING and _under_way(analysis, now=now):
            return "running in another worker"
        if analysis.attempts >= ANALYSIS_ATTEMPTS:
            return _failed(analysis, _lost_error(analysis.attempts))
        analysis.status = AnalysisStatus.RUNNING
        analysis.started_at = now
        analysis.attempts += 1
        analysis.save(update_fields=["status", "started_at", "attempts"])
        claim = analysis.attempts
        match = analysis.match
    record = MatchResult.objects.filter(match_id=match_id).values_list("record", flat=True).first()
    began = time.perf_counter()
    try:
        if record is None:
            raise EngineError("the match has no result")
        computed = analyse_record(record, analysis_settings(match=match))
    except EngineError as exc:
        return _failed(analysis, f"the record does not replay: {exc}")
    except Exception:  # a bug: kept on the row for staff, the task does not loop
        _failed(analysis, traceback.format_exc(limit=5))
        raise
    cards = computed["cards"]
    analysed = sum(1 for card in cards if card["analysed"])
    stored = MatchAnalysis.objects.filter(
        pk=analysis.pk, status=AnalysisStatus.RUNNING, attempts=claim
    ).update(
        status=AnalysisStatus.DONE,
        finished_at=timezone.now(),
        settings={**computed["settings"], "version": computed["version"]},
        cards=cards,
        summary=computed["summary"],
        deals=computed["deals"],
        analysed=analysed,
        not_analysed=len(cards) - analysed,
        seconds=round(time.perf_counter() - began, 3),
        error="",
    )
    if not stored:  # asked for again, or given to another worker meanwhile: theirs stands
        return "no longer this worker's"
    return f"{analysed} cards analysed, {len(cards) - analysed} not"


def _lost_error(attempts: int) -> str:
    return f"its worker stopped before it was done, {attempts} times: given up"


@dataclass
class AnalysesSweep:
    resent: list[int] = field(default_factory=list)
    failed: list[int] = field(default_factory=list)


def analyses_sweep(*, now: datetime) -> AnalysesSweep:
    """Send again the task of every lost analysis (module docstring); give up on one whose
    workers died ANALYSIS_ATTEMPTS times. Safe in several processes at once: each row is
    changed under its lock and only while it is still lost."""
    since = now - analysis_lost_after()
    report = AnalysesSweep()
    lost = MatchAnalysis.objects.filter(
        Q(status=AnalysisStatus.QUEUED, queued_at__lt=since)
        | Q(status=AnalysisStatus.RUNNING, started_at__lt=since)
    )
    for analysis_id in lost.values_list("id", flat=True):
        with transaction.atomic():
            analysis = MatchAnalysis.objects.select_for_update().filter(pk=analysis_id).first()
            if analysis is None or _under_way(analysis, now=now):
                continue
            if analysis.status not in (AnalysisStatus.QUEUED, AnalysisStatus.RUNNING):
                continue
            if analysis.attempts >= ANALYSIS_ATTEMPTS:
                _failed(analysis, _lost_error(analysis.attempts))
                report.failed.append(analysis.match_id)
                continue
            analysis.status = AnalysisStatus.QUEUED
            analysis.queued_at = now
            analysis.save(update_fields=["status", "queued_at"])
            task_enqueue(MATCH_ANALYSE, analysis.match_id)
            report.resent.append(analysis.match_id)
    return report


def _failed(analysis: MatchAnalysis, error: str) -> str:
    analysis.status = AnalysisStatus.FAILED
    analysis.error = error
    analysis.save(update_fields=["status", "error"])
    return "failed"
