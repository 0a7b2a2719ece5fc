"""A signed-in person's cache hit answered before the rest of the middleware (issue 34,
api.read_cache._early_signed_in_hit): the session, the account (accounts.kept_users),
the header counts and the shared page from the cache, no database row. Each reader's own
header and CSRF token on the same shared page; an ended session, a changed password or a
deactivated account never served as signed in; a rename shows at the next page; Redis
never holds a password hash. Real PostgreSQL and Redis."""

from __future__ import annotations

import re
from typing import Any

from django.contrib.auth.models import User
from django.core.cache import cache
from django.middleware import csrf
from django.test import AsyncClient, Client

import pytest
from asgiref.sync import async_to_sync

from accounts.kept_users import KeptUserSaveRefusedError, kept_key, kept_user_of, version_key
from api.read_cache import HIT_HEADER
from tests.web.test_signed_in_header import (
    PASSWORD,
    read_with_queries,
    signed_in,
    signed_in_as,
)
from web import person_display

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.django_db(transaction=True)]

TOKEN = re.compile(r'(?:name="csrfmiddlewaretoken" value="|csrf-token" content=")([A-Za-z0-9]{64})')
PAGE = "/ladders/"


def tokens_secrets(answer: Any) -> set[str]:
    """The CSRF secrets the page's tokens unmask to."""
    found = TOKEN.findall(answer.content.decode())
    assert found
    return {csrf._unmask_cipher_token(token) for token in found}  # type: ignore[attr-defined]


def warm(client: Client, url: str = PAGE) -> None:
    """The shared page stored (a miss), then the reader's account kept (its first hit)."""
    client.get(url)
    client.get(url)


def early_hit(client: Client, url: str = PAGE) -> Any:
    """``client``'s GET of ``url``, asserted to be a hit that read no database row."""
    answer, sql = read_with_queries(client, url)
    assert answer.status_code == 200
    assert answer[HIT_HEADER] == "hit"
    assert sql == [], sql
    return answer


def test_two_people_and_a_visitor_get_their_own_header_and_csrf_token() -> None:
    _, ann = signed_in("ann")
    _, bob = signed_in("bob")
    visitor = Client()
    warm(ann)
    warm(bob)
    answers = {"ann": early_hit(ann), "bob": early_hit(bob), "visitor": visitor.get(PAGE)}
    assert signed_in_as(answers["ann"]) == "ann"
    assert signed_in_as(answers["bob"]) == "bob"
    assert signed_in_as(answers["visitor"]) is None
    secrets = {
        who: client.cookies["csrftoken"].value for who, client in (("ann", ann), ("bob", bob))
    }
    secrets["visitor"] = visitor.cookies["csrftoken"].value
    assert len(set(secrets.values())) == 3
    for who, answer in answers.items():
        assert tokens_secrets(answer) == {secrets[who]}, who
        assert "Cookie" in answer["Vary"]
        assert "private" in answer["Cache-Control"]
        assert answer["X-Frame-Options"]
        assert answer["Content-Security-Policy"]


def test_a_reader_without_a_csrf_cookie_gets_one_and_its_token() -> None:
    _, ann = signed_in("ann")
    warm(ann)
    del ann.cookies["csrftoken"]
    answer = early_hit(ann)
    secret = answer.cookies["csrftoken"].value
    assert tokens_secrets(answer) == {secret}
    assert signed_in_as(answer) == "ann"


def test_a_logged_out_session_is_not_served_as_signed_in() -> None:
    _, ann = signed_in("ann")
    warm(ann)
    early_hit(ann)
    old = ann.cookies["sessionid"].value
    assert ann.post("/accounts/logout/").status_code in (200, 302)
    ann.cookies["sessionid"] = old  # the ended session's cookie, sent again
    answer = ann.get(PAGE)
    assert signed_in_as(answer) is None


def test_a_password_changed_elsewhere_or_a_deactivated_account_ends_the_hits() -> None:
    ann_user, phone = signed_in("ann")
    laptop = Client()
    assert (
        laptop.post("/accounts/login/", {"username": "ann", "password": PASSWORD}).status_code
        == 302
    )
    warm(phone)
    warm(laptop)
    early_hit(phone)
    early_hit(laptop)

    ann_user.set_password("another long password 2")
    ann_user.save()
    assert signed_in_as(phone.get(PAGE)) is None
    assert signed_in_as(laptop.get(PAGE)) is None

    _, bob = signed_in("bob")
    warm(bob)
    early_hit(bob)
    bob_user = User.objects.get(username="bob")
    bob_user.is_active = False
    bob_user.save()
    assert signed_in_as(bob.get(PAGE)) is None


def test_a_renamed_person_shows_the_new_name_at_the_next_page() -> None:
    ann_user, ann = signed_in("ann")
    warm(ann)
    assert signed_in_as(early_hit(ann)) == "ann"
    ann_user.username = "anna"
    ann_user.save()
    assert signed_in_as(ann.get(PAGE)) == "anna"  # the row read again: a new version
    assert signed_in_as(ann.get(PAGE)) == "anna"
    assert signed_in_as(early_hit(ann)) == "anna"


def test_a_kept_user_holds_no_password_hash_and_refuses_to_be_saved() -> None:
    ann_user, ann = signed_in("ann")
    warm(ann)
    early_hit(ann)
    entry = cache.get(kept_key(ann_user.pk))
    assert isinstance(entry, dict)
    ann_user.refresh_from_db()
    assert ann_user.password not in {str(value) for value in entry.values()}
    assert "password" not in entry
    kept = kept_user_of(entry, cache.get(version_key(ann_user.pk)))
    assert kept is not None
    with pytest.raises(KeptUserSaveRefusedError):
        kept[0].save()
    ann_user.refresh_from_db()
    assert ann_user.check_password(PASSWORD)


def test_a_kept_user_read_before_a_save_commits_is_not_served_after_it() -> None:
    ann_user, ann = signed_in("ann")
    warm(ann)
    early_hit(ann)
    stale = cache.get(kept_key(ann_user.pk))
    ann_user.username = "anna"
    ann_user.save()
    cache.set(kept_key(ann_user.pk), stale)  # the race: the old row stored after the commit
    assert signed_in_as(ann.get(PAGE)) == "anna"


def test_under_asgi_a_signed_in_hit_passes_no_middleware_after_the_read_cache(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Under ASGI (the servers'), a signed-in hit is answered by the read cache's
    middleware: PersonDisplayMiddleware, later in the chain, never sees it; the chain
    still answers a request it cannot (an unknown session cookie)."""
    _, ann = signed_in("ann")
    client = AsyncClient()
    client.cookies = ann.cookies
    for _ in range(2):  # the shared page stored, then her account kept
        async_to_sync(client.get)(PAGE)
    seen: list[str] = []
    chained = person_display.request_display

    def counted(request: Any) -> Any:
        seen.append(request.path)
        return chained(request)

    monkeypatch.setattr(person_display, "request_display", counted)
    answer = async_to_sync(client.get)(PAGE)
    assert answer.status_code == 200
    assert answer[HIT_HEADER] == "hit"
    assert signed_in_as(answer) == "ann"
    assert tokens_secrets(answer) == {client.cookies["csrftoken"].value}
    assert seen == []
    client.cookies["sessionid"] = "x" * 32
    assert signed_in_as(async_to_sync(client.get)(PAGE)) is None
    assert seen == [PAGE]
