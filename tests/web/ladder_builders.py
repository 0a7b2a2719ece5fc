"""A small ladder with one person's version on it, for the pages' translation and
accessibility tests: a version that crashed off the ladder (its suspension, its games),
a seat log of one of its matches, and a challenge of its owner."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import User
from django.utils import timezone

from bots.models import BotVersion
from bots.services import bot_create
from league.models import Competitor, Ladder, LadderEntrant, LadderEntrantStatus, MatchSeat, SeatLog
from league.services.competitors import competitor_for_bot_version
from league.services.ladder_authors import challenge_create
from league.services.ladders import ladder_anchor_add, ladder_matchmake, ladder_open


@dataclass(frozen=True)
class SmallLadder:
    slug: str
    version: int
    """The person's version's competitor id."""
    match: int
    seat: int
    """A match of the version and its seat there, whose log was kept."""

    def pages(self) -> list[str]:
        """The ladders, the ladder, the version's page and the seat's log (its owner's)."""
        return [
            "/ladders/",
            f"/ladders/{self.slug}/",
            f"/ladders/{self.slug}/versions/{self.version}/",
            f"/matches/{self.match}/logs/{self.seat}/",
        ]


def ladder_with_anchors() -> Ladder:
    """A kingen ladder anchored by three greedy bots (named as no message of the catalogue
    is: "random" is one, a form's choice)."""
    ladder = ladder_open(game="kingen", anchors=("greedy",))
    for copy in ("greedy-2", "greedy-3"):
        ladder_anchor_add(ladder=ladder, name="greedy", bot_name=copy)
    return ladder


def uploaded_version(owner: User) -> Competitor:
    """An active uploaded kingen version of ``owner``'s (no file: it is not played here)."""
    bot = bot_create(name="zotbot", owner=owner, families=["kingen"])
    version = BotVersion.objects.create(
        bot=bot,
        number=1,
        kind=BotVersion.Kind.UPLOADED,
        sha256="a" * 64,
        size=10,
        filename="main.py",
        status=BotVersion.Status.ACTIVE,
    )
    return competitor_for_bot_version(version=version)


def small_ladder(owner: User) -> SmallLadder:
    ladder = ladder_with_anchors()
    mine = uploaded_version(owner)
    queued = ladder_matchmake(ladder_id=ladder.pk)
    seat = MatchSeat.objects.get(match_id=queued[0], competitor=mine).seat
    SeatLog.objects.create(match_id=queued[0], seat=seat, competitor=mine, stderr="thinking\n")
    LadderEntrant.objects.filter(ladder=ladder, competitor=mine).update(
        status=LadderEntrantStatus.SUSPENDED,
        suspended_at=timezone.now(),
        consecutive_failures=3,
        suspension_faults=[{"match": queued[0], "seat": seat, "outcome": "crash"}],
    )
    anchors = LadderEntrant.objects.filter(ladder=ladder, anchor=True)
    opponents = list(anchors.values_list("competitor_id", flat=True))[:3]
    challenge_create(actor=owner, ladder=ladder, competitor_id=mine.pk, opponent_ids=opponents)
    return SmallLadder(ladder.slug, mine.pk, queued[0], seat)
