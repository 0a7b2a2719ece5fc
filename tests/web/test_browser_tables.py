"""In real browsers the size of a phone: the new-table form shows the seats of the chosen
game and the inputs of the chosen time control; the host opens a table with an open seat
and sees its link, and keeps a seat for a second person, who finds the table once in the
lobby (issue 32: it was listed three times: kept for you, yours, open) and takes the seat; a
third person takes the open seat; the table starts and takes both browsers to their seats.
No page is wider than the phone's screen, nor is its header more than 15 % of its height."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from django.contrib.auth.models import User
from django.test import Client

import pytest

from league.models import Match, MatchStatus, SeatInvitation
from tests.web.browser import chromium_start, screenshot
from tests.web.conftest import wait_for

if TYPE_CHECKING:
    from selenium.webdriver.chrome.webdriver import WebDriver

    from tests.uvicorn_servers import UvicornLiveServer

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "a long pass phrase 42"


@pytest.fixture
def phones(tmp_path: Path) -> Iterator[list[WebDriver]]:
    drivers = [chromium_start(tmp_path / f"profile-{n}", width=390, height=844) for n in range(2)]
    try:
        yield drivers
        for driver in drivers:
            log = driver.get_log("browser")  # type: ignore[no-untyped-call]
            errors = [
                e for e in log if e.get("level") == "SEVERE" and e.get("source") == "javascript"
            ]
            assert not errors, f"JavaScript errors: {errors}"
    finally:
        for driver in drivers:
            driver.quit()


def log_in(driver: WebDriver, url: str, username: str) -> None:
    from selenium.webdriver.common.by import By

    driver.get(f"{url}/accounts/login/")
    driver.find_element(By.ID, "id_username").send_keys(username)
    driver.find_element(By.ID, "id_password").send_keys(PASSWORD)
    driver.find_element(By.CSS_SELECTOR, "main button[type=submit]").click()
    wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, ".account-nav strong"))


def visible_seat_rows(driver: WebDriver) -> int:
    return int(
        driver.execute_script(
            "return [...document.querySelectorAll('.seat-row')].filter(r => !r.hidden).length"
        )
    )


def fits_the_screen(driver: WebDriver) -> bool:
    return bool(
        driver.execute_script("return document.documentElement.scrollWidth <= window.innerWidth")
    )


def header_share(driver: WebDriver) -> float:
    """The share of the screen's height the site's header takes."""
    return float(
        driver.execute_script(
            "return document.querySelector('.site-header').getBoundingClientRect().height"
            " / window.innerHeight"
        )
    )


def listings_of(driver: WebDriver, match: Match, code: str) -> int:
    """How many entries of the lobby lead to the table (its page or the seat kept)."""
    return int(
        driver.execute_script(
            "return [...document.querySelectorAll('main li')].filter((li) =>"
            " li.querySelector(`a[href$='/tables/${arguments[0]}/'],"
            " a[href$='/tables/invitations/${arguments[1]}/']`)).length",
            match.pk,
            code,
        )
    )


def test_a_table_opened_on_a_phone_fills_from_the_lobby_and_starts(
    phones: list[WebDriver], live_server: UvicornLiveServer
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    for name in ("ann", "bob", "cleo"):
        User.objects.create_user(name, password=PASSWORD)
    host, guest = phones
    log_in(host, live_server.url, "ann")
    log_in(guest, live_server.url, "bob")

    host.get(f"{live_server.url}/play/")
    assert fits_the_screen(host)
    game = Select(host.find_element(By.ID, "id_game"))
    wait_for(host, lambda d: visible_seat_rows(d) == 4)  # Kingen: four players
    game.select_by_visible_text("Priffe, 3 players, 6 rubbers")
    wait_for(host, lambda d: visible_seat_rows(d) == 3)  # the träkarl takes no player
    game.select_by_visible_text("Kingen")
    wait_for(host, lambda d: visible_seat_rows(d) == 4)
    Select(host.find_element(By.ID, "id_seat_1")).select_by_value("open")
    assert not host.find_element(By.CSS_SELECTOR, '[data-row="1"] .seat-bot').is_displayed()
    assert host.find_element(By.CSS_SELECTOR, '[data-row="2"] .seat-bot').is_displayed()
    host.find_element(By.CSS_SELECTOR, 'input[name="time_control"][value="correspondence"]').click()
    assert not host.find_element(By.ID, "id_move_seconds").is_displayed()
    assert host.find_element(By.ID, "id_correspondence_amount").is_displayed()
    host.find_element(By.CSS_SELECTOR, 'input[name="time_control"][value="live"]').click()
    Select(host.find_element(By.ID, "id_seat_2")).select_by_value("invite")
    host.find_element(By.ID, "id_seat_2_username").send_keys("bob")
    screenshot(host, "table-new-phone")
    host.find_element(By.XPATH, "//button[normalize-space()='Open the table']").click()

    wait_for(host, lambda d: d.find_elements(By.CSS_SELECTOR, ".invitation-link input"))
    match = Match.objects.get()
    assert match.status == MatchStatus.WAITING
    link = host.find_element(By.CSS_SELECTOR, ".invitation-link input").get_attribute("value")
    assert link is not None
    assert link.startswith(f"{live_server.url}/tables/invitations/")
    assert fits_the_screen(host)
    screenshot(host, "table-waiting-phone")

    guest.get(f"{live_server.url}/lobby/")
    assert fits_the_screen(guest)
    assert header_share(guest) < 0.15
    screenshot(guest, "lobby-phone")
    code = SeatInvitation.objects.get(match=match, invitee__username="bob").code
    assert listings_of(guest, match, code) == 1
    assert not guest.find_elements(By.XPATH, "//button[normalize-space()='Join']")
    guest.find_element(By.CSS_SELECTOR, f"main a[href$='/tables/invitations/{code}/']").click()
    wait_for(guest, lambda d: d.find_elements(By.XPATH, "//button[starts-with(., 'Accept')]"))
    guest.find_element(By.XPATH, "//button[starts-with(., 'Accept')]").click()
    wait_for(guest, lambda d: f"/tables/{match.pk}/" in d.current_url)
    cleo = Client()
    cleo.force_login(User.objects.get(username="cleo"))
    joined = cleo.post(f"/tables/{match.pk}/join/")
    assert joined.status_code == 302
    seat_page = f"{live_server.url}/matches/{match.pk}/seats/2/"
    wait_for(guest, lambda d: d.current_url == seat_page, 30)
    # The host's page notices the table started and takes her to her seat.
    wait_for(host, lambda d: d.current_url == f"{live_server.url}/matches/{match.pk}/seats/0/", 30)
    match.refresh_from_db()
    assert match.status == MatchStatus.QUEUED
