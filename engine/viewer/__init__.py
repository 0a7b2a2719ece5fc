"""The replay viewer's files, package data of the engine: the site serves them as its
static files (config/settings.py: STATICFILES_DIRS) and ``python -m engine show FILE
--html OUT.html`` inlines the same files into one standalone page (engine/show.py).

``static/web/`` holds what the site serves under /static/web/: the viewer's scripts
(``js/replay.js``, ``js/cards.js``: the helpers the table's scripts share), the site's one
stylesheet (``site.css``, which the viewer's pages share with every other page) and the
two decks of card images (``cards/``, ``cards-four/``: written by ``manage.py
card_faces``). They live here rather than in web/ so that the engine's own distribution,
which cannot depend on the site, carries the viewer too.
"""

from __future__ import annotations

import base64
import html
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

STATIC_DIR = Path(__file__).with_name("static")
"""The folder the site adds to its static files: ``web/...`` under it."""
PAGE_TEMPLATE = Path(__file__).with_name("replay.html")
"""The standalone page's markup: the site's replay page (web/templates/web/replay.html)
with its words in English; tests/engine/test_viewer.py holds their controls equal."""

_IMPORT = re.compile(r'import\s*\{(?P<names>[^}]*)\}\s*from\s*"\./cards\.js";')
_EXPORT = re.compile(r"^export (?=(?:async )?(?:function|const|let|class) )", re.MULTILINE)
_EXPORTED = re.compile(r"^export (?:async )?(?:function|const|let|class) (\w+)", re.MULTILINE)

GETTEXT_SHIMS = """
window.gettext = (text) => text;
window.ngettext = (one, many, count) => (count === 1 ? one : many);
window.pgettext = (_context, text) => text;
window.interpolate = (format, values, named) => (named
  ? format.replace(/%\\((\\w+)\\)s/g, (_m, key) => String(values[key]))
  : format.replace(/%s/g, () => String(values.shift())));
"""
"""Django's JavaScript catalogue (/jsi18n/) as the page needs it, in English: the site
loads the real one before any module."""


def static_text(name: str) -> str:
    """A file of the viewer (``web/js/replay.js``, ``web/site.css``) as text."""
    return (STATIC_DIR / name).read_text(encoding="utf-8")


def viewer_script() -> str:
    """replay.js with cards.js folded in, as one classic module's text: a page opened from
    a file cannot import a second module (the browser refuses file:// imports)."""
    cards = static_text("web/js/cards.js")
    replay = static_text("web/js/replay.js")
    found = _IMPORT.search(replay)
    if found is None:
        raise ValueError("replay.js no longer imports ./cards.js as the viewer expects")
    names = [name.strip() for name in found.group("names").split(",") if name.strip()]
    exported = _EXPORTED.findall(cards)
    unknown = sorted(set(names) - set(exported))
    if unknown:
        raise ValueError(f"replay.js imports what cards.js does not export: {unknown}")
    if re.search(r"^\s*import\s", cards, re.MULTILINE) or _IMPORT.search(replay, found.end()):
        raise ValueError("the viewer's modules import more than cards.js")
    cards_body = _EXPORT.sub("", cards)
    folded = (
        f"const {{ {', '.join(names)} }} = (() => {{\n{cards_body}\n"
        f"return {{ {', '.join(exported)} }};\n}})();\n"
    )
    return replay[: found.start()] + folded + replay[found.end() :]


def card_images(deck: str = "cards") -> dict[str, str]:
    """Each card image of ``deck`` (``cards`` or ``cards-four``) as a data: URL, by the
    name the viewer asks for (``QS``, ``back``)."""
    images = {}
    for path in sorted((STATIC_DIR / "web" / deck).glob("*.svg")):
        encoded = base64.b64encode(path.read_bytes()).decode("ascii")
        images[path.stem] = f"data:image/svg+xml;base64,{encoded}"
    return images


def _json_for_html(value: Any) -> str:
    """JSON safe inside a <script> element: no "<" that could close it."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")


def _script_for_html(text: str) -> str:
    return re.sub(r"</(script)", r"<\\/\1", text, flags=re.IGNORECASE)


def standalone_page(
    record: Mapping[str, Any], timeline: Mapping[str, Any], *, title: str, deck: str = "cards"
) -> str:
    """One HTML page that replays ``record`` (with its ``timeline``: engine.timeline) in
    the site's viewer, everything inline: it loads nothing, from the network or from other
    files."""
    documents = {"record": record, "timeline": timeline}
    page = PAGE_TEMPLATE.read_text(encoding="utf-8")
    replacements = {
        "{{ title }}": html.escape(title),
        "{{ style }}": static_text("web/site.css").replace("</", "<\\/"),
        "{{ shims }}": _script_for_html(GETTEXT_SHIMS),
        "{{ card_images }}": _json_for_html(card_images(deck)),
        "{{ documents }}": _json_for_html(documents),
        "{{ script }}": _script_for_html(viewer_script()),
    }
    return re.sub(
        r"\{\{ \w+ \}\}", lambda match: replacements.get(match.group(0), match.group(0)), page
    )
