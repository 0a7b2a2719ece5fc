"""Reading and checking the service's configuration from the environment.

Every problem is a ConfigurationError whose message is ONE line that starts with the name
of the variable at fault ("REDIS_URL: ..."), so that manage.py and scripts/run can print it
as it is, without a traceback. docs/configuration.md lists the variables.
"""

import os
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import SplitResult, quote, urlsplit, urlunsplit

import dj_database_url

POSTGRES_SCHEMES = frozenset({"postgres", "postgresql", "pgsql"})
SQLITE_SCHEMES = frozenset({"sqlite"})
REDIS_SCHEMES = frozenset({"redis", "rediss", "unix"})

TRUE_WORDS = frozenset({"1", "true", "yes", "on"})
FALSE_WORDS = frozenset({"0", "false", "no", "off", ""})
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


class ConfigurationError(Exception):
    """A setting is missing, malformed or points at something that does not answer.

    str(error) is one line naming the variable, meant to be shown to a person as it is.
    """

    def __init__(self, variable: str, problem: str) -> None:
        self.variable = variable
        self.problem = problem
        super().__init__(f"{variable}: {problem}")


def url_for_display(url: str) -> str:
    """The URL with its password replaced by ***, for messages and logs."""
    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError:
        return url
    if not password:
        return url
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = f"{parts.username or ''}:***@{host}"
    try:
        port = parts.port
    except ValueError:
        port = None
    if port is not None:
        netloc += f":{port}"
    return urlunsplit(parts._replace(netloc=netloc))


def flag_from_env(environ: Mapping[str, str], variable: str, *, default: bool) -> bool:
    """A yes/no variable: 1/true/yes/on or 0/false/no/off (any case)."""
    raw = environ.get(variable)
    if raw is None:
        return default
    word = raw.strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise ConfigurationError(variable, f"expected true or false, got {raw!r}")


def list_from_env(environ: Mapping[str, str], variable: str, *, default: list[str]) -> list[str]:
    """A comma-separated list; unset or blank gives the default."""
    raw = environ.get(variable, "").strip()
    if not raw:
        return list(default)
    return [item.strip() for item in raw.split(",") if item.strip()]


def log_level_from_env(environ: Mapping[str, str], *, default: str) -> str:
    """LOG_LEVEL: DEBUG, INFO, WARNING, ERROR or CRITICAL (any case)."""
    raw = environ.get("LOG_LEVEL", "").strip()
    if not raw:
        return default
    if raw.upper() not in LOG_LEVELS:
        raise ConfigurationError(
            "LOG_LEVEL", f"expected one of {', '.join(LOG_LEVELS)}, got {raw!r}"
        )
    return raw.upper()


def path_from_env(environ: Mapping[str, str], variable: str, *, default: Path) -> Path:
    """A folder named by variable (default if unset), created if missing."""
    raw = environ.get(variable, "").strip()
    path = Path(raw).expanduser().resolve() if raw else default
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigurationError(variable, f"cannot create {path} ({exc.strerror})") from exc
    return path


def var_dir_from_env(environ: Mapping[str, str], *, default: Path) -> Path:
    """The folder for local state (SQLite file, secret key, embedded broker, static files)."""
    return path_from_env(environ, "VAR_DIR", default=default)


# ---------------------------------------------------------------- SECRET_KEY


def secret_key_from_env(environ: Mapping[str, str], *, key_file: Path) -> str:
    """SECRET_KEY, or the key kept in key_file, generated there (mode 600) on first use."""
    configured = environ.get("SECRET_KEY", "")
    if configured.strip():
        return configured
    try:
        return secret_key_file_read_or_create(key_file)
    except OSError as exc:
        raise ConfigurationError(
            "SECRET_KEY", f"unset, and the local key file {key_file} cannot be used ({exc})"
        ) from exc


def secret_key_file_read_or_create(key_file: Path) -> str:
    """Read the key file; create it first if missing. Safe when processes start together."""
    if not key_file.exists():
        candidate = key_file.with_name(f".{key_file.name}.{os.getpid()}.{secrets.token_hex(4)}")
        descriptor = os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w") as stream:
            stream.write(secrets.token_urlsafe(64))
        try:
            os.link(candidate, key_file)  # atomic: the first process to link wins
        except FileExistsError:
            pass
        finally:
            candidate.unlink()
    key = key_file.read_text().strip()
    if not key:
        raise OSError(f"{key_file} is empty")
    return key


# ---------------------------------------------------------------- DATABASE_URL


DATABASE_POOL_SIZE = 4
"""The most PostgreSQL connections a process keeps in its pool (docs/operations.md,
"Database connections"): a web process serves a request at a time in each of a few threads,
a worker process plays one match at a time."""
WEB_DATABASE_POOL_SIZE = 20
"""The most connections a web process's pool holds unless DATABASE_POOL_SIZE is given
(config/web_server.py): a web process serves each request in flight in a thread of its
own, each holding a connection while it runs, so its pool must hold as many as the
requests one process serves at once (docs/operations.md, "Database connections")."""
DATABASE_POOL_WAIT_SECONDS = 5
"""How long a request waits for a pooled connection (all in use, or PostgreSQL away) before
it fails as a database outage: the connect timeout's length."""


def database_from_env(environ: Mapping[str, str], *, default_sqlite: Path) -> dict[str, Any]:
    """The Django DATABASES["default"] entry from DATABASE_URL (PostgreSQL or SQLite), and
    for PostgreSQL its connection pool of DATABASE_POOL_SIZE (0: a connection a request)."""
    url = environ.get("DATABASE_URL", "").strip()
    if not url:
        return sqlite_database(default_sqlite)
    pool_size = count_from_env(environ, "DATABASE_POOL_SIZE", default=DATABASE_POOL_SIZE, least=0)
    return database_from_url(url, pool_size=pool_size)


def database_pool(size: int) -> dict[str, Any]:
    """Django's psycopg pool options: one connection kept open, up to ``size``, each
    closed after five idle minutes or an hour of life. With CONN_HEALTH_CHECKS Django has
    the pool check a connection before handing it out (one PostgreSQL dropped is replaced,
    not used)."""
    return {
        "min_size": 1,
        "max_size": size,
        "timeout": DATABASE_POOL_WAIT_SECONDS,
        "max_idle": 300,
        "max_lifetime": 3600,
    }


def database_from_url(url: str, *, pool_size: int = 0) -> dict[str, Any]:
    """Parse and check a DATABASE_URL; ConfigurationError names what is wrong. A PostgreSQL
    database with ``pool_size`` above 0 gets a connection pool of that size."""
    try:
        parts = urlsplit(url)
    except ValueError as exc:
        raise ConfigurationError("DATABASE_URL", f"malformed URL ({exc})") from exc
    scheme = parts.scheme.lower()
    if scheme in SQLITE_SCHEMES:
        path = parts.path
        if not path or path == "/" or path == "/:memory:":
            raise ConfigurationError(
                "DATABASE_URL", "an SQLite URL needs a file: sqlite:////absolute/path/db.sqlite3"
            )
        return sqlite_database(Path(path[1:] if path.startswith("//") else path.lstrip("/")))
    if scheme not in POSTGRES_SCHEMES:
        raise ConfigurationError(
            "DATABASE_URL",
            f"unsupported scheme {parts.scheme + '://' if parts.scheme else 'none'} in "
            f"{url_for_display(url)!r}; use postgres://user:password@host:5432/name "
            "or sqlite:////path/to/db.sqlite3",
        )
    postgres_url_check(parts, url)
    try:
        config: dict[str, Any] = dict(dj_database_url.parse(url, conn_health_checks=True))
    except (ValueError, KeyError) as exc:
        raise ConfigurationError(
            "DATABASE_URL", f"cannot parse {url_for_display(url)!r} ({exc})"
        ) from exc
    config["ENGINE"] = "django.db.backends.postgresql"
    options = config.setdefault("OPTIONS", {})
    options.setdefault("connect_timeout", 5)
    if pool_size:
        # The pool hands out and takes back connections: Django must not keep them
        # itself (CONN_MAX_AGE 0).
        options["pool"] = database_pool(pool_size)
        config["CONN_MAX_AGE"] = 0
    return config


def postgres_url_check(parts: SplitResult, url: str) -> None:
    shown = url_for_display(url)
    try:
        parts.port  # noqa: B018 -- reading it validates it
    except ValueError as exc:
        raise ConfigurationError("DATABASE_URL", f"bad port in {shown!r}") from exc
    if not parts.hostname and "host=" not in parts.query:
        raise ConfigurationError("DATABASE_URL", f"no host in {shown!r}")
    if not parts.path.strip("/"):
        raise ConfigurationError("DATABASE_URL", f"no database name in {shown!r}")


def sqlite_database(path: Path) -> dict[str, Any]:
    """An SQLite file tuned for several processes (web, worker, beat) at once."""
    return {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": str(path),
        "OPTIONS": {
            "timeout": 20,
            "transaction_mode": "IMMEDIATE",
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        },
        "TEST": {"NAME": str(path.with_name(f"test-{path.name}"))},
    }


def database_url_for_display(database: Mapping[str, Any]) -> str:
    """A URL describing a DATABASES entry, password hidden, for messages."""
    if database["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{database['NAME']}"
    user = database.get("USER") or ""
    password = ":***" if database.get("PASSWORD") else ""
    credentials = f"{user}{password}@" if user else ""
    host = database.get("HOST") or "localhost"
    port = f":{database['PORT']}" if database.get("PORT") else ""
    return f"postgres://{credentials}{host}{port}/{database.get('NAME', '')}"


def database_url_for(database: Mapping[str, Any]) -> str:
    """A DATABASE_URL for a DATABASES entry (the test database, a benchmark's scratch
    database), for a process started with it: the inverse of ``database_from_url``."""
    engine = str(database["ENGINE"])
    name = str(database["NAME"])
    if engine.endswith("sqlite3"):
        return f"sqlite:///{name}" if name.startswith("/") else f"sqlite:///{os.path.abspath(name)}"
    user = quote(str(database.get("USER") or ""), safe="")
    password = quote(str(database.get("PASSWORD") or ""), safe="")
    credentials = f"{user}:{password}@" if password else (f"{user}@" if user else "")
    host = str(database.get("HOST") or "localhost")
    port = f":{database['PORT']}" if database.get("PORT") else ""
    return f"postgres://{credentials}{host}{port}/{quote(name, safe='')}"


def database_failure_reason(error: BaseException) -> str:
    """A short reason for a failed database connection: 'connection refused', ..."""
    message = str(error)
    lowered = message.lower()
    known = (
        ("connection refused", "connection refused"),
        ("could not translate host name", "unknown host"),
        ("name or service not known", "unknown host"),
        ("timeout expired", "timed out"),
        ("timed out", "timed out"),
        ("password authentication failed", "password authentication failed"),
        ("no password supplied", "no password supplied"),
        ("unable to open database file", "unable to open the database file"),
        ("no such file or directory", "no such file or directory"),
    )
    for needle, reason in known:
        if needle in lowered:
            return reason
    for line in message.splitlines():
        line = line.strip()
        if line.startswith("connection failed:"):
            line = line.removeprefix("connection failed:").strip()
        if line:
            # psycopg: 'connection to server at "h" (1.2.3.4), port 5432 failed: FATAL:  ...'
            return line.rsplit("FATAL:", 1)[-1].strip() or line
    return type(error).__name__


def database_connect_failure(alias: str = "default") -> str | None:
    """Connect to the database once, on a connection of its own (never the pool's, which
    would retry in the background and say only that it waited): None if it answers, else
    the short reason it did not (``connection refused``)."""
    from django.db import connections
    from django.db.utils import Error as DatabaseError

    connection = connections[alias]
    driver: Any = getattr(connection, "Database")  # noqa: B009 -- the backend's DB-API module
    try:
        if getattr(connection, "pool", None) is not None:
            driver.connect(**connection.get_connection_params()).close()
        else:
            connection.ensure_connection()
    except (DatabaseError, driver.Error) as exc:
        return database_failure_reason(exc)
    return None


def database_connection_check(alias: str = "default") -> None:
    """Connect to the database; raise a one-line ConfigurationError if it does not answer."""
    from django.db import connections

    reason = database_connect_failure(alias)
    if reason is not None:
        shown = database_url_for_display(connections[alias].settings_dict)
        raise ConfigurationError("DATABASE_URL", f"cannot connect to {shown} ({reason})")


# ---------------------------------------------------------------- REDIS_URL


@dataclass(frozen=True, kw_only=True, slots=True)
class MessagingSettings:
    """Where Celery's broker and results, and the Channels layer, live."""

    broker_url: str
    broker_transport_options: dict[str, Any] = field(default_factory=dict)
    result_backend: str
    channel_layer: dict[str, Any]
    embedded: bool


def messaging_from_env(
    environ: Mapping[str, str], *, var_dir: Path, visibility_timeout: int
) -> MessagingSettings:
    """Redis when REDIS_URL is set; otherwise the embedded broker under var_dir."""
    url = environ.get("REDIS_URL", "").strip()
    if not url:
        return embedded_messaging(var_dir)
    return redis_messaging(url, visibility_timeout=visibility_timeout)


def redis_url_check(url: str) -> SplitResult:
    """Check a REDIS_URL's shape: redis://, rediss:// or unix://, with a host or a socket path."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 -- reading it validates it
    except ValueError as exc:
        raise ConfigurationError("REDIS_URL", f"malformed URL {url_for_display(url)!r}") from exc
    scheme = parts.scheme.lower()
    if scheme not in REDIS_SCHEMES:
        raise ConfigurationError(
            "REDIS_URL",
            f"unsupported scheme {parts.scheme + '://' if parts.scheme else 'none'} in "
            f"{url_for_display(url)!r}; use redis://host:6379/0, rediss://host:6380/0 "
            "or unix:///path/to/redis.sock",
        )
    if scheme == "unix" and not parts.path:
        raise ConfigurationError("REDIS_URL", f"no socket path in {url_for_display(url)!r}")
    if scheme != "unix" and not parts.hostname:
        raise ConfigurationError("REDIS_URL", f"no host in {url_for_display(url)!r}")
    database = parts.path.strip("/")
    if scheme != "unix" and database and not database.isdigit():
        raise ConfigurationError(
            "REDIS_URL",
            f"the database must be a number, got {database!r} in {url_for_display(url)!r}",
        )
    return parts


def redis_messaging(url: str, *, visibility_timeout: int) -> MessagingSettings:
    parts = redis_url_check(url)
    # kombu and Celery's result backend spell a socket path redis+socket:///path
    is_socket = parts.scheme.lower() == "unix"
    celery_url = "redis+socket" + url[url.index(":") :] if is_socket else url
    return MessagingSettings(
        broker_url=celery_url,
        broker_transport_options={"visibility_timeout": visibility_timeout},
        result_backend=celery_url,
        channel_layer={
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            # Short connection timeout; reads wait longer than the layer's own 5 s
            # blocking pops, so a silent Redis fails a send or receive instead of hanging.
            "CONFIG": {
                "hosts": [
                    {
                        "address": url,
                        "socket_connect_timeout": REDIS_CONNECT_TIMEOUT_SECONDS,
                        "socket_timeout": REDIS_CHANNEL_LAYER_TIMEOUT_SECONDS,
                    }
                ]
            },
        },
        embedded=False,
    )


def embedded_messaging(var_dir: Path) -> MessagingSettings:
    """kombu's filesystem transport and Celery's file result backend: no server needed.

    Producer and worker share one folder, so a real separate worker process consumes what
    the web process sends. Good for a laptop, not for production (docs/operations.md).
    """
    broker_dir = var_dir / "broker"
    queue_dir = broker_dir / "queue"
    control_dir = broker_dir / "control"
    results_dir = var_dir / "results"
    for folder in (queue_dir, control_dir, results_dir):
        folder.mkdir(parents=True, exist_ok=True)
    return MessagingSettings(
        broker_url="filesystem://localhost/",
        broker_transport_options={
            "data_folder_in": str(queue_dir),
            "data_folder_out": str(queue_dir),
            "control_folder": str(control_dir),
            "polling_interval": 0.2,
        },
        result_backend=f"file://{results_dir}",
        channel_layer={"BACKEND": "channels.layers.InMemoryChannelLayer"},
        embedded=True,
    )


# ---------------------------------------------------------------- CACHES


REDIS_CONNECT_TIMEOUT_SECONDS = 2
REDIS_CACHE_TIMEOUT_SECONDS = 2
REDIS_CHANNEL_LAYER_TIMEOUT_SECONDS = 15


def cache_from_env(environ: Mapping[str, str], *, var_dir: Path) -> dict[str, Any]:
    """Django's default cache, shared by every process: Redis when REDIS_URL is set,
    otherwise files under var_dir/cache (one machine, like the embedded broker).

    Rate limits and sign-in locks live there, so it is never per-process memory.
    """
    url = environ.get("REDIS_URL", "").strip()
    if url:
        redis_url_check(url)
        return {
            "BACKEND": "config.redis_cache.KeptClientRedisCache",
            "LOCATION": url,
            "KEY_PREFIX": "league",
            # A Redis that accepts connections and never answers must not hold a request:
            # a cache call gives up after these (the callers degrade, docs/operations.md).
            "OPTIONS": {
                "socket_connect_timeout": REDIS_CONNECT_TIMEOUT_SECONDS,
                "socket_timeout": REDIS_CACHE_TIMEOUT_SECONDS,
            },
        }
    folder = var_dir / "cache"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigurationError("VAR_DIR", f"cannot create {folder} ({exc.strerror})") from exc
    return {
        "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
        "LOCATION": str(folder),
        "KEY_PREFIX": "league",
        "OPTIONS": {"MAX_ENTRIES": 10_000},
    }


# ---------------------------------------------------------------- rate limits and sign-in locks

RATE_PERIODS = {"second": 1, "minute": 60, "hour": 3600, "day": 86400}
DURATION_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def rate_check(variable: str, scope: str, rate: str) -> str:
    """A rate as DRF's throttles read it, "<count>/<second|minute|hour|day>"."""
    count, _, period = rate.strip().partition("/")
    if not count.strip().isdigit() or int(count) < 1 or period.strip() not in RATE_PERIODS:
        raise ConfigurationError(
            variable,
            f"{scope}: expected <count>/<{'|'.join(RATE_PERIODS)}> with a count of 1 or "
            f"more, got {rate.strip()!r}",
        )
    return f"{int(count)}/{period.strip()}"


def rate_limits_from_env(
    environ: Mapping[str, str], *, default: Mapping[str, str]
) -> dict[str, str]:
    """RATE_LIMITS: comma-separated scope=rate pairs (uploads=20/hour,actions=120/minute)
    that replace the defaults of the scopes they name; the others keep their default."""
    rates = dict(default)
    raw = environ.get("RATE_LIMITS", "").strip()
    for item in (part.strip() for part in raw.split(",")):
        if not item:
            continue
        scope, equals, rate = item.partition("=")
        scope = scope.strip()
        if not equals:
            raise ConfigurationError(
                "RATE_LIMITS", f"expected scope=count/period pairs, got {item!r}"
            )
        if scope not in rates:
            raise ConfigurationError(
                "RATE_LIMITS", f"unknown scope {scope!r}; the scopes are {', '.join(rates)}"
            )
        rates[scope] = rate_check("RATE_LIMITS", scope, rate)
    return rates


def count_from_env(environ: Mapping[str, str], variable: str, *, default: int, least: int) -> int:
    """A whole number of at least ``least``; unset or blank gives the default."""
    raw = environ.get(variable, "").strip()
    if not raw:
        return default
    if not raw.isdigit() or int(raw) < least:
        raise ConfigurationError(
            variable, f"expected a whole number of {least} or more, got {raw!r}"
        )
    return int(raw)


def niceness_from_env(environ: Mapping[str, str], variable: str, *, default: int) -> int:
    """A scheduling niceness, 0 (as the web process) to 19 (only what nothing else wants)."""
    niceness = count_from_env(environ, variable, default=default, least=0)
    if niceness > 19:
        raise ConfigurationError(variable, f"expected a niceness from 0 to 19, got {niceness}")
    return niceness


def durations_from_env(
    environ: Mapping[str, str], variable: str, *, default: tuple[int, ...]
) -> tuple[int, ...]:
    """Comma-separated durations (30s, 5m, 1h, 1d; a bare number is seconds), each at least
    as long as the one before; unset or blank gives the default."""
    raw = environ.get(variable, "").strip()
    if not raw:
        return default
    durations: list[int] = []
    for item in (part.strip() for part in raw.split(",")):
        number, unit = (item[:-1], item[-1]) if item[-1:] in DURATION_UNITS else (item, "s")
        if not number.isdigit() or int(number) < 1:
            raise ConfigurationError(
                variable, f"expected durations such as 1m,5m,15m,1h (s, m, h, d), got {item!r}"
            )
        seconds = int(number) * DURATION_UNITS[unit]
        if durations and seconds < durations[-1]:
            raise ConfigurationError(
                variable, f"each duration must be at least the one before it, got {raw!r}"
            )
        durations.append(seconds)
    return tuple(durations)
