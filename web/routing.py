"""The web's WebSocket routes, added to league.routing's router."""

from django.urls import path

from web.consumers import MatchConsumer, TournamentConsumer

websocket_urlpatterns = [
    path("ws/matches/<int:object_id>/", MatchConsumer.as_asgi()),
    path("ws/tournaments/<int:object_id>/", TournamentConsumer.as_asgi()),
]
