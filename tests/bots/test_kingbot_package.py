"""The helper module kingbot as a distribution of its own (bots/sdk/pyproject.toml:
king-league-kingbot), its major version the protocol's, and the same file the sandbox puts
on every Python bot's path, so that an upload needs nothing installed.
tests/bots/test_kit_readmes.py installs it with pip and runs the Python kit with it."""

from __future__ import annotations

import importlib.util
import tomllib
from pathlib import Path
from types import ModuleType

from bots.protocol import PROTOCOL_VERSION
from bots.runner.sandbox import LIB_FILES

SDK = Path(__file__).resolve().parents[2] / "bots" / "sdk"


def _kingbot() -> ModuleType:
    spec = importlib.util.spec_from_file_location("kingbot_under_test", SDK / "kingbot.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_distribution_is_kingbot_pinned_to_the_protocols_major_version() -> None:
    kingbot = _kingbot()
    assert kingbot.PROTOCOL_VERSION == PROTOCOL_VERSION
    assert kingbot.__version__.split(".")[0] == str(PROTOCOL_VERSION)
    project = tomllib.loads((SDK / "pyproject.toml").read_text())
    assert project["project"]["name"] == "king-league-kingbot"
    assert project["project"]["dependencies"] == []
    assert project["tool"]["setuptools"]["py-modules"] == ["kingbot"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "kingbot.__version__"}


def test_the_sandbox_provides_the_same_file() -> None:
    assert LIB_FILES["kingbot.py"].resolve() == (SDK / "kingbot.py").resolve()
