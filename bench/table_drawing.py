"""The table page's drawing of a socket update, in the page's own clock: how long the
update's task takes (withCardsPlayed and the redraw, docs/web.md *Only what changed is
redrawn*) and how long with the style and layout it leaves.

    DATABASE_URL=postgres://... REDIS_URL=redis://... python -m bench.table_drawing --tables 4

It makes a scratch database (``<name>_table_drawing_bench``, dropped at the end), starts
the site and a worker (bench.table_latency's ``servers``), opens one Chromium signed in as
the first of four people seated at a Kingen table, and, once the worker dealt, dispatches
on the page's own socket twelve updates (the cards of three tricks, the page's own cards
from its hand, the others' from the rest of the deck) with the focus on a card of the
hand, as after the person played one; each is timed in the page (``performance.now()``
around the dispatch, then around a forced layout). ``--tables`` tables one after the other.
The cards are not the game's: the page draws them as the update says, which is what is
timed. Traffic goes to 127.0.0.1 only. It prints figures; it asserts nothing.
"""

from __future__ import annotations

import os
import sys

if not __package__:
    _here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _here]
    sys.path.insert(0, os.path.dirname(_here))

import argparse
import tempfile
import time
from pathlib import Path

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django

django.setup()

from django.contrib.auth.models import User  # noqa: E402

from bench import table_latency as latency  # noqa: E402
from bench.scratch_database import scratch_database  # noqa: E402
from league.models import Match  # noqa: E402
from tests.web.browser import browser_unavailable_reason  # noqa: E402

PROBE = """
window.__sockets = [];
const NativeWebSocket = window.WebSocket;
window.WebSocket = class extends NativeWebSocket {
  constructor(...args) { super(...args); window.__sockets.push(this); }
};
"""
"""Installed before the page's scripts: the page's sockets, to dispatch updates on."""

UPDATES = """
const done = arguments[arguments.length - 1];
(async () => {
  const table = document.getElementById("table");
  const socket = window.__sockets[window.__sockets.length - 1];
  const mine = [...document.querySelectorAll(".seat.mine button.card-button")]
    .map((b) => b.dataset.card);
  const deck = [];
  for (const suit of "SHCD") for (const rank of "23456789TJQKA") deck.push(rank + suit);
  const others = deck.filter((card) => !mine.includes(card));
  const mySeat = Number(table.dataset.seat);
  let position = Number(table.dataset.position);
  let seat = Number(document.querySelector(".seat.to-act")?.dataset.seat ?? 0);
  document.querySelector(".seat.mine button.card-button")?.focus();
  const times = [];
  for (let i = 0; i < 12; i += 1) {
    const card = seat === mySeat ? mine.pop() : others.pop();
    const event = { index: position, seat, action: `play ${card}` };
    if (i % 4 === 3) event.won = seat;
    const data = JSON.stringify({ type: "update", event_index: position, events: [event] });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const start = performance.now();
    socket.dispatchEvent(new MessageEvent("message", { data }));
    const scripted = performance.now();
    void document.body.offsetHeight;
    times.push([scripted - start, performance.now() - start]);
    position += 1;
    if (i % 4 !== 3) seat = (seat + 1) % 4;
  }
  done(times);
})();
"""
"""Twelve updates on the page's socket, each timed: [the task, the task and the layout]."""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=4, help="tables, twelve updates each")
    args = parser.parse_args()
    unavailable = browser_unavailable_reason()
    if unavailable:
        raise SystemExit(f"no browser: {unavailable}")
    scripts: list[float] = []
    laid_out: list[float] = []
    with scratch_database("table_drawing_bench"):
        people = [
            User.objects.create_user(name, password=latency.PASSWORD) for name in latency.PEOPLE
        ]
        with latency.servers(1, lane=False) as url, tempfile.TemporaryDirectory() as profiles:
            page = latency.pages_open(url, people[:1], Path(profiles))[0]
            driver = page.driver
            try:
                driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": PROBE})
                driver.set_script_timeout(60)
                for _ in range(args.tables):
                    match_id = latency.table_of_four(people)
                    dealt = latency.wait_until(
                        lambda m=match_id: Match.objects.get(pk=m).waiting_seat is not None, 60
                    )
                    if not dealt:
                        raise SystemExit("the worker did not deal")
                    driver.get(f"{url}/matches/{match_id}/seats/0/")
                    live = latency.wait_until(
                        lambda: driver.execute_script(
                            "return document.querySelector('[data-role=connection]')"
                            "?.textContent === 'live'"
                            " && document.getElementById('table').dataset.ready === 'true'"
                        ),
                        60,
                    )
                    if not live:
                        raise SystemExit("the page did not connect")
                    time.sleep(1)  # the page's first requests answered
                    for task, whole in driver.execute_async_script(UPDATES):
                        scripts.append(float(task))
                        laid_out.append(float(whole))
            finally:
                driver.quit()
    latency.say(f"{len(scripts)} updates drawn; load {os.getloadavg()[0]:.1f}")
    latency.say(f"  the update's task               {latency.figures(scripts)}")
    latency.say(f"  the task, then style and layout {latency.figures(laid_out)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
