"""Every API view holds a named token to its scopes (api.token_scopes): the permission is
in each view's permissions, or the view lets anyone in (then a token gives nothing more
than no token)."""

from __future__ import annotations

from typing import Any

from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.permissions import AllowAny
from rest_framework.views import APIView

from api.token_scopes import TokenScopeRequired


def api_views(patterns: list[Any], prefix: str = "") -> list[tuple[str, type[APIView]]]:
    found: list[tuple[str, type[APIView]]] = []
    for pattern in patterns:
        route = prefix + str(pattern.pattern)
        if isinstance(pattern, URLResolver):
            found += api_views(pattern.url_patterns, route)
        elif isinstance(pattern, URLPattern):
            view = getattr(pattern.callback, "view_class", None) or getattr(
                pattern.callback, "cls", None
            )
            if isinstance(view, type) and issubclass(view, APIView) and route.startswith("api/"):
                found.append((route, view))
    return found


def test_every_api_view_checks_token_scopes() -> None:
    views = api_views(get_resolver().url_patterns)
    assert len(views) > 40
    unchecked = [
        route
        for route, view in views
        if TokenScopeRequired not in view.permission_classes
        and tuple(view.permission_classes) != (AllowAny,)
        and view.__name__ != "TokenCreateApi"  # its DELETE revokes the token it is sent with
        and not view.__module__.startswith(("drf_spectacular", "rest_framework"))
    ]
    assert unchecked == []


def test_the_writes_of_bots_and_clubs_need_their_scopes() -> None:
    scopes = {
        view.__name__: getattr(view, "token_scope", "play")
        for _, view in api_views(get_resolver().url_patterns)
    }
    assert scopes["BotVersionListApi"] == "bots"
    assert scopes["ClubInvitationCreateApi"] == "clubs"
    assert scopes["TournamentListApi"] == "clubs"
    assert scopes["MatchSeatActionApi"] == "play"
