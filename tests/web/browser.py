"""Headless Chromium for the browser tests: Debian's chromium driven by Selenium.

Nothing is downloaded: the browser is /usr/bin/chromium and the driver /usr/bin/chromedriver
(Debian's packages chromium and chromium-driver, installed by .ci/run). The flags keep
Chromium off the network (this machine has none) and out of any shared profile.

Screenshots (``screenshot``) go to a temporary folder of the test run, so the suite never
modifies tracked files; to refresh the README's, ask for them with the folder in
KING_LEAGUE_SCREENSHOTS (relative to the repository root), e.g.
``KING_LEAGUE_SCREENSHOTS=docs/screenshots ./scripts/test -m browser``.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import importlib.util
import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from selenium.webdriver.chrome.webdriver import WebDriver

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")
REPOSITORY_ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS_VARIABLE = "KING_LEAGUE_SCREENSHOTS"

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


CSP_VIOLATION = "Content Security Policy"
"""What Chromium's console says of anything a page's Content-Security-Policy refused
("Refused to load the script ... because it violates the following Content Security
Policy directive ...", the same for an inline script, style or handler)."""


class ContentSecurityViolationError(AssertionError):
    """A page did something its Content-Security-Policy refused."""


def csp_violations(entries: list[dict[str, Any]], allowed: tuple[str, ...]) -> list[str]:
    """The console messages among ``entries`` that report a refusal by the policy, but for
    those naming one of ``allowed`` (a URL the test expects to be refused)."""
    return [
        str(entry.get("message", ""))
        for entry in entries
        if CSP_VIOLATION in str(entry.get("message", ""))
        and not any(name in str(entry.get("message", "")) for name in allowed)
    ]


def _csp_checked(driver: WebDriver, allowed: tuple[str, ...]) -> WebDriver:
    """``driver`` whose console log is watched for Content-Security-Policy violations:
    each read of the browser's log (a test's own ``get_log("browser")`` included) keeps
    what it finds, and ``quit()`` fails the test with them after closing the browser, so
    every browser test shows its pages work under the policy."""
    found: list[str] = []
    get_log, quit_browser = driver.get_log, driver.quit

    def get_log_watched(log_type: str) -> Any:
        entries = get_log(log_type)  # type: ignore[no-untyped-call]
        if log_type == "browser":
            found.extend(csp_violations(entries, allowed))
        return entries

    def quit_checked() -> None:
        with contextlib.suppress(Exception):  # a browser that died has nothing more to say
            get_log_watched("browser")
        quit_browser()
        if found:
            raise ContentSecurityViolationError(
                "the Content-Security-Policy refused:\n" + "\n".join(found[:10])
            )

    setattr(driver, "get_log", get_log_watched)  # noqa: B010 - an instance's own method
    setattr(driver, "quit", quit_checked)  # noqa: B010
    return driver


def chromium_start(
    profile_dir: Path,
    *,
    width: int = 1280,
    height: int = 900,
    log_network: bool = False,
    csp_refusals_expected: tuple[str, ...] = (),
) -> WebDriver:
    """A new headless Chromium with an empty profile in ``profile_dir``; with
    ``log_network``, ``page_requests(driver)`` lists every request the pages made.
    Its ``quit()`` fails the test if a page broke its Content-Security-Policy, but for
    URLs containing one of ``csp_refusals_expected`` (``_csp_checked``)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile_dir}")
    options.add_argument(f"--window-size={width},{height}")
    logging = {"browser": "ALL"}
    if log_network:
        logging["performance"] = "ALL"  # DevTools events, Network.requestWillBeSent among them
    options.set_capability("goog:loggingPrefs", logging)
    driver = webdriver.Chrome(options=options, service=Service(executable_path=CHROMEDRIVER))
    driver.set_page_load_timeout(30)
    return _csp_checked(driver, csp_refusals_expected)


@dataclass(frozen=True)
class Request:
    """A request a page made: its URL, and why the browser refused to send it (``csp`` for
    a Content-Security-Policy; empty when it was sent)."""

    url: str
    blocked: str = ""


def page_requests(driver: WebDriver) -> list[Request]:
    """Every request the web pages made since the last call (documents, scripts, styles,
    images, fonts, fetches, workers), answered or not, in a browser started with
    ``log_network``. Chromium's own pages (``chrome://``, such as the first new tab) are
    left out."""
    urls: dict[str, str] = {}
    blocked: dict[str, str] = {}
    entries: list[dict[str, Any]] = driver.get_log("performance")  # type: ignore[no-untyped-call]
    for entry in entries:
        message = json.loads(entry["message"])["message"]
        params = message.get("params", {})
        if message.get("method") == "Network.requestWillBeSent":
            if not str(params.get("documentURL", "")).startswith("chrome://"):
                urls.setdefault(params["requestId"], str(params["request"]["url"]))
        elif message.get("method") == "Network.loadingFailed" and params.get("blockedReason"):
            blocked[params["requestId"]] = str(params["blockedReason"])
    return [Request(url, blocked.get(request_id, "")) for request_id, url in urls.items()]


@functools.cache
def screenshot_folder() -> Path:
    """Where ``screenshot`` writes: $KING_LEAGUE_SCREENSHOTS (relative to the repository
    root) when set, such as docs/screenshots for the README; else a temporary folder,
    removed when the test run ends."""
    asked = os.environ.get(SCREENSHOTS_VARIABLE, "").strip()
    if asked:
        return REPOSITORY_ROOT / asked
    folder = tempfile.mkdtemp(prefix="king-league-screenshots-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return Path(folder)


def screenshot(driver: WebDriver, name: str) -> Path:
    """Save the current page as <name>.png in ``screenshot_folder()``."""
    folder = screenshot_folder()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.png"
    driver.save_screenshot(str(path))
    return path


AXE_SCRIPT = REPOSITORY_ROOT / ".axe" / "node_modules" / "axe-core" / "axe.min.js"
"""axe-core, installed by scripts/_venv.sh (``axe_ensure``) in a folder of its own."""

AXE_RUN = """
const done = arguments[arguments.length - 1];
const reported = arguments[0];
// Rules whose every check (or the rule itself) has an impact this run does not report can
// only find violations it would drop: they are not run. The impacts are axe's own metadata,
// so a rule a newer axe-core makes serious runs again; if that metadata is not where it
// was, every rule runs.
let rules = {};
try {
  const checks = axe._audit.data.checks;
  for (const rule of axe._audit.rules) {
    const ids = [...rule.any, ...rule.all, ...rule.none].map((check) => check.id || check);
    const impacts = rule.impact ? [rule.impact] : ids.map((id) => (checks[id] || {}).impact);
    if (impacts.length && impacts.every((impact) => impact && !reported.includes(impact))) {
      rules[rule.id] = {enabled: false};
    }
  }
} catch (error) {
  rules = {};
}
axe.run(document, {resultTypes: ["violations"], rules})
  .then((results) => done(results.violations.map((v) => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.slice(0, 3).map((n) => n.target.join(" ") + ": " + n.failureSummary),
  }))))
  .catch((error) => done([{id: "axe-error", impact: "critical", help: String(error), nodes: []}]));
"""

AXE_LOADED = "return typeof window.axe === 'object' && typeof window.axe.run === 'function';"


def axe_unavailable_reason() -> str | None:
    if not AXE_SCRIPT.is_file():
        return f"{AXE_SCRIPT} is missing (scripts/test installs it: axe_ensure in scripts/_venv.sh)"
    return None


@functools.cache
def axe_source() -> str:
    """axe-core's source (650 KB), read once."""
    return AXE_SCRIPT.read_text(encoding="utf-8")


def axe_on_every_page(driver: WebDriver) -> None:
    """Have Chromium load axe-core into every document ``driver`` opens from now on, before
    the page's own scripts (DevTools' ``Page.addScriptToEvaluateOnNewDocument``): sent once,
    instead of 650 KB through chromedriver for each page (``axe_violations`` then finds it
    loaded). Like ``execute_script``, DevTools' scripts are not subject to the pages'
    Content-Security-Policy."""
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": axe_source()})


def axe_violations(
    driver: WebDriver, impacts: tuple[str, ...] = ("serious", "critical")
) -> list[str]:
    """The accessibility violations axe-core finds in the page shown, of the given impacts,
    one line each. axe-core is injected from the local file unless the page has it already
    (``axe_on_every_page``): nothing is fetched."""
    if not driver.execute_script(AXE_LOADED):
        driver.execute_script(axe_source())
    driver.set_script_timeout(60)
    found: list[dict[str, Any]] = driver.execute_async_script(AXE_RUN, list(impacts))
    return [
        f"{v['impact']} {v['id']}: {v['help']} ({'; '.join(v['nodes'])})"
        for v in found
        if v.get("impact") in impacts
    ]
