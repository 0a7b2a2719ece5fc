"""A bot's families (issue 35): each bot's one ``family`` becomes the one-element set of
its ``BotFamily`` rows; a bot of no family keeps none (its owner is asked to name one)."""

from typing import Any

import django.db.models.deletion
from django.db import migrations, models


def families_from_family(apps: Any, schema_editor: Any) -> None:
    Bot = apps.get_model("bots", "Bot")
    BotFamily = apps.get_model("bots", "BotFamily")
    BotFamily.objects.bulk_create(
        BotFamily(bot_id=bot_id, family=family)
        for bot_id, family in Bot.objects.exclude(family="").values_list("id", "family")
    )


def family_from_families(apps: Any, schema_editor: Any) -> None:
    """Back to one family: the first of each bot's, by name."""
    Bot = apps.get_model("bots", "Bot")
    BotFamily = apps.get_model("bots", "BotFamily")
    first: dict[int, str] = {}
    for bot_id, family in BotFamily.objects.order_by("bot_id", "family").values_list(
        "bot_id", "family"
    ):
        first.setdefault(bot_id, family)
    for bot_id, family in first.items():
        Bot.objects.filter(pk=bot_id).update(family=family)


class Migration(migrations.Migration):
    dependencies = [
        ("bots", "0004_version_runtime"),
    ]

    operations = [
        migrations.CreateModel(
            name="BotFamily",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("family", models.CharField(max_length=40)),
                (
                    "bot",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="families",
                        to="bots.bot",
                    ),
                ),
            ],
            options={
                "ordering": ("bot_id", "family"),
                "constraints": [
                    models.UniqueConstraint(
                        fields=("bot", "family"), name="bot_family_once_per_bot"
                    )
                ],
            },
        ),
        migrations.RunPython(families_from_family, family_from_families),
        migrations.RemoveField(model_name="bot", name="family"),
    ]
