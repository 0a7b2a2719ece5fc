"""Tables: one game opened by a person for any mix of people and bots (docs/league.md,
*Tables*).

A table is a one-match tournament of format ``table``, optionally in a club (then it is
listed in that club's lobby only). Its host chooses the game, the time control and each
seat: themself (``me``), a bot (built-in, or an uploaded version whose owner agrees:
``entry_consent_require``), an **open** seat anyone may take, or a seat **reserved** for
one person. Open and reserved seats are ``SeatInvitation`` rows with a link code each;
the match is ``waiting`` (no worker touches it) and nobody gets a ``MatchSeat`` before
accepting. The invited accept or decline; the host re-invites, opens a seat, fills it with
a bot or cancels the table. When the last seat is taken the match is queued like a round's
match (``run_match`` through the outbox).

Every write that takes or changes a seat locks the match row first, so two people racing
for the last open seat are served one after the other, and the second finds it taken.
"""

from __future__ import annotations

import secrets
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.contrib.auth.models import User as Account
from django.db import transaction
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from engine.variants import load_game
from league.display_settings import language_of
from league.domain.rematch import seats_rotated
from league.errors import ConflictError, InvalidInputError, NotAllowedError, NotFoundError
from league.models import (
    Club,
    Competitor,
    Entry,
    Match,
    MatchSeat,
    MatchStatus,
    NotificationKind,
    Round,
    SeatInvitation,
    TimeControl,
    Tournament,
    TournamentFormat,
    TournamentStatus,
)
from league.selectors.clubs import club_role_of
from league.selectors.person_names import person_name
from league.selectors.profiles import user_find
from league.selectors.tables import table_players
from league.services.competitors import (
    competitor_builtin,
    competitor_for_user,
    entry_consent_require,
)
from league.services.match_lanes import match_run_enqueue
from league.services.notifications import notify
from league.services.time_controls import time_control_choose
from league.services.tournaments import match_game_string, matches_create, seed_draw
from league.words.games_and_times import game_name_words

User = Account | AnonymousUser

SEAT_ME = "me"
SEAT_OPEN = "open"
INVITE_PREFIX = "invite:"
BUILTIN_PREFIX = "builtin:"
SEAT_FORMS = "'me', 'open', 'invite:USERNAME', 'builtin:NAME' or a competitor id"

TABLE_MOVE_SECONDS = 120.0
"""A live table's seconds per move unless the host says otherwise."""
TIME_BANK_MAX_SECONDS = 14 * 86400.0


@dataclass(frozen=True)
class TableSeat:
    """What the host asked for one seat: a competitor seated now (themself or a bot), or
    an invitation (``invitee`` for a reserved seat, neither for an open one)."""

    competitor: Competitor | None = None
    invitee: Account | None = None

    @property
    def invitation(self) -> bool:
        return self.competitor is None

    @property
    def person(self) -> tuple[int, str] | None:
        """(account id, name) of the person seated or invited here; None for a bot or an
        open seat."""
        if self.invitee is not None:
            return self.invitee.pk, self.invitee.get_username()
        if self.competitor is not None and self.competitor.user_id is not None:
            return self.competitor.user_id, self.competitor.name
        return None


def _seat_error(message: str) -> InvalidInputError:
    return InvalidInputError(
        _("seats: %(message)s") % {"message": message}, errors={"seats": [message]}
    )


def table_seat_parse(
    *, actor: Account, spec: Any, club: Club | None = None, consented: Collection[int] = ()
) -> TableSeat:
    """One seat of a new table: ``me``; ``open`` (anyone may take it); ``invite:USERNAME``
    (reserved for that person, who accepts or declines); ``builtin:NAME``; or a competitor
    id: the actor's own, or a bot the actor may seat (``entry_consent_require``: built-in,
    the actor's own, or in a club's table a member's bot whose owner lets the club's
    organisers enter it; or one of ``consented``, whose owner's consent the caller checked:
    league.services.rated_games). Another person is invited, never seated by id."""
    if spec == SEAT_ME:
        return TableSeat(competitor=competitor_for_user(user=actor))
    if spec == SEAT_OPEN:
        return TableSeat()
    if isinstance(spec, str) and spec.startswith(INVITE_PREFIX):
        username = spec.removeprefix(INVITE_PREFIX).strip()
        invitee = user_find(username=username) if username else None
        if invitee is None or not invitee.is_active:
            raise _seat_error(f"no person named {username!r} to invite")
        if invitee.pk == actor.pk:
            raise _seat_error("you do not invite yourself: take a seat with 'me'")
        if club is not None and club_role_of(user=invitee, club=club) is None:
            raise _seat_error(
                _("%(name)s is not a member of %(club)s: a club's table takes only members")
                % {"name": invitee.get_username(), "club": club.name}
            )
        return TableSeat(invitee=invitee)
    if isinstance(spec, str) and spec.startswith(BUILTIN_PREFIX):
        return TableSeat(competitor=competitor_builtin(name=spec.removeprefix(BUILTIN_PREFIX)))
    if isinstance(spec, int) and not isinstance(spec, bool):
        return TableSeat(
            competitor=_bot_or_self(
                actor=actor, competitor_id=spec, club=club, consented=spec in consented
            )
        )
    raise _seat_error(f"{spec!r} is not {SEAT_FORMS}")


def _bot_or_self(
    *, actor: Account, competitor_id: int, club: Club | None, consented: bool = False
) -> Competitor:
    competitor = (
        Competitor.objects.select_related("bot_version__bot__owner")
        .filter(pk=competitor_id)
        .first()
    )
    if competitor is None:
        raise _seat_error(f"no competitor {competitor_id}")
    if not (consented and competitor.bot_version is not None):
        entry_consent_require(actor=actor, competitor=competitor, club=club)
    if competitor.bot_version is not None and competitor.bot_version.status != "active":
        raise _seat_error(f"{competitor.name} is not an active bot version")
    return competitor


def table_time_control(
    *, time_control: str, move_seconds: float | None, time_bank_seconds: float | None
) -> tuple[str, float, float]:
    """(time control, seconds per move, bank) of a new table, by the leagues' one rule
    (league.services.time_controls: live up to an hour a move, correspondence of an hour
    or more), a live table giving TABLE_MOVE_SECONDS unless told, a correspondence table a
    day. InvalidInputError naming the field otherwise."""
    if move_seconds is None and time_control == TimeControl.LIVE:
        move_seconds = TABLE_MOVE_SECONDS
    time_control, seconds = time_control_choose(
        time_control=time_control, move_seconds=move_seconds, people=True
    )
    bank = 0.0 if time_bank_seconds is None else float(time_bank_seconds)
    if not 0 <= bank <= TIME_BANK_MAX_SECONDS:
        message = f"the time bank is 0 to two weeks; {bank:g} seconds given"
        raise InvalidInputError(
            _("time_bank_seconds: %(message)s") % {"message": message},
            errors={"time_bank_seconds": [message]},
        )
    return time_control, float(seconds), bank


def _code_draw() -> str:
    return secrets.token_urlsafe(18)


def invitation_url(invitation: SeatInvitation) -> str:
    """The page where an invitation is accepted or declined (its link)."""
    return reverse("web:table-invitation", args=[invitation.code])


def _invitation_create(
    *, match: Match, seat: int, host: Account, invitee: Account | None
) -> SeatInvitation:
    invitation = SeatInvitation.objects.create(
        match=match, seat=seat, code=_code_draw(), invitee=invitee, created_by=host
    )
    if invitee is not None:
        with translation.override(language_of(user_id=int(invitee.pk))):  # the invitee's
            text = _("%(sender)s invites you to a table of %(game)s.") % {
                "sender": person_name(host),
                "game": game_name_words(load_game(match.game).display_name),
            }
        notify(
            user=invitee,
            kind=NotificationKind.INVITED,
            key=f"seat-invitation-{invitation.pk}",
            text=text,
            url=invitation_url(invitation),
            match=match,
        )
    return invitation


@transaction.atomic
def table_open(
    *,
    actor: User,
    game: str,
    seats: Sequence[Any],
    time_control: str = TimeControl.LIVE,
    move_seconds: float | None = None,
    time_bank_seconds: float | None = None,
    club: Club | None = None,
    consented: Collection[int] = (),
    name: str | None = None,
) -> Match:
    """Open a table (a one-match tournament of format ``table``): the seats as
    ``table_seat_parse`` reads them. With every seat filled (the host and bots) the match
    is queued at once; otherwise it waits for the invited, who are told
    (``NotificationKind.INVITED``)."""
    if not actor.is_authenticated:
        raise NotAllowedError(_("log in to open a table"))
    assert isinstance(actor, Account)
    if club is not None and club_role_of(user=actor, club=club) is None:
        raise NotAllowedError(
            _("join %(repr)s to open a table in its lobby") % {"repr": repr(club.name)}
        )
    canonical = match_game_string(game, None)
    loaded = load_game(canonical)
    if len(seats) != loaded.num_seats:
        raise _seat_error(f"{loaded.display_name} has {loaded.num_seats} seats; {len(seats)} given")
    if sum(1 for s in seats if s == SEAT_ME) > 1:
        raise _seat_error("'me' may take one seat only")
    time_control, move_seconds, time_bank_seconds = table_time_control(
        time_control=time_control, move_seconds=move_seconds, time_bank_seconds=time_bank_seconds
    )
    planned = [
        table_seat_parse(actor=actor, spec=spec, club=club, consented=consented) for spec in seats
    ]
    people = [plan.person for plan in planned if plan.person is not None]
    ids = [person for person, _name in people]
    twice = next((name for person, name in people if ids.count(person) > 1), None)
    if twice is not None:
        raise _seat_error(f"{twice} is given two seats; a person takes one seat at a table")
    dummy = loaded.dummy_seat
    dummy_plan = planned[dummy] if dummy >= 0 else None
    if dummy_plan is not None and (
        dummy_plan.competitor is None or dummy_plan.competitor.user_id is not None
    ):
        raise _seat_error(
            f"seat {dummy} is {loaded.dummy_name}'s: nobody sits there (its partner plays its"
            " cards), so give it a bot, e.g. 'builtin:greedy'"
        )
    empty = [seat for seat, plan in enumerate(planned) if plan.invitation]
    tournament = Tournament.objects.create(
        name=name or f"Table of {actor.get_username()}",
        club=club,
        game=canonical,
        format=TournamentFormat.TABLE,
        rounds=1,
        time_control=time_control,
        move_seconds=move_seconds,
        time_bank_seconds=time_bank_seconds,
        status=TournamentStatus.OPEN if empty else TournamentStatus.RUNNING,
        seed=seed_draw(),
        created_by=actor,
    )
    seated = [plan.competitor for plan in planned if plan.competitor is not None]
    for competitor in dict.fromkeys(seated):
        Entry.objects.create(tournament=tournament, competitor=competitor)
    round_ = Round.objects.create(tournament=tournament, number=1)
    (match,) = matches_create(
        tournament=tournament,
        round_=round_,
        tables=[[p.competitor.pk if p.competitor else None for p in planned]],
        empty_seats=empty,
    )
    for seat in empty:
        _invitation_create(match=match, seat=seat, host=actor, invitee=planned[seat].invitee)
    return match


@transaction.atomic
def table_rematch(*, actor: User, match_id: int) -> Match:
    """A rematch of a finished table: the same people and bots, each moved on by one seat
    (league.domain.rematch), the same game, club and time control. ``actor`` (who played
    at it) takes their seat; every other person is invited to theirs and nobody is seated
    without accepting; the bots sit down at once. The table starts when all accepted."""
    if not actor.is_authenticated:
        raise NotAllowedError(_("log in to ask for a rematch"))
    match = Match.objects.select_related("tournament__club").filter(pk=match_id).first()
    if match is None:
        raise NotFoundError(_("no table %(match_id)s") % {"match_id": match_id})
    tournament = match.tournament
    if tournament.format != TournamentFormat.TABLE:
        raise ConflictError(_("a rematch is for a table, not a league's game"))
    if match.status != MatchStatus.FINISHED:
        raise ConflictError(_("a rematch waits for the game to finish"))
    players = table_players(match=match)
    if not any(p["user_id"] == actor.pk for p in players):
        raise NotAllowedError(_("only a player of the table may ask for a rematch"))
    specs: list[Any] = [
        SEAT_ME
        if p["user_id"] == actor.pk
        else (f"{INVITE_PREFIX}{p['username']}" if p["user_id"] is not None else p["competitor"])
        for p in seats_rotated(players)
    ]
    return table_open(
        actor=actor,
        game=match.game,
        seats=specs,
        time_control=tournament.time_control,
        move_seconds=tournament.move_seconds,
        time_bank_seconds=tournament.time_bank_seconds,
        club=tournament.club,
    )


# ---------------------------------------------------------------- taking a seat


def _match_locked(*, match_id: int) -> Match:
    """The table's match, its row locked (every change of its seats goes through here)."""
    match = (
        Match.objects.select_for_update(of=("self",))
        .select_related("tournament")
        .filter(pk=match_id, tournament__format=TournamentFormat.TABLE)
        .first()
    )
    if match is None:
        raise NotFoundError(_("no table %(match_id)s") % {"match_id": match_id})
    return match


def _waiting_require(match: Match) -> None:
    if match.status == MatchStatus.WAITING:
        return
    if match.status == MatchStatus.ERROR and match.tournament.status == TournamentStatus.FINISHED:
        raise ConflictError(_("the table was cancelled"))
    raise ConflictError(_("the table has started: every seat is taken"))


def _host_require(*, actor: User, match: Match) -> Account:
    if not actor.is_authenticated or actor.pk != match.tournament.created_by_id:
        raise NotAllowedError(_("only the host (who opened the table) may change its seats"))
    assert isinstance(actor, Account)
    return actor


def _seat_check(*, match: Match, seat: int) -> None:
    loaded = load_game(match.game)
    if not 0 <= seat < loaded.num_seats:
        message = f"the table has seats 0 to {loaded.num_seats - 1}"
        raise InvalidInputError(
            _("seat: %(message)s") % {"message": message}, errors={"seat": [message]}
        )
    if seat == loaded.dummy_seat:
        message = f"seat {seat} is {loaded.dummy_name}'s: nobody sits there"
        raise InvalidInputError(
            _("seat: %(message)s") % {"message": message}, errors={"seat": [message]}
        )


def _seated_user_ids(match: Match) -> set[int]:
    return set(
        MatchSeat.objects.filter(match=match, competitor__user__isnull=False).values_list(
            "competitor__user_id", flat=True
        )
    )


def _pending(match: Match) -> Any:
    return SeatInvitation.objects.filter(
        match=match, accepted_at=None, declined_at=None, cancelled_at=None
    )


def _start_if_full(match: Match) -> None:
    """Queue the match once every seat has its competitor: the path of every match
    (``run_match`` through the outbox, sent when the transaction commits)."""
    seats = MatchSeat.objects.filter(match=match).count()
    if seats < load_game(match.game).num_seats:
        return
    match.status = MatchStatus.QUEUED
    match.queued_at = timezone.now()
    match.save(update_fields=["status", "queued_at"])
    Tournament.objects.filter(pk=match.tournament_id).update(status=TournamentStatus.RUNNING)
    match_run_enqueue(match.pk)  # a person sits here: the interactive lane


def _seat_take(*, match: Match, invitation: SeatInvitation, user: Account) -> SeatInvitation:
    """``user`` takes the invitation's seat: the seat's first ``MatchSeat``, written now
    that they accepted. The match row is locked by the caller."""
    if user.pk in _seated_user_ids(match):
        raise ConflictError(_("you have a seat at this table already: a person takes one seat"))
    elsewhere = _pending(match).filter(invitee=user).exclude(pk=invitation.pk).first()
    if elsewhere is not None:
        raise ConflictError(
            _("seat %(seat)s is kept for you at this table: accept that invitation")
            % {"seat": elsewhere.seat}
        )
    club = match.tournament.club
    if club is not None and club_role_of(user=user, club=club) is None:  # invited or not
        raise NotAllowedError(
            _("this table is for members of %(repr)s: join it first") % {"repr": repr(club.name)}
        )
    competitor = competitor_for_user(user=user)
    MatchSeat.objects.create(match=match, seat=invitation.seat, competitor=competitor)
    Entry.objects.get_or_create(tournament=match.tournament, competitor=competitor)
    invitation.accepted_by = user
    invitation.accepted_at = timezone.now()
    invitation.save(update_fields=["accepted_by", "accepted_at"])
    _start_if_full(match)
    return invitation


def _invitation_match_id(code: str) -> int:
    match_id = SeatInvitation.objects.filter(code=code).values_list("match_id", flat=True).first()
    if match_id is None:
        raise NotFoundError(_("no such table invitation (the link may be mistyped)"))
    return int(match_id)


@transaction.atomic
def seat_invitation_accept(*, user: User, code: str) -> SeatInvitation:
    """Take the seat of invitation ``code``: a reserved seat by its invitee only, an open
    seat by anyone signed in (in a club's table: a member). ConflictError when the seat
    was taken, declined or cancelled, or the table started or was cancelled."""
    if not user.is_authenticated:
        raise NotAllowedError(_("log in to take a seat"))
    assert isinstance(user, Account)
    match = _match_locked(match_id=_invitation_match_id(code))
    invitation = SeatInvitation.objects.select_related("invitee").get(code=code)
    if invitation.invitee_id is not None and invitation.invitee_id != user.pk:
        assert invitation.invitee is not None
        raise NotAllowedError(
            _("this seat is kept for %(get_username)s: only they may take it")
            % {"get_username": invitation.invitee.get_username()}
        )
    _waiting_require(match)
    if not invitation.pending:
        raise ConflictError(_answered(invitation))
    return _seat_take(match=match, invitation=invitation, user=user)


def _answered(invitation: SeatInvitation) -> str:
    if invitation.accepted_at is not None:
        return f"seat {invitation.seat} is taken"
    if invitation.declined_at is not None:
        return "this invitation was declined"
    return "the host withdrew this invitation"


@transaction.atomic
def seat_invitation_decline(*, user: User, code: str) -> SeatInvitation:
    """Decline a seat kept for you: the seat is left empty for the host to open, give to
    someone else or to a bot. Only its invitee declines; an open seat is simply not
    taken."""
    if not user.is_authenticated:
        raise NotAllowedError(_("log in to answer an invitation"))
    match = _match_locked(match_id=_invitation_match_id(code))
    invitation = SeatInvitation.objects.get(code=code)
    if invitation.invitee_id is None:
        message = "an open seat is not declined: leave it for someone else"
        raise InvalidInputError(message)
    if invitation.invitee_id != user.pk:
        raise NotAllowedError(_("only the person invited declines this invitation"))
    _waiting_require(match)
    if not invitation.pending:
        raise ConflictError(_answered(invitation))
    invitation.declined_at = timezone.now()
    invitation.save(update_fields=["declined_at"])
    return invitation


@transaction.atomic
def table_join(*, user: User, match_id: int, seat: int | None = None) -> SeatInvitation:
    """Take an open seat of a waiting table (the lobby's Join): ``seat``, or the first
    open one."""
    if not user.is_authenticated:
        raise NotAllowedError(_("log in to take a seat"))
    assert isinstance(user, Account)
    match = _match_locked(match_id=match_id)
    _waiting_require(match)
    open_seats = _pending(match).filter(invitee=None).order_by("seat")
    if seat is not None:
        _seat_check(match=match, seat=seat)
        open_seats = open_seats.filter(seat=seat)
    invitation = open_seats.first()
    if invitation is None:
        which = f"seat {seat} is not open" if seat is not None else "no seat is open"
        raise ConflictError(_("%(which)s at this table") % {"which": which})
    return _seat_take(match=match, invitation=invitation, user=user)


# ---------------------------------------------------------------- the host


def _seat_empty_require(*, match: Match, seat: int) -> None:
    _seat_check(match=match, seat=seat)
    if MatchSeat.objects.filter(match=match, seat=seat).exists():
        raise ConflictError(_("seat %(seat)s is taken") % {"seat": seat})


@transaction.atomic
def table_seat_bot(*, actor: User, match_id: int, seat: int, bot: Any) -> Match:
    """The host gives an empty seat to a bot (``builtin:NAME`` or a bot's competitor id,
    with its owner's consent); a pending invitation for it is withdrawn. The table starts
    if that was its last seat."""
    match = _match_locked(match_id=match_id)
    host = _host_require(actor=actor, match=match)
    _waiting_require(match)
    _seat_empty_require(match=match, seat=seat)
    if bot in (SEAT_ME, SEAT_OPEN) or (isinstance(bot, str) and bot.startswith(INVITE_PREFIX)):
        message = "give a bot: 'builtin:NAME' or a bot's competitor id"
        raise InvalidInputError(
            _("bot: %(message)s") % {"message": message}, errors={"bot": [message]}
        )
    competitor = table_seat_parse(actor=host, spec=bot, club=match.tournament.club).competitor
    assert competitor is not None
    if competitor.user_id is not None:
        message = "give a bot; a person is invited to the seat"
        raise InvalidInputError(
            _("bot: %(message)s") % {"message": message}, errors={"bot": [message]}
        )
    _pending(match).filter(seat=seat).update(cancelled_at=timezone.now())
    MatchSeat.objects.create(match=match, seat=seat, competitor=competitor)
    Entry.objects.get_or_create(tournament=match.tournament, competitor=competitor)
    _start_if_full(match)
    return match


@transaction.atomic
def table_seat_invite(
    *, actor: User, match_id: int, seat: int, username: str | None = None
) -> SeatInvitation:
    """The host invites someone else to an empty seat (``username``), or opens it to
    anyone (None): a new link; the seat's pending invitation, if any, is withdrawn."""
    match = _match_locked(match_id=match_id)
    host = _host_require(actor=actor, match=match)
    _waiting_require(match)
    _seat_empty_require(match=match, seat=seat)
    invitee = None
    if username is not None:
        planned = table_seat_parse(actor=host, spec=f"{INVITE_PREFIX}{username}")
        invitee = planned.invitee
        assert invitee is not None
        if invitee.pk in _seated_user_ids(match):
            raise InvalidInputError(
                _("username: %(username)s has a seat at this table already")
                % {"username": username}
            )
        other = _pending(match).filter(invitee=invitee).exclude(seat=seat).first()
        if other is not None:
            raise InvalidInputError(
                _("username: %(username)s is invited to seat %(seat)s")
                % {"username": username, "seat": other.seat}
            )
    _pending(match).filter(seat=seat).update(cancelled_at=timezone.now())
    return _invitation_create(match=match, seat=seat, host=host, invitee=invitee)


@transaction.atomic
def table_cancel(*, actor: User, match_id: int) -> Match:
    """The host calls off a table that has not started: its invitations are withdrawn
    and its match ends unplayed (``error``, saying so); nobody's record counts it."""
    match = _match_locked(match_id=match_id)
    _host_require(actor=actor, match=match)
    _waiting_require(match)
    now = timezone.now()
    _pending(match).update(cancelled_at=now)
    match.status = MatchStatus.ERROR
    match.error = "cancelled by the host before it started"
    match.save(update_fields=["status", "error"])
    Tournament.objects.filter(pk=match.tournament_id).update(status=TournamentStatus.FINISHED)
    match.tournament.status = TournamentStatus.FINISHED
    return match
