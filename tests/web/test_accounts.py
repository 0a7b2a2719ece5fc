"""Accounts people trust (issue 33), through the real pages and API on PostgreSQL and the real
Redis cache, with Django's locmem mail backend: an address verified by its link, a password
reset end to end, named tokens with scopes refused at once when revoked, logging out
everywhere, the lock a stranger cannot use on the owner's device, sign-up limited per
address, an invitation link that survives sign-up, and the profile's privacy."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from django.contrib.auth.models import User
from django.core import mail
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

import pytest

from accounts.account_settings import profile_visibility_set, verified_email_of
from accounts.api_tokens import api_token_create
from league.models import Membership, Notification, NotificationKind, ProfileVisibility
from league.services.clubs import club_create, invitation_create
from league.services.notification_emails import notification_email_send
from league.services.notifications import notify
from tests.league.builders import user_create, user_with_verified_email

if TYPE_CHECKING:
    from pytest_django.fixtures import Settings

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.django_db]

PASSWORD = "a long password 1"
NEW_PASSWORD = "another long phrase 7"


def link_in(message: Any) -> str:
    """The path of the one site link in a mail's body."""
    [url] = re.findall(r"https?://\S+", message.body)
    return re.sub(r"^https?://[^/]+", "", url)


def sign_up(client: Client, username: str, email: str = "", next_url: str = "") -> Any:
    data = {"username": username, "email": email, "password1": PASSWORD, "password2": PASSWORD}
    if next_url:
        data["next"] = next_url
    return client.post("/accounts/signup/", data)


def sign_in(client: Client, username: str, password: str) -> Any:
    return client.post("/accounts/login/", {"username": username, "password": password})


def signed_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


def token_client(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


# ---------------------------------------------------------------- the address


def test_sign_up_with_an_address_mails_a_link_that_confirms_it() -> None:
    client = Client()
    assert "We mail you a link to confirm it" in client.get("/accounts/signup/").content.decode()
    response = sign_up(client, "newcomer", "newcomer@example.org")
    assert response.status_code == 302, response.content.decode()[:3000]
    user = User.objects.get(username="newcomer")
    assert user.email == "newcomer@example.org"
    assert verified_email_of(user=user) == ""  # not before the link is opened
    [message] = mail.outbox
    assert message.to == ["newcomer@example.org"]
    assert message.subject == "Confirm your email address · King League"

    # A notice is not mailed to an address nobody confirmed.
    notice = notify(user=user, kind=NotificationKind.YOUR_MOVE, key="a", text="Your move.")
    assert notice is not None
    assert notification_email_send(notification_id=notice.pk) is False

    page = Client().get(link_in(message))  # opened on a phone, signed out
    assert page.status_code == 200
    assert "Your address is confirmed" in page.content.decode()
    assert verified_email_of(user=user) == "newcomer@example.org"
    notice = notify(user=user, kind=NotificationKind.YOUR_MOVE, key="b", text="Your move.")
    assert notice is not None
    assert notification_email_send(notification_id=notice.pk) is True
    assert mail.outbox[-1].to == ["newcomer@example.org"]

    # A changed address needs its own link: the old one proves nothing any more.
    old_link = link_in(message)
    response = client.post("/settings/account/", {"action": "email", "email": "other@example.org"})
    assert response.status_code == 302
    assert verified_email_of(user=User.objects.get(pk=user.pk)) == ""
    assert mail.outbox[-1].to == ["other@example.org"]
    refused_page = Client().get(old_link)
    assert refused_page.status_code == 400
    assert "no longer has" in refused_page.content.decode()
    assert Client().get("/accounts/verify/nonsense/").status_code == 400


def test_sign_up_without_an_address_works_and_mails_nothing() -> None:
    assert sign_up(Client(), "quiet").status_code == 302
    assert mail.outbox == []
    assert Notification.objects.count() == 0


def test_a_password_reset_end_to_end() -> None:
    user_with_verified_email("ann")
    User.objects.create_user("eve", "eve@example.org", PASSWORD)  # typed, never confirmed
    old_session = Client()
    assert sign_in(old_session, "ann", PASSWORD).status_code == 302

    client = Client()
    assert "Forgotten your password?" in client.get("/accounts/login/").content.decode()
    response = client.post("/accounts/password/reset/", {"email": "ANN@example.org"})
    assert response.status_code == 302
    assert response["Location"] == "/accounts/password/reset/sent/"
    [message] = mail.outbox
    assert message.to == ["ann@example.org"]
    # An unconfirmed address gets no reset link (and the page says the same either way).
    assert client.post("/accounts/password/reset/", {"email": "eve@example.org"}).status_code == 302
    assert len(mail.outbox) == 1

    link = link_in(message)
    assert link.startswith("/accounts/password/reset/")
    form = client.get(link, follow=True)
    assert form.status_code == 200
    assert "new_password1" in form.content.decode()
    set_url = form.redirect_chain[-1][0]
    done = client.post(set_url, {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD})
    assert done.status_code == 302
    assert "Your password is changed" in client.get(done["Location"]).content.decode()
    # The link works once.
    assert "does not work any more" in Client().get(link, follow=True).content.decode()

    assert sign_in(Client(), "ann", PASSWORD).status_code == 200  # the old one is wrong
    assert sign_in(Client(), "ann", NEW_PASSWORD).status_code == 302
    # The browser signed in with the old password is signed out.
    assert old_session.get("/settings/account/").status_code == 302


def test_changing_the_password_keeps_this_browser_signed_in() -> None:
    user_create("ann", PASSWORD)
    client = Client()
    assert sign_in(client, "ann", PASSWORD).status_code == 302
    response = client.post(
        "/settings/password/",
        {"old_password": PASSWORD, "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    assert response.status_code == 302
    assert client.get("/settings/account/").status_code == 200
    assert "this browser" in client.get("/settings/sessions/").content.decode()  # still listed
    assert sign_in(Client(), "ann", NEW_PASSWORD).status_code == 302


# ---------------------------------------------------------------- tokens and sessions


def test_a_token_made_in_the_settings_works_and_a_revoked_one_is_refused_at_once() -> None:
    ann = user_create("ann", PASSWORD)
    browser = Client()
    browser.force_login(ann)
    page = browser.post(
        "/settings/tokens/",
        {"action": "create", "name": "results script", "scopes": ["read"], "expires": "30"},
    )
    assert page.status_code == 200
    match = re.search(r'<code id="new-token">(kl_[^<]+)</code>', page.content.decode())
    assert match is not None
    key = match.group(1)
    api = token_client(key)
    assert api.get("/api/notifications/").status_code == 200
    token = ann.api_tokens.get()
    assert token.last_used_at is not None
    assert token.expires_at is not None
    listed = browser.get("/settings/tokens/").content.decode()
    assert "results script" in listed
    assert key not in listed  # shown once

    assert (
        browser.post("/settings/tokens/", {"action": "revoke", "token": token.pk}).status_code
        == 302
    )
    refused = api.get("/api/notifications/")
    assert refused.status_code == 401
    assert "revoked" in refused.json()["detail"]


def test_a_token_without_the_play_scope_cannot_move_or_upload_a_bot() -> None:
    ann = user_create("ann", PASSWORD)
    _, read_only = api_token_create(user=ann, name="reader", scopes=["read"])
    api = token_client(read_only)
    move = api.post("/api/matches/1/seats/0/actions/", {"action": "play QS"}, format="json")
    assert move.status_code == 403
    assert "needs the 'play' scope" in move.json()["detail"]
    upload = api.post("/api/bots/", {"name": "b", "family": "kingen"}, format="json")
    assert upload.status_code == 403
    assert "needs the 'bots' scope" in upload.json()["detail"]
    # With the scope the permission lets it through to the view (no such match: 404).
    _, player = api_token_create(user=ann, name="player", scopes=["play"])
    assert (
        token_client(player)
        .post("/api/matches/999999/seats/0/actions/", {"action": "play QS"}, format="json")
        .status_code
        == 404
    )
    # A play-only token reads nothing.
    assert token_client(player).get("/api/notifications/").status_code == 403


def test_an_expired_token_is_refused() -> None:
    ann = user_create("ann", PASSWORD)
    made = timezone.now() - timedelta(days=2)
    _, expired = api_token_create(
        user=ann, name="old", scopes=["read"], expires_in_days=1, now=made
    )
    _, fresh = api_token_create(user=ann, name="new", scopes=["read"], expires_in_days=1)
    assert token_client(expired).get("/api/notifications/").status_code == 401
    assert token_client(fresh).get("/api/notifications/").status_code == 200


def test_the_old_token_endpoint_keeps_working_and_delete_revokes_it() -> None:
    user_create("ann", PASSWORD)
    first = APIClient().post(
        "/api/auth/token/", {"username": "ann", "password": PASSWORD}, format="json"
    )
    key = first.json()["token"]
    again = APIClient().post(
        "/api/auth/token/", {"username": "ann", "password": PASSWORD}, format="json"
    )
    assert again.json()["token"] == key  # scripts that fetch it each time keep working
    api = token_client(key)
    assert api.post("/api/bots/", {}, format="json").status_code == 400  # every scope
    assert api.delete("/api/auth/token/").status_code == 204
    assert api.get("/api/notifications/").status_code == 401
    assert APIClient().delete("/api/auth/token/").status_code == 401


def test_log_out_everywhere_ends_the_other_sessions_and_every_token() -> None:
    ann = user_create("ann", PASSWORD)
    phone, laptop = Client(), Client()
    assert sign_in(phone, "ann", PASSWORD).status_code == 302
    assert sign_in(laptop, "ann", PASSWORD).status_code == 302
    _, named = api_token_create(user=ann, name="bot", scopes=["read", "bots"])
    legacy = APIClient().post(
        "/api/auth/token/", {"username": "ann", "password": PASSWORD}, format="json"
    )
    page = laptop.get("/settings/sessions/").content.decode()
    assert page.count('name="session"') == 1  # the phone's; this browser is marked
    assert "this browser" in page

    response = laptop.post("/settings/sessions/", {"action": "everywhere"})
    assert response.status_code == 302
    assert laptop.get("/settings/sessions/").status_code == 200  # still signed in here
    assert phone.get("/settings/sessions/").status_code == 302  # sent to log in
    assert token_client(named).get("/api/notifications/").status_code == 401
    assert token_client(legacy.json()["token"]).get("/api/notifications/").status_code == 401


def test_one_session_ended_from_the_list() -> None:
    user_create("ann", PASSWORD)
    phone, laptop = Client(), Client()
    sign_in(phone, "ann", PASSWORD)
    sign_in(laptop, "ann", PASSWORD)
    page = laptop.get("/settings/sessions/").content.decode()
    session_id = re.search(r'name="session" value="(\d+)"', page)
    assert session_id is not None
    laptop.post("/settings/sessions/", {"session": session_id.group(1)})
    assert not signed_in(phone) or phone.get("/settings/sessions/").status_code == 302
    assert laptop.get("/settings/sessions/").status_code == 200


# ---------------------------------------------------------------- the lock


def test_a_stranger_cannot_lock_the_owner_out_of_their_known_device(settings: Settings) -> None:
    settings.SIGN_IN_FAILURES_ALLOWED = 5
    settings.SIGN_IN_STRANGER_FAILURES_ALLOWED = 14
    user_create("ann", PASSWORD)
    own_phone = Client(REMOTE_ADDR="10.1.0.1")
    assert sign_in(own_phone, "ann", PASSWORD).status_code == 302
    own_phone.post("/accounts/logout/")

    # A stranger at the same venue address guesses until locked.
    stranger = Client(REMOTE_ADDR="10.1.0.1")
    assert [sign_in(stranger, "ann", "guess").status_code for _ in range(6)][-1] == 429
    assert sign_in(stranger, "ann", PASSWORD).status_code == 429  # locked, even right
    # The owner's phone still gets in, from the same address.
    assert sign_in(own_phone, "ann", PASSWORD).status_code == 302
    assert signed_in(own_phone)
    # Another address is not locked by the first one's guesses.
    assert sign_in(Client(REMOTE_ADDR="10.2.0.2"), "ann", PASSWORD).status_code == 302

    # Guessing from many addresses: after the strangers' allowance (14: the stranger's 6
    # and 8 more) every unknown device is locked, the owner's own is not.
    for address in range(3, 5):
        guesser = Client(REMOTE_ADDR=f"10.3.0.{address}")
        for _ in range(4):
            assert sign_in(guesser, "ann", "guess").status_code == 200
    assert sign_in(Client(REMOTE_ADDR="10.4.0.9"), "ann", "guess").status_code == 429
    assert sign_in(Client(REMOTE_ADDR="10.4.0.9"), "ann", PASSWORD).status_code == 429
    own_phone.post("/accounts/logout/")
    assert sign_in(own_phone, "ann", PASSWORD).status_code == 302

    # A forged device cookie is no known device.
    forged = Client(REMOTE_ADDR="10.5.0.5")
    forged.cookies["known_device"] = "forged"
    assert sign_in(forged, "ann", PASSWORD).status_code == 429


# ---------------------------------------------------------------- sign-up


def test_sign_up_is_limited_per_address(settings: Settings) -> None:
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
            "sign_up": "2/hour",
        },
    }
    assert sign_up(Client(REMOTE_ADDR="10.9.0.1"), "one").status_code == 302
    assert sign_up(Client(REMOTE_ADDR="10.9.0.1"), "two").status_code == 302
    refused = sign_up(Client(REMOTE_ADDR="10.9.0.1"), "three")
    assert refused.status_code == 429
    assert "Too many new accounts from your address" in refused.content.decode()
    assert 1 <= int(refused["Retry-After"]) <= 3600
    assert not User.objects.filter(username="three").exists()
    assert Client(REMOTE_ADDR="10.9.0.1").get("/accounts/signup/").status_code == 200
    assert sign_up(Client(REMOTE_ADDR="10.9.0.2"), "three").status_code == 302


def test_an_invitation_link_survives_sign_up() -> None:
    olga = user_create("olga", PASSWORD)
    club = club_create(user=olga, name="De Koning")
    code = invitation_create(actor=olga, club=club).code
    client = Client()
    link = f"/join/{code}/"
    to_log_in = client.get(link)
    assert to_log_in.status_code == 302
    login_page = client.get(to_log_in["Location"]).content.decode()
    signup_href = re.search(r'href="(/accounts/signup/\?next=[^"]+)"', login_page)
    assert signup_href is not None
    signup_page = client.get(signup_href.group(1).replace("&amp;", "&")).content.decode()
    assert f'name="next" value="{link}"' in signup_page
    response = sign_up(client, "newcomer", next_url=link)
    assert response.status_code == 302
    assert response["Location"] == link
    invitation = client.get(link).content.decode()
    assert "De Koning" in invitation
    client.post(link, {"code": code})
    assert Membership.objects.filter(club=club, user__username="newcomer").exists()


def test_the_header_links_keep_the_page_to_come_back_to() -> None:
    page = Client().get("/rules/").content.decode()
    assert 'href="/accounts/signup/?next=/rules/"' in page
    assert 'href="/accounts/login/?next=/rules/"' in page


# ---------------------------------------------------------------- privacy


def test_privacy_hides_games_partners_and_bots_by_the_persons_choice() -> None:
    ann, member, outsider = user_create("ann"), user_create("bo"), user_create("cy")
    club = club_create(user=ann, name="Club")
    Membership.objects.create(club=club, user=member)

    def private_to(viewer: User | None) -> bool:
        api = APIClient()
        if viewer is not None:
            api.force_authenticate(viewer)
        return bool(api.get("/api/people/ann/").json()["private"])

    assert not private_to(None)
    profile_visibility_set(user=ann, visibility=ProfileVisibility.CLUBS)
    assert (private_to(None), private_to(outsider), private_to(member), private_to(ann)) == (
        True,
        True,
        False,
        False,
    )
    profile_visibility_set(user=ann, visibility=ProfileVisibility.NOBODY)
    assert (private_to(member), private_to(ann)) == (True, False)
    page = Client().get("/people/ann/").content.decode()
    assert "keeps their games, partners and bots private" in page
    assert 'id="games-title"' not in page

    browser = Client()
    browser.force_login(ann)
    response = browser.post(
        "/settings/account/", {"action": "privacy", "profile_visibility": "everyone"}
    )
    assert response.status_code == 302
    assert 'id="games-title"' in Client().get("/people/ann/").content.decode()
