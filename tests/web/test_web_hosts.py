"""Web on more machines: two web hosts behind HAProxy, one PostgreSQL and one Redis, and a
table of four people split across the hosts that outlives one of them (docs/operations.md,
"Web machines").

Each host is a network namespace with an address of its own (tests/network_hosts.py, as the
worker hosts' test makes them) running production's web server (``python -m
config.web_server``, one process), reaching PostgreSQL and Redis through the forwarder on
its gateway. Debian's HAProxy runs deploy/haproxy.cfg, the file shipped for deployment, in
front of both (tests/balancer.py); everything the people do goes through it. A worker deals.

hanna (a browser) and jules (the API, with a token) keep to host A by the balancer's
stickiness cookie, ivo (a browser) and kai (the API) to host B. Each move is made on one
host and shown on the other's page by its socket: the channel layer in Redis carries it
between the hosts (each page records the events its socket announced; the balancer's log
says which host took each move). Then host A is killed (SIGKILL, every process of it) with
the game in the middle of a deal: hanna's page reconnects through the balancer to host B
by itself, jules's next move is sent to B, and the game goes on, every move shown on both
pages; the stored events are exactly the moves made, in order, and replay to the position
the pages show.

The game is the first moves of a Kingen deal: what is proved is the path of a move between
hosts, not the game, which tests/web/test_browser_people_table.py plays to the end.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from rest_framework.authtoken.models import Token

import pytest

from league.models import Match, MatchEvent, MatchStatus, SeatInvitation
from league.selectors.replays import match_state_read
from league.services.tables import seat_invitation_accept, table_open
from tests.balancer import COOKIE, SERVER_NAMES, Balancer, balancer
from tests.celery_workers import REPOSITORY_ROOT, CeleryWorkerProcess, worker_start
from tests.network_hosts import NetworkHost, host_environment, network_hosts, servers_forwarded
from tests.servers import database_url_for
from tests.uvicorn_servers import SERVER_START_SECONDS, web_server_command
from tests.web.browser import chromium_start
from tests.web.conftest import click, wait_for
from tests.web.test_browser_people_table import TABLE_SEEN, lowest_card

if TYPE_CHECKING:
    from selenium.webdriver.chrome.webdriver import WebDriver

pytestmark = [
    pytest.mark.browser,
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.worker,
    pytest.mark.netns,
    pytest.mark.balancer,
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
]

WEB_PORT = 8000
"""Each host's web server's port, on the host's own address."""
WAIT = 60.0
"""How long a page or the table may take to show what the test waits for (a loaded CI
machine); the test waits for the thing itself, never for a time."""
MOVES_BEFORE = 6
MOVES_AFTER = 6
"""Moves made before host A is killed and after: each person moves at least once after."""
STOP_SECONDS = 3.0

SOCKET_EVENTS_KEPT = """
window.__socketEvents = [];
window.__socketOpens = 0;
const NativeWebSocket = window.WebSocket;
window.WebSocket = class extends NativeWebSocket {
  constructor(...args) {
    super(...args);
    if (!String(args[0]).includes("/ws/matches/")) return;
    this.addEventListener("open", () => { window.__socketOpens += 1; });
    this.addEventListener("message", (event) => {
      try {
        const message = JSON.parse(event.data);
        if (message.type === "update") window.__socketEvents.push(message.event_index);
      } catch (error) { /* not JSON: not ours to keep */ }
    });
  }
};
"""
"""Run before the page's scripts: the event index of every update the table's socket
brought, and how many times the socket opened."""


@dataclass
class Person:
    """Someone at the table: a browser, or a program with an API token, keeping to one host
    through the balancer (``server``: its stickiness cookie's value)."""

    username: str
    seat: int
    server: str
    driver: WebDriver | None = None
    token: str = ""
    moves: list[int] = field(default_factory=list)
    """The event indexes of the moves they made."""


@dataclass
class WebHosts:
    balancer: Balancer
    hosts: list[NetworkHost]
    worker: CeleryWorkerProcess


def web_server_ready(host: NetworkHost, process: subprocess.Popen[bytes], log: Path) -> None:
    """The host's web server answers the balancer's health check (its own address, the
    site's name)."""
    request = urllib.request.Request(
        f"http://{host.address}:{WEB_PORT}/healthz?scope=web", headers={"Host": "localhost"}
    )
    deadline = time.monotonic() + SERVER_START_SECONDS
    while True:
        try:
            with urllib.request.urlopen(request, timeout=5) as answer:
                if answer.status == 200:
                    return
        except OSError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"host {host.name}'s web server did not start:\n{log.read_text()}")
        time.sleep(0.05)


@contextlib.contextmanager
def processes_killed(processes: list[subprocess.Popen[bytes]]) -> Iterator[None]:
    """``processes`` (those in the list when the block ends) killed after it."""
    try:
        yield
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
            process.wait(timeout=STOP_SECONDS)


@pytest.fixture
def web_hosts(
    subprocess_environment: dict[str, str], collected_static: Path, tmp_path: Path
) -> Iterator[WebHosts]:
    """Hosts A and B, each with production's web server, HAProxy in front, a worker; all
    stopped and removed afterwards."""
    environment = subprocess_environment | {
        "DATABASE_URL": database_url_for(connection.settings_dict),
        "STATIC_ROOT": str(collected_static),
        "DEBUG": "false",
        # Every web machine signs with the same key (the sessions this process makes, too).
        "SECRET_KEY": settings.SECRET_KEY,
        "TRUSTED_PROXIES": "1",
    }
    with contextlib.ExitStack() as stack:
        hosts = stack.enter_context(network_hosts(2))
        stack.enter_context(
            servers_forwarded(
                hosts,
                database_url=environment["DATABASE_URL"],
                redis_url=environment["REDIS_URL"],
                log_path=tmp_path / "forwarder.log",
            )
        )
        # The worker starts while the web servers do (each takes seconds on a busy machine).
        starting = stack.enter_context(ThreadPoolExecutor(max_workers=1)).submit(
            worker_start,
            environment=environment,
            log_path=tmp_path / "worker.log",
            queues="interactive,default",
        )
        stack.callback(lambda: starting.result().stop())  # stopped after the rest
        servers: list[subprocess.Popen[bytes]] = []
        stack.enter_context(processes_killed(servers))  # nothing to prove in their stop
        for host in hosts:
            with (tmp_path / f"web-{host.name}.log").open("wb") as log:
                servers.append(
                    subprocess.Popen(
                        [
                            *host.command_prefix,
                            *web_server_command(WEB_PORT, host=host.address, processes=1),
                        ],
                        cwd=REPOSITORY_ROOT,
                        env=host_environment(host, environment),
                        stdin=subprocess.DEVNULL,
                        stdout=log,
                        stderr=subprocess.STDOUT,
                    )
                )
        for host, server in zip(hosts, servers, strict=True):
            web_server_ready(host, server, tmp_path / f"web-{host.name}.log")
        front = stack.enter_context(
            balancer(
                [f"{host.address}:{WEB_PORT}" for host in hosts],
                log_path=tmp_path / "haproxy.log",
            )
        )
        yield WebHosts(front, hosts, starting.result())


@pytest.fixture
def browsers(tmp_path: Path) -> Iterator[list[WebDriver]]:
    """Two browsers; the test fails on a JavaScript error in either."""
    found: list[WebDriver] = []
    try:
        for name in ("first", "second"):
            driver = chromium_start(tmp_path / f"profile-{name}")
            driver.execute_cdp_cmd(
                "Page.addScriptToEvaluateOnNewDocument", {"source": SOCKET_EVENTS_KEPT}
            )
            found.append(driver)
        yield found
        for driver in found:
            log: list[dict[str, Any]] = driver.get_log("browser")  # type: ignore[no-untyped-call]
            errors = [
                e for e in log if e.get("level") == "SEVERE" and e.get("source") == "javascript"
            ]
            assert not errors, f"JavaScript errors: {errors}"
    finally:
        for driver in found:
            driver.quit()


def the_table(hosts: WebHosts, browsers: list[WebDriver]) -> tuple[Match, list[Person]]:
    """hanna's table with ivo, jules and kai, every invitation accepted, dealt by the worker;
    the browsers' pages at hanna's and ivo's seats, each keeping to its host."""
    users = {
        name: User.objects.create_user(name, f"{name}@example.org", "a long pass phrase 42")
        for name in ("hanna", "ivo", "jules", "kai")
    }
    match = table_open(
        actor=users["hanna"],
        game="kingen",
        seats=["me", "invite:ivo", "invite:jules", "invite:kai"],
        move_seconds=600,
    )
    for seat, name in ((1, "ivo"), (2, "jules"), (3, "kai")):
        code = SeatInvitation.objects.get(match=match, seat=seat).code
        seat_invitation_accept(user=users[name], code=code)
    a, b = SERVER_NAMES
    people = [
        Person("hanna", 0, a, driver=browsers[0]),
        Person("ivo", 1, b, driver=browsers[1]),
        Person("jules", 2, a, token=Token.objects.create(user=users["jules"]).key),
        Person("kai", 3, b, token=Token.objects.create(user=users["kai"]).key),
    ]
    for person in people:
        if person.driver is None:
            continue
        client = Client()
        client.force_login(users[person.username])
        driver = person.driver
        driver.get(f"{hosts.balancer.url}/healthz?scope=web")
        driver.add_cookie({"name": COOKIE, "value": person.server})
        driver.add_cookie({"name": "sessionid", "value": client.cookies["sessionid"].value})
        driver.get(f"{hosts.balancer.url}/matches/{match.pk}/seats/{person.seat}/")
    for person in people:
        if person.driver is not None:
            wait_for(person.driver, live, timeout=WAIT)
    return match, people


def live(driver: WebDriver) -> bool:
    return bool(seen_in(driver).get("connection") == "live")


def seen_in(driver: WebDriver) -> dict[str, Any]:
    """The table as the page shows it (the people table's reading); empty while none is."""
    found = driver.execute_script(TABLE_SEEN)
    return dict(found) if found else {}


def socket_events(driver: WebDriver) -> list[int]:
    return [int(i) for i in driver.execute_script("return window.__socketEvents")]


def socket_opens(driver: WebDriver) -> int:
    return int(driver.execute_script("return window.__socketOpens"))


def waiting_seat(match: Match) -> int:
    """The seat to move, once the worker has dealt (and the mover before has stored)."""
    deadline = time.monotonic() + WAIT
    while True:
        match.refresh_from_db()
        assert match.status in (MatchStatus.QUEUED, MatchStatus.RUNNING), match.error
        if match.waiting_seat is not None:
            return match.waiting_seat
        assert time.monotonic() < deadline, "the table never came to a person's move"
        time.sleep(0.05)


def move(hosts: WebHosts, match: Match, person: Person) -> tuple[int, str]:
    """``person`` makes their move through the balancer: a click on the lowest legal card
    (or the first choice) in their page, or the state's first legal action posted to the
    API. Returns the move's event index and action."""
    state = match_state_read(Match.objects.get(pk=match.pk))
    index = len(state.log)
    if person.driver is None:
        action = state.game.action_to_string(state.view_for(person.seat).legal[0])
        request = urllib.request.Request(
            f"{hosts.balancer.url}/api/matches/{match.pk}/seats/{person.seat}/actions/",
            data=json.dumps({"action": action}).encode(),
            method="POST",
            headers={
                "Authorization": f"Token {person.token}",
                "Content-Type": "application/json",
                "Cookie": f"{COOKIE}={person.server}",
            },
        )
        with urllib.request.urlopen(request, timeout=WAIT) as answer:
            assert answer.status == 200
    else:
        action = click_a_move(person.driver)
    person.moves.append(index)
    return index, action


def click_a_move(driver: WebDriver) -> str:
    """Wait until the page says it is this person's move, click it, and wait until the page
    shows it made; the action clicked."""

    def my_move(_: WebDriver) -> dict[str, Any] | None:
        shown = seen_in(driver)
        ready = shown.get("yourTurn") and (shown["legal"] or shown["choices"])
        return shown if ready else None

    while True:
        shown = wait_for(driver, my_move, timeout=WAIT)
        if shown["legal"]:
            card = lowest_card(shown["legal"])
            target, action = (
                f'.seat.mine button.card-button.legal[data-card="{card}"]',
                f"play {card}",
            )
        else:
            action = shown["choices"][0]
            target = f'[data-role=choices] button[data-action="{action}"]'
        if click(driver.find_element("css selector", target)):
            break  # else redrawn under the click: look again
    wait_for(
        driver,
        lambda d: seen_in(d).get("position", -1) > shown["position"] or seen_in(d)["error"],
        timeout=WAIT,
    )
    assert not seen_in(driver)["error"], seen_in(driver)["error"]
    return str(action)


def shown_everywhere(pages: list[WebDriver], index: int) -> None:
    """Each page's socket brought the event ``index`` and the page shows the position after
    it."""
    for driver in pages:
        wait_for(driver, lambda d: index in socket_events(d), timeout=WAIT)
        wait_for(driver, lambda d: seen_in(d).get("position", -1) > index, timeout=WAIT)


def play(
    hosts: WebHosts, match: Match, people: list[Person], *, moves: int
) -> list[tuple[int, int, str]]:
    """``moves`` moves, each by whoever's turn it is, each shown on both pages by their
    sockets; the moves as (event index, seat, action)."""
    by_seat = {person.seat: person for person in people}
    pages = [p.driver for p in people if p.driver is not None]
    made = []
    for _ in range(moves):
        seat = waiting_seat(match)
        index, action = move(hosts, match, by_seat[seat])
        shown_everywhere(pages, index)
        made.append((index, seat, action))
    return made


def test_a_table_split_over_two_web_hosts_outlives_one_of_them(
    web_hosts: WebHosts, browsers: list[WebDriver]
) -> None:
    host_a, _ = web_hosts.hosts
    match, people = the_table(web_hosts, browsers)
    hanna, ivo, jules, kai = people

    # Each move is made on one host and shown by the other's socket too.
    made = play(web_hosts, match, people, moves=MOVES_BEFORE)
    logged = moves_logged(web_hosts.balancer, match, len(made))
    moved_on = moves_served(web_hosts.balancer, match)
    for person in people:
        assert moved_on.get(person.seat, {person.server}) == {person.server}, person.username
    assert set().union(*moved_on.values()) == set(SERVER_NAMES)  # moves on both hosts

    # Host A dies in the middle of the deal: every process of it, at once.
    killed = host_a.kill()
    assert killed
    assert not host_a.pids()
    # hanna's page, whose socket was on A, reconnects through the balancer, to B.
    assert hanna.driver is not None
    wait_for(hanna.driver, lambda d: socket_opens(d) >= 2 and live(d), timeout=WAIT)

    # The game goes on: each person moves at least once more, each move on both pages.
    made_after = play(web_hosts, match, people, moves=MOVES_AFTER)
    while {seat for _, seat, _ in made_after} != {0, 1, 2, 3}:
        made_after += play(web_hosts, match, people, moves=1)
    assert ivo.driver is not None
    assert socket_opens(ivo.driver) == 1  # B's page never lost its socket

    # After the kill, every move went to B, A's people's too.
    moves_logged(web_hosts.balancer, match, len(made) + len(made_after))
    moved_after = moves_served(web_hosts.balancer, match, after=logged)
    assert moved_after == {seat: {SERVER_NAMES[1]} for seat in range(4)}, moved_after
    # Its health checks took A out meanwhile (the redispatch did not wait for them).
    balancer_says(web_hosts.balancer, f"Server web/{SERVER_NAMES[0]} is DOWN")

    # Nothing was lost: the stored events are the moves made, in order, and replay to the
    # position both pages show.
    stored = [
        (e.index, e.seat, e.action)
        for e in MatchEvent.objects.filter(match=match, seat__isnull=False).order_by("index")
    ]
    assert stored == made + made_after
    state = match_state_read(Match.objects.get(pk=match.pk))
    for driver in (hanna.driver, ivo.driver):
        assert seen_in(driver)["position"] == len(state.log)
    assert jules.moves
    assert kai.moves


def balancer_says(front: Balancer, text: str) -> None:
    deadline = time.monotonic() + WAIT
    while text not in front.log():
        assert time.monotonic() < deadline, f"the balancer never said {text!r}:\n{front.log()}"
        time.sleep(0.1)


def moves_served(front: Balancer, match: Match, *, after: int = 0) -> dict[int, set[str]]:
    """The hosts that took each seat's moves (their POSTs, in the balancer's log from its
    ``after``-th request on)."""
    found: dict[int, set[str]] = {}
    for served in front.served()[after:]:
        if is_move_of(served.method, served.path, match):
            found.setdefault(int(served.path.strip("/").split("/")[4]), set()).add(served.server)
    return found


def is_move_of(method: str, path: str, match: Match) -> bool:
    parts = path.strip("/").split("/")
    is_seat = parts[:4] == ["api", "matches", str(match.pk), "seats"]
    return method == "POST" and is_seat and parts[5:] == ["actions"]


def moves_logged(front: Balancer, match: Match, count: int) -> int:
    """Waits until the balancer's log holds ``count`` moves of ``match`` and returns how many
    requests it holds then. HAProxy writes a request's line once its answer has gone out,
    which can be a moment after the pages showed the move (its update leaves at the
    commit, before the answer)."""
    deadline = time.monotonic() + WAIT
    while True:
        served = front.served()
        if sum(is_move_of(s.method, s.path, match) for s in served) >= count:
            return len(served)
        assert time.monotonic() < deadline, f"fewer than {count} moves in the balancer's log"
        time.sleep(0.1)
