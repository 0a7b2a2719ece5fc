# The transactional outbox of tasks and the ticks of periodic processes (beat).

import django.utils.timezone
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('league', '0007_rating_queue'),
    ]

    operations = [
        migrations.CreateModel(
            name='OutboxTask',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('task', models.CharField(help_text="The Celery task's name.", max_length=200)),
                ('args', models.JSONField(blank=True, default=list)),
                ('created_at', models.DateTimeField(default=django.utils.timezone.now)),
                ('attempts', models.PositiveIntegerField(default=0, help_text='Sends that failed so far.')),
                ('last_error', models.CharField(blank=True, max_length=500)),
            ],
            options={
                'ordering': ('id',),
            },
        ),
        migrations.CreateModel(
            name='ProcessTick',
            fields=[
                ('name', models.CharField(max_length=60, primary_key=True, serialize=False)),
                ('ticked_at', models.DateTimeField()),
                ('stopped_at', models.DateTimeField(blank=True, help_text='Set when the process stopped cleanly.', null=True)),
                ('process', models.CharField(blank=True, help_text='host:pid', max_length=200)),
            ],
        ),
    ]
