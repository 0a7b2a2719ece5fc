"""The bots' runtimes (bots.runtimes): recognised or chosen at upload, each entry file
checked with a clear message, a runtime missing here refused at upload naming what to
install, and the starter kit of every runtime (bots/examples/) built from source and
played in real matches, in the sandbox and out of it, and from the command line."""

from __future__ import annotations

import io
import json
import os
import struct
import subprocess
import sys
import time
from pathlib import Path

from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

import pytest

from bots.bundle import BotBundle, BotBundleError, bot_bundle_check
from bots.match import BotSpec, bot_spec_parse, match_play
from bots.models import BotVersion
from bots.protocol import TimeControl
from bots.runner.runtimes import NUMPY_VARIABLE, runtime_unavailable_reason
from bots.runner.sandbox import Limits
from bots.runner.seat import UploadedSeat
from bots.runtimes import (
    RUNTIMES,
    SANDBOX_LOADER,
    SHARED_LIBRARY_PROBLEM,
    elf_problem,
    jar_problem,
)
from bots.seats import Hello, Outcome
from bots.services import (
    BotServiceError,
    bot_create,
    bot_version_bundle,
    bot_version_store,
    bot_version_validate,
)
from engine.variants import load_game
from tests.bots import kits
from tests.bots.botcode import assert_others_intact

PROJECT = Path(__file__).resolve().parents[2]


def _elf(
    *, bits: int = 2, endian: int = 1, machine: int = 62, kind: int = 2, loader: bytes = b""
) -> bytes:
    """A minimal ELF header (and a PT_INTERP naming ``loader`` if given)."""
    header = bytearray(64)
    header[:4] = b"\x7fELF"
    header[4], header[5], header[6] = bits, endian, 1
    phnum = 1 if loader else 0
    struct.pack_into("<HHI", header, 16, kind, machine, 1)
    struct.pack_into("<Q", header, 32, 64)  # e_phoff
    struct.pack_into("<HH", header, 54, 56, phnum)
    if not loader:
        return bytes(header)
    program = bytearray(56)
    struct.pack_into("<I", program, 0, 3)  # PT_INTERP
    struct.pack_into("<QQQQ", program, 8, 120, 0, 0, len(loader) + 1)
    return bytes(header) + bytes(program) + loader + b"\0"


def _jar(manifest: str | None, classes: tuple[str, ...] = ("Main.class",)) -> bytes:
    files = dict.fromkeys(classes, b"\xca\xfe\xba\xbe")
    if manifest is not None:
        files["META-INF/MANIFEST.MF"] = manifest.encode()
    return kits.zipped(files)


# ---------------------------------------------------------------- recognising


@pytest.mark.parametrize(
    ("filename", "data", "runtime"),
    [
        ("bot.py", b"print('hi')\n", "python"),
        ("bot.py", b"import json\nimport numpy as np\n", "python-numpy"),
        ("bot.zip", kits.zipped({"main.py": b"x", "h.py": b"from numpy import e"}), "python-numpy"),
        ("bot.zip", kits.zipped({"main.py": b"# numpy is not imported here\n"}), "python"),
        ("bot.js", b"console.log('x')\n", "node"),
        ("bot.zip", kits.zipped({"main.js": b"1\n", "lib/x.js": b"2\n"}), "node"),
        ("bot.jar", _jar("Main-Class: Main\n"), "java"),
        ("bot.zip", kits.zipped({"bot.jar": _jar("Main-Class: a.B\n", ("a/B.class",))}), "java"),
        ("main", _elf(), "native"),
        ("mybot", _elf(loader=b"/lib64/ld-linux-x86-64.so.2"), "native"),
        ("bot.zip", kits.zipped({"main": _elf(kind=3, loader=SANDBOX_LOADER.encode())}), "native"),
    ],
)  # fmt: skip
def test_the_runtime_is_recognised_from_the_files(filename: str, data: bytes, runtime: str) -> None:
    assert bot_bundle_check(filename, data).runtime == runtime


@pytest.mark.parametrize(
    ("filename", "data", "runtime", "message"),
    [
        ("main", _elf(bits=1), None, "main: is a 32-bit ELF file; build for x86-64"),
        ("main", _elf(machine=183), None, "is built for AArch64 (arm64); the league runs"),
        ("main", _elf(endian=2), None, "big-endian"),
        ("main", _elf(kind=1), None, "is an ELF file that is not an executable (an object file?)"),
        ("main", _elf(kind=3), None, "main: is a shared library (gcc -shared), not an executable"),
        ("main", _elf(loader=b"/lib/ld-musl.so"), None, "'/lib/ld-musl.so', which the sandbox"),
        ("main", _elf(loader=b"/lib/ld-musl.so"), None, "does not have; link it statically"),
        ("bot.zip", kits.zipped({"main": b"#!/bin/sh\n"}), None, "main: is not an ELF executable"),
        ("bot.jar", _jar(None), None, "bot.jar: has no META-INF/MANIFEST.MF"),
        ("bot.jar", _jar("Manifest-Version: 1.0\n"), None, "has no Main-Class in its manifest"),
        ("bot.jar", _jar("Main-Class: Bot\n"), None, "Main-Class Bot, but Bot.class is not in"),
        ("bot.jar", b"PK\x03\x04 not really", None, "not a valid jar"),
        ("bot.js", b"\xff\xfe", None, "bot.js: must be UTF-8 text"),
        ("bot.zip", kits.zipped({"main.py": b"x", "main.js": b"y"}), None, "several entry files"),
        ("bot.zip", kits.zipped({"x.js": b"x"}), None, "no main.py at its top level, nor another"),
        ("bot.py", b"x = 1\n", "node", "bot.py has no main.js at its top level, which the node"),
        ("bot.zip", kits.zipped({"main.py": b"x"}), "java", "the zip has no bot.jar at its top"),
        ("bot.py", b"x = 1\n", "cobol", "runtime: unknown runtime 'cobol' (known: python, python-"),
        ("bot.exe", b"MZ\x90\x00", None, "a bot is a .py file or a .zip"),
    ],
)  # fmt: skip
def test_an_entry_file_its_runtime_cannot_run_is_refused_with_the_reason(
    filename: str, data: bytes, runtime: str | None, message: str
) -> None:
    with pytest.raises(BotBundleError) as refused:
        bot_bundle_check(filename, data, runtime)
    assert message in str(refused.value)


def test_the_uploaders_choice_wins_over_recognition() -> None:
    assert bot_bundle_check("bot.py", b"import numpy\n", "python").runtime == "python"
    assert bot_bundle_check("bot.py", b"x = 1\n", "python-numpy").runtime == "python-numpy"


def test_a_real_static_executable_passes_and_a_dynamic_system_one_too() -> None:
    assert elf_problem(kits.c_kit()) is None
    assert elf_problem(Path(sys.executable).resolve().read_bytes()[:65536]) is None
    assert jar_problem(kits.zipped({})) is not None


def test_each_runtime_has_its_limits_and_start_up_allowance() -> None:
    java = Limits.for_runtime("java")
    assert java.processes > Limits.for_runtime("python").processes
    assert Limits.for_runtime("python") == Limits()  # Python's are today's
    seat = UploadedSeat(BotBundle("bot.jar", "jar", b"", "java"), seed=1)
    seat._hello = Hello(load_game("kingen"), 0, TimeControl(startup_ms=5000))
    assert seat.startup_allowance_ms == 5000 + RUNTIMES["java"].profile.startup_extra_ms
    assert seat.limits == java


_C_MAIN = "int main(void) { return 0; }\n"
_C_LIBRARY = "int king_league_answer(void) { return 42; }\n"


@pytest.mark.parametrize(
    ("flags", "source", "problem"),
    [
        (["-static"], _C_MAIN, None),
        (["-static-pie"], _C_MAIN, None),
        (["-pie", "-fPIE"], _C_MAIN, None),
        (["-no-pie"], _C_MAIN, None),
        (["-shared", "-fPIC"], _C_LIBRARY, SHARED_LIBRARY_PROBLEM),
        (["-shared", "-fPIC"], _C_MAIN, SHARED_LIBRARY_PROBLEM),  # a main does not make it one
        (["-c"], _C_MAIN, "is an ELF file that is not an executable (an object file?)"),
    ],
)
def test_gcc_builds_executables_pass_and_shared_libraries_are_refused(
    flags: list[str], source: str, problem: str | None, tmp_path: Path
) -> None:
    """Built by gcc here: executables (static, static PIE, PIE, not PIE) pass; a shared
    library (ET_DYN like a PIE, but asking for no loader and not marked PIE) and an object
    file are refused, with the reason."""
    gcc = kits.require_tool("gcc")
    (tmp_path / "bot.c").write_text(source)
    out = tmp_path / "main"
    build = subprocess.run(
        [gcc, *flags, "-o", str(out), str(tmp_path / "bot.c")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert build.returncode == 0, build.stderr
    assert elf_problem(out.read_bytes()) == problem
    if problem is not None:
        with pytest.raises(BotBundleError) as refused:
            bot_bundle_check("main", out.read_bytes())
        assert f"main: {problem}" in str(refused.value)


def test_the_docs_bound_a_seat_without_control_groups_as_the_profiles_do() -> None:
    """docs/bot-protocol.md states, per runtime, what a seat may hold where no control
    group bounds it: each process's address space times its processes, from the table."""
    page = (PROJECT / "docs" / "bot-protocol.md").read_text()
    table = page.split("<!-- memory-without-cgroups:begin -->")[1]
    table = table.split("<!-- memory-without-cgroups:end -->")[0]
    rows = [line.strip("|").split("|") for line in table.strip().splitlines()[2:]]
    stated = {name.strip().strip("`"): bound.strip() for name, bound in rows}
    assert stated == {
        name: runtime.profile.memory_without_cgroups_text() for name, runtime in RUNTIMES.items()
    }
    assert stated["node"] == "24 x 16 GiB"
    node = RUNTIMES["node"].profile
    assert node.memory_without_cgroups == 24 * 16 * 1024 * 1024 * 1024


def test_the_runtimes_command_names_the_bound_where_there_are_no_control_groups() -> None:
    environment = os.environ | {"KING_LEAGUE_CGROUPS": "off"}
    listing = subprocess.run(
        [sys.executable, "-m", "bots", "runtimes"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=PROJECT,
        check=False,
        env=environment,
    )
    lines = {line.split(":")[0]: line for line in listing.stdout.splitlines()}
    assert lines["python"].endswith("; no control groups here: its processes may hold 12 x 1 GiB")
    if "node: ready" in listing.stdout:
        assert lines["node"].endswith("its processes may hold 24 x 16 GiB")


# ---------------------------------------------------------------- uploads


@pytest.mark.postgres
@pytest.mark.django_db
def test_the_upload_stores_the_runtime_and_the_version_replays_it() -> None:
    author = User.objects.create_user("runtime-author", password="x")
    bot = bot_create(owner=author, name="polyglot", families=["kingen"])
    files = kits.node_kit()
    version = bot_version_store(owner=author, bot=bot, filename="bot.zip", data=kits.zipped(files))
    assert version.runtime == "node"
    bundle = bot_version_bundle(version)
    assert (bundle.kind, bundle.runtime) == ("zip", "node")
    chosen = bot_version_store(
        owner=author, bot=bot, filename="bot.py", data=b"x = 1\n", runtime="python-numpy"
    )
    assert chosen.runtime == "python-numpy"
    single = bot_version_store(owner=author, bot=bot, filename="main", data=kits.c_kit())
    assert bot_version_bundle(single) == BotBundle("main", "elf", kits.c_kit(), "native")


@pytest.mark.postgres
@pytest.mark.django_db
def test_a_runtime_missing_here_is_refused_at_upload_naming_what_to_install(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(NUMPY_VARIABLE, str(tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path))  # no node, no java
    author = User.objects.create_user("runtime-author", password="x")
    bot = bot_create(owner=author, name="polyglot", families=["kingen"])
    cases = {
        ("bot.py", b"import numpy\n"): f"numpy is not installed in {tmp_path}: run"
        " scripts/runtimes-install python-numpy",
        ("bot.js", b"1\n"): "node is not installed: apt-get install nodejs",
        ("bot.jar", _jar("Main-Class: Main\n")): "java is not installed: apt-get install"
        " default-jre-headless",
    }
    for (filename, data), message in cases.items():
        with pytest.raises(BotServiceError) as refused:
            bot_version_store(owner=author, bot=bot, filename=filename, data=data)
        assert message in str(refused.value)
    assert not bot.versions.exists()
    # the native and python runtimes need nothing more
    assert runtime_unavailable_reason("native") is None
    assert runtime_unavailable_reason("python") is None


# ---------------------------------------------------------------- the kits play


def _kit_bundles() -> dict[str, BotBundle]:
    for runtime in ("python-numpy", "node", "java"):
        kits.require_runtime(runtime)
    examples = kits.EXAMPLES
    return {
        "c": kits.bundle("c.zip", {"main": kits.c_kit()}),
        "rust": kits.bundle("rust.zip", {"main": kits.rust_kit()}),
        "node": kits.bundle("node.zip", kits.node_kit()),
        "java": kits.bundle("java.zip", {"bot.jar": kits.java_kit()}),
        "python-numpy": bot_bundle_check(
            "main.py", (examples / "python-numpy" / "main.py").read_bytes()
        ),
        "python": bot_bundle_check("main.py", (examples / "python" / "main.py").read_bytes()),
    }


@pytest.mark.sandbox
@pytest.mark.parametrize("sandbox", [True, False], ids=["sandboxed", "plain"])
def test_every_runtimes_starter_kit_plays_whole_matches(sandbox: bool) -> None:
    bundles = _kit_bundles()
    assert [bundle.runtime for bundle in bundles.values()] == [
        "native", "native", "node", "java", "python-numpy", "python",
    ]  # fmt: skip
    lineups = [
        ("kingen", ["c", "node", "java", "python-numpy"]),
        ("king(quick_game=true)", ["rust", "python", "node", "c"]),
    ]
    for game, names in lineups:
        result = match_play(
            game,
            [BotSpec.uploaded(bundles[name], label=name) for name in names],
            seed=5,
            sandbox=sandbox,
        )
        for name, report in zip(names, result.seats, strict=True):
            assert report.outcome is Outcome.OK, (name, report.faults, report.log[-2000:])
            assert report.fallbacks == 0, (name, report.fallback_reasons)
            assert report.decisions > 0
        assert_others_intact(result, attacker=-1)


_NODE_PROBE = b"""
const kingbot = require("./kingbot");
let promises = 0;
let timers = 0;
kingbot.run(
  (request) => {
    Promise.resolve().then(() => { promises += 1; }); // runs right after the answers
    return request.legal[request.legal.length - 1];
  },
  {
    onHello: (hello) => {
      kingbot.log("hello " + hello.name);
      setTimeout(() => { timers += 1; }, 0); // due before the next read after it
    },
    onEnd: () => {
      const net = process.moduleLoadList.some((name) => name === "NativeModule net");
      kingbot.log(`promises ${promises} timers ${timers} net ${net}`);
    },
  },
);
"""


def _node_waiting(pid: int) -> None:
    """Until the node process ``pid`` waits for stdin (so the next piece is a read of its
    own), or a few seconds where the kernel does not say (its wait channel hidden)."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            channel = Path(f"/proc/{pid}/wchan").read_text()
        except OSError:
            return
        if any(word in channel for word in ("pipe_read", "pipe_wait", "epoll", "ep_poll")):
            return
        time.sleep(0.005)


def _node_probe(tmp_path: Path, pieces: list[bytes], *, blocking: bool) -> tuple[str, str]:
    """Run the kit's helper under a probe bot, its stdin written in ``pieces``, each once
    the bot waits for more (the last, the end, once it has answered both requests); its
    stdout and stderr."""
    kits.require_runtime("node")
    for name, content in {**kits.node_kit(), "main.js": _NODE_PROBE}.items():
        (tmp_path / name).write_bytes(content)
    read_end, write_end = os.pipe()
    os.set_blocking(read_end, blocking)
    process = subprocess.Popen(
        ["node", "main.js"],
        stdin=read_end,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
    )
    os.close(read_end)
    assert process.stdout is not None
    lines = []
    try:
        for index, piece in enumerate(pieces):
            if index == 3:
                lines = [process.stdout.readline() for _ in range(3)]
            _node_waiting(process.pid)
            os.write(write_end, piece)
    finally:
        os.close(write_end)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    return b"".join(lines).decode() + out.decode(), err.decode()


_NODE_INPUT = [
    b'{"type": "hello", "protocol": 1, "seat": 0, "seats": 4, "game": "kingen", "name": "\xc3',
    b'\xa9t\xc3\xa9"}\n{"type": "request", "id": 1, "legal": ["play 2C", "pl',
    b'ay 9C"], "view": {}, "time": {}}\n\n{"type": "request", "id": 2, "legal": ["pass"]}\n',
    b'{"type": "end"}\n',
]


@pytest.mark.parametrize("blocking", [True, False], ids=["blocking", "non-blocking"])
def test_the_node_kit_reads_requests_split_anywhere_without_a_stdin_stream(
    tmp_path: Path, blocking: bool
) -> None:
    """kingbot.js reads stdin with fs.readSync (process.stdin's stream costs Node's start in
    the sandbox about 10 ms: docs/benchmarks.md): a line or a UTF-8 character cut between
    two reads, an empty line, the bot's promises and timers between requests, the end; a
    stdin that does not block falls back to the stream."""
    out, err = _node_probe(tmp_path, _NODE_INPUT, blocking=blocking)
    answers = [json.loads(line) for line in out.splitlines()]
    assert answers == [
        {"type": "ready"},
        {"id": 1, "action": "play 9C"},
        {"id": 2, "action": "pass"},
    ]
    assert "hello \u00e9t\u00e9" in err
    assert f"promises 2 timers 1 net {str(not blocking).lower()}" in err


def test_the_node_kit_exits_when_the_league_closes_stdin(tmp_path: Path) -> None:
    out, err = _node_probe(tmp_path, _NODE_INPUT[:1], blocking=True)
    assert out == ""  # no ready: the hello line never ended
    assert "promises" not in err


@pytest.mark.sandbox
def test_the_command_line_plays_bots_of_every_runtime(tmp_path: Path) -> None:
    kits.require_runtime("node")
    native = tmp_path / "main"
    native.write_bytes(kits.c_kit())
    node = tmp_path / "bot.zip"
    node.write_bytes(kits.zipped(kits.node_kit()))
    numpy_bot = kits.EXAMPLES / "python-numpy" / "main.py"
    assert bot_spec_parse(f"python:{numpy_bot}").name == "main.py"
    assert bot_spec_parse(f"python:{numpy_bot}").bundle == BotBundle(
        "main.py", "py", numpy_bot.read_bytes(), "python"
    )
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "bots",
            "match",
            "kingen",
            str(native),
            str(node),
            f"python-numpy:{numpy_bot}",
            "builtin:greedy",
            "--seed",
            "2",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=PROJECT,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert [seat["outcome"] for seat in summary["seats"]] == ["ok"] * 4
    listing = subprocess.run(
        [sys.executable, "-m", "bots", "runtimes"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=PROJECT,
        check=False,
    )
    assert "native: ready" in listing.stdout
    assert "python: ready" in listing.stdout


@pytest.mark.postgres
@pytest.mark.sandbox
@pytest.mark.django_db
def test_uploads_through_the_api_and_the_page_choose_or_recognise_the_runtime() -> None:
    author = User.objects.create_user("runtime-author", password="x")
    bot = bot_create(owner=author, name="polyglot", families=["kingen"])
    api = APIClient()
    api.force_authenticate(author)
    native = io.BytesIO(kits.zipped({"main": kits.c_kit()}))
    native.name = "bot.zip"
    created = api.post(f"/api/bots/{bot.pk}/versions/", {"file": native}, format="multipart")
    assert created.status_code == 201, created.json()
    assert created.json()["runtime"] == "native"
    wrong = io.BytesIO(kits.zipped({"main": kits.c_kit()}))
    wrong.name = "bot.zip"
    refused = api.post(
        f"/api/bots/{bot.pk}/versions/", {"file": wrong, "runtime": "java"}, format="multipart"
    )
    assert refused.status_code == 400
    assert "the zip has no bot.jar at its top level" in json.dumps(refused.json())
    client = Client()
    client.force_login(author)
    page = client.post(
        reverse("web:bot-upload", args=[bot.pk]),
        {"file": SimpleUploadedFile("bot.py", b"x = 1\n"), "runtime": "python-numpy"},
        follow=True,
    ).content.decode()
    assert "(runtime python-numpy, sha256" in page
    assert [v.runtime for v in bot.versions.order_by("number")] == ["native", "python-numpy"]
    validated = bot_version_validate(version_id=created.json()["id"])
    assert validated is not None
    assert validated.status == BotVersion.Status.ACTIVE, validated.report


@pytest.mark.sandbox
def test_a_native_bot_linked_against_the_c_library_runs_on_the_sandboxs() -> None:
    kit = kits.EXAMPLES / "native" / "c"
    dynamic = kits.c_executable(kit, "main.c", "kingbot.c", static=False)
    assert b"/lib64/ld-linux-x86-64.so.2" in dynamic  # not static: it needs the loader
    bundle = kits.bundle("dynamic.zip", {"main": dynamic})
    result = match_play(
        "kingen", [BotSpec.uploaded(bundle)] + [BotSpec.builtin("greedy")] * 3, seed=6
    )
    assert result.seats[0].outcome is Outcome.OK, result.seats[0].faults
    assert result.seats[0].fallbacks == 0


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("en", "is built for AArch64 (arm64); the league runs"),
        ("nl", "is gebouwd voor"),
        ("sv", "är byggd för"),
    ],
)
def test_an_upload_refusal_is_told_in_the_uploaders_language(language: str, words: str) -> None:
    """The runtimes speak English (bots is pure); the league translates their refusals by
    their pattern (league.words.upload_refusals), file names and the machine kept as they were."""
    from django.utils import translation

    from league.words.upload_refusals import upload_refusal_in_language

    refusals = []
    for name, data, runtime in (
        ("main", _elf(machine=183), None),
        ("main", _elf(bits=1), None),
        ("bot.py", b"print(1)\n", "cobol"),
        ("main", _elf(kind=3), None),  # a shared library
    ):
        with pytest.raises(BotBundleError) as refused:
            bot_bundle_check(name, data, runtime)
        with translation.override(language):
            refusals.append(upload_refusal_in_language(str(refused.value)))
    assert refusals[0].startswith("main: ")
    assert words in refusals[0]
    assert "AArch64 (arm64)" in refusals[0]
    if language != "en":
        assert "32-bit ELF" not in refusals[1]
        assert "unknown runtime" not in refusals[2]
    assert "'cobol'" in refusals[2]
    assert refusals[3].startswith("main: ")
    assert "(gcc -shared)" in refusals[3]
    if language != "en":
        assert "shared library" not in refusals[3]
