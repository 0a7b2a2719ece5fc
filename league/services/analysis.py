"""The analysis of finished matches (engine/analysis.py), on the `analysis` queue.

``analysis_request`` (a person's request: the API, the replay page's button) and
``analysis_queue`` (a finished match with a person at it, league.services.matches) write a
queued ``MatchAnalysis`` and send ``league.tasks.match_analyse`` through the task outbox;
``match_analyse`` (the task) computes it and stores it. Who may ask: staff, a person who
sat at the match, the owner of a bot that did, and the tournament's organisers. Who may
read it: ``league.selectors.match_analysis_for``.
"""

from __future__ import annotations

import time
import traceback

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from engine.analysis import AnalysisSettings, analyse_record
from engine.errors import EngineError
from league.errors import ConflictError, NotAllowedError
from league.models import AnalysisStatus, Match, MatchAnalysis, MatchResult, MatchStatus
from league.selectors import User, can_request_analysis
from league.services.task_outbox import task_enqueue
from league.task_names import MATCH_ANALYSE


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
    analysis, _created = MatchAnalysis.objects.update_or_create(
        match=match,
        defaults={
            "status": AnalysisStatus.QUEUED,
            "requested_by": user if user is not None and user.is_authenticated else None,
            "requested_at": timezone.now(),
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
    if current is not None and current.status in (AnalysisStatus.QUEUED, AnalysisStatus.RUNNING):
        raise ConflictError(_("this match's analysis is already under way"))
    return analysis_queue(match=match, user=actor)


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
        if analysis.status == AnalysisStatus.DONE:
            return "done already"
        analysis.status = AnalysisStatus.RUNNING
        analysis.save(update_fields=["status"])
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
    analysis.status = AnalysisStatus.DONE
    analysis.finished_at = timezone.now()
    analysis.settings = {**computed["settings"], "version": computed["version"]}
    analysis.cards = cards
    analysis.summary = computed["summary"]
    analysis.deals = computed["deals"]
    analysis.analysed = analysed
    analysis.not_analysed = len(cards) - analysed
    analysis.seconds = round(time.perf_counter() - began, 3)
    analysis.error = ""
    analysis.save()
    return f"{analysed} cards analysed, {len(cards) - analysed} not"


def _failed(analysis: MatchAnalysis, error: str) -> str:
    analysis.status = AnalysisStatus.FAILED
    analysis.error = error
    analysis.save(update_fields=["status", "error"])
    return "failed"
