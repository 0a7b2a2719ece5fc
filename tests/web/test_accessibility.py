"""axe-core on every page in every language (issue 21): no serious or critical violation.

axe-core is injected from the local copy scripts/test installs (tests/web/browser.py); the
pages are those of a signed-in person with a club and a league, the table and the replay
viewer once their scripts have drawn them, with the two-colour and the four-colour deck;
the table is the sample one and a real table of people in play, a deal played, so that its
scores table has rows (issue 32: its scroll region had no keyboard access)."""

from __future__ import annotations

import functools
import os
from typing import TYPE_CHECKING

from django.contrib.auth.models import User
from django.test import Client

import pytest

from league.models import Club, MatchStatus, PersonDisplaySettings, SeatInvitation
from league.selectors.replays import match_replay
from league.services.matches import match_run
from league.services.tables import seat_invitation_accept, table_open
from tests.league.builders import bot_tournament, user_create
from tests.web.browser import axe_on_every_page, axe_unavailable_reason, axe_violations
from tests.web.club_night_pages import club_night_pages
from tests.web.conftest import wait_for
from tests.web.ladder_builders import small_ladder
from tests.web.test_consumers_moves import person_moves

if TYPE_CHECKING:
    from selenium.webdriver.chrome.webdriver import WebDriver

    from tests.uvicorn_servers import UvicornLiveServer

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LANGUAGES = ("en", "nl", "sv")
DRAWN_BY_SCRIPTS = {  # pages whose content a script draws: wait until it says it is ready
    "/samples/replay/?game=kingen&seed=3": "replay",
    "/samples/table/?game=kingen&seed=3&new=1": "table",
}


@pytest.fixture
def axe_available(browser: WebDriver) -> None:
    """axe-core is installed, and ``browser`` loads it into every page it opens."""
    reason = axe_unavailable_reason()
    if reason is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    axe_on_every_page(browser)


def drawn(driver: WebDriver, element: str) -> bool:
    return bool(driver.find_element("id", element).get_attribute("data-ready"))


PHONE_METRICS = {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": False}

KINGEN_DEAL = 52
"""Kingen's first deal, every card a move: after it the scores table has a row."""


def table_in_play(host: User) -> str:
    """A Kingen table of ``host`` and three people who accepted, its first deal played and
    the second dealt: the address of the host's seat."""
    # Long names: on a phone the scores table is wider than the screen and scrolls.
    names = ("tove.lindqvistholmbergsson", "ulf.lindqvistholmbergsson", "vera.lindqvistholmberg")
    guests = [user_create(name) for name in names]
    match = table_open(
        actor=host,
        game="kingen",
        seats=["me", *[f"invite:{guest.get_username()}" for guest in guests]],
        move_seconds=3600,
    )
    for guest in guests:
        code = SeatInvitation.objects.get(match=match, invitee=guest).code
        seat_invitation_accept(user=guest, code=code)
    match_run(match_id=match.pk, worker="test")  # deals and hands over to the first person
    person_moves(match.pk, KINGEN_DEAL)
    match.refresh_from_db()
    assert match.status == MatchStatus.RUNNING
    assert match_replay(match).state.deal_scores  # the scores table has a row to show
    return f"/matches/{match.pk}/seats/0/"


def scores_shown(driver: WebDriver) -> bool:
    return bool(driver.find_elements("css selector", "[data-role=scores] tbody tr"))


def pages(league: int, club: int, username: str) -> list[str]:
    return [
        "/",
        "/leagues/",
        f"/leagues/{league}/",
        "/clubs/",
        f"/clubs/{club}/",
        f"/clubs/{club}/leagues/new/",
        "/bots/",
        "/lobby/",
        "/play/",
        "/play-now/",
        "/rules/",
        "/rules/kingen/",
        "/rules/priffe/",
        "/ratings/",
        "/games/",
        "/notifications/",
        "/settings/notifications/",
        "/settings/display/",
        "/invitations/",
        "/join/",
        f"/people/{username}/",
        "/samples/",
        *DRAWN_BY_SCRIPTS,
        "/no/such/page/",
    ]


def test_every_page_in_every_language_has_no_serious_violation(
    axe_available: None,
    samples_on: None,
    browser: WebDriver,
    live_server: UvicornLiveServer,
) -> None:
    tournament, person = bot_tournament(entrants=4)
    assert tournament.club is not None
    Club.objects.filter(pk=tournament.club.pk).update(name="Kaartclub De Zot")
    ladder = small_ladder(person)  # their version suspended, its log, their challenge
    table = table_in_play(person)
    client = Client()
    client.force_login(person)
    browser.get(f"{live_server.url}/no/such/page/")
    browser.add_cookie({"name": "sessionid", "value": client.cookies["sessionid"].value})
    found: dict[str, list[str]] = {}
    for language in LANGUAGES:
        # The person's own language (their settings), four-colour large cards in one of them.
        PersonDisplaySettings.objects.update_or_create(
            user=person,
            defaults={
                "language": language,
                "four_colour_deck": language == "nl",
                "large_cards": language == "sv",
            },
        )
        browser.delete_cookie("sessionid")
        client = Client()
        client.force_login(person)
        browser.add_cookie({"name": "sessionid", "value": client.cookies["sessionid"].value})
        for path in [
            *pages(tournament.pk, tournament.club.pk, person.get_username()),
            *ladder.pages(),
            table,
        ]:
            browser.get(f"{live_server.url}{path}")
            assert browser.find_element("tag name", "html").get_attribute("lang") == language
            if path in DRAWN_BY_SCRIPTS:
                wait_for(browser, functools.partial(drawn, element=DRAWN_BY_SCRIPTS[path]))
            if path == table:
                wait_for(browser, functools.partial(drawn, element="table"))
                wait_for(browser, scores_shown)
            violations = axe_violations(browser)
            if violations:
                found[f"{language} {path}"] = violations
        # The table in play on a phone, where its scores table scrolls sideways.
        browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", PHONE_METRICS)
        try:
            browser.get(f"{live_server.url}{table}")
            wait_for(browser, functools.partial(drawn, element="table"))
            wait_for(browser, scores_shown)
            violations = axe_violations(browser)
            if violations:
                found[f"{language} {table} on a phone"] = violations
        finally:
            browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    assert not found, "\n".join(f"{page}:\n  " + "\n  ".join(v) for page, v in found.items())


def test_the_club_night_pages_in_every_language_have_no_serious_violation(
    axe_available: None, browser: WebDriver, live_server: UvicornLiveServer
) -> None:
    """The table cards, the table's score entry (entered; a Priffe sheet, open), the code
    page, the projector, a club league, its round and a confirmed, corrected match, as
    their organiser sees them."""
    organiser, paths = club_night_pages()
    browser.get(f"{live_server.url}/no/such/page/")
    found: dict[str, list[str]] = {}
    for language in LANGUAGES:
        PersonDisplaySettings.objects.update_or_create(
            user=organiser, defaults={"language": language}
        )
        browser.delete_cookie("sessionid")
        client = Client()
        client.force_login(organiser)
        browser.add_cookie({"name": "sessionid", "value": client.cookies["sessionid"].value})
        for path in paths:
            browser.get(f"{live_server.url}{path}")
            assert browser.find_element("tag name", "html").get_attribute("lang") == language
            violations = axe_violations(browser)
            if violations:
                found[f"{language} {path}"] = violations
    assert not found, "\n".join(f"{page}:\n  " + "\n  ".join(v) for page, v in found.items())


def test_the_checker_finds_a_violation(
    axe_available: None, browser: WebDriver, live_server: UvicornLiveServer, samples_on: None
) -> None:
    """Not a test that passes whatever the page: an image without a text alternative and
    light grey on white are found."""
    browser.get(f"{live_server.url}/")
    # Styled through the CSSOM: the pages' Content-Security-Policy refuses style attributes.
    browser.execute_script(
        "const main = document.querySelector('main');"
        "const faint = document.createElement('p');"
        "faint.textContent = 'hard to read';"
        "faint.style.color = '#c8c8c8'; faint.style.background = '#fff';"
        "const image = document.createElement('img'); image.src = '/static/web/none.png';"
        "main.append(faint, image);"
    )
    violations = " ".join(axe_violations(browser))
    assert "image-alt" in violations
    assert "color-contrast" in violations
