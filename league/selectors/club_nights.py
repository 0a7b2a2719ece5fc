"""The reads of a club night (docs/league.md, *A club night*): a table's entry page from
its code, a round's table cards and seating list (and a duplicate round's hand records),
who is present, a match's corrections.

Who sees what: a table's entry code is the key to its entry page (no account needed),
and the round's cards, which print the codes, are the organisers'. The seating list,
the standings and a match's corrections are as public as the league.
"""

from __future__ import annotations

import json
from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.contrib.auth.models import User as Account
from django.utils.translation import gettext as _

from engine.errors import ScoreEntryError
from engine.variants import load_game
from league.domain.club_night import hand_records, seat_positions, seating_list, table_card
from league.errors import NotAllowedError, NotFoundError
from league.models import (
    Match,
    MatchResult,
    Round,
    RoundAttendance,
    ScoreCorrection,
    TableSheet,
    TableSheetStatus,
    Tournament,
    TournamentFormat,
)
from league.selectors.clubs import club_role_of

User = Account | AnonymousUser

ENTRY_PATH = "/club/table/{code}/"
"""The entry page of a table's code (web/urls.py), printed on its card and in its QR code."""


def entry_path(code: str) -> str:
    return ENTRY_PATH.format(code=code)


def table_sheet_for_code(*, code: str) -> TableSheet:
    """The open sheet of ``code``; NotFoundError for an unknown code or a confirmed one."""
    sheet = (
        TableSheet.objects.select_related("match__tournament", "match__round")
        .filter(code=code.strip().upper())
        .first()
    )
    if sheet is None:
        raise NotFoundError(_("no table has this code: check the code on the table card"))
    if sheet.status == TableSheetStatus.CONFIRMED:
        raise NotFoundError(_("this table's scores are confirmed: the code is no longer valid"))
    return sheet


def table_entry_view(*, sheet: TableSheet) -> dict[str, Any]:
    """What a table's entry page shows: the league, round and table, the seats with
    names and compass positions, the score sheet to fill in and what was entered."""
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
    for seat in seats:
        seat["name"] = names.get(seat["seat"], "")
    return {
        "code": sheet.code,
        "tournament": match.tournament_id,
        "league": match.tournament.name,
        "match": match.pk,
        "round": match.round.number,
        "table": match.table,
        "game": match.game,
        "game_name": game.display_name,
        "seats": seats,
        "sheet": game.score_sheet().to_json(),
        "totals_allowed": match.tournament.totals_allowed,
        "status": sheet.status,
        "entry": sheet.entry,
        "totals": sheet.totals,
        "entered_seat": sheet.entered_seat,
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
    cards = []
    for match in matches:
        names = [s.competitor.name for s in sorted(match.seats.all(), key=lambda s: s.seat)]
        sheet = getattr(match, "table_sheet", None)
        code = sheet.code if sheet is not None else ""
        card = table_card(
            game_string=match.game,
            round_number=round_.number,
            table=match.table,
            names=names,
            code=code,
            entry_url=base_url + entry_path(code),
        )
        card["match"] = match.pk
        card["status"] = sheet.status if sheet is not None else None
        cards.append(card)
    attendance = RoundAttendance.objects.filter(tournament=tournament, number=round_.number).first()
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
    }
