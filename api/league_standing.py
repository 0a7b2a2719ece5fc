"""Where a league stands, as the API's tournament detail says it (``standing``):
league.domain.league_progress's counts and league.words.league_progress's words."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers


class LeagueStandingWordsSerializer(serializers.Serializer[Any]):
    round = serializers.CharField(help_text="Round 5 of 6")
    games = serializers.CharField(help_text="14 of 15 games played")
    next = serializers.CharField(help_text="What is next and when: Waiting for 1 game")


class LeagueStandingSerializer(serializers.Serializer[Any]):
    """Where the league stands (league.domain.league_progress), with its words in the
    request's language."""

    current_round = serializers.IntegerField(help_text="The highest round started; 0: none.")
    rounds_planned = serializers.IntegerField()
    round_numbers = serializers.ListField(child=serializers.IntegerField())
    games_played = serializers.IntegerField()
    games_total = serializers.IntegerField()
    games_waiting = serializers.IntegerField()
    next_step = serializers.ChoiceField(
        choices=["not_started", "games", "scheduled_round", "organiser_round", "finished"]
    )
    next_round_at = serializers.DateTimeField(allow_null=True)
    words = LeagueStandingWordsSerializer()
