"""WebSocket routes (Channels). Tables and live replays will add theirs to this router."""

from channels.routing import URLRouter

from web.routing import websocket_urlpatterns as web_websocket_urlpatterns

websocket_router = URLRouter([*web_websocket_urlpatterns])
