"""Club nights: leagues played with real cards at the club's tables (docs/league.md,
*A club night*).

A tournament ``at_club`` is planned as any other (league.services.tournaments calls
``club_round_players`` and ``club_tables_seat`` while it starts a round), but its matches
wait at their tables (status ``waiting``: no worker touches them) with a ``TableSheet``
each. A table enters its score sheet through its entry code (no account: the code is the
key, valid for that table and round only, until the scores are confirmed); a second
player at the table, or the organiser, confirms; the result is then stored as a result
of kind ``table`` and the standings and ratings take it exactly as an online result
(``standings_apply_result``, the rating queue). The organiser may correct a confirmed
result; each correction is kept (``ScoreCorrection``: who, when, from what, to what) and
the standings and ratings are recomputed.

The pure parts (who plays, byes, table cards) are league.domain.club_night; the checks
of an entry are the engine's (``Game.table_scores``).
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.contrib.auth.models import User as Account
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from engine.errors import ScoreEntryError
from engine.record import table_record
from engine.table_sheet import TableScores
from engine.variants import load_game
from league.domain.club_night import (
    ENTRY_CODE_ALPHABET,
    ENTRY_CODE_LENGTH,
    playable_tables,
    round_players,
)
from league.domain.scored_results import UNITS_KEY
from league.errors import ConflictError, InvalidInputError, NotAllowedError, NotFoundError
from league.live_updates import match_updated, tournament_progressed
from league.models import (
    Competitor,
    Entry,
    Match,
    MatchResult,
    MatchSeat,
    MatchStatus,
    RoundAttendance,
    ScoreCorrection,
    TableSheet,
    TableSheetStatus,
    Tournament,
    TournamentStatus,
)
from league.services.clubs import club_organiser_require
from league.services.ratings import ratings_enqueue, ratings_recompute
from league.services.standings import standings_apply_result, standings_recompute
from league.services.task_outbox import task_enqueue
from league.task_names import RATINGS_UPDATE
from league.words.score_sheet import score_refusal_in_language

User = Account | AnonymousUser


def _organiser_require(*, actor: User, tournament: Tournament) -> None:
    if tournament.club is None:
        raise NotAllowedError(_("only a club's league is played at the club"))
    club_organiser_require(user=actor, club=tournament.club)


def _at_club_require(tournament: Tournament) -> None:
    if not tournament.at_club:
        raise ConflictError(_("this league is played online, not at the club"))


@transaction.atomic
def club_attendance_set(
    *,
    actor: User,
    tournament: Tournament,
    present: Sequence[int],
    reserves: Sequence[int] = (),
) -> RoundAttendance:
    """Who is present for the next round (and the reserves the club has at hand); said
    again before a round starts, it replaces what was said. A late arrival is simply
    present from the next round on."""
    _organiser_require(actor=actor, tournament=tournament)
    _at_club_require(tournament)
    tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
    if tournament.status not in (TournamentStatus.OPEN, TournamentStatus.RUNNING):
        raise ConflictError(
            _("the league is %(status)s") % {"status": tournament.get_status_display()}
        )
    number = (
        tournament.round_set.order_by("-number").values_list("number", flat=True).first() or 0
    ) + 1
    if number > tournament.rounds:
        raise ConflictError(
            _("all %(rounds)s rounds have been started") % {"rounds": tournament.rounds}
        )
    entrants = set(
        Entry.objects.filter(tournament=tournament).values_list("competitor_id", flat=True)
    )
    present = list(dict.fromkeys(present))
    reserves = list(dict.fromkeys(reserves))
    strangers = [c for c in present if c not in entrants]
    if strangers:
        message = _("competitor %(id)s is not an entrant of this league") % {"id": strangers[0]}
        raise InvalidInputError(f"present: {message}", errors={"present": [message]})
    entered = [c for c in reserves if c in entrants]
    if entered:
        message = _("competitor %(id)s is an entrant: mark them present instead") % {
            "id": entered[0]
        }
        raise InvalidInputError(f"reserves: {message}", errors={"reserves": [message]})
    known = set(Competitor.objects.filter(pk__in=reserves).values_list("pk", flat=True))
    unknown = [c for c in reserves if c not in known]
    if unknown:
        message = _("no competitor %(id)s") % {"id": unknown[0]}
        raise InvalidInputError(f"reserves: {message}", errors={"reserves": [message]})
    attendance, _created = RoundAttendance.objects.update_or_create(
        tournament=tournament,
        number=number,
        defaults={
            "present": present,
            "reserves": reserves,
            "byes": [],
            "created_by": actor if actor.is_authenticated else None,
        },
    )
    return attendance


def club_round_players(
    *, tournament: Tournament, number: int, entrants: Sequence[int]
) -> list[int]:
    """Who is seated in round ``number`` of a league at the club: the entrants present
    (as said for this round, or else for the latest round said; everyone before anything
    was said) and the reserves that fill a short table (league.domain.club_night). What
    was used is written as the round's attendance, so the next round starts from it."""
    attendance = (
        RoundAttendance.objects.filter(tournament=tournament, number__lte=number)
        .order_by("-number")
        .first()
    )
    said = set(attendance.present) if attendance is not None else set(entrants)
    present = [c for c in entrants if c in said]
    reserves = attendance.reserves if attendance is not None and attendance.number == number else []
    table_size = len(load_game(tournament.game).player_seats)
    seated = round_players(present, reserves, table_size=table_size)
    RoundAttendance.objects.update_or_create(
        tournament=tournament,
        number=number,
        defaults={"present": present, "reserves": list(reserves), "byes": []},
    )
    return list(seated.players)


def club_tables_seat(
    *,
    tournament: Tournament,
    number: int,
    tables: Sequence[Sequence[int | None]],
    players: Sequence[int],
) -> list[list[int | None]]:
    """The tables of the plan that the club can play (none with a filler seat); the
    ``players`` seated at none of them (the format's byes, or a table with a filler seat)
    have a bye, written on the round's attendance."""
    dummy = load_game(tournament.game).dummy_seat
    playable = playable_tables(tables, dummy=dummy)
    seated = {who for table in playable for who in table if who is not None}
    byes = [p for p in players if p not in seated]
    RoundAttendance.objects.filter(tournament=tournament, number=number).update(byes=byes)
    if not playable:
        raise ConflictError(_("too few players present to fill a table"))
    return playable


def _code_draw() -> str:
    return "".join(secrets.choice(ENTRY_CODE_ALPHABET) for _ in range(ENTRY_CODE_LENGTH))


def table_sheets_create(matches: Sequence[Match]) -> None:
    """An entry code for each table of a round at the club (unique: drawn again on the
    rare clash)."""
    taken = set(TableSheet.objects.values_list("code", flat=True))
    sheets = []
    for match in matches:
        code = _code_draw()
        while code in taken:
            code = _code_draw()
        taken.add(code)
        sheets.append(TableSheet(match=match, code=code))
    TableSheet.objects.bulk_create(sheets)


def _sheet_by_code(code: str) -> TableSheet:
    sheet = (
        TableSheet.objects.select_for_update()
        .select_related("match__tournament", "match__round")
        .filter(code=code.strip().upper())
        .first()
    )
    if sheet is None:
        raise NotFoundError(_("no table has this code: check the code on the table card"))
    if sheet.status == TableSheetStatus.CONFIRMED:
        raise ConflictError(_("this table's scores are confirmed: the code is no longer valid"))
    if sheet.match.status != MatchStatus.WAITING:
        raise ConflictError(_("this table's match was cancelled: the code is no longer valid"))
    return sheet


def _scored(match: Match, entry: Any, totals: Any) -> TableScores:
    """What an entry (or totals) scores under the match's game; InvalidInputError with the
    engine's message naming what does not add up."""
    if (entry is None) == (totals is None):
        raise InvalidInputError(
            _("give either 'entry' (each deal) or 'totals' (the game's totals)")
        )
    game = load_game(match.game)
    try:
        if totals is not None:
            if not match.tournament.totals_allowed:
                raise ScoreEntryError("the organiser asks for each deal, not game totals")
            return game.table_totals(totals)
        return game.table_scores(entry)
    except ScoreEntryError as exc:
        key = "totals" if totals is not None else "entry"
        said = score_refusal_in_language(str(exc))
        detail = said if str(exc).startswith(f"{key}:") else f"{key}: {said}"
        raise InvalidInputError(detail, errors={key: [said]}) from None


def _seat_require(match: Match, seat: int) -> None:
    players = load_game(match.game).player_seats
    if seat not in players:
        raise InvalidInputError(
            _("seat: give your seat at the table (%(seats)s)")
            % {"seats": ", ".join(map(str, players))},
            errors={"seat": [_("not a player's seat at this table")]},
        )


@transaction.atomic
def table_scores_enter(
    *, code: str, seat: int, entry: Any = None, totals: Any = None
) -> TableSheet:
    """The table's score sheet, entered by the player at ``seat``: checked against the
    family's rules and kept until a second player (or the organiser) confirms. Entering
    again before that replaces it."""
    sheet = _sheet_by_code(code)
    _seat_require(sheet.match, seat)
    _scored(sheet.match, entry, totals)
    sheet.entry = entry
    sheet.totals = totals
    sheet.entered_seat = seat
    sheet.entered_at = timezone.now()
    sheet.status = TableSheetStatus.ENTERED
    sheet.save(update_fields=["entry", "totals", "entered_seat", "entered_at", "status"])
    match_updated(sheet.match_id, 0)
    return sheet


@transaction.atomic
def table_scores_confirm(*, code: str, seat: int) -> MatchResult:
    """A second player at the table confirms what was entered: the result is stored."""
    sheet = _sheet_by_code(code)
    _seat_require(sheet.match, seat)
    if sheet.status != TableSheetStatus.ENTERED:
        raise ConflictError(_("nothing is entered yet to confirm"))
    if seat == sheet.entered_seat:
        raise ConflictError(
            _("a second player at the table confirms: not the one who entered the scores")
        )
    sheet.confirmed_seat = seat
    return _confirmed(sheet)


@transaction.atomic
def table_scores_confirm_by_organiser(*, actor: User, match: Match) -> MatchResult:
    """The organiser confirms what a table entered."""
    _organiser_require(actor=actor, tournament=match.tournament)
    sheet = TableSheet.objects.select_for_update().filter(match=match).first()
    if sheet is None:
        raise NotFoundError(_("this match is not played at the club"))
    if sheet.status == TableSheetStatus.CONFIRMED:
        raise ConflictError(_("the scores are confirmed already: correct them instead"))
    if sheet.status != TableSheetStatus.ENTERED:
        raise ConflictError(_("nothing is entered yet to confirm"))
    sheet.confirmed_by = actor if actor.is_authenticated else None
    return _confirmed(sheet)


def _result_parts(
    match: Match, rows: Sequence[MatchSeat], scored: TableScores, entry: Any
) -> dict[str, Any]:
    """The MatchResult's fields for ``scored``: scores, outcomes, record, standings input."""
    game = load_game(match.game)
    seats = [
        {
            "name": row.competitor.name,
            "player": "person",
            "competitor": row.competitor_id,
            "outcome": "ok",
        }
        for row in rows
    ]
    meta = {
        "match": match.pk,
        "tournament": match.tournament_id,
        "round": match.round.number,
        "table": match.table,
        "entered_at_table": True,
    }
    standings_input: dict[str, Any] = {
        "tournament": match.tournament_id,
        "round": match.round.number,
        "table": match.table,
        "game": match.game,
        "seats": [
            {
                "seat": row.seat,
                "competitor": row.competitor_id,
                "score": scored.scores[row.seat],
                "outcome": "ok",
            }
            for row in rows
        ],
    }
    if game.partnership_play:
        standings_input[UNITS_KEY] = [dict(unit) for unit in scored.units]
    return {
        "scores": list(scored.scores),
        "outcomes": ["ok"] * len(rows),
        "standings_input": standings_input,
        "record": table_record(game, entry=entry, scored=scored, seats=seats, meta=meta),
    }


def _confirmed(sheet: TableSheet) -> MatchResult:
    match = (
        Match.objects.select_for_update()
        .select_related("tournament", "round")
        .get(pk=sheet.match_id)
    )
    if MatchResult.objects.filter(match=match).exists():
        raise ConflictError(_("this match has a result already"))
    if match.status != MatchStatus.WAITING:
        raise ConflictError(
            _("this table's match is %(status)s: nothing to confirm")
            % {"status": match.get_status_display()}
        )
    scored = _scored(match, sheet.entry, sheet.totals)
    rows = list(match.seats.select_related("competitor").order_by("seat"))
    now = timezone.now()
    result = MatchResult.objects.create(
        match=match, created_at=now, **_result_parts(match, rows, scored, sheet.entry)
    )
    standings_apply_result(match_result=result)
    ratings_enqueue([result.pk])
    task_enqueue(RATINGS_UPDATE)
    sheet.status = TableSheetStatus.CONFIRMED
    sheet.confirmed_at = now
    sheet.save(update_fields=["status", "confirmed_at", "confirmed_seat", "confirmed_by"])
    match.status = MatchStatus.FINISHED
    match.finished_at = now
    match.attempts = 1  # the table's confirmed sheet is the match's one play
    match.deals_done = len(scored.deal_scores)
    match.save(update_fields=["status", "finished_at", "attempts", "deals_done"])
    match_updated(match.pk, 0)
    tournament_progressed(match.tournament_id)
    return result


def table_scores_correct(
    *, actor: User, match: Match, entry: Any = None, totals: Any = None, reason: str = ""
) -> ScoreCorrection:
    """The organiser corrects a confirmed table's scores: checked as an entry is, kept as
    a ``ScoreCorrection`` (who, when, from what, to what), and the standings and ratings
    recomputed from the corrected result."""
    with transaction.atomic():
        _organiser_require(actor=actor, tournament=match.tournament)
        sheet = TableSheet.objects.select_for_update().filter(match=match).first()
        if sheet is None:
            raise NotFoundError(_("this match is not played at the club"))
        result = MatchResult.objects.select_for_update().filter(match=match).first()
        if sheet.status != TableSheetStatus.CONFIRMED or result is None:
            raise ConflictError(_("only confirmed scores are corrected: enter them at the table"))
        match = Match.objects.select_related("tournament", "round").get(pk=match.pk)
        scored = _scored(match, entry, totals)
        before = {"entry": sheet.entry, "totals": sheet.totals, "scores": result.scores}
        after = {"entry": entry, "totals": totals, "scores": list(scored.scores)}
        if before == after:
            raise ConflictError(_("the correction changes nothing"))
        rows = list(match.seats.select_related("competitor").order_by("seat"))
        for key, value in _result_parts(match, rows, scored, entry).items():
            setattr(result, key, value)
        result.save(update_fields=["scores", "outcomes", "standings_input", "record"])
        sheet.entry, sheet.totals = entry, totals
        sheet.save(update_fields=["entry", "totals"])
        correction = ScoreCorrection.objects.create(
            match=match,
            corrected_by=actor if actor.is_authenticated else None,
            before=before,
            after=after,
            reason=reason.strip()[:300],
        )
        standings_recompute(tournament=match.tournament)
        match_updated(match.pk, 0)
        tournament_progressed(match.tournament_id)
    ratings_recompute()  # a family's ratings span tournaments: all are rated again
    return correction


def club_round_require_finished(*, tournament: Tournament) -> None:
    """A league at the club starts its next round only when every table has confirmed."""
    waiting = Match.objects.filter(tournament=tournament, status=MatchStatus.WAITING).count()
    if waiting:
        raise ConflictError(
            ngettext(
                "%(count)s table of the last round has not confirmed its scores",
                "%(count)s tables of the last round have not confirmed their scores",
                waiting,
            )
            % {"count": waiting}
        )
