"""ASGI entry point, served by daphne: HTTP through Django, WebSockets through Channels."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

# Django must be set up before anything imports models, hence this order.
django_asgi_application = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from config.daphne_bodies import daphne_leaves_bodies_to_django  # noqa: E402
from config.routing import websocket_router  # noqa: E402

daphne_leaves_bodies_to_django()  # a malformed multipart body reaches Django's JSON 400

application = ProtocolTypeRouter(
    {
        "http": django_asgi_application,
        "websocket": AllowedHostsOriginValidator(AuthMiddlewareStack(websocket_router)),
    }
)
