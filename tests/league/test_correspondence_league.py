"""The headline of issue 16's "what awaits me": a correspondence league of eight people with
rotating partners, two rounds played through the API on a fake clock. Every person is told
(in the site and by mail) that a game awaits them before any timeout; nobody forfeits
without being told first; a person who misses deadlines sees which move was played for
them, in the notice and in the seat's faults; a round's play-by date caps the deadlines.

Matches are played in process (``match_run``) and the mail goes to Django's locmem
backend; the sweep is called with the fake clock's time.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.core import mail
from rest_framework.test import APIClient

import pytest

from league.models import (
    Match,
    MatchSeat,
    MatchStatus,
    Notification,
    NotificationKind,
    Round,
)
from league.services.matches import PERSON_MAX_STRIKES, match_run, matches_sweep
from league.services.notification_emails import notification_emails_send_due
from league.words.table_notices import action_in_words
from tests.api_answers import client_for, ok
from tests.league.builders import user_with_verified_email
from tests.league.clock import Clock, clock_fixture  # noqa: F401 - the fixture

GAME = "priffe(exit1_threshold=10,exit2_increment=0)"
"""Priffe with short rubbers (a side exits at 10 trick points, then at any more): with one
rubber a match, a few deals."""
DAY = 86400.0


def play_queued(tournament_id: int) -> None:
    for match_id in Match.objects.filter(
        tournament_id=tournament_id, status=MatchStatus.QUEUED
    ).values_list("id", flat=True):
        match_run(match_id=match_id, worker="test")


def deliver_mail(clock: Clock) -> None:
    """What the email task and beat's pass do: mail every notice that is due."""
    notification_emails_send_due(now=clock.now + timedelta(days=365))


def mails_to(user: User) -> list[mail.EmailMessage]:
    return [m for m in mail.outbox if m.to == [user.email]]


def waiting_person(match: Match) -> tuple[MatchSeat, User]:
    assert match.waiting_seat is not None
    row = MatchSeat.objects.select_related("competitor__user").get(
        match=match, seat=match.waiting_seat
    )
    assert row.competitor.user is not None
    return row, row.competitor.user


def assert_told(match: Match, user: User, *, mailed: bool) -> Notification:
    """The person waited for has exactly one unread your-move notice of this match, pointing
    at their table, and (unless they turned that mail off) its mail with the absolute link."""
    notices = Notification.objects.filter(
        user=user, match=match, kind=NotificationKind.YOUR_MOVE, read_at__isnull=True
    )
    assert notices.count() == 1, list(notices.values_list("text", flat=True))
    notice = notices.get()
    assert notice.url == f"/matches/{match.pk}/seats/{match.waiting_seat}/"
    assert match.deadline is not None
    assert match.deadline.strftime("%H:%M UTC") in notice.text  # a time, not seconds
    link = settings.SITE_URL + notice.url
    sent = [m for m in mails_to(user) if link in m.body and notice.text in m.body]
    if mailed:
        # A correspondence game mails a person at most once an hour: a your-move notice
        # that comes sooner waits, to go with the next mail (league.domain.mail_grouping).
        held = (
            notice.email_due
            and Notification.objects.filter(user=user, match=match, emailed_at__isnull=False)
            .exclude(pk=notice.pk)
            .exists()
        )
        assert sent or held, f"{user.username} was not mailed about match {match.pk}"
        if sent:
            assert "/settings/notifications/" in sent[-1].body  # how to change the mails
            assert sent[-1].subject in (
                "A game awaits your move · King League",
                f"{sent[-1].body.count('/matches/')} notifications · King League",
            )
    else:
        assert not sent
    return notice


def play_round(
    *,
    clock: Clock,
    tournament_id: int,
    round_number: int,
    clients: dict[int, APIClient],
    no_your_move_mail: set[int],
    misser: User | None = None,
    play_by: Any = None,
) -> dict[str, int]:
    """Play every match of the round: the bots' turns in process, each person's move
    through the API after checking that they were told; ``misser`` never moves, so the
    sweep plays for them at their deadline. The misser's match is played last, so that
    jumping the clock to their deadline passes nobody else's."""
    seen = {"told": 0, "fallbacks": 0}
    matches = list(
        Match.objects.filter(tournament_id=tournament_id, round__number=round_number).order_by(
            "table"
        )
    )
    if misser is not None:
        matches.sort(key=lambda m: m.seats.filter(competitor__user=misser).exists())
    for match in matches:
        while True:
            play_queued(tournament_id)
            match.refresh_from_db()
            if match.status == MatchStatus.FINISHED:
                break
            assert match.status == MatchStatus.RUNNING
            assert match.waiting_seat is not None
            assert match.deadline is not None
            if play_by is not None:
                assert match.deadline <= play_by
            row, user = waiting_person(match)
            deliver_mail(clock)
            notice = assert_told(match, user, mailed=user.pk not in no_your_move_mail)
            seen["told"] += 1
            if misser is not None and user.pk == misser.pk:
                # A fifth of the day left: the sweep says the deadline is near (once).
                clock.set(match.deadline - timedelta(seconds=DAY * 0.1))
                assert match.pk in matches_sweep(now=clock.now).deadlines_near
                assert match.pk not in matches_sweep(now=clock.now).deadlines_near
                deliver_mail(clock)
                near = Notification.objects.get(
                    user=user,
                    match=match,
                    kind=NotificationKind.DEADLINE_NEAR,
                    key=f"deadline_near:{match.pk}:{match.events_stored}",
                )
                assert [m for m in mails_to(user) if near.text in m.body]
                # The deadline passes: the first legal move is played for them.
                clock.set(match.deadline + timedelta(seconds=1))
                report = matches_sweep(now=clock.now)
                assert report.fallbacks == [match.pk]
                seen["fallbacks"] += 1
                row.refresh_from_db()
                fault = row.faults[-1]
                assert row.strikes == len(row.faults)
                moved = Notification.objects.filter(
                    user=user, match=match, kind=NotificationKind.MOVED_FOR_YOU
                ).order_by("-id")[0]
                assert moved.id > notice.id  # told of the move before it was played for them
                assert action_in_words(fault["fallback"]) in moved.text
                assert f"Missed deadlines: {row.strikes} of {PERSON_MAX_STRIKES}" in moved.text
                assert ("forfeited" in moved.text) == row.replaced
                continue
            client = clients[user.pk]
            view = ok(client.get(f"/api/matches/{match.pk}/seats/{match.waiting_seat}/view/"))
            assert view["your_turn"] is True
            ok(
                client.post(
                    f"/api/matches/{match.pk}/seats/{match.waiting_seat}/actions/",
                    {"action": view["view"]["legal"][0]},
                    format="json",
                )
            )
            notice.refresh_from_db()
            assert notice.read_at is not None  # their move answered the notice
            clock.advance(minutes=1)
    return seen


@pytest.mark.django_db
def test_a_correspondence_league_of_eight_people_tells_everyone_before_any_timeout(
    clock: Clock,
) -> None:
    organiser = user_with_verified_email("olga")
    people = [user_with_verified_email(f"p{i}") for i in range(8)]
    clients = {person.pk: client_for(person) for person in people}
    api = client_for(organiser)
    club = ok(api.post("/api/clubs/", {"name": "Priffe Club"}, format="json"), 201)
    tournament = ok(
        api.post(
            "/api/tournaments/",
            {
                "name": "Autumn",
                "club": club["id"],
                "game": GAME,
                "format": "rotating_partners",
                "rounds": 2,
                "deals": 1,
                "time_control": "correspondence",
                "move_seconds": DAY,
            },
            format="json",
        ),
        201,
    )
    assert (tournament["time_control"], tournament["move_seconds"]) == ("correspondence", DAY)
    tid = tournament["id"]
    for person in people:  # each joins the club and enters themself
        code = ok(api.post(f"/api/clubs/{club['id']}/invitations/", {}, format="json"), 201)
        ok(clients[person.pk].post(f"/api/invitations/{code['code']}/accept/"))
        me = ok(
            clients[person.pk].post("/api/competitors/", {"user": person.pk}, format="json"), 201
        )
        ok(
            clients[person.pk].post(
                f"/api/tournaments/{tid}/entries/", {"competitor": me["id"]}, format="json"
            ),
            201,
        )
    quiet = people[7]  # wants no mail when it is their move; the site still tells them
    prefs = ok(
        clients[quiet.pk].put(
            "/api/notifications/preferences/", {"email": {"your_move": False}}, format="json"
        )
    )
    assert next(p for p in prefs if p["kind"] == "your_move")["email"] is False
    misser = people[6]

    # Round 1: everyone is told where they play; the misser never moves.
    ok(api.post(f"/api/tournaments/{tid}/start-round/"), 201)
    for person in people:
        started = Notification.objects.get(user=person, kind=NotificationKind.ROUND_STARTED)
        assert "Round 1 of Autumn started" in started.text
        assert "1 day per move" in started.text
    first = play_round(
        clock=clock,
        tournament_id=tid,
        round_number=1,
        clients=clients,
        no_your_move_mail={quiet.pk},
        misser=misser,
    )
    assert first["fallbacks"] == PERSON_MAX_STRIKES  # then a bot plays the seat
    seat = MatchSeat.objects.get(match__round__number=1, competitor__user=misser)
    assert (seat.outcome, seat.replaced, seat.strikes) == ("forfeit", True, PERSON_MAX_STRIKES)
    faults = ok(clients[misser.pk].get(f"/api/matches/{seat.match_id}/"))
    assert next(s for s in faults["seats"] if s["seat"] == seat.seat)["outcome"] == "forfeit"
    moved = Notification.objects.filter(user=misser, kind=NotificationKind.MOVED_FOR_YOU)
    assert moved.count() == PERSON_MAX_STRIKES
    assert [f["fallback"] for f in seat.faults] == [
        next(f["fallback"] for f in seat.faults if action_in_words(f["fallback"]) in n.text)
        for n in moved.order_by("id")
    ]

    # Round 2, with a play-by date half a day away: no deadline falls after it.
    ok(api.post(f"/api/tournaments/{tid}/start-round/"), 201)
    round_2 = Round.objects.get(tournament_id=tid, number=2)
    play_by = clock.now + timedelta(hours=12)
    answer = ok(
        api.patch(f"/api/rounds/{round_2.pk}/", {"play_by": play_by.isoformat()}, format="json")
    )
    assert answer["play_by"] is not None
    play_queued(tid)
    assert all(
        m.deadline is not None and m.deadline <= play_by
        for m in Match.objects.filter(round=round_2, status=MatchStatus.RUNNING)
    )
    second = play_round(
        clock=clock,
        tournament_id=tid,
        round_number=2,
        clients=clients,
        no_your_move_mail={quiet.pk},
        play_by=play_by,
    )
    assert second["fallbacks"] == 0

    # Everyone was told of their games, by mail too except the one who turned that off.
    for person in people:
        your_moves = mails_to(person)
        subjects = {m.subject for m in your_moves}
        if person == quiet:
            assert "A game awaits your move · King League" not in subjects
        else:
            assert "A game awaits your move · King League" in subjects
        assert Notification.objects.filter(user=person, kind=NotificationKind.YOUR_MOVE).exists()
    assert not Notification.objects.filter(user=organiser).exists()  # not seated anywhere

    # The league ends: each person hears their place.
    ok(api.post(f"/api/tournaments/{tid}/finish/"))
    standings = ok(api.get(f"/api/tournaments/{tid}/standings/"))
    ranks = {row["competitor"]: row["rank"] for row in standings["rows"]}
    for person in people:
        finished = Notification.objects.get(user=person, kind=NotificationKind.LEAGUE_FINISHED)
        place = ranks[person.competitor.pk]
        assert "Autumn finished: you placed" in finished.text
        assert f" of {len(ranks)}" in finished.text
        assert finished.text.split("placed ")[1].startswith(str(place))
