"""Migrations keep existing data: a database made by the code of before the restructuring
(commit 43697f4: league 0007_rating_queue, bots 0001_initial) upgrades with ``migrate`` and
reads the same standings, ratings and records afterwards.

The test takes its test database back to that migration state with Django's migration
executor, inserts the rows of tests/league/data/pre_0008_league.json through the historical
models of that state (a Kingen round robin, finished, and a Priffe rotating-partner league,
running, played and rated by the old code; the README there says how the file was made),
runs ``migrate`` and asks today's API for what the old API answered then.

SQLite, the default database of ``./scripts/run``, is checked too, whatever DATABASE_URL
the run has: a process of its own (``fresh_sqlite_file_upgrade``) takes a new SQLite file
in the test's tmp_path to that state, inserts the same rows, runs ``migrate`` and compares
the same answers.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from django.apps.registry import Apps
from django.core.management import call_command
from django.core.management.color import no_style
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import Client

import pytest

from engine.record import verify_record
from league.services.standings import standings_rebuild_stale
from tests.celery_workers import REPOSITORY_ROOT

DUMP = Path(__file__).parent / "data" / "pre_0008_league.json"
OLD_STATE = [("league", "0007_rating_queue"), ("bots", "0001_initial")]
"""The migrations of main at commit 43697f4, the last before the restructuring."""


def dump_load() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(DUMP.read_text(encoding="utf-8"))
    assert data["migrations"] == dict(OLD_STATE)
    return data


def migrate_back(targets: Sequence[tuple[str, str]]) -> Apps:
    """Migrate the test database back to ``targets``; returns the models of that state."""
    executor = MigrationExecutor(connection)
    executor.migrate(list(targets))
    executor.loader.build_graph()
    return executor.loader.project_state(list(targets)).apps


def rows_insert(apps: Apps, rows: Sequence[Mapping[str, Any]]) -> None:
    """Insert Django-serialised rows through the historical models, primary keys kept."""
    by_model: dict[str, list[Any]] = {}
    for row in rows:
        model = apps.get_model(row["model"])
        values: dict[str, Any] = {model._meta.pk.attname: row["pk"]}
        for name, raw in row["fields"].items():
            field = model._meta.get_field(name)
            if field.many_to_many:
                assert not raw, f"{row['model']}.{name}: many-to-many rows are not in the dump"
            elif field.is_relation:
                values[field.attname] = raw
            else:
                values[field.attname] = field.to_python(raw)
        by_model.setdefault(row["model"], []).append(model(**values))
    for label, objects in by_model.items():  # the dump lists models parents first
        apps.get_model(label).objects.bulk_create(objects)
    models = [apps.get_model(label) for label in by_model]
    with connection.cursor() as cursor:
        for statement in connection.ops.sequence_reset_sql(no_style(), models):
            cursor.execute(statement)


def contained(old: Any, new: Any, where: str = "") -> Iterator[str]:
    """Where ``new`` differs from ``old``: every key of an old object with an equal value
    (a later version may add keys), lists item by item, everything else equal."""
    if isinstance(old, dict) and isinstance(new, dict):
        for key, value in old.items():
            if key not in new:
                yield f"{where}.{key}: missing"
            else:
                yield from contained(value, new[key], f"{where}.{key}")
    elif isinstance(old, list) and isinstance(new, list):
        if len(old) != len(new):
            yield f"{where}: {len(old)} items before, {len(new)} now"
        for index, (before, now) in enumerate(zip(old, new, strict=False)):
            yield from contained(before, now, f"{where}[{index}]")
    elif old != new or type(old) is not type(new):
        yield f"{where}: {old!r} before, {new!r} now"


def upgrade_and_compare() -> None:
    data = dump_load()
    try:
        rows_insert(migrate_back(OLD_STATE), data["rows"])
    finally:
        # The upgrade as an operator runs it (its post-migrate step included); whatever
        # happened, the next test finds the latest schema.
        call_command("migrate", verbosity=0)
    answers_compare(data)


def fresh_sqlite_file_upgrade() -> None:
    """In a process whose DATABASE_URL is a new SQLite file: migrate league and bots to the
    old state and every other app to its latest, insert the dump's rows, ``migrate`` to the
    latest and compare the answers. (Migrating only up to the old state would leave Django's
    own apps at the first migrations those two depend on, older than any database the old
    code ran on; migrating everything to the latest and then back, as the PostgreSQL test
    must from its test database, would run league's and bots' migrations three times.)"""
    assert connection.vendor == "sqlite", connection.vendor
    with connection.cursor() as cursor:
        tables = connection.introspection.table_names(cursor)
    assert not tables, f"the SQLite file is not new: {tables[:5]}"
    old_apps = {app for app, _ in OLD_STATE}
    others = MigrationExecutor(connection).loader.graph.leaf_nodes()
    data = dump_load()
    rows_insert(
        migrate_back([*OLD_STATE, *(node for node in others if node[0] not in old_apps)]),
        data["rows"],
    )
    call_command("migrate", verbosity=0)
    answers_compare(data)


def answers_compare(data: Mapping[str, Any]) -> None:
    """Today's API answers what the old one did, and the stored records still verify."""
    assert standings_rebuild_stale() == [], "migrate left stale stored standings"

    client = Client()
    for path, before in data["api"].items():
        response = client.get(path)
        assert response.status_code == 200, (path, response.content[:300])
        now = response.json()
        differences = list(contained(before, now))
        assert not differences, f"{path}: {differences[:10]}"

    results = [row for row in data["rows"] if row["model"] == "league.matchresult"]
    stored = {row["pk"]: row["fields"]["record"] for row in results}
    assert results, "the dump has finished matches"
    for row in results:
        match = row["fields"]["match"]
        response = client.get(f"/api/matches/{match}/record/")
        assert response.status_code == 200, response.content[:300]
        record = response.json()
        assert record == stored[row["pk"]], f"match {match}: the record changed"
        verification = verify_record(record)
        assert verification.ok, f"match {match}: {verification.problem}"
        assert verification.scores == row["fields"]["scores"]

    for tournament in {row["pk"] for row in data["rows"] if row["model"] == "league.tournament"}:
        response = client.get(f"/api/tournaments/{tournament}/records.ndjson")
        assert response.status_code == 200
        lines = b"".join(response.streaming_content).decode().splitlines()  # type: ignore[attr-defined]
        expected = [
            stored[row["pk"]]
            for row in sorted(results, key=lambda row: row["fields"]["match"])
            if any(
                m["pk"] == row["fields"]["match"] and m["fields"]["tournament"] == tournament
                for m in data["rows"]
                if m["model"] == "league.match"
            )
        ]
        assert [json.loads(line) for line in lines] == expected


@pytest.mark.postgres
@pytest.mark.slow  # migrating back and forth: about 5 s
@pytest.mark.django_db(transaction=True)
def test_a_league_stored_before_the_restructuring_reads_the_same_after_migrate() -> None:
    upgrade_and_compare()


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_the_same_upgrade_on_sqlite() -> None:
    if connection.vendor != "sqlite":
        pytest.skip("the database is not SQLite: the PostgreSQL test covers it")
    upgrade_and_compare()


SQLITE_UPGRADE_SECONDS = 600


@pytest.mark.slow  # every migration from nothing, in a process of its own: about 8 s of CPU
def test_a_new_sqlite_file_at_the_old_state_upgrades_and_reads_the_same(tmp_path: Path) -> None:
    """Whatever the run's database: SQLite is ./scripts/run's default, and the PostgreSQL
    run of CI would otherwise never upgrade one."""
    database = tmp_path / "db.sqlite3"
    environment = {
        name: value
        for name, value in os.environ.items()
        if name not in {"REDIS_URL", "PYTEST_XDIST_WORKER"}  # the file cache, no broker
    } | {
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": f"sqlite:///{database}",
        "VAR_DIR": str(tmp_path / "var"),
        "ALLOWED_HOSTS": "testserver",
        "DEBUG": "false",
    }
    upgrade = (
        "import django; django.setup(); "
        "from tests.league.test_migration_upgrade import fresh_sqlite_file_upgrade; "
        "fresh_sqlite_file_upgrade()"
    )
    finished = subprocess.run(
        [sys.executable, "-c", upgrade],
        cwd=REPOSITORY_ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=SQLITE_UPGRADE_SECONDS,
        check=False,
    )
    assert finished.returncode == 0, finished.stderr[-6000:]
    assert database.stat().st_size > 0
