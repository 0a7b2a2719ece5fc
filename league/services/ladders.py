"""Ladders (docs/league.md, *Ladders*): ``ladder_open`` (a club-less tournament whose
entrants are the versions, so the ratings queue rates its games); ``ladders_matchmake``
(beat and after each ladder match: the roster brought up to date, the tables
league.domain.ladder_matchmaking chooses queued as ``run_match_ladder`` at the lowest
priority, within the bound on queued matches and each version's limit);
``ladder_match_finished`` (crashes in a row, suspension, the author told, the suspended
version's queued matches withdrawn);
``seat_logs_store`` (each uploaded seat's stderr for its author).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime

from django.db import transaction
from django.db.models import Count, Max, Q
from django.utils import timezone, translation
from django.utils.text import slugify

from bots.models import Bot, BotVersion
from bots.seats import SeatReport
from engine.errors import InvalidGameError
from engine.variants import load_game
from league.display_settings import language_of
from league.domain import ladder_results as results
from league.domain.ladder_matchmaking import (
    PlannedTable,
    plan_tables,
)
from league.errors import ConflictError, InvalidInputError
from league.models import (
    Competitor,
    Entry,
    Ladder,
    LadderEntrant,
    LadderEntrantStatus,
    Match,
    MatchSeat,
    MatchStatus,
    NotificationKind,
    Rating,
    Round,
    SeatLog,
    Tournament,
    TournamentFormat,
    TournamentStatus,
)
from league.services.chosen_names import chosen_name_check
from league.services.competitors import competitor_builtin, competitor_for_bot_version
from league.services.match_lanes import match_run_enqueue
from league.services.notifications import notify
from league.services.task_outbox import task_enqueue
from league.services.tournaments import seed_draw
from league.task_names import LADDERS_MATCHMAKE
from league.words.ladder_messages import suspension_words

LADDER_SUSPEND_AFTER = results.LADDER_SUSPEND_AFTER
SEAT_LOG_CHARS = 32 * 1024  # the end of an uploaded seat's stderr kept per match
HISTORY_SEATS = 2000  # recent seats the matchmaker reads: meetings, seats, partners
DEFAULT_ANCHORS = ("greedy", "random")  # built-in bots anchoring a new ladder


def default_ladder_name(display_name: str) -> str:
    """A ladder's name when the operator gives none, from its game's name for people:
    "Kingen ladder", "Priffe ladder, 1 rubber" (the variant's words after the comma)."""
    family, comma, variant = display_name.partition(", ")
    return f"{family} ladder{comma}{variant}"


@transaction.atomic
def ladder_open(
    *,
    game: str,
    name: str = "",
    slug: str = "",
    anchors: Sequence[str] = DEFAULT_ANCHORS,
    **limits: int,
) -> Ladder:
    """Open a ladder of ``game`` (an operator's act: manage.py ladder_open, the admin);
    ``limits``: queued_limit, concurrent_limit, placement_games (Ladder's defaults)."""
    try:
        loaded = load_game(game)
    except InvalidGameError as exc:
        raise InvalidInputError(f"game: {exc}", errors={"game": [str(exc)]}) from None
    canonical = str(loaded)
    name = chosen_name_check(name) or default_ladder_name(loaded.display_name)
    slug = slug or slugify(canonical.replace("(", "-").replace(")", ""))[:60] or "ladder"
    if Ladder.objects.filter(slug=slug).exists():
        raise ConflictError(
            translation.gettext("a ladder called '%(slug)s' exists already") % {"slug": slug}
        )
    if any(value < 1 for value in limits.values()):
        raise InvalidInputError(
            translation.gettext("a ladder's limits and placement games must be at least 1")
        )
    tournament = Tournament.objects.create(
        name=name,
        game=canonical,
        format=TournamentFormat.LADDER,
        status=TournamentStatus.RUNNING,
        seed=seed_draw(),
    )
    ladder = Ladder.objects.create(
        slug=slug,
        name=name,
        game=canonical,
        family=loaded.family,
        **limits,
        tournament=tournament,
    )
    for anchor in anchors:
        ladder_anchor_add(ladder=ladder, name=anchor)
    return ladder


def ladder_anchor_add(*, ladder: Ladder, name: str, bot_name: str | None = None) -> LadderEntrant:
    """The built-in bot ``name`` (as bot ``bot_name``: a second copy) anchors the ladder."""
    competitor = competitor_builtin(name=name, bot_name=bot_name)
    version = competitor.bot_version
    assert version is not None  # a built-in competitor is a bot version
    return _entrant_add(ladder, competitor, version.bot, anchor=True)


def _entrant_add(ladder: Ladder, competitor: Competitor, bot: Bot, **flags: bool) -> LadderEntrant:
    """``flags``: anchor, opted_out, challengeable (LadderEntrant's fields)."""
    entrant, _ = LadderEntrant.objects.get_or_create(
        ladder=ladder, competitor=competitor, defaults={"bot": bot, **flags}
    )
    Entry.objects.get_or_create(tournament=ladder.tournament, competitor=competitor)
    return entrant


def ladder_roster_sync(ladder: Ladder) -> list[int]:
    """Each bot playing the ladder's family (``Bot.families``) plays its newest active
    version (the owner's choices carried over), older ones are superseded (still listed);
    the competitors who joined."""
    versions = BotVersion.objects.filter(
        bot__kind=Bot.Kind.UPLOADED,
        bot__families__family=ladder.family,
        status=BotVersion.Status.ACTIVE,
    ).select_related("bot")
    newest = {v.bot_id: v for v in versions.defer("code").order_by("bot_id", "number")}
    if not newest:
        return []
    by_version = {
        c.bot_version_id: c
        for c in Competitor.objects.filter(bot_version__in=list(newest.values()))
    }
    competitors = {  # a version's competitor is created on its first pass
        bot: by_version.get(v.pk) or competitor_for_bot_version(version=v)
        for bot, v in newest.items()
    }
    known = [
        results.KnownEntrant(
            e.pk, e.bot_id, e.competitor_id, e.status == "playing", e.opted_out, e.challengeable
        )
        for e in LadderEntrant.objects.filter(ladder=ladder, bot_id__in=list(newest))
    ]
    changes = results.roster_changes({bot: c.pk for bot, c in competitors.items()}, known)
    LadderEntrant.objects.filter(pk__in=changes.superseded).update(
        status=LadderEntrantStatus.SUPERSEDED
    )
    for bot, _, out, open_ in changes.joining:
        _entrant_add(ladder, competitors[bot], newest[bot].bot, opted_out=out, challengeable=open_)
    return [competitor for _, competitor, _, _ in changes.joining]


# ---------------------------------------------------------------- matchmaking


def entrant_plays_family(family: str) -> Q:
    """An entrant the matchmaker seats: an anchor, or a version of a bot that still plays
    the ladder's family (its owner may have taken the family off it since it joined)."""
    return Q(anchor=True) | Q(bot__families__family=family)


def _in_flight(tournament_id: int) -> dict[int, int]:
    rows = (
        MatchSeat.objects.filter(
            match__tournament_id=tournament_id,
            match__status__in=[MatchStatus.QUEUED, MatchStatus.RUNNING],
        )
        .values("competitor_id")
        .annotate(n=Count("match_id", distinct=True))
    )
    return {row["competitor_id"]: row["n"] for row in rows}


def _recent_tables(ladder: Ladder) -> Iterable[dict[int, int]]:
    rows = MatchSeat.objects.filter(match__tournament_id=ladder.tournament_id).order_by("-match_id")
    tables: dict[int, dict[int, int]] = {}
    for match_id, seat, who in rows.values_list("match_id", "seat", "competitor_id")[
        :HISTORY_SEATS
    ]:
        tables.setdefault(match_id, {})[seat] = who
    return tables.values()


def ladder_matchmake(*, ladder_id: int, seed: int | None = None) -> list[int]:
    """Bring the roster up to date and queue the tables the matchmaker chooses, under the
    ladder's row lock (one matchmaker at a time); the ids of the matches queued."""
    with transaction.atomic():
        ladder = Ladder.objects.select_for_update().select_related("tournament").get(pk=ladder_id)
        ladder_roster_sync(ladder)
        if not ladder.running:
            return []
        queued = Match.objects.filter(
            tournament_id=ladder.tournament_id, status=MatchStatus.QUEUED
        ).count()
        room = ladder.queued_limit - queued
        if room <= 0:
            return []
        shape = results.shape_of(
            ladder.game,
            concurrent_limit=ladder.concurrent_limit,
            placement_games=ladder.placement_games,
        )
        entrants = (
            LadderEntrant.objects.filter(
                ladder=ladder, status=LadderEntrantStatus.PLAYING, opted_out=False
            )
            .filter(entrant_plays_family(ladder.family))
            .values_list("competitor_id", "anchor")
        )
        ratings = Rating.objects.filter(tournament_id=ladder.tournament_id)
        tables = plan_tables(
            results.candidates_of(
                entrants,
                {r.competitor_id: (r.mu, r.sigma, r.games) for r in ratings},
                _in_flight(ladder.tournament_id),
            ),
            shape,
            room=room,
            history=results.tables_history(_recent_tables(ladder), partnership=shape.partnership),
            seed=seed_draw() if seed is None else seed,
        )
        if not tables:
            return []
        return [m.pk for m in _tables_queue(ladder, tables)]


def _tables_queue(ladder: Ladder, tables: Sequence[PlannedTable]) -> list[Match]:
    round_ = round_next(ladder.tournament)
    seeds: dict[int, int] = {}
    return [
        match_queue(
            round_=round_,
            table=number,
            seed=seeds.setdefault(table.deal_group, seed_draw()),  # a duplicate pair: one seed
            players=table.seats,
        )
        for number, table in enumerate(tables, start=1)
    ]


def round_next(tournament: Tournament) -> Round:
    """A new round of a ladder's (or its challenges') tournament: one per pass."""
    number = (
        Tournament.objects.select_for_update()
        .get(pk=tournament.pk)
        .round_set.aggregate(top=Max("number"))["top"]
    )
    return Round.objects.create(tournament=tournament, number=(number or 0) + 1)


def match_queue(*, round_: Round, table: int, seed: int, players: Sequence[int]) -> Match:
    """A queued match of ``players`` (the filler bot in a dummy's seat), sent in its lane
    (a ladder's game at the lowest priority, a challenge in the interactive lane)."""
    game = load_game(round_.tournament.game)
    match = Match.objects.create(
        tournament=round_.tournament,
        round=round_,
        table=table,
        game=str(game),
        seed=seed,
        status=MatchStatus.QUEUED,
        queued_at=timezone.now(),
    )
    seated = results.table_seats(game.num_seats, game.player_seats, players)
    filler = competitor_builtin(name="greedy").pk if None in seated else 0
    MatchSeat.objects.bulk_create(
        MatchSeat(match=match, seat=seat, competitor_id=filler if who is None else who)
        for seat, who in enumerate(seated)
    )
    match_run_enqueue(match.pk)
    return match


def ladders_matchmake() -> dict[str, int]:
    """Beat's pass over every running ladder: matches queued per ladder."""
    running = Ladder.objects.filter(running=True).values_list("id", "slug")
    return {slug: len(ladder_matchmake(ladder_id=pk)) for pk, slug in running}


# ---------------------------------------------------------------- after a match


def ladder_match_finished(*, match: Match, rows: Sequence[MatchSeat], now: datetime) -> None:
    """In the transaction storing a ladder match's result (``rows``: its final seats): the
    crashes in a row, a suspension (its author told), and a matchmaker's pass asked for."""
    ladder = Ladder.objects.filter(tournament_id=match.tournament_id).first()
    if ladder is None:
        return
    by_competitor = {row.competitor_id: row for row in rows}
    entrants = LadderEntrant.objects.select_for_update().filter(
        ladder=ladder, competitor_id__in=list(by_competitor), anchor=False
    )
    for entrant in entrants.select_related("bot", "competitor"):
        row = by_competitor[entrant.competitor_id]
        if results.machine_fault(row.faults):
            continue  # no sandbox on that worker: not the bot's fault
        if entrant.status == LadderEntrantStatus.SUSPENDED:
            # a match that was running when it was suspended: the faults that suspended
            # it are what its author is shown, until it is resumed
            continue
        fault = {"match": match.pk, "seat": row.seat, "outcome": row.outcome, "faults": row.faults}
        after = results.failures_after(
            results.Failures(entrant.consecutive_failures, list(entrant.suspension_faults or [])),
            outcome=row.outcome,
            fault=fault,
            limit=LADDER_SUSPEND_AFTER,
            playing=entrant.status == LadderEntrantStatus.PLAYING,
        )
        entrant.consecutive_failures, entrant.suspension_faults = after.count, after.faults
        fields = ["consecutive_failures", "suspension_faults"]
        if after.suspend:
            entrant.status, entrant.suspended_at = LadderEntrantStatus.SUSPENDED, now
            fields += ["status", "suspended_at"]
            suspended_matches_withdraw(ladder=ladder, competitor_id=entrant.competitor_id)
            owner_id = entrant.bot.owner_id
            if owner_id is not None:
                with translation.override(language_of(user_id=owner_id)):  # the author's
                    text = suspension_words(
                        name=entrant.competitor.name, ladder=ladder.name, failures=after
                    )
                notify(
                    user=owner_id,
                    kind=NotificationKind.BOT_SUSPENDED,
                    key=f"ladder-suspended-{entrant.pk}-{now.timestamp():.0f}",
                    text=text,
                    url=f"/ladders/{ladder.slug}/versions/{entrant.competitor_id}/",
                )
        entrant.save(update_fields=fields)
    task_enqueue(LADDERS_MATCHMAKE)


WITHDRAWN_ERROR = "withdrawn before it started: a version at this table was suspended"


def suspended_matches_withdraw(*, ladder: Ladder, competitor_id: int) -> int:
    """A suspended version's ladder matches still queued end unplayed (``error``, saying
    so; nobody's rating counts them), so that it crashes in no more matches of other
    authors; those a worker claimed already play to their end. How many were withdrawn.
    Safe against a worker's claim, which takes a match only while it is still queued."""
    seated = MatchSeat.objects.filter(
        competitor_id=competitor_id,
        match__tournament_id=ladder.tournament_id,
        match__status=MatchStatus.QUEUED,
    ).values("match_id")
    return Match.objects.filter(pk__in=seated, status=MatchStatus.QUEUED).update(
        status=MatchStatus.ERROR, error=WITHDRAWN_ERROR
    )


def seat_logs_store(
    *, match: Match, rows: Sequence[MatchSeat], reports: Sequence[SeatReport | None]
) -> None:
    """Keep each uploaded seat's stderr (its end, ``SEAT_LOG_CHARS``) for its author."""
    uploaded = [
        (row, report)
        for row, report in zip(rows, reports, strict=False)
        if report is not None and report.kind == "uploaded" and row.competitor.bot_version
    ]
    SeatLog.objects.bulk_create(
        (
            SeatLog(
                match=match,
                seat=r.seat,
                competitor_id=r.competitor_id,
                stderr=p.log[-SEAT_LOG_CHARS:],
                startup_ms=p.startup_ms,
            )
            for r, p in uploaded
        ),
        ignore_conflicts=True,
    )
