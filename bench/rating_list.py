"""The family's rating list (people and bots on one scale, league.selectors.ratings
.ratings_leaderboard): milliseconds to read it, with each position's confidence, for
``--people`` people and ``--bots`` bot versions rated in Kingen, filtered both, people and
bots (docs/benchmarks.md, *The rating list of people and bots*).

    DATABASE_URL=postgres://... python -m bench.rating_list
    python -m bench.rating_list --people 5000 --bots 500 --repeat 20

It makes a scratch database of its own (``<name>_rating_list_bench``, dropped at the end),
stores the ratings directly (no game is played: only the read is measured) and prints the
median and the slowest of ``--repeat`` reads and the number of queries a read makes; it
asserts nothing.
"""

from __future__ import annotations

import os
import sys

if not __package__:
    _here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _here]
    sys.path.insert(0, os.path.dirname(_here))

import argparse
import random
import statistics
import time

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django

django.setup()

from django.contrib.auth.models import User  # noqa: E402
from django.db import connection  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402

from bench.scratch_database import scratch_database  # noqa: E402
from bots.models import Bot, BotVersion  # noqa: E402
from league.models import Competitor, Rating  # noqa: E402
from league.selectors.ratings import RATING_LIST_WHO, ratings_leaderboard  # noqa: E402


def _store(people: int, bots: int, seed: int) -> None:
    draw = random.Random(seed)
    users = User.objects.bulk_create(User(username=f"p{i}") for i in range(people))
    owner = User.objects.create(username="owner")
    made = Bot.objects.bulk_create(Bot(owner=owner, name=f"b{i}") for i in range(bots))
    versions = BotVersion.objects.bulk_create(
        BotVersion(bot=bot, number=1, sha256="a" * 64, size=1, filename="m.py") for bot in made
    )
    competitors = Competitor.objects.bulk_create(
        [Competitor(user=u, name=u.username) for u in users]
        + [Competitor(bot_version=v, name=f"v{v.pk}") for v in versions]
    )
    ratings = []
    for competitor in competitors:
        mu, sigma = draw.gauss(25, 4), draw.uniform(1, 8)
        ratings.append(
            Rating(
                competitor=competitor,
                family="kingen",
                mu=mu,
                sigma=sigma,
                conservative=mu - 3 * sigma,
                games=draw.randint(1, 200),
            )
        )
    Rating.objects.bulk_create(ratings, batch_size=2000)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")


def _say(text: str) -> None:
    sys.stdout.write(text + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--people", type=int, default=5000)
    parser.add_argument("--bots", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with scratch_database("rating_list_bench"):
        _store(args.people, args.bots, args.seed)
        _say(f"{args.people} people, {args.bots} bot versions rated in kingen")
        for who in RATING_LIST_WHO:
            times = []
            rows = 0
            for _ in range(args.repeat):
                began = time.perf_counter()
                with CaptureQueriesContext(connection) as queries:
                    rows = len(ratings_leaderboard(family="kingen", who=who))
                times.append(1000 * (time.perf_counter() - began))
            _say(
                f"who={who:<6} rows {rows:>5}  median {statistics.median(times):7.1f} ms  "
                f"slowest {max(times):7.1f} ms  queries {len(queries)}"
            )


if __name__ == "__main__":
    main()
