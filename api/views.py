"""Every view of the REST API in one place, and the JSON 404 for any other path under /api/.

The views live by resource, one module each: api.accounts (the token), api.clubs (clubs,
members, invitations), api.competitors, api.bots (bots, versions, faults), api.tournaments
(tournaments, entries, rounds started and scheduled, standings, records), api.ratings,
api.matches (rounds, matches, records, a seat's view and actions, spectating) and
api.tables. Each is thin: it parses its input with its nested ``InputSerializer``
(api.operations.validated), calls a selector or a service of the league and renders an
output serializer (tests/api/test_thin_views.py). Errors are raised as league.errors and
become JSON through api.exceptions. api.urls routes to the resource modules; this module
gathers their views for whoever reads them all (the schema agreement tests).
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, JsonResponse
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt

from api.accounts import TokenCreateApi
from api.bots import BotDetailApi, BotListApi, BotVersionDetailApi, BotVersionListApi
from api.clubs import (
    ClubDetailApi,
    ClubInvitationCreateApi,
    ClubListApi,
    ClubMemberListApi,
    InvitationAcceptApi,
    InvitationDeclineApi,
    InvitationListApi,
)
from api.competitors import CompetitorListApi
from api.ladders import (
    LadderChallengeListApi,
    LadderDetailApi,
    LadderEntrantApi,
    LadderListApi,
    LadderVersionApi,
    MatchSeatLogApi,
)
from api.matches import (
    MatchDetailApi,
    MatchListApi,
    MatchRecordApi,
    MatchSeatActionApi,
    MatchSeatViewApi,
    MatchSpectateApi,
    RoundListApi,
)
from api.ratings import CompetitorRatingsApi, RatingLeaderboardApi, TournamentRatingsApi
from api.tables import TableCreateApi
from api.tournaments import (
    TournamentDetailApi,
    TournamentEntryCreateApi,
    TournamentFinishApi,
    TournamentListApi,
    TournamentPauseApi,
    TournamentRecordsApi,
    TournamentResumeApi,
    TournamentRoundStartApi,
    TournamentScheduleApi,
    TournamentStandingsApi,
)

__all__ = [
    "BotDetailApi",
    "BotListApi",
    "BotVersionDetailApi",
    "BotVersionListApi",
    "ClubDetailApi",
    "ClubInvitationCreateApi",
    "ClubListApi",
    "ClubMemberListApi",
    "CompetitorListApi",
    "CompetitorRatingsApi",
    "InvitationAcceptApi",
    "InvitationDeclineApi",
    "InvitationListApi",
    "LadderChallengeListApi",
    "LadderDetailApi",
    "LadderEntrantApi",
    "LadderListApi",
    "LadderVersionApi",
    "MatchDetailApi",
    "MatchListApi",
    "MatchRecordApi",
    "MatchSeatActionApi",
    "MatchSeatLogApi",
    "MatchSeatViewApi",
    "MatchSpectateApi",
    "RatingLeaderboardApi",
    "RoundListApi",
    "TableCreateApi",
    "TokenCreateApi",
    "TournamentDetailApi",
    "TournamentEntryCreateApi",
    "TournamentFinishApi",
    "TournamentListApi",
    "TournamentPauseApi",
    "TournamentRatingsApi",
    "TournamentRecordsApi",
    "TournamentResumeApi",
    "TournamentRoundStartApi",
    "TournamentScheduleApi",
    "TournamentStandingsApi",
    "api_not_found",
]


@csrf_exempt
def api_not_found(request: HttpRequest, *args: Any, **kwargs: Any) -> JsonResponse:
    """Any other path under /api/: a JSON 404, like every other API error."""
    return JsonResponse(
        {"detail": _("no API endpoint at %(path)s") % {"path": request.path}}, status=404
    )
