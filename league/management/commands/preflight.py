from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand

from league.configuration import ConfigurationError, database_connection_check
from league.health import broker_connection, broker_health


class Command(BaseCommand):
    help = (
        "Check that the database and the broker answer before the service starts. "
        "A problem is one line naming the variable (DATABASE_URL, REDIS_URL), exit status 2."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        database_connection_check()
        self.stdout.write(f"database: ok ({settings.DATABASES['default']['ENGINE']})")
        with broker_connection() as connection:
            broker = broker_health(connection)
        if not broker.ok:
            variable = "VAR_DIR" if settings.MESSAGING.embedded else "REDIS_URL"
            raise ConfigurationError(
                variable, f"cannot connect to {broker.target} ({broker.problem})"
            )
        self.stdout.write(f"broker: ok ({broker.target})")
