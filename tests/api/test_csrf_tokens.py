"""api/csrf_tokens.py: CSRF secrets and masked tokens made as Django makes them, taken by
its middleware, and drawn without bias."""

from __future__ import annotations

from collections import Counter

from django.http import HttpRequest, HttpResponse
from django.middleware import csrf
from django.middleware.csrf import CSRF_ALLOWED_CHARS, CSRF_SECRET_LENGTH, CsrfViewMiddleware
from django.test import RequestFactory

from api.csrf_tokens import csrf_secret_new, csrf_token_masked


def _posted(secret: str, token: str) -> HttpRequest:
    request = RequestFactory().post("/language/", {"csrfmiddlewaretoken": token})
    request.COOKIES["csrftoken"] = secret
    return request


def _refusal(request: HttpRequest) -> HttpResponse | None:
    """CsrfViewMiddleware's answer to ``request`` (None: it lets the POST through)."""
    middleware = CsrfViewMiddleware(lambda request: HttpResponse())
    middleware.process_request(request)
    return middleware.process_view(request, lambda request: HttpResponse(), (), {})


def test_a_secret_is_what_django_makes() -> None:
    secrets = {csrf_secret_new() for _ in range(50)}
    assert len(secrets) == 50
    for secret in secrets:
        assert len(secret) == CSRF_SECRET_LENGTH
        assert set(secret) <= set(CSRF_ALLOWED_CHARS)


def test_a_masked_token_unmasks_to_its_secret_and_the_middleware_takes_it() -> None:
    secret = csrf_secret_new()
    tokens = {csrf_token_masked(secret) for _ in range(20)}
    assert len(tokens) == 20  # a fresh mask each time
    for token in tokens:
        assert len(token) == 2 * CSRF_SECRET_LENGTH
        assert csrf._unmask_cipher_token(token) == secret  # type: ignore[attr-defined]
        assert _refusal(_posted(secret, token)) is None
    # and a Django secret masked here, or a token of another secret, as Django would
    django_secret = csrf._get_new_csrf_string()
    assert _refusal(_posted(django_secret, csrf_token_masked(django_secret))) is None
    refused = _refusal(_posted(secret, csrf_token_masked(csrf_secret_new())))
    assert refused is not None
    assert refused.status_code == 403


def test_each_character_is_equally_likely() -> None:
    """64,000 characters against the uniform: a chi-square over 61 degrees of freedom
    near 61 (above 150 with probability under one in a billion). Taking ``byte % 62`` of
    every byte would favour the first eight characters by a quarter: about 420."""
    drawn = Counter("".join(csrf_secret_new() for _ in range(2000)))
    expected = 2000 * CSRF_SECRET_LENGTH / len(CSRF_ALLOWED_CHARS)
    chi_square = sum(
        (drawn[character] - expected) ** 2 / expected for character in CSRF_ALLOWED_CHARS
    )
    assert chi_square < 150, chi_square
