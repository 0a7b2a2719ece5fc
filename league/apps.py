from typing import Any

from django.apps import AppConfig
from django.db import connections
from django.db.models.signals import post_migrate


def _standings_rebuild_stale(sender: AppConfig, using: str = "default", **kwargs: Any) -> None:
    """After ``migrate``: rebuild the stored standings that a new format (``STATE_VERSION``)
    or an older database left stale, so that reads never have to (they never write)."""
    # Imported here, not at the top: apps.py is imported before the models are ready.
    from league.models import StandingsSnapshot
    from league.services.standings import standings_rebuild_stale

    if StandingsSnapshot._meta.db_table not in connections[using].introspection.table_names():
        return  # migrated back below the standings' tables
    standings_rebuild_stale()


class LeagueConfig(AppConfig):
    name = "league"
    verbose_name = "King League"

    def ready(self) -> None:
        post_migrate.connect(_standings_rebuild_stale, sender=self)
        # Here, not at the top: reads_generation imports the models, not ready when apps.py loads.
        from league.reads_generation import read_cache_writes_watch

        read_cache_writes_watch()  # a write moves the public reads' cache on
