"""MatchEvent's primary key becomes (match, index): one index instead of three per row.

Django cannot alter a primary key into a composite one, so the table is made anew; its
rows are copied across by SQL on PostgreSQL and SQLite alike.
"""

import django.db.models.deletion
import django.utils.timezone
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("league", "0002_clubs_tournaments_matches"),
    ]

    operations = [
        migrations.RenameModel("MatchEvent", "OldMatchEvent"),
        migrations.RemoveConstraint(model_name="oldmatchevent", name="match_event_order_unique"),
        migrations.RemoveConstraint(model_name="oldmatchevent", name="match_event_action_xor_chance"),
        migrations.RemoveConstraint(model_name="oldmatchevent", name="match_event_ms_not_negative"),
        migrations.AlterField(
            model_name="oldmatchevent",
            name="match",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to="league.match",
            ),
        ),
        migrations.CreateModel(
            name="MatchEvent",
            fields=[
                ("pk", models.CompositePrimaryKey("match", "index", blank=True, editable=False, primary_key=True, serialize=False)),
                ("match", models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name="events", to="league.match")),
                ("index", models.PositiveIntegerField()),
                ("seat", models.SmallIntegerField(blank=True, null=True)),
                ("action", models.CharField(blank=True, max_length=40)),
                ("chance", models.JSONField(blank=True, null=True)),
                ("ms", models.FloatField(blank=True, null=True)),
                ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
            ],
            options={
                "ordering": ("match_id", "index"),
                "constraints": [
                    models.CheckConstraint(condition=models.Q(models.Q(("action__gt", ""), ("chance__isnull", True), ("seat__isnull", False)), models.Q(("action", ""), ("chance__isnull", False), ("seat__isnull", True)), _connector="OR"), name="match_event_action_xor_chance"),
                    models.CheckConstraint(condition=models.Q(("ms__isnull", True), ("ms__gte", 0), _connector="OR"), name="match_event_ms_not_negative"),
                ],
            },
        ),
        migrations.RunSQL(
            'INSERT INTO "league_matchevent" ("match_id", "index", "seat", "action", "chance", "ms", "created_at") '
            'SELECT "match_id", "index", "seat", "action", "chance", "ms", "created_at" FROM "league_oldmatchevent"',
            reverse_sql=migrations.RunSQL.noop,
        ),
        migrations.DeleteModel("OldMatchEvent"),
    ]
