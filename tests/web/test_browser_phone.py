"""In a real browser: every page a person reaches fits a phone (390 x 844) without
scrolling sideways (wide tables scroll inside their own box, the header's two lines of links
each in theirs), and its header takes less than 15 % of the phone's height (issue 32: 27 %),
with screenshots of the league page and a profile; and the replay viewer plays a game by
itself.

The league is played for real (built-in bots through the league's match service, in this
process), the profile's games are stored results of sample records.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from django.contrib.auth.models import User
from django.test import Client

import pytest

from league.models import Match, MatchStatus
from league.services.matches import match_run
from league.services.ratings import ratings_update
from league.services.tournaments import tournament_round_start
from tests.league.builders import bot_tournament
from tests.web.browser import chromium_start, screenshot
from tests.web.conftest import wait_for
from tests.web.test_profiles import _finished, _people, _tournament
from web.samples import sample_record

if TYPE_CHECKING:
    from selenium.webdriver.chrome.webdriver import WebDriver

    from tests.uvicorn_servers import UvicornLiveServer

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = (390, 844)
LONG_NAME = "annika.lindqvist-holmberg_from_the_tuesday_club"


@pytest.fixture
def phone(tmp_path: Path) -> Iterator[WebDriver]:
    driver = chromium_start(tmp_path / "phone-profile", width=PHONE[0], height=PHONE[1])
    try:
        # The window's outer size is the flag's; make the page's own viewport the phone's.
        driver.execute_cdp_cmd(
            "Emulation.setDeviceMetricsOverride",
            {"width": PHONE[0], "height": PHONE[1], "deviceScaleFactor": 2, "mobile": False},
        )
        yield driver
        log: list[dict[str, Any]] = driver.get_log("browser")  # type: ignore[no-untyped-call]
        errors = [e for e in log if e.get("level") == "SEVERE" and e.get("source") == "javascript"]
        assert not errors, f"JavaScript errors: {errors}"
    finally:
        driver.quit()


@pytest.fixture
def league_played() -> dict[str, Any]:
    """A league of eight built-in bots, two rounds played and rated; a person with a long
    name and games of partnership and individual play."""
    tournament, organiser = bot_tournament(game="kingen", entrants=8, rounds=2, bot="greedy")
    for _ in range(2):
        round_ = tournament_round_start(actor=organiser, tournament=tournament)
        for match in Match.objects.filter(round=round_):
            assert match_run(match_id=match.pk, worker="phone-test").outcome == "finished"
    while ratings_update():
        pass
    people = _people()
    person = User.objects.create_user(LONG_NAME)
    people["ann"].user = person
    people["ann"].name = LONG_NAME
    people["ann"].save()
    seats = list(people.values())
    priffe = _tournament("priffe(rubbers_per_game=2)")
    _finished(priffe, seats, sample_record("priffe(rubbers_per_game=2)", 1), 1)
    casual = _tournament("kingen", casual=True)
    _finished(casual, seats, sample_record("kingen", 3), 1)
    played = Match.objects.filter(tournament=tournament, status=MatchStatus.FINISHED).first()
    assert played is not None
    bot = played.seats.first().competitor.bot_version.bot  # type: ignore[union-attr]
    return {
        "tournament": tournament,
        "organiser": organiser,
        "match": played,
        "bot": bot,
        "person": person,
    }


def _sign_in(driver: WebDriver, live_server: UvicornLiveServer, user: User) -> None:
    client = Client()
    client.force_login(user)
    driver.get(f"{live_server.url}/")
    driver.add_cookie({"name": "sessionid", "value": client.cookies["sessionid"].value})


def _overflow(driver: WebDriver) -> tuple[int, int, list[str]]:
    """The document's width, the window's, and the widest elements that stick out."""
    return driver.execute_script(
        """
        const width = window.innerWidth;
        const out = [];
        for (const node of document.querySelectorAll('body *')) {
          const box = node.getBoundingClientRect();
          const boxed = node.parentElement?.closest(
            '.table-wrap, .rules-text table, pre, .site-nav, .site-header .account-nav');
          // (a box that scrolls sideways holds what is inside it)
          if (box.right > width + 1 && !boxed) {
            out.push(`${node.tagName.toLowerCase()}.${node.className} ${Math.round(box.right)}`);
          }
        }
        return [document.documentElement.scrollWidth, width, out.slice(0, 8)];
        """
    )


def test_no_page_overflows_sideways_on_a_phone(
    phone: WebDriver, live_server: UvicornLiveServer, league_played: dict[str, Any]
) -> None:
    tournament = league_played["tournament"]
    pages = {
        "home": "/",
        "clubs": "/clubs/",
        "club": f"/clubs/{tournament.club_id}/",
        "leagues": "/leagues/",
        "league": f"/leagues/{tournament.pk}/",
        "round": f"/leagues/{tournament.pk}/rounds/1/",
        "ratings": "/ratings/?family=kingen",
        "bots": "/bots/",
        "bot": f"/bots/{league_played['bot'].pk}/",
        "replay": f"/matches/{league_played['match'].pk}/",
        "profile": f"/people/{LONG_NAME}/",
        "rules": "/rules/",
        "rules-king": "/rules/king/",
        "notifications": "/notifications/",
        "notification-settings": "/settings/notifications/",
        "my-games": "/games/",
        "lobby": "/lobby/",
        "new-table": "/play/",
    }
    _sign_in(phone, live_server, league_played["person"])
    wide = {}
    tall = {}
    for name, path in pages.items():
        phone.get(f"{live_server.url}{path}")
        if name == "replay":
            wait_for(phone, lambda d: d.find_element("id", "replay").get_attribute("data-ready"))
        assert "Log in" not in phone.find_element("css selector", ".account-nav").text
        scroll_width, inner_width, out = _overflow(phone)
        header = phone.execute_script(
            "return document.querySelector('.site-header').getBoundingClientRect().height"
        )
        if header > 0.15 * PHONE[1]:
            tall[name] = header
        assert inner_width == PHONE[0]
        if scroll_width > inner_width:
            wide[name] = (scroll_width, out)
        if name in ("league", "profile", "my-games", "lobby"):
            screenshot(phone, f"phone-{name}")
        if name == "league":  # sortable headings keep their explanations
            explained = "#standings thead button abbr[title], #ratings thead button abbr[title]"
            assert len(phone.find_elements("css selector", explained)) >= 2
    assert not wide, f"pages wider than the phone: {wide}"
    assert not tall, f"headers taller than 15 % of the phone: {tall}"


def test_the_replay_plays_by_itself_and_stops_at_the_end(
    samples_on: None, open_page: Callable[[str], WebDriver]
) -> None:
    from selenium.webdriver.common.keys import Keys

    game, seed = "priffe(rubbers_per_game=1)", 2
    record = sample_record(game, seed)
    last_deal = record["deals"][-1]
    count = len(last_deal["actions"])
    query = urlencode({"game": game, "seed": seed})
    driver = open_page(f"/samples/replay/?{query}")
    wait_for(driver, lambda d: d.find_element("id", "replay").get_attribute("data-ready"))
    root = driver.find_element("id", "replay")
    play = driver.find_element("css selector", "[data-role=play]")

    # A bid says what it means: Priffe's first actions are bids.
    first_deal = record["deals"][0]["deal"]
    first_bid = next(i for i, e in enumerate(record["deals"][0]["actions"], 1) if "action" in e)
    driver.execute_script(f"window.location.hash = '#deal={first_deal}&event={first_bid}'")
    explanation = driver.find_element("css selector", "[data-role=explanation]")
    wait_for(driver, lambda d: explanation.is_displayed() and ":" in explanation.text)

    # Play at 4x from three events before the end: it moves on, the URL follows, it stops.
    driver.find_element("css selector", "[data-role=speed] option[value='4']").click()
    start = count - 3
    driver.execute_script(f"window.location.hash = '#deal={last_deal['deal']}&event={start}'")
    wait_for(driver, lambda d: d.current_url.endswith(f"#deal={last_deal['deal']}&event={start}"))
    play.click()
    assert play.get_attribute("aria-pressed") == "true"
    wait_for(driver, lambda d: root.get_attribute("data-playing") == "false")
    assert driver.current_url.endswith(f"#deal={last_deal['deal']}&event={count}")
    assert play.get_attribute("aria-pressed") == "false"
    assert "Play" in play.text

    # Space plays and pauses (from the end it starts the game again from its start).
    driver.find_element("css selector", "[data-role=speed] option[value='0.5']").click()
    driver.find_element("tag name", "h1").click()  # the focus off the controls
    driver.find_element("tag name", "body").send_keys(Keys.SPACE)
    wait_for(driver, lambda d: root.get_attribute("data-playing") == "true")

    def step_in_first_deal(d: WebDriver) -> bool:
        deal, event = d.execute_script("return window.location.hash").lstrip("#").split("&")
        return deal == f"deal={first_deal}" and int(event.split("=")[1]) >= 2

    wait_for(driver, step_in_first_deal)
    driver.find_element("tag name", "body").send_keys(Keys.SPACE)
    wait_for(driver, lambda d: root.get_attribute("data-playing") == "false")
    assert play.get_attribute("aria-pressed") == "false"
