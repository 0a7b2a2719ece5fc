"""The standalone replay page (engine/viewer, ``python -m engine show FILE --html``): the
site's replay controls, the viewer's files inline, nothing to load, bad records refused."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from engine.__main__ import main as engine_main
from engine.errors import RecordError
from engine.players import make_player
from engine.record import record_from_state
from engine.show import show_record_html
from engine.variants import load_game
from engine.viewer import PAGE_TEMPLATE, viewer_script

PROJECT = Path(__file__).resolve().parents[2]
CONTROL = re.compile(r'data-(step|role)="([\w-]+)"')


def _record(game_string: str = "kingen", seed: int = 2) -> dict[str, Any]:
    game = load_game(game_string)
    state = game.new_initial_state(seed=seed)
    players = [make_player("greedy", seat) for seat in range(game.num_seats)]
    while not state.is_terminal():
        seat = state.acting_seat()
        state.apply_action(players[seat].choose(state.view_for(seat)), seat=seat)
    return record_from_state(state)


def test_the_standalone_page_has_the_site_replay_pages_controls() -> None:
    site = (PROJECT / "web" / "templates" / "web" / "replay.html").read_text()
    standalone = PAGE_TEMPLATE.read_text()
    site_controls = set(CONTROL.findall(site)) - {("role", "record-link")}
    assert set(CONTROL.findall(standalone)) == site_controls


def test_the_viewer_script_folds_cards_js_in_and_imports_nothing() -> None:
    script = viewer_script()
    assert "import " not in re.sub(r"//.*", "", script).split("const {", 1)[0]
    assert not re.search(r'^\s*import\s|from "\./', script, re.MULTILINE)
    assert "function cardImage(" in script


def test_the_page_is_whole_and_loads_nothing(tmp_path: Path) -> None:
    page = show_record_html(_record())
    assert not re.search(r'\s(src|href)="(?!#|data:)', page)
    assert "https://" not in page
    assert "http://" not in page
    documents = re.search(
        r'<script type="application/json" id="replay-documents">(.*?)</script>', page, re.S
    )
    assert documents is not None
    parsed = json.loads(documents.group(1))
    assert parsed["record"]["game"] == "kingen"
    assert "deals" in parsed["timeline"]
    assert "default-src 'none'" in page


def test_a_record_that_breaks_the_rules_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = _record()
    first_play = next(
        event for event in record["deals"][0]["actions"] if event.get("action", "")[:5] == "play "
    )
    first_play["action"] = "play " + ("2C" if first_play["action"] != "play 2C" else "3C")
    with pytest.raises(RecordError, match="does not replay"):
        show_record_html(record)
    source = tmp_path / "broken.json"
    source.write_text(json.dumps(record))
    assert engine_main(["show", str(source), "--html", str(tmp_path / "out.html")]) == 2
    assert "does not replay" in capsys.readouterr().err
    assert not (tmp_path / "out.html").exists()
