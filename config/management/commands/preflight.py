from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from config.configuration import ConfigurationError, database_connection_check
from config.health import ComponentHealth, beat_health, broker_connection, broker_health


class Command(BaseCommand):
    help = (
        "Check that the database and the broker answer before the service starts. "
        "A problem is one line naming the variable (DATABASE_URL, REDIS_URL), exit status 2. "
        "With --beat, also that beat ticked recently (the beat container's health check): "
        "one line naming the problem, exit status 1."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--beat", action="store_true", help="also check the age of beat's last tick"
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
        if options["beat"]:
            beat = beat_health(database=ComponentHealth(name="database", target=""))
            if not beat.ok:
                self.stderr.write(f"beat: {beat.problem} ({beat.target})")
                raise SystemExit(1)
            self.stdout.write(f"beat: ok ({beat.target})")
