"""The web pages' URLs, included at the site root by config/urls.py.

``cached(...)``: the public pages answered from the shared cache to anonymous visitors
(api/read_cache.py); the second argument
says which changes make an answer new (api.read_cache.READS); a third, where given, is
the page's personal parts (web/personal_parts.py): a signed-in person is then served the
same shared answer with their own parts in place."""

from django.urls import path

from api.read_cache import FINISHED_PAGE, SETTLED
from api.read_cache import public_read_cached as cached
from web.personal_parts import base_parts
from web.views import account_settings as account
from web.views import (
    accounts,
    bots,
    club_nights,
    clubs,
    display,
    ladders,
    leagues,
    matches,
    people,
    ratings,
    rules,
    samples,
    tables,
)
from web.views.club_organise import (
    club_attendance_post,
    club_night_close_post,
    match_correction_post,
    match_scores_confirm_post,
)
from web.views.errors import favicon
from web.views.games import my_games_page
from web.views.home import play_now
from web.views.notifications import (
    notification_list,
    notification_mark_read,
    notification_open,
    notification_settings,
    notifications_mark_all_read,
)
from web.views.private_replays import (
    private_replay,
    private_replay_record_json,
    private_replay_timeline_json,
    private_replays,
)
from web.views.rounds import round_play_by

app_name = "web"

urlpatterns = [
    path("accounts/signup/", accounts.signup, name="signup"),
    path("language/", display.language_switch, name="language"),
    path("settings/display/", display.display_settings, name="display-settings"),
    path("accounts/login/", accounts.SiteLoginView.as_view(), name="login"),
    path("accounts/logout/", accounts.SiteLogoutView.as_view(), name="logout"),
    path("accounts/verify/<str:token>/", account.email_verify_page, name="email-verify"),
    path(
        "accounts/password/reset/",
        account.SitePasswordResetView.as_view(),
        name="password-reset",
    ),
    path(
        "accounts/password/reset/sent/",
        account.SitePasswordResetDoneView.as_view(),
        name="password-reset-done",
    ),
    path(
        "accounts/password/reset/<uidb64>/<token>/",
        account.SitePasswordResetConfirmView.as_view(),
        name="password-reset-confirm",
    ),
    path(
        "accounts/password/reset/done/",
        account.SitePasswordResetCompleteView.as_view(),
        name="password-reset-complete",
    ),
    path("settings/account/", account.account_settings, name="account-settings"),
    path(
        "settings/account/verify-again/",
        account.email_verification_resend,
        name="email-verify-again",
    ),
    path(
        "settings/password/",
        account.SitePasswordChangeView.as_view(),
        name="password-change",
    ),
    path(
        "settings/password/changed/",
        account.SitePasswordChangeDoneView.as_view(),
        name="password-change-done",
    ),
    path("settings/sessions/", account.session_list, name="sessions"),
    path("settings/tokens/", account.token_list, name="tokens"),
    path("join/", accounts.join_club, name="join-club"),
    path("join/<str:code>/", accounts.join_club, name="join-club-code"),
    path("invitations/", clubs.invitation_list, name="invitations"),
    path(
        "invitations/<str:code>/<slug:answer>/",
        clubs.invitation_answer,
        name="invitation-answer",
    ),
    path("clubs/", clubs.club_index, name="clubs"),
    path("clubs/<int:club_id>/", clubs.club_detail, name="club"),
    path("clubs/<int:club_id>/invite/", clubs.club_invite, name="club-invite"),
    path("clubs/<int:club_id>/leagues/new/", leagues.league_new, name="league-new"),
    path("leagues/", cached(leagues.league_index, SETTLED, base_parts), name="leagues"),
    path(
        "leagues/<int:tournament_id>/",
        cached(leagues.league_detail, SETTLED, leagues.league_personal),
        name="league",
    ),
    path("leagues/<int:tournament_id>/live/", leagues.league_live, name="league-live"),
    path("leagues/<int:tournament_id>/enter/", leagues.league_enter, name="league-enter"),
    path(
        "leagues/<int:tournament_id>/rounds/<int:number>/",
        cached(leagues.round_detail, personal=leagues.round_personal),
        name="league-round",
    ),
    path(
        "leagues/<int:tournament_id>/rounds/<int:number>/cards/",
        club_nights.round_cards_page,
        name="club-cards",
    ),
    path(
        "leagues/<int:tournament_id>/rounds/<int:number>/cards.pdf",
        club_nights.round_cards_pdf,
        name="club-cards-pdf",
    ),
    path(
        "leagues/<int:tournament_id>/projector/",
        club_nights.league_projector,
        name="league-projector",
    ),
    path("club/table/", club_nights.table_code_page, name="club-table-code"),
    path("club/table/<str:code>/", club_nights.table_entry_page, name="club-table"),
    path(
        "leagues/<int:tournament_id>/attendance/",
        club_attendance_post,
        name="club-attendance",
    ),
    path(
        "matches/<int:match_id>/confirm-scores/",
        match_scores_confirm_post,
        name="club-confirm",
    ),
    path("matches/<int:match_id>/correct/", match_correction_post, name="club-correct"),
    path(
        "leagues/<int:tournament_id>/rounds/<int:number>/close/",
        club_night_close_post,
        name="club-night-close",
    ),
    path(
        "leagues/<int:tournament_id>/rounds/<int:number>/play-by/",
        round_play_by,
        name="league-round-play-by",
    ),
    path(
        "leagues/<int:tournament_id>/<slug:action>/",
        leagues.league_action,
        name="league-action",
    ),
    path(
        "matches/<int:match_id>/",
        cached(matches.match_detail, FINISHED_PAGE, matches.match_personal),
        name="match",
    ),
    path(
        "matches/<int:match_id>/timeline.json",
        matches.match_timeline_json,
        name="match-timeline",
    ),
    path("matches/<int:match_id>/seats/<int:seat>/", matches.table, name="table"),
    path("play-now/", play_now, name="play-now"),
    path("play/", tables.table_new, name="table-new"),
    path("matches/<int:match_id>/rematch/", tables.table_rematch_page, name="table-rematch"),
    path("lobby/", tables.lobby_page, name="lobby"),
    path("tables/<int:match_id>/", tables.table_waiting, name="table-waiting"),
    path("tables/<int:match_id>/join/", tables.table_join_post, name="table-join"),
    path("tables/<int:match_id>/cancel/", tables.table_cancel_post, name="table-cancel"),
    path(
        "tables/<int:match_id>/seats/<int:seat>/bot/",
        tables.table_seat_bot_post,
        name="table-seat-bot",
    ),
    path(
        "tables/<int:match_id>/seats/<int:seat>/invite/",
        tables.table_seat_invite_post,
        name="table-seat-invite",
    ),
    path("tables/invitations/<str:code>/", tables.table_invitation, name="table-invitation"),
    path(
        "tables/invitations/<str:code>/accept/",
        tables.table_invitation_accept,
        name="table-invitation-accept",
    ),
    path(
        "tables/invitations/<str:code>/decline/",
        tables.table_invitation_decline,
        name="table-invitation-decline",
    ),
    path("games/", my_games_page, name="games"),
    path("notifications/", notification_list, name="notifications"),
    path(
        "notifications/read-all/",
        notifications_mark_all_read,
        name="notifications-read-all",
    ),
    path(
        "notifications/<int:notification_id>/open/",
        notification_open,
        name="notification-open",
    ),
    path(
        "notifications/<int:notification_id>/read/",
        notification_mark_read,
        name="notification-read",
    ),
    path(
        "settings/notifications/",
        notification_settings,
        name="notification-settings",
    ),
    path("ratings/", cached(ratings.leaderboard, SETTLED, base_parts), name="ratings"),
    path("ladders/", cached(ladders.ladder_index, SETTLED, base_parts), name="ladders"),
    path(
        "ladders/<slug:slug>/",
        cached(ladders.ladder_detail, SETTLED, ladders.ladder_personal),
        name="ladder",
    ),
    path("ladders/<slug:slug>/challenge/", ladders.ladder_challenge, name="ladder-challenge"),
    path("ladders/<slug:slug>/rated-game/", ladders.ladder_rated_game, name="ladder-rated-game"),
    path(
        "ladders/<slug:slug>/versions/<int:competitor_id>/",
        cached(ladders.ladder_version_page, SETTLED, ladders.ladder_version_personal),
        name="ladder-version",
    ),
    path(
        "ladders/<slug:slug>/versions/<int:competitor_id>/update/",
        ladders.ladder_version_update,
        name="ladder-version-update",
    ),
    path("matches/<int:match_id>/logs/<int:seat>/", ladders.seat_log, name="seat-log"),
    path(
        "matches/<int:match_id>/logs/<int:seat>/stderr.txt",
        ladders.seat_log_download,
        name="seat-log-download",
    ),
    path("rules/", rules.rules_list, name="rules"),
    path("favicon.ico", favicon, name="favicon"),
    path("people/<str:username>/", people.person_detail, name="person"),
    path("rules/<slug:family>/", rules.rules_detail, name="rules-family"),
    path("bots/", bots.bot_index, name="bots"),
    path("bots/<int:bot_id>/", bots.bot_detail, name="bot"),
    path("bots/<int:bot_id>/versions/", bots.bot_versions_fragment, name="bot-versions"),
    path("bots/<int:bot_id>/upload/", bots.bot_upload, name="bot-upload"),
    path("bots/<int:bot_id>/consent/", bots.bot_consent, name="bot-consent"),
    path("bots/<int:bot_id>/rated-games/", bots.bot_rated_games, name="bot-rated-games"),
    path("bots/<int:bot_id>/families/", bots.bot_families, name="bot-families"),
    path("samples/", samples.sample_index, name="samples"),
    path("replays/", private_replays, name="private-replays"),
    path("replays/<int:replay_id>/", private_replay, name="private-replay"),
    path(
        "replays/<int:replay_id>/record.json",
        private_replay_record_json,
        name="private-replay-record",
    ),
    path(
        "replays/<int:replay_id>/timeline.json",
        private_replay_timeline_json,
        name="private-replay-timeline",
    ),
    path("samples/replay/", samples.sample_replay, name="sample-replay"),
    path("samples/record.json", samples.sample_record_json, name="sample-record"),
    path("samples/timeline.json", samples.sample_timeline_json, name="sample-timeline"),
    path("samples/table/", samples.sample_table, name="sample-table"),
    path("samples/table/view.json", samples.sample_table_view, name="sample-table-view"),
    path("samples/table/actions.json", samples.sample_table_actions, name="sample-table-actions"),
]
