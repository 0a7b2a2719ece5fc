"""Presence and "your move" at a live table, in two real browsers against the real processes
(uvicorn as in production, a real Celery worker, PostgreSQL, Redis): docs/web.md,
*Presence* and *Your turn*.

ann and bob sit at a Kingen table with two bots. Each page shows the other at the table;
when it is ann's move her tab's title says "Your move - Table N", and it says so no more
once she has moved. bob closes his tab while the table waits for him: ann reads "bob left
the table" within seconds and, once bob has been gone the set time (2 s here), the button
that seats a bot for him; her vote (a majority of the one other person) seats it and the
game plays on past bob's turn. bob opens the table again: ann reads "bob is back".

The people's moves before the ones the pages make are played through the same service
as a click (the game starts where the test needs it, not by clicking a whole deal).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from django.contrib.auth.models import User
from django.db import connection
from django.test import Client

import pytest

from league.models import Match, MatchSeat, MatchStatus, SeatInvitation
from league.selectors.replays import match_state_read
from league.services.matches import match_person_act
from league.services.tables import seat_invitation_accept, table_open
from tests.celery_workers import CeleryWorkerProcess
from tests.servers import database_url_for
from tests.web import test_browser_league as league_in_a_browser
from tests.web.browser import chromium_start
from tests.web.conftest import click, wait_for
from tests.web.test_browser_league import Site

if TYPE_CHECKING:
    from selenium.webdriver.chrome.webdriver import WebDriver

pytestmark = [
    pytest.mark.browser,
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.worker,
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
]

PASSWORD = "a long pass phrase 42"
WAIT = 60.0
"""How long the table may take to reach what the test waits for (a loaded CI machine)."""

site = league_in_a_browser.site
worker = league_in_a_browser.worker


@pytest.fixture
def environment(subprocess_environment: dict[str, str], collected_static: Path) -> dict[str, str]:
    """The league's browser test's environment, with a vote open after 2 s of absence."""
    return subprocess_environment | {
        "DATABASE_URL": database_url_for(connection.settings_dict),
        "STATIC_ROOT": str(collected_static),
        "DEBUG": "false",
        "TABLE_ABSENCE_VOTE_SECONDS": "2",
    }


@pytest.fixture
def browsers(tmp_path: Path) -> Iterator[dict[str, WebDriver]]:
    """ann's and bob's browsers; the test fails on a JavaScript error in either."""
    found: dict[str, WebDriver] = {}
    try:
        for name in ("ann", "bob"):
            found[name] = chromium_start(tmp_path / f"profile-{name}")
        yield found
        for name, driver in found.items():
            log: list[dict[str, Any]] = driver.get_log("browser")  # type: ignore[no-untyped-call]
            errors = [
                e for e in log if e.get("level") == "SEVERE" and e.get("source") == "javascript"
            ]
            assert not errors, f"JavaScript errors in {name}'s browser: {errors}"
    finally:
        for driver in found.values():
            driver.quit()


def signed_in(driver: WebDriver, site: Site, user: User) -> None:
    client = Client()
    client.force_login(user)
    driver.get(f"{site.url}/accounts/login/")
    driver.add_cookie({"name": "sessionid", "value": client.cookies["sessionid"].value})


def waiting_seat(match: Match) -> int | None:
    match.refresh_from_db()
    return match.waiting_seat if match.status == MatchStatus.RUNNING else None


def play_for(match: Match, seat: int) -> None:
    """The person at ``seat`` makes their first legal move (the service a click calls)."""
    state = match_state_read(Match.objects.get(pk=match.pk))
    action = state.game.action_to_string(state.view_for(seat).legal[0])
    match_person_act(match=match, seat=seat, action=action)


def presence_news(driver: WebDriver) -> str:
    return str(
        driver.execute_script(
            "return document.querySelector('[data-role=presence-news]').textContent"
        )
    )


def seat_connected(driver: WebDriver, seat: int) -> str | None:
    found = driver.execute_script(
        "const seat = document.querySelector(`.board .seat[data-seat='${arguments[0]}']`);"
        "return seat?.dataset.connected ?? null;",
        seat,
    )
    return None if found is None else str(found)


def test_a_closed_tab_is_gone_for_the_others_who_seat_a_bot_and_the_title_says_your_move(
    site: Site, worker: CeleryWorkerProcess, browsers: dict[str, WebDriver]
) -> None:
    ann = User.objects.create_user("ann", "ann@example.org", PASSWORD)
    bob = User.objects.create_user("bob", "bob@example.org", PASSWORD)
    match = table_open(
        actor=ann,
        game="kingen",
        seats=["me", "invite:bob", "builtin:greedy", "builtin:greedy"],
        move_seconds=600,
    )
    seat_invitation_accept(user=bob, code=SeatInvitation.objects.get(match=match, seat=1).code)
    ann_page, bob_page = browsers["ann"], browsers["bob"]
    signed_in(ann_page, site, ann)
    signed_in(bob_page, site, bob)
    table_url = f"{site.url}/matches/{match.pk}/seats/%s/"
    ann_page.get(table_url % 0)
    first_tab = bob_page.current_window_handle
    bob_page.switch_to.new_window("tab")
    bob_page.get(table_url % 1)

    # Each sees the other at the table.
    wait_for(ann_page, lambda d: seat_connected(d, 1) == "true", timeout=WAIT)
    wait_for(bob_page, lambda d: seat_connected(d, 0) == "true", timeout=WAIT)

    # Your move, in the tab's title: on ann's turn, and not once she has moved.
    wait_for(ann_page, lambda d: waiting_seat(match) is not None, timeout=WAIT)
    while waiting_seat(match) != 0:
        if waiting_seat(match) == 1:
            play_for(match, 1)
        wait_for(ann_page, lambda d: waiting_seat(match) is not None, timeout=WAIT)
    your_move = f"Your move - Table {match.pk}"
    wait_for(ann_page, lambda d: d.title == your_move, timeout=WAIT)
    assert bob_page.title != your_move
    play_for(match, 0)
    wait_for(ann_page, lambda d: d.title != your_move, timeout=WAIT)

    # The table waits for bob; he closes his tab.
    while waiting_seat(match) != 1:
        if waiting_seat(match) == 0:
            play_for(match, 0)
        wait_for(ann_page, lambda d: waiting_seat(match) is not None, timeout=WAIT)
    bob_page.close()  # his tab, as a person closes it
    bob_page.switch_to.window(first_tab)
    wait_for(ann_page, lambda d: presence_news(d) == "bob left the table", timeout=10)
    wait_for(ann_page, lambda d: seat_connected(d, 1) == "false", timeout=10)

    # After the set time ann may seat a bot for him; her vote is the majority.
    vote = "[data-role=presence-votes] button[data-vote-seat='1']"
    wait_for(ann_page, lambda d: d.find_elements("css selector", vote), timeout=30)
    assert "Seat a bot for bob (0 of 1 votes)" in ann_page.find_element("css selector", vote).text
    wait_for(ann_page, lambda d: click(d.find_element("css selector", vote)), timeout=10)
    wait_for(
        ann_page,
        lambda d: presence_news(d) == "A bot plays for bob.",
        timeout=10,
    )
    bobs_seat = MatchSeat.objects.get(match=match, seat=1)
    assert bobs_seat.replaced
    assert bobs_seat.strikes == 0  # no deadline missed: the others voted
    wait_for(ann_page, lambda d: waiting_seat(match) != 1, timeout=WAIT)  # the bot played

    # bob comes back.
    bob_page.get(table_url % 1)
    wait_for(ann_page, lambda d: presence_news(d) == "bob is back", timeout=10)
    wait_for(
        bob_page,
        lambda d: (
            "you take your seat again at the next deal"
            in d.find_element("css selector", "[data-role=presence-votes]").text
        ),
        timeout=WAIT,
    )
