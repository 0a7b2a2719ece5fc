"""The Dutch and Swedish catalogues are complete, and the pages, an email and the API's
errors speak them (issue 21).

- Every message of both catalogues (the pages' and the JavaScript's) has its Dutch and its
  Swedish translation, none fuzzy, with the same placeholders as the English.
- The engine's words listed for the catalogues are current (manage.py engine_words).
- The main pages rendered in Dutch and in Swedish show no English message of the
  catalogue; the language follows the browser, the switcher and the person's settings.
- A notice's email and an API error come in the person's or the request's language.
"""

from __future__ import annotations

import functools
import os
from typing import TYPE_CHECKING, Any

from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client
from django.utils import timezone, translation

import pytest
from pytest_django.fixtures import Settings

from league.models import (
    Club,
    LadderEntrant,
    Match,
    MatchSeat,
    Notification,
    NotificationKind,
    PersonDisplaySettings,
)
from league.services.ladders import ladder_matchmake
from league.services.notification_emails import notifications_email
from tests.league.builders import bot_tournament, user_create
from tests.web.club_night_pages import club_night_pages
from tests.web.ladder_builders import ladder_with_anchors, small_ladder, uploaded_version
from tests.web.translations import (
    DOMAINS,
    LANGUAGES,
    PLACEHOLDER,
    catalogue,
    english_left,
    visible_texts,
)

if TYPE_CHECKING:
    from selenium.webdriver.chrome.webdriver import WebDriver

    from tests.uvicorn_servers import UvicornLiveServer


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("domain", DOMAINS)
def test_every_message_has_its_translation(language: str, domain: str) -> None:
    messages = catalogue(language, domain)
    assert len(messages) > 100
    missing = [m.msgid for m in messages if m.untranslated]
    assert missing == [], f"{len(missing)} messages lack their {language} translation"


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("domain", DOMAINS)
def test_translations_keep_the_placeholders(language: str, domain: str) -> None:
    wrong = []
    for message in catalogue(language, domain):
        english = sorted(PLACEHOLDER.findall(message.plural or message.msgid))
        wrong += [
            (message.msgid, text)
            for text in message.translations
            if sorted(PLACEHOLDER.findall(text)) != english
        ]
    assert wrong == []


def test_a_fuzzy_or_empty_entry_counts_as_missing() -> None:
    from tests.web.translations import Message

    assert Message("Play", translations=["Spelen"], fuzzy=True).untranslated
    assert Message("Play", translations=[""]).untranslated
    assert Message("%(n)s card", plural="%(n)s cards", translations=["x", ""]).untranslated
    assert not Message("Play", translations=["Spelen"]).untranslated


def test_the_engine_words_for_the_catalogues_are_current() -> None:
    call_command("engine_words", "--check")


def test_the_engine_words_are_in_both_catalogues() -> None:
    from web.engine_words import engine_words

    words, verbs = engine_words()
    for language in LANGUAGES:
        for domain in DOMAINS:
            known = {(m.context, m.msgid) for m in catalogue(language, domain)}
            assert {(None, w) for w in words} <= known
            assert {("action verb", v) for v in verbs} <= known


# ---------------------------------------------------------------- pages


@pytest.fixture
def person_with_a_league(settings: Settings) -> tuple[User, int, int, list[str]]:
    settings.WEB_SAMPLES = True
    tournament, organiser = bot_tournament(entrants=4)
    assert tournament.club is not None
    # A name no message of the catalogue has ("Club" is one).
    Club.objects.filter(pk=tournament.club.pk).update(name="Kaartclub De Zot")
    ladder = small_ladder(organiser)  # their version suspended, its log, their challenge
    return organiser, tournament.pk, tournament.club.pk, ladder.pages()


def pages(league: int, club: int, username: str) -> list[str]:
    return [
        "/",
        "/leagues/",
        f"/leagues/{league}/",
        "/clubs/",
        f"/clubs/{club}/",
        f"/clubs/{club}/leagues/new/",
        "/bots/",
        "/replays/",
        "/lobby/",
        "/play/",
        "/play-now/",
        "/rules/",
        "/rules/kingen/",
        "/rules/kung_och_adel/",
        "/rules/king/",
        "/rules/dubbelkingen/",
        "/rules/priffe/",
        "/ratings/",
        "/games/",
        "/notifications/",
        "/settings/notifications/",
        "/settings/display/",
        "/invitations/",
        "/join/",
        f"/people/{username}/",
        "/samples/",
        "/samples/replay/?game=kingen&seed=3",
        "/samples/table/?game=kingen&seed=3&new=1",
        "/no/such/page/",
    ]


@pytest.mark.django_db
@pytest.mark.parametrize("language", LANGUAGES)
def test_the_pages_in_dutch_and_swedish_show_no_english_message(
    language: str, person_with_a_league: tuple[User, int, int, list[str]]
) -> None:
    person, league, club, ladder_pages = person_with_a_league
    messages = catalogue(language, "django")
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(person)
    left = {}
    for path in [*pages(league, club, person.get_username()), *ladder_pages]:
        response = client.get(path)
        assert response.status_code in (200, 404), path
        assert response.status_code == 200 or path not in ladder_pages, path
        assert response["Content-Language"] == language, path
        found = english_left(visible_texts(response.content.decode()), messages)
        if found:
            left[path] = found
    assert not left, "\n".join(f"{path}: {found}" for path, found in left.items())


@pytest.mark.django_db
@pytest.mark.parametrize("language", LANGUAGES)
def test_the_club_night_pages_in_dutch_and_swedish_show_no_english_message(
    language: str,
) -> None:
    """The table cards, the table's score entry (Kingen for three, entered; Priffe, open),
    the projector, a club league, its round and a confirmed, corrected match: the pages'
    words and the score sheets' words (the engine's, translated at the boundary)."""
    organiser, paths = club_night_pages()
    messages = catalogue(language, "django")
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(organiser)
    left = {}
    for path in paths:
        response = client.get(path)
        assert response.status_code == 200, path
        assert response["Content-Language"] == language, path
        found = english_left(visible_texts(response.content.decode()), messages)
        if found:
            left[path] = found
    assert not left, "\n".join(f"{path}: {found}" for path, found in left.items())
    pdf = client.get(f"{paths[2].removesuffix('/')}.pdf?paper=a4")
    assert pdf.status_code == 200
    with translation.override(language):
        assert translation.gettext("Seating, round %(round)s") != "Seating, round %(round)s"


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("en", "deal 2 (hearts): the hearts taken add up to 12; a deal has 13"),
        ("nl", "spel 2 (Harten): gehaalde harten tellen op tot 12; een spel heeft er 13"),
        ("sv", "giv 2 (Hjärter): tagna hjärter blir sammanlagt 12; en giv har 13"),
    ],
)
def test_a_score_sheet_refusal_is_said_in_the_requests_language(language: str, words: str) -> None:
    from engine.errors import ScoreEntryError
    from engine.variants import load_game
    from league.words.score_sheet import score_refusal_in_language

    entry = [{"taken": [4, 3, 3, 3]}, {"taken": [4, 3, 3, 2]}, *[{}] * 8]
    with pytest.raises(ScoreEntryError) as refused:
        load_game("kingen").table_scores(entry)
    with translation.override(language):
        assert score_refusal_in_language(str(refused.value)) == words


def family_score_refusals() -> list[str]:
    """The families' own refusals of a score entry, as the engine words them: Kingen's
    fixed order of contracts, Dubbelkingen's contract used a third time, King's count of
    hands, Kung och Adel's ranks, Priffe's contract and rubbers."""
    from engine.errors import ScoreEntryError
    from engine.variants import load_game

    ranks = ["monarch", "noble", "peasant", "fool"]
    kingen: list[dict[str, Any]] = [{"taken": [4, 3, 3, 3]}] * 2
    kingen += [{"contract": "queens", "taken": [1, 1, 1, 1]}, *[{}] * 7]
    king: list[dict[str, Any]] = [{"taken": [4, 3, 3, 3]}] * 2 + [
        {"taken": [1, 1, 1, 1]},
        {"taken": [2, 2, 2, 2]},
        {"taken": [1, 0, 0, 0]},
        {"taken": [1, 1, 0, 0]},
    ]
    entries: list[tuple[str, list[dict[str, Any]]]] = [
        ("kingen", kingen),
        ("dubbelkingen", [{"contract": "tricks", "taken": [4, 3, 3, 3]}] * 3 + [{}] * 17),
        ("king", king),
        ("kung_och_adel(deals=1)", [{"ranks": ["monarch", "noble", "noble", "fool"]}]),
        (
            "kung_och_adel(deals=1)",
            [{"ranks_before": ranks, "tricks": [6, 3, 3, 1], "ranks": ranks}],
        ),
        (
            "priffe(rubbers_per_game=1)",
            [{"contract": "hearts", "declarer": 0, "tricks": [13, 0], "honours": [2, 2]}],
        ),
        ("priffe(rubbers_per_game=1)", [{"declarer": 0, "tricks": [7, 6], "honours": [2, 2]}]),
        ("priffe(rubbers_per_game=1)", []),
    ]
    refusals = []
    for game, entry in entries:
        with pytest.raises(ScoreEntryError) as refused:
            load_game(game).table_scores(entry)
        refusals.append(str(refused.value))
    return refusals


@pytest.mark.parametrize("language", ["nl", "sv"])
def test_a_familys_own_score_refusal_is_said_in_the_requests_language(language: str) -> None:
    """Not only the place of a family's own refusal (``deal 3 (Harten):``) but its rule."""
    from league.words.score_sheet import score_refusal_in_language

    left = []
    for message in family_score_refusals():
        rule = message.rpartition("): ")[2] if "): " in message else message.partition(": ")[2]
        with translation.override(language):
            said = score_refusal_in_language(message)
        if (rule or message) in said:
            left.append(message)
    assert not left, f"said in English in {language}: {left}"


@pytest.mark.django_db
@pytest.mark.parametrize("language", LANGUAGES)
def test_the_pages_for_a_visitor_speak_their_browsers_language(language: str) -> None:
    messages = catalogue(language, "django")
    client = Client(HTTP_ACCEPT_LANGUAGE=f"{language},en;q=0.5")
    for path in ("/", "/accounts/login/", "/accounts/signup/", "/leagues/", "/rules/"):
        response = client.get(path)
        assert f'<html lang="{language}">' in response.content.decode()
        found = english_left(visible_texts(response.content.decode()), messages)
        assert found == [], f"{path}: {found}"


@pytest.mark.django_db
def test_the_switcher_keeps_the_language_in_the_persons_settings() -> None:
    person = user_create("lotte")
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(person)
    answer = client.post("/language/", {"language": "sv", "next": "/leagues/"})
    assert answer.status_code == 302
    assert answer["Location"] == "/leagues/"
    assert PersonDisplaySettings.objects.get(user=person).language == "sv"
    # Another browser, asking for English: once signed in, the person's language wins.
    elsewhere = Client(HTTP_ACCEPT_LANGUAGE="en")
    elsewhere.force_login(person)
    page = elsewhere.get("/leagues/").content.decode()
    assert '<html lang="sv">' in page
    assert "Ligor" in page


@pytest.mark.django_db
def test_an_unknown_language_is_not_kept() -> None:
    person = user_create("lotte")
    client = Client()
    client.force_login(person)
    client.post("/language/", {"language": "xx", "next": "/"})
    assert not PersonDisplaySettings.objects.filter(user=person).exists()


@pytest.mark.django_db
def test_display_settings_keep_the_time_zone_and_dates_show_in_it() -> None:
    person = user_create("lotte")
    client = Client()
    client.force_login(person)
    answer = client.post(
        "/settings/display/",
        {"language": "nl", "time_zone": "Europe/Brussels", "four_colour_deck": "on"},
    )
    assert answer.status_code == 302
    kept = PersonDisplaySettings.objects.get(user=person)
    assert (kept.language, kept.time_zone, kept.four_colour_deck, kept.large_cards) == (
        "nl",
        "Europe/Brussels",
        True,
        False,
    )
    Notification.objects.create(
        user=person,
        kind=NotificationKind.YOUR_MOVE,
        key="k",
        text="x",
        created_at=timezone.now().replace(month=1, day=15, hour=12, minute=0),
    )
    page = client.get("/notifications/").content.decode()
    assert "13:00 CET" in page  # 12:00 UTC in Brussels in January
    refused = client.post("/settings/display/", {"time_zone": "Mars/Olympus"})
    assert refused.status_code == 200
    assert PersonDisplaySettings.objects.get(user=person).time_zone == "Europe/Brussels"


@pytest.mark.django_db
def test_a_visitor_sees_times_in_their_browsers_time_zone() -> None:
    """Not signed in: the zone the page's script kept in the ``time_zone`` cookie (the
    browser's Intl name), when zoneinfo knows it; a signed-in person's settings win."""
    from datetime import UTC, datetime

    from league.models import Round

    tournament, organiser = bot_tournament(entrants=4)
    Round.objects.filter(tournament=tournament).delete()
    Round.objects.create(
        tournament=tournament, number=1, play_by=datetime(2027, 1, 15, 12, 0, tzinfo=UTC)
    )
    url = f"/leagues/{tournament.pk}/"
    visitor = Client()
    assert "12:00 UTC" in visitor.get(url).content.decode()
    visitor.cookies["time_zone"] = "Europe/Stockholm"
    assert "13:00 CET" in visitor.get(url).content.decode()
    visitor.cookies["time_zone"] = "America/New_York"
    assert "07:00 EST" in visitor.get(url).content.decode()
    for bad in ("Mars/Olympus", "../../etc/passwd", "x" * 300):
        visitor.cookies["time_zone"] = bad
        assert "12:00 UTC" in visitor.get(url).content.decode()
    person = Client()
    person.force_login(organiser)
    person.cookies["time_zone"] = "Europe/Stockholm"
    PersonDisplaySettings.objects.update_or_create(
        user=organiser, defaults={"time_zone": "Asia/Tokyo"}
    )
    assert "21:00 JST" in person.get(url).content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "zone", "words"),
    [
        ("nl", "Europe/Brussels", "vr 15 Jan 2027, 13:00 CET"),
        ("sv", "Europe/Stockholm", "fre 15 Jan 2027, 13:00 CET"),
        ("en", "", "Fri 15 Jan 2027, 12:00 UTC"),
    ],
)
def test_a_notices_deadline_is_in_the_persons_time_zone_and_language(
    language: str, zone: str, words: str
) -> None:
    from datetime import UTC, datetime

    from league.services.match_notices import your_move_notify

    tournament, _organiser = bot_tournament(entrants=2)
    person = user_create("piet")
    PersonDisplaySettings.objects.create(user=person, language=language, time_zone=zone)
    from league.models import Round

    round_, _created = Round.objects.get_or_create(tournament=tournament, number=1)
    match = Match.objects.create(tournament=tournament, round=round_, game="kingen", seed=1)
    deadline = datetime(2027, 1, 15, 12, 0, tzinfo=UTC)
    your_move_notify(
        match=match, user_id=person.pk, seat=0, decision=0, deadline=deadline, now=deadline
    )
    notice = Notification.objects.get(user=person)
    assert words in notice.text, notice.text


# ---------------------------------------------------------------- pages drawn by scripts


def table_in_play() -> tuple[int, list[User]]:
    """A Kingen table of four people, its first deal dealt and a few cards played: the
    first trick on the table, the contract named, one person to move."""
    from league.models import SeatInvitation
    from league.selectors.replays import match_replay
    from league.services.matches import match_person_act, match_run
    from league.services.tables import seat_invitation_accept, table_open

    # No password: signed in by their session below, without four slow password hashes.
    host, *guests = [User.objects.create_user(name) for name in ("ann", "bob", "cid", "dee")]
    match = table_open(
        actor=host,
        game="kingen",
        seats=["me", *[f"invite:{guest.get_username()}" for guest in guests]],
        move_seconds=3600,
    )
    for guest in guests:
        code = SeatInvitation.objects.get(match=match, invitee=guest).code
        seat_invitation_accept(user=guest, code=code)
    match_run(match_id=match.pk, worker="test")  # deals, and waits for the first person
    for _ in range(2):
        running = Match.objects.get(pk=match.pk)
        assert running.waiting_seat is not None
        state = match_replay(running).state
        action = state.view_for(running.waiting_seat).to_json()["legal"][0]
        match_person_act(match=running, seat=running.waiting_seat, action=action)
    return match.pk, [host, *guests]


def finished_replay() -> int:
    """A league match of four built-in bots (one deal of Kung och Adel: ranks, the tribute,
    the monarch's trumps), played to its end in this process."""
    from league.models import MatchStatus
    from league.services.matches import match_run
    from league.services.tournaments import tournament_round_start

    tournament, organiser = bot_tournament(game="kung_och_adel(deals=1)", entrants=4)
    match = tournament_round_start(actor=organiser, tournament=tournament).matches.get()
    match_run(match_id=match.pk, worker="test")
    assert Match.objects.get(pk=match.pk).status == MatchStatus.FINISHED
    return int(match.pk)


def drawn_by_its_script(driver: WebDriver, element: str) -> bool:
    return bool(driver.find_element("id", element).get_attribute("data-ready"))


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_table_in_play_and_a_finished_replay_in_dutch_and_swedish_show_no_english(
    browser: WebDriver, live_server: UvicornLiveServer
) -> None:
    """What the table's and the replay's scripts draw (seats, facts, status line, moves,
    badges) in Dutch and in Swedish: no English message of either catalogue, the seats by
    their compass points, the contract and the game by their names in the language, a
    person to move (not "thinking"), the finished match's badge translated."""
    from tests.web.conftest import wait_for

    table, people = table_in_play()
    replay = finished_replay()
    waiting = Match.objects.get(pk=table).waiting_seat
    assert waiting is not None
    other = (waiting + 1) % 4
    words = {
        "nl": ("Noord", "Oost", "Zuid", "West", "Slagen", "is aan zet", "Afgelopen"),
        "sv": ("Nord", "Öst", "Syd", "Väst", "Stick", "står på tur", "Avslutad"),
    }
    left: dict[str, list[str]] = {}
    browser.get(f"{live_server.url}/no/such/page/")
    for language in LANGUAGES:
        messages = catalogue(language, "django") + catalogue(language, "djangojs")
        shown: dict[str, str] = {}
        for seat in (waiting, other):
            person = people[seat]
            PersonDisplaySettings.objects.update_or_create(
                user=person, defaults={"language": language}
            )
            client = Client()
            client.force_login(person)
            browser.delete_cookie("sessionid")
            browser.add_cookie({"name": "sessionid", "value": client.cookies["sessionid"].value})
            for path, element in (
                (f"/matches/{table}/seats/{seat}/", "table"),
                *([(f"/matches/{replay}/", "replay")] if seat == other else []),
            ):
                browser.get(f"{live_server.url}{path}")
                wait_for(browser, functools.partial(drawn_by_its_script, element=element))
                page = str(browser.page_source)
                shown[f"{path} as {person.get_username()}"] = page
                found = english_left(visible_texts(page), messages)
                if found:
                    left[f"{language} {path}"] = found
        text = "\n".join("\n".join(visible_texts(page)) for page in shown.values())
        for word in words[language]:
            assert word in text, f"{language}: {word!r} not shown"
        assert "thinking" not in text
        assert "denkt na" not in text
        assert "tänker" not in text
    assert not left, "\n".join(f"{page}: {found}" for page, found in left.items())


# ---------------------------------------------------------------- email and API


@pytest.mark.django_db
@pytest.mark.parametrize("language", LANGUAGES)
def test_a_notice_and_its_email_come_in_the_persons_language(language: str) -> None:
    from league.services.match_notices import league_finished_notify

    tournament, _organiser = bot_tournament(entrants=2)
    person = user_create("piet")
    PersonDisplaySettings.objects.create(user=person, language=language)
    from league.services.competitors import competitor_for_user

    competitor = competitor_for_user(user=person)
    tournament.entries.create(competitor=competitor)
    league_finished_notify(tournament=tournament, rows=[{"competitor": competitor.pk, "rank": 1}])
    notice = Notification.objects.get(user=person)
    mail = notifications_email([notice], "piet@example.org")
    messages = catalogue(language, "django")
    texts = [str(mail.subject), *str(mail.body).splitlines(), notice.text]
    assert english_left([t for t in texts if t], messages) == []
    with translation.override(language):
        assert translation.gettext("A league finished") in mail.subject
    assert "finished" not in notice.text


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "words"), [("nl", "is van de"), ("sv", "har tagits bort från")]
)
def test_a_suspended_bots_notice_comes_in_its_authors_language(language: str, words: str) -> None:
    from league.services.ladders import LADDER_SUSPEND_AFTER, ladder_match_finished

    author = user_create("piet")
    PersonDisplaySettings.objects.create(user=author, language=language)
    ladder = ladder_with_anchors()
    mine = uploaded_version(author)
    match = ladder_matchmake(ladder_id=ladder.pk)[0]
    LadderEntrant.objects.filter(ladder=ladder, competitor=mine).update(
        consecutive_failures=LADDER_SUSPEND_AFTER - 1
    )
    MatchSeat.objects.filter(match_id=match, competitor=mine).update(outcome="crash")
    rows = list(MatchSeat.objects.filter(match_id=match).select_related("competitor"))
    ladder_match_finished(match=Match.objects.get(pk=match), rows=rows, now=timezone.now())
    notice = Notification.objects.get(user=author, kind=NotificationKind.BOT_SUSPENDED)
    assert words in notice.text
    assert english_left([notice.text], catalogue(language, "django")) == []
    assert "zotbot" in notice.text
    assert f"#{match}" in notice.text


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "words"), [("nl", "niemand heet hier"), ("sv", "ingen heter")]
)
def test_an_api_error_answers_in_the_requests_language(language: str, words: str) -> None:
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    answer = client.get("/api/people/nobody/")
    assert answer.status_code == 404
    assert words in answer.json()["detail"]
    english = Client(HTTP_ACCEPT_LANGUAGE="en").get("/api/people/nobody/")
    assert "nobody is called" in english.json()["detail"]


@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "limit", "locked"),
    [
        ("nl", "Te veel aanmeldpogingen vanaf je adres: hoogstens 2 in een minuut", "geblokkeerd"),
        ("sv", "För många inloggningsförsök från din adress: högst 2 på en minut", "spärrad"),
    ],
)
def test_a_rate_limit_and_a_sign_in_lock_are_said_in_the_requests_language(
    settings: Settings, language: str, limit: str, locked: str
) -> None:
    """The 429s of a rate limit and of a locked username, in the API's JSON and on the
    sign-in page, in the request's language (the real Redis cache counts)."""
    from rest_framework.test import APIClient

    settings.SIGN_IN_FAILURES_ALLOWED = 1
    settings.SIGN_IN_LOCKOUT_SECONDS = (60,)
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
            "sign_in": "2/minute",
        },
    }
    user_create("ann", "a long password 1")
    api = APIClient(HTTP_ACCEPT_LANGUAGE=language)

    def token(password: str) -> dict[str, str]:
        answer = api.post(
            "/api/auth/token/", {"username": "ann", "password": password}, format="json"
        )
        return {"status": str(answer.status_code), **answer.json()}

    assert token("wrong")["status"] == "400"
    lock = token("wrong")
    assert lock["status"] == "429"
    assert locked in lock["detail"], lock
    assert "Too many" not in lock["detail"]
    assert "minuut" in lock["detail"] or "minut" in lock["detail"]
    limited = token("wrong")
    assert limited["status"] == "429"
    assert limited["detail"].startswith(limit), limited

    page = Client(HTTP_ACCEPT_LANGUAGE=language).post(
        "/accounts/login/", {"username": "ann", "password": "wrong"}
    )
    assert page.status_code == 429
    text = page.content.decode()
    assert limit in text
    assert "Too many" not in text


# ---------------------------------------------------------------- rules pages


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_rules_page_has_its_translation_and_its_game_strings_load(language: str) -> None:
    import re

    from django.conf import settings

    from engine.variants import FAMILIES, load_game

    folder = settings.BASE_DIR / "docs" / "rules" / language
    names = "|".join(sorted(FAMILIES, key=len, reverse=True))
    game_string = re.compile(rf"`((?:{names})\([^`]*\))`")
    for page in [*FAMILIES, "README"]:
        text = (folder / f"{page}.md").read_text(encoding="utf-8")
        for game in game_string.findall(text):
            load_game(game)  # an option the engine does not know raises here
        if page != "README":
            assert f"({page}.md)" in (folder / "README.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("language", ["nl", "sv"])
def test_every_rules_page_covers_what_the_english_page_covers(language: str) -> None:
    """A translated rules page has each section of the English page (as many headings of
    each level), every option the English page's table lists, and its worked example's
    tables: a page cannot fall behind the English one unseen."""
    import re

    from django.conf import settings

    from engine.variants import FAMILIES

    rules = settings.BASE_DIR / "docs" / "rules"
    option_row = re.compile(r"^\| `(\w+)` \|", re.MULTILINE)
    for page in [*FAMILIES, "README"]:
        english = (rules / f"{page}.md").read_text(encoding="utf-8")
        translated = (rules / language / f"{page}.md").read_text(encoding="utf-8")
        for level in ("## ", "### "):
            wanted = sum(line.startswith(level) for line in english.splitlines())
            found = sum(line.startswith(level) for line in translated.splitlines())
            assert found == wanted, (
                f"{language}/{page}.md: {found} '{level}' headings, not {wanted}"
            )
        missing = set(option_row.findall(english)) - set(option_row.findall(translated))
        assert not missing, f"{language}/{page}.md lacks the options {sorted(missing)}"
        tables = sum(line.startswith("|---") for line in english.splitlines())
        found_tables = sum(line.startswith("|---") for line in translated.splitlines())
        assert found_tables >= tables, f"{language}/{page}.md has fewer tables"


SECTION_WORDS_SHARE = 0.75
"""The least share of the English section's words a translated section has: Dutch and
Swedish say a rule in about as many words as English (0.9 to 1.2 times in the pages'
complete sections); a section under three quarters of it leaves something out."""


@pytest.mark.parametrize("language", ["nl", "sv"])
def test_every_section_of_a_rules_page_says_about_as_much_as_the_english_one(
    language: str,
) -> None:
    import re

    from django.conf import settings

    from engine.variants import FAMILIES

    rules = settings.BASE_DIR / "docs" / "rules"

    def sections(text: str) -> list[tuple[str, int]]:
        parts = re.split(r"\n(?=#)", text)
        return [(part.splitlines()[0], len(re.findall(r"\w+", part))) for part in parts]

    short = []
    for page in [*FAMILIES, "README"]:
        english = sections((rules / f"{page}.md").read_text(encoding="utf-8"))
        translated = sections((rules / language / f"{page}.md").read_text(encoding="utf-8"))
        assert len(translated) == len(english), f"{language}/{page}.md: sections differ"
        for (heading, words), (their_heading, their_words) in zip(english, translated, strict=True):
            if words >= 40 and their_words < SECTION_WORDS_SHARE * words:
                short.append(
                    f"{language}/{page}.md {their_heading!r}: {their_words} words, "
                    f"the English {heading!r} {words}"
                )
    assert short == [], "\n".join(short)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "heading"),
    [("en", "The game in brief"), ("nl", "Het spel in het kort"), ("sv", "Spelet i korthet")],
)
def test_the_rules_pages_are_served_in_the_requests_language(language: str, heading: str) -> None:
    page = Client(HTTP_ACCEPT_LANGUAGE=language).get("/rules/priffe/").content.decode()
    assert heading in page


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("domain", DOMAINS)
def test_the_catalogues_compile(language: str, domain: str, tmp_path: object) -> None:
    """msgfmt (gettext, installed by scripts/_venv.sh) accepts the catalogue, formats
    checked: what scripts/_venv.sh compiles for Django to read."""
    import shutil
    import subprocess
    from pathlib import Path

    from tests.web.translations import LOCALE_DIR

    msgfmt = shutil.which("msgfmt")
    if msgfmt is None:
        reason = "msgfmt is missing: scripts/_venv.sh installs gettext where it may (as root)"
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    source = LOCALE_DIR / language / "LC_MESSAGES" / f"{domain}.po"
    target = Path(str(tmp_path)) / f"{domain}.mo"
    run = subprocess.run(
        [msgfmt, "--check", "-o", str(target), str(source)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stderr


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("en", "must follow suit (you hold a"),
        ("nl", "moet kleur bekennen"),
        ("sv", "måste bekänna"),
    ],
)
def test_an_illegal_move_is_refused_in_the_requests_language(language: str, words: str) -> None:
    from engine.errors import IllegalActionError
    from engine.variants import load_game
    from league.words.engine_refusals import action_in_language, refusal_in_language

    state = load_game("kingen").new_initial_state(seed=7)  # the seed deals the cards
    assert not state.is_chance()
    state.apply_action(state.legal_actions()[0])  # the lead
    seat = state.acting_seat()
    legal = set(state.legal_actions())
    refused = None
    for code in range(52):
        if code in legal:
            continue
        try:
            state.apply_action(code, seat=seat)
        except IllegalActionError as exc:
            if "follow suit" in exc.rule:
                refused = exc
                break
    assert refused is not None
    with translation.override(language):
        said = refusal_in_language(refused)
    assert words in said
    assert refused.action is not None
    with translation.override(language):
        assert said.startswith(action_in_language(refused.action) + ": ")


@functools.cache  # pure, and the same for each language asked: played through once
def engine_refusals() -> dict[str, str]:
    """Every rule the engine names when refusing an action (one example of each shape,
    numbers and cards aside -> the rule): each example game of each family played through
    twice at random, every action code it knows tried at every decision, the refused ones
    collected; and the refusals of action strings that name nothing."""
    import random
    import re

    from engine.errors import IllegalActionError
    from engine.variants import FAMILIES, load_game

    shapes: dict[str, str] = {}
    seen: set[str] = set()  # the same refusal comes millions of times: its shape once

    def keep(rule: str) -> None:
        if rule in seen:
            return
        seen.add(rule)
        shape = re.sub(r"\d+", "N", re.sub(r"\b(10|[2-9TJQKA])[CDHS]\b", "CARD", rule))
        shapes.setdefault(shape, rule)

    for family in FAMILIES.values():
        for example in family.example_games():
            game = load_game(example)
            codes = []
            for code in range(1024):
                try:
                    game.action_to_string(code)
                except ValueError:
                    continue
                codes.append(code)
            for text in ("play XX", "trump Q", "dance", "play"):
                try:
                    game.parse_action(text)
                except IllegalActionError as exc:
                    keep(exc.rule)
            for seed in (1, 2):
                state = game.new_initial_state(seed=seed)
                rng = random.Random(seed)
                while not state.is_terminal():
                    legal = set(state.legal_actions())
                    seat = state.acting_seat()
                    for code in codes:
                        if code not in legal:
                            try:
                                state.apply_action(code, seat=seat)  # refused: unchanged
                            except IllegalActionError as exc:
                                keep(exc.rule)
                    state.apply_action(rng.choice(sorted(legal)), seat=seat)
                    wrong_seat = (state.acting_seat() + 1) % state.num_seats
                    try:  # the wrong seat's move: refused, the state unchanged
                        state.apply_action(0, seat=wrong_seat)
                    except IllegalActionError as exc:
                        keep(exc.rule)
                try:
                    state.apply_action(0)
                except IllegalActionError as exc:
                    keep(exc.rule)
    return shapes


@pytest.mark.parametrize("language", ["nl", "sv"])
def test_every_refusal_the_engine_gives_is_said_in_the_requests_language(language: str) -> None:
    """A bid, a contract, an offer, a trump choice, a card passed in tribute, a card played:
    whatever the engine refuses and why, the rule comes in the page's language, not in the
    engine's English (league/words/engine_refusals.py knows each rule's pattern)."""
    from league.words.engine_refusals import rule_in_language

    rules = engine_refusals()
    assert len(rules) > 40  # the bidding of every family is among them, not just card play
    left = []
    for rule in rules.values():
        with translation.override(language):
            said = rule_in_language(rule)
        if said == rule or said.removeprefix("IWWA: ") == rule.removeprefix("IWWA: "):
            left.append(rule)
    assert not left, f"said in English in {language}: {left}"


@pytest.mark.django_db
def test_the_deck_and_the_card_size_follow_the_persons_settings(settings: Settings) -> None:
    settings.WEB_SAMPLES = True
    person = user_create("lotte")
    client = Client()
    client.force_login(person)
    for path in ("/samples/table/?game=kingen&seed=3&new=1", "/samples/replay/?game=kingen&seed=3"):
        page = client.get(path).content.decode()
        assert "/static/web/cards/" in page
        assert "cards-large" not in page
        assert "Playing with the keyboard" in page  # the shortcuts, listed on the page
    PersonDisplaySettings.objects.create(user=person, four_colour_deck=True, large_cards=True)
    client = Client()
    client.force_login(person)
    for path, element in (
        ("/samples/table/?game=kingen&seed=3&new=1", 'id="table"'),
        ("/samples/replay/?game=kingen&seed=3", 'id="replay"'),
    ):
        page = client.get(path).content.decode()
        assert "/static/web/cards-four/" in page
        tag = page[page.index(element) - 40 : page.index(element) + 80]
        assert "cards-large" in tag


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("domain", DOMAINS)
def test_polib_writes_the_catalogue_msgfmt_writes(
    language: str, domain: str, tmp_path: object
) -> None:
    """Where gettext is absent (a fresh machine with Python only), scripts/_venv.sh compiles
    the catalogues with polib: Django must read the same messages from them."""
    import gettext
    import shutil
    import subprocess
    from pathlib import Path

    import polib

    from tests.web.translations import LOCALE_DIR

    msgfmt = shutil.which("msgfmt")
    if msgfmt is None:
        pytest.skip("msgfmt is missing: nothing to compare polib's catalogue with")
    source = LOCALE_DIR / language / "LC_MESSAGES" / f"{domain}.po"
    by_msgfmt = Path(str(tmp_path)) / "msgfmt.mo"
    by_polib = Path(str(tmp_path)) / "polib.mo"
    subprocess.run([msgfmt, "-o", str(by_msgfmt), str(source)], check=True)
    polib.pofile(str(source)).save_as_mofile(str(by_polib))

    def messages(path: Path) -> dict[object, str]:
        with path.open("rb") as mo:
            catalogue = dict(gettext.GNUTranslations(mo)._catalog)  # type: ignore[attr-defined]
        catalogue.pop("", None)  # the header (polib keeps its creation date)
        return catalogue

    assert messages(by_polib) == messages(by_msgfmt)
    assert len(messages(by_polib)) > 100
