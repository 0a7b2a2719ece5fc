"""What a signed-in person's page still reads per request (issue 34): their session from
the cache (``cached_db``), their header's counts from the cache while no write changed
them (league.person_counts), so that a page served from the shared cache reads the
database once (the user) where it read it four times. Every person still gets their own
header on the same shared page, a new notice shows at once, an ended session ends at once,
and a flushed cache signs nobody out. Real PostgreSQL and Redis."""

from __future__ import annotations

import re
from typing import Any

from django.contrib.auth.models import User
from django.core.cache import cache
from django.db import connection
from django.test import Client

import pytest

from accounts.account_settings import log_out_everywhere, signed_in_session_end
from api.kept_parts import own_writes_moved_on
from api.read_cache import HIT_HEADER
from league.models import Notification, NotificationKind, SignedInSession
from league.person_counts import person_counts_cached
from league.reads_generation import GENERATION_KEY, settled_read
from league.services.ladders import ladder_matchmake
from league.services.matches import match_run
from league.services.notifications import notification_read, notify
from tests.league.builders import user_create
from tests.web.ladder_builders import ladder_with_anchors, uploaded_version
from tests.web.test_signed_in_pages import club_league

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.django_db(transaction=True)]

PASSWORD = "a long password 1"
BASE_PAGES = ("/ladders/", "/ratings/", "/leagues/")


def signed_in(username: str) -> tuple[User, Client]:
    """A person signed in by the sign-in form (a session row, its copy in the cache)."""
    person = user_create(username, PASSWORD)
    client = Client()
    answer = client.post("/accounts/login/", {"username": username, "password": PASSWORD})
    assert answer.status_code == 302
    return person, client


def read_with_queries(client: Client, url: str) -> tuple[Any, list[str]]:
    """``client``'s GET of ``url`` and the SQL it ran (an execute wrapper: Django empties
    CaptureQueriesContext's log as a request starts)."""
    sql: list[str] = []

    def record(execute: Any, statement: str, *args: Any) -> Any:
        sql.append(statement)
        return execute(statement, *args)

    with connection.execute_wrapper(record):
        answer = client.get(url)
    return answer, sql


def header_counts(answer: Any) -> dict[str, int]:
    """The navigation bar's counts as the page shows them."""
    text = answer.content.decode()
    found = dict(re.findall(r'data-count="(\w+)"[^>]*>(\d+)</span>', text))
    return {name: int(value) for name, value in found.items()}


def signed_in_as(answer: Any) -> str | None:
    found = re.search(r"Signed in as</span> <strong>([^<]*)</strong>", answer.content.decode())
    return found.group(1) if found else None


def test_a_cached_page_reads_no_database_row_for_a_signed_in_person() -> None:
    _, ann_client = signed_in("ann")
    for url in BASE_PAGES:
        ann_client.get(url)  # the shared page stored, her counts counted and kept
        ann_client.get(url)  # her account kept (accounts.kept_users)
        answer, sql = read_with_queries(ann_client, url)
        assert answer.status_code == 200
        assert answer[HIT_HEADER] == "hit"
        assert signed_in_as(answer) == "ann"
        # The session, the user (accounts.kept_users) and the counts from the cache.
        assert sql == [], (url, sql)


def test_two_people_and_a_visitor_each_get_their_own_header_on_the_same_shared_page() -> None:
    ann, ann_client = signed_in("ann")
    bob, bob_client = signed_in("bob")
    notify(user=ann, kind=NotificationKind.INVITED, key="a", text="One for ann")
    notify(user=ann, kind=NotificationKind.INVITED, key="b", text="Two for ann")
    notify(user=bob, kind=NotificationKind.INVITED, key="c", text="One for bob")
    visitor = Client()
    for url in BASE_PAGES:
        answers = {"ann": ann_client.get(url), "bob": bob_client.get(url)}
        answers |= {"ann-again": ann_client.get(url), "visitor": visitor.get(url)}
        assert {answers[who][HIT_HEADER] for who in ("bob", "ann-again", "visitor")} == {"hit"}
        assert signed_in_as(answers["ann"]) == signed_in_as(answers["ann-again"]) == "ann"
        assert signed_in_as(answers["bob"]) == "bob"
        assert signed_in_as(answers["visitor"]) is None
        assert header_counts(answers["ann"]) == {"your_move": 0, "unread": 2}
        assert header_counts(answers["ann-again"]) == {"your_move": 0, "unread": 2}
        assert header_counts(answers["bob"]) == {"your_move": 0, "unread": 1}
        assert header_counts(answers["visitor"]) == {}
        assert "Log in" in answers["visitor"].content.decode()


def test_a_new_notice_shows_in_the_header_at_the_next_page_and_a_read_one_goes() -> None:
    ann, ann_client = signed_in("ann")
    assert header_counts(ann_client.get("/ladders/")) == {"your_move": 0, "unread": 0}
    ann_client.get("/ladders/")  # her account kept (accounts.kept_users)
    assert read_with_queries(ann_client, "/ladders/")[1] == []  # the counts kept

    notice = notify(user=ann, kind=NotificationKind.INVITED, key="x", text="You were invited")
    assert notice is not None
    assert header_counts(ann_client.get("/ladders/")) == {"your_move": 0, "unread": 1}
    notification_read(user=ann, notification_id=notice.pk)
    assert header_counts(ann_client.get("/ratings/")) == {"your_move": 0, "unread": 0}

    # Read by a queryset update that says so (league.services.notifications does): the
    # counts follow at once too.
    notify(user=ann, kind=NotificationKind.INVITED, key="y", text="Again")
    assert header_counts(ann_client.get("/ladders/")) == {"your_move": 0, "unread": 1}
    ann_client.post("/notifications/read-all/")
    assert Notification.objects.filter(user=ann, read_at__isnull=True).count() == 0
    assert header_counts(ann_client.get("/ladders/")) == {"your_move": 0, "unread": 0}


def test_counts_read_before_a_write_commits_are_not_served_after_it() -> None:
    """A reader that counted before a notice's transaction committed stored its counts
    under the version the commit replaces: the next page counts again."""
    ann = user_create("ann")
    assert person_counts_cached(user=ann) == {"unread": 0, "your_move": 0}
    # The race: counts read (old), then a notice committed, then the old counts stored.
    stale = cache.get(f"person:counts:{ann.pk}")
    notify(user=ann, kind=NotificationKind.INVITED, key="z", text="Invited")
    cache.set(f"person:counts:{ann.pk}", stale)
    assert person_counts_cached(user=ann) == {"unread": 1, "your_move": 0}


def test_sessions_in_the_cache_survive_its_flush_and_end_when_ended() -> None:
    ann, phone = signed_in("ann")
    laptop = Client()
    assert laptop.post("/accounts/login/", {"username": "ann", "password": PASSWORD}).status_code
    assert signed_in_as(phone.get("/ladders/")) == "ann"
    assert signed_in_as(laptop.get("/ladders/")) == "ann"

    cache.clear()  # Redis flushed: the sessions are read from PostgreSQL again
    assert signed_in_as(phone.get("/ladders/")) == "ann"
    answer, sql = read_with_queries(phone, "/ladders/")
    assert signed_in_as(answer) == "ann"
    assert not [s for s in sql if "django_session" in s]  # back in the cache

    phone_session = SignedInSession.objects.get(session_key=phone.session.session_key)
    assert signed_in_session_end(user=ann, session_id=phone_session.pk)
    assert signed_in_as(phone.get("/ladders/")) is None  # its cached copy gone too
    assert signed_in_as(laptop.get("/ladders/")) == "ann"
    assert log_out_everywhere(user=ann) == 1
    assert signed_in_as(laptop.get("/ladders/")) is None


def test_each_split_page_reads_only_the_persons_own_rows_when_shared() -> None:
    """A signed-in hit of each split page whose regions are not kept (api.kept_parts):
    the person's own rows, exactly; the page's public rows (the ladder's board, the match
    and its seats, the league) are read once for every reader
    (league.reads_generation.settled_read). The next hit reads none: the regions kept."""
    ladder = ladder_with_anchors()
    ann = user_create("ann", PASSWORD)
    mine = uploaded_version(ann)
    ladder_matchmake(ladder_id=ladder.pk)
    tournament, _, matches = club_league(at_club=False)
    match_run(match_id=matches[0].pk, worker="test")
    rita_user, rita = signed_in("rita")
    expected = {
        # her challenges, how many she has left, the rated game's versions (the user is
        # kept in the cache: accounts.kept_users)
        f"/ladders/{ladder.slug}/": 3,
        f"/ladders/{ladder.slug}/versions/{mine.pk}/": 0,
        f"/matches/{matches[0].pk}/": 1,  # the analysis shown: may she ask
        f"/leagues/{tournament.pk}/rounds/1/": 0,
        # her role in the club (twice); an entry of hers; her versions to enter
        f"/leagues/{tournament.pk}/": 4,
    }
    for url, count in expected.items():
        rita.get(url)  # the shared page stored, the public rows kept
        rita.get(url)  # her account kept (accounts.kept_users)
        own_writes_moved_on(rita_user.pk)  # her regions rendered again at the next hit
        answer, sql = read_with_queries(rita, url)
        assert answer[HIT_HEADER] == "hit", url
        assert signed_in_as(answer) == "rita"
        assert len(sql) == count, (url, sql)
        again, sql = read_with_queries(rita, url)
        assert again[HIT_HEADER] == "hit", url
        assert signed_in_as(again) == "rita"
        assert sql == [], (url, sql)


def test_a_kept_public_read_is_read_again_after_any_write_and_never_from_before_it() -> None:
    reads: list[int] = []

    def count() -> int:
        reads.append(1)
        return User.objects.count()

    assert settled_read("test:people", count) == 0
    assert settled_read("test:people", count) == 0
    assert len(reads) == 1  # kept
    user_create("ann")  # a write: a new generation
    assert settled_read("test:people", count) == 1
    assert len(reads) == 2
    # A value read before a write committed and stored after it is not served.
    before = cache.get(GENERATION_KEY)
    user_create("bob")
    cache.set("reads:settled:test:people", (before, 1))
    assert settled_read("test:people", count) == 2
