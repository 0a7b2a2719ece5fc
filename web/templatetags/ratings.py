"""Ratings for people: ``{{ row|rating }}`` is ``24.1 ± 6.9``, one number and how unsure it
still is, never openskill's raw mu and sigma side by side.

The number is the estimated strength (mu); the ± is three standard deviations (3 sigma), so
the strength lies in that range almost surely, and its low end (mu - 3 sigma, the
``conservative`` value) is what every table ranks by: a newcomer's wide range puts it low
until its games make the estimate sure.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import template

register = template.Library()

UNCERTAINTY_SIGMAS = 3
"""The ± shown is this many standard deviations (its low end is what tables rank by)."""


def _field(value: Any, name: str) -> float | None:
    raw = value.get(name) if isinstance(value, Mapping) else getattr(value, name, None)
    return None if raw is None else float(raw)


def rating_text(mu: float, sigma: float) -> str:
    """``24.1 ± 6.9``: the strength and its uncertainty, one decimal each."""
    return f"{mu:.1f} ± {UNCERTAINTY_SIGMAS * sigma:.1f}"


@register.filter
def rating(value: Any) -> str:
    """A rating (a mapping or an object with ``mu`` and ``sigma``) as ``24.1 ± 6.9``."""
    mu, sigma = _field(value, "mu"), _field(value, "sigma")
    if mu is None or sigma is None:
        return "\N{EN DASH}"
    return rating_text(mu, sigma)
