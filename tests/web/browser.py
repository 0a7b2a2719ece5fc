"""Headless Chromium for the browser tests: Debian's chromium driven by Selenium.

Nothing is downloaded: the browser is /usr/bin/chromium and the driver /usr/bin/chromedriver
(Debian's packages chromium and chromium-driver, installed by .ci/run). The flags keep
Chromium off the network (this machine has none) and out of any shared profile.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from selenium.webdriver.chrome.webdriver import WebDriver

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")
SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"

CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
)


@functools.cache
def browser_unavailable_reason() -> str | None:
    for path, package in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")):
        if not (os.path.isfile(path) and os.access(path, os.X_OK)) and not shutil.which(path):
            return f"{path} is missing (apt-get install {package})"
    if importlib.util.find_spec("selenium") is None:
        return "the selenium package is not installed (pip install -e '.[dev]')"
    return None


def chromium_start(profile_dir: Path, *, width: int = 1280, height: int = 900) -> WebDriver:
    """A new headless Chromium with an empty profile in ``profile_dir``."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile_dir}")
    options.add_argument(f"--window-size={width},{height}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(executable_path=CHROMEDRIVER))
    driver.set_page_load_timeout(30)
    return driver


def screenshot(driver: WebDriver, name: str) -> Path:
    """Save the current page as docs/screenshots/<name>.png (the README shows them)."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    driver.save_screenshot(str(path))
    return path
