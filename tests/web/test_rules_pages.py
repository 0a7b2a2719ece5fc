"""The rules pages (/rules/, /rules/{family}/): every family's page from docs/rules/,
rendered on the server without raw HTML, with links between the pages kept on the site."""

from __future__ import annotations

from collections.abc import Iterator

from django.test import Client

import pytest

from engine import FAMILIES, load_game
from tests.engine.toy_family import ToyGame
from web.rules_pages import _render, rules_page, rules_url_for_game

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_every_family_has_its_rules_page(client: Client, family: str) -> None:
    response = client.get(f"/rules/{family}/")
    assert response.status_code == 200
    html = response.content.decode()
    game_class = FAMILIES[family]
    assert f">{game_class.title}</h1>" in html
    assert 'id="how-king-league-plays-it"' in html  # every page ends with the engine's choices
    assert 'href="#how-king-league-plays-it"' in html  # in the page's contents
    for example in game_class.example_games():
        assert f"<code>{example}</code>" in html  # its variants with their game strings
        assert load_game(example).display_name in html
    assert ".md" not in html.replace("docs/rules/", "")  # no link to a Markdown file


def test_the_rules_index_lists_every_game_and_its_variants(client: Client) -> None:
    html = client.get("/rules/").content.decode()
    for family, game_class in FAMILIES.items():
        assert f'href="/rules/{family}/"' in html
        for example in game_class.example_games():
            assert f"<code>{example}</code>" in html
    assert "<code>kingen(rules=iwwa)</code>" in html  # presets too
    assert "Kingen (IWWA rules)" in html


def test_links_between_pages_stay_on_the_site(client: Client) -> None:
    html = client.get("/rules/dubbelkingen/").content.decode()
    assert 'href="/rules/kingen/#the-contracts"' in html
    assert 'href="/rules/kingen/"' in html
    index = client.get("/rules/").content.decode()
    assert "the engine's documentation" in index  # a document not served: words only
    assert 'href="../engine.md"' not in index


@pytest.mark.parametrize("language", ["en", "nl", "sv"])
def test_the_rules_index_shows_players_no_file_of_the_repository(language: str) -> None:
    """Players read words, not ``../engine.md`` or ``tests/engine/test_rules_docs.py``."""
    import re

    from tests.web.translations import visible_texts

    index = Client(HTTP_ACCEPT_LANGUAGE=language).get("/rules/").content.decode()
    files = [t for t in visible_texts(index) if re.search(r"\w\.(md|py)\b|tests/", t)]
    assert files == []
    code = re.findall(r"<code>([^<]*)</code>", index)
    assert not [c for c in code if re.search(r"\.(md|py)\b|/", c)]


def test_raw_html_in_the_text_is_shown_as_text() -> None:
    html, _ = _render(
        'A <script>alert(1)</script> and <b onclick="x()">bold</b>.\n\n<div>block</div>'
    )
    assert "<script" not in html
    assert "<b " not in html
    assert "<div>" not in html
    assert "&lt;script&gt;" in html


def test_an_unknown_family_has_no_rules_page(client: Client) -> None:
    assert client.get("/rules/whist/").status_code == 404
    assert client.get("/rules/README/").status_code == 404


@pytest.fixture
def toy_family() -> Iterator[None]:
    from engine.variants import register_family, unregister_family

    register_family(ToyGame)
    rules_page.cache_clear()
    yield
    unregister_family(ToyGame.family)
    rules_page.cache_clear()


def test_a_family_without_a_page_links_to_the_index(client: Client, toy_family: None) -> None:
    assert client.get("/rules/toy_tricks/").status_code == 404
    assert rules_url_for_game("toy_tricks") == "/rules/"
    assert rules_url_for_game("kingen(rules=iwwa)") == "/rules/kingen/"
    assert rules_url_for_game("not a game") == "/rules/"


@pytest.mark.parametrize("path", ["/leagues/", "/", "/clubs/"])
def test_the_navigation_links_the_rules(client: Client, path: str) -> None:
    assert 'href="/rules/"' in client.get(path).content.decode()


def test_the_table_page_links_the_games_rules(client: Client) -> None:
    from django.contrib.auth.models import User

    from league.services.tables import table_open

    person = User.objects.create_user("ann")
    match = table_open(actor=person, game="priffe", seats=["me", *["builtin:random"] * 3])
    client.force_login(person)
    html = client.get(f"/matches/{match.pk}/seats/0/").content.decode()
    assert 'href="/rules/priffe/"' in html
    assert 'href="/rules/priffe/"' in client.get(f"/matches/{match.pk}/").content.decode()


@pytest.mark.parametrize("language", ["en", "nl", "sv"])
def test_every_link_to_a_section_lands_on_a_heading(language: str) -> None:
    """A link to a section of the same page (``#anchor``) or of another rules page
    (``kingen.md#anchor``, on the site ``/rules/kingen/#anchor``) names a heading that page
    has, as the site renders it (anchors are made from the headings of the page's own
    language)."""
    import re

    from web.rules_pages import page_path

    names = [*sorted(FAMILIES), "README"]
    rendered = {}
    for name in names:
        path = page_path(name, language)
        assert path is not None
        rendered[name] = _render(path.read_text(encoding="utf-8"))[0]
    ids = {name: set(re.findall(r' id="([^"]+)"', html)) for name, html in rendered.items()}
    broken = []
    for name, html in rendered.items():
        for page, anchor in re.findall(r'href="(?:/rules/([a-z_]+)/)?#([^"]+)"', html):
            target = page or name
            if target in ids and anchor not in ids[target]:
                broken.append(f"{language}/{name}.md links to {target}.md#{anchor}")
    assert broken == []
