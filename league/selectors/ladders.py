"""What the ladders' pages and API read (docs/api.md, *Ladders*); an author's seat logs
are private (league.selectors.bots.can_read_bot_private). The arithmetic:
domain.ladder_results."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.contrib.auth.models import User as Account
from django.db.models import Q
from django.utils.translation import gettext as _

from engine.variants import load_game
from league.domain.ladder_results import PlayedMatch, ranked, version_games
from league.domain.ratings_book import conservative
from league.domain.ratings_maths import DEFAULT_MU, DEFAULT_SIGMA
from league.errors import NotAllowedError, NotFoundError
from league.models import (
    Ladder,
    LadderEntrant,
    LadderEntrantStatus,
    Match,
    MatchEvent,
    MatchSeat,
    Rating,
    RatingChange,
    SeatLog,
    TournamentFormat,
)
from league.selectors.bots import can_read_bot_private

User = Account | AnonymousUser

RECENT_GAMES = 50
"""A version's latest games listed on its page."""
LADDER_FIELDS = ("slug", "name", "game", "family", "running")
SETTINGS_FIELDS = ("queued_limit", "concurrent_limit", "placement_games")
ENTRANT_FIELDS = ("status", "opted_out", "challengeable", "consecutive_failures")


def _scores(match: Match) -> list[int] | None:
    result = getattr(match, "result", None) if match.status == "finished" else None
    return list(result.scores) if result is not None else None


def ladder_get(slug: str) -> Ladder:
    ladder = Ladder.objects.select_related("tournament").filter(slug=slug).first()
    if ladder is None:
        raise NotFoundError(_("no ladder '%(slug)s'") % {"slug": slug})
    return ladder


def ladders_list() -> list[dict[str, Any]]:
    return list(Ladder.objects.order_by("name", "id").values(*LADDER_FIELDS))


def ladder_board(ladder: Ladder) -> dict[str, Any]:
    """The ladder, its time control (its tournament's: a bot's time per move and its time
    bank) and its leaderboard: every entrant (the suspended, opted-out and
    superseded ones too, flagged), best conservative rating first, with how sure each
    position is to be above the next (``confidence``)."""
    ratings = {
        r.competitor_id: (r.mu, r.sigma, r.games)
        for r in Rating.objects.filter(tournament_id=ladder.tournament_id)
    }
    rows = []
    for entrant in LadderEntrant.objects.filter(ladder=ladder).select_related(
        "competitor", "bot__owner"
    ):
        mu, sigma, games = ratings.get(entrant.competitor_id, (DEFAULT_MU, DEFAULT_SIGMA, 0))
        owner = entrant.bot.owner
        rows.append(
            {f: getattr(entrant, f) for f in ("anchor", *ENTRANT_FIELDS)}
            | {"competitor": entrant.competitor_id, "name": entrant.competitor.name, "mu": mu}
            | {"sigma": sigma, "conservative": conservative(mu, sigma), "games": games}
            | {"owner": owner.get_username() if owner else ""}
        )
    tournament = ladder.tournament
    return {f: getattr(ladder, f) for f in LADDER_FIELDS + SETTINGS_FIELDS} | {
        "time_control": tournament.time_control,
        "move_seconds": tournament.move_seconds,
        "time_bank_seconds": tournament.time_bank_seconds,
        "seats": len(load_game(ladder.game).player_seats),
        "rows": ranked(rows),
    }


def rated_game_opponents(
    ladder: Ladder, *, user_id: int, board: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    """The versions of ``ladder`` a person (``user_id``) may sit with at a rated game
    (league.services.rated_games): playing, not opted out, and an anchor, a bot whose owner
    allows rated games against people, or the person's own; best rated first. ``board``:
    the ladder's ``ladder_board`` where the caller has it already."""
    board = board if board is not None else ladder_board(ladder)
    allowed = set(
        LadderEntrant.objects.filter(ladder=ladder)
        .filter(Q(anchor=True) | Q(bot__people_may_play_rated=True) | Q(bot__owner_id=user_id))
        .values_list("competitor_id", flat=True)
    )
    return [
        {"competitor": row["competitor"], "name": row["name"]}
        for row in board["rows"]
        if row["status"] == LadderEntrantStatus.PLAYING
        and not row["opted_out"]
        and row["competitor"] in allowed
    ]


def ladder_version(ladder: Ladder, competitor_id: int) -> dict[str, Any]:
    """A version on the ladder: its latest games, its results against each opponent (won,
    tied, lost: its score against theirs at the same table) and its rating history."""
    entrant = (
        LadderEntrant.objects.select_related("competitor", "bot")
        .filter(ladder=ladder, competitor_id=competitor_id)
        .first()
    )
    if entrant is None:
        raise NotFoundError(
            _("competitor %(id)s is not on the %(ladder)s")
            % {"id": competitor_id, "ladder": ladder.name}
        )
    matches = list(
        Match.objects.filter(tournament_id=ladder.tournament_id, seats__competitor_id=competitor_id)
        .select_related("result")
        .order_by("-id")
        .distinct()
    )
    tables: dict[int, list[tuple[int, int, str, str]]] = {}
    for s in MatchSeat.objects.filter(match__in=matches).select_related("competitor"):
        tables.setdefault(s.match_id, []).append(
            (s.seat, s.competitor_id, s.competitor.name, s.outcome)
        )
    games, opponents = version_games(
        [
            PlayedMatch(m.pk, m.status, m.finished_at, sorted(tables[m.pk]), _scores(m))
            for m in matches
        ],
        competitor_id,
        recent=RECENT_GAMES,
    )
    history = RatingChange.objects.filter(
        competitor_id=competitor_id, tournament_id=ladder.tournament_id
    ).order_by("rated_id")
    return {
        f: getattr(entrant, f) for f in (*ENTRANT_FIELDS, "suspended_at", "suspension_faults")
    } | {
        "competitor": competitor_id,
        "name": entrant.competitor.name,
        "owner_id": entrant.bot.owner_id,
        "games": games,
        "opponents": opponents,
        "history": list(history.values("match_id", "mu", "sigma", "conservative")),
    }


def ladder_version_owner_id(ladder: Ladder, competitor_id: int) -> int | None:
    """The owner of the bot of a version on ``ladder`` (``ladder_version``'s ``owner_id``),
    in one query; None for a version not on it or a bot of no one (an anchor)."""
    owners = LadderEntrant.objects.filter(ladder=ladder, competitor_id=competitor_id)
    return owners.values_list("bot__owner_id", flat=True).first()


def challenges_of(*, user: User, ladder: Ladder) -> list[dict[str, Any]]:
    """A person's challenges of the ladder's game (one-match tournaments), newest first."""
    if not user.is_authenticated:
        raise NotAllowedError(_("log in to see your challenges"))
    matches = Match.objects.filter(
        tournament__format=TournamentFormat.CHALLENGE,
        tournament__created_by_id=user.pk,
        tournament__game=ladder.game,
    )
    return [
        {"match": m.pk, "name": m.tournament.name, "status": m.status, "scores": _scores(m)}
        | {"created_at": m.created_at, "replay": f"/matches/{m.pk}/"}
        for m in matches.select_related("result", "tournament").order_by("-id")[:100]
    ]


def seat_log_read(*, user: User, match_id: int, seat: int) -> dict[str, Any]:
    """An uploaded seat's stderr and per-move times in one match: its owner's and staff's
    only (NotAllowedError otherwise, also when there is no such seat: nothing leaks)."""
    row = (
        MatchSeat.objects.select_related("competitor__bot_version__bot")
        .filter(match_id=match_id, seat=seat)
        .first()
    )
    version = row.competitor.bot_version if row is not None else None
    if row is None or version is None or not can_read_bot_private(user=user, bot=version.bot):
        raise NotAllowedError(_("a seat's logs are for its bot's owner and staff only"))
    log = SeatLog.objects.filter(match_id=match_id, seat=seat).first()
    if log is None:
        raise NotFoundError(
            _("match %(match)s kept no log for seat %(seat)s") % {"match": match_id, "seat": seat}
        )
    moves = MatchEvent.objects.filter(match_id=match_id, seat=seat, ms__isnull=False)
    timed = list(moves.order_by("index").values("index", "ms"))
    return {"match": match_id, "seat": seat, "competitor": row.competitor_id, "moves": timed} | {
        "name": row.competitor.name,
        "stderr": log.stderr,
    }
