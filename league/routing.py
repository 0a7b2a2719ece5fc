"""WebSocket routes (Channels). Tables and live replays will add theirs to this router."""

from channels.routing import URLRouter

websocket_router = URLRouter([])
