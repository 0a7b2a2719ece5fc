"""In a real browser: the replay viewer steps through records of every family.

The records are the sample games (web.samples): each family played by greedy players
from a seed; the expectations come from the same record and the engine's timeline.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

import pytest

from engine import load_game
from engine.timeline import record_timeline
from tests.web.browser import screenshot
from tests.web.conftest import wait_for
from web.samples import SAMPLE_GAMES, sample_record

if TYPE_CHECKING:
    from selenium.webdriver.chrome.webdriver import WebDriver

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def replay_path(game: str, seed: int, events: int | None = None) -> str:
    query: dict[str, Any] = {"game": game, "seed": seed}
    if events is not None:
        query["events"] = events
    return f"/samples/replay/?{urlencode(query)}"


def ready(driver: WebDriver) -> WebDriver:
    wait_for(driver, lambda d: d.find_element("id", "replay").get_attribute("data-ready"))
    return driver


def step_label(driver: WebDriver) -> str:
    return str(driver.find_element("css selector", "[data-role=step-label]").text)


def click(driver: WebDriver, step: str) -> None:
    driver.find_element("css selector", f"[data-step={step}]").click()


def hand_of(driver: WebDriver, seat: int) -> list[str]:
    cards = driver.find_elements(
        "css selector", f".seat[data-seat='{seat}'] .hand [data-card]:not([data-card=''])"
    )
    return sorted(str(card.get_attribute("data-card")) for card in cards)


def at_step(label: str) -> Callable[[WebDriver], bool]:
    """A wait condition: the step label starts with ``label``."""
    return lambda driver: step_label(driver).startswith(label)


def trick_ends(game: str, seed: int, deal: int) -> list[int]:
    """1-based event numbers of deal ``deal`` after which a trick is complete."""
    steps = record_timeline(sample_record(game, seed))["deals"][deal - 1]
    return [index for index, step in enumerate(steps, start=1) if "won" in step]


def test_steps_forward_back_and_by_trick_and_the_step_url_reloads(
    samples_on: None, open_page: Callable[[str], WebDriver]
) -> None:
    game, seed = "kingen", 3
    record = sample_record(game, seed)
    deal = record["deals"][0]
    dealt = deal["actions"][0]["cards"]
    ends = trick_ends(game, seed, 1)
    timeline = record_timeline(record)["deals"][0]
    names = [seat["name"] for seat in record["seats"]]

    driver = ready(open_page(replay_path(game, seed)))
    assert step_label(driver).startswith("Deal 1 · event 1 of ")
    assert driver.current_url.endswith("#deal=1&event=1")
    for seat in range(4):
        assert hand_of(driver, seat) == sorted(dealt[seat])

    # Card by card: each play takes the card from its player's hand.
    for count in (2, 3, 4):
        click(driver, "forward")
        wait_for(driver, at_step(f"Deal 1 · event {count} "))
        event = deal["actions"][count - 1]
        card = event["action"].split()[1]
        assert card not in hand_of(driver, event["seat"])
    click(driver, "back")
    wait_for(driver, lambda d: step_label(d).startswith("Deal 1 · event 3 "))
    third = deal["actions"][3]
    assert third["action"].split()[1] in hand_of(driver, third["seat"])

    # Trick by trick: to the end of the first trick, its winner named, then the second.
    click(driver, "trick-forward")
    wait_for(driver, lambda d: step_label(d).startswith(f"Deal 1 · event {ends[0]} "))
    winner = names[timeline[ends[0] - 1]["won"]]
    assert driver.find_element("css selector", ".trick-note").text == f"Trick 1: {winner} wins"
    assert len(driver.find_elements("css selector", ".centre .played")) == 4
    click(driver, "trick-forward")
    wait_for(driver, lambda d: step_label(d).startswith(f"Deal 1 · event {ends[1]} "))
    click(driver, "trick-back")
    wait_for(driver, lambda d: step_label(d).startswith(f"Deal 1 · event {ends[0]} "))

    # The keyboard: the right arrow is one step, shift+right one trick.
    from selenium.webdriver.common.keys import Keys

    body = driver.find_element("tag name", "body")
    body.send_keys(Keys.ARROW_RIGHT)
    wait_for(driver, lambda d: step_label(d).startswith(f"Deal 1 · event {ends[0] + 1} "))
    body.send_keys(Keys.SHIFT, Keys.ARROW_RIGHT)
    wait_for(driver, lambda d: step_label(d).startswith(f"Deal 1 · event {ends[1]} "))

    # Another deal, then the step's URL loaded afresh shows the same step.
    click(driver, "deal-forward")
    click(driver, "deal-forward")
    wait_for(driver, lambda d: step_label(d).startswith("Deal 3 · event 1 "))
    for _ in range(2):
        click(driver, "trick-forward")
    ends3 = trick_ends(game, seed, 3)
    wait_for(driver, lambda d: step_label(d).startswith(f"Deal 3 · event {ends3[1]} "))
    url = driver.current_url
    assert url.endswith(f"#deal=3&event={ends3[1]}")
    hands_before = [hand_of(driver, seat) for seat in range(4)]
    # The scores table lists the two deals already over.
    assert len(driver.find_elements("css selector", "[data-role=scores] tbody tr")) == 2
    screenshot(driver, "replay")

    driver.get("about:blank")
    driver.get(url)
    ready(driver)
    assert step_label(driver).startswith(f"Deal 3 · event {ends3[1]} ")
    assert [hand_of(driver, seat) for seat in range(4)] == hands_before

    # The record link is the JSON record itself.
    link = driver.find_element("css selector", "[data-role=record-link]").get_attribute("href")
    assert link is not None
    assert "/samples/record.json?" in link


@pytest.mark.parametrize("game", SAMPLE_GAMES)
def test_every_family_replays_to_its_last_step(
    game: str, samples_on: None, open_page: Callable[[str], WebDriver]
) -> None:
    record = sample_record(game, 2)
    last = len(record["deals"])
    events = len(record["deals"][-1]["actions"])
    driver = ready(open_page(replay_path(game, 2)))
    # The facts name the game as people do, and cards drawn before the deals in short.
    facts = str(driver.find_element("css selector", "[data-role=facts]").text)
    assert f"Game\n{load_game(game).display_name}\n" in facts
    drawn = re.search(r"drawn: (.*)", facts)
    if drawn:
        assert not re.search(r"\b[2-9TJQKA][SHDC]\b", drawn.group(1)), drawn.group(1)
    click(driver, "trick-forward")
    note = driver.find_element("css selector", ".trick-note").text
    assert note.startswith("Trick 1: ")
    assert note.endswith(" wins")
    driver.get(f"{driver.current_url.split('#')[0]}#deal={record['deals'][-1]['deal']}&event=1")
    driver.refresh()
    ready(driver)
    click(driver, "deal-end")
    final_step = f"Deal {last} · event {events} of {events}"
    wait_for(driver, lambda d: step_label(d).startswith(final_step))
    assert driver.find_element("css selector", "[data-step=forward]").get_attribute("disabled")
    totals = driver.find_elements("css selector", "[data-role=scores] tfoot td")
    assert [int(t.text) for t in totals] == record["scores"]


def test_a_running_match_shows_only_public_information(
    samples_on: None, open_page: Callable[[str], WebDriver]
) -> None:
    driver = ready(open_page(replay_path("kingen", 3, events=120)))
    status = driver.find_element("css selector", "[data-role=status]").text
    assert "running" in status
    # A running match opens at its latest step.
    assert step_label(driver).startswith("Deal 3 · event 14 of 14")
    # No seat's hand is shown; the cards on the table were played in public.
    for seat in range(4):
        assert hand_of(driver, seat) == []
        assert "hidden" in driver.find_element("css selector", f".seat[data-seat='{seat}']").text
    assert driver.find_elements("css selector", ".centre .played")
    screenshot(driver, "replay-running")
