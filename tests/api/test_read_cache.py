"""The shared cache of anonymous public reads (api/read_cache.py, its generations in
league/reads_generation.py): what it serves is what the view would answer now, to anonymous
readers only, and the hot pages read the database a fixed number of times however many
matches they show."""

from __future__ import annotations

import re
from typing import Any

from django.contrib.auth.models import User
from django.db import connection
from django.middleware import csrf
from django.test import Client, override_settings
from django.utils import timezone
from rest_framework.authtoken.models import Token

import pytest
from prometheus_client import REGISTRY

from api import read_cache
from api.read_cache import HIT_HEADER
from config.web_server import WebServerConfigurationError, processes_from
from league.models import Match, MatchStatus, Tournament
from league.reads_generation import written_table
from league.services.matches import match_run
from league.services.tournaments import tournament_create, tournament_round_start
from tests.league.builders import (
    bot_tournament,
    builtin_competitors,
    club_with_organiser,
    user_create,
)

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.django_db(transaction=True)]

TOKEN = re.compile(r'name="csrfmiddlewaretoken" value="([A-Za-z0-9]{64})"')


def page(content: bytes) -> str:
    """The page without its CSRF tokens (each visitor's, each answer's own)."""
    return re.sub(
        r'(csrfmiddlewaretoken" value="|csrf-token" content=")[^"]*', "", content.decode()
    )


def signed_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def played_league(entrants: int = 4, club: str = "") -> tuple[Tournament, User, list[Match]]:
    if club:  # a league of a club of its own (the builders' organiser is one name)
        created, organiser = club_with_organiser(name=club, organiser=f"{club}-organiser")
        tournament = tournament_create(
            actor=organiser,
            club=created,
            name=f"{club} league",
            game="kingen",
            entrants=builtin_competitors(entrants, "greedy"),
        )
    else:
        tournament, organiser = bot_tournament(game="kingen", bot="greedy", entrants=entrants)
    matches = list(tournament_round_start(actor=organiser, tournament=tournament).matches.all())
    return tournament, organiser, matches


def test_a_standings_page_changes_when_a_match_finishes() -> None:
    tournament, _, matches = played_league()
    pages = (f"/leagues/{tournament.pk}/", f"/api/tournaments/{tournament.pk}/standings/")
    before = {}
    for url in pages:
        first, again = Client().get(url), Client().get(url)
        assert (first[HIT_HEADER], again[HIT_HEADER]) == ("miss", "hit")
        assert page(again.content) == page(first.content)
        before[url] = page(again.content)

    match_run(match_id=matches[0].pk, worker="test")  # commits: a new reads generation

    for url in pages:
        after = Client().get(url)
        assert after[HIT_HEADER] == "miss"
        assert page(after.content) != before[url]
    standings = Client().get(pages[1]).json()
    assert Client().get(pages[1])[HIT_HEADER] == "hit"
    assert standings == Client().get(pages[1]).json()


def test_a_page_lags_a_change_at_most_the_lag_it_is_given(settings: Any) -> None:
    tournament, _, matches = played_league()
    url = f"/api/tournaments/{tournament.pk}/standings/"
    settings.READ_CACHE_LAG_SECONDS = 60
    before = Client().get(url)
    assert before[HIT_HEADER] == "miss"

    match_run(match_id=matches[0].pk, worker="test")  # a new reads generation

    lagging = Client().get(url)  # computed under the old one a moment ago: still served
    assert lagging[HIT_HEADER] == "hit"
    assert lagging.json() == before.json()
    settings.READ_CACHE_LAG_SECONDS = 0  # as if the lag had passed
    after = Client().get(url)
    assert after[HIT_HEADER] == "miss"
    assert after.json() != before.json()
    settings.READ_CACHE_LAG_SECONDS = 60  # the new answer is of the current generation
    assert Client().get(url).json() == after.json()


def test_a_write_by_queryset_update_moves_the_pages_on_too() -> None:
    tournament, _, _ = played_league()
    url = f"/leagues/{tournament.pk}/"
    Client().get(url)
    assert Client().get(url)[HIT_HEADER] == "hit"
    Tournament.objects.filter(pk=tournament.pk).update(name="Renamed without save()")
    fresh = Client().get(url)
    assert fresh[HIT_HEADER] == "miss"
    assert "Renamed without save()" in fresh.content.decode()


def test_a_running_matchs_progress_moves_on_only_the_pages_that_show_it() -> None:
    tournament, _, matches = played_league()
    Match.objects.filter(pk=matches[0].pk).update(  # claimed, as a worker claims it
        status=MatchStatus.RUNNING, attempts=1, started_at=timezone.now(), worker="test"
    )
    league, round_ = f"/leagues/{tournament.pk}/", f"/leagues/{tournament.pk}/rounds/1/"
    for url in (league, round_):
        Client().get(url)
        assert Client().get(url)[HIT_HEADER] == "hit"
    # As the worker stores a batch of events (league.services.matches.EventWriter.flush).
    Match.objects.filter(pk=matches[0].pk).update(
        lease_until=timezone.now(), events_stored=40, deals_done=3
    )
    assert Client().get(league)[HIT_HEADER] == "hit"  # no running match's progress on it
    moved = Client().get(round_)
    assert moved[HIT_HEADER] == "miss"
    assert "(deal 4)" in moved.content.decode()


def test_a_finished_matchs_replay_ignores_progress_elsewhere_but_not_other_changes() -> None:
    tournament, _, matches = played_league(entrants=8)
    match_run(match_id=matches[0].pk, worker="test")
    replay = f"/matches/{matches[0].pk}/"
    assert Client().get(replay)[HIT_HEADER] == "miss"
    Match.objects.filter(pk=matches[1].pk).update(  # the other table plays on
        status=MatchStatus.RUNNING, attempts=1, started_at=timezone.now(), worker="test"
    )
    assert Client().get(replay)[HIT_HEADER] == "miss"  # a settled write: a new answer
    assert Client().get(replay)[HIT_HEADER] == "hit"
    Match.objects.filter(pk=matches[1].pk).update(
        lease_until=timezone.now(), events_stored=40, deals_done=3
    )
    assert Client().get(replay)[HIT_HEADER] == "hit"
    assert Client().get(f"/matches/{matches[1].pk}/")[HIT_HEADER] == "miss"
    Tournament.objects.filter(pk=tournament.pk).update(name="Renamed league")
    renamed = Client().get(replay)
    assert renamed[HIT_HEADER] == "miss"


def test_a_finished_record_answers_304_from_the_cache_and_public_only_to_anonymous() -> None:
    _, organiser, matches = played_league()
    match_run(match_id=matches[0].pk, worker="test")
    url = f"/api/matches/{matches[0].pk}/record/"
    first = Client().get(url)
    cached = Client().get(url)
    assert cached[HIT_HEADER] == "hit"
    assert cached["Cache-Control"] == "public, max-age=3600"
    assert cached["ETag"] == first["ETag"]
    assert cached.json() == first.json()
    unchanged = Client().get(url, headers={"If-None-Match": first["ETag"]})
    assert unchanged.status_code == 304
    assert unchanged.content == b""

    # Other writes leave a finished record's cached answer alone.
    Tournament.objects.filter(pk=matches[0].tournament_id).update(name="Renamed")
    assert Client().get(url)[HIT_HEADER] == "hit"

    mine = signed_in(organiser).get(url)
    assert HIT_HEADER not in mine
    assert mine["Cache-Control"] == "private, max-age=3600"


def vary_of(response: Any) -> set[str]:
    return {name.strip().lower() for name in response.get("Vary", "").split(",") if name.strip()}


def test_a_finished_records_200_and_304_say_the_same_caching_headers_hit_or_miss() -> None:
    """Cache-Control and Vary are the same on every answer of a finished record: its 200
    computed (a miss), its 200 from the cache (a hit), its 304 from the cache, and the
    view's own 304 (the request with a token, never served from the cache); a hit keeps
    the view's ``Vary: Authorization`` (issue 34: a 304 said ``private, no-cache``, a
    hit dropped Authorization)."""
    _, organiser, matches = played_league()
    match_run(match_id=matches[0].pk, worker="test")
    url = f"/api/matches/{matches[0].pk}/record/"
    miss = Client().get(url)
    hit = Client().get(url)
    unchanged = Client().get(url, headers={"If-None-Match": miss["ETag"]})
    assert (miss[HIT_HEADER], hit[HIT_HEADER], unchanged[HIT_HEADER]) == ("miss", "hit", "hit")
    assert unchanged.status_code == 304
    for answer in (miss, hit, unchanged):
        assert answer["Cache-Control"] == "public, max-age=3600"
        assert answer["ETag"] == miss["ETag"]
        assert vary_of(answer) == vary_of(miss)
        assert {"authorization", "cookie"} <= vary_of(answer)

    token = Token.objects.create(user=organiser).key
    with_token = {"Authorization": f"Token {token}"}
    mine = Client().get(url, headers=with_token)
    mine_unchanged = Client().get(url, headers=with_token | {"If-None-Match": mine["ETag"]})
    assert mine_unchanged.status_code == 304
    assert HIT_HEADER not in mine_unchanged
    assert mine["Cache-Control"] == mine_unchanged["Cache-Control"] == "private, max-age=3600"
    assert vary_of(mine) == vary_of(mine_unchanged)
    assert "authorization" in vary_of(mine_unchanged)


def test_signed_in_readers_share_the_cached_standings_each_with_their_own_parts() -> None:
    tournament, organiser, matches = played_league()
    other = user_create("someone-else")
    url = f"/leagues/{tournament.pk}/"
    organiser_client, other_client = signed_in(organiser), signed_in(other)
    # Nothing stored yet: the visitor's page is computed (and stored), then the person's parts.
    first, computed = read_with_queries(organiser_client, url)
    assert first[HIT_HEADER] == "miss"
    assert Client().get(url)[HIT_HEADER] == "hit"  # ... and stored for everyone

    theirs, shared = read_with_queries(other_client, url)
    mine = organiser_client.get(url)
    visitor = Client().get(url)
    assert (theirs[HIT_HEADER], mine[HIT_HEADER], visitor[HIT_HEADER]) == ("hit",) * 3
    # The shared part (the standings) read no table of the league: only the person's own.
    standings_tables = ('"league_standingssnapshot"', '"league_matchresult"', '"league_rating')
    assert [q for q in computed if any(t in q for t in standings_tables)]
    assert not [q for q in shared if any(t in q for t in standings_tables)]
    assert len(shared) < len(computed) / 2
    assert (
        page(theirs.content).split("<main")[1].split("<!--personal:page-->")[0]
        == (page(visitor.content).split("<main")[1].split("<!--personal:page-->")[0])
    )
    for answer, who, organising in ((mine, organiser, True), (theirs, other, False)):
        text = answer.content.decode()
        assert f"<strong>{who.username}</strong>" in text
        assert ('id="organise-title"' in text) is organising  # the organiser's own part
        assert "Enter competitors" in text  # a signed-in person's panel
        assert "private" in answer["Cache-Control"]
        assert "Cookie" in answer["Vary"]
        assert "ETag" not in answer
    assert organiser.username not in theirs.content.decode()
    visitor_text = visitor.content.decode()
    assert organiser.username not in visitor_text
    assert other.username not in visitor_text
    assert 'id="organise-title"' not in visitor_text
    assert "Enter competitors" not in visitor_text
    # Each person's CSRF token is of their own session's secret (the log-out form's too).
    for client, answer in ((organiser_client, mine), (other_client, theirs)):
        tokens = TOKEN.findall(answer.content.decode())
        assert len(tokens) >= 2
        secret = client.cookies["csrftoken"].value
        assert {csrf._unmask_cipher_token(t) for t in tokens} == {secret}  # type: ignore[attr-defined]

    match_run(match_id=matches[0].pk, worker="test")  # commits: a new reads generation

    after = other_client.get(url)
    assert after[HIT_HEADER] == "miss"
    assert page(after.content) != page(theirs.content)
    assert other_client.get(url)[HIT_HEADER] == "hit"


def test_a_signed_in_page_other_than_the_shared_one_is_never_stored_nor_served_from_cache() -> None:
    tournament, organiser, matches = played_league()
    match_run(match_id=matches[0].pk, worker="test")
    url = f"/matches/{matches[0].pk}/"  # finished: its organiser may ask for its analysis
    for _ in range(2):
        mine = signed_in(organiser).get(url)
        assert mine.status_code == 200
        assert HIT_HEADER not in mine
        assert organiser.username in mine.content.decode()
    assert Client().get(url)[HIT_HEADER] == "miss"  # the organiser's answers were not stored
    # An anonymous visitor with a session cookie (a half-finished sign-in) is not served it.
    with_session = Client()
    with_session.cookies["sessionid"] = "anything"
    assert HIT_HEADER not in with_session.get(f"/leagues/{tournament.pk}/")


def test_an_anonymous_page_is_private_and_carries_each_visitors_own_csrf_token() -> None:
    tournament, _, _ = played_league()
    url = f"/leagues/{tournament.pk}/"
    first = Client(enforce_csrf_checks=True)
    first.get(url)
    second = Client(enforce_csrf_checks=True)
    second.get("/accounts/login/")  # a CSRF cookie of its own
    page = second.get(url)
    assert page[HIT_HEADER] == "hit"
    assert "private" in page["Cache-Control"]
    assert "no-cache" in page["Cache-Control"]
    tokens = TOKEN.findall(page.content.decode())
    assert tokens
    switched = second.post("/language/", {"language": "nl", "csrfmiddlewaretoken": tokens[0]})
    assert switched.status_code in (200, 302)  # not 403: the token is this visitor's
    stranger = Client(enforce_csrf_checks=True)
    stranger.get("/accounts/login/")
    refused = stranger.post("/language/", {"language": "nl", "csrfmiddlewaretoken": tokens[0]})
    assert refused.status_code == 403


def requests_counted() -> float:
    """django-prometheus's count of requests (its first middleware's)."""
    return REGISTRY.get_sample_value("django_http_requests_before_middlewares_total") or 0.0


def test_a_hit_answers_as_the_rest_of_the_middleware_would(settings: Any) -> None:
    """A hit is answered before every other middleware: it says what they would have said
    (the security headers, the language, the frame), counts in the requests' metrics, is
    redirected to HTTPS where the site asks for it, and a first visitor gets a CSRF cookie
    its tokens match."""
    tournament, _, _ = played_league()
    url = f"/leagues/{tournament.pk}/"
    miss = Client().get(url, headers={"Accept-Language": "nl"})
    newcomer = Client(enforce_csrf_checks=True)
    counted = requests_counted()
    hit = newcomer.get(url, headers={"Accept-Language": "nl"})
    assert (miss[HIT_HEADER], hit[HIT_HEADER]) == ("miss", "hit")
    assert requests_counted() == counted + 1
    headers = ("X-Frame-Options", "Content-Language", "Content-Type", "Cache-Control")
    security = ("X-Content-Type-Options", "Referrer-Policy", "Cross-Origin-Opener-Policy")
    for header in (*headers, *security):
        assert hit[header] == miss[header], header
    assert set(hit["Vary"].split(", ")) >= {"Cookie", "Accept-Language"}
    assert hit.cookies[settings.CSRF_COOKIE_NAME].value
    token = TOKEN.findall(hit.content.decode())[0]
    posted = newcomer.post("/language/", {"language": "en", "csrfmiddlewaretoken": token})
    assert posted.status_code in (200, 302)
    settings.SECURE_SSL_REDIRECT = True  # SecurityMiddleware's redirect comes first
    redirected = Client().get(url, headers={"Accept-Language": "nl"})
    assert redirected.status_code == 301
    assert redirected["Location"].startswith("https://")


def test_the_cache_keys_the_language() -> None:
    tournament, _, _ = played_league()
    url = f"/leagues/{tournament.pk}/"
    english = Client().get(url, headers={"Accept-Language": "en"})
    dutch = Client().get(url, headers={"Accept-Language": "nl"})
    assert dutch[HIT_HEADER] == "miss"
    assert dutch["Content-Language"] == "nl"
    assert english["Content-Language"] == "en"


def test_the_cache_keys_the_visitors_time_zone() -> None:
    """A visitor's times are shown in the zone their browser names (web.person_display):
    another zone is another entry; a name zoneinfo does not know is no zone at all."""
    _, _, matches = played_league()
    match_run(match_id=matches[0].pk, worker="test")
    replay = f"/matches/{matches[0].pk}/"

    def visit(zone: str | None) -> str:
        client = Client()
        if zone is not None:
            client.cookies["time_zone"] = zone
        return str(client.get(replay)[HIT_HEADER])

    assert visit(None) == "miss"
    assert visit("Asia/Tokyo") == "miss"
    assert visit("Asia/Tokyo") == "hit"
    assert visit("America/Chicago") == "miss"
    assert visit("Not/AZone") == "hit"  # ignored, as the page ignores it: the zone-less entry


@override_settings(READ_CACHE=False)
def test_off_it_answers_from_the_view() -> None:
    tournament, _, _ = played_league()
    assert HIT_HEADER not in Client().get(f"/leagues/{tournament.pk}/")


def queries_of(url: str) -> int:
    answer, sql = read_with_queries(Client(), url)
    assert answer.status_code == 200
    return len(sql)


def read_with_queries(client: Client, url: str) -> tuple[Any, list[str]]:
    """``client``'s GET of ``url`` and the SQL it ran. (Not CaptureQueriesContext: Django
    empties the connection's query log when a request starts, so it counted none.)"""
    sql: list[str] = []

    def record(execute: Any, statement: str, *args: Any) -> Any:
        sql.append(statement)
        return execute(statement, *args)

    with connection.execute_wrapper(record):
        answer = client.get(url)
    return answer, sql


@override_settings(READ_CACHE=False)
def test_the_hot_pages_read_the_database_a_fixed_number_of_times() -> None:
    """Twice the matches, the same queries: no query per row (N+1) on the hot pages."""
    counts: list[dict[str, int]] = []
    for entrants in (4, 8):
        tournament, _, matches = played_league(entrants=entrants, club=f"c{entrants}")
        for match in matches:
            match_run(match_id=match.pk, worker="test")
        urls = {
            "league": f"/leagues/{tournament.pk}/",
            "round": f"/leagues/{tournament.pk}/rounds/1/",
            "standings api": f"/api/tournaments/{tournament.pk}/standings/",
            "match list api": f"/api/matches/?tournament={tournament.pk}",
            "replay": f"/matches/{matches[0].pk}/",
            "record": f"/api/matches/{matches[0].pk}/record/",
        }
        counts.append({name: queries_of(url) for name, url in urls.items()})
    assert counts[0] == counts[1]


def test_written_table_names_the_table_of_writes_only() -> None:
    assert written_table('INSERT INTO "league_match" ("a") VALUES (1)') == "league_match"
    assert written_table('UPDATE "league_tournament" SET "name" = %s') == "league_tournament"
    assert written_table('  delete from "league_heartbeat" where 1') == "league_heartbeat"
    assert written_table('SELECT * FROM "league_match" FOR UPDATE') is None


def test_web_processes_several_only_with_redis() -> None:
    assert processes_from({"REDIS_URL": "redis://x"}, None, cores=2) == 4
    assert processes_from({"REDIS_URL": "redis://x"}, None, cores=16) == 8
    assert processes_from({}, None, cores=8) == 1
    assert processes_from({"REDIS_URL": "redis://x", "WEB_PROCESSES": "3"}, None, cores=2) == 3
    for environ, given in (({}, 2), ({"WEB_PROCESSES": "2"}, None), ({"WEB_PROCESSES": "x"}, None)):
        with pytest.raises(WebServerConfigurationError):
            processes_from(environ, given, cores=2)


def test_a_cached_pages_view_is_resolved_once_per_url_configuration() -> None:
    """The early hits keep what a read-cache page's path resolves to; another view's path,
    an unknown one and another URL configuration are never answered from what is kept."""
    path = "/leagues/1/"
    first = read_cache._cached_page_match(path)
    assert first is not None
    assert first.kwargs == {"tournament_id": 1}
    assert read_cache._cached_page_match(path) is first
    assert read_cache._cached_page_match("/accounts/login/") is None  # not a cached page
    assert read_cache._cached_page_match("/no/such/page/") is None
    with override_settings(ROOT_URLCONF="tests.api.urls_without_pages"):
        assert read_cache._cached_page_match(path) is None
    again = read_cache._cached_page_match(path)  # Django's resolvers made anew: resolved anew
    assert again is not None
    assert again.func is first.func
