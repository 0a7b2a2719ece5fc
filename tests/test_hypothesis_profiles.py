"""hypothesis's profile follows CI (tests/conftest.py): fixed examples under CI=true,
random ones locally."""

from __future__ import annotations

import os
from datetime import timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.servers import running_under_ci


def test_the_ci_profile_is_derandomized_prints_the_blob_and_allows_a_loaded_machine() -> None:
    ci = settings.get_profile("ci")
    assert ci.derandomize
    assert ci.print_blob
    assert ci.database is None
    assert ci.deadline is not None
    assert timedelta(seconds=1) <= ci.deadline <= timedelta(seconds=30)


def test_the_local_profile_draws_random_examples() -> None:
    local = settings.get_profile("local")
    assert not local.derandomize
    assert local.deadline == settings.get_profile("default").deadline


def test_the_loaded_profile_is_the_one_of_this_run() -> None:
    chosen = os.environ.get("HYPOTHESIS_PROFILE", "").strip()
    expected = chosen or ("ci" if running_under_ci() else "local")
    assert settings.get_current_profile_name() == expected


def examples_of_one_ci_run() -> list[list[int]]:
    examples: list[list[int]] = []

    @settings(settings.get_profile("ci"), max_examples=10)
    @given(st.lists(st.integers(), min_size=3))
    def collect(numbers: list[int]) -> None:
        examples.append(numbers)

    collect()
    return examples


def test_under_the_ci_profile_two_runs_try_the_same_examples() -> None:
    assert examples_of_one_ci_run() == examples_of_one_ci_run()
