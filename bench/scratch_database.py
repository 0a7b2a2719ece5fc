"""A benchmark's own database, so that it never touches the service's data.

The benchmarks that play through the league's services, a worker or the site make one
named after the configured database and a suffix (``<name>_<suffix>``), migrated as the
tests' is, and drop it at the end. Django must be set up before this is imported.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings
from django.db import connection, connections
from django.test.utils import setup_test_environment

from config.configuration import database_url_for


@contextmanager
def scratch_database(suffix: str) -> Iterator[str]:
    """Make and migrate ``<name>_<suffix>`` (an old one of that name is replaced), use it
    in this process, and drop it on the way out; yields its ``DATABASE_URL`` for the
    workers and sites the benchmark starts."""
    database = settings.DATABASES["default"]
    database.setdefault("TEST", {})["NAME"] = f"{database['NAME']}_{suffix}"
    setup_test_environment()
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        yield database_url_for(connection.settings_dict)
    finally:
        connections.close_all()
        connection.creation.destroy_test_db(old_name, verbosity=0)
