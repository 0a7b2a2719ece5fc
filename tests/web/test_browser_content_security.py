"""The browser tests' check of the Content-Security-Policy (tests/web/browser.py) fails a
test whose page breaks the policy, and passes one that keeps it: Chromium refuses an inline
script and a style attribute under the site's policy and says so in its console."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.uvicorn_servers import UvicornLiveServer
from tests.web.browser import ContentSecurityViolationError, chromium_start
from tests.web.conftest import wait_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

INLINE = """
const script = document.createElement("script");
script.textContent = "document.body.dataset.inline = 'ran'";
document.body.append(script);
"""


def test_a_page_that_keeps_the_policy_passes(
    tmp_path: Path, live_server: UvicornLiveServer
) -> None:
    driver = chromium_start(tmp_path / "profile")
    driver.get(f"{live_server.url}/")
    wait_for(driver, lambda d: d.execute_script("return document.readyState") == "complete")
    driver.quit()  # no ContentSecurityViolationError


def test_an_inline_script_is_refused_and_fails_the_test(
    tmp_path: Path, live_server: UvicornLiveServer
) -> None:
    driver = chromium_start(tmp_path / "profile")
    driver.get(f"{live_server.url}/")
    driver.execute_script(INLINE)
    assert driver.execute_script("return document.body.dataset.inline || ''") == ""
    with pytest.raises(ContentSecurityViolationError, match="inline script"):
        driver.quit()
