"""In a real browser: a finished match's analysis in the replay viewer (the played and the
best card at a step, the deal's marked cards as buttons to their steps, the chart with its
figures in words), reached with the keyboard."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest

from league.models import MatchAnalysis, MatchStatus
from league.services.analysis import analysis_queue, match_analyse
from league.services.matches import match_run
from league.services.tournaments import tournament_create, tournament_round_start
from tests.league.builders import builtin_competitors, club_with_organiser
from tests.web.browser import screenshot
from tests.web.conftest import wait_for

if TYPE_CHECKING:
    from selenium.webdriver.chrome.webdriver import WebDriver

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def analysed_match(settings: Any) -> MatchAnalysis:
    settings.ANALYSIS_NODE_LIMIT = 50_000
    settings.ANALYSIS_SAMPLES = 2
    club, organiser = club_with_organiser()
    tournament = tournament_create(
        actor=organiser,
        club=club,
        name="Analysed",
        game="kung_och_adel",
        deals=1,
        entrants=builtin_competitors(4, "greedy"),
    )
    match = tournament_round_start(actor=organiser, tournament=tournament).matches.get()
    match_run(match_id=match.pk)
    match.refresh_from_db()
    assert match.status == MatchStatus.FINISHED
    analysis_queue(match=match)
    match_analyse(match_id=match.pk)
    return MatchAnalysis.objects.get(match=match)


def test_the_replay_shows_each_cards_cost_and_the_best_card_beside_it(
    settings: Any, open_page: Callable[[str], WebDriver]
) -> None:
    analysis = analysed_match(settings)
    chosen = [c for c in analysis.cards if c["analysed"] and not c["forced"]]
    # One with more best cards than are named, where the deal has one.
    card = next((c for c in chosen if len(c["best"]) > 3), chosen[0])
    driver = open_page(f"/matches/{analysis.match_id}/#deal={card['deal']}&event={card['event']}")
    wait_for(driver, lambda d: d.find_element("id", "replay").get_attribute("data-ready"))
    box = driver.find_element("css selector", "[data-role=analysis-card]")
    wait_for(driver, lambda d: "Best with all hands known" in box.text)
    assert box.get_attribute("aria-live") == "polite"
    played = box.find_element("css selector", ".analysis-played [data-card]")
    best = box.find_element("css selector", ".analysis-best [data-card]")
    assert played.get_attribute("data-card") == card["card"]
    # The played card stands for the best when it is one of them (no rival of equal worth).
    shown_best = card["card"] if card["card"] in card["best"] else card["best"][0]
    assert best.get_attribute("data-card") == shown_best
    if len(card["best"]) > 3:  # three named, the rest counted
        more = len(card["best"]) - 3
        assert f" and {more} more card" in box.text
    assert f"points lost: {card['cost']}" in box.text
    chart = driver.find_element("css selector", "[data-role=analysis-chart] [role=img]")
    assert str(chart.get_attribute("aria-label")).startswith(
        f"Points lost per trick in deal {card['deal']}"
    )
    marks = driver.find_elements("css selector", "[data-role=analysis-marks] li")
    marked = [c for c in analysis.cards if c["deal"] == card["deal"] and c["mark"]]
    assert len(marks) == len(marked)
    none = driver.find_element("css selector", "[data-role=analysis-marks-none]")
    assert none.is_displayed() == (not marked)
    if marked:
        # A marked card is a button to its step, pressed with the keyboard.
        from selenium.webdriver.common.keys import Keys

        button = driver.find_element("css selector", "[data-role=analysis-marks] li button")
        button.send_keys(Keys.ENTER)
        wait_for(driver, lambda d: d.current_url.endswith(f"event={marked[0]['event']}"))
        assert marked[0]["card"] in str(
            driver.find_element("css selector", ".analysis-played [data-card]").get_attribute(
                "data-card"
            )
        )
    driver.execute_script(  # the card's verdict, the deal's marks and its chart in view
        "document.querySelector('[data-role=analysis-card]').scrollIntoView({block: 'center'})"
    )
    screenshot(driver, "replay-analysis")  # (a marked card's, when the deal has one)
    # Stepping with the keyboard to a step that plays no card says how to see a cost.
    driver.find_element("tag name", "body").send_keys("\ue011")  # Home: the deal's start
    wait_for(driver, lambda d: "Step to a card played" in box.text)
