"""A person's notices: email choices respected, the email task idempotent and a failed send
kept for later, the API and pages of the list (a person reaches their own notices only),
the time controls' defaults and the mail settings read from the environment."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.contrib.auth.models import User
from django.core import mail
from django.core.mail.backends.base import BaseEmailBackend
from django.test import Client
from django.utils import timezone

import pytest

from config.configuration import ConfigurationError
from config.outgoing_mail import email_from_env, from_email_from_env, site_url_from_env
from league.errors import InvalidInputError
from league.models import Notification, NotificationKind, TimeControl
from league.selectors.notifications import notification_preferences_of
from league.services.notification_emails import (
    notification_email_send,
    notification_emails_send_due,
)
from league.services.notifications import notification_preferences_set, notify
from league.services.time_controls import time_control_choose
from tests.api_answers import client_for, ok, refused
from tests.league.builders import user_with_verified_email


class BrokenBackend(BaseEmailBackend):
    """A mail server that does not answer."""

    def send_messages(self, email_messages: Any) -> int:
        raise ConnectionRefusedError("the mail server does not answer")


def person(name: str) -> User:
    return user_with_verified_email(name)


def later() -> Any:
    return timezone.now() + timedelta(hours=1)


@pytest.mark.django_db
def test_email_off_means_no_mail_and_the_notice_is_still_in_the_site() -> None:
    ann = person("ann")
    notification_preferences_set(user=ann, email={"your_move": False, "round_started": True})
    quiet = notify(
        user=ann, kind=NotificationKind.YOUR_MOVE, key="k1", text="Your move.", url="/games/"
    )
    loud = notify(user=ann, kind=NotificationKind.ROUND_STARTED, key="k2", text="Round 1.")
    default_off = notify(user=ann, kind=NotificationKind.LEAGUE_FINISHED, key="k3", text="End.")
    assert quiet is not None
    assert loud is not None
    assert default_off is not None
    assert (quiet.email_due, loud.email_due, default_off.email_due) == (False, True, False)
    assert notification_emails_send_due(now=later()) == 1
    assert [m.subject for m in mail.outbox] == ["A round started · King League"]
    assert Notification.objects.filter(user=ann).count() == 3  # all three in the site

    # A choice made while a mail is still to be sent is followed.
    notify(user=ann, kind=NotificationKind.ROUND_STARTED, key="k4", text="Round 2.")
    notification_preferences_set(user=ann, email={"round_started": False})
    assert notification_emails_send_due(now=later()) == 0
    assert len(mail.outbox) == 1
    with pytest.raises(InvalidInputError, match="unknown kind 'nonsense'"):
        notification_preferences_set(user=ann, email={"nonsense": True})


@pytest.mark.django_db
def test_the_email_task_sends_one_mail_however_often_it_runs(settings: Any) -> None:
    bob = person("bob")
    notice = notify(
        user=bob,
        kind=NotificationKind.MOVED_FOR_YOU,
        key="moved:1",
        text="No move from you: play 2C was played for you.",
        url="/matches/1/seats/0/",
    )
    assert notice is not None
    assert notice.email_due
    assert notify(user=bob, kind=NotificationKind.MOVED_FOR_YOU, key="moved:1", text="x") is None

    # The mail server is down: the send fails and the notice stays due.
    settings.EMAIL_BACKEND = f"{__name__}.BrokenBackend"
    with pytest.raises(ConnectionRefusedError):
        notification_email_send(notification_id=notice.pk)
    assert notification_emails_send_due(now=later()) == 0  # logged, kept
    notice.refresh_from_db()
    assert (notice.email_due, notice.emailed_at) == (True, None)

    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    assert notification_email_send(notification_id=notice.pk) is True
    assert notification_email_send(notification_id=notice.pk) is False
    assert notification_emails_send_due(now=later()) == 0
    assert len(mail.outbox) == 1
    sent = mail.outbox[0]
    assert sent.to == ["bob@example.org"]
    assert sent.subject == "A move was played for you on timeout · King League"
    assert "http://127.0.0.1:8000/matches/1/seats/0/" in sent.body
    assert "http://127.0.0.1:8000/settings/notifications/" in sent.body
    notice.refresh_from_db()
    assert notice.emailed_at is not None
    assert not notice.email_due


@pytest.mark.django_db
def test_a_person_without_an_address_gets_no_mail_and_nothing_stays_due() -> None:
    nobody = User.objects.create_user("nobody", "", "a long password 1")
    notice = notify(user=nobody, kind=NotificationKind.YOUR_MOVE, key="k", text="Your move.")
    assert notice is not None
    assert notification_email_send(notification_id=notice.pk) is False
    notice.refresh_from_db()
    assert (notice.email_due, notice.emailed_at) == (False, None)
    assert mail.outbox == []


@pytest.mark.django_db
def test_an_address_not_confirmed_gets_no_mail() -> None:
    """Anyone can type anyone's address at sign-up: only a confirmed one is mailed."""
    typed = User.objects.create_user("typed", "someone@example.org", "a long password 1")
    notice = notify(user=typed, kind=NotificationKind.YOUR_MOVE, key="k", text="Your move.")
    assert notice is not None
    assert notice.email_due
    assert notification_email_send(notification_id=notice.pk) is False
    notice.refresh_from_db()
    assert (notice.email_due, notice.emailed_at) == (False, None)
    assert mail.outbox == []


@pytest.mark.django_db
def test_the_api_shows_a_person_their_own_notices_only() -> None:
    ann, eve = person("ann"), person("eve")
    first = notify(user=ann, kind=NotificationKind.ROUND_STARTED, key="a", text="Round 1.")
    second = notify(user=ann, kind=NotificationKind.YOUR_MOVE, key="b", text="Your move.")
    hers = notify(user=eve, kind=NotificationKind.YOUR_MOVE, key="c", text="Eve's move.")
    assert first is not None
    assert second is not None
    assert hers is not None
    api = client_for(ann)
    listed = ok(api.get("/api/notifications/"))
    assert [n["id"] for n in listed] == [second.pk, first.pk]  # newest first
    assert all(n["unread"] for n in listed)
    assert ok(api.get("/api/notifications/counts/")) == {"unread": 2, "your_move": 0}
    refused(api.post(f"/api/notifications/{hers.pk}/read/"), 404)  # not even named
    assert ok(api.post(f"/api/notifications/{first.pk}/read/"))["unread"] is False
    assert ok(api.get("/api/notifications/counts/"))["unread"] == 1
    assert ok(api.post("/api/notifications/read-all/")) == {"marked": 1}
    assert Notification.objects.get(pk=hers.pk).read_at is None
    refused(client_for().get("/api/notifications/"), 401)
    prefs = ok(api.get("/api/notifications/preferences/"))
    assert {p["kind"] for p in prefs} == set(NotificationKind.values)
    refused(
        api.put("/api/notifications/preferences/", {"email": {"your_move": "no"}}, format="json"),
        400,
    )


@pytest.mark.django_db
def test_the_notification_pages_list_open_and_mark_read() -> None:
    ann, eve = person("ann"), person("eve")
    notice = notify(
        user=ann,
        kind=NotificationKind.YOUR_MOVE,
        key="a",
        text="Your move in Kingen.",
        url="/games/",
    )
    hers = notify(user=eve, kind=NotificationKind.YOUR_MOVE, key="b", text="Eve's.")
    assert notice is not None
    assert hers is not None
    browser = Client()
    assert browser.get("/notifications/").status_code == 302  # sign in first
    browser.force_login(ann)
    page = browser.get("/notifications/").content.decode()
    assert "Your move in Kingen." in page
    assert "Eve&#x27;s." not in page
    assert 'class="unread"' in page
    assert "Notifications <span" in page  # the navigation bar's count
    opened = browser.post(f"/notifications/{notice.pk}/open/")
    assert (opened.status_code, opened["Location"]) == (302, "/games/")
    notice.refresh_from_db()
    assert notice.read_at is not None
    assert browser.post(f"/notifications/{hers.pk}/read/").status_code == 404
    assert browser.get(f"/notifications/{notice.pk}/open/").status_code == 405  # GET writes nothing
    settings_page = browser.get("/settings/notifications/").content.decode()
    assert '<option value="immediate" selected>' in settings_page  # your move: at once
    browser.post("/settings/notifications/", {"email": ["round_started"]})
    choices = {p.kind: p.email for p in ann.notification_preferences.all()}
    assert choices["round_started"] is True
    assert choices["your_move"] is False
    # The page's choices: at once, in a digest or off, per kind.
    browser.post("/settings/notifications/", {"mode-your_move": "digest", "mode-invited": "off"})
    modes = {p["kind"]: p["mode"] for p in notification_preferences_of(user=ann)}
    assert (modes["your_move"], modes["invited"], modes["round_started"]) == (
        "digest",
        "off",
        "immediate",
    )
    refused = browser.post("/settings/notifications/", {"mode-your_move": "hourly"}, follow=True)
    assert "mode: for your_move choose immediate, digest or off" in refused.content.decode()


def test_time_controls_default_to_correspondence_when_people_play() -> None:
    assert time_control_choose(time_control=None, move_seconds=None, people=True) == (
        TimeControl.CORRESPONDENCE,
        86400.0,
    )
    assert time_control_choose(time_control=None, move_seconds=None, people=False) == (
        TimeControl.LIVE,
        30.0,
    )
    assert time_control_choose(time_control=None, move_seconds=20, people=True) == (
        TimeControl.LIVE,
        20,
    )
    with pytest.raises(InvalidInputError, match="move_seconds: a correspondence game"):
        time_control_choose(time_control="correspondence", move_seconds=60, people=True)
    with pytest.raises(InvalidInputError, match="move_seconds: a live game"):
        time_control_choose(time_control="live", move_seconds=7200, people=False)


def test_the_mail_settings_are_read_from_the_environment() -> None:
    assert email_from_env({})["EMAIL_BACKEND"].endswith("console.EmailBackend")
    smtp = email_from_env(
        {"EMAIL_URL": "smtp+tls://league%40example.org:s%3Acret@mail.example.org"}
    )
    assert smtp["EMAIL_BACKEND"].endswith("smtp.EmailBackend")
    assert (smtp["EMAIL_HOST"], smtp["EMAIL_PORT"], smtp["EMAIL_USE_TLS"]) == (
        "mail.example.org",
        587,
        True,
    )
    assert (smtp["EMAIL_HOST_USER"], smtp["EMAIL_HOST_PASSWORD"]) == (
        "league@example.org",
        "s:cret",
    )
    assert email_from_env({"EMAIL_URL": "smtps://mail.example.org"})["EMAIL_USE_SSL"] is True
    for bad in ("http://mail.example.org", "smtp://", "smtp://host:notaport"):
        with pytest.raises(ConfigurationError) as error:
            email_from_env({"EMAIL_URL": bad})
        assert str(error.value).startswith("EMAIL_URL: ")
        assert "\n" not in str(error.value)
    with pytest.raises(ConfigurationError, match=r"^EMAIL_URL: .*\*\*\*"):
        email_from_env({"EMAIL_URL": "ftp://user:secret@host"})  # the password not shown
    assert from_email_from_env({}, default="a@b.org") == "a@b.org"
    assert from_email_from_env(
        {"DEFAULT_FROM_EMAIL": "King League <league@example.org>"}, default=""
    ) == ("King League <league@example.org>")
    with pytest.raises(ConfigurationError, match=r"^DEFAULT_FROM_EMAIL: "):
        from_email_from_env({"DEFAULT_FROM_EMAIL": "not an address"}, default="")
    assert site_url_from_env({"SITE_URL": "https://league.example.org/"}, default="") == (
        "https://league.example.org"
    )
    for bad in ("league.example.org", "ftp://x.org", "https://x.org/?a=1"):
        with pytest.raises(ConfigurationError, match=r"^SITE_URL: "):
            site_url_from_env({"SITE_URL": bad}, default="")
