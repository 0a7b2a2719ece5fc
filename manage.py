#!/usr/bin/env python
"""Django's command-line utility for King League.

A configuration problem (config.configuration.ConfigurationError, or a database that does
not answer) is printed as one line naming the variable, with exit status 2.
"""

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    from django.core.management import execute_from_command_line
    from django.db.utils import InterfaceError, OperationalError

    from config.configuration import ConfigurationError, database_connection_check

    try:
        try:
            execute_from_command_line(sys.argv)
        except (OperationalError, InterfaceError):
            # If the database does not answer, say so in one line; otherwise it is a real bug.
            database_connection_check()
            raise
    except ConfigurationError as error:
        print(error, file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
