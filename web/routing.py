"""The web's WebSocket routes, added to config.routing's router."""

from typing import Any

from django.urls import path

from web.consumers import MatchConsumer, PersonConsumer, TournamentConsumer

# Channels routes ASGI applications with Django's path(); its stubs only know views.
websocket_urlpatterns: list[Any] = [
    path("ws/matches/<int:object_id>/", MatchConsumer.as_asgi()),  # type: ignore[arg-type]
    path("ws/tournaments/<int:object_id>/", TournamentConsumer.as_asgi()),  # type: ignore[arg-type]
    path("ws/me/", PersonConsumer.as_asgi()),  # type: ignore[arg-type]
]
