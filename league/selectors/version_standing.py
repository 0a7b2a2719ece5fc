"""Why a bot's versions are (not) playing: the facts league.domain.version_standing
decides from, read for all the versions of one bot at once (a fixed number of queries, and
two per ladder one of them is on), and the states with their sentences
(league.words.version_standing). The faults of a suspension are given as match, seat and
outcome only: their messages are the bot's private data (league.selectors.bots)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from django.db.models import Count, Max, Q

from bots.models import Bot, BotVersion
from league.domain.version_standing import (
    EntrantFacts,
    LadderFacts,
    LadderState,
    VersionFacts,
    version_states,
)
from league.models import Competitor, Ladder, LadderEntrant, Match, MatchSeat, MatchStatus
from league.selectors.ladders import ladder_board
from league.words.version_standing import state_words

SUSPENSION_FAULT_FIELDS = ("match", "seat", "outcome")


def _in_flight(competitors: Sequence[int]) -> dict[tuple[int, int], dict[str, int]]:
    """(competitor, tournament) -> its matches queued and running there."""
    rows = (
        MatchSeat.objects.filter(
            competitor_id__in=competitors,
            match__status__in=[MatchStatus.QUEUED, MatchStatus.RUNNING],
        )
        .values("competitor_id", "match__tournament_id", "match__status")
        .annotate(n=Count("match_id", distinct=True))
    )
    out: dict[tuple[int, int], dict[str, int]] = {}
    for row in rows:
        key = (row["competitor_id"], row["match__tournament_id"])
        out.setdefault(key, {})[row["match__status"]] = row["n"]
    return out


def _entrant_facts(
    entrant: LadderEntrant, board: dict[str, Any], flight: dict[str, int]
) -> EntrantFacts:
    rows = board["rows"]
    row = next((r for r in rows if r["competitor"] == entrant.competitor_id), None)
    faults = [
        {key: fault[key] for key in SUSPENSION_FAULT_FIELDS if key in fault}
        for fault in entrant.suspension_faults or []
        if isinstance(fault, dict)
    ]
    return EntrantFacts(
        status=entrant.status,
        opted_out=entrant.opted_out,
        suspension_faults=faults,
        games=row["games"] if row else 0,
        mu=row["mu"] if row else 0.0,
        sigma=row["sigma"] if row else 0.0,
        conservative=row["conservative"] if row else 0.0,
        rank=row["rank"] if row else None,
        ranked=len(rows),
        confidence=row["confidence"] if row else None,
        queued=flight.get(MatchStatus.QUEUED, 0),
        running=flight.get(MatchStatus.RUNNING, 0),
    )


def bot_version_states(*, bot: Bot, versions: Sequence[BotVersion]) -> dict[int, list[LadderState]]:
    """Each of ``versions`` (the bot's) -> its state in each ladder of the bot's families
    and any other it is still on (league.domain.version_standing)."""
    families = sorted(bot.families.values_list("family", flat=True))
    newest_active = bot.versions.filter(status=BotVersion.Status.ACTIVE).aggregate(
        top=Max("number")
    )["top"]
    competitor_of = dict(
        Competitor.objects.filter(bot_version__in=list(versions)).values_list(
            "bot_version_id", "pk"
        )
    )
    entrants = list(LadderEntrant.objects.filter(competitor_id__in=list(competitor_of.values())))
    ladders = list(
        Ladder.objects.filter(Q(family__in=families) | Q(pk__in=[e.ladder_id for e in entrants]))
        .select_related("tournament")
        .order_by("name", "id")
    )
    boards = {
        ladder.pk: ladder_board(ladder)
        for ladder in ladders
        if any(e.ladder_id == ladder.pk for e in entrants)
    }
    flights = _in_flight(list(competitor_of.values()))
    queued_now = dict(
        Match.objects.filter(
            tournament_id__in=[ladder.tournament_id for ladder in ladders],
            status=MatchStatus.QUEUED,
        )
        .values("tournament_id")
        .annotate(n=Count("id"))
        .values_list("tournament_id", "n")
    )
    states: dict[int, list[LadderState]] = {}
    for version in versions:
        competitor = competitor_of.get(version.pk)
        mine = {e.ladder_id: e for e in entrants if e.competitor_id == competitor}
        facts = [
            LadderFacts(
                slug=ladder.slug,
                name=ladder.name,
                family=ladder.family,
                running=ladder.running,
                queued_limit=ladder.queued_limit,
                concurrent_limit=ladder.concurrent_limit,
                placement_games=ladder.placement_games,
                queued_now=queued_now.get(ladder.tournament_id, 0),
                entrant=_entrant_facts(
                    mine[ladder.pk],
                    boards[ladder.pk],
                    flights.get((mine[ladder.pk].competitor_id, ladder.tournament_id), {}),
                )
                if ladder.pk in mine
                else None,
            )
            for ladder in ladders
            if ladder.family in families or ladder.pk in mine
        ]
        states[version.pk] = version_states(
            VersionFacts(
                number=version.number,
                status=version.status,
                builtin=version.is_builtin,
                families=families,
                newest_active=newest_active,
                ladders=facts,
            )
        )
    return states


def state_for_reader(state: LadderState) -> dict[str, Any]:
    """A state as the API and the pages show it: its facts and its sentence (``text``)."""
    return asdict(state) | {"text": state_words(state)}


def bot_version_standing(
    *, bot: Bot, versions: Sequence[BotVersion]
) -> dict[int, list[dict[str, Any]]]:
    """``bot_version_states`` as the readers show them (``state_for_reader``)."""
    return {
        version: [state_for_reader(state) for state in states]
        for version, states in bot_version_states(bot=bot, versions=versions).items()
    }


def competitor_ladder_standing(*, competitor_id: int, ladder_slug: str) -> dict[str, Any] | None:
    """A bot version's state on one ladder (``state_for_reader``), by its competitor; None
    for a competitor that is not an uploaded version or has no state there."""
    version = (
        BotVersion.objects.select_related("bot")
        .filter(competitor__pk=competitor_id, kind=BotVersion.Kind.UPLOADED)
        .first()
    )
    if version is None:
        return None
    states = bot_version_standing(bot=version.bot, versions=[version])[version.pk]
    return next((state for state in states if state["ladder"] == ladder_slug), None)
