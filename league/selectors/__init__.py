"""Reads of the league: lists, access checks and what a viewer may see of a match.

Why this module is long: the league's reads are kept in one module, as the services keep the
writes, in sections by subject (private data, clubs, tournaments and matches, ratings, the
API's reads), so that one place says who may read what; a section that grows on its own is
the first to move into a package of selectors.

Access to a seat goes through ``match_seat_get_for_owner`` only (Zulip's access_*
functions): a seat's hand and its actions belong to the person who sits there.

A bot's private data (its versions' validation logs, its faults' messages and the stderr
kept with them, which holds tracebacks with the bot's own source lines) is read through
``can_read_bot_private`` only: its owner and staff see it, everyone else sees outcomes and
fault kinds (``bot_report_public``, ``fault_public``, ``record_for_viewer``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser
from django.contrib.auth.models import User as Account
from django.db.models import Count, F, Prefetch, Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from bots.models import Bot, BotFault, BotVersion
from engine.record import record_from_state, redact_record
from engine.variants import load_game
from league.domain.scored_results import game_partnership_play, game_scoring_unit
from league.domain.standings_table import margin_json, standings_json
from league.errors import NotAllowedError, NotFoundError
from league.models import (
    AnalysisStatus,
    Club,
    Competitor,
    Entry,
    Invitation,
    Match,
    MatchAnalysis,
    MatchResult,
    MatchSeat,
    MatchStatus,
    Membership,
    Rating,
    RatingChange,
    RatingQueueEntry,
    Role,
    Round,
    RoundSchedule,
    Tournament,
)
from league.selectors.replays import match_replay
from league.selectors.standings import standings_current

User = Account | AnonymousUser


# ---------------------------------------------------------------- private data of bots and seats


def can_read_bot_private(*, user: User, bot: Bot) -> bool:
    """The one rule for a bot's private data: its owner and staff. A built-in bot belongs to
    nobody, so only staff see its faults' messages and tracebacks."""
    if not user.is_authenticated:
        return False
    if getattr(user, "is_staff", False):
        return True
    return bot.owner_id is not None and bot.owner_id == user.pk


def can_read_competitor_private(*, user: User, competitor: Competitor) -> bool:
    """A seat's fault messages: the bot's (``can_read_bot_private``), or for a person's seat
    that person's and staff's."""
    version = competitor.bot_version
    if version is not None:
        return can_read_bot_private(user=user, bot=version.bot)
    if not user.is_authenticated:
        return False
    return bool(getattr(user, "is_staff", False)) or competitor.user_id == user.pk


PUBLIC_FAULT_FIELDS = ("seat", "cause", "decision", "deal", "fallback")
"""What anyone sees of a fault: where it happened, its kind and the action played instead
(the replay shows that action anyway); never its message."""
PUBLIC_REPORT_FIELDS = ("structure", "game", "outcome", "scores")
"""What anyone sees of a version's validation report besides the version's status."""


def fault_public(fault: dict[str, Any]) -> dict[str, Any]:
    return {key: fault[key] for key in PUBLIC_FAULT_FIELDS if key in fault}


def bot_report_public(report: dict[str, Any]) -> dict[str, Any]:
    """A validation report without the bot's log, its faults' messages or the problem's
    text (which may quote the bot)."""
    public = {key: report[key] for key in PUBLIC_REPORT_FIELDS if key in report}
    faults = report.get("faults")
    if isinstance(faults, list):
        public["faults"] = [fault_public(f) for f in faults if isinstance(f, dict)]
    return public


def bot_version_report_for(*, user: User, version: BotVersion) -> dict[str, Any]:
    report = dict(version.report or {})
    return report if can_read_bot_private(user=user, bot=version.bot) else bot_report_public(report)


def record_for_viewer(
    *, record: dict[str, Any], seats: Iterable[MatchSeat], user: User
) -> dict[str, Any]:
    """A game record as ``user`` may see it: the faults in ``meta.faults`` keep their
    messages only for the seats whose private data ``user`` may read."""
    meta = record.get("meta")
    faults = meta.get("faults") if isinstance(meta, dict) else None
    if not isinstance(meta, dict) or not isinstance(faults, list) or not faults:
        return record
    readable = {
        s.seat for s in seats if can_read_competitor_private(user=user, competitor=s.competitor)
    }
    shown = [
        f if f.get("seat") in readable else fault_public(f) for f in faults if isinstance(f, dict)
    ]
    return {**record, "meta": {**meta, "faults": shown}}


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


def club_role_of(*, user: User, club: Club) -> str | None:
    if not user.is_authenticated:
        return None
    return (
        Membership.objects.filter(club=club, user_id=user.pk).values_list("role", flat=True).first()
    )


def invitation_preview(
    *, user: User, code: str, now: datetime | None = None
) -> tuple[Invitation | None, str]:
    """The invitation ``code`` (with its club) as a person sees it before answering it,
    and why they could not use it (empty: they can); (None, why) for an unknown code.
    Says what league.services.clubs.invitation_accept would, without writing anything."""
    invitation = (
        Invitation.objects.filter(code=code).select_related("club", "created_by").first()
        if code
        else None
    )
    if invitation is None:
        return None, "no such invitation"
    if invitation.invitee_id is not None and invitation.invitee_id != user.pk:
        return invitation, "this invitation is for another person; only they may answer it"
    if invitation.accepted_at is not None:
        return invitation, "this invitation has been used already"
    if invitation.declined_at is not None:
        return invitation, "this invitation has been declined"
    if invitation.expires_at <= (now or timezone.now()):
        return invitation, "this invitation has expired"
    if club_role_of(user=user, club=invitation.club) is not None:
        return invitation, "you are a member of this club already"
    return invitation, ""


def invitations_pending_for(*, user: User, now: datetime | None = None) -> QuerySet[Invitation]:
    """The personal invitations waiting for ``user``'s answer, newest first."""
    if not user.is_authenticated:
        return Invitation.objects.none()
    return (
        Invitation.objects.filter(
            invitee_id=user.pk,
            accepted_at__isnull=True,
            declined_at__isnull=True,
            expires_at__gt=now or timezone.now(),
        )
        .select_related("club", "created_by", "invitee")
        .order_by("-created_at", "-id")
    )


def club_list() -> QuerySet[Club]:
    return Club.objects.annotate(member_count=Count("memberships")).order_by("name")


def club_get(*, club_id: int) -> Club:
    club = club_list().filter(pk=club_id).first()
    if club is None:
        raise NotFoundError(_("no club %(club_id)s") % {"club_id": club_id})
    return club


def tournament_get(*, tournament_id: int) -> Tournament:
    tournament = Tournament.objects.select_related("club").filter(pk=tournament_id).first()
    if tournament is None:
        raise NotFoundError(_("no tournament %(tournament_id)s") % {"tournament_id": tournament_id})
    return tournament


def tournament_list(*, club_id: int | None = None) -> QuerySet[Tournament]:
    tournaments = Tournament.objects.select_related("club").annotate(
        entrant_count=Count("entries", distinct=True)
    )
    if club_id is not None:
        tournaments = tournaments.filter(club_id=club_id)
    return tournaments.order_by("-created_at", "-id")


def round_list(*, tournament_id: int | None = None) -> QuerySet[Round]:
    rounds = Round.objects.annotate(
        match_count=Count("matches"),
        finished_count=Count("matches", filter=Q(matches__status=MatchStatus.FINISHED)),
    )
    if tournament_id is not None:
        rounds = rounds.filter(tournament_id=tournament_id)
    return rounds.order_by("tournament_id", "number")


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


def tournament_progress(*, tournament_id: int) -> dict[str, int]:
    counts = Match.objects.filter(tournament_id=tournament_id).aggregate(
        total=Count("id"), finished=Count("id", filter=Q(status=MatchStatus.FINISHED))
    )
    return {"finished": counts["finished"] or 0, "total": counts["total"] or 0}


def seat_names(seats: Iterable[MatchSeat]) -> list[dict[str, Any]]:
    return [
        {
            "seat": s.seat,
            "competitor": s.competitor_id,
            "name": s.competitor.name,
            "kind": s.competitor.kind,
        }
        for s in seats
    ]


def tournament_standings(*, tournament: Tournament) -> dict[str, Any]:
    """The standings of a tournament from its stored standings (league.services.standings,
    kept up to date as each result is stored; docs/api.md has the shape).

    Rows: games, total, average, wins, per-round points, strength of opposition, duplicate
    matchpoints and percentage, and for each ranked row whether its lead over the next is
    statistically meaningful (``next_gap``, the confidence marker). Entrants without a game
    are listed last, unranked; filler bots are not entrants and are not listed.

    A game of partnership play is ranked per unit (``unit``: what the game calls it,
    Priffe's "rubber"; "game" otherwise): a player's total is his individual points
    summed over units, and ``partner_pairs`` has every pair that played a unit
    together. ``head_to_head`` has every pair that met at a table.
    """
    names = dict(
        Entry.objects.filter(tournament=tournament).values_list("competitor_id", "competitor__name")
    )
    current = standings_current(tournament=tournament)
    partnership = current.rules.mode.value == "partnership"
    progress = tournament_progress(tournament_id=tournament.pk)
    return {
        "tournament": tournament.pk,
        **progress,
        "mode": "partnership" if partnership else "individual",
        "unit": game_scoring_unit(tournament.game) if partnership else "game",
        "rank_by": current.rules.rank_by.value,
        "min_games": current.rules.min_games,
        "confidence": current.rules.confidence,
        "results": current.results,
        **standings_json(current.standings, names),
    }


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


def can_request_analysis(*, user: User, match: Match) -> bool:
    """Who may ask for a match's analysis (league.services.analysis): staff, a person who
    sat at it, the owner of a bot that did, the tournament's organisers (its creator; a
    club's owners and organisers)."""
    if not user.is_authenticated:
        return False
    if getattr(user, "is_staff", False):
        return True
    for seat in match.seats.select_related("competitor__bot_version__bot"):
        competitor = seat.competitor
        if competitor.user_id == user.pk:
            return True
        version = competitor.bot_version
        if version is not None and version.bot.owner_id == user.pk:
            return True
    tournament = match.tournament
    if tournament.created_by_id == user.pk:
        return True
    club = tournament.club
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


# ---------------------------------------------------------------- ratings


def _rating_row(rating: Any, rank: int) -> dict[str, Any]:
    return {
        "rank": rank,
        "competitor": rating.competitor_id,
        "name": rating.competitor.name,
        "kind": rating.competitor.kind,
        "mu": rating.mu,
        "sigma": rating.sigma,
        "conservative": rating.conservative,
        "games": rating.games,
    }


def tournament_ratings(*, tournament: Tournament) -> dict[str, Any]:
    """The openskill ratings within a tournament (best conservative rating first), their
    history in the order rated, how many results wait for the ratings queue, and for a
    game of partnership play (Priffe) the ridge margin rating (league.services.ratings and
    .standings; docs/api.md has the shape)."""
    family = load_game(tournament.game).family
    ratings = Rating.objects.filter(tournament=tournament).select_related("competitor")
    rows = [
        _rating_row(r, rank)
        for rank, r in enumerate(ratings.order_by("-conservative", "competitor_id"), start=1)
    ]
    history = [
        {
            "competitor": competitor,
            "match": match,
            "round": round_number,
            "mu": mu,
            "sigma": sigma,
            "conservative": conservative,
        }
        for competitor, match, round_number, mu, sigma, conservative in RatingChange.objects.filter(
            tournament=tournament
        )
        .order_by("rated_id", "competitor_id")
        .values_list(
            "competitor_id", "match_id", "match__round__number", "mu", "sigma", "conservative"
        )
    ]
    pending = RatingQueueEntry.objects.filter(result__match__tournament=tournament).count()
    margin: dict[str, Any] | None = None
    if game_partnership_play(tournament.game):
        solved = standings_current(tournament=tournament).margin
        if solved is not None:
            names = dict(
                Competitor.objects.filter(entries__tournament=tournament).values_list("id", "name")
            )
            margin = margin_json(solved, names)
    return {
        "tournament": tournament.pk,
        "family": family,
        "pending": pending,
        "ratings": rows,
        "history": history,
        "margin": margin,
    }


def competitor_ratings(
    *, competitor_id: int, family: str | None = None, tournament_id: int | None = None
) -> dict[str, Any]:
    """A competitor's ratings now (every family and tournament) and its history: one row
    per rated match, on the family leaderboards, or within ``tournament_id``."""
    competitor = Competitor.objects.filter(pk=competitor_id).first()
    if competitor is None:
        raise NotFoundError(_("no competitor %(competitor_id)s") % {"competitor_id": competitor_id})
    # The family's rating (no tournament) first on every database (NULLs sort last on
    # PostgreSQL and first on SQLite by default).
    ratings = Rating.objects.filter(competitor=competitor).order_by(
        "family", F("tournament_id").asc(nulls_first=True), "id"
    )
    changes = RatingChange.objects.filter(competitor=competitor)
    if tournament_id is not None:
        changes = changes.filter(tournament_id=tournament_id)
    else:
        changes = changes.filter(tournament__isnull=True)
    if family is not None:
        changes = changes.filter(family=family)
    history = [
        {
            "match": match,
            "tournament": tournament,
            "round": round_number,
            "family": row_family,
            "mu_before": mu_before,
            "sigma_before": sigma_before,
            "mu": mu,
            "sigma": sigma,
            "conservative": conservative,
            "rated_at": rated_at,
        }
        for (
            match,
            tournament,
            round_number,
            row_family,
            mu_before,
            sigma_before,
            mu,
            sigma,
            conservative,
            rated_at,
        ) in changes.order_by("rated_id").values_list(
            "match_id",
            "match__tournament_id",
            "match__round__number",
            "family",
            "mu_before",
            "sigma_before",
            "mu",
            "sigma",
            "conservative",
            "rated__created_at",
        )
    ]
    return {
        "competitor": competitor.pk,
        "name": competitor.name,
        "kind": competitor.kind,
        "ratings": [
            {
                "family": r.family,
                "tournament": r.tournament_id,
                "mu": r.mu,
                "sigma": r.sigma,
                "conservative": r.conservative,
                "games": r.games,
            }
            for r in ratings
        ],
        "history": history,
    }


def ratings_leaderboard(*, family: str, min_games: int = 0) -> list[dict[str, Any]]:
    """A game family's leaderboard: every competitor rated in it, best conservative
    rating (mu - 3 sigma) first."""
    ratings = (
        Rating.objects.filter(family=family, tournament__isnull=True, games__gte=min_games)
        .select_related("competitor")
        .order_by("-conservative", "competitor_id")
    )
    return [_rating_row(r, rank) for rank, r in enumerate(ratings, start=1)]


# ---------------------------------------------------------------- reads of the REST API (api/)


def user_find(*, user_id: int | None = None, username: str | None = None) -> Account | None:
    """The account with this id, or else with this username; None if there is none."""
    users = get_user_model().objects
    if user_id is not None:
        return users.filter(pk=user_id).first()
    return users.filter(username=username).first()


def club_find(*, club_id: int) -> Club | None:
    return Club.objects.filter(pk=club_id).first()


def club_member_list(*, club: Club) -> QuerySet[Membership]:
    return Membership.objects.filter(club=club).select_related("user").order_by("id")


def competitor_list(*, kind: str | None = None) -> QuerySet[Competitor]:
    """Every competitor by name; ``kind`` "person" or "bot" keeps only those."""
    competitors = Competitor.objects.order_by("name", "id")
    if kind == "person":
        competitors = competitors.filter(user__isnull=False)
    elif kind == "bot":
        competitors = competitors.filter(bot_version__isnull=False)
    return competitors


def competitor_find(*, competitor_id: int) -> Competitor | None:
    return Competitor.objects.select_related("bot_version__bot").filter(pk=competitor_id).first()


def competitors_find(*, competitor_ids: Iterable[int]) -> list[Competitor]:
    """The competitors of these ids that exist (a missing id is simply not there)."""
    return list(Competitor.objects.filter(pk__in=list(competitor_ids)))


def bot_list() -> QuerySet[Bot]:
    return Bot.objects.select_related("owner").order_by("kind", "name", "id")


def bot_get(*, bot_id: int, with_versions: bool = False) -> Bot:
    """The bot, with its owner (and, ``with_versions``, its versions and their
    competitors); NotFoundError if there is none."""
    bots = Bot.objects.select_related("owner")
    if with_versions:
        bots = bots.prefetch_related("versions__competitor")
    bot = bots.filter(pk=bot_id).first()
    if bot is None:
        raise NotFoundError(_("no bot %(bot_id)s") % {"bot_id": bot_id})
    return bot


def bot_version_list(*, bot: Bot) -> QuerySet[BotVersion]:
    return bot.versions.select_related("bot", "competitor").order_by("number")


def bot_version_get(*, version_id: int) -> BotVersion:
    version = BotVersion.objects.select_related("bot", "competitor").filter(pk=version_id).first()
    if version is None:
        raise NotFoundError(_("no bot version %(version_id)s") % {"version_id": version_id})
    return version


BOT_VERSION_FAULTS_SHOWN = 50


def bot_version_faults_for(*, version: BotVersion, user: User) -> list[BotFault]:
    """A version's latest faults, newest first; their messages are None for anyone who may
    not read the bot's private data (``can_read_bot_private``). The faults are not saved."""
    faults = list(version.faults.order_by("-created_at", "-id")[:BOT_VERSION_FAULTS_SHOWN])
    if not can_read_bot_private(user=user, bot=version.bot):
        for fault in faults:
            fault.message = None  # type: ignore[assignment]
    return faults


def tournament_list_with_rounds(*, club_id: int | None = None) -> QuerySet[Tournament]:
    """``tournament_list`` with each tournament's ``rounds_started``."""
    return tournament_list(club_id=club_id).annotate(
        rounds_started=Count("round_set", distinct=True)
    )


def tournament_detail(*, tournament: Tournament) -> dict[str, Any]:
    """What the API adds to a tournament's fields: its entrants, how many rounds started
    and its matches' progress (``tournament_progress``)."""
    entries = (
        Entry.objects.filter(tournament=tournament).select_related("competitor").order_by("id")
    )
    entrants = [
        {"competitor": e.competitor_id, "name": e.competitor.name, "kind": e.competitor.kind}
        for e in entries
    ]
    return {
        "entrant_count": len(entrants),
        "rounds_started": Round.objects.filter(tournament=tournament).count(),
        "entrants": entrants,
        **tournament_progress(tournament_id=tournament.pk),
    }


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
