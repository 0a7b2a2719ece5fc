"""Fixtures of the web tests: a headless browser and a live server with the sample pages."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import pytest

from tests.web.browser import chromium_start

if TYPE_CHECKING:
    from pytest_django.fixtures import Settings
    from selenium.webdriver.chrome.webdriver import WebDriver

    from tests.uvicorn_servers import UvicornLiveServer


@pytest.fixture
def samples_on(settings: Settings) -> None:
    """Serve the sample replays and table (web.samples), as a development server does."""
    settings.WEB_SAMPLES = True


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[WebDriver]:
    """A headless Chromium, closed afterwards; the test fails on a JavaScript error."""
    driver = chromium_start(tmp_path / "chromium-profile")
    try:
        yield driver
        log: list[dict[str, Any]] = driver.get_log("browser")  # type: ignore[no-untyped-call]
        errors = [
            entry
            for entry in log
            if entry.get("level") == "SEVERE" and entry.get("source") == "javascript"
        ]
        assert not errors, f"JavaScript errors: {errors}"
    finally:
        driver.quit()


@pytest.fixture
def open_page(browser: WebDriver, live_server: UvicornLiveServer) -> Callable[[str], WebDriver]:
    """Open a path of the live server in the browser."""

    def go(path: str) -> WebDriver:
        browser.get(f"{live_server.url}{path}")
        return browser

    return go


def wait_for(driver: WebDriver, condition: Callable[[Any], Any], timeout: float = 10) -> Any:
    from selenium.common.exceptions import TimeoutException, WebDriverException
    from selenium.webdriver.support.ui import WebDriverWait

    # Live pages swap their parts in (htmx) and forms load new pages: an element found a
    # moment ago may be gone, or the page between two documents; look again.
    ignored = (WebDriverException,)
    wait = WebDriverWait(driver, timeout, poll_frequency=0.05, ignored_exceptions=ignored)
    try:
        return wait.until(condition)
    except TimeoutException:
        page = driver.execute_script("return document.querySelector('main')?.innerText ?? ''")
        pytest.fail(
            f"not within {timeout:g} s at {driver.current_url}; the page says:\n{page[:2000]}",
            pytrace=True,
        )


def click(element: Any) -> bool:
    """Click, unless the page redrew the element meanwhile (then the caller looks again)."""
    from selenium.common.exceptions import StaleElementReferenceException

    try:
        element.click()
    except StaleElementReferenceException:
        return False
    return True


def at_path(path: str) -> Callable[[WebDriver], bool]:
    """A condition for ``wait_for``: the browser's page is ``path`` (its query aside).

    Not a substring test: the sign-up page's own address carries ``?next=/play-now/``.
    """
    return lambda driver: urlsplit(driver.current_url).path == path
