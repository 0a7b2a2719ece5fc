"""A signed-in person's regions of a shared page kept in the cache (issue 34,
api.kept_parts): a repeat hit is one MGET with the session, no row and no template; the
regions are one person's and hold no token of theirs; their own write, a new notice, a
rename, a changed password or a deactivated account show at their next page even while
the page itself may lag; the session is read in the same round trip as the rest, and
decides over the process's guess of whose it is. Real PostgreSQL and Redis; the Redis
client's sends are counted on their way to the real server (a pipeline or an MGET is
one)."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.contrib.sessions.backends.cached_db import SessionStore
from django.core.cache import cache
from django.db import OperationalError
from django.http import HttpResponse
from django.middleware import csrf
from django.test import AsyncClient, Client, RequestFactory, override_settings
from django.utils.functional import SimpleLazyObject

import pytest
import redis.connection
from asgiref.sync import async_to_sync

from api.kept_parts import kept_parts_of, own_version_key, own_writes_moved_on
from api.read_cache import DISPLAY_SESSION_KEY, HIT_HEADER, PLACEHOLDER, read_cache_middleware
from league.models import LadderEntrant, NotificationKind
from league.reads_generation import reads_changed
from league.services.ladders import ladder_matchmake
from league.services.notifications import notify
from tests.league.builders import user_create
from tests.web.ladder_builders import ladder_with_anchors, uploaded_version
from tests.web.test_signed_in_header import (
    BASE_PAGES,
    header_counts,
    read_with_queries,
    signed_in,
    signed_in_as,
)

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.django_db(transaction=True)]

TOKEN = re.compile(r'(?:name="csrfmiddlewaretoken" value="|csrf-token" content=")([A-Za-z0-9]{64})')


@contextmanager
def redis_sends() -> Iterator[list[bytes]]:
    """The requests this process's Redis clients send in the block (each a round trip)."""
    sent: list[bytes] = []
    send = redis.connection.AbstractConnection.send_packed_command

    def counting(self: Any, command: Any, check_health: bool = True) -> None:
        sent.append(b"".join(command) if isinstance(command, list) else bytes(command))
        send(self, command, check_health)  # type: ignore[no-untyped-call]

    redis.connection.AbstractConnection.send_packed_command = counting  # type: ignore[method-assign]
    try:
        yield sent
    finally:
        redis.connection.AbstractConnection.send_packed_command = send  # type: ignore[method-assign]


def early(answer: Any) -> bool:
    """Whether ``answer`` was given before the middleware chain (api.read_cache's early
    hit): AuthenticationMiddleware never saw its request."""
    return not hasattr(answer.wsgi_request, "user")


def kept(client: Client, url: str) -> None:
    """The shared page stored, the account kept, the regions kept (hits until then)."""
    for _ in range(3):
        client.get(url)


def test_a_repeat_hit_is_the_session_and_one_mget_no_row_and_no_template() -> None:
    ladder = ladder_with_anchors()
    _, ann = signed_in("ann")
    for url in (*BASE_PAGES, f"/ladders/{ladder.slug}/"):
        kept(ann, url)
        with redis_sends() as sent:
            answer, sql = read_with_queries(ann, url)
        assert answer[HIT_HEADER] == "hit", url
        assert early(answer)
        assert signed_in_as(answer) == "ann"
        assert sql == [], (url, sql)
        assert answer.templates == [], url  # the regions spliced in, not rendered
        assert len(sent) == 1, (url, sent)  # one MGET: the session with the rest
        assert sent[0].split(b"\r\n")[2] == b"MGET"
        assert session_key(ann).encode() in sent[0]


def session_key(client: Client) -> str:
    return str(client.cookies[settings.SESSION_COOKIE_NAME].value)


def test_a_session_ended_since_the_last_hit_is_not_served_as_signed_in() -> None:
    """The process's guess of who a session is only chooses the keys: the session read in
    the same round trip decides, and once signed out it is nobody's."""
    _, ann = signed_in("ann")
    kept(ann, "/ladders/")
    assert early(answer := ann.get("/ladders/"))
    assert signed_in_as(answer) == "ann"
    cookie = session_key(ann)
    ann.logout()  # the session flushed: gone from the database and the cache
    ann.cookies[settings.SESSION_COOKIE_NAME] = cookie  # replayed
    answer = ann.get("/ladders/")
    assert answer.status_code == 200
    assert signed_in_as(answer) is None
    assert "Log in" in answer.content.decode()


def test_a_session_whose_language_changed_since_the_last_hit_is_read_under_its_own() -> None:
    """A guess the session contradicts (here its language) is read again under the
    session's own keys, in a second round trip."""
    _, ann = signed_in("ann")
    kept(ann, "/ladders/")
    assert ann.get("/ladders/")["Content-Language"] == "en"
    store = SessionStore(session_key(ann))
    display = dict(store[DISPLAY_SESSION_KEY])
    display["language"] = "nl"
    store[DISPLAY_SESSION_KEY] = display
    store.save()
    with redis_sends() as sent:
        answer = ann.get("/ladders/")
    assert answer["Content-Language"] == "nl"
    assert "<strong>ann</strong>" in answer.content.decode()
    assert [command.split(b"\r\n")[2] for command in sent][:2] == [b"MGET", b"MGET"]
    kept(ann, "/ladders/")  # the Dutch page stored, her regions in it kept
    with redis_sends() as sent:
        answer = ann.get("/ladders/")
    assert answer["Content-Language"] == "nl"
    assert answer[HIT_HEADER] == "hit"
    assert len(sent) == 1  # the guess is hers again


def test_kept_regions_are_one_persons_and_hold_no_token_of_theirs() -> None:
    _, ann = signed_in("ann")
    _, bob = signed_in("bob")
    for client in (ann, bob, ann, bob, ann, bob):
        client.get("/ladders/")
    ann_user, bob_user = User.objects.get(username="ann"), User.objects.get(username="bob")
    store = cache._cache.get_client()  # type: ignore[attr-defined]
    entries = [
        (who, person, other, kind)
        for who, person, other in (("ann", ann_user, "bob"), ("bob", bob_user, "ann"))
        for kind in ("parts", "base")
    ]
    for who, person, other, kind in entries:
        names = store.keys(cache.make_key(f"person:{kind}:{person.pk}:") + "*")
        assert len(names) == 1
        entry = cache._cache.get(names[0].decode(), None)  # type: ignore[attr-defined]
        text = "".join(entry["parts"].values())
        assert f"<strong>{who}</strong>" in text
        assert f"<strong>{other}</strong>" not in text
        assert PLACEHOLDER in text  # the log-out form's token, filled at each hit
        assert not TOKEN.search(text)
        secret = (ann if who == "ann" else bob).cookies["csrftoken"].value
        assert secret not in text
    # Each served their own token into the kept regions.
    for client in (ann, bob):
        answer = client.get("/ladders/")
        tokens = TOKEN.findall(answer.content.decode())
        assert tokens
        secrets = {csrf._unmask_cipher_token(token) for token in tokens}  # type: ignore[attr-defined]
        assert secrets == {client.cookies["csrftoken"].value}


def stored_for_visitors(url: str) -> None:
    """The shared page of ``url`` stored (a visitor's read)."""
    assert Client().get(url).status_code == 200


def base_rendered(answer: Any) -> bool:
    return "_personal_account.html" in [template.name for template in answer.templates]


def ladder_regions_alone_rendered(answer: Any) -> None:
    """``answer`` is ann's early hit of a ladder with its own regions rendered, not hers."""
    assert early(answer)
    assert signed_in_as(answer) == "ann"
    names = [template.name for template in answer.templates]
    assert "web/_ladder_personal_parts.html" in names
    assert not base_rendered(answer), names


def test_the_header_is_kept_once_per_reader_a_first_look_at_a_page_renders_only_its_own() -> None:
    """base.html's regions rendered on one page serve the reader's first look at every
    other: a page with no region of its own renders no template and reads no row, one with
    its own renders those alone; a page the ladder moved on since (its own regions old)
    still takes the kept header."""
    ladder = ladder_with_anchors()
    _, ann = signed_in("ann")
    kept(ann, "/ladders/")
    for url in ("/ratings/", "/leagues/", f"/ladders/{ladder.slug}/"):
        stored_for_visitors(url)
    for url in ("/ratings/", "/leagues/"):
        answer, sql = read_with_queries(ann, url)
        assert answer[HIT_HEADER] == "hit", url
        assert early(answer), url
        assert signed_in_as(answer) == "ann"
        assert answer.templates == [], (url, answer.templates)
        assert sql == [], (url, sql)
    page = f"/ladders/{ladder.slug}/"
    answer = ann.get(page)
    ladder_regions_alone_rendered(answer)
    assert header_counts(answer) == {"unread": 0, "your_move": 0}

    reads_changed()  # the ladder moved on: the page's entry is old (the tests' lag: 0)
    stored_for_visitors(page)
    answer = ann.get(page)
    ladder_regions_alone_rendered(answer)


def test_the_kept_header_follows_the_readers_versions_and_language() -> None:
    """A new notice, an own write or another language: the header rendered again, on
    whichever page comes next."""
    ann_user, ann = signed_in("ann")
    kept(ann, "/ladders/")
    notify(user=ann_user, kind=NotificationKind.INVITED, key="a", text="One for ann")
    for url in ("/ratings/", "/leagues/", "/ladders/"):
        stored_for_visitors(url)  # again: the notice's write moved the pages on
    answer = ann.get("/ratings/")
    assert early(answer)
    assert base_rendered(answer)
    assert header_counts(answer)["unread"] == 1
    assert not base_rendered(ann.get("/leagues/"))  # kept again, the new counts in it
    assert header_counts(ann.get("/leagues/"))["unread"] == 1

    own_writes_moved_on(ann_user.pk)
    assert base_rendered(ann.get("/ladders/"))

    store = SessionStore(session_key(ann))
    store[DISPLAY_SESSION_KEY] = dict(store[DISPLAY_SESSION_KEY]) | {"language": "nl"}
    store.save()
    kept(ann, "/ratings/")  # the Dutch page stored, her Dutch header kept
    stored_for_visitors_in_dutch = Client(headers={"Accept-Language": "nl"})
    assert stored_for_visitors_in_dutch.get("/leagues/")["Content-Language"] == "nl"
    answer = ann.get("/leagues/")
    assert answer["Content-Language"] == "nl"
    assert early(answer)
    assert not base_rendered(answer)
    assert 'lang="nl"' in answer.content.decode()


@override_settings(READ_CACHE_LAG_SECONDS=3600)
def test_own_write_and_a_new_notice_show_at_the_next_page_while_the_page_may_lag() -> None:
    """With the shared page allowed to lag an hour, what the person did and their counts
    still show at their next page: their versions move on, the kept regions are old."""
    ladder = ladder_with_anchors()
    ann_user, ann = signed_in("ann")
    mine = uploaded_version(ann_user)
    ladder_matchmake(ladder_id=ladder.pk)
    url = f"/ladders/{ladder.slug}/"
    kept(ann, url)
    before, sql = read_with_queries(ann, url)
    assert sql == []
    assert 'id="my-challenges"' not in before.content.decode()
    assert header_counts(before)["unread"] == 0

    anchors = LadderEntrant.objects.filter(ladder=ladder, anchor=True).values_list(
        "competitor_id", flat=True
    )
    posted = ann.post(
        f"{url}challenge/", {"version": mine.pk, "opponent": list(anchors)[:3]}, follow=True
    )
    assert posted.status_code == 200
    assert "Challenge queued" in posted.content.decode()  # the message: the chain's page
    if "messages" in ann.cookies and not ann.cookies["messages"].value:
        del ann.cookies["messages"]  # expired (max-age 0): a browser sends it no more
    after = ann.get(url)
    assert after[HIT_HEADER] == "hit"
    assert early(after)
    assert 'id="my-challenges"' in after.content.decode()

    notify(user=ann_user, kind=NotificationKind.INVITED, key="a", text="One for ann")
    noticed = ann.get(url)
    assert noticed[HIT_HEADER] == "hit"
    assert early(noticed)
    assert header_counts(noticed)["unread"] == 1
    assert 'id="my-challenges"' in noticed.content.decode()


def test_a_changed_password_or_deactivation_ends_kept_regions_at_once() -> None:
    ann_user, ann = signed_in("ann")
    bob_user, bob = signed_in("bob")
    kept(ann, "/ladders/")
    kept(bob, "/ladders/")
    assert signed_in_as(ann.get("/ladders/")) == "ann"
    ann_user.set_password("another long password 2")
    ann_user.save()
    assert signed_in_as(ann.get("/ladders/")) is None
    bob_user.is_active = False
    bob_user.save()
    assert signed_in_as(bob.get("/ladders/")) is None


def test_regions_not_kept_without_the_persons_versions_are_rendered_again() -> None:
    ann_user, ann = signed_in("ann")
    kept(ann, "/ladders/")
    assert read_with_queries(ann, "/ladders/")[0].templates == []
    own_writes_moved_on(ann_user.pk)
    rendered = ann.get("/ladders/")
    assert rendered[HIT_HEADER] == "hit"
    assert rendered.templates  # rendered for this request (then kept again)
    assert signed_in_as(rendered) == "ann"
    assert ann.get("/ladders/").templates == []


@pytest.mark.parametrize("asgi", [False, True], ids=["wsgi", "asgi"])
def test_any_write_of_a_signed_in_person_makes_their_regions_old(asgi: bool) -> None:
    """Under either handler: a signed-in person's POST (whatever it wrote, a refused form
    too) gives them a new own-writes version; a visitor's POST and a GET give nobody one.
    (Django runs the read cache's middleware synchronously under ASGI too while a
    sync-only middleware follows it, as the CSP's and WhiteNoise's do.)"""
    ann_user, ann = signed_in("ann")
    client: Any = AsyncClient() if asgi else ann
    client.cookies = ann.cookies

    def ask(method: str, url: str) -> Any:
        call = getattr(client, method)
        return async_to_sync(call)(url) if asgi else call(url)

    ask("get", "/ladders/")
    before = cache.get(own_version_key(ann_user.pk))
    ask("get", "/ladders/")
    assert cache.get(own_version_key(ann_user.pk)) == before
    assert ask("post", "/ladders/no-such-ladder/challenge/").status_code == 404
    after = cache.get(own_version_key(ann_user.pk))
    assert after is not None
    assert after != before
    Client().post("/ladders/no-such-ladder/challenge/")  # nobody signed in
    assert cache.get(own_version_key(ann_user.pk)) == after


def test_a_write_that_never_asked_who_it_was_reads_no_session_after_the_answer() -> None:
    """The middleware looks only at a user the request already read: an unread lazy user
    whose reading would fail (a database down) is left alone, no error after the answer;
    a read one moves its person's version on."""
    ann_user = user_create("ann", "a long password 1")

    def down() -> Any:
        raise OperationalError("the database is down")

    def answered_unread(request: Any) -> HttpResponse:
        request.user = SimpleLazyObject(down)
        return HttpResponse("refused", status=403)

    def answered_read(request: Any) -> HttpResponse:
        request.user = SimpleLazyObject(lambda: ann_user)
        assert request.user.is_authenticated
        return HttpResponse("done")

    before = cache.get(own_version_key(ann_user.pk))
    unread = read_cache_middleware(answered_unread)(RequestFactory().post("/ladders/x/challenge/"))
    assert unread.status_code == 403
    assert cache.get(own_version_key(ann_user.pk)) == before
    read = read_cache_middleware(answered_read)(RequestFactory().post("/ladders/x/challenge/"))
    assert read.status_code == 200
    assert cache.get(own_version_key(ann_user.pk)) not in (None, before)


def test_kept_regions_need_the_persons_exact_versions_and_the_pages_rule() -> None:
    """The person's versions exactly; the page's generation as the shared page's is
    served (its own, or an older one less than READ_CACHE_LAG_SECONDS ago)."""
    parts = {"account": "<strong>ann</strong>"}
    now = time.time()
    entry = {"versions": ("u", "c", "o"), "page_version": "g1", "stored_at": now, "parts": parts}
    assert kept_parts_of(entry, ("u", "c", "o"), "g1") == parts
    for other in (("u2", "c", "o"), ("u", "c2", "o"), ("u", "c", "o2"), None):
        assert kept_parts_of(entry, other, "g1") is None
    assert kept_parts_of(entry, ("u", "c", "o"), "g2") is None  # the tests' lag: 0
    with override_settings(READ_CACHE_LAG_SECONDS=60):
        assert kept_parts_of(entry, ("u", "c", "o"), "g2") == parts
        old = entry | {"stored_at": now - 61}
        assert kept_parts_of(old, ("u", "c", "o"), "g2") is None
        assert kept_parts_of(old, ("u", "c", "o"), "g1") == parts
