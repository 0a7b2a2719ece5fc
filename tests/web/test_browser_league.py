"""The whole product in a real browser, against the real processes.

Production's web server (uvicorn, config/web_server.py) serves the site (HTTP and
WebSockets) and a real Celery worker plays the matches and validates uploaded bots in the
sandbox, both on the test database and Redis: a person signs up, opens a club, creates a
league with bots, starts a round and watches the standings fill live, opens a replay and
steps through it, uploads a bot and sees it validated, and plays a whole Kingen deal at a
table with three bots (an illegal card gets the server's message).
"""

from __future__ import annotations

import os
import subprocess
import time
import urllib.request
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from django.db import connection

import pytest

from tests.celery_workers import (
    REPOSITORY_ROOT,
    WORKER_TEARDOWN_STOP_SECONDS,
    CeleryWorkerProcess,
    worker_start,
)
from tests.servers import closed_port, database_url_for
from tests.uvicorn_servers import web_server_command
from tests.web.browser import screenshot, screenshot_folder
from tests.web.conftest import click, wait_for

if TYPE_CHECKING:
    from selenium.webdriver.chrome.webdriver import WebDriver

pytestmark = [
    pytest.mark.browser,
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.worker,
    pytest.mark.sandbox,
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
]

PASSWORD = "a long pass phrase 42"
BOT_FILE = REPOSITORY_ROOT / "bots" / "examples" / "random_bot.py"
SITE_STOP_SECONDS = 3.0
"""How long the site may take to stop on SIGTERM before it is killed."""


class Site:
    """Production's web server (``python -m config.web_server``) on a free port of 127.0.0.1."""

    def __init__(self, process: subprocess.Popen[bytes], url: str, log_path: Path) -> None:
        self.process = process
        self.url = url
        self.log_path = log_path

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")[-4000:]


def wait_for_http(url: str, process: subprocess.Popen[bytes], seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the web server exited with {process.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"{url} did not answer within {seconds:g} s")


@pytest.fixture
def environment(subprocess_environment: dict[str, str], collected_static: Path) -> dict[str, str]:
    """The environment of the site and the worker: the test database, the static files."""
    return subprocess_environment | {
        "DATABASE_URL": database_url_for(connection.settings_dict),
        "STATIC_ROOT": str(collected_static),
        "DEBUG": "false",
    }


@pytest.fixture
def site(environment: Mapping[str, str], tmp_path: Path) -> Iterator[Site]:
    port = closed_port()
    log_path = tmp_path / "web-server.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            web_server_command(port),
            cwd=REPOSITORY_ROOT,
            env=dict(environment),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_for_http(f"{url}/accounts/login/", process)
        yield Site(process, url, log_path)
    finally:
        # Its test is over: production's graceful stop would wait up to 20 s for the
        # connections the browsers left open; a short wait, then SIGKILL.
        process.terminate()
        try:
            process.wait(timeout=SITE_STOP_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=20)


@pytest.fixture
def worker(environment: Mapping[str, str], tmp_path: Path) -> Iterator[CeleryWorkerProcess]:
    """A real worker on every queue: matches, validations and the serial ratings queue."""
    process = worker_start(
        environment=environment,
        log_path=tmp_path / "worker.log",
        queues="interactive,default,matches,ratings,analysis",
    )
    try:
        yield process
    finally:
        process.stop(timeout=WORKER_TEARDOWN_STOP_SECONDS)


def css(driver: WebDriver, selector: str) -> Any:
    return driver.find_element("css selector", selector)


def button(driver: WebDriver, text: str) -> Any:
    return driver.find_element("xpath", f"//button[normalize-space()='{text}']")


def submit(driver: WebDriver) -> None:
    css(driver, "main form button[type=submit]").click()


def fill(driver: WebDriver, field_id: str, value: str) -> None:
    field = driver.find_element("id", field_id)
    field.clear()
    field.send_keys(value)


def choose(driver: WebDriver, field_id: str, value: str) -> None:
    from selenium.webdriver.support.ui import Select

    Select(driver.find_element("id", field_id)).select_by_value(value)


def message(driver: WebDriver) -> str:
    """The page's messages (read in one go: the page may be loading the next one)."""
    return str(driver.execute_script("return document.querySelector('.messages')?.innerText ?? ''"))


def standings_column(number: int) -> Callable[[WebDriver], list[str]]:
    """The texts of a column of the standings (read again if htmx swaps it meanwhile)."""

    def read(driver: WebDriver) -> list[str]:
        cells = driver.find_elements("css selector", f"#standings tbody tr > :nth-child({number})")
        return [str(cell.text) for cell in cells]

    return read


def ratings_games(driver: WebDriver) -> list[str]:
    """The Games column of the league's ratings (Rank, Competitor, Rating, Games)."""
    cells = driver.find_elements("css selector", "#ratings tbody tr > :nth-child(4)")
    return [str(cell.text) for cell in cells]


def message_says(text: str) -> Callable[[WebDriver], bool]:
    return lambda driver: text in message(driver)


def my_cards(driver: WebDriver) -> list[str]:
    """The cards in the person's hand, read in one go (the table may redraw meanwhile)."""
    cards = driver.execute_script(
        "return [...document.querySelectorAll('button.card-button')].map(b => b.dataset.card)"
    )
    return sorted(str(card) for card in cards)


def server_hand(driver: WebDriver) -> list[str]:
    """The hand the server has for the page's seat (the table's own view URL, fetched with
    the page's session)."""
    view = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "fetch(document.querySelector('#table').dataset.viewUrl, {credentials: 'same-origin'})"
        ".then(r => r.json()).then(d => done(d.view ? d.view.hand : null), () => done(null));"
    )
    return sorted(str(card) for card in view or [])


def card_count_is_not(count: int) -> Callable[[WebDriver], bool]:
    """The hand changed size (a card was played), or the next deal began."""

    def check(driver: WebDriver) -> bool:
        facts = str(css(driver, "[data-role=facts]").text)
        return len(my_cards(driver)) != count or "Deal\n2 of 10" in facts

    return check


def full_page_screenshot(driver: WebDriver, name: str, width: int = 1280) -> None:
    height = int(driver.execute_script("return document.body.scrollHeight"))
    driver.set_window_size(width, min(max(height + 40, 900), 3200))
    screenshot(driver, name)
    driver.set_window_size(width, 900)


def test_a_person_runs_a_league_watches_it_uploads_a_bot_and_plays_a_deal(
    site: Site, worker: CeleryWorkerProcess, browser: WebDriver
) -> None:
    driver = browser

    def go(path: str) -> None:
        driver.get(f"{site.url}{path}")

    # ------------------------------------------------------------ sign up, open a club
    go("/accounts/signup/")
    fill(driver, "id_username", "olga")
    fill(driver, "id_password1", PASSWORD)
    fill(driver, "id_password2", PASSWORD)
    submit(driver)
    wait_for(
        driver, lambda d: "Signed in as" in d.find_element("css selector", ".account-nav").text
    )
    go("/clubs/")
    fill(driver, "id_name", "Tuesday Club")
    submit(driver)
    wait_for(driver, lambda d: d.find_elements("link text", "Create a league"))
    assert "you are its owner" in message(driver)
    button(driver, "Create an invitation").click()
    wait_for(driver, lambda d: "Invitation (role: Player)" in message(d))
    full_page_screenshot(driver, "club")

    # ------------------------------------------------------------ a league of bots
    driver.find_element("link text", "Create a league").click()
    fill(driver, "id_name", "Kingen league")
    choose(driver, "id_game", "kingen")
    fill(driver, "id_rounds", "2")
    submit(driver)
    wait_for(driver, lambda d: "enter its competitors" in message(d))
    for bot in ("greedy", "random"):
        choose(driver, "id_bot", bot)
        fill(driver, "id_count", "4")
        button(driver, "Enter built-in bots").click()
        entered = f"Entered: {bot} 1, {bot} 2, {bot} 3, {bot} 4."
        wait_for(driver, message_says(entered))
    assert len(driver.find_elements("css selector", "#standings tbody tr")) == 8
    league_url = driver.current_url

    # Start a round; the standings fill as the worker plays, without reloading the page.
    button(driver, "Start the next round").click()
    wait_for(driver, lambda d: "Round started" in message(d))
    live = css(driver, "#live")
    wait_for(driver, lambda d: live.get_attribute("data-live") == "live", timeout=20)
    wait_for(
        driver,
        lambda d: (
            css(d, "#live progress").get_attribute("value")
            == css(d, "#live progress").get_attribute("max")
            and css(d, "#live progress").get_attribute("value") != "0"
        ),
        timeout=120,
    )
    wait_for(driver, lambda d: "Games" in css(d, "#standings thead").text, timeout=20)
    # Every entrant has played its game once the standings fragment has caught up.
    wait_for(driver, lambda d: standings_column(3)(d) == ["1"] * 8, timeout=60)
    # The ratings queue rates the results: the ratings table and the chart fill.
    wait_for(driver, lambda d: len(d.find_elements("css selector", "#ratings tbody tr")) == 8, 40)
    assert driver.find_elements("css selector", ".chart circle")
    # The standings sort by a column on request.
    sort_by_total = "//table[@id='standings']//th[@data-key='total']/button"
    wait_for(driver, lambda d: click(d.find_element("xpath", sort_by_total)))
    totals = [int(text) for text in wait_for(driver, standings_column(4))]
    assert totals == sorted(totals, reverse=True)
    # The second round: standings and ratings move again.
    wait_for(driver, lambda d: click(button(d, "Start the next round")))
    wait_for(driver, lambda d: "Round started" in message(d))
    wait_for(driver, lambda d: standings_column(3)(d) == ["2"] * 8, timeout=120)
    wait_for(driver, lambda d: ratings_games(d) == ["2"] * 8, timeout=40)
    assert driver.find_elements("css selector", ".chart polyline")
    full_page_screenshot(driver, "league")

    # ------------------------------------------------------------ a replay of the round
    driver.find_element("link text", "Round 1").click()
    wait_for(driver, lambda d: d.find_elements("link text", "Replay"))
    screenshot(driver, "round")
    driver.find_elements("link text", "Replay")[0].click()
    wait_for(driver, lambda d: css(d, "#replay").get_attribute("data-ready"))
    assert css(driver, "[data-role=step-label]").text.startswith("Deal 1 · event 1 of ")
    css(driver, "[data-step=forward]").click()
    css(driver, "[data-step=trick-forward]").click()
    wait_for(driver, lambda d: d.find_elements("css selector", ".trick-note"))
    assert css(driver, ".trick-note").text.startswith("Trick 1: ")
    css(driver, "[data-step=trick-back]").click()
    wait_for(driver, lambda d: "#deal=1&event=1" in d.current_url)
    css(driver, "[data-step=deal-forward]").click()
    wait_for(driver, lambda d: "#deal=2&event=1" in d.current_url)
    for _ in range(3):
        css(driver, "[data-step=trick-forward]").click()
    step_url = driver.current_url
    step = css(driver, "[data-role=step-label]").text
    driver.get("about:blank")
    driver.get(step_url)
    wait_for(driver, lambda d: css(d, "#replay").get_attribute("data-ready"))
    assert css(driver, "[data-role=step-label]").text == step
    screenshot(driver, "match-replay")

    # ------------------------------------------------------------ upload a bot
    go("/bots/")
    fill(driver, "id_name", "Randy")
    css(driver, "input[name=families][value=kingen]").click()
    submit(driver)
    wait_for(driver, lambda d: "upload its first version" in message(d))
    driver.find_element("id", "id_file").send_keys(str(BOT_FILE))
    button(driver, "Upload").click()
    wait_for(driver, lambda d: "Version 1 is uploaded" in message(d))
    version = "#versions tr[data-version='1']"
    wait_for(
        driver, lambda d: css(d, version).get_attribute("data-status") != "pending", timeout=120
    )
    assert css(driver, version).get_attribute("data-status") == "active", worker.log()[-3000:]
    sha = css(driver, f"{version} code.hash").text
    assert len(sha) == 64
    full_page_screenshot(driver, "bot")

    # The validated version can enter the league.
    driver.get(league_url)
    choose(driver, "id_competitor", f"version:{_version_id(sha)}")
    button(driver, "Enter").click()
    wait_for(driver, lambda d: "Entered: Randy." in message(d))

    # ------------------------------------------------------------ a Kingen deal at a table
    go("/play/")
    choose(driver, "id_quick-game", "kingen")  # the one-step form: me and three bots
    choose(driver, "id_quick-opponents", "greedy")
    button(driver, "Play now").click()
    wait_for(driver, lambda d: css(d, "#table").get_attribute("data-ready"))
    table = css(driver, "#table")
    plays = 0  # cards played in the first deal
    refused = False
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        second_deal = "Deal\n2 of 10" in css(driver, "[data-role=facts]").text
        if second_deal and refused:
            break
        if table.get_attribute("data-your-turn") != "true":
            time.sleep(0.1)
            continue
        legal = driver.find_elements("css selector", "button.card-button.legal")
        other = driver.find_elements("css selector", "button.card-button:not(.legal)")
        if not legal:
            time.sleep(0.1)
            continue
        if other and not refused:
            # A card the rules forbid: the server says which rule.
            if not click(other[0]):
                continue
            wait_for(driver, lambda d: css(d, "[data-role=error]").is_displayed())
            assert "must" in css(driver, "[data-role=error]").text.lower()
            refused = True
            continue
        if plays == 5 and not second_deal:
            # On the person's move (not while a move is on its way): the move's clock.
            wait_for(
                driver,
                lambda d: css(d, "[data-role=deadline]").text.startswith("Time for this move"),
            )
            screenshot(driver, "table")
        before = len(my_cards(driver))
        # The lowest legal card: it loses tricks, so turns to follow suit come often.
        if not click(legal[-1]):
            continue
        # The first deal's cards: its 13 played, the next hand may be drawn a moment before
        # the facts say "Deal 2" (after the last trick's pause).
        if not second_deal and plays < 13:
            plays += 1
        wait_for(driver, card_count_is_not(before))
    else:
        pytest.fail(f"not within 4 minutes: {plays} cards of the first deal, refused={refused}")
    assert plays == 13
    # The scores of the first deal are on the table's score sheet.
    assert len(driver.find_elements("css selector", "[data-role=scores] tbody tr")) == 1
    # A reload resumes the game from the server: the page, once it has drawn what it was
    # sent (a move's answer, a socket update), shows the server's hand, and so does the page
    # reloaded.
    wait_for(driver, lambda d: my_cards(d) == server_hand(d))
    hand = my_cards(driver)
    driver.refresh()
    wait_for(driver, lambda d: css(d, "#table").get_attribute("data-ready"))
    assert my_cards(driver) == hand
    assert os.path.getsize(screenshot_folder() / "table.png") > 0


def _version_id(sha: str) -> int:
    from bots.models import BotVersion

    return int(BotVersion.objects.get(sha256=sha).pk)
