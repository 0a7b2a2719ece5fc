"""In a real browser: a table's scores entered on a phone-sized page from its side's code (a
player of the other side confirming on another phone), and the round's table cards as
printed: the print view's screenshot, whose QR codes a decoder reads, the PDF download's
QR codes read the same way, and Chromium's own print of the page on A4 and on Letter, one
table card a page."""

from __future__ import annotations

import base64
import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from django.test import Client

import pytest

from league.models import MatchResult
from league.services.competitors import competitor_for_user
from tests.league.test_club_nights import _league, _start
from tests.web.browser import chromium_start, screenshot
from tests.web.conftest import wait_for
from tests.web.qr_codes import pdf_page_images, qr_decoded, qr_tools_require
from tests.web.test_club_night_pages import KINGEN_3

if TYPE_CHECKING:
    from selenium.webdriver.chrome.webdriver import WebDriver

    from tests.uvicorn_servers import UvicornLiveServer

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = (390, 844)
PAPER_INCHES = {"A4": (8.27, 11.69), "Letter": (8.5, 11.0)}


@pytest.fixture
def phone(tmp_path: Path) -> Iterator[WebDriver]:
    driver = chromium_start(tmp_path / "phone-profile", width=PHONE[0], height=PHONE[1])
    try:
        driver.execute_cdp_cmd(
            "Emulation.setDeviceMetricsOverride",
            {"width": PHONE[0], "height": PHONE[1], "deviceScaleFactor": 2, "mobile": True},
        )
        yield driver
    finally:
        driver.quit()


def test_a_table_enters_its_scores_on_a_phone_and_its_card_prints(
    phone: WebDriver, live_server: UvicornLiveServer, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    league, organiser, users, _ = _league(
        game="kingen(players=3)", format="round_robin", rounds=1, players=3
    )
    cards = _start(organiser, league["id"], [competitor_for_user(user=u).pk for u in users])
    code, other = (side["code"] for side in cards["tables"][0]["sides"])
    qr_tools_require()

    phone.get(f"{live_server.url}/club/table/{code}/")
    wait_for(phone, lambda d: d.find_elements(By.CSS_SELECTOR, '[data-role="sheet-form"]'))
    assert phone.execute_script("return document.documentElement.scrollWidth") <= PHONE[0]
    Select(phone.find_element(By.CSS_SELECTOR, '[data-role="seat"]')).select_by_value("0")
    for deal, (key, values) in enumerate(KINGEN_3, start=1):
        for index, value in enumerate(values):
            phone.find_element(By.NAME, f"d{deal}-{key}-{index}").send_keys(value)
    Select(phone.find_element(By.NAME, "d6-seventh")).select_by_value("0")
    Select(phone.find_element(By.NAME, "d6-last")).select_by_value("1")
    screenshot(phone, "club-night-entry-phone")
    phone.find_element(By.CSS_SELECTOR, '[data-role="submit"]').click()
    scores = wait_for(
        phone, lambda d: d.find_elements(By.CSS_SELECTOR, '[data-role="entered-scores"]')
    )
    assert scores[0].text == "-5, 2, 3"
    assert phone.find_elements(By.CSS_SELECTOR, '[data-role="other-side-confirms"]')
    # Another phone (no cookies of the first) opens the other side's code and confirms.
    phone.delete_all_cookies()
    phone.get(f"{live_server.url}/club/table/{other}/")
    wait_for(phone, lambda d: d.find_elements(By.CSS_SELECTOR, '[data-role="confirm-seat"]'))
    Select(phone.find_element(By.CSS_SELECTOR, '[data-role="confirm-seat"]')).select_by_value("1")
    phone.find_element(By.CSS_SELECTOR, '[data-role="confirm"]').click()
    wait_for(phone, lambda d: d.find_elements(By.CSS_SELECTOR, '[data-role="confirmed"]'))
    screenshot(phone, "club-night-confirmed-phone")
    assert MatchResult.objects.get(match__table_sheet__code=code).scores == [-5, 2, 3]

    # The printed table card: the organiser's page in print media, then printed by Chromium.
    client = Client()
    client.force_login(organiser)
    phone.get(f"{live_server.url}/accounts/login/")
    phone.add_cookie({"name": "sessionid", "value": client.cookies["sessionid"].value})
    phone.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": 794, "height": 1123, "deviceScaleFactor": 1, "mobile": False},
    )
    phone.get(f"{live_server.url}/leagues/{league['id']}/rounds/1/cards/")
    wait_for(phone, lambda d: d.find_elements(By.CSS_SELECTOR, '[data-role="table-card"]'))
    phone.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
    assert not phone.find_element(By.CSS_SELECTOR, ".site-header").is_displayed()
    assert phone.find_element(By.CSS_SELECTOR, '[data-role="qr"] svg').is_displayed()
    shot = screenshot(phone, "club-night-table-card-print")
    assert shot.stat().st_size > 10_000
    entry_urls = sorted(f"{live_server.url}/club/table/{c}/" for c in (code, other))
    assert sorted(qr_decoded(shot)) == entry_urls
    downloaded = tmp_path / "download.pdf"
    downloaded.write_bytes(
        client.get(f"/leagues/{league['id']}/rounds/1/cards.pdf?paper=a4").content
    )
    # The download was made for Django's test host: its QR codes point there.
    assert sorted(qr_decoded(pdf_page_images(downloaded)[0])) == sorted(
        f"http://testserver/club/table/{c}/" for c in (code, other)
    )
    phone.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
    for paper, (width, height) in PAPER_INCHES.items():
        printed = phone.execute_cdp_cmd(
            "Page.printToPDF",
            {"paperWidth": width, "paperHeight": height, "preferCSSPageSize": False},
        )
        pdf = base64.b64decode(printed["data"])
        (tmp_path / f"cards-{paper}.pdf").write_bytes(pdf)
        pages = len(re.findall(rb"/Type\s*/Page\b", pdf))
        assert pages == 2, f"{paper}: {pages} pages (a table card, then the seating list)"

    # The projector: the standings in large type, the table's totals in them.
    phone.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": 1280, "height": 720, "deviceScaleFactor": 1, "mobile": False},
    )
    phone.get(f"{live_server.url}/leagues/{league['id']}/projector/")
    table = wait_for(phone, lambda d: d.find_elements(By.CSS_SELECTOR, ".projector #standings"))
    size = phone.execute_script(
        "return parseFloat(getComputedStyle(arguments[0]).fontSize)", table[0]
    )
    assert size >= 24
    totals = sorted(
        phone.execute_script(
            """const heads = [...document.querySelectorAll('#standings thead th')];
            const at = heads.findIndex((th) => th.dataset.key === 'total');
            return [...document.querySelectorAll('#standings tbody tr')].map(
              (row) => parseInt(row.children[at].textContent, 10));"""
        )
    )
    assert totals == [-5, 2, 3]
    screenshot(phone, "club-night-projector")
