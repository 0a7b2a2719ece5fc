"""CSRF secrets and masked tokens for the read cache's early answers, as Django makes them
(django.middleware.csrf: 32 characters of ``CSRF_ALLOWED_CHARS``; a token is a fresh mask
and the secret enciphered with it, 64 characters) and accepted by its middleware, from
one read of the operating system's random source instead of 32 calls of
``secrets.choice`` each.

Django's two, ``_get_new_csrf_string`` and ``_mask_cipher_secret``, cost 20-25 µs apiece
on this machine, and an early answer to a visitor without a CSRF cookie (every load
client, and a browser's first visit) needs both: a tenth of a read-cache hit
(bench/signed_in_hits.py). The characters are drawn from ``os.urandom`` bytes without
bias: a byte is used only below the largest multiple of 62 under 256 (248), so each
character is equally likely.
"""

from __future__ import annotations

import os

from django.middleware.csrf import CSRF_ALLOWED_CHARS, CSRF_SECRET_LENGTH

_COUNT = len(CSRF_ALLOWED_CHARS)
_BELOW = 256 - 256 % _COUNT
"""Bytes from 0 up to this are used (``byte % 62``, uniform); the others are drawn again."""
_INDEX = {character: index for index, character in enumerate(CSRF_ALLOWED_CHARS)}


def _uniform_indices(count: int) -> list[int]:
    """``count`` independent, uniformly drawn indices into ``CSRF_ALLOWED_CHARS``."""
    drawn: list[int] = []
    while len(drawn) < count:
        # 3 % of bytes are refused: a few over ``count`` nearly always suffice
        drawn += [byte % _COUNT for byte in os.urandom(count + 8) if byte < _BELOW]
    return drawn[:count]


def csrf_secret_new() -> str:
    """A new CSRF secret (the cookie's value), as ``_get_new_csrf_string`` makes one."""
    return "".join([CSRF_ALLOWED_CHARS[index] for index in _uniform_indices(CSRF_SECRET_LENGTH)])


def csrf_token_masked(secret: str) -> str:
    """A token of ``secret`` under a fresh mask, as ``_mask_cipher_secret`` makes one (a
    new mask each answer keeps the secret from BREACH); ``secret`` is a valid one."""
    mask = _uniform_indices(CSRF_SECRET_LENGTH)
    cipher = [
        CSRF_ALLOWED_CHARS[(_INDEX[character] + shift) % _COUNT]
        for character, shift in zip(secret, mask, strict=True)
    ]
    return "".join([CSRF_ALLOWED_CHARS[index] for index in mask] + cipher)
