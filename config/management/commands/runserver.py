"""``manage.py runserver`` served by daphne, HTTP and WebSockets together, as Channels' own
``daphne`` app would make it, but with daphne (and Twisted under it) imported only when this
command runs. As an installed app, daphne's module imports ``daphne.server`` in every
process that sets Django up: 0.65 s of the 1.5 s of CPU a worker, a web process or any
``manage.py`` command spent starting (measured 2026-11-28), for a server only this command
uses (production and the tests serve with uvicorn: config/web_server.py)."""

from daphne.management.commands.runserver import Command as DaphneRunserverCommand


class Command(DaphneRunserverCommand):
    pass
