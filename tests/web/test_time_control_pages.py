"""The league form's time controls and the organiser's play-by date on the league page."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from django.utils import timezone

import pytest

from league.models import Round, TimeControl, Tournament
from league.services.tournaments import tournament_round_start
from tests.web.test_league_pages import messages_of, person

pytestmark = pytest.mark.django_db


def test_a_league_by_correspondence_and_its_rounds_play_by_date() -> None:
    olga, client = person("olga")
    club_url = client.post("/clubs/", {"name": "C"})["Location"]
    club_id = int(club_url.rstrip("/").rsplit("/", 1)[1])
    form = client.get(f"/clubs/{club_id}/leagues/new/").content.decode()
    assert 'value="correspondence"' in form
    response = client.post(
        f"/clubs/{club_id}/leagues/new/",
        {
            "name": "L",
            "game": "kingen",
            "format": "round_robin",
            "rounds": 2,
            "time_control": "correspondence",
            "move_hours": 12,
        },
    )
    assert response.status_code == 302
    league = Tournament.objects.get(name="L")
    assert (league.time_control, league.move_seconds) == (TimeControl.CORRESPONDENCE, 43200)
    refused = client.post(
        f"/clubs/{club_id}/leagues/new/",
        {
            "name": "M",
            "game": "kingen",
            "rounds": 1,
            "format": "round_robin",
            "time_control": "correspondence",
            "move_hours": 0.5,
        },
    )
    assert refused.status_code == 200
    assert "Ensure this value is greater than or equal to 1" in refused.content.decode()

    league_url = response["Location"]
    client.post(f"{league_url}enter/", {"bot": "greedy", "count": 4})
    tournament_round_start(actor=olga, tournament=league)
    page = client.get(league_url).content.decode()
    assert "Correspondence: 12 hours per move" in page
    assert 'data-role="play-by"' in page

    play_by = (timezone.now() + timedelta(days=2)).astimezone(UTC).replace(second=0, microsecond=0)
    done = client.post(
        f"{league_url}rounds/1/play-by/",
        {"play_by": play_by.strftime("%Y-%m-%dT%H:%M")},
        follow=True,
    )
    assert any("Round 1 is to be played by" in m for m in messages_of(done))
    assert Round.objects.get(tournament=league, number=1).play_by == play_by
    assert play_by.strftime("%H:%M UTC") in client.get(league_url).content.decode()

    past = datetime(2020, 1, 1, tzinfo=UTC).strftime("%Y-%m-%dT%H:%M")
    no = client.post(f"{league_url}rounds/1/play-by/", {"play_by": past}, follow=True)
    assert any("must be in the future" in m for m in messages_of(no))
    assert Round.objects.get(tournament=league, number=1).play_by == play_by

    _, eve = person("eve")  # not an organiser
    eve.post(f"{league_url}rounds/1/play-by/", {"play_by": ""})
    assert Round.objects.get(tournament=league, number=1).play_by == play_by
