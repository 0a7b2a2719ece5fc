"""In a real browser, with the keyboard only (issue 21): a whole game of Kingen at the
sample table against greedy bots (web.samples answers like the league's table API), each
card reached with the arrow keys and played with Enter or Space; the live region tells
the cards played and the tricks' winners; the shortcuts are listed on the page. Then the
table in Dutch and Swedish, with the four-colour deck and large cards."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

from tests.web.browser import screenshot
from tests.web.conftest import wait_for

if TYPE_CHECKING:
    from selenium.webdriver.chrome.webdriver import WebDriver

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FOCUSED_CARD = (
    "const a = document.activeElement;"
    "return a && a.matches('.hand.mine button.card-button') ?"
    " [a.dataset.card, a.classList.contains('legal')] : null"
)


def phase(driver: WebDriver) -> str:
    return str(driver.find_element("id", "table").get_attribute("data-phase"))


def focused_legal_card(driver: WebDriver) -> str | None:
    """The card that has the focus, if it is one the person may play now."""
    found = driver.execute_script(FOCUSED_CARD)
    if not found or not found[1]:
        return None
    return str(found[0])


def card_played(driver: WebDriver, card: str) -> bool:
    """The card has left the hand (or the game is over)."""
    gone = driver.execute_script(
        f"return !document.querySelector('.hand.mine [data-card=\"{card}\"]')"
    )
    return phase(driver) == "finished" or bool(gone)


def test_a_whole_kingen_game_with_the_keyboard_only(
    samples_on: None, open_page: Callable[[str], WebDriver]
) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    driver = open_page("/samples/table/?game=kingen&seed=11&new=1")
    wait_for(driver, lambda d: d.find_element("id", "table").get_attribute("data-ready"))
    shortcuts = driver.find_element("css selector", "[data-role=shortcuts]")
    assert "Enter" in str(shortcuts.get_attribute("textContent"))
    keys = ActionChains(driver)
    keys.send_keys("h").perform()  # to the hand, from wherever the focus is
    played = 0
    moved_with_arrows = 0
    deadline = time.monotonic() + 300
    while phase(driver) != "finished":
        assert time.monotonic() < deadline, f"the game did not end; {played} cards played"
        card = focused_legal_card(driver)
        if card is None:
            if phase(driver) == "your_move":
                keys.send_keys("h").perform()
            time.sleep(0.05)
            continue
        legal = driver.execute_script(
            "return document.querySelectorAll('.hand.mine button.card-button.legal').length"
        )
        if legal > 1 and played % 3 == 0:  # now and then another card, reached with the arrows
            keys.send_keys(Keys.ARROW_RIGHT).perform()
            moved = focused_legal_card(driver)
            assert moved is not None
            assert moved != card
            card, moved_with_arrows = moved, moved_with_arrows + 1
        keys.send_keys(Keys.SPACE if played % 2 else Keys.ENTER).perform()
        wait_for(driver, functools.partial(card_played, card=card), timeout=20)
        played += 1
    assert played == 130  # 13 cards in each of the ten deals
    assert moved_with_arrows > 10
    said = str(
        driver.find_element("css selector", "[data-role=announce]").get_attribute("textContent")
    )
    assert "won the trick" in said or "played the" in said
    assert "The game is over" in driver.find_element("css selector", "[data-role=status]").text


@pytest.mark.parametrize("language", ["en", "nl", "sv"])
def test_the_table_in_dutch_and_swedish_with_the_four_colour_deck(
    samples_on: None, open_page: Callable[[str], WebDriver], language: str
) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    driver = open_page("/")
    driver.add_cookie({"name": "django_language", "value": language})
    driver = open_page("/samples/table/?game=kingen&seed=3&new=1")
    wait_for(driver, lambda d: d.find_element("id", "table").get_attribute("data-ready"))
    assert driver.find_element("tag name", "html").get_attribute("lang") == language
    ActionChains(driver).send_keys("h").perform()
    wait_for(driver, focused_legal_card)
    label = driver.execute_script("return document.activeElement.getAttribute('aria-label')")
    words = {"en": ("playable", "hearts", "diamonds", "clubs", "spades")}
    words["nl"] = ("speelbaar", "harten", "ruiten", "klaveren", "schoppen")
    words["sv"] = ("spelbart", "hjärter", "ruter", "klöver", "spader")
    assert words[language][0] in label
    assert any(suit in label for suit in words[language][1:])
    status = driver.find_element("css selector", "[data-role=status]").text
    assert status
    assert ("Your move" in status) == (language == "en")
    screenshot(driver, f"table-{language}")
