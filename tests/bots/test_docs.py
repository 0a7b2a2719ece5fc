"""docs/bot-protocol.md: a transcript for every registered family, and each is true."""

from __future__ import annotations

import json
import re
from pathlib import Path

from bots.protocol import PROTOCOL_VERSION, parse_answer, parse_ready
from engine import FAMILIES, load_game

PAGE = Path(__file__).resolve().parents[2] / "docs" / "bot-protocol.md"


def _transcripts() -> dict[str, list[str]]:
    text = PAGE.read_text(encoding="utf-8")
    section = text.split("<!-- transcripts:begin -->")[1].split("<!-- transcripts:end -->")[0]
    blocks = re.findall(r"### `([^`]+)`\n.*?```text\n(.*?)```", section, flags=re.S)
    return {game: body.splitlines() for game, body in blocks}


def test_every_family_has_a_transcript() -> None:
    families = {load_game(game).family for game in _transcripts()}
    missing = set(FAMILIES) - families
    assert not missing, f"run: python -m bots.transcripts --write docs/bot-protocol.md ({missing})"


def test_transcripts_follow_the_protocol() -> None:
    for game, lines in _transcripts().items():
        wire = [line for line in lines if line.startswith(("> ", "< "))]
        hello = json.loads(wire[0][2:])
        assert hello["type"] == "hello"
        assert hello["protocol"] == PROTOCOL_VERSION
        assert hello["game"] == game
        parse_ready(wire[1][2:].encode())
        requests = wire[2:-1]
        assert len(requests) % 2 == 0
        for request_line, answer_line in zip(requests[::2], requests[1::2], strict=True):
            request = json.loads(request_line[2:])
            assert request["type"] == "request"
            assert request["legal"] == request["view"]["legal"]
            assert parse_answer(answer_line[2:].encode()).action in request["legal"]
        end = json.loads(wire[-1][2:])
        assert end["type"] == "end"
        assert len(end["scores"]) == hello["seats"]
