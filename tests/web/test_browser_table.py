"""In a real browser: the table page on the sample table (web.samples), which answers
like the league's table API with greedy players at the other seats. The same page on the
league's real API is played in test_browser_league.py."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

from tests.web.browser import screenshot
from tests.web.conftest import click, wait_for

if TYPE_CHECKING:
    from selenium.webdriver.chrome.webdriver import WebDriver
    from selenium.webdriver.remote.webelement import WebElement

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def my_cards(driver: WebDriver) -> list[str]:
    """The cards in the person's hand, read in one go (the table may redraw meanwhile)."""
    cards = driver.execute_script(
        "return [...document.querySelectorAll('button.card-button')].map(b => b.dataset.card)"
    )
    return sorted(str(card) for card in cards)


def facts(driver: WebDriver) -> str:
    return str(driver.find_element("css selector", "[data-role=facts]").text)


def error_shown(driver: WebDriver) -> bool:
    return bool(driver.find_element("css selector", "[data-role=error]").is_displayed())


def hand_changed_from(count: int) -> Callable[[WebDriver], bool]:
    return lambda driver: len(my_cards(driver)) != count or "Deal\n2 of 10" in facts(driver)


def card_left_hand(driver: WebDriver, card: str) -> bool:
    return card not in my_cards(driver) or "Deal\n2 of 10" in facts(driver)


TRICK_NOTE_COVERED = """
const note = document.querySelector(".centre .trick-note");
if (!note) return null;
const box = note.getBoundingClientRect();
const top = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
const covered = [];
if (!note.contains(top)) covered.push("its middle");
for (const other of document.querySelectorAll(".centre .played img, .seat.mine img")) {
  const b = other.getBoundingClientRect();
  if (b.left < box.right && box.left < b.right && b.top < box.bottom && box.top < b.bottom) {
    covered.push(other.alt);
  }
}
return covered;
"""
"""What hides the trick's winner line (issue 32: under the cards on a phone): nothing when
the list is empty, None when no trick was just won."""

FITS = """
const rect = (selector) => document.querySelector(selector).getBoundingClientRect();
return {
  statusTop: rect("[data-role=status]").top,
  handBottom: rect(".seat.mine .hand").bottom,
  height: window.innerHeight,
};
"""
"""The status's top and the hand's bottom, to see both are on the screen."""


def test_a_whole_deal_at_the_sample_table_on_a_phone(
    samples_on: None, open_page: Callable[[str], WebDriver]
) -> None:
    driver = open_page("/samples/table/?game=kingen&seed=5&new=1")
    driver.set_window_size(390, 844)
    wait_for(driver, lambda d: d.find_element("id", "table").get_attribute("data-ready"))
    assert len(my_cards(driver)) == 13
    refused = False
    plays = 0
    notes_seen = 0
    deadline = time.monotonic() + 120
    while "Deal\n2 of 10" not in facts(driver) and time.monotonic() < deadline:
        legal = driver.find_elements("css selector", "button.card-button.legal")
        other = driver.find_elements("css selector", "button.card-button:not(.legal)")
        if not legal:
            time.sleep(0.05)
            continue
        if other and not refused:
            if not click(other[0]):
                continue
            wait_for(driver, error_shown)
            # The engine's rule, as the server sent it.
            assert "must" in driver.find_element("css selector", "[data-role=error]").text.lower()
            refused = True
            if plays == 0:
                screenshot(driver, "table-phone")
            continue
        card = legal[0].get_attribute("data-card")
        if not card or not click(legal[0]):
            continue
        # The play is done when that card has left the hand (counting cards instead could
        # read a hand the page was redrawing, and click again before the answer came).
        wait_for(driver, functools.partial(card_left_hand, card=card))
        plays += 1
        covered = driver.execute_script(TRICK_NOTE_COVERED)
        if covered is not None:
            assert covered == [], f"the trick's winner line is under {covered}"
            notes_seen += 1
        fits = driver.execute_script(FITS)
        assert fits["statusTop"] >= 0
        assert fits["handBottom"] <= fits["height"]
        if plays == 3 and not refused:
            screenshot(driver, "table-phone")
    assert plays == 13
    assert notes_seen  # the line was there to look at, after a trick the person ended
    assert refused  # the sample game is the same every time: a forbidden card comes up
    assert "Deal\n2 of 10" in facts(driver)
    assert len(driver.find_elements("css selector", "[data-role=scores] tbody tr")) == 1
    hand = my_cards(driver)
    driver.get(driver.current_url.split("?", 1)[0])  # the table's address, not "new=1"
    wait_for(driver, lambda d: d.find_element("id", "table").get_attribute("data-ready"))
    assert my_cards(driver) == hand  # a reload resumes the game from the server


def legal_cards(driver: WebDriver) -> list[WebElement]:
    return list(driver.find_elements("css selector", "button.card-button.legal"))


@pytest.mark.parametrize("height", [800, 720])
def test_the_table_fits_a_laptop_screen(
    samples_on: None, open_page: Callable[[str], WebDriver], height: int
) -> None:
    """At 1280 x 800 (and 720) the status and the whole hand are on the screen, also once
    the person has played (the page scrolled to the focused card and pushed the status off
    the top, issue 32)."""
    driver = open_page("/samples/table/?game=kingen&seed=5&new=1")
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": 1280, "height": height, "deviceScaleFactor": 1, "mobile": False},
    )
    wait_for(driver, lambda d: d.find_element("id", "table").get_attribute("data-ready"))
    for _ in range(2):
        legal = wait_for(driver, legal_cards)
        card = legal[0].get_attribute("data-card")
        if not card or not click(legal[0]):
            continue
        wait_for(driver, functools.partial(card_left_hand, card=card))
        fits = driver.execute_script(FITS)
        assert fits["height"] == height
        assert fits["statusTop"] >= 0, "the status is above the screen"
        assert fits["handBottom"] <= height, f"the hand is cut at the bottom: {fits}"


def test_bids_are_buttons_and_a_card_plays_from_the_keyboard(
    samples_on: None, open_page: Callable[[str], WebDriver]
) -> None:
    from selenium.webdriver.common.keys import Keys

    # Priffe, seed 1: seat 0 bids first; its choices are buttons with the actions' text.
    driver = open_page("/samples/table/?game=priffe&seed=1&new=1")
    wait_for(driver, lambda d: d.find_element("id", "table").get_attribute("data-ready"))
    choices = driver.find_elements("css selector", "[data-role=choices] button")
    actions = [str(b.get_attribute("data-action")) for b in choices]
    assert "pass" in actions
    assert "bid spel" in actions
    hearts = next(b for b in choices if b.get_attribute("data-action") == "bid hearts")
    assert hearts.text == "bid hearts"
    assert not driver.find_elements("css selector", "button.card-button.legal")
    click(next(b for b in choices if b.get_attribute("data-action") == "pass"))
    # The bidding goes round; the play starts and seat 0 plays a card with the keyboard.
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        buttons = driver.find_elements("css selector", "[data-role=choices] button")
        if buttons:
            click(buttons[0])  # any further bid the rules offer
        if driver.find_elements("css selector", "button.card-button.legal"):
            break
        time.sleep(0.1)
    count = len(my_cards(driver))
    card = driver.find_element("css selector", "button.card-button.legal")
    assert "playable" in str(card.get_attribute("aria-label"))
    driver.execute_script("arguments[0].focus()", card)
    driver.switch_to.active_element.send_keys(Keys.ENTER)
    wait_for(driver, hand_changed_from(count))
    assert len(my_cards(driver)) == count - 1
