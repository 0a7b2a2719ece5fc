"""tests/template_database.py: each process's database is a copy of a template migrated once,
kept while Django, the apps and the migrations stay the same."""

from __future__ import annotations

from pathlib import Path

from django.db import connection

import pytest

from tests.template_database import schema_fingerprint, template_name


def migrations_tree(root: Path, body: str) -> Path:
    (root / "app" / "migrations").mkdir(parents=True)
    (root / "app" / "migrations" / "0001_initial.py").write_text(body)
    (root / "app" / "models.py").write_text("# not a migration\n")
    return root


def test_the_fingerprint_follows_the_migrations_bytes_and_nothing_else(tmp_path: Path) -> None:
    root = migrations_tree(tmp_path / "a", "operations = []\n")
    before = schema_fingerprint(root)
    assert schema_fingerprint(root) == before
    (root / "app" / "models.py").write_text("# changed, but not a migration\n")
    assert schema_fingerprint(root) == before
    (root / "app" / "migrations" / "0001_initial.py").write_text("operations = [1]\n")
    assert schema_fingerprint(root) != before
    (root / "app" / "migrations" / "0002_more.py").write_text("")
    assert len({before, schema_fingerprint(root)}) == 2


def test_one_template_serves_every_process_of_a_run_within_postgresql_s_63_bytes() -> None:
    assert template_name("test_king_gw0", "abc") == template_name("test_king_gw2", "abc")
    assert template_name("test_king", "abc") == "test_king_template_abc"
    assert len(template_name("test_" + "x" * 80 + "_gw1", "0123456789ab").encode()) <= 63


@pytest.mark.postgres
@pytest.mark.django_db
def test_this_process_s_database_is_a_copy_of_the_template_of_today_s_migrations() -> None:
    name = connection.settings_dict["NAME"]
    template = template_name(name, schema_fingerprint())
    ours = {
        (path.parent.parent.name, path.stem)
        for path in Path(__file__).resolve().parent.parent.glob("*/migrations/0*.py")
    }
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT datname FROM pg_database WHERE datname IN (%s, %s)", [name, template]
        )
        assert sorted(row[0] for row in cursor.fetchall()) == sorted([name, template])
        cursor.execute("SELECT app, name FROM django_migrations")
        applied = {(app, migration) for app, migration in cursor.fetchall()}
    assert ours
    assert ours <= applied


@pytest.mark.postgres
@pytest.mark.django_db
def test_the_copy_commits_without_waiting_for_the_disk() -> None:
    """Every connection to the process's copy (the workers' and servers' as well as this
    one) has ``synchronous_commit`` off: the database's own setting, not this session's."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT setconfig FROM pg_db_role_setting JOIN pg_database d ON d.oid = setdatabase "
            "WHERE d.datname = %s AND setrole = 0",
            [connection.settings_dict["NAME"]],
        )
        assert cursor.fetchone() == (["synchronous_commit=off"],)
        cursor.execute("SHOW synchronous_commit")
        assert cursor.fetchone() == ("off",)
