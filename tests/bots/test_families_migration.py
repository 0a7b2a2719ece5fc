"""bots 0005: each bot's one ``family`` becomes the one-element set of its families, a bot
of no family keeps none (its owner is asked to name one), and back."""

from __future__ import annotations

from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

import pytest

BEFORE = [("bots", "0004_version_runtime")]
AFTER = [("bots", "0005_bot_families")]


def _migrate(targets: list[tuple[str, str]]) -> MigrationExecutor:
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    return MigrationExecutor(connection)  # its loader sees the state just reached


@pytest.mark.slow  # migrating back and forth
@pytest.mark.django_db(transaction=True)
def test_each_family_becomes_the_one_element_set_and_none_stays_none() -> None:
    try:
        old = _migrate(BEFORE).loader.project_state(BEFORE).apps
        owner = old.get_model("auth", "User").objects.create(username="ann")
        bots = old.get_model("bots", "Bot").objects
        kingen = bots.create(owner_id=owner.pk, name="Ducker", family="kingen")
        lost = bots.create(owner_id=owner.pk, name="Lost", family="")

        new = _migrate(AFTER).loader.project_state(AFTER).apps
        families = new.get_model("bots", "BotFamily").objects
        assert sorted(families.values_list("bot_id", "family")) == [(kingen.pk, "kingen")]
        assert not families.filter(bot_id=lost.pk).exists()

        families.create(bot_id=lost.pk, family="priffe")
        families.create(bot_id=lost.pk, family="king")
        back = _migrate(BEFORE).loader.project_state(BEFORE).apps
        rows = back.get_model("bots", "Bot").objects.order_by("name")
        assert list(rows.values_list("name", "family")) == [("Ducker", "kingen"), ("Lost", "king")]
    finally:
        call_command("migrate", verbosity=0)  # the next test finds the latest schema
