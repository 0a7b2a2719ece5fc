"""Configuration from the environment: parsing, and one clear line for a bad value."""

import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from config.configuration import (
    ConfigurationError,
    database_from_url,
    flag_from_env,
    messaging_from_env,
    secret_key_from_env,
    url_for_display,
)
from tests.celery_workers import REPOSITORY_ROOT
from tests.servers import closed_port, database_url_for


def manage(*arguments: str, environment: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Run manage.py in a clean environment (only what the test gives, plus PATH)."""
    return subprocess.run(
        [sys.executable, "manage.py", *arguments],
        cwd=REPOSITORY_ROOT,
        env={"PATH": "/usr/bin:/bin"} | environment,
        capture_output=True,
        text=True,
        check=False,
    )


def assert_one_line(result: subprocess.CompletedProcess[str], *, starts_with: str) -> str:
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(starts_with), lines[0]
    return lines[0]


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("REDIS_URL", "http://127.0.0.1:6379/0", "REDIS_URL: unsupported scheme http://"),
        ("REDIS_URL", "redis://", "REDIS_URL: no host"),
        ("REDIS_URL", "redis://127.0.0.1:notaport/0", "REDIS_URL: malformed URL"),
        ("REDIS_URL", "redis://127.0.0.1:6379/queues", "REDIS_URL: the database must be a number"),
        (
            "DATABASE_URL",
            "mysql://root@127.0.0.1/league",
            "DATABASE_URL: unsupported scheme mysql://",
        ),
        ("DATABASE_URL", "postgres://127.0.0.1:5432/", "DATABASE_URL: no database name"),
        ("DEBUG", "maybe", "DEBUG: expected true or false"),
        ("LOG_LEVEL", "chatty", "LOG_LEVEL: expected one of"),
        ("WORKER_NICENESS", "20", "WORKER_NICENESS: expected a niceness from 0 to 19, got 20"),
        ("WORKER_NICENESS", "-5", "WORKER_NICENESS: expected a whole number of 0 or more"),
    ],
)
def test_a_malformed_variable_gives_one_line_naming_it(
    tmp_path: Path, variable: str, value: str, message: str
) -> None:
    result = manage("check", environment={"VAR_DIR": str(tmp_path), variable: value})

    assert_one_line(result, starts_with=message)


def test_an_unreachable_database_gives_one_line_naming_database_url(tmp_path: Path) -> None:
    port = closed_port()
    url = f"postgres://league:s3cret@127.0.0.1:{port}/league"

    for command in ("preflight", "migrate"):
        result = manage(command, environment={"VAR_DIR": str(tmp_path), "DATABASE_URL": url})

        line = assert_one_line(result, starts_with="DATABASE_URL: cannot connect to ")
        assert line == (
            f"DATABASE_URL: cannot connect to postgres://league:***@127.0.0.1:{port}/league "
            "(connection refused)"
        )


def test_an_unreachable_redis_gives_one_line_naming_redis_url(tmp_path: Path) -> None:
    port = closed_port()
    url = f"redis://127.0.0.1:{port}/0"

    result = manage("preflight", environment={"VAR_DIR": str(tmp_path), "REDIS_URL": url})

    line = assert_one_line(result, starts_with="REDIS_URL: cannot connect to ")
    assert line == f"REDIS_URL: cannot connect to {url} (connection refused)"


def test_preflight_passes_on_the_embedded_defaults(tmp_path: Path) -> None:
    result = manage("preflight", environment={"VAR_DIR": str(tmp_path)})

    assert result.returncode == 0, result.stderr
    assert "database: ok" in result.stdout
    assert "broker: ok (embedded broker" in result.stdout


def test_secret_key_is_generated_once_into_a_private_file(tmp_path: Path) -> None:
    key_file = tmp_path / "secret_key"

    first = secret_key_from_env({}, key_file=key_file)
    second = secret_key_from_env({}, key_file=key_file)

    assert first == second
    assert len(first) >= 50
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert list(tmp_path.iterdir()) == [key_file]  # no temporary file left behind
    assert secret_key_from_env({"SECRET_KEY": "given"}, key_file=key_file) == "given"


def test_database_url_parses_postgres_and_sqlite(tmp_path: Path) -> None:
    postgres = database_from_url("postgres://league:pw@db.example:5433/kings?sslmode=require")
    sqlite = database_from_url(f"sqlite:///{tmp_path}/league.sqlite3")

    assert postgres["ENGINE"] == "django.db.backends.postgresql"
    assert (postgres["HOST"], postgres["PORT"], postgres["NAME"]) == ("db.example", 5433, "kings")
    assert (postgres["USER"], postgres["PASSWORD"]) == ("league", "pw")
    assert postgres["OPTIONS"]["sslmode"] == "require"
    assert sqlite["ENGINE"] == "django.db.backends.sqlite3"
    assert sqlite["NAME"] == f"{tmp_path}/league.sqlite3"


def test_redis_url_configures_broker_results_and_channel_layer(tmp_path: Path) -> None:
    tcp = messaging_from_env(
        {"REDIS_URL": "redis://127.0.0.1:6379/3"}, var_dir=tmp_path, visibility_timeout=3600
    )
    socket = messaging_from_env(
        {"REDIS_URL": "unix:///run/redis.sock?db=2"}, var_dir=tmp_path, visibility_timeout=3600
    )
    embedded = messaging_from_env({}, var_dir=tmp_path, visibility_timeout=3600)

    assert tcp.broker_url == tcp.result_backend == "redis://127.0.0.1:6379/3"
    assert tcp.broker_transport_options["visibility_timeout"] == 3600
    assert tcp.channel_layer["BACKEND"] == "channels_redis.core.RedisChannelLayer"
    assert socket.broker_url == "redis+socket:///run/redis.sock?db=2"
    assert [host["address"] for host in socket.channel_layer["CONFIG"]["hosts"]] == [
        "unix:///run/redis.sock?db=2"
    ]
    assert embedded.embedded
    assert embedded.broker_url.startswith("filesystem://")
    assert embedded.result_backend == f"file://{tmp_path}/results"
    assert embedded.channel_layer["BACKEND"] == "channels.layers.InMemoryChannelLayer"


def test_behind_a_trusted_proxy_its_forwarded_scheme_makes_a_request_secure(
    tmp_path: Path,
) -> None:
    """A balancer that ends TLS says so in X-Forwarded-Proto (deploy/haproxy.cfg sets it);
    the site believes it only with TRUSTED_PROXIES, as it believes X-Forwarded-For."""
    script = (
        "import django; django.setup()\n"
        "from django.test import RequestFactory\n"
        "request = RequestFactory().get('/', HTTP_X_FORWARDED_PROTO='https')\n"
        "print(request.is_secure())\n"
    )

    def secure(environment: dict[str, str]) -> str:
        return subprocess.run(
            [sys.executable, "-c", script],
            cwd=REPOSITORY_ROOT,
            env={
                "PATH": "/usr/bin:/bin",
                "DJANGO_SETTINGS_MODULE": "config.settings",
                "VAR_DIR": str(tmp_path),
            }
            | environment,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()

    assert secure({"TRUSTED_PROXIES": "1"}) == "True"
    assert secure({}) == "False"  # a client's own header is not believed


def test_flags_and_passwords() -> None:
    assert flag_from_env({"DEBUG": "Yes"}, "DEBUG", default=False) is True
    assert flag_from_env({}, "DEBUG", default=False) is False
    with pytest.raises(ConfigurationError, match=r"^DEBUG: expected true or false"):
        flag_from_env({"DEBUG": "2"}, "DEBUG", default=False)
    assert url_for_display("redis://:pw@h:1/0") == "redis://:***@h:1/0"
    assert url_for_display("postgres://u@h/db") == "postgres://u@h/db"


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_preflight_beat_names_a_beat_that_never_ticked_or_went_stale(tmp_path: Path) -> None:
    """The beat container's health check (docker-compose.yml): exit 1 with one line until
    beat ticks, 0 after a fresh tick, 1 again once the tick is older than the threshold.
    On the test's database, migrated already (a new SQLite file cost a whole ``migrate``)."""
    from django.db import connection

    environment = {
        "VAR_DIR": str(tmp_path),
        "DATABASE_URL": database_url_for(connection.settings_dict),
    }

    never = manage("preflight", "--beat", environment=environment)
    tick = (
        "import django; django.setup()\n"
        "from datetime import timedelta\n"
        "from django.utils import timezone\n"
        "from league.services.heartbeats import BEAT, process_tick\n"
        "import sys\n"
        "process_tick(name=BEAT, process='test',"
        " now=timezone.now() - timedelta(seconds=float(sys.argv[1])))\n"
    )

    def beat_ticked(seconds_ago: float) -> None:
        subprocess.run(
            [sys.executable, "-c", tick, str(seconds_ago)],
            cwd=REPOSITORY_ROOT,
            env={"PATH": "/usr/bin:/bin", "DJANGO_SETTINGS_MODULE": "config.settings"}
            | environment,
            check=True,
        )

    beat_ticked(0)
    fresh = manage("preflight", "--beat", environment=environment)
    beat_ticked(3600)
    stale = manage("preflight", "--beat", environment=environment)

    assert never.returncode == 1, never.stderr
    assert never.stderr.strip() == "beat: beat has never ticked (is it running?) (celery beat)"
    assert fresh.returncode == 0, fresh.stderr
    assert "beat: ok (celery beat on test, last tick" in fresh.stdout
    assert stale.returncode == 1, stale.stderr
    assert re.fullmatch(
        r"beat: last tick 36\d\d s ago \(over 60 s\): dead or stuck \(celery beat on test\)",
        stale.stderr.strip(),
    ), stale.stderr
    assert "Traceback" not in never.stderr + stale.stderr


def test_a_process_starts_without_what_one_command_or_one_page_needs(tmp_path: Path) -> None:
    """``manage.py runserver`` serves HTTP and WebSockets (daphne's command, its options);
    every other process that sets Django up (web processes, workers, commands) starts with
    its URLs and its tasks but without daphne and Twisted (0.65 s of CPU), scipy and numpy
    (0.5 s: the ratings' and standings' maths import them at their first use) and fpdf2
    (0.55 s: the table cards' PDF): config/management/commands/runserver.py,
    league/domain/ratings_maths.py, web/table_cards.py."""
    environment = {"VAR_DIR": str(tmp_path)}
    runserver = manage("help", "runserver", environment=environment)
    assert runserver.returncode == 0, runserver.stderr
    assert "--websocket_handshake_timeout" in runserver.stdout
    heavy = {"daphne", "twisted", "scipy", "numpy", "fpdf"}
    modules = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, django; django.setup(); "
            "import config.urls, config.celery, league.tasks, bots.tasks; "
            f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({sorted(heavy)!r})))",
        ],
        cwd=REPOSITORY_ROOT,
        env={"PATH": "/usr/bin:/bin", "DJANGO_SETTINGS_MODULE": "config.settings"} | environment,
        capture_output=True,
        text=True,
        check=True,
    )
    assert modules.stdout.strip() == "[]"
