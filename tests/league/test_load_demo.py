"""The demo: a club, a dozen built-in bots of three strengths, two leagues, their first
rounds queued; a second run changes nothing."""

from __future__ import annotations

from io import StringIO

from django.core.management import call_command

import pytest

from league.models import Competitor, Match, Round, Tournament
from league.services.matches import match_run


@pytest.mark.django_db
def test_load_demo_is_idempotent_and_its_matches_play() -> None:
    call_command("load_demo", stdout=StringIO())
    counts = (Tournament.objects.count(), Round.objects.count(), Match.objects.count())
    assert counts == (2, 2, 6)  # 12 bots: three tables of four per round
    assert Competitor.objects.count() == 12
    call_command("load_demo", stdout=StringIO())
    assert (Tournament.objects.count(), Round.objects.count(), Match.objects.count()) == counts
    games = set(Tournament.objects.values_list("game", flat=True))
    assert games == {"kingen", "priffe(rubbers_per_game=2)"}
    match = Match.objects.filter(game="kingen").first()
    assert match is not None
    assert match_run(match_id=match.pk, worker="test").outcome == "finished"
