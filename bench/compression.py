"""Bytes sent for a finished match's record and its replay page, without and with gzip.

    DATABASE_URL=postgres://... REDIS_URL=redis://... python -m bench.compression

It creates a scratch database of its own (``<name>_compression_bench``, dropped at the
end) with one finished Kingen match (built-in greedy bots, the league's default number of
deals), collects the static files into a temporary STATIC_ROOT (as ``collectstatic``
does for production: WhiteNoise's compressed copies), and asks the site, through Django's
whole middleware stack, for:

- the record (``GET /api/matches/{id}/record/``);
- the replay page and everything it loads: its HTML, the record and the timeline it
  fetches, and the static scripts and stylesheets it names (and the modules they import).

Each once without ``Accept-Encoding`` (what every client got before compression: the
reference) and once with ``Accept-Encoding: gzip``, in the same run; printed: bytes of
body and headers, and the ratio. It asserts nothing.
"""

from __future__ import annotations

import atexit
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Iterable
from typing import Any, cast

if not __package__:
    _here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _here]
    sys.path.insert(0, os.path.dirname(_here))

STATIC = tempfile.mkdtemp(prefix="king-league-bench-static-")
atexit.register(shutil.rmtree, STATIC, ignore_errors=True)
os.environ["STATIC_ROOT"] = STATIC
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402
from django.test import Client  # noqa: E402

from bench.scratch_database import scratch_database  # noqa: E402

ASSET = re.compile(r"""(?:src|href)="(/(?:static|jsi18n)/[^"]*)\"""")
IMPORT = re.compile(r"""from "\./([^"]+)\"""")
GZIP = {"Accept-Encoding": "gzip"}


def say(text: str) -> None:
    sys.stdout.write(text + "\n")


def streamed(response: Any) -> Iterable[bytes]:
    """A streamed answer's parts (the test client's type does not say it may stream)."""
    return cast(Iterable[bytes], response.streaming_content)


def sent(client: Client, path: str, headers: dict[str, str]) -> int:
    """Bytes of the answer's body and headers (as an HTTP/1.1 server writes them)."""
    response = client.get(path, headers=headers)
    assert response.status_code == 200, (path, response.status_code)
    body = b"".join(streamed(response)) if response.streaming else response.content
    head = sum(len(f"{name}: {value}\r\n") for name, value in response.items())
    return len(body) + head


def replay_paths(client: Client, match_id: int) -> list[str]:
    page = client.get(f"/matches/{match_id}/").content.decode()
    paths = [f"/matches/{match_id}/", f"/api/matches/{match_id}/record/"]
    timeline = re.search(r'data-timeline-url="([^"]+)"', page)
    if timeline:
        paths.append(timeline.group(1))
    assets = ASSET.findall(page)
    for asset in list(assets):
        if asset.endswith(".js") and asset.startswith("/static/"):
            source = client.get(asset)
            text = b"".join(streamed(source)) if source.streaming else source.content
            folder = asset.rsplit("/", 1)[0]
            assets += [f"{folder}/{name}" for name in IMPORT.findall(text.decode())]
    return paths + list(dict.fromkeys(assets))


def main() -> int:
    call_command("collectstatic", interactive=False, verbosity=0)
    from league.services.matches import match_run
    from league.services.tournaments import tournament_round_start
    from tests.league.builders import bot_tournament

    with scratch_database("compression_bench"):
        tournament, organiser = bot_tournament(game="kingen", bot="greedy", entrants=4)
        match = tournament_round_start(actor=organiser, tournament=tournament).matches.first()
        assert match is not None
        match_run(match_id=match.pk, worker="bench")
        client = Client()
        record = f"/api/matches/{match.pk}/record/"
        paths = replay_paths(client, match.pk)
        rows = [("record", [record]), ("replay page, HTML only", paths[:1])]
        rows.append((f"replay page and all it loads ({len(paths)} answers)", paths))
        say(f"{'what':<46} {'plain bytes':>12} {'gzip bytes':>11} {'ratio':>6}")
        for name, asked in rows:
            plain = sum(sent(client, path, {}) for path in asked)
            compressed = sum(sent(client, path, GZIP) for path in asked)
            say(f"{name:<46} {plain:>12,} {compressed:>11,} {plain / compressed:>6.1f}")
        for path in paths:
            plain, compressed = sent(client, path, {}), sent(client, path, GZIP)
            say(f"  {path[:60]:<60} {plain:>9,} {compressed:>9,}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
