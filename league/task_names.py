"""The names of the league's Celery tasks, for the services that send them.

A service asks for a task by its name through the task outbox
(``task_enqueue(RATINGS_UPDATE)``, league/services/task_outbox.py; a match's play through
league.services.match_lanes, which picks its lane's task); it never imports
league/tasks.py, whose tasks call the services: so the arrows point one way, tasks ->
services -> task names. tests/test_layers.py checks that every name here is a task that
league/tasks.py (or bots/tasks.py) registers.
"""

HEARTBEAT_RECORD = "league.tasks.heartbeat_record"
RUN_MATCH = "league.tasks.run_match"
RUN_LADDER_MATCH = "league.tasks.run_match_ladder"
RUN_INTERACTIVE_MATCH = "league.tasks.run_match_interactive"
RUN_CHALLENGE_MATCH = "league.tasks.run_match_challenge"
LADDERS_MATCHMAKE = "league.tasks.ladders_matchmake"
MATCHES_SWEEP = "league.tasks.matches_sweep"
RATINGS_UPDATE = "league.tasks.ratings_update"
TOURNAMENT_ROUND_START_SCHEDULED = "league.tasks.tournament_round_start_scheduled"
STANDINGS_REBUILD = "league.tasks.standings_rebuild"
DEMO_SEASONS_RENEW = "league.tasks.demo_seasons_renew"
NOTIFICATION_EMAIL_SEND = "league.tasks.notification_email_send"
NOTIFICATION_EMAILS_SEND_DUE = "league.tasks.notification_emails_send_due"
MATCH_ANALYSE = "league.tasks.match_analyse"
BOT_VERSION_VALIDATE = "bots.tasks.bot_version_validate"
