from django.db import migrations, models


class Migration(migrations.Migration):
    """How many decisions of a version's validation game its helper module (kingbot)
    played for its own code (bots.services.bot_version_validate)."""

    dependencies = [
        ("bots", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="botversion",
            name="validation_fallbacks",
            field=models.PositiveIntegerField(
                blank=True,
                help_text="Decisions of its validation game at which its own code failed and "
                "its helper module (kingbot) played for it; null: no validation game played.",
                null=True,
            ),
        ),
    ]
