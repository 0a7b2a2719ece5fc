"""The home page shows the game: games being played to watch and the latest finished ones
to replay, one click away, and a signed-in person's own games waiting for their move
first; a visitor's page (from the shared read cache) never holds a person's part."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.test import Client

import pytest

from engine import load_game
from league.models import Match, MatchStatus
from league.services.matches import match_run
from league.services.tables import table_open
from league.services.tournaments import tournament_round_start
from tests.league.builders import bot_tournament

BOTS = ["builtin:greedy", "builtin:greedy", "builtin:random"]


@pytest.mark.django_db
def test_home_shows_games_to_watch_and_replay_and_a_persons_move_first() -> None:
    ann = User.objects.create_user("ann", "ann@example.org", "a long password 1")
    User.objects.create_user("eve", "eve@example.org", "a long password 1")
    seed = next(s for s in range(100) if load_game("kingen").new_initial_state(seed=s).dealer)
    table = table_open(actor=ann, game="kingen", seats=["me", *BOTS])
    Match.objects.filter(pk=table.pk).update(seed=seed)
    match_run(match_id=table.pk, worker="test")  # the bots play until ann is to act
    table.refresh_from_db()
    assert (table.status, table.waiting_seat) == (MatchStatus.RUNNING, 0)
    tournament, organiser = bot_tournament()
    league_game = tournament_round_start(actor=organiser, tournament=tournament).matches.get()
    assert match_run(match_id=league_game.pk, worker="test").outcome == "finished"

    visitor = Client(HTTP_ACCEPT_LANGUAGE="en")
    for _ in range(2):  # computed, then from the shared cache: the same visitor's page
        page = visitor.get("/").content.decode()
        playing = page.split('data-role="home-playing"', 1)[1].split("</section>", 1)[0]
        finished = page.split('data-role="home-finished"', 1)[1].split("</section>", 1)[0]
        assert f'href="/matches/{table.pk}/"' in playing  # watch it
        assert f'href="/matches/{league_game.pk}/"' in finished  # replay it
        assert f'href="/matches/{league_game.pk}/"' not in playing
        assert 'data-role="home-yours"' not in page
        assert f"/matches/{table.pk}/seats/0/" not in page

    person = Client(HTTP_ACCEPT_LANGUAGE="en")
    person.force_login(ann)
    page = person.get("/").content.decode()
    assert 'data-role="home-yours"' in page
    yours = page.split('data-role="home-yours"', 1)[1].split("</section>", 1)[0]
    assert f'href="/matches/{table.pk}/seats/0/"' in yours
    assert 'data-list="your_move"' in yours
    assert page.index('data-role="home-yours"') < page.index('data-role="home-playing"')
    assert visitor.get("/").content.decode().count("home-yours") == 0  # nothing leaked

    other = Client(HTTP_ACCEPT_LANGUAGE="en")
    other.force_login(User.objects.get(username="eve"))
    page = other.get("/").content.decode()
    assert 'data-role="home-yours"' not in page  # eve has no game of her own
    assert f'href="/matches/{table.pk}/"' in page  # but may watch ann's
