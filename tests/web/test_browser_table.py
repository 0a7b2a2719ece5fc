"""In a real browser: the table page on the sample table (web.samples), which answers
like the league's table API with greedy players at the other seats. The same page on the
league's real API is played in test_browser_league.py."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

from tests.web.browser import screenshot
from tests.web.conftest import wait_for

if TYPE_CHECKING:
    from selenium.webdriver.chrome.webdriver import WebDriver

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


def test_a_whole_deal_at_the_sample_table_on_a_phone(
    samples_on: None, open_page: Callable[[str], WebDriver]
) -> None:
    driver = open_page("/samples/table/?game=kingen&seed=5&new=1")
    driver.set_window_size(390, 844)
    wait_for(driver, lambda d: d.find_element("id", "table").get_attribute("data-ready"))
    assert len(my_cards(driver)) == 13
    refused = False
    plays = 0
    deadline = time.monotonic() + 120
    while "Deal\n2 of 10" not in facts(driver) and time.monotonic() < deadline:
        legal = driver.find_elements("css selector", "button.card-button.legal")
        other = driver.find_elements("css selector", "button.card-button:not(.legal)")
        if not legal:
            time.sleep(0.05)
            continue
        if other and not refused:
            other[0].click()
            wait_for(driver, error_shown)
            # The engine's rule, as the server sent it.
            assert "must" in driver.find_element("css selector", "[data-role=error]").text.lower()
            refused = True
            if plays == 0:
                screenshot(driver, "table-phone")
            continue
        count = len(my_cards(driver))
        legal[0].click()
        plays += 1
        wait_for(driver, hand_changed_from(count))
        if plays == 3 and not refused:
            screenshot(driver, "table-phone")
    assert plays == 13
    assert refused  # the sample game is the same every time: a forbidden card comes up
    assert "Deal\n2 of 10" in facts(driver)
    assert len(driver.find_elements("css selector", "[data-role=scores] tbody tr")) == 1
    hand = my_cards(driver)
    driver.get(driver.current_url.split("?", 1)[0])  # the table's address, not "new=1"
    wait_for(driver, lambda d: d.find_element("id", "table").get_attribute("data-ready"))
    assert my_cards(driver) == hand  # a reload resumes the game from the server
