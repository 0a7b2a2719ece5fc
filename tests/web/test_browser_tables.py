"""In real browsers the size of a phone: the new-table form shows the seats of the chosen
game and the inputs of the chosen time control; the host opens a table with an open seat
and sees its link; a second person joins from the lobby with one click; the table starts
and takes both to their seats. No page is wider than the phone's screen."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from django.contrib.auth.models import User

import pytest

from league.models import Match, MatchStatus
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


def test_a_table_opened_on_a_phone_fills_from_the_lobby_and_starts(
    phones: list[WebDriver], live_server: UvicornLiveServer
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    for name in ("ann", "bob"):
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
    screenshot(guest, "lobby-phone")
    guest.find_element(By.XPATH, "//button[normalize-space()='Join']").click()
    seat_page = f"{live_server.url}/matches/{match.pk}/seats/1/"
    wait_for(guest, lambda d: d.current_url == seat_page)
    # The host's page notices the table started and takes her to her seat.
    wait_for(host, lambda d: d.current_url == f"{live_server.url}/matches/{match.pk}/seats/0/", 30)
    match.refresh_from_db()
    assert match.status == MatchStatus.QUEUED
