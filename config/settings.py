"""The one settings module. Everything that differs between machines comes from the environment.

docs/configuration.md describes every variable; .env.example lists them. A bad value raises
config.configuration.ConfigurationError, whose one-line message names the variable.
"""

import os
from pathlib import Path

import django_stubs_ext
from kombu import Exchange, Queue

from config.configuration import (
    cache_from_env,
    count_from_env,
    database_from_env,
    durations_from_env,
    flag_from_env,
    list_from_env,
    log_level_from_env,
    messaging_from_env,
    niceness_from_env,
    path_from_env,
    rate_limits_from_env,
    secret_key_from_env,
    var_dir_from_env,
)
from config.outgoing_mail import email_from_env, from_email_from_env, site_url_from_env
from engine.viewer import STATIC_DIR as VIEWER_STATIC_DIR

django_stubs_ext.monkeypatch()  # generic Django classes (ModelAdmin[Model], ...) at run time

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = var_dir_from_env(os.environ, default=BASE_DIR / "var")

SECRET_KEY = secret_key_from_env(os.environ, key_file=VAR_DIR / "secret_key")
DEBUG = flag_from_env(os.environ, "DEBUG", default=False)
ALLOWED_HOSTS = list_from_env(
    os.environ, "ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "[::1]"]
)
CSRF_TRUSTED_ORIGINS = list_from_env(os.environ, "CSRF_TRUSTED_ORIGINS", default=[])
CSRF_FAILURE_VIEW = "web.views.errors.csrf_failure"  # the site's own page, not Django's
# Proxies in front of the site (a TLS-terminating balancer: 1; docs/operations.md, "Web
# machines"). They append the client's address to X-Forwarded-For (REST_FRAMEWORK's
# NUM_PROXIES, below) and say the scheme the client used in X-Forwarded-Proto, which they set
# (a client's own is overwritten): behind one, an https request is secure (CSRF's origin
# check, secure cookies, the HTTPS redirect). With none, a client's X-Forwarded-Proto is
# ignored.
TRUSTED_PROXIES = count_from_env(os.environ, "TRUSTED_PROXIES", default=0, least=0)
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if TRUSTED_PROXIES else None

INSTALLED_APPS = [
    # First, so that its `manage.py runserver` (daphne: HTTP and WebSockets) comes before
    # staticfiles' (config/management/commands/runserver.py says why not daphne's app).
    "config.apps.ConfigConfig",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI and ReDoc as our own static files, no CDN
    "channels",
    "django_celery_beat",  # rounds on a schedule: beat's database scheduler (config/beat.py)
    "league.apps.LeagueConfig",
    "bots.apps.BotsConfig",
    "web.apps.WebConfig",
]

MIDDLEWARE = [
    # A NUL byte in the path is a 404 before anything reads the path (config/nul_paths.py).
    "config.nul_paths.nul_path_middleware",
    # gzip for the API's JSON and the records, never for HTML pages (BREACH;
    # config/compression.py); before the read cache, so its hits are compressed too.
    "config.compression.json_compression_middleware",
    # Public reads, and a signed-in person's repeat of a page, from the shared cache before
    # the rest of the chain: a hit counts in Prometheus and gets SecurityMiddleware's
    # headers from the read cache itself (api/read_cache.py, Outer; docs/operations.md).
    # Under ASGI it runs in the request's thread (config/request_threads.py), like the
    # middleware below it (sync-only ones among them make Django run the chain there).
    "api.read_cache.read_cache_middleware",
    # Request counts and latencies for /metrics (config/metrics.py): first and last.
    "django_prometheus.middleware.PrometheusBeforeMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # The Content-Security-Policy of every answer (config/content_security.py).
    "config.content_security.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # The language: the switcher's cookie, else the browser's Accept-Language (docs/web.md).
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # A signed-in person's own language and time zone, over the cookie and the browser's.
    "web.person_display.PersonDisplayMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_prometheus.middleware.PrometheusAfterMiddleware",
    # Last, so asked first: the database unreachable -> 503 with Retry-After, not a 500.
    "config.database_outage.DatabaseUnavailableMiddleware",
]
# /metrics answers `Authorization: Bearer METRICS_TOKEN` (Prometheus's scrape config) and
# staff; anyone else gets 404 (config/metrics.py, docs/operations.md).
METRICS_TOKEN = os.environ.get("METRICS_TOKEN", "")

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "web.context_processors.person_counts",  # the navigation bar's counts
                "web.context_processors.person_display",  # the language switcher, the deck
            ],
        },
    },
]

# ---------------------------------------------------------------- database
DATABASES = {"default": database_from_env(os.environ, default_sqlite=VAR_DIR / "db.sqlite3")}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# ---------------------------------------------------------------- cache
# Shared by every process (rate limits and sign-in locks live here): Redis when REDIS_URL is
# set, files under $VAR_DIR/cache otherwise; never per-process memory.
CACHES = {"default": cache_from_env(os.environ, var_dir=VAR_DIR)}
# The shared cache of anonymous public reads (api/read_cache.py, docs/operations.md):
# READ_CACHE=off turns it off; an entry lives READ_CACHE_SECONDS at most (a new reads
# generation makes it unreachable before that whenever what it shows changes).
READ_CACHE = os.environ.get("READ_CACHE", "on").strip().lower() != "off"
READ_CACHE_SECONDS = 300
# How long a stored answer is still served after what it shows has changed: a page may lag
# a change by this much (0: never; the tests' default, tests/conftest.py).
READ_CACHE_LAG_SECONDS = count_from_env(os.environ, "READ_CACHE_LAG_SECONDS", default=5, least=0)
# A live table: how long a person is gone before the others may vote to seat a bot for them
# (docs/web.md, *Presence*; never more than two move times, league.domain.presence).
TABLE_ABSENCE_VOTE_SECONDS = count_from_env(
    os.environ, "TABLE_ABSENCE_VOTE_SECONDS", default=60, least=0
)

# Sessions: written to PostgreSQL and kept in the default cache too (``cached_db``), so a
# signed-in page reads its session from Redis, not the database (issue 34: one query a
# page less). The database stays the truth: a Redis flush or eviction loses nothing, the
# next request reads the row again (the plain ``cache`` engine would sign everyone out).
# Ending a session elsewhere deletes its cached copy too (accounts/account_settings.py).
SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"

# ---------------------------------------------------------------- signing in
# ModelBackend that locks a username after too many wrong passwords (accounts/sign_in.py).
AUTHENTICATION_BACKENDS = ["accounts.sign_in.SignInLockoutBackend"]
SIGN_IN_FAILURES_ALLOWED = count_from_env(
    os.environ, "SIGN_IN_FAILURES_ALLOWED", default=5, least=1
)
SIGN_IN_LOCKOUT_SECONDS = durations_from_env(
    os.environ, "SIGN_IN_LOCKOUT", default=(60, 5 * 60, 15 * 60, 60 * 60)
)
# Wrong passwords from every device that never signed in as the username, from any address,
# before those are locked too (a known device is not): accounts/sign_in.py.
SIGN_IN_STRANGER_FAILURES_ALLOWED = count_from_env(
    os.environ, "SIGN_IN_STRANGER_FAILURES_ALLOWED", default=50, least=1
)
SIGN_IN_FAILURE_WINDOW_SECONDS = 60 * 60  # wrong passwords older than the first's hour expire
SIGN_IN_LOCK_MEMORY_SECONDS = 24 * 60 * 60  # a day without a lock: the next is the first again

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True
# The site speaks English, Dutch (Kingen's and Dubbelkingen's clubs, in Flanders and the
# Netherlands) and Swedish (Kung och Adel's and Priffe's). The catalogues are locale/*/
# LC_MESSAGES/*.po; their compiled .mo files are built by scripts/_venv.sh, not committed.
LANGUAGES = [("en", "English"), ("nl", "Nederlands"), ("sv", "Svenska")]
LOCALE_PATHS = [BASE_DIR / "locale"]
LANGUAGE_COOKIE_SAMESITE = "Lax"

# ---------------------------------------------------------------- static files
# Served by WhiteNoise from STATIC_ROOT (filled by `manage.py collectstatic`) in every mode,
# so the web server (uvicorn) alone serves the whole site; see docs/operations.md.
STATIC_URL = "static/"
STATIC_ROOT = path_from_env(os.environ, "STATIC_ROOT", default=VAR_DIR / "static")
# The replay viewer's scripts, the stylesheet and the card images are package data of the
# engine (engine/viewer), which also inlines them into standalone replays; served as web/...
STATICFILES_DIRS = [VIEWER_STATIC_DIR]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}

# ---------------------------------------------------------------- mail and the site's address
# People's notices are mailed by a task (league/services/notification_emails.py): SMTP when
# EMAIL_URL says so, the console (the log) otherwise; the links in them start with SITE_URL.
EMAIL = email_from_env(os.environ)
EMAIL_BACKEND = EMAIL["EMAIL_BACKEND"]
EMAIL_HOST = EMAIL["EMAIL_HOST"]
EMAIL_PORT = EMAIL["EMAIL_PORT"]
EMAIL_HOST_USER = EMAIL["EMAIL_HOST_USER"]
EMAIL_HOST_PASSWORD = EMAIL["EMAIL_HOST_PASSWORD"]
EMAIL_USE_TLS = EMAIL["EMAIL_USE_TLS"]
EMAIL_USE_SSL = EMAIL["EMAIL_USE_SSL"]
EMAIL_TIMEOUT = EMAIL["EMAIL_TIMEOUT"]
DEFAULT_FROM_EMAIL = from_email_from_env(os.environ, default="King League <league@localhost>")
SERVER_EMAIL = DEFAULT_FROM_EMAIL
SITE_URL = site_url_from_env(os.environ, default="http://127.0.0.1:8000")

# ---------------------------------------------------------------- club nights
# A table card's codes open its score sheet until the table is confirmed, the organiser
# closes the night, or this many hours after its round started, whichever comes first
# (docs/league.md, *A club night*; docs/api.md's rate limits count on it).
CLUB_TABLE_CODE_HOURS = count_from_env(os.environ, "CLUB_TABLE_CODE_HOURS", default=12, least=1)

# ---------------------------------------------------------------- REST API
RATE_LIMITS_DEFAULT = {
    "sign_in": "30/minute",
    # New accounts from one address: room for a club evening's newcomers behind the venue's
    # one address, none for a script making hundreds.
    "sign_up": "20/hour",
    "uploads": "20/hour",
    "tables": "30/hour",
    "table_joins": "60/hour",
    # A club night's phones share the venue's address: its score writes count per table
    # code and per phone, its wrong codes per address (api/throttles.py, docs/api.md).
    "table_code_writes": "120/hour",
    "table_session_writes": "300/hour",
    "table_code_guesses": "20/hour",
    "actions": "120/minute",
    "settings": "300/hour",
    "chat": "20/minute",
}
"""The rate limits when RATE_LIMITS does not say otherwise (docs/api.md's table)."""
REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "api.throttles.ThrottledAutoSchema",  # documents the 429s
    # Token first: DRF answers a request without credentials with the first class's
    # WWW-Authenticate, so it is a 401 (docs/api.md); the session still signs in the web
    # pages' requests, with its CSRF check.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # Named tokens with scopes and the old token of /api/auth/token/ (api/token_scopes.py).
        "api.token_scopes.ApiTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    # A named token does only what its scopes allow (api.token_scopes.TokenScopeRequired).
    "DEFAULT_PERMISSION_CLASSES": [
        "rest_framework.permissions.IsAuthenticatedOrReadOnly",
        "api.token_scopes.TokenScopeRequired",
    ],
    "EXCEPTION_HANDLER": "api.exceptions.exception_handler",
    # JSON only, errors included, whatever a browser asks for; people read the API at
    # /api/docs/ (Swagger UI) and /api/redoc/.
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    # ?format= given empty is refused (404) as its schema's enum says, not taken for absent
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "api.negotiation.EmptyFormatRefused",
    # The API speaks JSON; only a bot upload is multipart (its view says so). Every
    # malformed body is a ParseError, answered by the exception handler.
    "DEFAULT_PARSER_CLASSES": ["api.parsers.JSONParser"],
    # Writes limited per person (sign-in per address): api/throttles.py, docs/api.md.
    "DEFAULT_THROTTLE_RATES": rate_limits_from_env(os.environ, default=RATE_LIMITS_DEFAULT),
    # How many proxies in front of the site append to X-Forwarded-For; 0: the client's
    # address is REMOTE_ADDR (a client's own X-Forwarded-For is not believed).
    "NUM_PROXIES": TRUSTED_PROXIES,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "King League API",
    "VERSION": "0.1.0",
    # A PATCH body is validated whole (api.operations.validated): its schema keeps the
    # input's required fields instead of a "Patched" copy with none.
    "COMPONENT_SPLIT_PATCH": False,
    # /api/docs/ and /api/redoc/ load their pages from our static files (the pinned
    # drf-spectacular-sidecar), never from a CDN: they work offline.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "ENUM_NAME_OVERRIDES": {
        "MatchStatusEnum": "league.models.MatchStatus",
        "TournamentStatusEnum": "league.models.TournamentStatus",
        "BotVersionStatusEnum": "bots.models.BotVersion.Status",
        "TournamentFormatEnum": "league.models.TournamentFormat",
        "LeagueFormatEnum": "league.models.LEAGUE_FORMATS",
        # Three choice sets share the field name `kind`: each its own name, not a hash.
        "BotKindEnum": "bots.models.Bot.Kind",  # a bot's and a bot version's alike
        "CompetitorKindEnum": ["person", "bot"],
        "SeatKindEnum": ["person", "bot", "empty"],
        "NotificationKindEnum": "league.models.NotificationKind",
    },
}

# ---------------------------------------------------------------- Celery and Channels
# Tasks must not be lost (docs/operations.md): acknowledge after the task returns, requeue
# when the worker process dies, take one message at a time, and keep the broker's
# redelivery timeout well above the longest task's hard time limit.
CELERY_TASK_SOFT_TIME_LIMIT = 9 * 60
# A worker plays bots' matches, which take every cycle they get; the web process answers
# people, who wait for each answer. The worker lowers its own CPU priority to this niceness
# when it starts (config/celery.py), so on a shared machine a person's move is not queued
# behind a bot's thinking (docs/operations.md). 0 keeps the web process's priority.
WORKER_NICENESS = niceness_from_env(os.environ, "WORKER_NICENESS", default=10)
# The `interactive` lane's own worker (one that consumes that queue only) plays the bots a
# person waits for: it takes this niceness instead, between the web process's and the
# bot-only workers', so its short bursts are not halved by a bot-only match's bot on the
# same core (docs/operations.md, *Queues and priorities*).
INTERACTIVE_WORKER_NICENESS = niceness_from_env(
    os.environ, "INTERACTIVE_WORKER_NICENESS", default=5
)
# A worker's lease on a match it plays (docs/operations.md, *Worker machines*): renewed at
# every write; a match whose worker died (its machine lost, its processes killed) is
# re-queued by a sweep once the lease runs out: after this many seconds plus the match's
# move time and time bank (the longest a move may take without a write), plus at most one
# sweep interval (5 s). Shorter recovers sooner; it must outlast a stall of the database.
MATCH_LEASE_SECONDS = count_from_env(os.environ, "MATCH_LEASE_SECONDS", default=60, least=2)
# A match still queued this long after its task was sent gets its task sent again (a
# message taken by a worker that died before claiming the match waits in Redis for the
# visibility timeout below; this re-sends it sooner). A duplicate finds nothing to claim.
MATCH_RESEND_SECONDS = count_from_env(os.environ, "MATCH_RESEND_SECONDS", default=300, least=5)

# Each worker process keeps up to this many uploaded bots' sandboxes started ahead of their
# match, for the versions it played last (bots/runner/warm.py; 0: none), and pins itself
# and its bots to one CPU, a different one per worker process while there are free CPUs
# (bots/runner/affinity.py; WORKER_PIN_CPU=0: not pinned). docs/operations.md.
WORKER_WARM_SANDBOXES = count_from_env(os.environ, "WORKER_WARM_SANDBOXES", default=8, least=0)
WORKER_PIN_CPU = flag_from_env(os.environ, "WORKER_PIN_CPU", default=True)
# Each worker process keeps up to this many spawners (bots/runner/spawner.py: a fork server
# per Python version in the seat's sandbox, which forks each match's bot; 0: none, the
# default). docs/configuration.md.
WORKER_BOT_SPAWNERS = count_from_env(os.environ, "WORKER_BOT_SPAWNERS", default=0, least=0)
CELERY_TASK_TIME_LIMIT = 10 * 60
# The analysis of a finished match (docs/engine.md, "Analysis"): the most nodes one
# double-dummy solve may search (a position over it is stored as not analysed, with the
# reason) and the deals drawn per card for its cost as the player could know it.
ANALYSIS_NODE_LIMIT = count_from_env(os.environ, "ANALYSIS_NODE_LIMIT", default=1_000_000, least=1)
ANALYSIS_SAMPLES = count_from_env(os.environ, "ANALYSIS_SAMPLES", default=8, least=1)
# A whole match's analysis stops trying cards after this many seconds (the cards left are
# stored as not analysed), well within the task's time limits.
ANALYSIS_SECONDS = count_from_env(os.environ, "ANALYSIS_SECONDS", default=420, least=1)
CELERY_BROKER_VISIBILITY_TIMEOUT = 6 * CELERY_TASK_TIME_LIMIT  # one hour

MESSAGING = messaging_from_env(
    os.environ, var_dir=VAR_DIR, visibility_timeout=CELERY_BROKER_VISIBILITY_TIMEOUT
)
CELERY_BROKER_URL = MESSAGING.broker_url
CELERY_BROKER_TRANSPORT_OPTIONS = MESSAGING.broker_transport_options
CELERY_RESULT_BACKEND = MESSAGING.result_backend
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Outages (docs/operations.md): a broker that is down is noticed within seconds (Celery's
# result store otherwise retries 20 times a second apart before a send gives up), and what
# could not be sent waits in the task outbox (league/services/task_outbox.py).
CELERY_BROKER_CONNECTION_TIMEOUT = 2
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 1, "interval_start": 0, "interval_step": 0.5}
if not MESSAGING.embedded:
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        **CELERY_BROKER_TRANSPORT_OPTIONS,
        "socket_connect_timeout": 2,
        "socket_timeout": 10,
    }
    CELERY_REDIS_SOCKET_CONNECT_TIMEOUT = 2
    CELERY_REDIS_SOCKET_TIMEOUT = 10
    CELERY_RESULT_BACKEND_TRANSPORT_OPTIONS = {
        "retry_policy": {"max_retries": 1, "interval_start": 0, "interval_step": 0.5}
    }
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = True
# No task's result is read (tasks write what they do to the database; /healthz pings the
# workers instead): none is stored, so Redis does not fill with a key per task (issue 34:
# 2,537 keys, 40 MB). A task whose result someone reads says so: ignore_result=False.
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_TRACK_STARTED = True  # for such a task only
CELERY_RESULT_EXPIRES = 24 * 60 * 60
# Celery's Django support closes a prefork worker process's whole connection pool after
# every task unless this is set (then only every 2 x this many tasks): the worker keeps its
# pool, and config/celery.py hands each task's connection back to it instead
# (docs/operations.md, "Database connections").
CELERY_DB_REUSE_MAX = 500
CELERY_TASK_DEFAULT_QUEUE = "default"
# Each queue has its own exchange and routing key, so a message lands in exactly one queue.
# A worker consumes every queue listed here unless told otherwise (-Q).
CELERY_TASK_QUEUES = (
    # What a person waits for (league.domain.lanes): the bots' moves at a table with a
    # person, the start of a people's table, a challenge. A worker of its own serves it
    # (scripts/run, docker-compose: `--queues interactive`), which bot-only work can never
    # occupy (docs/operations.md, *Queues and priorities*).
    Queue("interactive", Exchange("interactive", type="direct"), routing_key="interactive"),
    Queue("default", Exchange("default", type="direct"), routing_key="default"),
    Queue("matches", Exchange("matches", type="direct"), routing_key="matches"),
    # Ratings change in the order results are rated: one worker process, concurrency 1.
    Queue("ratings", Exchange("ratings", type="direct"), routing_key="ratings"),
    # Analyses of finished matches (engine/analysis.py): long solves that must not hold up
    # matches; a worker of their own in docker-compose.
    Queue("analysis", Exchange("analysis", type="direct"), routing_key="analysis"),
)
CELERY_TASK_DEFAULT_EXCHANGE = "default"
CELERY_TASK_DEFAULT_ROUTING_KEY = "default"
CELERY_TASK_ROUTES = {
    # Exact names are matched before the patterns below: a match a person waits for. A
    # challenge is a whole match where a table's run is a few bots' moves: the people's
    # tables waiting in the lane go first (priority 3, kombu's next step after 0; as for
    # the ladder below), and a worker without the lane's own still takes a challenge
    # before the ladder's games (priority 9).
    "league.tasks.run_match_interactive": {"queue": "interactive"},
    "league.tasks.run_match_challenge": {"queue": "interactive", "priority": 3},
    # Ladder games wait behind every other match: on Redis a message's priority picks the
    # list it goes to (`matches` for 0, the default; `matches\x06\x169` for 9), and a
    # worker polls every queue's priority-0 list before any priority-9 one (kombu's
    # priority_steps), so leagues' and tournaments' matches go first
    # (docs/operations.md, *Queues and priorities*).
    "league.tasks.run_match_ladder": {"queue": "matches", "priority": 9},
    "league.tasks.run_match*": {"queue": "matches"},
    "league.tasks.ratings_update": {"queue": "ratings"},
    "league.tasks.match_analyse": {"queue": "analysis"},
}
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")
# django-celery-beat's database scheduler, made to ride out outages, tick for /healthz and
# relay the task outbox (config/beat.py).
CELERY_BEAT_SCHEDULER = "config.beat:OutageTolerantScheduler"
CELERY_BEAT_SCHEDULE: dict[str, dict[str, object]] = {
    # Matches whose lease expired, people past their deadline (docs/league.md).
    "league.matches_sweep": {"task": "league.tasks.matches_sweep", "schedule": 5.0},
    # Results not rated yet (a lost message); the ratings queue normally has them at once.
    "league.ratings_update": {"task": "league.tasks.ratings_update", "schedule": 60.0},
    # The ladders' matchmaker: roster changes, and the queue refilled (each finished ladder
    # match asks for a pass too).
    "league.ladders_matchmake": {"task": "league.tasks.ladders_matchmake", "schedule": 10.0},
    # Notices still to be mailed (a lost task, a mail server that was down).
    "league.notification_emails_send_due": {
        "task": "league.tasks.notification_emails_send_due",
        "schedule": 60.0,
    },
}
CELERY_TIMEZONE = TIME_ZONE

CHANNEL_LAYERS = {"default": MESSAGING.channel_layer}

# ---------------------------------------------------------------- logging
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": log_level_from_env(os.environ, default="INFO")},
    # The connection pool warns at each failed try while PostgreSQL is away; the 503s and
    # the sweeper already say it once (docs/operations.md, *Outages*).
    "loggers": {"psycopg.pool": {"level": "ERROR"}},
}
