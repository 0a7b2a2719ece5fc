"""Rate limits and the sign-in lock through the real API, on PostgreSQL and the real Redis
cache (docs/api.md, "Rate limits and sign-in locks").

tests/conftest.py gives every test a cache key prefix of its own and rates no test reaches;
the tests here set the rates and lock lengths they are about with ``settings``.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

import pytest
import redis

from accounts.sign_in import (
    sign_in_failure_record,
    sign_in_lock_get,
    sign_in_success_record,
)
from config.configuration import (
    ConfigurationError,
    cache_from_env,
    count_from_env,
    durations_from_env,
    rate_limits_from_env,
)
from config.redis_cache import KeptClientRedisCache
from engine import load_game
from league.models import Match, MatchStatus
from league.services.matches import match_run
from tests.celery_workers import REPOSITORY_ROOT
from tests.league.builders import user_create
from tests.league.clock import Clock, clock_fixture, sign_in_clock_fixture  # noqa: F401
from tests.servers import closed_port

if TYPE_CHECKING:
    from pytest_django.fixtures import Settings

PASSWORD = "a long password 1"
EXAMPLE_BOT = Path(__file__).resolve().parents[2] / "bots" / "examples" / "random_bot.py"

F = TypeVar("F", bound=Callable[..., Any])


def servers(test: F) -> F:
    """The test runs on PostgreSQL and the real Redis cache (REDIS_URL)."""
    return pytest.mark.postgres(pytest.mark.redis(pytest.mark.django_db(test)))


LOCAL = "address:127.0.0.1"


def rates_set(settings: Settings, **rates: str) -> None:
    """Set the rates of the named scopes (the others stay out of reach)."""
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], **rates},
    }


def client_for(user: User) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def token_post(username: str, password: str, **extra: Any) -> Any:
    return APIClient().post(
        "/api/auth/token/", {"username": username, "password": password}, format="json", **extra
    )


def assert_too_many(response: Any, *, within: int, says: str) -> str:
    """A 429 with Retry-After (whole seconds, 1..within) and a JSON message containing says."""
    assert response.status_code == 429, response.content
    assert response["Content-Type"].startswith("application/json")
    retry_after = int(response["Retry-After"])
    assert 1 <= retry_after <= within, retry_after
    detail = str(response.json()["detail"])
    assert says in detail, detail
    return detail


def lock_wait_out(username: str, clock: Clock) -> None:
    """Move the sign-in lock's clock to just past the end of the username's lock (for the
    test client's address: a wrong password counts per username and address)."""
    lock = sign_in_lock_get(username=username, source=LOCAL)
    assert lock is not None
    clock.advance(seconds=lock.until - clock.time() - 0.05)
    assert sign_in_lock_get(username=username, source=LOCAL) == lock  # not quite yet
    clock.advance(seconds=0.1)
    assert sign_in_lock_get(username=username, source=LOCAL) is None


# ---------------------------------------------------------------- the sign-in lock


@servers
def test_the_sixth_wrong_password_locks_the_username_and_the_lock_grows(
    settings: Settings, sign_in_clock: Clock
) -> None:
    settings.SIGN_IN_FAILURES_ALLOWED = 5
    settings.SIGN_IN_LOCKOUT_SECONDS = (1, 60)
    user_create("ann", PASSWORD)

    for _ in range(5):
        response = token_post("ann", "wrong")
        assert response.status_code == 400, response.content
        assert response.json()["detail"] == "wrong username or password"
    detail = assert_too_many(token_post("ann", "wrong"), within=1, says="locked until")
    assert "Too many wrong passwords for 'ann'" in detail
    assert "Try again in 1 second." in detail
    # While locked, the right password is refused too, with the same message.
    assert_too_many(token_post("ann", PASSWORD), within=1, says="locked until")

    # The lock is in Redis, under this test's prefix, where every web process reads it.
    client = redis.Redis.from_url(settings.CACHES["default"]["LOCATION"])
    prefix = settings.CACHES["default"]["KEY_PREFIX"]
    assert client.keys(f"{prefix}:*sign-in:lock:*")

    lock_wait_out("ann", sign_in_clock)
    assert token_post("ann", PASSWORD).status_code == 200

    # Locked again: the second lock is the second length, 60 s instead of 1 s.
    for _ in range(5):
        assert token_post("ann", "wrong").status_code == 400
    response = token_post("ann", "wrong")
    assert_too_many(response, within=60, says="locked until")
    assert int(response["Retry-After"]) > 1
    assert_too_many(token_post("ann", PASSWORD), within=60, says="Try again in 1 minute.")


@servers
def test_a_successful_sign_in_empties_the_count_of_wrong_passwords(settings: Settings) -> None:
    settings.SIGN_IN_FAILURES_ALLOWED = 5
    user_create("ann", PASSWORD)
    for _ in range(5):
        assert token_post("ann", "wrong").status_code == 400
    assert token_post("ann", PASSWORD).status_code == 200
    for _ in range(5):
        assert token_post("ann", "wrong").status_code == 400
    assert token_post("ann", "wrong").status_code == 429


@servers
def test_a_username_without_an_account_is_locked_like_any_other(settings: Settings) -> None:
    """A lock tells nothing about which usernames exist."""
    settings.SIGN_IN_FAILURES_ALLOWED = 2
    user_create("ann", PASSWORD)
    for username in ("ann", "nobody"):
        assert [token_post(username, "wrong").status_code for _ in range(3)] == [400, 400, 429]
    # The lock is per username: another one still signs in.
    user_create("bob", PASSWORD)
    assert token_post("bob", PASSWORD).status_code == 200


@servers
def test_lock_lengths_grow_then_stay_at_the_last_and_are_forgotten_after_a_quiet_day(
    settings: Settings,
) -> None:
    settings.SIGN_IN_FAILURES_ALLOWED = 1
    settings.SIGN_IN_LOCKOUT_SECONDS = (60, 300, 900, 3600)
    settings.SIGN_IN_LOCK_MEMORY_SECONDS = 86400
    now = time.time()
    lengths = []
    for _ in range(5):
        assert sign_in_failure_record(username="ann", now=now) is None
        lock = sign_in_failure_record(username="ann", now=now)
        assert lock is not None
        lengths.append((lock.level, round(lock.until - now)))
        assert sign_in_lock_get(username="ann", now=now) == lock
        now = lock.until  # the lock ends
        assert sign_in_lock_get(username="ann", now=now) is None
        sign_in_success_record(username="ann")
    assert lengths == [(1, 60), (2, 300), (3, 900), (4, 3600), (5, 3600)]

    # Forgotten: a username whose remembered lock has expired from the cache starts again.
    settings.SIGN_IN_LOCK_MEMORY_SECONDS = 0
    settings.SIGN_IN_LOCKOUT_SECONDS = (1,)
    assert sign_in_failure_record(username="bea", now=time.time()) is None
    first = sign_in_failure_record(username="bea", now=time.time())
    assert first is not None
    assert first.level == 1
    # Redis keeps the lock for its length + the memory (1 s + 0 s), then forgets it. The
    # test checks that time to live and then lets Redis expire the key now rather than
    # sleep through the second.
    client = redis.Redis.from_url(settings.CACHES["default"]["LOCATION"])
    prefix = settings.CACHES["default"]["KEY_PREFIX"]
    digest = hashlib.sha256(b"bea").hexdigest()[:40]  # the key names a digest of the username
    [lock_key] = client.keys(f"{prefix}:*sign-in:lock:{digest}")
    assert 0 < client.pttl(lock_key) <= 1000
    client.pexpire(lock_key, 1)
    deadline = time.monotonic() + 5
    while client.exists(lock_key) and time.monotonic() < deadline:
        time.sleep(0.005)
    assert not client.exists(lock_key)
    assert sign_in_failure_record(username="bea", now=time.time()) is None
    again = sign_in_failure_record(username="bea", now=time.time())
    assert again is not None
    assert again.level == 1


@servers
def test_the_lock_refuses_the_admin_sign_in_too(settings: Settings) -> None:
    """Every way in that checks a password goes through the locking backend."""
    settings.SIGN_IN_FAILURES_ALLOWED = 1
    User.objects.create_superuser("root", password=PASSWORD)
    for _ in range(2):
        assert token_post("root", "wrong").status_code in (400, 429)
    admin = APIClient()
    response = admin.post("/admin/login/?next=/admin/", {"username": "root", "password": PASSWORD})
    assert response.status_code == 200  # the form again, not the redirect of a signed-in admin
    assert "_auth_user_id" not in admin.session


# ---------------------------------------------------------------- rate limits


@servers
def test_uploads_are_limited_per_person_with_retry_after_and_a_message(
    settings: Settings,
) -> None:
    rates_set(settings, uploads="2/hour")
    ann = user_create("ann")
    api = client_for(ann)
    bot = api.post("/api/bots/", {"name": "Rando", "families": ["kingen"]}, format="json").json()
    url = f"/api/bots/{bot['id']}/versions/"

    def upload() -> Any:
        file = SimpleUploadedFile("random_bot.py", EXAMPLE_BOT.read_bytes())
        return api.post(url, {"file": file}, format="multipart")

    assert [upload().status_code for _ in range(2)] == [201, 201]
    detail = assert_too_many(upload(), within=3600, says="Too many bot uploads: at most 2 in")
    assert detail.startswith("Too many bot uploads: at most 2 in an hour. Try again in ")
    assert api.get(url).status_code == 200  # reading is not limited
    assert len(api.get(url).json()) == 2

    # Per person: Bea's allowance is her own.
    bea = client_for(user_create("bea"))
    bot = bea.post("/api/bots/", {"name": "Bea", "families": ["kingen"]}, format="json").json()
    file = SimpleUploadedFile("random_bot.py", EXAMPLE_BOT.read_bytes())
    response = bea.post(f"/api/bots/{bot['id']}/versions/", {"file": file}, format="multipart")
    assert response.status_code == 201, response.content


@servers
def test_table_creation_is_limited_per_person(settings: Settings) -> None:
    rates_set(settings, tables="2/hour")
    api = client_for(user_create("ann"))
    table = {
        "game": "kingen",
        "seats": ["me", "builtin:random", "builtin:random", "builtin:random"],
    }
    assert [api.post("/api/tables/", table, format="json").status_code for _ in range(2)] == [
        201,
        201,
    ]
    assert_too_many(
        api.post("/api/tables/", table, format="json"),
        within=3600,
        says="Too many new tables: at most 2 in an hour.",
    )
    assert Match.objects.count() == 2


@servers
def test_seats_taken_at_tables_are_limited_per_person(settings: Settings) -> None:
    """Accepting invitations and joining open seats share one allowance."""
    rates_set(settings, table_joins="1/hour")
    ann, bob = user_create("ann"), user_create("bob")
    host = client_for(ann)
    seats = {"game": "kingen", "seats": ["me", "open", "builtin:random", "builtin:random"]}
    first = host.post("/api/tables/", seats, format="json").json()["id"]
    second = host.post("/api/tables/", seats, format="json").json()["id"]
    api = client_for(bob)
    assert api.post(f"/api/tables/{first}/join/").status_code == 200
    assert_too_many(
        api.post(f"/api/tables/{second}/join/"),
        within=3600,
        says="Too many seats taken at tables: at most 1 in an hour.",
    )
    assert Match.objects.get(pk=second).status == MatchStatus.WAITING


@servers
def test_moves_at_a_table_are_limited_per_person(settings: Settings) -> None:
    rates_set(settings, actions="2/minute")
    ann = user_create("ann")
    api = client_for(ann)
    table = {
        "game": "kingen",
        "seats": ["me", "builtin:greedy", "builtin:greedy", "builtin:random"],
    }
    match_id = api.post("/api/tables/", table, format="json").json()["id"]
    seed = next(s for s in range(100) if load_game("kingen").new_initial_state(seed=s).dealer)
    Match.objects.filter(pk=match_id).update(seed=seed)
    match_run(match_id=match_id, worker="test")  # the bots play until Ann is to act
    view = api.get(f"/api/matches/{match_id}/seats/0/view/").json()["view"]
    actions = f"/api/matches/{match_id}/seats/0/actions/"

    assert api.post(actions, {"action": "play ZZ"}, format="json").status_code == 400
    assert api.post(actions, {"action": view["legal"][0]}, format="json").status_code == 200
    assert_too_many(
        api.post(actions, {"action": view["legal"][0]}, format="json"),
        within=60,
        says="Too many moves: at most 2 in a minute.",
    )
    assert Match.objects.get(pk=match_id).status == MatchStatus.QUEUED  # the move was kept


@servers
def test_sign_in_attempts_are_limited_per_address_and_x_forwarded_for_is_not_believed(
    settings: Settings,
) -> None:
    rates_set(settings, sign_in="3/minute")
    user_create("ann", PASSWORD)
    for username in ("bob", "cid", "dan"):
        assert token_post(username, "wrong").status_code == 400
    # The right password of another username, from the same address: refused.
    assert_too_many(
        token_post("ann", PASSWORD),
        within=60,
        says="Too many sign-in attempts from your address: at most 3 in a minute.",
    )
    spoofed = token_post("ann", PASSWORD, HTTP_X_FORWARDED_FOR="203.0.113.9")
    assert spoofed.status_code == 429
    assert token_post("ann", PASSWORD, REMOTE_ADDR="127.0.0.2").status_code == 200


@servers
def test_behind_a_trusted_proxy_the_address_is_the_proxys_x_forwarded_for(
    settings: Settings,
) -> None:
    rates_set(settings, sign_in="1/minute")
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    user_create("ann", PASSWORD)
    proxy = {"REMOTE_ADDR": "10.0.0.1"}
    first = token_post("ann", PASSWORD, HTTP_X_FORWARDED_FOR="203.0.113.9", **proxy)
    assert first.status_code == 200
    assert (
        token_post("ann", PASSWORD, HTTP_X_FORWARDED_FOR="203.0.113.9", **proxy).status_code == 429
    )
    assert (
        token_post("ann", PASSWORD, HTTP_X_FORWARDED_FOR="203.0.113.10", **proxy).status_code == 200
    )


@servers
def test_an_unreachable_cache_leaves_signing_in_and_writes_unlimited_not_failing(
    settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": f"redis://127.0.0.1:{closed_port()}/0",
        }
    }
    rates_set(settings, tables="1/hour")
    user_create("ann", PASSWORD)
    assert token_post("ann", "wrong").status_code == 400
    assert token_post("ann", PASSWORD).status_code == 200
    api = client_for(User.objects.get(username="ann"))
    table = {
        "game": "kingen",
        "seats": ["me", "builtin:random", "builtin:random", "builtin:random"],
    }
    assert [api.post("/api/tables/", table, format="json").status_code for _ in range(2)] == [
        201,
        201,
    ]
    assert "the cache does not answer" in caplog.text


@servers
def test_the_schema_documents_the_429_of_each_limited_write() -> None:
    paths = APIClient().get("/api/schema/", HTTP_ACCEPT="application/json").json()["paths"]
    limited = [
        ("/api/auth/token/", "post"),
        ("/api/bots/{bot_id}/versions/", "post"),
        ("/api/tables/", "post"),
        ("/api/tables/{match_id}/join/", "post"),
        ("/api/table-invitations/{code}/accept/", "post"),
        ("/api/matches/{match_id}/seats/{seat}/actions/", "post"),
    ]
    for path, method in limited:
        answer = paths[path][method]["responses"]["429"]
        assert "Retry-After" in answer["headers"], path
    assert "429" not in paths["/api/bots/{bot_id}/versions/"]["get"]["responses"]
    assert "429" not in paths["/api/clubs/"]["post"]["responses"]


# ---------------------------------------------------------------- configuration


def test_rate_limits_and_lock_lengths_come_from_the_environment() -> None:
    script = (
        "import django, json; django.setup(); from django.conf import settings; "
        "print(json.dumps([settings.REST_FRAMEWORK['DEFAULT_THROTTLE_RATES'], "
        "settings.SIGN_IN_FAILURES_ALLOWED, settings.SIGN_IN_LOCKOUT_SECONDS, "
        "settings.REST_FRAMEWORK['NUM_PROXIES']]))"
    )

    def configured(environment: dict[str, str]) -> Any:
        run = subprocess.run(
            [sys.executable, "-c", script],
            cwd=REPOSITORY_ROOT,
            env={"PATH": "/usr/bin:/bin", "DJANGO_SETTINGS_MODULE": "config.settings"}
            | environment,
            capture_output=True,
            text=True,
            check=True,
        )
        return json.loads(run.stdout)

    assert configured({}) == [
        {
            "sign_in": "30/minute",
            "sign_up": "20/hour",
            "uploads": "20/hour",
            "tables": "30/hour",
            "table_joins": "60/hour",
            "table_code_writes": "120/hour",
            "table_session_writes": "300/hour",
            "table_code_guesses": "20/hour",
            "actions": "120/minute",
            "settings": "300/hour",
            "chat": "20/minute",
        },
        5,
        [60, 300, 900, 3600],
        0,
    ]
    assert configured(
        {
            "RATE_LIMITS": "uploads=5/day, actions=300/minute",
            "SIGN_IN_FAILURES_ALLOWED": "10",
            "SIGN_IN_LOCKOUT": "30s,2m,1h",
            "TRUSTED_PROXIES": "1",
        }
    ) == [
        {
            "sign_in": "30/minute",
            "sign_up": "20/hour",
            "uploads": "5/day",
            "tables": "30/hour",
            "table_joins": "60/hour",
            "table_code_writes": "120/hour",
            "table_session_writes": "300/hour",
            "table_code_guesses": "20/hour",
            "actions": "300/minute",
            "settings": "300/hour",
            "chat": "20/minute",
        },
        10,
        [30, 120, 3600],
        1,
    ]


@pytest.mark.parametrize(
    ("environ", "message"),
    [
        ({"RATE_LIMITS": "uploads=lots"}, "RATE_LIMITS: uploads: expected <count>/<second|"),
        ({"RATE_LIMITS": "uploads=0/hour"}, "RATE_LIMITS: uploads: expected"),
        ({"RATE_LIMITS": "uploads=5/fortnight"}, "RATE_LIMITS: uploads: expected"),
        ({"RATE_LIMITS": "downloads=5/hour"}, "RATE_LIMITS: unknown scope 'downloads'"),
        ({"RATE_LIMITS": "uploads"}, "RATE_LIMITS: expected scope=count/period pairs"),
    ],
)
def test_a_bad_rate_names_the_variable_and_the_scope(environ: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigurationError) as raised:
        rate_limits_from_env(environ, default={"uploads": "20/hour"})
    assert str(raised.value).startswith(message), str(raised.value)


def test_bad_lock_settings_name_their_variable() -> None:
    with pytest.raises(ConfigurationError, match=r"^SIGN_IN_LOCKOUT: each duration must be"):
        durations_from_env({"SIGN_IN_LOCKOUT": "5m,1m"}, "SIGN_IN_LOCKOUT", default=(60,))
    with pytest.raises(ConfigurationError, match=r"^SIGN_IN_LOCKOUT: expected durations"):
        durations_from_env({"SIGN_IN_LOCKOUT": "1m,,5m"}, "SIGN_IN_LOCKOUT", default=(60,))
    with pytest.raises(ConfigurationError, match=r"^SIGN_IN_FAILURES_ALLOWED: expected a whole"):
        count_from_env(
            {"SIGN_IN_FAILURES_ALLOWED": "0"}, "SIGN_IN_FAILURES_ALLOWED", default=5, least=1
        )


def test_the_cache_is_redis_with_redis_url_and_files_without(tmp_path: Path) -> None:
    redis_cache = cache_from_env({"REDIS_URL": "redis://127.0.0.1:6379/3"}, var_dir=tmp_path)
    assert redis_cache["BACKEND"] == "config.redis_cache.KeptClientRedisCache"
    assert redis_cache["LOCATION"] == "redis://127.0.0.1:6379/3"
    kept = KeptClientRedisCache(redis_cache["LOCATION"], {"OPTIONS": redis_cache["OPTIONS"]})
    client = kept._cache.get_client()  # one redis.Redis a pool, not one a call
    assert kept._cache.get_client() is client
    assert kept._cache.get_client(write=True) is client  # one server: reads and writes
    file_cache = cache_from_env({}, var_dir=tmp_path)
    assert file_cache["BACKEND"] == "django.core.cache.backends.filebased.FileBasedCache"
    assert Path(file_cache["LOCATION"]) == tmp_path / "cache"
    assert (tmp_path / "cache").is_dir()
