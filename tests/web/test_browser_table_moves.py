"""At the table in a real browser (uvicorn, a real worker, PostgreSQL, Redis): the cards the
other seats play are drawn from the socket's update itself, and the trick that ends a deal
is shown with its winner before the next deal.

A newcomer sits down with three demo bots ("Play now"). The page's view requests are held
back (a wrapper of ``fetch`` installed before the page's scripts); the person plays a card
and the bots' answer reaches the page: their cards are on the table although no view was
answered meanwhile. The views are let through again and the person plays the deal to its
end: the page showed the deal's last trick, its four cards with the winner marked and every
hand empty, before the next deal's cards.

A second newcomer's page merges each update and view into what it shows: the cards that
stay in the hand are the same elements after the bots played, and the table then shows
what a fresh page draws of the same position.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from tests.celery_workers import CeleryWorkerProcess
from tests.web import test_browser_league as league_in_a_browser
from tests.web.conftest import wait_for
from tests.web.test_browser_league import Site
from tests.web.test_browser_table_live import css, my_cards, my_turn, play_cards, table_attribute

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

PROBE = """
window.__views = { held: false, waiting: [], answered: 0, inflight: 0 };
const nativeFetch = window.fetch.bind(window);
window.fetch = (input, init) => {
  const url = typeof input === "string" ? input : input.url;
  if (!url.includes("/view/")) return nativeFetch(input, init);
  const go = () => {
    window.__views.inflight += 1;
    return nativeFetch(input, init).then((response) => {
      window.__views.answered += 1;
      return response;
    }).finally(() => { window.__views.inflight -= 1; });
  };
  if (!window.__views.held) return go();
  return new Promise((resolve, reject) => {
    window.__views.waiting.push(() => go().then(resolve, reject));
  });
};
window.__releaseViews = () => {
  window.__views.held = false;
  window.__views.waiting.splice(0).forEach((start) => start());
};
window.__lastTricks = [];
document.addEventListener("DOMContentLoaded", () => {
  const table = document.getElementById("table");
  if (!table) return;
  new MutationObserver(() => {
    const played = [...table.querySelectorAll(".centre .played")];
    const winner = table.querySelector(".centre .played.winner");
    const counts = [...table.querySelectorAll(".seat:not(.mine) .cards-left")]
      .map((badge) => badge.textContent.trim());
    const mine = table.querySelectorAll(".seat.mine button.card-button").length;
    if (played.length === 4 && winner && mine === 0 && counts.every((c) => c === "0 cards")) {
      window.__lastTricks.push({
        cards: played.map((p) => p.querySelector("[data-card]").dataset.card).sort(),
        winner: Number(winner.dataset.seat),
        note: table.querySelector(".centre .trick-note")?.textContent ?? "",
      });
    }
  }).observe(table, { childList: true, subtree: true });
});
"""
"""Run before the page's scripts: view requests can be held back (``__views.held``), and
every moment the table shows a deal's last trick (four cards, a winner, no card in any
hand) is written down."""


def others_played(driver: WebDriver) -> list[str]:
    return [
        str(card)
        for card in driver.execute_script(
            'return [...document.querySelectorAll(\'.centre .played:not([data-seat="0"]) '
            "[data-card]')].map((e) => e.dataset.card)"
        )
    ]


def test_the_bots_cards_come_on_the_socket_and_a_deals_last_trick_is_shown(
    site: Site, worker: CeleryWorkerProcess, browser: WebDriver
) -> None:
    driver = browser
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": PROBE})
    driver.get(f"{site.url}/")
    css(driver, ".play-now a.button").click()
    wait_for(driver, lambda d: d.find_elements("id", "id_password2"))
    css(driver, "#id_username").send_keys("newcomer")
    css(driver, "#id_password1").send_keys(PASSWORD)
    css(driver, "#id_password2").send_keys(PASSWORD)
    css(driver, "main form button[type=submit]").click()  # signed up and seated at once
    wait_for(driver, lambda d: table_attribute(d, "ready") == "true", timeout=20)
    assert "/seats/0/" in driver.current_url
    wait_for(driver, lambda d: css(d, "[data-role=connection]").text == "live", timeout=20)
    wait_for(driver, my_turn, timeout=60)

    # ------------------------------------------------------------ the views held back
    # Held only once no view is on its way: one sent before and answered after the card
    # could carry the bots' cards, and the check below would prove nothing.
    hold = "if (window.__views.inflight) return false; window.__views.held = true; return true"
    wait_for(driver, lambda d: d.execute_script(hold), timeout=30)
    answered: Any = driver.execute_script("return window.__views.answered")
    before = set(others_played(driver))
    play_cards(driver, 1)

    def a_bots_card(d: WebDriver) -> bool:
        """A bot's card on the table, drawn from the update. A card that ended a trick the
        person won is followed by none: they lead again, and then the bots follow."""
        if set(others_played(d)) - before:
            return True
        if my_turn(d):
            play_cards(d, 1)
        return False

    wait_for(driver, a_bots_card, timeout=60)
    assert driver.execute_script("return window.__views.answered") == answered
    assert table_attribute(driver, "yourTurn") == "false"  # nothing to play until the view
    driver.execute_script("window.__releaseViews()")

    # ------------------------------------------------------------ the deal to its end
    wait_for(driver, my_turn, timeout=60)
    play_cards(driver, len(my_cards(driver)))
    wait_for(driver, lambda d: len(my_cards(d)) == 13, timeout=60)  # the next deal
    last_tricks = driver.execute_script("return window.__lastTricks")
    assert last_tricks, "the deal's last trick was never on the table"
    shown = last_tricks[0]
    assert len(set(shown["cards"])) == 4
    assert shown["note"].endswith("won the trick")


SHOWN = """
const part = (role) => document.querySelector(`#table [data-role="${role}"]`).innerHTML;
return {
  position: document.getElementById("table").dataset.position,
  board: part("board"), choices: part("choices"), facts: part("facts"), scores: part("scores"),
};
"""
"""What the table shows: its position and the HTML of its parts drawn from the view."""


def test_an_update_redraws_only_what_changed_as_a_fresh_page_draws_it(
    site: Site, worker: CeleryWorkerProcess, browser: WebDriver
) -> None:
    """The table merges each answer and update into what it shows (morph): a card that
    stays in the hand is the same element after the bots' cards and the next view (not
    laid out again, its focus kept), and the table then shows exactly what a fresh page
    draws of the same position."""
    driver = browser
    driver.get(f"{site.url}/")
    css(driver, ".play-now a.button").click()
    wait_for(driver, lambda d: d.find_elements("id", "id_password2"))
    css(driver, "#id_username").send_keys("redrawn")
    css(driver, "#id_password1").send_keys(PASSWORD)
    css(driver, "#id_password2").send_keys(PASSWORD)
    css(driver, "main form button[type=submit]").click()
    wait_for(driver, lambda d: table_attribute(d, "ready") == "true", timeout=20)
    wait_for(driver, lambda d: css(d, "[data-role=connection]").text == "live", timeout=20)
    wait_for(driver, my_turn, timeout=60)

    # Each card of the hand marked (a property of its element, which a redraw would lose).
    driver.execute_script(
        "for (const b of document.querySelectorAll('.seat.mine button.card-button'))"
        " b.__before = true;"
    )
    before = my_cards(driver)
    play_cards(driver, 1)
    wait_for(driver, my_turn, timeout=60)  # the bots played, and the view said so
    kept = driver.execute_script(
        "return [...document.querySelectorAll('.seat.mine button.card-button')]"
        ".map((b) => [b.dataset.card, b.__before === true])"
    )
    assert len(kept) == len(before) - 1
    assert all(same for _card, same in kept), kept

    # Settled (the bots wait for this person): the same as a fresh page of this position.
    shown = driver.execute_script(SHOWN)
    driver.refresh()
    wait_for(driver, lambda d: table_attribute(d, "ready") == "true", timeout=20)
    wait_for(driver, my_turn, timeout=30)
    fresh = driver.execute_script(SHOWN)
    assert fresh["position"] == shown["position"]
    for part in ("board", "choices", "facts", "scores"):
        assert shown[part] == fresh[part], part
