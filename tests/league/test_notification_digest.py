"""Mails grouped (league.services.notification_emails, league.domain.mail_grouping; Django's
locmem backend): a correspondence game whose moves come every two minutes mails its person
once, not eight times in 14 minutes; a digest gathers several games' notices in one mail
after its wait; off mails nothing, while the site still tells."""

from __future__ import annotations

from datetime import timedelta

from django.contrib.auth.models import User
from django.core import mail
from django.utils import timezone

import pytest

from league.domain.mail_grouping import DIGEST_AFTER
from league.models import Match, MatchStatus, Notification, NotificationKind
from league.selectors.replays import match_state_read
from league.services.matches import match_person_act, match_run
from league.services.notification_emails import notification_emails_send_due
from league.services.notifications import notification_preferences_set
from league.services.tables import table_open
from tests.league.builders import user_with_verified_email

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

BOTS = ["builtin:greedy", "builtin:greedy", "builtin:random"]


def person(name: str) -> User:
    """Someone whose address is confirmed: notices are mailed only to such an address."""
    return user_with_verified_email(name)


def correspondence_table(user: User, seed: int) -> Match:
    """A correspondence table of ``user`` (seat 0) and bots, waiting for their move."""
    match = table_open(
        actor=user, game="kingen", seats=["me", *BOTS], time_control="correspondence"
    )
    Match.objects.filter(pk=match.pk).update(seed=seed)
    match_run(match_id=match.pk, worker="test")
    match.refresh_from_db()
    assert (match.status, match.waiting_seat) == (MatchStatus.RUNNING, 0)
    return match


def move(match: Match) -> None:
    """The person plays their first legal action; the bots play until it is theirs again."""
    state = match_state_read(match)
    action = state.game.action_to_string(state.view_for(0).legal[0])
    match_person_act(match=match, seat=0, action=action)
    match.refresh_from_db()
    while match.status == MatchStatus.QUEUED:
        match_run(match_id=match.pk, worker="test")
        match.refresh_from_db()


def mails_to(user: User) -> list[mail.EmailMessage]:
    return [m for m in mail.outbox if m.to == [user.email]]


def test_a_correspondence_game_of_quick_moves_mails_once_not_eight_times() -> None:
    ann = person("ann")
    match = correspondence_table(ann, seed=5)
    start = timezone.now() + timedelta(seconds=1)
    for minute in range(0, 16, 2):  # 8 turns in 14 minutes, each mailed as it comes
        notification_emails_send_due(now=start + timedelta(minutes=minute))
        move(match)
    told = Notification.objects.filter(user=ann, match=match, kind=NotificationKind.YOUR_MOVE)
    assert told.count() >= 8  # the site told each move
    assert len(mails_to(ann)) == 1
    # An hour after that mail, a move still waiting is mailed again.
    notification_emails_send_due(now=start + timedelta(minutes=61))
    assert len(mails_to(ann)) == 2


def test_a_digest_gathers_several_games_in_one_mail_and_off_sends_none() -> None:
    ann, bob = person("ann"), person("bob")
    notification_preferences_set(user=ann, modes={"your_move": "digest"})
    notification_preferences_set(user=bob, modes={"your_move": "off"})
    first, second = correspondence_table(ann, seed=5), correspondence_table(ann, seed=6)
    bobs = correspondence_table(bob, seed=7)
    now = timezone.now() + timedelta(seconds=1)
    assert notification_emails_send_due(now=now) == 0  # gathering
    assert notification_emails_send_due(now=now + DIGEST_AFTER - timedelta(minutes=1)) == 0
    assert notification_emails_send_due(now=now + DIGEST_AFTER) == 1
    (digest,) = mails_to(ann)
    assert digest.subject == "2 notifications · King League"
    for match in (first, second):
        assert f"/matches/{match.pk}/seats/0/" in digest.body
    assert mails_to(bob) == []
    assert Notification.objects.filter(user=bob, match=bobs).exists()  # told on the site
    assert notification_emails_send_due(now=now + 2 * DIGEST_AFTER) == 0  # nothing is due
