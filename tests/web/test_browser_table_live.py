"""At the table in a real browser, against the real processes: uvicorn serves the site as in
production (HTTP and WebSockets), a real Celery worker plays the bots, on PostgreSQL and Redis.

A newcomer signs up from the home page's "Play now" and sits down with three demo bots;
plays a few cards; reloads the page mid-game and is back at the same position; loses the
socket (closed under the page's feet) and sees it come back and the view fetched again;
writes in the table's chat, where what they typed is shown as text; misses a deadline and
is told which card was played for them; and on a phone-sized
window (390 x 844) has their hand and the trick on screen without scrolling, and nothing
wider than the screen.
"""

from __future__ import annotations

import functools
import time
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from django.utils import timezone

import pytest

from league.services.matches import match_deadline_expire
from tests.celery_workers import CeleryWorkerProcess
from tests.web import test_browser_league as league_in_a_browser
from tests.web.browser import screenshot
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

# The site (uvicorn, as in production) and the worker of the league's browser test, as
# fixtures of this module.
environment = league_in_a_browser.environment
site = league_in_a_browser.site
worker = league_in_a_browser.worker

SOCKETS_KEPT = """
window.__sockets = [];
const Native = window.WebSocket;
window.WebSocket = class extends Native {
  constructor(...args) { super(...args); window.__sockets.push(this); }
};
"""
"""Run before the page's scripts: every WebSocket the page opens is kept in a list, so the
test can close it as a network drop would."""


def css(driver: WebDriver, selector: str) -> Any:
    return driver.find_element("css selector", selector)


def table_attribute(driver: WebDriver, name: str) -> str:
    return str(driver.execute_script(f"return document.getElementById('table').dataset.{name}"))


def my_cards(driver: WebDriver) -> list[str]:
    cards = driver.execute_script(
        "return [...document.querySelectorAll('.seat.mine button.card-button')]"
        ".map(b => b.dataset.card)"
    )
    return sorted(str(card) for card in cards)


def my_turn(driver: WebDriver) -> bool:
    return table_attribute(driver, "yourTurn") == "true" and bool(
        driver.find_elements("css selector", ".seat.mine button.card-button.legal")
    )


def card_left_hand(driver: WebDriver, card: str) -> bool:
    return card not in my_cards(driver)


def view_fetches(driver: WebDriver) -> int:
    return int(
        driver.execute_script(
            "return performance.getEntriesByType('resource')"
            ".filter(e => e.name.includes('/view/')).length"
        )
    )


def play_cards(driver: WebDriver, count: int) -> None:
    """Play ``count`` cards, each when it is this seat's turn (the lowest legal card)."""
    played = 0
    deadline = time.monotonic() + 120
    while played < count:
        assert time.monotonic() < deadline, f"{played} of {count} cards played in 2 minutes"
        if not my_turn(driver):
            time.sleep(0.1)
            continue
        legal = driver.find_elements("css selector", ".seat.mine button.card-button.legal")
        card = legal[-1].get_attribute("data-card") if legal else None
        if not card or not click(legal[-1]):
            continue
        wait_for(driver, functools.partial(card_left_hand, card=str(card)), timeout=30)
        played += 1


def rect(driver: WebDriver, selector: str) -> dict[str, float]:
    found = driver.execute_script(
        "const e = document.querySelector(arguments[0]);"
        "if (!e) return null; const r = e.getBoundingClientRect();"
        "return {top: r.top, bottom: r.bottom, left: r.left, right: r.right};",
        selector,
    )
    assert found is not None, f"nothing matches {selector}"
    return {key: float(value) for key, value in found.items()}


def test_a_newcomer_plays_reloads_loses_the_socket_chats_and_plays_on_a_phone(
    site: Site, worker: CeleryWorkerProcess, browser: WebDriver
) -> None:
    driver = browser
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": SOCKETS_KEPT})

    # ------------------------------------------------------------ Play now, from the home page
    driver.get(f"{site.url}/")
    css(driver, ".play-now a.button").click()
    wait_for(driver, lambda d: d.find_elements("id", "id_password2"))
    css(driver, "#id_username").send_keys("newcomer")
    css(driver, "#id_password1").send_keys(PASSWORD)
    css(driver, "#id_password2").send_keys(PASSWORD)
    css(driver, "main form button[type=submit]").click()  # signed up and seated at once
    wait_for(driver, lambda d: table_attribute(d, "ready") == "true", timeout=20)
    assert "/seats/0/" in driver.current_url
    # Read in one go: the board is redrawn as the bots' cards come on the socket.
    names = driver.execute_script(
        "return [...document.querySelectorAll('.seat .seat-name')].map((e) => e.textContent)"
    )
    assert "Greedy Gus" in names

    # ------------------------------------------------------------ a few moves, then reload
    play_cards(driver, 3)
    wait_for(driver, my_turn, timeout=60)
    position = table_attribute(driver, "position")
    hand = my_cards(driver)
    assert len(hand) == 10
    driver.refresh()
    wait_for(driver, lambda d: table_attribute(d, "ready") == "true", timeout=20)
    wait_for(driver, my_turn, timeout=20)
    assert table_attribute(driver, "position") == position
    assert my_cards(driver) == hand
    assert table_attribute(driver, "phase") == "your_move"
    assert css(driver, "[data-role=status]").text.startswith("Your move")

    # ------------------------------------------------------------ the socket drops
    wait_for(driver, lambda d: css(d, "[data-role=connection]").text == "live", timeout=20)
    fetched = view_fetches(driver)
    driver.execute_script("window.__sockets.forEach(s => s.close())")
    wait_for(driver, lambda d: css(d, "[data-role=connection]").text == "live", timeout=20)
    assert driver.execute_script("return window.__sockets.length") >= 2  # a new socket
    wait_for(driver, lambda d: view_fetches(d) > fetched)  # refetched on reconnecting
    play_cards(driver, 1)  # and the game goes on
    wait_for(driver, my_turn, timeout=60)

    # ------------------------------------------------------------ the chat
    typed = "<img src=x onerror=alert(1)> good luck"
    css(driver, "#chat-text").send_keys(typed)
    css(driver, ".chat-form button").click()
    wait_for(driver, lambda d: d.find_elements("css selector", ".chat-log li"))
    assert css(driver, ".chat-log li .chat-text").text == typed
    assert not driver.find_elements("css selector", ".chat-log img")  # text, not HTML

    # ------------------------------------------------------------ a move played for me
    # The sweep's fallback for a missed deadline (called here as the sweep would, a long
    # time from now): the page hears of it on the socket and says what was played.
    match_id = int(table_attribute(driver, "match"))
    assert match_deadline_expire(match_id=match_id, now=timezone.now() + timedelta(days=30))
    wait_for(driver, lambda d: css(d, "[data-role=moved]").is_displayed(), timeout=30)
    moved = str(css(driver, "[data-role=moved]").text)
    assert "was played for you (strike 1 of 3)." in moved, moved
    assert moved.startswith("No move within 2 min: the "), moved  # a card by its name

    # ------------------------------------------------------------ on a phone
    # From the top of the page: a reload restores the scroll of the desktop window (the chat
    # was typed in), as far as the page's height at load allows; what is asserted below is
    # that the phone's page does not scroll by itself.
    driver.execute_script("window.scrollTo(0, 0)")
    driver.set_window_size(390, 844)
    driver.refresh()
    wait_for(driver, lambda d: table_attribute(d, "ready") == "true", timeout=20)
    wait_for(driver, my_turn, timeout=60)
    play_cards(driver, 1)  # a trick on the table: the cards just played
    wait_for(driver, my_turn, timeout=60)
    height = float(driver.execute_script("return window.innerHeight"))
    width = float(driver.execute_script("return window.innerWidth"))
    assert driver.execute_script("return window.scrollY") == 0
    cards = driver.find_elements("css selector", ".seat.mine button.card-button")
    assert len(cards) == 7  # 13, less 3 + 1 + 1 played, and 1 played for me
    for index in range(len(cards)):
        box = rect(driver, f".seat.mine li:nth-child({index + 1}) button.card-button")
        assert box["top"] >= 0, box
        assert box["bottom"] <= height, f"card {index + 1} is below the screen: {box}"
        assert box["left"] >= 0, box
        assert box["right"] <= width, box
    trick = rect(driver, ".board .centre")
    assert trick["top"] >= 0, trick
    assert trick["bottom"] <= height, trick
    assert driver.find_elements("css selector", ".board .centre .played")
    scroll_width = float(driver.execute_script("return document.documentElement.scrollWidth"))
    assert scroll_width <= width, "the page is wider than the phone's screen"
    screenshot(driver, "table-phone-live")
