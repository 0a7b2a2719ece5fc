"""Each test process's PostgreSQL database cloned from a template migrated once.

pytest-django makes every test process's database by running every migration into it: on
this 2-core machine about 18 s of CPU a process (measured 2026-11-28), three times at the
start of each run, the three processes competing for the two cores. Here the first process
to need a database migrates a template (``<test database>_template_<fingerprint>``) and
every process then copies it (``CREATE DATABASE ... TEMPLATE``: PostgreSQL copies the
files, in about a second). The template is kept for the next run while its fingerprint
holds: Django's version, the installed apps and the bytes of every migration. Anything
else ``migrate`` writes (content types and permissions, read off the models those
migrations made; the league's ``post_migrate`` rebuild of stale standings, of which an
empty database has none) follows from them. A new fingerprint builds a new template and
drops the older ones of the same test database.

Only one process builds: the others wait on a PostgreSQL advisory lock named after the
template, then copy what it built. A template is built under a name of its own and renamed
when complete, so a run killed while building leaves nothing another run would copy.
SQLite and any other database keep pytest-django's own setup.

Each copy commits without waiting for the disk (``synchronous_commit = off`` for the
database, so for every connection to it: the test process's, its workers', its servers'):
a commit is as visible to the others as before, only not durable across a crash of the
server, which a test database never needs. A commit that waits for the disk cost 2.2-3.5 ms
here, 0.1-0.14 ms without (500 one-row commits, 2026-11-28); the workers and servers of the
transactional tests commit at every move.
"""

from __future__ import annotations

import hashlib
import zlib
from collections.abc import Iterator
from pathlib import Path

import django
from django.conf import settings
from django.db import connection
from django.db.backends.utils import CursorWrapper

REPOSITORY_ROOT = Path(__file__).resolve().parent.parent
MIGRATIONS = "*/migrations/*.py"


def schema_fingerprint(root: Path = REPOSITORY_ROOT) -> str:
    """What the migrated database depends on: Django's version, the installed apps and the
    project's migrations, byte for byte; 12 hex digits."""
    digest = hashlib.sha256()
    digest.update(django.get_version().encode())
    digest.update("\n".join(settings.INSTALLED_APPS).encode())
    for path in sorted(root.glob(MIGRATIONS)):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:12]


def template_name(test_database: str, fingerprint: str) -> str:
    """The template of ``test_database``'s schema (PostgreSQL names are at most 63 bytes:
    the test database's name is cut to leave room for the fingerprint)."""
    base = test_database.rsplit("_gw", 1)[0]  # one template for every process of a run
    return f"{base[:40]}_template_{fingerprint}"


def advisory_key(name: str) -> int:
    """A PostgreSQL advisory lock's key (a signed 64-bit integer) for ``name``."""
    return zlib.crc32(name.encode())


def _quoted(name: str) -> str:
    return connection.ops.quote_name(name)


def _databases_starting(cursor: CursorWrapper, prefix: str) -> list[str]:
    """The databases whose name starts with ``prefix`` (taken literally)."""
    literal = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    cursor.execute("SELECT datname FROM pg_database WHERE datname LIKE %s", [literal + "%"])
    return [row[0] for row in cursor.fetchall()]


def template_ensure(test_database: str) -> str:
    """The template of this run's schema, built now (by migrating it) unless another
    process or an earlier run built it; older templates of ``test_database`` are dropped."""
    template = template_name(test_database, schema_fingerprint())
    key = advisory_key(template)
    with connection._nodb_cursor() as lock_cursor:
        lock_cursor.execute("SELECT pg_advisory_lock(%s)", [key])
        try:
            if template not in _databases_starting(lock_cursor, template):
                _template_build(template)
                prefix = template.rsplit("_template_", 1)[0]
                for older in _databases_starting(lock_cursor, f"{prefix}_template_"):
                    if older != template and not older.endswith("_building"):
                        lock_cursor.execute(f"DROP DATABASE IF EXISTS {_quoted(older)}")
        finally:
            lock_cursor.execute("SELECT pg_advisory_unlock(%s)", [key])
    return template


def _template_build(template: str) -> None:
    """Migrate a new database as pytest-django would, then give it the template's name."""
    building = f"{template}_building"
    test_settings = connection.settings_dict.setdefault("TEST", {})
    wanted = test_settings.get("NAME")
    original = connection.settings_dict["NAME"]
    test_settings["NAME"] = building
    try:
        connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
    finally:
        test_settings["NAME"] = wanted
    connection.close()
    connection.settings_dict["NAME"] = original
    settings.DATABASES[connection.alias]["NAME"] = original
    with connection._nodb_cursor() as cursor:
        cursor.execute(f"ALTER DATABASE {_quoted(building)} RENAME TO {_quoted(template)}")


def clone_from_template(test_database: str, template: str) -> None:
    """This process's test database, a fresh copy of ``template``; the connection uses it."""
    connection.close()
    with connection._nodb_cursor() as cursor:
        cursor.execute(f"DROP DATABASE IF EXISTS {_quoted(test_database)}")
        cursor.execute(f"CREATE DATABASE {_quoted(test_database)} TEMPLATE {_quoted(template)}")
        cursor.execute(f"ALTER DATABASE {_quoted(test_database)} SET synchronous_commit = off")
    connection.settings_dict["NAME"] = test_database
    settings.DATABASES[connection.alias]["NAME"] = test_database


def clone_drop(test_database: str, original: str) -> None:
    """Drop this process's copy at the end of the run (the template stays), ending the
    sessions still on it (``WITH (FORCE)``, PostgreSQL 13 and newer): a live server's
    thread or a pool the run started may not have closed its connection yet."""
    connection.close()
    connection.settings_dict["NAME"] = original
    settings.DATABASES[connection.alias]["NAME"] = original
    with connection._nodb_cursor() as cursor:
        cursor.execute(f"DROP DATABASE IF EXISTS {_quoted(test_database)} WITH (FORCE)")


def template_databases() -> Iterator[None]:
    """Set up this process's database from the template (PostgreSQL), for the run; the
    body of the suite's ``django_db_setup``."""
    original = connection.settings_dict["NAME"]
    test_database = connection.creation._get_test_db_name()  # type: ignore[attr-defined]
    clone_from_template(test_database, template_ensure(test_database))
    try:
        yield
    finally:
        clone_drop(test_database, original)
