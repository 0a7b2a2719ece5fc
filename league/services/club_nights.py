"""Club nights: leagues played with real cards at the club's tables (docs/league.md,
*A club night*).

A tournament ``at_club`` is planned as any other (league.services.tournaments calls
``club_round_players`` and ``club_tables_seat`` while it starts a round), but its matches
wait at their tables (status ``waiting``: no worker touches them) with a ``TableSheet``
each. A table enters its score sheet through an entry code (no account: the code is the
key, valid for that table and round only, until the scores are confirmed, the organiser
closes the night or the code expires: league.selectors.club_nights). Each side of the
table has its own code: what one side entered, a player of the other side confirms, on
another phone (or the organiser confirms). An entry names the version of the sheet it
was made from: one made from a sheet another phone has entered since is refused (409,
with what that phone entered), never silently replaced. The result is then stored as a result
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
    table_sides,
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
from league.selectors.club_nights import TableCode, table_code_open, table_entry_view
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
    """Two entry codes for each table of a round at the club, one a side (unique among
    all codes: drawn again on the rare clash)."""
    taken = set(TableSheet.objects.values_list("code", flat=True))
    taken |= {
        code
        for code in TableSheet.objects.values_list("second_side_code", flat=True)
        if code is not None
    }

    def fresh() -> str:
        code = _code_draw()
        while code in taken:
            code = _code_draw()
        taken.add(code)
        return code

    TableSheet.objects.bulk_create(
        TableSheet(match=match, code=fresh(), second_side_code=fresh()) for match in matches
    )


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


def _seats_said(seats: Sequence[int]) -> str:
    return ", ".join(map(str, seats))


def _seat_require(match: Match, seat: int, side_seats: Sequence[int]) -> None:
    """InvalidInputError unless ``seat`` is a player's seat on the code's side."""
    players = load_game(match.game).player_seats
    if seat not in players:
        message = _("there is no seat %(seat)s at this table: its seats are %(seats)s") % {
            "seat": seat,
            "seats": _seats_said(players),
        }
        raise InvalidInputError(f"seat: {message}", errors={"seat": [message]})
    if seat not in side_seats:
        message = _(
            "seat %(seat)s is on the other side of the table: this code is for seats %(seats)s"
        ) % {"seat": seat, "seats": _seats_said(side_seats)}
        raise InvalidInputError(f"seat: {message}", errors={"seat": [message]})


def _entered_said(sheet: TableSheet) -> dict[str, Any]:
    """What is on a sheet now, as a refused phone is shown it: the seat that entered, the
    entry and the scores by seat."""
    view = table_entry_view(sheet=sheet)
    return {
        "version": sheet.version,
        "entered_seat": sheet.entered_seat,
        "entry": sheet.entry,
        "totals": sheet.totals,
        "scores": view["scores"],
        "seats": [{"seat": s["seat"], "name": s["name"]} for s in view["seats"]],
    }


def _stale(sheet: TableSheet, *, confirming: bool) -> ConflictError:
    """409 for an entry (or a confirmation) made from an older version of the sheet: the
    message says what the other phone entered."""
    entered = _entered_said(sheet)
    names = {s["seat"]: s["name"] for s in entered["seats"]}
    scores = entered["scores"] or []
    said = ", ".join(f"{names.get(seat, seat)} {score:+d}" for seat, score in enumerate(scores))
    words = (
        _(
            "The scores changed since you looked: seat %(seat)s (%(name)s) entered %(scores)s. "
            "Check them and confirm again."
        )
        if confirming
        else _(
            "Another phone entered this table first: seat %(seat)s (%(name)s) entered "
            "%(scores)s. Check what it entered: confirm it from the other side, or enter "
            "yours again over it."
        )
    )
    message = words % {
        "seat": sheet.entered_seat,
        "name": names.get(sheet.entered_seat or 0, ""),
        "scores": said,
    }
    return ConflictError(message, answer_fields={"entered": entered})


def _version_require(sheet: TableSheet, version: int, *, confirming: bool = False) -> None:
    if version == sheet.version:
        return
    if sheet.status == TableSheetStatus.ENTERED and version < sheet.version:
        raise _stale(sheet, confirming=confirming)
    message = _("the sheet is at version %(version)s: read it again") % {"version": sheet.version}
    raise InvalidInputError(f"version: {message}", errors={"version": [message]})


def _side_of(opened: TableCode, seat: int | None) -> int | None:
    """The side of the table ``seat`` is on (None on a sheet of an old round)."""
    if opened.side is None or seat is None:
        return None
    players = load_game(opened.sheet.match.game).player_seats
    first, _second = table_sides(players)
    return 1 if seat in first else 2


@transaction.atomic
def table_scores_enter(
    *,
    code: str,
    seat: int,
    entry: Any = None,
    totals: Any = None,
    version: int = 0,
    phone: str = "",
) -> TableSheet:
    """The table's score sheet, entered by the player at ``seat`` (on the code's side):
    checked against the family's rules and kept until a player of the other side (or the
    organiser) confirms. ``version`` is the sheet's version the entry was made from (0:
    nothing entered yet); from an older one it is refused with what was entered since.
    ``phone``: who entered (a digest of the session), who cannot confirm."""
    opened = table_code_open(code=code, for_update=True)
    sheet = opened.sheet
    _seat_require(sheet.match, seat, opened.seats)
    _version_require(sheet, version)
    _scored(sheet.match, entry, totals)
    sheet.entry = entry
    sheet.totals = totals
    sheet.entered_seat = seat
    sheet.entered_at = timezone.now()
    sheet.entered_phone = phone
    sheet.version += 1
    sheet.status = TableSheetStatus.ENTERED
    sheet.save(
        update_fields=[
            "entry",
            "totals",
            "entered_seat",
            "entered_at",
            "entered_phone",
            "version",
            "status",
        ]
    )
    match_updated(sheet.match_id, 0)
    return sheet


@transaction.atomic
def table_scores_confirm(
    *, code: str, seat: int, version: int | None = None, phone: str = ""
) -> MatchResult:
    """A player of the other side of the table confirms what was entered, on another
    phone: the result is stored. ``version``, where given, is the version the player
    saw (a sheet entered again since is refused)."""
    opened = table_code_open(code=code, for_update=True)
    sheet = opened.sheet
    _seat_require(sheet.match, seat, opened.seats)
    if sheet.status != TableSheetStatus.ENTERED:
        raise ConflictError(_("nothing is entered yet to confirm"))
    if version is not None:
        _version_require(sheet, version, confirming=True)
    entered_side = _side_of(opened, sheet.entered_seat)
    if entered_side is not None and entered_side == opened.side:
        raise ConflictError(
            _(
                "your side of the table entered these scores: a player of the other side "
                "confirms them with the other side's code"
            )
        )
    if seat == sheet.entered_seat:
        raise ConflictError(
            _("a second player at the table confirms: not the one who entered the scores")
        )
    if phone and phone == sheet.entered_phone:
        raise ConflictError(
            _(
                "this phone entered the scores: a player of the other side confirms them "
                "on their own phone"
            )
        )
    sheet.confirmed_seat = seat
    return _confirmed(sheet)


@transaction.atomic
def club_night_close(*, actor: User, tournament: Tournament, number: int) -> int:
    """The organiser closes a round's club night: its codes no longer open the tables
    (to reads as to writes); a table not confirmed yet is the organiser's to confirm or
    enter. How many tables were closed."""
    _organiser_require(actor=actor, tournament=tournament)
    _at_club_require(tournament)
    if not tournament.round_set.filter(number=number).exists():
        raise NotFoundError(_("round %(number)s has not started") % {"number": number})
    return (
        TableSheet.objects.filter(
            match__tournament=tournament, match__round__number=number, closed_at=None
        )
        .exclude(status=TableSheetStatus.CONFIRMED)
        .update(closed_at=timezone.now())
    )


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
        if sheet.closed_at is not None and sheet.status != TableSheetStatus.CONFIRMED:
            return _closed_table_finish(
                actor=actor, sheet=sheet, entry=entry, totals=totals, reason=reason
            )
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


def _closed_table_finish(
    *, actor: User, sheet: TableSheet, entry: Any, totals: Any, reason: str
) -> ScoreCorrection:
    """A table of a closed night that never confirmed: the organiser enters its sheet (checked
    as a table's entry is) and it is confirmed at once, audited as a correction from what the
    table had entered, if anything."""
    match = Match.objects.select_related("tournament", "round").get(pk=sheet.match_id)
    scored = _scored(match, entry, totals)
    before: dict[str, Any] = {"entry": sheet.entry, "totals": sheet.totals, "scores": []}
    after = {"entry": entry, "totals": totals, "scores": list(scored.scores)}
    sheet.entry, sheet.totals = entry, totals
    sheet.save(update_fields=["entry", "totals"])
    sheet.confirmed_by = actor if actor.is_authenticated else None
    sheet.confirmed_seat = None
    _confirmed(sheet)
    return ScoreCorrection.objects.create(
        match=match,
        corrected_by=actor if actor.is_authenticated else None,
        before=before,
        after=after,
        reason=reason.strip()[:300],
    )


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
