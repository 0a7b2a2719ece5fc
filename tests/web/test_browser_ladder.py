"""In a real browser: a ladder that has played, as its authors and visitors see it.

Two people's uploaded bots and three built-in anchors play a Kingen ladder for real (the
league's matchmaker queues the tables, the league's match service plays them in this
process with the uploaded bots in the sandbox, the ratings queue rates them). Then:

- on a desktop, the leaderboard ranks every version with its rating, games and the
  confidence of each place, and a version's page draws its rating history with one point
  a rated game, beside its results against each opponent and its games, with a log link
  on each for its owner (screenshots for the README);
- on a phone (390 x 844), none of the ladder's pages (the ladders, the leaderboard, a
  version, a seat's log) is wider than the screen.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from django.contrib.auth.models import User

import pytest

from league.models import Competitor, LadderEntrant, Match, MatchSeat, MatchStatus, RatingChange
from league.services.ladders import ladder_anchor_add, ladder_matchmake, ladder_open
from league.services.matches import match_run
from league.services.ratings import ratings_update
from tests.bots.botcode import PLAYER
from tests.league.builders import active_uploaded_version
from tests.web import test_browser_phone as phone_pages
from tests.web.browser import chromium_start, screenshot
from tests.web.test_browser_phone import PHONE

if TYPE_CHECKING:
    from selenium.webdriver.chrome.webdriver import WebDriver

    from tests.uvicorn_servers import UvicornLiveServer

pytestmark = [pytest.mark.browser, pytest.mark.sandbox, pytest.mark.django_db(transaction=True)]

GAMES = 12
"""Rated games of the first person's version before the pages are opened."""

PLAYING_BOT = PLAYER + "\nplay()\n"
"""An uploaded bot that plays the first legal action (tests/bots/botcode.py)."""

phone = phone_pages.phone


@dataclass(frozen=True)
class PlayedLadder:
    slug: str
    owner: User
    version: Competitor
    """The owner's version, with ``GAMES`` rated games or more."""
    match: int
    seat: int
    """One of its matches and its seat there."""


@pytest.fixture
def played_ladder() -> PlayedLadder:
    ladder = ladder_open(game="kingen", anchors=("greedy", "random"))
    ladder_anchor_add(ladder=ladder, name="greedy", bot_name="greedy-2")
    ada = User.objects.create_user("ada")
    mine = active_uploaded_version(ada, "zotbot", PLAYING_BOT)
    active_uploaded_version(User.objects.create_user("bea"), "lowcard", PLAYING_BOT)
    rated = RatingChange.objects.filter(competitor=mine, tournament=ladder.tournament_id)
    for _ in range(4 * GAMES):  # a bound: each pass plays at least one table of ada's
        if rated.count() >= GAMES:
            break
        for match_id in ladder_matchmake(ladder_id=ladder.pk):
            assert match_run(match_id=match_id, worker="ladder-pages").outcome == "finished"
        while ratings_update():
            pass
    assert rated.count() >= GAMES
    assert LadderEntrant.objects.filter(ladder=ladder).count() == 5
    seat = MatchSeat.objects.filter(competitor=mine, match__status=MatchStatus.FINISHED).first()
    assert seat is not None
    return PlayedLadder(ladder.slug, ada, mine, seat.match_id, seat.seat)


@pytest.fixture
def desktop(tmp_path: Path) -> Iterator[WebDriver]:
    driver = chromium_start(tmp_path / "desktop-profile", width=1280, height=900)
    try:
        yield driver
    finally:
        driver.quit()


def board_rows(driver: WebDriver) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = driver.execute_script(
        "return [...document.querySelectorAll('#ladder-board tbody tr')].map((tr) => ({"
        "  competitor: Number(tr.dataset.competitor),"
        "  cells: [...tr.querySelectorAll('td, th')].map((c) => c.textContent.trim()),"
        "}))"
    )
    return rows


def test_the_leaderboard_and_a_versions_rating_history(
    desktop: WebDriver, live_server: UvicornLiveServer, played_ladder: PlayedLadder
) -> None:
    driver = desktop
    phone_pages._sign_in(driver, live_server, played_ladder.owner)

    driver.get(f"{live_server.url}/ladders/{played_ladder.slug}/")
    rows = board_rows(driver)
    assert len(rows) == 5
    assert [int(row["cells"][0]) for row in rows] == [1, 2, 3, 4, 5]
    names = [row["cells"][1] for row in rows]
    assert any("zotbot" in name for name in names)
    assert any("lowcard" in name for name in names)
    mine = next(row for row in rows if row["competitor"] == played_ladder.version.pk)
    assert int(mine["cells"][5]) >= GAMES  # games
    assert mine["cells"][2] == "ada"  # its owner
    # The confidence of each place but the last: a percentage.
    assert all(row["cells"][6].endswith("%") for row in rows[:-1])
    screenshot(driver, "ladder")

    link = f'#ladder-board tr[data-competitor="{mine["competitor"]}"] a'
    driver.find_element("css selector", link).click()
    # The rating's history: a point a game rated on the ladder (not the family's board).
    points = driver.find_elements("css selector", "main figure svg circle")
    rated = RatingChange.objects.filter(
        competitor=played_ladder.version, tournament__isnull=False
    ).count()
    assert rated >= GAMES
    assert len(points) == rated
    opponents = driver.find_elements("css selector", "#opponents tbody tr")
    assert len(opponents) >= 3
    games = driver.find_elements("css selector", "#games tbody tr")
    assert len(games) >= GAMES
    assert driver.find_elements("css selector", "#games a[href*='/logs/']")  # the owner's logs
    screenshot(driver, "ladder-version")


def test_no_ladder_page_is_wider_than_a_phone(
    phone: WebDriver, live_server: UvicornLiveServer, played_ladder: PlayedLadder
) -> None:
    phone_pages._sign_in(phone, live_server, played_ladder.owner)
    pages = {
        "ladders": "/ladders/",
        "ladder": f"/ladders/{played_ladder.slug}/",
        "version": f"/ladders/{played_ladder.slug}/versions/{played_ladder.version.pk}/",
        "log": f"/matches/{played_ladder.match}/logs/{played_ladder.seat}/",
    }
    wide = {}
    for name, path in pages.items():
        phone.get(f"{live_server.url}{path}")
        assert phone.find_element("tag name", "h1").text, name
        scroll_width, inner_width, out = phone_pages._overflow(phone)
        assert inner_width == PHONE[0]
        if scroll_width > inner_width:
            wide[name] = (scroll_width, out)
    assert not wide, f"pages wider than the phone: {wide}"
    assert Match.objects.filter(status=MatchStatus.FINISHED).exists()
