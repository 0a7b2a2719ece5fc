"""One rating list for people and bots (issue 32; docs/league.md, *One rating list for people
and bots*): a rated people's table with a built-in bot moves both people's ratings on the
family's list, on the same rows a bot-only league's games move (the built-in bot anchors
them), and the list shows people beside the bots, filtered and with each position's
confidence, on the page and in the API. A person's rated game against chosen ladder
versions is refused when a version's owner does not allow it and queued on the
`interactive` lane when they do."""

from __future__ import annotations

import math
from collections.abc import Iterator

from django.contrib.auth.models import User
from django.test import Client
from rest_framework.test import APIClient

import pytest

from league.domain.ratings_maths import DEFAULT_MU, DEFAULT_SIGMA
from league.errors import InvalidInputError, NotAllowedError
from league.models import (
    Competitor,
    LadderEntrant,
    Match,
    MatchStatus,
    Rating,
    SeatInvitation,
)
from league.selectors.ratings import ratings_leaderboard
from league.services.competitors import competitor_builtin, competitor_for_user
from league.services.ladders import ladder_roster_sync
from league.services.matches import match_person_act, match_run
from league.services.rated_games import rated_game_with_bots
from league.services.ratings import ratings_update
from league.services.tables import seat_invitation_accept, table_open
from league.services.tournaments import tournament_create
from tests.api_answers import ok
from tests.engine.toy_family import FAMILY, register_toy_family, unregister_toy_family
from tests.league.builders import builtin_competitors, club_with_organiser, user_create
from tests.league.test_match_lanes import INTERACTIVE, lanes_sent
from tests.league.test_standings_service import rounds_played
from tests.web.ladder_builders import ladder_with_anchors, uploaded_version

pytestmark = [pytest.mark.postgres]


@pytest.fixture
def toy_family() -> Iterator[None]:
    register_toy_family()
    yield
    unregister_toy_family()


def played_out(match: Match, people: dict[int, User]) -> None:
    """The bots play until a person is to act; that person plays their last legal action;
    until the match is finished."""
    for _ in range(200):
        match_run(match_id=match.pk, worker="test")
        match.refresh_from_db()
        if match.status == MatchStatus.FINISHED:
            return
        seat = match.waiting_seat
        assert seat in people, (match.status, seat)
        api = APIClient()
        api.force_authenticate(people[seat])
        view = ok(api.get(f"/api/matches/{match.pk}/seats/{seat}/view/"))
        match_person_act(match=match, seat=seat, action=view["view"]["legal"][-1])
    raise AssertionError("the table did not finish")


@pytest.mark.django_db
@pytest.mark.usefixtures("toy_family")
def test_a_rated_peoples_table_moves_both_peoples_ratings_beside_the_bots() -> None:
    ann, bob = user_create("ann"), user_create("bob")
    table = table_open(
        actor=ann,
        game=f"{FAMILY}(deals=1)",
        seats=["me", "invite:bob", "builtin:greedy", "builtin:random"],
    )
    code = SeatInvitation.objects.get(match=table, invitee=bob).code
    seat_invitation_accept(user=bob, code=code)
    # The built-in greedy plays a bot-only league of the family too: the anchor.
    club, organiser = club_with_organiser()
    greedy = competitor_builtin(name="greedy")
    league = tournament_create(
        actor=organiser,
        club=club,
        name="Bots only",
        game=FAMILY,
        rounds=1,
        deals=1,
        entrants=[greedy, *builtin_competitors(3, "random")],
    )
    rounds_played(league, organiser, 1)
    played_out(table, {0: ann, 1: bob})
    ratings_update()

    people = {competitor_for_user(user=ann).pk, competitor_for_user(user=bob).pk}
    for competitor in people:
        rating = Rating.objects.get(competitor_id=competitor, family=FAMILY, tournament=None)
        assert rating.games == 1
        assert (rating.mu, rating.sigma) != (DEFAULT_MU, DEFAULT_SIGMA)
    # One row of the family for the anchor: its table and its league game both moved it.
    anchor = Rating.objects.get(competitor=greedy, family=FAMILY, tournament=None)
    assert anchor.games == 2

    both = ratings_leaderboard(family=FAMILY)
    kinds = {row["competitor"]: row["kind"] for row in both}
    assert people | {greedy.pk} <= set(kinds)
    assert {kinds[c] for c in people} == {"person"}
    assert kinds[greedy.pk] == "bot"
    assert [row["rank"] for row in both] == list(range(1, len(both) + 1))
    assert [row["conservative"] for row in both] == sorted(
        (row["conservative"] for row in both), reverse=True
    )
    assert both[-1]["confidence"] is None
    top, next_down = both[0], both[1]  # P(top's skill > the next one's), as a ladder says it
    spread = math.sqrt(2 * (top["sigma"] ** 2 + next_down["sigma"] ** 2))
    sure = 0.5 * (1 + math.erf((top["mu"] - next_down["mu"]) / spread))
    assert top["confidence"] == pytest.approx(sure)
    assert all(0 <= row["confidence"] <= 1 for row in both[:-1])
    assert {row["competitor"] for row in ratings_leaderboard(family=FAMILY, who="people")} == (
        people
    )
    bots = ratings_leaderboard(family=FAMILY, who="bots")
    assert greedy.pk in {row["competitor"] for row in bots}
    assert {row["kind"] for row in bots} == {"bot"}

    page = Client().get("/ratings/", {"family": FAMILY, "who": "people"})
    assert page.status_code == 200
    html = page.content.decode()
    assert 'data-role="rating-who"' in html
    assert ">ann<" in html
    assert ">bob<" in html
    assert greedy.name not in html.split('id="leaderboard"')[1]


@pytest.mark.django_db
def test_the_api_lists_people_and_bots_of_a_family_filtered_with_their_confidence() -> None:
    """The API's list (its family field knows the engine's families at import: kingen)."""
    ann = competitor_for_user(user=user_create("ann"))
    greedy = competitor_builtin(name="greedy")
    for competitor, mu, sigma in ((ann, 30.0, 4.0), (greedy, 27.0, 2.0)):
        Rating.objects.create(
            competitor=competitor,
            family="kingen",
            mu=mu,
            sigma=sigma,
            conservative=mu - 3 * sigma,
            games=3,
        )
    api = APIClient()
    both = ok(api.get("/api/ratings/", {"game": "kingen"}))
    assert [(row["competitor"], row["kind"]) for row in both] == [
        (greedy.pk, "bot"),  # 21 against ann's 18: the low end ranks
        (ann.pk, "person"),
    ]
    assert 0 < both[0]["confidence"] < 0.5  # ann's mu is higher: the order is unsure
    assert both[1]["confidence"] is None
    people = ok(api.get("/api/ratings/", {"game": "kingen", "who": "people"}))
    assert [row["competitor"] for row in people] == [ann.pk]
    bots = ok(api.get("/api/ratings/", {"game": "kingen", "who": "bots"}))
    assert [row["competitor"] for row in bots] == [greedy.pk]
    refused = api.get("/api/ratings/", {"game": "kingen", "who": "nobody"})
    assert refused.status_code == 400
    assert "who" in refused.json()["errors"]


@pytest.mark.django_db
def test_a_rated_game_against_ladder_versions_needs_their_owners_consent() -> None:
    ladder = ladder_with_anchors()
    olga, ann = user_create("olga"), user_create("ann")
    zot = uploaded_version(olga)
    ladder_roster_sync(ladder)
    anchors = list(
        LadderEntrant.objects.filter(ladder=ladder, anchor=True)
        .order_by("id")
        .values_list("competitor_id", flat=True)
    )
    opponents = [zot.pk, *anchors[:2]]
    bot = zot.bot_version.bot  # type: ignore[union-attr]
    assert bot.people_may_play_rated  # on by default
    page = Client()
    page.force_login(olga)
    assert 'data-role="rated-games-consent"' in page.get(f"/bots/{bot.pk}/").content.decode()
    page.post(f"/bots/{bot.pk}/rated-games/", {})  # the box left unticked: not allowed
    bot.refresh_from_db()
    assert not bot.people_may_play_rated

    with pytest.raises(NotAllowedError, match="does not allow rated games against people"):
        rated_game_with_bots(actor=ann, ladder=ladder, opponents=opponents)
    player = APIClient()
    player.force_authenticate(ann)
    url = f"/api/ladders/{ladder.slug}/rated-games/"
    assert player.post(url, {"opponents": opponents}, format="json").status_code == 403
    assert not Match.objects.filter(seats__competitor__user=ann).exists()
    # The anchors alone need nobody's consent; a version not on the ladder is refused.
    stranger = builtin_competitors(1, "random")[0]
    with pytest.raises(InvalidInputError, match="not a version playing on the"):
        rated_game_with_bots(actor=ann, ladder=ladder, opponents=[*anchors[:2], stranger.pk])
    too_few = player.post(url, {"opponents": anchors[:2]}, format="json")
    assert too_few.status_code == 400
    assert "opponents" in too_few.json()["errors"]

    owner = APIClient()
    owner.force_authenticate(olga)
    answer = ok(owner.patch(f"/api/bots/{bot.pk}/", {"people_may_play_rated": True}, "json"))
    assert answer["people_may_play_rated"] is True
    created = ok(player.post(url, {"opponents": opponents}, format="json"), 201)
    match = Match.objects.get(pk=created["match"])
    assert match.status == MatchStatus.QUEUED
    seated = list(match.seats.order_by("seat").values_list("competitor_id", flat=True))
    assert seated == [competitor_for_user(user=ann).pk, *opponents]
    assert lanes_sent(match.pk) == [INTERACTIVE]
    assert Competitor.objects.get(pk=zot.pk).bot_version is not None


@pytest.mark.django_db
def test_the_ladder_page_seats_a_person_at_a_rated_game_and_says_why_it_cannot() -> None:
    ladder = ladder_with_anchors()
    olga, ann = user_create("olga"), user_create("ann")
    zot = uploaded_version(olga)
    ladder_roster_sync(ladder)
    anchors = list(
        LadderEntrant.objects.filter(ladder=ladder, anchor=True)
        .order_by("id")
        .values_list("competitor_id", flat=True)
    )
    page_url = f"/ladders/{ladder.slug}/"
    post_url = f"/ladders/{ladder.slug}/rated-game/"
    assert 'id="rated-game-title"' not in Client().get(page_url).content.decode()  # a visitor
    person = Client()
    person.force_login(ann)
    form = person.get(page_url).content.decode()
    assert 'id="rated-game-title"' in form
    assert f'<option value="{zot.pk}"' in form.split('id="rated-game-title"')[1]

    # The owner withdraws their consent: the form no longer offers the bot, and a post that
    # names it anyway is refused with the reason on the page.
    bot = zot.bot_version.bot  # type: ignore[union-attr]
    bot.people_may_play_rated = False
    bot.save(update_fields=["people_may_play_rated"])
    form = person.get(page_url).content.decode()
    assert f'<option value="{zot.pk}"' not in form.split('id="rated-game-title"')[1]
    refused = person.post(post_url, {"opponent": [zot.pk, *anchors[:2]]}, follow=True)
    assert refused.status_code == 200
    assert "does not allow rated games against people" in refused.content.decode()
    too_few = person.post(post_url, {"opponent": anchors[:2]}, follow=True)
    assert "one for each other seat" in too_few.content.decode()
    assert not Match.objects.filter(seats__competitor__user=ann).exists()

    # A choice the owners allow: to the person's seat at a table queued on the lane.
    seated = person.post(post_url, {"opponent": anchors[:3]})
    match = Match.objects.get(seats__competitor__user=ann)
    assert seated.status_code == 302
    assert seated["Location"] == f"/matches/{match.pk}/seats/0/"
    assert match.status == MatchStatus.QUEUED
    assert lanes_sent(match.pk) == [INTERACTIVE]
