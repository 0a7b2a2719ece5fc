"""Signed-in readers of the ladder, version, round and match pages are served the shared
cached page with only their own parts computed (api.read_cache.personal_page): each sees
exactly the page the view renders for them (their seat, their forms, their CSRF token),
never another person's part, and the shared part is not computed again for them. Where a
person sees more than a visitor outside the marked parts (a version's owner, a club
night's organiser, who may ask for a match's analysis, staff) the view renders the page
whole for them, and it is never stored. Real PostgreSQL and Redis."""

from __future__ import annotations

import re
from typing import Any

from django.contrib.auth.models import User
from django.db import connection
from django.middleware import csrf
from django.test import Client, override_settings
from django.utils import timezone

import pytest

from api.read_cache import HIT_HEADER
from league.models import LadderEntrant, Match, MatchSeat, MatchStatus, Tournament
from league.services.ladder_authors import challenge_create
from league.services.ladders import ladder_matchmake
from league.services.matches import match_run
from league.services.tables import table_open
from league.services.tournaments import tournament_create, tournament_round_start
from tests.league.builders import builtin_competitors, club_with_organiser, user_create
from tests.web.ladder_builders import ladder_with_anchors, uploaded_version

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.django_db(transaction=True)]

TOKEN = re.compile(r'name="csrfmiddlewaretoken" value="([A-Za-z0-9]{64})"')
REGION = re.compile(r"<!--personal:(\w+)-->.*?<!--/personal:\1-->", re.DOTALL)


def signed_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def page(answer: Any) -> str:
    """The page without its CSRF tokens (each answer's own mask)."""
    return re.sub(
        r'(csrfmiddlewaretoken" value="|csrf-token" content=")[^"]*', "", answer.content.decode()
    )


def shared_part(answer: Any) -> str:
    """The page without its CSRF tokens and without what its marked regions hold."""
    return REGION.sub(lambda found: f"<!--{found.group(1)}-->", page(answer))


def read_with_queries(client: Client, url: str) -> tuple[Any, list[str]]:
    """``client``'s GET of ``url`` and the SQL it ran (an execute wrapper: Django empties
    CaptureQueriesContext's log as a request starts)."""
    sql: list[str] = []

    def record(execute: Any, statement: str, *args: Any) -> Any:
        sql.append(statement)
        return execute(statement, *args)

    with connection.execute_wrapper(record):
        answer = client.get(url)
    return answer, sql


def whole(client: Client, url: str) -> Any:
    """What the view renders for ``client``'s person, with no read cache at all."""
    with override_settings(READ_CACHE=False):
        answer = client.get(url)
    assert HIT_HEADER not in answer
    return answer


def assert_served_as_the_view_renders_it(client: Client, url: str, answer: Any) -> None:
    """``answer`` (the person's, from the shared page) is the page the view renders for
    them, says so privately, and carries only their own CSRF token."""
    assert answer.status_code == 200
    assert answer[HIT_HEADER] == "hit"
    assert page(answer) == page(whole(client, url))
    assert "private" in answer["Cache-Control"]
    assert "Cookie" in answer["Vary"]
    assert "ETag" not in answer
    tokens = TOKEN.findall(answer.content.decode())
    assert tokens  # the log-out form's, the language switcher's at least
    secret = client.cookies["csrftoken"].value
    assert {csrf._unmask_cipher_token(t) for t in tokens} == {secret}  # type: ignore[attr-defined]


def tables_read(sql: list[str]) -> set[str]:
    return set(re.findall(r'FROM "(\w+)"', " ".join(sql)))


def test_a_ladder_page_shares_its_board_each_reader_with_their_own_challenges() -> None:
    ladder = ladder_with_anchors()
    ann, bob = user_create("ann"), user_create("bob")
    mine = uploaded_version(ann)
    ladder_matchmake(ladder_id=ladder.pk)
    anchors = LadderEntrant.objects.filter(ladder=ladder, anchor=True).values_list(
        "competitor_id", flat=True
    )
    challenge_create(
        actor=ann, ladder=ladder, competitor_id=mine.pk, opponent_ids=list(anchors)[:3]
    )
    url = f"/ladders/{ladder.slug}/"
    ann_client, bob_client = signed_in(ann), signed_in(bob)

    first, computed = read_with_queries(ann_client, url)
    assert first[HIT_HEADER] == "miss"  # the visitor's page computed and stored ...
    visitor = Client().get(url)
    assert visitor[HIT_HEADER] == "hit"  # ... for everyone
    theirs, shared = read_with_queries(bob_client, url)
    mine_again = ann_client.get(url)
    for client, answer in ((ann_client, mine_again), (bob_client, theirs)):
        assert_served_as_the_view_renders_it(client, url, answer)
    assert shared_part(mine_again) == shared_part(theirs) == shared_part(visitor)
    assert len(shared) < len(computed)

    ann_text, bob_text, visitor_text = (a.content.decode() for a in (mine_again, theirs, visitor))
    assert 'id="my-challenges"' in ann_text  # her challenge and her version's form
    assert f'<option value="{mine.pk}">' in ann_text.split('id="challenge-title"')[1]
    assert 'id="my-challenges"' not in bob_text  # not his: nor her version to choose
    assert 'name="version"' not in bob_text
    assert "Upload an active version" in bob_text
    assert 'id="rated-game-title"' in bob_text
    assert "ann" not in bob_text.split("<main")[0]  # her header is hers
    assert 'id="challenge-title"' not in visitor_text
    assert 'id="rated-game-title"' not in visitor_text


def test_a_version_page_is_shared_with_readers_and_whole_for_its_owner() -> None:
    ladder = ladder_with_anchors()
    ann, bob = user_create("ann"), user_create("bob")
    mine = uploaded_version(ann)
    ladder_matchmake(ladder_id=ladder.pk)
    url = f"/ladders/{ladder.slug}/versions/{mine.pk}/"
    ann_client, bob_client = signed_in(ann), signed_in(bob)

    computed = read_with_queries(bob_client, url)[1]
    assert Client().get(url)[HIT_HEADER] == "hit"
    theirs, shared = read_with_queries(bob_client, url)
    assert_served_as_the_view_renders_it(bob_client, url, theirs)
    # The version's rating history: read once, for everyone (its games' seats are read
    # for the person's own counts too: "awaiting your move").
    version_tables = {"league_ratingchange"}
    assert version_tables <= tables_read(computed)
    assert not version_tables & tables_read(shared)
    assert len(shared) < len(computed)
    assert "Take it off the ladder" not in theirs.content.decode()

    owners = ann_client.get(url)  # its owner's page: rendered whole, never stored
    assert owners.status_code == 200
    assert HIT_HEADER not in owners
    assert "Take it off the ladder" in owners.content.decode()
    assert page(owners) == page(whole(ann_client, url))
    assert "Take it off the ladder" not in Client().get(url).content.decode()
    staff = user_create("staff")
    staff.is_staff = True
    staff.save()
    assert HIT_HEADER not in signed_in(staff).get(url)


def club_league(at_club: bool) -> tuple[Tournament, User, list[Match]]:
    name = "night" if at_club else "club"
    club, organiser = club_with_organiser(name=name, organiser=f"{name}-organiser")
    tournament = tournament_create(
        actor=organiser,
        club=club,
        name="League",
        game="kingen",
        entrants=builtin_competitors(4, "greedy"),
        at_club=at_club,
    )
    round_ = tournament_round_start(actor=organiser, tournament=tournament)
    return tournament, organiser, list(round_.matches.all())


def test_a_round_page_is_shared_with_readers_and_whole_for_a_club_nights_organiser() -> None:
    tournament, organiser, matches = club_league(at_club=False)
    for match in matches:
        match_run(match_id=match.pk, worker="test")
    url = f"/leagues/{tournament.pk}/rounds/1/"
    # (Signing in writes: a new reads generation. So every client signs in first.)
    reader, organiser_client = signed_in(user_create("rita")), signed_in(organiser)
    computed = read_with_queries(reader, url)[1]
    answer, shared = read_with_queries(reader, url)
    assert_served_as_the_view_renders_it(reader, url, answer)
    organisers = organiser_client.get(url)  # a league away from a club: nothing of theirs
    assert_served_as_the_view_renders_it(organiser_client, url, organisers)
    assert "<strong>rita</strong>" in answer.content.decode()
    assert "<strong>rita</strong>" not in organisers.content.decode()
    round_tables = {"league_round", "league_competitor"}  # the round, its seats' links
    assert round_tables <= tables_read(computed)
    assert not round_tables & tables_read(shared)
    assert len(shared) < len(computed)

    night, night_organiser, _ = club_league(at_club=True)
    url = f"/leagues/{night.pk}/rounds/1/"
    night_organiser_client = signed_in(night_organiser)
    organising = night_organiser_client.get(url)
    assert HIT_HEADER not in organising  # the night's controls are theirs: rendered whole
    assert 'data-role="close-night"' in organising.content.decode()
    assert page(organising) == page(whole(night_organiser_client, url))
    readers = reader.get(url)
    assert readers.status_code == 200
    assert 'data-role="close-night"' not in readers.content.decode()
    assert_served_as_the_view_renders_it(reader, url, reader.get(url))


def test_a_match_page_is_shared_each_seated_person_with_their_own_seat_and_chat() -> None:
    ann, bob = user_create("ann"), user_create("bob")
    match = table_open(
        actor=ann, game="kingen", seats=["me", "builtin:greedy", "builtin:greedy", "builtin:random"]
    )
    seat = MatchSeat.objects.get(match=match, competitor__user=ann).seat
    url = f"/matches/{match.pk}/"
    ann_client, bob_client = signed_in(ann), signed_in(bob)

    computed = read_with_queries(bob_client, url)[1]
    visitor = Client().get(url)
    assert visitor[HIT_HEADER] == "hit"
    theirs, shared = read_with_queries(bob_client, url)
    mine = ann_client.get(url)
    for client, answer in ((ann_client, mine), (bob_client, theirs)):
        assert_served_as_the_view_renders_it(client, url, answer)
    assert shared_part(mine) == shared_part(theirs) == shared_part(visitor)
    match_tables = {"league_competitor"}  # the seats' links
    assert match_tables <= tables_read(computed)
    assert not match_tables & tables_read(shared)
    assert len(shared) < len(computed)

    seat_link = f'href="/matches/{match.pk}/seats/{seat}/"'
    ann_text, bob_text = mine.content.decode(), theirs.content.decode()
    assert seat_link in ann_text
    assert 'data-role="chat-form"' in ann_text
    assert seat_link not in bob_text
    assert 'data-role="chat-form"' not in bob_text
    assert "<strong>ann</strong>" not in bob_text
    assert seat_link not in visitor.content.decode()

    # Over: her play-again is hers alone.
    Match.objects.filter(pk=match.pk).update(
        status=MatchStatus.FINISHED, finished_at=timezone.now(), attempts=1
    )
    over, again = ann_client.get(url), bob_client.get(url)
    assert (over[HIT_HEADER], again[HIT_HEADER]) == ("miss", "hit")
    assert 'data-role="play-again"' in over.content.decode()
    assert 'data-role="play-again"' not in again.content.decode()
    assert_served_as_the_view_renders_it(ann_client, url, ann_client.get(url))
    assert_served_as_the_view_renders_it(bob_client, url, again)


def test_a_match_page_is_whole_for_who_may_ask_for_its_analysis_and_never_stored() -> None:
    _, organiser, matches = club_league(at_club=False)
    organiser_client, reader = signed_in(organiser), signed_in(user_create("rita"))
    match_run(match_id=matches[0].pk, worker="test")  # finished: its analysis panel
    url = f"/matches/{matches[0].pk}/"
    for _ in range(2):
        organisers = organiser_client.get(url)  # the league's organiser may ask for it
        assert organisers.status_code == 200
        assert HIT_HEADER not in organisers
        assert 'data-role="analysis-request"' in organisers.content.decode()
    readers = reader.get(url)
    assert readers[HIT_HEADER] == "miss"  # the organiser's pages were not stored
    assert 'data-role="analysis-request"' not in readers.content.decode()
    assert_served_as_the_view_renders_it(reader, url, reader.get(url))
    assert page(organisers) == page(whole(organiser_client, url))
