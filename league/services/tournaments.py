"""Tournaments: creation, entries, rounds, pause/resume/finish. Tables (a single game
opened by a person) are league.services.tables, which creates its match here too.

Only a club's owners and organisers change its tournaments; nobody is entered or seated
without their consent (league.services.competitors.entry_consent_require: a person enters
themselves, a bot is entered by its owner or with the owner's standing consent, built-in
bots need none). Starting a round asks the
schedule for tables (``round_tables``), stores the round, its matches and their seats in
one transaction, and sends one ``run_match`` task per match when it commits.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Collection, Sequence
from typing import cast

from django.contrib.auth.models import AnonymousUser
from django.contrib.auth.models import User as Account
from django.db import transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.translation import gettext as _

from engine.errors import InvalidGameError
from engine.options import format_game_string, parse_game_string
from engine.variants import load_game
from league.domain.rotation import rotation_tables
from league.domain.scheduling.model import SEATS, Fill, Mode, Occupant, PlayerId, is_filler
from league.domain.scheduling.model import Round as ScheduledRound
from league.domain.scheduling.model import Table as ScheduledTable
from league.domain.scheduling.rotating_partners import rotating_partners
from league.domain.scheduling.round_robin import round_robin
from league.domain.scheduling.small_tables import small_tables_round
from league.domain.scheduling.swiss import swiss_round
from league.errors import ConflictError, InvalidInputError, NotAllowedError
from league.models import (
    Club,
    Competitor,
    Entry,
    Match,
    MatchSeat,
    MatchStatus,
    Round,
    Tournament,
    TournamentFormat,
    TournamentStatus,
)
from league.selectors.clubs import club_role_of
from league.selectors.standings import tournament_standings
from league.services.chosen_names import chosen_name_check
from league.services.club_nights import (
    club_round_players,
    club_round_require_finished,
    club_tables_seat,
    table_sheets_create,
)
from league.services.clubs import ORGANISING_ROLES, club_organiser_require
from league.services.competitors import (
    competitor_builtin,
    entry_consent_require,
)
from league.services.match_lanes import match_run_enqueue
from league.services.match_notices import league_finished_notify, round_started_notify
from league.services.time_controls import time_control_choose

User = Account | AnonymousUser
logger = logging.getLogger(__name__)

FOUR_SEAT_FORMATS = frozenset({TournamentFormat.SWISS, TournamentFormat.ROTATING_PARTNERS})
"""Formats whose schedulers seat four players a table only: a game of three or five
players a table (Kingen for three or five, Priffe for three with its träkarl) is refused for
them (round robin and duplicate take any size)."""
FILLER_BOT = "greedy"
"""The built-in bot that fills a table the schedule leaves short."""


def seed_draw() -> int:
    return secrets.randbits(62)


def match_game_string(game: str, deals: int | None) -> str:
    """The canonical game string of a tournament's matches: ``game`` with its length
    option (the game's ``length_option``) set to ``deals``. InvalidInputError naming the
    problem otherwise."""
    try:
        loaded = load_game(game)
        if deals is None:
            return str(loaded)
        option = loaded.length_option
        if option is None:
            raise InvalidInputError(
                _("deals: %(family)s has no length option; a match is one whole game")
                % {"family": loaded.family},
                errors={"deals": [f"{loaded.family} has no length option"]},
            )
        family, options = parse_game_string(str(loaded))
        options[option] = str(deals)
        return str(load_game(format_game_string(family, options)))
    except InvalidGameError as exc:
        field = "deals" if deals is not None and "option" in str(exc) else "game"
        raise InvalidInputError(f"{field}: {exc}", errors={field: [str(exc)]}) from None


def tournament_organiser_require(*, user: User, tournament: Tournament) -> None:
    if tournament.club is None or tournament.format == TournamentFormat.TABLE:
        if not user.is_authenticated or user.pk != tournament.created_by_id:
            raise NotAllowedError(_("only the person who opened this table may change it"))
        return
    club_organiser_require(user=user, club=tournament.club)


@transaction.atomic
def tournament_create(
    *,
    actor: User,
    club: Club,
    name: str,
    game: str,
    format: str = TournamentFormat.ROUND_ROBIN,
    rounds: int = 1,
    deals: int | None = None,
    move_seconds: float | None = None,
    time_bank_seconds: float = 60.0,
    time_control: str | None = None,
    entrants: Sequence[Competitor] = (),
    at_club: bool = False,
    totals_allowed: bool = False,
) -> Tournament:
    """A club's league. ``time_control`` and ``move_seconds`` as given, or by default
    (league.services.time_controls.time_control_choose): correspondence of a day per move
    when people are among the entrants, live of 30 seconds otherwise."""
    club_organiser_require(user=actor, club=club)
    chosen_name_check(name)
    if format == TournamentFormat.TABLE:
        raise InvalidInputError(_("format: a table is opened with POST /api/tables/"))
    if format not in TournamentFormat.values:
        raise InvalidInputError(_("format: unknown format %(repr)s") % {"repr": repr(format)})
    canonical = match_game_string(game, deals)
    loaded = load_game(canonical)
    players, dummy = table_players(canonical)
    if players != SEATS and format in FOUR_SEAT_FORMATS:
        table = f"tables of {players}" + (f" and {loaded.dummy_name}" if dummy >= 0 else "")
        message = (
            f"{format} seats tables of four; {canonical} is played at {table}:"
            " use round_robin or duplicate"
        )
        raise InvalidInputError(
            _("format: %(message)s") % {"message": message}, errors={"format": [message]}
        )
    if format == TournamentFormat.DUPLICATE and not loaded.deals_fixed_by_seed:
        family = loaded.family
        hint = loaded.fixed_deals_options
        message = (
            f"duplicate play gives every table the same cards, but in {canonical} the deals "
            "depend on the play" + (f": choose {family}({hint})" if hint else "")
        )
        raise InvalidInputError(
            _("game: %(message)s") % {"message": message}, errors={"game": [message]}
        )
    unique_entrants = list(dict.fromkeys(entrants))
    time_control, move_seconds = time_control_choose(
        time_control=time_control,
        move_seconds=move_seconds,
        people=any(c.user_id is not None for c in unique_entrants),
    )
    tournament = Tournament(
        name=name.strip(),
        club=club,
        game=canonical,
        format=format,
        rounds=rounds,
        deals=deals,
        move_seconds=move_seconds,
        time_bank_seconds=time_bank_seconds,
        time_control=time_control,
        status=TournamentStatus.OPEN,
        seed=seed_draw(),
        at_club=at_club,
        totals_allowed=totals_allowed and at_club,
        created_by=actor if actor.is_authenticated else None,
    )
    if totals_allowed and at_club and not loaded.score_sheet().totals_allowed:
        message = f"{loaded.display_name} is ranked per deal: game totals alone are not enough"
        raise InvalidInputError(f"totals_allowed: {message}", errors={"totals_allowed": [message]})
    for competitor in unique_entrants:
        entry_consent_require(actor=actor, competitor=competitor, club=club)
    tournament.full_clean()
    tournament.save()
    for competitor in unique_entrants:
        Entry.objects.create(tournament=tournament, competitor=competitor)
    return tournament


@transaction.atomic
def tournament_enter(*, actor: User, tournament: Tournament, competitor: Competitor) -> Entry:
    """Enter ``competitor`` in a club's tournament. The actor is a member or an organiser
    of the club, and the competitor has consented (``entry_consent_require``): a member
    enters themself and their own bots; an organiser also built-in bots and the bots of
    members who allow organisers to enter them. Nobody enters another person."""
    tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
    if tournament.status == TournamentStatus.FINISHED:
        raise ConflictError(_("the tournament is finished"))
    if tournament.format == TournamentFormat.TABLE or tournament.club is None:
        raise ConflictError(_("a table's seats are chosen when it is opened"))
    club = tournament.club
    if not actor.is_authenticated:
        raise NotAllowedError(_("log in as an organiser or a member of the club"))
    role = club_role_of(user=actor, club=club)
    if role is None:
        raise NotAllowedError(
            _("join %(repr)s to enter its tournaments") % {"repr": repr(club.name)}
        )
    builtin = competitor.bot_version is not None and competitor.bot_version.bot.owner_id is None
    if builtin and role not in ORGANISING_ROLES:
        raise NotAllowedError(_("members enter themselves or their own bots; ask an organiser"))
    entry_consent_require(actor=actor, competitor=competitor, club=club)
    entry, created = Entry.objects.get_or_create(tournament=tournament, competitor=competitor)
    if not created:
        raise ConflictError(_("%(name)s is entered already") % {"name": competitor.name})
    return entry


def round_tables(
    *, tournament: Tournament, number: int, entrants: Sequence[int], seats: int
) -> list[list[int | None]]:
    """The tables of a round: competitor ids per seat, ``None`` for a filler bot.

    Tables of four use the schedulers of league/scheduling with the rounds played so far
    as history: round robin (opponents and seats balanced), rotating partners (who
    partners whom), Swiss (grouped by the standings). A round robin of three or five
    players a table (Kingen for three or five; Priffe for three, whose träkarl seat is
    left to a filler) is planned a round at a time by league.domain.scheduling.small_tables
    (meetings and first seats kept even). Duplicate play uses the simple rotation of
    league.domain.rotation (the duplicate rounds share one seed: the same deals at every table),
    as do Swiss and rotating-partner tournaments of three or five players a table made
    before those were refused (``FOUR_SEAT_FORMATS``).
    """
    players, dummy = table_players(tournament.game)
    if players != SEATS:
        if tournament.format == TournamentFormat.ROUND_ROBIN:
            history = _small_tables_history(
                tournament=tournament, entrants=set(entrants), dummy=dummy
            )
            small = small_tables_round(
                [PlayerId(e) for e in entrants],
                seats=players,
                history=history,
                seed=(tournament.seed + number) % 2**31,
            )
            tables = [[None if p is None else int(p) for p in table] for table in small]
        else:
            tables = rotation_tables(entrants, round_number=number, seats=players)
        if dummy >= 0:  # the dummy's seat: a filler the engine never asks to play
            for table in tables:
                table.insert(dummy, None)
        return tables
    if seats != SEATS or tournament.format not in (
        TournamentFormat.ROUND_ROBIN,
        TournamentFormat.ROTATING_PARTNERS,
        TournamentFormat.SWISS,
    ):
        return rotation_tables(entrants, round_number=number, seats=seats)
    try:
        planned = _scheduled_round(
            tournament=tournament,
            number=number,
            entrants=entrants,
            fill=Fill.BYES if tournament.at_club else Fill.BOTS,  # no bot sits at a club
        )
    except ValueError as exc:  # a field the schedulers have no design or search for
        logger.warning("tournament %s: %s; simple rotation instead", tournament.pk, exc)
        return rotation_tables(entrants, round_number=number, seats=seats)
    return [
        [None if is_filler(occupant) else int(cast(int, occupant)) for occupant in table.seats]
        for table in planned.tables
    ]


def _scheduled_round(
    *, tournament: Tournament, number: int, entrants: Sequence[int], fill: Fill = Fill.BOTS
) -> ScheduledRound:
    players = [PlayerId(e) for e in entrants]
    history = _schedule_history(tournament=tournament, entrants=set(entrants))
    seed = (tournament.seed + number) % 2**31
    if tournament.format == TournamentFormat.ROUND_ROBIN:
        return round_robin(players, 1, fill=fill, seed=seed, history=history).rounds[0]
    if tournament.format == TournamentFormat.ROTATING_PARTNERS:
        return rotating_partners(players, 1, fill=fill, seed=seed, history=history).rounds[0]
    ranked = [r["competitor"] for r in tournament_standings(tournament=tournament)["rows"]]
    order = [PlayerId(c) for c in ranked if c in set(entrants)]
    order += [p for p in players if p not in set(order)]
    try:
        return swiss_round(order, mode=Mode.SOLO, fill=fill, history=history)
    except ValueError:  # too many fillers for the tables: byes instead
        return swiss_round(order, mode=Mode.SOLO, fill=Fill.BYES, history=history)


def _schedule_history(*, tournament: Tournament, entrants: set[int]) -> list[ScheduledRound]:
    """The rounds played so far as the schedulers see them (fillers as ``None``)."""
    tables: dict[int, dict[int, list[Occupant]]] = {}
    rows = (
        MatchSeat.objects.filter(match__tournament=tournament)
        .order_by("match__round__number", "match_id", "seat")
        .values_list("match__round__number", "match_id", "competitor_id")
    )
    for number, match_id, competitor_id in rows:
        occupant: Occupant = PlayerId(competitor_id) if competitor_id in entrants else None
        tables.setdefault(number, {}).setdefault(match_id, []).append(occupant)
    history = []
    for number in sorted(tables):
        seated = [ScheduledTable(tuple(t)) for t in tables[number].values() if len(t) == SEATS]
        history.append(ScheduledRound(tuple(seated)))
    return history


def table_players(game: str) -> tuple[int, int]:
    """(players at a table of ``game``, the dummy's seat or -1), as the game describes its
    seats: four in most games, three or five in Kingen for three or five, three in Priffe
    for three (four seats, one of them the träkarl's, a dummy)."""
    loaded = load_game(game)
    return len(loaded.player_seats), loaded.dummy_seat


def _small_tables_history(
    *, tournament: Tournament, entrants: set[int], dummy: int = -1
) -> list[list[list[PlayerId | None]]]:
    """The rounds played so far, each a list of tables (the players' seats in order, the
    dummy's left out, fillers ``None``)."""
    rounds: dict[int, dict[int, list[PlayerId | None]]] = {}
    rows = (
        MatchSeat.objects.filter(match__tournament=tournament)
        .exclude(seat=dummy)
        .order_by("match__round__number", "match_id", "seat")
        .values_list("match__round__number", "match_id", "competitor_id")
    )
    for number, match_id, competitor_id in rows:
        occupant = PlayerId(competitor_id) if competitor_id in entrants else None
        rounds.setdefault(number, {}).setdefault(match_id, []).append(occupant)
    return [list(rounds[number].values()) for number in sorted(rounds)]


def matches_create(
    *,
    tournament: Tournament,
    round_: Round,
    tables: Sequence[Sequence[int | None]],
    empty_seats: Collection[int] = (),
    at_club: bool = False,
) -> list[Match]:
    """The matches of ``tables`` (competitor ids per seat, ``None`` for the filler bot),
    each queued for a worker through the outbox: the one path of every match, a round's
    and a table's. ``empty_seats`` are left without a ``MatchSeat`` and their match
    ``waiting`` (a table whose people have not all taken their seats:
    league.services.tables queues it when they have). ``at_club``: played with real cards
    at the club's tables, every match waits for its table's scores and none is queued."""
    game = load_game(tournament.game)
    waiting = bool(empty_seats) or at_club
    filler: Competitor | None = None
    duplicate_seed = seed_draw()
    matches: list[Match] = []
    now = timezone.now()
    for table_number, table in enumerate(tables, start=1):
        seed = duplicate_seed if tournament.format == TournamentFormat.DUPLICATE else seed_draw()
        match = Match.objects.create(
            tournament=tournament,
            round=round_,
            table=table_number,
            game=str(game),
            seed=seed,
            status=MatchStatus.WAITING if waiting else MatchStatus.QUEUED,
            queued_at=None if waiting else now,
        )
        seats = []
        for seat, competitor_id in enumerate(table):
            if seat in empty_seats:
                continue
            if competitor_id is None:
                filler = filler or competitor_builtin(name=FILLER_BOT)
                competitor_id = filler.pk
            seats.append(MatchSeat(match=match, seat=seat, competitor_id=competitor_id))
        MatchSeat.objects.bulk_create(seats)
        if not waiting:
            match_run_enqueue(match.pk)  # its lane; the outbox: sent on commit
        matches.append(match)
    return matches


@transaction.atomic
def tournament_round_start(*, actor: User, tournament: Tournament) -> Round:
    """Schedule and enqueue the next round. The previous round must be over."""
    tournament_organiser_require(user=actor, tournament=tournament)
    return tournament_next_round_start(tournament=tournament)


@transaction.atomic
def tournament_next_round_start(*, tournament: Tournament) -> Round:
    """Start the next round for whoever may (an organiser, or the tournament's schedule:
    league.services.schedules). ConflictError while a round is unfinished, so two rounds
    never run at once: the row lock makes the check and the new round one step."""
    tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)  # one writer
    if tournament.status not in (TournamentStatus.OPEN, TournamentStatus.RUNNING):
        raise ConflictError(
            _("cannot start a round of a %(status)s tournament") % {"status": tournament.status}
        )
    played = tournament.round_set.aggregate(top=Max("number"))["top"] or 0
    if played >= tournament.rounds:
        raise ConflictError(
            _("all %(rounds)s rounds have been started") % {"rounds": tournament.rounds}
        )
    unfinished = Match.objects.filter(
        tournament=tournament, status__in=[MatchStatus.QUEUED, MatchStatus.RUNNING]
    ).count()
    if unfinished:
        raise ConflictError(
            _("round %(played)s still has %(unfinished)s match(es) to play")
            % {"played": played, "unfinished": unfinished}
        )
    if tournament.at_club:
        club_round_require_finished(tournament=tournament)
    entrants = list(
        Entry.objects.filter(tournament=tournament)
        .order_by("id")
        .values_list("competitor_id", flat=True)
    )
    if len(entrants) < 2:
        raise ConflictError(
            _("a round needs at least 2 entrants; there are %(len)s") % {"len": len(entrants)}
        )
    if tournament.at_club:  # those present, and the reserves (league.services.club_nights)
        entrants = club_round_players(tournament=tournament, number=played + 1, entrants=entrants)
        needed, _most = table_players(tournament.game)
        if len(entrants) < needed:
            raise ConflictError(
                f"{len(entrants)} present: a table of {tournament.game} needs {needed} players"
            )
    seats = load_game(tournament.game).num_seats
    round_ = Round.objects.create(tournament=tournament, number=played + 1)
    tables = round_tables(
        tournament=tournament, number=round_.number, entrants=entrants, seats=seats
    )
    if tournament.at_club:
        tables = club_tables_seat(
            tournament=tournament, number=round_.number, tables=tables, players=entrants
        )
    matches = matches_create(
        tournament=tournament, round_=round_, tables=tables, at_club=tournament.at_club
    )
    if tournament.at_club:
        table_sheets_create(matches)
    round_started_notify(round_=round_, matches=matches)  # the people seated in it
    if tournament.status != TournamentStatus.RUNNING:
        tournament.status = TournamentStatus.RUNNING
        tournament.save(update_fields=["status"])
    return round_


@transaction.atomic
def tournament_pause(*, actor: User, tournament: Tournament) -> Tournament:
    """Queued matches wait (a worker leaves them queued); running ones finish."""
    tournament_organiser_require(user=actor, tournament=tournament)
    tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
    if tournament.status not in (TournamentStatus.OPEN, TournamentStatus.RUNNING):
        raise ConflictError(
            _("cannot pause a %(status)s tournament") % {"status": tournament.status}
        )
    tournament.status = TournamentStatus.PAUSED
    tournament.save(update_fields=["status"])
    return tournament


@transaction.atomic
def tournament_resume(*, actor: User, tournament: Tournament) -> Tournament:
    tournament_organiser_require(user=actor, tournament=tournament)
    tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
    if tournament.status != TournamentStatus.PAUSED:
        raise ConflictError(
            _("cannot resume a %(status)s tournament") % {"status": tournament.status}
        )
    started = tournament.round_set.exists()
    tournament.status = TournamentStatus.RUNNING if started else TournamentStatus.OPEN
    tournament.save(update_fields=["status"])
    for match_id in Match.objects.filter(
        tournament=tournament, status=MatchStatus.QUEUED
    ).values_list("id", flat=True):
        match_run_enqueue(match_id)
    return tournament


@transaction.atomic
def tournament_finish(*, actor: User, tournament: Tournament) -> Tournament:
    """Close the tournament: matches not yet started are cancelled (status error);
    running ones play to their end."""
    tournament_organiser_require(user=actor, tournament=tournament)
    tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
    if tournament.status == TournamentStatus.FINISHED:
        raise ConflictError(_("the tournament is finished already"))
    unplayed = [MatchStatus.QUEUED, *([MatchStatus.WAITING] if tournament.at_club else [])]
    Match.objects.filter(tournament=tournament, status__in=unplayed).update(
        status=MatchStatus.ERROR, error="cancelled: the tournament was finished before it started"
    )
    tournament.status = TournamentStatus.FINISHED
    tournament.save(update_fields=["status"])
    league_finished_notify(
        tournament=tournament, rows=tournament_standings(tournament=tournament)["rows"]
    )
    return tournament
