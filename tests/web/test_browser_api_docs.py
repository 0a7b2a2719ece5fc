"""In a real browser: the API's documentation pages work offline.

/api/docs/ (Swagger UI) and /api/redoc/ (ReDoc) load everything from the live server
itself: the pinned drf-spectacular-sidecar files and the schema, never a CDN. Every
request the browser makes is recorded (DevTools' Network events, failed ones included)
and must be for 127.0.0.1; Swagger UI must list every operation of the schema.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import pytest

from tests.web.browser import Request, chromium_start, page_requests, screenshot
from tests.web.conftest import wait_for

if TYPE_CHECKING:
    from selenium.webdriver.chrome.webdriver import WebDriver

    from tests.uvicorn_servers import UvicornLiveServer

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

METHODS = ("get", "post", "put", "patch", "delete")
REDOCLY_LOGO = "https://cdn.redoc.ly/redoc/logo-mini.svg"


@pytest.fixture
def watched_browser(tmp_path: Path) -> Iterator[WebDriver]:
    """A headless Chromium that records its requests; fails on an error in its console
    (a script's, a resource that did not load, a refusal by the page's policy)."""
    driver = chromium_start(
        tmp_path / "chromium-profile", log_network=True, csp_refusals_expected=(REDOCLY_LOGO,)
    )
    try:
        yield driver
        log: list[dict[str, Any]] = driver.get_log("browser")  # type: ignore[no-untyped-call]
        errors = [
            entry
            for entry in log
            if entry.get("level") == "SEVERE"
            # The one refusal expected: ReDoc's footer logo (REDOCLY_LOGO).
            and not (entry.get("source") == "security" and REDOCLY_LOGO in entry["message"])
        ]
        assert not errors, f"errors in the browser's console: {errors}"
    finally:
        driver.quit()


def loopback_url(live_server: UvicornLiveServer) -> str:
    """The live server's address by its loopback IP (pytest-django names it localhost)."""
    parts = urlsplit(live_server.url)
    assert parts.hostname in ("localhost", "127.0.0.1")
    return f"{parts.scheme}://127.0.0.1:{parts.port}"


def schema_operations(live_server: UvicornLiveServer) -> set[tuple[str, str]]:
    from django.test import Client

    schema = Client().get("/api/schema/", HTTP_ACCEPT="application/json").json()
    return {
        (method.upper(), path)
        for path, item in schema["paths"].items()
        for method in item
        if method in METHODS
    }


def assert_only_the_live_server(
    requests: list[Request], live_server: UvicornLiveServer, *, refused: tuple[str, ...] = ()
) -> None:
    """Every request the page sent went to the live server on 127.0.0.1 (or stayed in the
    browser: data:, blob:); the browser's policy refused exactly the ``refused`` URLs."""
    server = urlsplit(loopback_url(live_server)).netloc
    assert requests, "no request was recorded"
    sent = [r.url for r in requests if not r.blocked]
    elsewhere = [
        url
        for url in sent
        if not (url.startswith(("data:", "blob:")) or urlsplit(url).netloc == server)
    ]
    assert not elsewhere, f"requests that left {server}: {elsewhere}"
    assert sorted(r.url for r in requests if r.blocked) == sorted(refused)
    assert all(r.blocked == "csp" for r in requests if r.blocked)


def assert_no_remote_source_in_csp(page: str, live_server: UvicornLiveServer) -> None:
    """A Content-Security-Policy, where the page has one, names no other host."""
    import urllib.request

    with urllib.request.urlopen(f"{loopback_url(live_server)}{page}", timeout=30) as response:
        policy = response.headers.get("Content-Security-Policy")
    if policy is None:
        return
    for directive in policy.split(";"):
        for source in directive.split()[1:]:
            assert source.startswith("'") or source in ("data:", "blob:"), (directive, source)


def test_swagger_ui_lists_every_operation_from_the_server_alone(
    watched_browser: WebDriver, live_server: UvicornLiveServer
) -> None:
    driver = watched_browser
    expected = schema_operations(live_server)
    assert len(expected) > 20
    page_requests(driver)  # what the browser did before: not the page's
    driver.get(f"{loopback_url(live_server)}/api/docs/")

    def operations(d: WebDriver) -> set[tuple[str, str]]:
        found = d.execute_script(
            """return [...document.querySelectorAll('.opblock-summary')].map(s => [
                s.querySelector('.opblock-summary-method')?.textContent ?? '',
                s.querySelector('.opblock-summary-path')?.getAttribute('data-path') ?? '']);"""
        )
        return {(method, path) for method, path in found}

    wait_for(driver, lambda d: operations(d) == expected, timeout=30)
    assert driver.find_element("css selector", ".info .title").text.startswith("King League API")
    screenshot(driver, "api-docs")
    requests = page_requests(driver)
    assert any(r.url.endswith("/api/schema/") for r in requests)
    assert any("/static/drf_spectacular_sidecar/swagger-ui-dist/" in r.url for r in requests)
    assert_only_the_live_server(requests, live_server)
    assert_no_remote_source_in_csp("/api/docs/", live_server)


def test_redoc_shows_the_operations_from_the_server_alone(
    watched_browser: WebDriver, live_server: UvicornLiveServer
) -> None:
    driver = watched_browser
    expected = schema_operations(live_server)
    page_requests(driver)  # what the browser did before: not the page's
    driver.get(f"{loopback_url(live_server)}/api/redoc/")

    def operation_count(d: WebDriver) -> int:
        return int(
            d.execute_script(
                "return document.querySelectorAll('[data-section-id^=\"operation/\"]').length"
            )
        )

    wait_for(driver, lambda d: operation_count(d) == len(expected), timeout=30)
    requests = page_requests(driver)
    assert any("/static/drf_spectacular_sidecar/redoc/" in r.url for r in requests)
    # ReDoc's footer always asks for Redocly's logo from its CDN: the policy refuses it.
    assert_only_the_live_server(requests, live_server, refused=(REDOCLY_LOGO,))
    assert_no_remote_source_in_csp("/api/redoc/", live_server)
