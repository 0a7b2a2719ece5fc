"""The rules pages: each family's ``docs/rules/<family>.md`` rendered to HTML on the server.

The pages are the repository's own Markdown (written for players, checked against the
engine by tests/engine/test_rules_docs.py). They are rendered once per process and kept:
the files only change with a deploy. Although the text is trusted, raw HTML in it is shown
as text, not passed through, and links are rewritten: a link to another rules page goes to
that page of the site (``kingen.md#the-contracts`` -> ``/rules/kingen/#the-contracts``), a
link to a document the site does not serve (``../engine.md``) keeps only its words.

A game is mapped to its page by its family (``load_game(s).family``): nothing here knows
one family from another, and a family without a page simply has none.

Each page exists in English (``docs/rules/<family>.md``) and may exist in another of the
site's languages (``docs/rules/<language>/<family>.md``, Dutch and Swedish): a page is
served in the request's language when that version exists, in English otherwise.
"""

from __future__ import annotations

import functools
import re
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe

import markdown
from markdown.extensions import Extension
from markdown.treeprocessors import Treeprocessor

from engine.errors import EngineError
from engine.variants import FAMILIES, load_game

RULES_INDEX = "README"
"""The file (without ``.md``) of the rules' index page, ``/rules/``."""

_PAGE_LINK = re.compile(r"^(?P<page>[A-Za-z0-9_]+)\.md(?P<anchor>#[A-Za-z0-9_-]*)?$")


def rules_dir() -> Path:
    return Path(settings.BASE_DIR) / "docs" / "rules"


@dataclass(frozen=True)
class Variant:
    """A game of the family worth naming: its name for people and its game string."""

    name: str
    game: str


@dataclass(frozen=True)
class RulesPage:
    family: str
    title: str
    html: SafeString
    contents: list[tuple[str, str]]
    """The page's sections (anchor, heading) for a table of contents."""
    variants: list[Variant]


class _SiteLinks(Treeprocessor):
    """Points links between rules pages at the site's pages; drops the others' targets."""

    def run(self, root: ElementTree.Element) -> None:
        for link in root.iter("a"):
            href = link.get("href", "")
            if href.startswith(("#", "https://", "http://", "mailto:")):
                continue
            match = _PAGE_LINK.match(href)
            if match is not None and (
                match["page"] == RULES_INDEX or page_path(match["page"]) is not None
            ):
                page = match["page"]
                url = (
                    reverse("web:rules")
                    if page == RULES_INDEX
                    else reverse("web:rules-family", args=[page])
                )
                link.set("href", url + (match["anchor"] or ""))
            else:  # a document the site does not serve: its words, no link
                link.tag = "span"
                link.attrib.pop("href", None)
                link.attrib.pop("title", None)


class _NoRawHtml(Extension):
    """Shows raw HTML in the text as text: the blocks and inline tags are not passed on."""

    def extendMarkdown(self, md: markdown.Markdown) -> None:  # noqa: N802 (Markdown's name)
        md.preprocessors.deregister("html_block")
        md.inlinePatterns.deregister("html")
        md.treeprocessors.register(_SiteLinks(md), "site_links", 1)


def page_path(name: str, language: str = "en") -> Path | None:
    """The Markdown file of a rules page (a family, or the index) in ``language`` if it has
    one, else in English; None when there is no such page."""
    if not re.fullmatch(r"[A-Za-z0-9_]+", name):
        return None
    if re.fullmatch(r"[a-z]{2}", language) and language != "en":
        translated = rules_dir() / language / f"{name}.md"
        if translated.is_file():
            return translated
    path = rules_dir() / f"{name}.md"
    return path if path.is_file() else None


def _render(text: str) -> tuple[str, list[tuple[str, str]]]:
    md = markdown.Markdown(
        extensions=["tables", "sane_lists", "toc", _NoRawHtml()],
        extension_configs={"toc": {"toc_depth": "2"}},
        output_format="html",
    )
    html = md.convert(text)
    contents = [
        (str(token["id"]), str(token["name"]))
        for top in getattr(md, "toc_tokens", [])
        for token in top.get("children", [])
    ]
    return html, contents


def _variants(family: str) -> list[Variant]:
    """The family's example games and each of its presets (``kingen(rules=iwwa)``)."""
    game_class = FAMILIES[family]
    strings = list(game_class.example_games())
    strings += [str(load_game(f"{family}(rules={p})")) for p in game_class.rules_class.presets]
    out = []
    for game_string in dict.fromkeys(strings):
        try:
            out.append(Variant(name=load_game(game_string).display_name, game=game_string))
        except EngineError:
            continue
    return out


@functools.cache
def rules_page(family: str, language: str = "en") -> RulesPage | None:
    """A family's rules page in ``language`` (English when it has no such version), or None
    when the family is unknown or has no page.

    Kept for the process's life (functools.cache): a rules file changes with a deploy."""
    game_class = FAMILIES.get(family)
    path = page_path(family, language)
    if game_class is None or path is None:
        return None
    html, contents = _render(path.read_text(encoding="utf-8"))
    # The text is the repository's, rendered without raw HTML (_NoRawHtml) above.
    return RulesPage(
        family=family,
        title=game_class.title or family,
        html=mark_safe(html),
        contents=contents,
        variants=_variants(family),
    )


@functools.cache
def rules_index(language: str = "en") -> SafeString:
    """The index page's text (docs/rules/README.md, or its version in ``language``),
    rendered once per process and language."""
    path = page_path(RULES_INDEX, language)
    if path is None:
        return mark_safe("")
    html, _ = _render(path.read_text(encoding="utf-8"))
    return mark_safe(html)  # rendered without raw HTML (_NoRawHtml)


def rules_pages(language: str = "en") -> list[RulesPage]:
    """The page of every registered family that has one, in the registry's order."""
    return [page for family in FAMILIES if (page := rules_page(family, language)) is not None]


def rules_url_for_game(game: str) -> str:
    """The rules page of a game string's family, or the rules index when it has none."""
    try:
        family = load_game(game).family
    except EngineError:
        return reverse("web:rules")
    if rules_page(family) is None:
        return reverse("web:rules")
    return reverse("web:rules-family", args=[family])
