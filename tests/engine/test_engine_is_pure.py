"""The engine imports nothing from Django, Celery, the league or the bots (DESIGN.md)."""

from __future__ import annotations

import ast
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "engine"
FORBIDDEN = ("django", "rest_framework", "celery", "channels", "league", "bots")


def test_engine_imports_no_service_code() -> None:
    offenders = []
    for path in sorted(ENGINE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            where = f"{path.relative_to(ENGINE.parent)}:{getattr(node, 'lineno', 0)}"
            offenders += [f"{where} imports {n}" for n in names if n.split(".")[0] in FORBIDDEN]
    assert offenders == []
    assert len(list(ENGINE.rglob("*.py"))) > 5  # the scan did look at the engine
