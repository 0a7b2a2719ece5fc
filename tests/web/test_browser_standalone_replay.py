"""In a real browser: a local match's record (``python -m bots match ... --record FILE``)
made into a standalone page (``python -m engine show FILE --html OUT.html``) replays in
the site's viewer opened from the file, with no request beyond the file itself: cards,
tricks and their winners, scores, stepping by button and by keyboard."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from bots.__main__ import main as bots_main
from engine.__main__ import main as engine_main
from engine.table_sheet import COMPASS
from engine.timeline import record_timeline
from tests.web.browser import chromium_start, page_requests
from tests.web.conftest import wait_for

if TYPE_CHECKING:
    from selenium.webdriver.chrome.webdriver import WebDriver

pytestmark = pytest.mark.browser


@pytest.fixture
def offline_browser(tmp_path: Path) -> Iterator[WebDriver]:
    """A headless Chromium that logs every request its pages make; the test fails on a
    JavaScript error."""
    driver = chromium_start(tmp_path / "chromium-profile", log_network=True)
    try:
        yield driver
        log: list[dict[str, Any]] = driver.get_log("browser")  # type: ignore[no-untyped-call]
        errors = [entry for entry in log if entry.get("level") == "SEVERE"]
        assert not errors, f"errors in the page: {errors}"
    finally:
        driver.quit()


def step_label(driver: WebDriver) -> str:
    return str(driver.find_element("css selector", "[data-role=step-label]").text)


def hand_of(driver: WebDriver, seat: int) -> list[str]:
    cards = driver.find_elements(
        "css selector", f".seat[data-seat='{seat}'] .hand [data-card]:not([data-card=''])"
    )
    return sorted(str(card.get_attribute("data-card")) for card in cards)


def test_a_local_record_replays_in_the_standalone_viewer_with_no_request(
    tmp_path: Path, offline_browser: WebDriver, capsys: pytest.CaptureFixture[str]
) -> None:
    from selenium.webdriver.common.keys import Keys

    record_file, page_file = tmp_path / "game.json", tmp_path / "game.html"
    players = ["builtin:greedy", "builtin:random", "builtin:greedy", "builtin:random"]
    argv = ["match", "kingen", *players, "--seed", "11", "--record", str(record_file)]
    assert bots_main(argv) == 0
    assert engine_main(["show", str(record_file), "--html", str(page_file)]) == 0
    capsys.readouterr()
    record = json.loads(record_file.read_text())
    timeline = record_timeline(record)
    deal = record["deals"][0]
    ends = [i for i, step in enumerate(timeline["deals"][0], start=1) if "won" in step]
    names = [seat["name"] for seat in record["seats"]]

    driver = offline_browser
    page_requests(driver)  # the blank first tab's, if any
    driver.get(page_file.as_uri())
    wait_for(driver, lambda d: d.find_element("id", "replay").get_attribute("data-ready"))

    # Cards: each seat's hand as dealt, drawn from images inside the page.
    assert step_label(driver).startswith("Deal 1 · event 1 of ")
    for seat in range(4):
        assert hand_of(driver, seat) == sorted(deal["actions"][0]["cards"][seat])
    sources = {
        str(image.get_attribute("src"))[:26]
        for image in driver.find_elements("css selector", ".board img")
    }
    assert sources == {"data:image/svg+xml;base64,"}

    # Stepping: buttons, then the keyboard (one step, one trick, the end of the deal).
    driver.find_element("css selector", "[data-step=forward]").click()
    wait_for(driver, lambda d: step_label(d).startswith("Deal 1 · event 2 "))
    played = deal["actions"][1]
    assert played["action"].split()[1] not in hand_of(driver, played["seat"])
    driver.find_element("css selector", "[data-step=trick-forward]").click()
    wait_for(driver, lambda d: step_label(d).startswith(f"Deal 1 · event {ends[0]} "))
    winner = timeline["deals"][0][ends[0] - 1]["won"]
    note = driver.find_element("css selector", ".trick-note").text
    assert note == f"Trick 1: {names[winner]} ({COMPASS[winner]}) wins"  # two seats share a name
    body = driver.find_element("tag name", "body")
    body.send_keys(Keys.SHIFT, Keys.ARROW_RIGHT)
    wait_for(driver, lambda d: step_label(d).startswith(f"Deal 1 · event {ends[1]} "))
    body.send_keys(Keys.ARROW_LEFT)
    wait_for(driver, lambda d: step_label(d).startswith(f"Deal 1 · event {ends[1] - 1} "))
    body.send_keys(Keys.PAGE_DOWN)
    wait_for(driver, lambda d: step_label(d).startswith("Deal 2 · event 1 "))

    # Scores: the deal over is in the table, with each seat's points for it.
    rows = driver.find_elements("css selector", "[data-role=scores] tbody tr")
    assert len(rows) == 1
    cells = [cell.text for cell in rows[0].find_elements("css selector", "th, td")]
    assert cells == ["1", *(str(points) for points in deal["scores"])]
    body.send_keys(Keys.END)
    last = len(record["deals"][1]["actions"])
    wait_for(driver, lambda d: step_label(d).startswith(f"Deal 2 · event {last} of {last}"))

    # Nothing left the file: no request but the page itself, no resource fetched.
    urls = [request.url for request in page_requests(driver)]
    assert urls, "the browser logged no request at all: the check would prove nothing"
    assert {url for url in urls if not url.startswith("data:")} == {page_file.as_uri()}
    resources = driver.execute_script(
        "return performance.getEntriesByType('resource').map((entry) => entry.name)"
        ".filter((name) => !name.startsWith('data:'))"
    )
    assert resources == []
