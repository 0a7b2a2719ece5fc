from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("league", "0019_merge_the_four_0018s"),
    ]

    operations = [
        migrations.AddField(
            model_name="accountsettings",
            name="display_name",
            field=models.CharField(blank=True, max_length=40),
        ),
    ]
