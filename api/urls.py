"""The API's paths, exactly as in the contract (docs/api.md), each to its resource's module.

``cached(...)``: the public reads answered from the shared cache to anonymous readers
(api/read_cache.py); the second argument
says which changes make an answer new (api.read_cache.READS)."""

from django.urls import path

from api import (
    accounts,
    bots,
    club_nights,
    clubs,
    competitors,
    ladders,
    matches,
    my_games,
    notifications,
    people,
    ratings,
    replays,
    rounds,
    tables,
    tournaments,
)
from api.read_cache import FINISHED_PAGE, FINISHED_RECORD, SETTLED
from api.read_cache import public_read_cached as cached

urlpatterns = [
    path("account/", accounts.AccountApi.as_view(), name="api-account"),
    path("auth/token/", accounts.TokenCreateApi.as_view(), name="api-token"),
    path("auth/tokens/", accounts.ApiTokenListApi.as_view(), name="api-tokens"),
    path(
        "auth/tokens/<int:token_id>/", accounts.ApiTokenDetailApi.as_view(), name="api-token-revoke"
    ),
    path("clubs/", clubs.ClubListApi.as_view(), name="api-clubs"),
    path("clubs/<int:club_id>/", clubs.ClubDetailApi.as_view(), name="api-club"),
    path("clubs/<int:club_id>/members/", clubs.ClubMemberListApi.as_view(), name="api-members"),
    path(
        "clubs/<int:club_id>/invitations/",
        clubs.ClubInvitationCreateApi.as_view(),
        name="api-invitations",
    ),
    path("invitations/", clubs.InvitationListApi.as_view(), name="api-my-invitations"),
    path(
        "invitations/<str:code>/accept/",
        clubs.InvitationAcceptApi.as_view(),
        name="api-invitation-accept",
    ),
    path(
        "invitations/<str:code>/decline/",
        clubs.InvitationDeclineApi.as_view(),
        name="api-invitation-decline",
    ),
    path("competitors/", competitors.CompetitorListApi.as_view(), name="api-competitors"),
    path(
        "competitors/<int:competitor_id>/ratings/",
        ratings.CompetitorRatingsApi.as_view(),
        name="api-competitor-ratings",
    ),
    path(
        "ratings/",
        cached(ratings.RatingLeaderboardApi.as_view(), SETTLED),
        name="api-ratings",
    ),
    path("ladders/", cached(ladders.LadderListApi.as_view(), SETTLED), name="api-ladders"),
    path(
        "ladders/<slug:slug>/",
        cached(ladders.LadderDetailApi.as_view(), SETTLED),
        name="api-ladder",
    ),
    path(
        "ladders/<slug:slug>/versions/<int:competitor_id>/",
        cached(ladders.LadderVersionApi.as_view(), SETTLED),
        name="api-ladder-version",
    ),
    path(
        "ladders/<slug:slug>/entrants/<int:competitor_id>/",
        ladders.LadderEntrantApi.as_view(),
        name="api-ladder-entrant",
    ),
    path(
        "ladders/<slug:slug>/challenges/",
        ladders.LadderChallengeListApi.as_view(),
        name="api-ladder-challenges",
    ),
    path(
        "ladders/<slug:slug>/rated-games/",
        ladders.LadderRatedGameApi.as_view(),
        name="api-ladder-rated-games",
    ),
    path(
        "matches/<int:match_id>/logs/<int:seat>/",
        ladders.MatchSeatLogApi.as_view(),
        name="api-match-seat-log",
    ),
    path("people/<str:username>/", people.PersonDetailApi.as_view(), name="api-person"),
    path("bots/", bots.BotListApi.as_view(), name="api-bots"),
    path("bots/<int:bot_id>/", bots.BotDetailApi.as_view(), name="api-bot"),
    path("bots/<int:bot_id>/versions/", bots.BotVersionListApi.as_view(), name="api-bot-versions"),
    path(
        "bot-versions/<int:version_id>/",
        bots.BotVersionDetailApi.as_view(),
        name="api-bot-version",
    ),
    path(
        "tournaments/",
        cached(tournaments.TournamentListApi.as_view(), SETTLED),
        name="api-tournaments",
    ),
    path(
        "tournaments/<int:tournament_id>/",
        cached(tournaments.TournamentDetailApi.as_view()),
        name="api-tournament",
    ),
    path(
        "tournaments/<int:tournament_id>/entries/",
        tournaments.TournamentEntryCreateApi.as_view(),
        name="api-tournament-entries",
    ),
    path(
        "tournaments/<int:tournament_id>/start-round/",
        tournaments.TournamentRoundStartApi.as_view(),
        name="api-tournament-start-round",
    ),
    path(
        "tournaments/<int:tournament_id>/pause/",
        tournaments.TournamentPauseApi.as_view(),
        name="api-tournament-pause",
    ),
    path(
        "tournaments/<int:tournament_id>/resume/",
        tournaments.TournamentResumeApi.as_view(),
        name="api-tournament-resume",
    ),
    path(
        "tournaments/<int:tournament_id>/finish/",
        tournaments.TournamentFinishApi.as_view(),
        name="api-tournament-finish",
    ),
    path(
        "tournaments/<int:tournament_id>/standings/",
        cached(tournaments.TournamentStandingsApi.as_view(), SETTLED),
        name="api-tournament-standings",
    ),
    path(
        "tournaments/<int:tournament_id>/ratings/",
        ratings.TournamentRatingsApi.as_view(),
        name="api-tournament-ratings",
    ),
    path(
        "tournaments/<int:tournament_id>/schedule/",
        tournaments.TournamentScheduleApi.as_view(),
        name="api-tournament-schedule",
    ),
    path(
        "tournaments/<int:tournament_id>/records.ndjson",
        tournaments.TournamentRecordsApi.as_view(),
        name="api-tournament-records",
    ),
    path("rounds/", cached(matches.RoundListApi.as_view()), name="api-rounds"),
    path("rounds/<int:round_id>/", rounds.RoundDetailApi.as_view(), name="api-round"),
    path("notifications/", notifications.NotificationListApi.as_view(), name="api-notifications"),
    path(
        "notifications/<int:notification_id>/read/",
        notifications.NotificationReadApi.as_view(),
        name="api-notification-read",
    ),
    path(
        "notifications/read-all/",
        notifications.NotificationReadAllApi.as_view(),
        name="api-notifications-read-all",
    ),
    path(
        "notifications/counts/",
        notifications.NotificationCountsApi.as_view(),
        name="api-notification-counts",
    ),
    path(
        "notifications/preferences/",
        notifications.NotificationPreferencesApi.as_view(),
        name="api-notification-preferences",
    ),
    path("my-games/", my_games.MyGamesApi.as_view(), name="api-my-games"),
    path("replays/", replays.PrivateReplayListApi.as_view(), name="api-private-replays"),
    path(
        "replays/<int:replay_id>/",
        replays.PrivateReplayApi.as_view(),
        name="api-private-replay",
    ),
    path(
        "replays/<int:replay_id>/record/",
        replays.PrivateReplayRecordApi.as_view(),
        name="api-private-replay-record",
    ),
    path("my-games/next/", my_games.MyNextGameApi.as_view(), name="api-my-next-game"),
    path("matches/", cached(matches.MatchListApi.as_view()), name="api-matches"),
    path(
        "matches/<int:match_id>/",
        cached(matches.MatchDetailApi.as_view(), FINISHED_PAGE),
        name="api-match",
    ),
    path(
        "matches/<int:match_id>/confirm-scores/",
        club_nights.MatchScoresConfirmApi.as_view(),
        name="api-match-confirm-scores",
    ),
    path(
        "matches/<int:match_id>/corrections/",
        club_nights.MatchCorrectionsApi.as_view(),
        name="api-match-corrections",
    ),
    path(
        "tournaments/<int:tournament_id>/attendance/",
        club_nights.AttendanceApi.as_view(),
        name="api-tournament-attendance",
    ),
    path(
        "tournaments/<int:tournament_id>/rounds/<int:number>/cards/",
        club_nights.RoundCardsApi.as_view(),
        name="api-round-cards",
    ),
    path(
        "tournaments/<int:tournament_id>/rounds/<int:number>/close/",
        club_nights.RoundCloseApi.as_view(),
        name="api-round-close",
    ),
    path("club-tables/<str:code>/", club_nights.ClubTableApi.as_view(), name="api-club-table"),
    path(
        "club-tables/<str:code>/scores/",
        club_nights.ClubTableScoresApi.as_view(),
        name="api-club-table-scores",
    ),
    path(
        "club-tables/<str:code>/confirm/",
        club_nights.ClubTableConfirmApi.as_view(),
        name="api-club-table-confirm",
    ),
    path(
        "matches/<int:match_id>/record/",
        cached(matches.MatchRecordApi.as_view(), FINISHED_RECORD),
        name="api-match-record",
    ),
    path(
        "matches/<int:match_id>/analysis/",
        matches.MatchAnalysisApi.as_view(),
        name="api-match-analysis",
    ),
    path(
        "matches/<int:match_id>/seats/<int:seat>/view/",
        matches.MatchSeatViewApi.as_view(),
        name="api-match-seat-view",
    ),
    path(
        "matches/<int:match_id>/seats/<int:seat>/actions/",
        matches.MatchSeatActionApi.as_view(),
        name="api-match-seat-actions",
    ),
    path(
        "matches/<int:match_id>/spectate/",
        matches.MatchSpectateApi.as_view(),
        name="api-match-spectate",
    ),
    path("matches/<int:match_id>/chat/", matches.MatchChatApi.as_view(), name="api-match-chat"),
    path(
        "matches/<int:match_id>/presence/",
        matches.MatchPresenceApi.as_view(),
        name="api-match-presence",
    ),
    path(
        "matches/<int:match_id>/presence/<int:seat>/vote/",
        matches.MatchAbsenceVoteApi.as_view(),
        name="api-match-absence-vote",
    ),
    path("tables/", tables.TableCreateApi.as_view(), name="api-tables"),
    path("tables/<int:match_id>/", tables.TableDetailApi.as_view(), name="api-table"),
    path("tables/<int:match_id>/join/", tables.TableJoinApi.as_view(), name="api-table-join"),
    path("tables/<int:match_id>/cancel/", tables.TableCancelApi.as_view(), name="api-table-cancel"),
    path(
        "tables/<int:match_id>/seats/<int:seat>/bot/",
        tables.TableSeatBotApi.as_view(),
        name="api-table-seat-bot",
    ),
    path(
        "tables/<int:match_id>/seats/<int:seat>/invite/",
        tables.TableSeatInviteApi.as_view(),
        name="api-table-seat-invite",
    ),
    path(
        "table-invitations/",
        tables.SeatInvitationListApi.as_view(),
        name="api-table-invitations",
    ),
    path(
        "table-invitations/<str:code>/",
        tables.SeatInvitationDetailApi.as_view(),
        name="api-table-invitation",
    ),
    path(
        "table-invitations/<str:code>/accept/",
        tables.SeatInvitationAcceptApi.as_view(),
        name="api-table-invitation-accept",
    ),
    path(
        "table-invitations/<str:code>/decline/",
        tables.SeatInvitationDeclineApi.as_view(),
        name="api-table-invitation-decline",
    ),
    path("lobby/", tables.LobbyApi.as_view(), name="api-lobby"),
]
