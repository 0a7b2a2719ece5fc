"""ASGI entry point, served by uvicorn (config/web_server.py; daphne for ``manage.py
runserver``): HTTP through Django, its requests on kept threads (config/request_threads.py),
WebSockets through Channels."""

import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

# Django must be set up before anything imports models, hence this order (what
# django.core.asgi.get_asgi_application does, with the handler of config.request_threads).
django.setup(set_prefix=False)

from config.request_threads import KeptThreadsASGIHandler  # noqa: E402

django_asgi_application = KeptThreadsASGIHandler()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from config.routing import websocket_router  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_application,
        "websocket": AllowedHostsOriginValidator(AuthMiddlewareStack(websocket_router)),
    }
)
