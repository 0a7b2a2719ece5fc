"""The reads of a club night (docs/league.md, *A club night*): a table's entry page from
its code, a round's table cards and seating list (and a duplicate round's hand records),
who is present, a match's corrections.

Who sees what: a table's entry codes (one for each side of the table) are the keys to
its entry page (no account needed) while the code lives: until the table is confirmed,
the organiser closes the night, the league ends or ``CLUB_TABLE_CODE_HOURS`` after the
round started; after that a code is refused to reads as to writes. The round's cards,
which print the codes, are the organisers'. The seating list, the standings and a
match's corrections are as public as the league.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.contrib.auth.models import User as Account
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from engine.errors import ScoreEntryError
from engine.variants import load_game
from league.domain.club_night import (
    hand_records,
    seat_positions,
    seating_list,
    table_card,
    table_sides,
)
from league.errors import GoneError, NotAllowedError, NotFoundError, UnknownTableCodeError
from league.models import (
    Match,
    MatchResult,
    MatchStatus,
    Round,
    RoundAttendance,
    ScoreCorrection,
    TableSheet,
    TableSheetStatus,
    Tournament,
    TournamentFormat,
    TournamentStatus,
)
from league.selectors.clubs import club_role_of

User = Account | AnonymousUser

ENTRY_PATH = "/club/table/{code}/"
"""The entry page of a table's code (web/urls.py), printed on its card and in its QR code."""


def entry_path(code: str) -> str:
    return ENTRY_PATH.format(code=code)


@dataclass(frozen=True, slots=True)
class TableCode:
    """A table's sheet as opened by one of its codes: the side of the table the code is
    for (1 or 2; None on a sheet of an old round, whose one code is the whole table's)
    and that side's seats."""

    sheet: TableSheet
    side: int | None
    seats: tuple[int, ...]


def table_code_expires_at(sheet: TableSheet) -> datetime:
    """When a table's codes stop opening it at the latest: ``CLUB_TABLE_CODE_HOURS``
    after its round started."""
    return sheet.match.round.created_at + timedelta(hours=settings.CLUB_TABLE_CODE_HOURS)


def _gone_reason(sheet: TableSheet) -> str | None:
    """Why a table's codes no longer open it, or None while they do."""
    match = sheet.match
    if sheet.status == TableSheetStatus.CONFIRMED:
        return _("this table's scores are confirmed: the code is no longer valid")
    if sheet.closed_at is not None:
        return _("the organiser has closed this club night: the code is no longer valid")
    if match.tournament.status == TournamentStatus.FINISHED:
        return _("this league is over: the code is no longer valid")
    if match.status != MatchStatus.WAITING:
        return _("this table's match was cancelled: the code is no longer valid")
    if timezone.now() >= table_code_expires_at(sheet):
        return _("this code expired %(hours)s hours after its round started: ask the organiser") % {
            "hours": settings.CLUB_TABLE_CODE_HOURS
        }
    return None


def table_code_open(*, code: str, for_update: bool = False) -> TableCode:
    """The sheet a code opens and the side it is for. UnknownTableCodeError (404) for a
    code no table has (a guess: the callers count them per address), GoneError (410) for
    a code that no longer opens its table, to reads as to writes."""
    code = code.strip().upper()
    sheets = TableSheet.objects.select_related("match__tournament", "match__round")
    if for_update:
        sheets = sheets.select_for_update(of=("self",))
    sheet = sheets.filter(Q(code=code) | Q(second_side_code=code)).first()
    if sheet is None:
        raise UnknownTableCodeError(_("no table has this code: check the code on the table card"))
    reason = _gone_reason(sheet)
    if reason is not None:
        raise GoneError(reason)
    players = load_game(sheet.match.game).player_seats
    if sheet.second_side_code is None:
        return TableCode(sheet=sheet, side=None, seats=tuple(players))
    side = 2 if code == sheet.second_side_code else 1
    return TableCode(sheet=sheet, side=side, seats=table_sides(players)[side - 1])


def table_sheet_for_code(*, code: str) -> TableSheet:
    """The open sheet of ``code`` (table_code_open's refusals)."""
    return table_code_open(code=code).sheet


def table_reserve_seats(match: Match) -> list[int]:
    """The seats of a match taken by reserves (their scores do not count)."""
    attendance = RoundAttendance.objects.filter(
        tournament_id=match.tournament_id, number=match.round.number
    ).first()
    if attendance is None or not attendance.reserves:
        return []
    reserves = set(attendance.reserves)
    return [s.seat for s in match.seats.all() if s.competitor_id in reserves]


def table_entry_view(*, sheet: TableSheet, opened: TableCode | None = None) -> dict[str, Any]:
    """What a table's entry page shows: the league, round and table, the seats with
    names and compass positions (a reserve marked), the score sheet to fill in, what was
    entered (and its ``version``: an entry names the version it was made from), and, for
    a code, its ``side`` and that side's ``side_seats``."""
    match = sheet.match
    names = {s.seat: s.competitor.name for s in match.seats.select_related("competitor")}
    game = load_game(match.game)
    scores = None
    if sheet.entry is not None or sheet.totals is not None:
        try:
            scored = (
                game.table_totals(sheet.totals)
                if sheet.totals is not None
                else game.table_scores(sheet.entry)
            )
            scores = list(scored.scores)
        except ScoreEntryError:  # entered under rules checked the same way: cannot happen
            scores = None
    seats = seat_positions(match.game)
    reserves = table_reserve_seats(match)
    for seat in seats:
        seat["name"] = names.get(seat["seat"], "")
        seat["reserve"] = seat["seat"] in reserves
    totals_allowed = match.tournament.totals_allowed and game.score_sheet().totals_allowed
    entered_side = None
    if opened is not None and opened.side is not None and sheet.entered_seat is not None:
        entered_side = 1 if sheet.entered_seat in table_sides(game.player_seats)[0] else 2
    return {
        "code": sheet.code if opened is None or opened.side != 2 else sheet.second_side_code,
        "side": opened.side if opened is not None else None,
        "side_seats": list(opened.seats) if opened is not None else list(game.player_seats),
        "tournament": match.tournament_id,
        "league": match.tournament.name,
        "match": match.pk,
        "round": match.round.number,
        "table": match.table,
        "game": match.game,
        "game_name": game.display_name,
        "seats": seats,
        "sheet": {**game.score_sheet().to_json(), "totals_allowed": totals_allowed},
        "totals_allowed": totals_allowed,
        "status": sheet.status,
        "version": sheet.version,
        "expires_at": table_code_expires_at(sheet).isoformat(),
        "entry": sheet.entry,
        "totals": sheet.totals,
        "entered_seat": sheet.entered_seat,
        "entered_side": entered_side,
        "scores": scores,
    }


def club_organiser_check(*, user: User, tournament: Tournament) -> None:
    """NotAllowedError unless ``user`` organises the league (its table cards carry codes)."""
    role = club_role_of(user=user, club=tournament.club) if tournament.club else None
    if role not in ("owner", "organiser") and not (user.is_authenticated and user.is_staff):
        raise NotAllowedError(_("only the league's organisers print its table cards"))


def club_round(*, tournament: Tournament, number: int) -> Round:
    if not tournament.at_club:
        raise NotFoundError(_("this league is played online, not at the club"))
    round_ = Round.objects.filter(tournament=tournament, number=number).first()
    if round_ is None:
        raise NotFoundError(_("round %(number)s has not started") % {"number": number})
    return round_


def round_cards(*, round_: Round, base_url: str = "") -> dict[str, Any]:
    """A round's table cards, its seating list (with the players who sit out), and for a
    duplicate round the hand records of its deals (the round's seed: the same cards at
    every table)."""
    tournament = round_.tournament
    matches = list(
        Match.objects.filter(round=round_)
        .select_related("table_sheet")
        .prefetch_related("seats__competitor")
        .order_by("table")
    )
    attendance = RoundAttendance.objects.filter(tournament=tournament, number=round_.number).first()
    reserves = set(attendance.reserves) if attendance is not None else set()
    cards = []
    for match in matches:
        seated = sorted(match.seats.all(), key=lambda s: s.seat)
        names = [s.competitor.name for s in seated]
        sheet = getattr(match, "table_sheet", None)
        codes = [] if sheet is None else [sheet.code, sheet.second_side_code or ""]
        codes = [c for c in codes if c] or [""]
        card = table_card(
            game_string=match.game,
            round_number=round_.number,
            table=match.table,
            names=names,
            codes=codes,
            entry_urls=[base_url + entry_path(c) for c in codes],
            reserve_seats=[s.seat for s in seated if s.competitor_id in reserves],
            totals_allowed=tournament.totals_allowed,
        )
        card["match"] = match.pk
        card["status"] = sheet.status if sheet is not None else None
        cards.append(card)
    byes = list(attendance.byes) if attendance is not None else []
    bye_names = dict(
        tournament.entries.filter(competitor_id__in=byes).values_list(
            "competitor_id", "competitor__name"
        )
    )
    out: dict[str, Any] = {
        "tournament": tournament.pk,
        "league": tournament.name,
        "round": round_.number,
        "game": tournament.game,
        "format": tournament.format,
        "tables": cards,
        "seating": seating_list(cards, byes=[bye_names.get(c, str(c)) for c in byes]),
    }
    if tournament.format == TournamentFormat.DUPLICATE and matches:
        out["hand_records"] = hand_records(matches[0].game, matches[0].seed)
        out["seed"] = matches[0].seed
    return out


def round_attendance(*, tournament: Tournament) -> dict[str, Any]:
    """Who is said to be present for the next round (or the latest said)."""
    attendance = RoundAttendance.objects.filter(tournament=tournament).order_by("-number").first()
    if attendance is None:
        return {"round": None, "present": [], "reserves": [], "byes": []}
    return {
        "round": attendance.number,
        "present": list(attendance.present),
        "reserves": list(attendance.reserves),
        "byes": list(attendance.byes),
    }


def _corrections(*, match: Match) -> list[dict[str, Any]]:
    """The organisers' corrections of a table's scores, oldest first; ``corrected_at`` an
    aware datetime (a page shows it in the reader's time zone)."""
    return [
        {
            "corrected_by": c.corrected_by.username if c.corrected_by else None,
            "corrected_at": c.corrected_at,
            "before": c.before,
            "after": c.after,
            "reason": c.reason,
        }
        for c in ScoreCorrection.objects.filter(match=match).select_related("corrected_by")
    ]


def match_corrections(*, match: Match) -> list[dict[str, Any]]:
    """The organisers' corrections of a table's scores, oldest first, as the API gives
    them (``corrected_at`` in ISO 8601)."""
    return [{**c, "corrected_at": c["corrected_at"].isoformat()} for c in _corrections(match=match)]


def match_sheet_to_correct(*, match: Match) -> dict[str, Any]:
    """What an organiser's correction form starts from: the family's score sheet, the
    seats with names and compass positions, and the entry as it stands."""
    names = {s.seat: s.competitor.name for s in match.seats.select_related("competitor")}
    seats = seat_positions(match.game)
    for seat in seats:
        seat["name"] = names.get(seat["seat"], "")
    entry = TableSheet.objects.filter(match=match).values_list("entry", flat=True).first()
    return {"sheet": load_game(match.game).score_sheet().to_json(), "seats": seats, "entry": entry}


def match_club_sheet(*, match: Match) -> dict[str, Any] | None:
    """A club match's score sheet for its page (where a replay would be): its status, each
    deal's entry and scores (once confirmed), the corrections; None for an online match."""
    sheet = TableSheet.objects.filter(match=match).first()
    if sheet is None:
        return None
    record = MatchResult.objects.filter(match=match).values_list("record", flat=True).first()
    deals = [
        {
            "deal": deal["deal"],
            "entry_text": ", ".join(f"{k}: {v}" for k, v in deal["entry"].items()),
            "scores": deal["scores"],
        }
        for deal in (record or {}).get("deals", [])
    ]
    return {
        "status": sheet.status,
        "deals": deals,
        "entry_json": json.dumps(sheet.entry) if sheet.entry is not None else "",
        "corrections": _corrections(match=match),
        # The night is closed and this table never confirmed: the organiser finishes it
        "to_finish": sheet.closed_at is not None and sheet.status != TableSheetStatus.CONFIRMED,
    }
