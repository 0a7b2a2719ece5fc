"""Output serializers shared by several APIs, and the error shape (docs/api.md).

Input serializers live next to their API in its resource's module (api.clubs, api.bots...:
HackSoft style).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AnonymousUser
from rest_framework import serializers

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field

from api.league_standing import LeagueStandingSerializer
from bots.models import Bot, BotVersion
from league.models import (
    Club,
    Competitor,
    Match,
    Membership,
    Round,
    RoundSchedule,
    Tournament,
)
from league.selectors.bots import bot_version_report_for
from league.selectors.matches import match_error_for


def viewer_of(serializer: serializers.Serializer[Any]) -> Any:
    """The user a serializer renders for (its context's request), anonymous without one:
    private fields are then left out (league.selectors.bots.can_read_bot_private)."""
    request = serializer.context.get("request")
    return getattr(request, "user", None) or AnonymousUser()


class ErrorSerializer(serializers.Serializer[Any]):
    detail = serializers.CharField()
    errors = serializers.DictField(  # type: ignore[assignment]
        child=serializers.ListField(child=serializers.CharField()), required=False
    )


class ClubSerializer(serializers.ModelSerializer[Club]):
    member_count = serializers.IntegerField(read_only=True, default=0)

    class Meta:
        model = Club
        fields = ("id", "name", "description", "member_count", "created_at")


class MemberSerializer(serializers.ModelSerializer[Membership]):
    username = serializers.CharField(source="user.get_username", read_only=True)

    class Meta:
        model = Membership
        fields = ("id", "user", "username", "role", "created_at")


class CompetitorSerializer(serializers.ModelSerializer[Competitor]):
    kind = serializers.CharField(read_only=True)

    class Meta:
        model = Competitor
        fields = ("id", "name", "kind", "user", "bot_version", "created_at")


class BotVersionSerializer(serializers.ModelSerializer[BotVersion]):
    bot_name = serializers.CharField(source="bot.name", read_only=True)
    competitor = serializers.SerializerMethodField()
    report = serializers.SerializerMethodField()

    class Meta:
        model = BotVersion
        fields: tuple[str, ...] = (
            "id",
            "bot",
            "bot_name",
            "number",
            "kind",
            "builtin_name",
            "options",
            "filename",
            "runtime",
            "sha256",
            "size",
            "status",
            "report",
            "created_at",
            "validated_at",
            "validation_fallbacks",
            "competitor",
        )

    def get_competitor(self, version: BotVersion) -> int | None:
        competitor = getattr(version, "competitor", None)
        return competitor.pk if competitor is not None else None

    @extend_schema_field(OpenApiTypes.OBJECT)
    def get_report(self, version: BotVersion) -> dict[str, Any]:
        """The whole report for the bot's owner and staff; the outcome without the log or
        the faults' messages for everyone else."""
        return bot_version_report_for(user=viewer_of(self), version=version)


class BotSerializer(serializers.ModelSerializer[Bot]):
    owner_name = serializers.SerializerMethodField()
    families = serializers.ListField(
        child=serializers.CharField(),
        source="family_names",
        read_only=True,
        help_text="The game families it plays (engine's registry names); empty for a "
        "built-in bot (it plays every family) and for a bot stored before families were "
        "required, which plays no ladder until its owner names one.",
    )

    class Meta:
        model = Bot
        fields: tuple[str, ...] = (
            "id",
            "name",
            "families",
            "kind",
            "owner",
            "owner_name",
            "club_organisers_may_enter",
            "people_may_play_rated",
            "created_at",
        )

    def get_owner_name(self, bot: Bot) -> str | None:
        return bot.owner.get_username() if bot.owner is not None else None


class TournamentSerializer(serializers.ModelSerializer[Tournament]):
    entrant_count = serializers.IntegerField(read_only=True, default=0)
    rounds_started = serializers.IntegerField(read_only=True, default=0)

    class Meta:
        model = Tournament
        fields: tuple[str, ...] = (
            "id",
            "name",
            "club",
            "game",
            "format",
            "rounds",
            "deals",
            "move_seconds",
            "time_bank_seconds",
            "time_control",
            "status",
            "at_club",
            "totals_allowed",
            "entrant_count",
            "rounds_started",
            "created_at",
        )


class EntrantSerializer(serializers.Serializer[Any]):
    competitor = serializers.IntegerField()
    name = serializers.CharField()
    kind = serializers.CharField()


class TournamentDetailSerializer(TournamentSerializer):
    entrants = EntrantSerializer(many=True, read_only=True)
    finished = serializers.IntegerField(read_only=True)
    total = serializers.IntegerField(read_only=True)
    standing = LeagueStandingSerializer(read_only=True)

    class Meta(TournamentSerializer.Meta):
        fields = (*TournamentSerializer.Meta.fields, "entrants", "finished", "total", "standing")


class RoundSerializer(serializers.ModelSerializer[Round]):
    match_count = serializers.IntegerField(read_only=True, default=0)
    finished_count = serializers.IntegerField(read_only=True, default=0)

    class Meta:
        model = Round
        fields = (
            "id",
            "tournament",
            "number",
            "match_count",
            "finished_count",
            "created_at",
            "play_by",
        )


class MatchSeatSerializer(serializers.Serializer[Any]):
    seat = serializers.IntegerField()
    competitor = serializers.IntegerField()
    name = serializers.CharField()
    kind = serializers.CharField()
    outcome = serializers.CharField(allow_null=True)


class MatchSerializer(serializers.ModelSerializer[Match]):
    round = serializers.IntegerField(source="round.number", read_only=True)
    seats = serializers.SerializerMethodField()
    progress = serializers.SerializerMethodField()
    scores = serializers.SerializerMethodField()
    outcomes = serializers.SerializerMethodField()
    seed = serializers.SerializerMethodField()
    error = serializers.SerializerMethodField()

    class Meta:
        model = Match
        fields: tuple[str, ...] = (
            "id",
            "tournament",
            "round",
            "table",
            "game",
            "status",
            "attempts",
            "seats",
            "progress",
            "scores",
            "outcomes",
            "seed",
            "waiting_seat",
            "deadline",
            "error",
            "created_at",
            "started_at",
            "finished_at",
        )

    @staticmethod
    def _finished(match: Match) -> bool:
        return match.status == "finished" and hasattr(match, "result")

    def get_seats(self, match: Match) -> list[dict[str, Any]]:
        finished = self._finished(match)
        return list(
            MatchSeatSerializer(
                [
                    {
                        "seat": s.seat,
                        "competitor": s.competitor_id,
                        "name": s.competitor.name,
                        "kind": s.competitor.kind,
                        "outcome": s.outcome if finished else None,
                    }
                    for s in match.seats.all()
                ],
                many=True,
            ).data
        )

    def get_progress(self, match: Match) -> dict[str, int]:
        return {"deals_done": match.deals_done, "events": match.events_stored}

    def get_scores(self, match: Match) -> list[int] | None:
        return list(match.result.scores) if self._finished(match) else None

    def get_outcomes(self, match: Match) -> list[str] | None:
        return list(match.result.outcomes) if self._finished(match) else None

    def get_error(self, match: Match) -> str:
        """A worker's traceback is for staff only (league.selectors.matches.match_error_for)."""
        return match_error_for(match=match, user=viewer_of(self))

    def get_seed(self, match: Match) -> int | None:
        """The seed decides every deal: it is shown only once the match is over."""
        return match.seed if self._finished(match) else None


class RoundPointsSerializer(serializers.Serializer[Any]):
    round = serializers.IntegerField()
    points = serializers.IntegerField()


class GapSerializer(serializers.Serializer[Any]):
    difference = serializers.FloatField()
    low = serializers.FloatField(allow_null=True)
    high = serializers.FloatField(allow_null=True)
    p_value = serializers.FloatField(allow_null=True)
    significant = serializers.BooleanField()


class StandingRowSerializer(serializers.Serializer[Any]):
    rank = serializers.IntegerField(allow_null=True)
    competitor = serializers.IntegerField()
    name = serializers.CharField()
    games = serializers.IntegerField()
    total = serializers.IntegerField()
    average = serializers.FloatField()
    wins = serializers.IntegerField()
    per_round = RoundPointsSerializer(many=True)
    opposition = serializers.FloatField()
    matchpoints = serializers.IntegerField(allow_null=True)
    percentage = serializers.FloatField(allow_null=True)
    next_gap = GapSerializer(allow_null=True)


class PartnerPairSerializer(serializers.Serializer[Any]):
    players = serializers.ListField(child=serializers.IntegerField())
    names = serializers.ListField(child=serializers.CharField())
    games = serializers.IntegerField()
    points = serializers.IntegerField()
    average = serializers.FloatField()
    wins = serializers.IntegerField()


class HeadToHeadSerializer(serializers.Serializer[Any]):
    players = serializers.ListField(child=serializers.IntegerField())
    names = serializers.ListField(child=serializers.CharField())
    games = serializers.IntegerField()
    as_partners = serializers.IntegerField()
    as_opponents = serializers.IntegerField()
    difference = serializers.IntegerField()


class StandingsSerializer(serializers.Serializer[Any]):
    tournament = serializers.IntegerField()
    finished = serializers.IntegerField()
    total = serializers.IntegerField()
    mode = serializers.ChoiceField(choices=["individual", "partnership"])
    unit = serializers.ChoiceField(choices=["game", "rubber"])
    rank_by = serializers.ChoiceField(choices=["average", "total", "percentage"])
    min_games = serializers.IntegerField()
    confidence = serializers.FloatField()
    results = serializers.IntegerField()
    rows = StandingRowSerializer(many=True)
    partner_pairs = PartnerPairSerializer(many=True)
    head_to_head = HeadToHeadSerializer(many=True)


class RatingRowSerializer(serializers.Serializer[Any]):
    rank = serializers.IntegerField()
    competitor = serializers.IntegerField()
    name = serializers.CharField()
    kind = serializers.CharField()
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    conservative = serializers.FloatField()
    games = serializers.IntegerField()


class RatingListRowSerializer(RatingRowSerializer):
    confidence = serializers.FloatField(
        allow_null=True,
        help_text="How sure it is that this position is above the next (0.5 to 1); null for "
        "the last.",
    )


class RatingPointSerializer(serializers.Serializer[Any]):
    competitor = serializers.IntegerField()
    match = serializers.IntegerField()
    round = serializers.IntegerField()
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    conservative = serializers.FloatField()


class MarginRowSerializer(serializers.Serializer[Any]):
    rank = serializers.IntegerField()
    competitor = serializers.IntegerField()
    name = serializers.CharField()
    value = serializers.FloatField()
    standard_error = serializers.FloatField()
    low = serializers.FloatField()
    high = serializers.FloatField()
    games = serializers.IntegerField()


class MarginRatingsSerializer(serializers.Serializer[Any]):
    ridge = serializers.FloatField()
    residual_sd = serializers.FloatField()
    games = serializers.IntegerField()
    rows = MarginRowSerializer(many=True)


class TournamentRatingsSerializer(serializers.Serializer[Any]):
    tournament = serializers.IntegerField()
    family = serializers.CharField()
    pending = serializers.IntegerField()
    ratings = RatingRowSerializer(many=True)
    history = RatingPointSerializer(many=True)
    margin = MarginRatingsSerializer(allow_null=True)


class CompetitorRatingSerializer(serializers.Serializer[Any]):
    family = serializers.CharField()
    tournament = serializers.IntegerField(allow_null=True)
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    conservative = serializers.FloatField()
    games = serializers.IntegerField()


class RatingChangeSerializer(serializers.Serializer[Any]):
    match = serializers.IntegerField()
    tournament = serializers.IntegerField()
    round = serializers.IntegerField()
    family = serializers.CharField()
    mu_before = serializers.FloatField()
    sigma_before = serializers.FloatField()
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    conservative = serializers.FloatField()
    rated_at = serializers.DateTimeField()


class CompetitorRatingsSerializer(serializers.Serializer[Any]):
    competitor = serializers.IntegerField()
    name = serializers.CharField()
    kind = serializers.CharField()
    ratings = CompetitorRatingSerializer(many=True)
    history = RatingChangeSerializer(many=True)


class RoundScheduleSerializer(serializers.ModelSerializer[RoundSchedule]):
    enabled = serializers.BooleanField(source="periodic_task.enabled", read_only=True)
    last_run_at = serializers.DateTimeField(
        source="periodic_task.last_run_at", read_only=True, allow_null=True
    )

    class Meta:
        model = RoundSchedule
        fields = (
            "tournament",
            "cron",
            "interval_minutes",
            "time_zone",
            "enabled",
            "last_run_at",
            "created_at",
        )


class TableSeatSerializer(serializers.Serializer[Any]):
    seat = serializers.IntegerField()
    name = serializers.CharField()
    kind = serializers.ChoiceField(choices=["person", "bot", "empty"])
    invitee = serializers.CharField(allow_null=True)
    you = serializers.BooleanField()
    replaced = serializers.BooleanField()


class MissingSeatSerializer(serializers.Serializer[Any]):
    seat = serializers.IntegerField()
    invitee = serializers.CharField(allow_null=True)


class LabelledActionSerializer(serializers.Serializer[Any]):
    action = serializers.CharField()
    label = serializers.CharField()  # type: ignore[assignment]
    explanation = serializers.CharField(allow_blank=True)


class MovedForYouSerializer(LabelledActionSerializer):
    deal = serializers.IntegerField(allow_null=True)
    decision = serializers.IntegerField(allow_null=True)
    strike = serializers.IntegerField()
    strikes_allowed = serializers.IntegerField()
    forfeit = serializers.BooleanField(
        help_text="The last strike: a bot plays the seat from then on."
    )
    text = serializers.CharField()


class SeatViewSerializer(serializers.Serializer[Any]):
    """What the person at a seat sees (league.selectors.tables.seat_view; docs/api.md)."""

    match = serializers.IntegerField()
    seat = serializers.IntegerField()
    status = serializers.CharField()
    phase = serializers.ChoiceField(
        choices=[
            "waiting_for_players",
            "your_move",
            "player_to_move",
            "bots_to_move",
            "finished",
            "error",
        ]
    )
    view = serializers.DictField(allow_null=True)
    position = serializers.IntegerField()
    to_act = serializers.IntegerField(allow_null=True)
    your_turn = serializers.BooleanField()
    deadline = serializers.DateTimeField(allow_null=True)
    to_act_deadline = serializers.DateTimeField(allow_null=True)
    actions = LabelledActionSerializer(many=True)
    seats = TableSeatSerializer(many=True)
    missing = MissingSeatSerializer(many=True)
    moved_for_you = MovedForYouSerializer(many=True)
    replaced = serializers.BooleanField()
    error = serializers.CharField(allow_blank=True)


class AnalysisCardSerializer(serializers.Serializer[Any]):
    """What one played card cost (engine/analysis.py; docs/engine.md, "Analysis")."""

    deal = serializers.IntegerField()
    event = serializers.IntegerField()
    seat = serializers.IntegerField()
    player = serializers.IntegerField(help_text="The seat that chose the card (a dummy's partner).")
    card = serializers.CharField()
    trick = serializers.IntegerField()
    analysed = serializers.BooleanField()
    reason = serializers.CharField(allow_blank=True, help_text="Why it was not analysed.")
    forced = serializers.BooleanField()
    stake = serializers.IntegerField()
    best = serializers.ListField(child=serializers.CharField())
    cost = serializers.IntegerField(allow_null=True)
    view_best = serializers.ListField(child=serializers.CharField())
    view_cost = serializers.FloatField(allow_null=True)
    samples = serializers.IntegerField()
    mark = serializers.ChoiceField(choices=["", "inaccuracy", "mistake", "blunder"])


class AnalysisSeatSerializer(serializers.Serializer[Any]):
    """A seat's accuracy over the match, as the player of the cards it chose."""

    seat = serializers.IntegerField()
    cards = serializers.IntegerField()
    analysed = serializers.IntegerField()
    not_analysed = serializers.IntegerField()
    forced = serializers.IntegerField()
    inaccuracies = serializers.IntegerField()
    mistakes = serializers.IntegerField()
    blunders = serializers.IntegerField()
    mean_cost = serializers.FloatField(allow_null=True)
    mean_view_cost = serializers.FloatField(allow_null=True)
    accuracy = serializers.FloatField(allow_null=True)


class AnalysisDealSerializer(serializers.Serializer[Any]):
    deal = serializers.IntegerField()
    not_analysed = serializers.IntegerField()
    losses = serializers.DictField(
        child=serializers.DictField(child=serializers.FloatField()),
        help_text="Per player seat, per trick: the points its cards lost (view_cost).",
    )


class AnalysisSerializer(serializers.Serializer[Any]):
    """A match's analysis (league.selectors.matches.match_analysis_for; docs/api.md)."""

    match = serializers.IntegerField()
    status = serializers.ChoiceField(choices=["queued", "running", "done", "failed"])
    requested_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    settings = serializers.DictField()
    analysed = serializers.IntegerField()
    not_analysed = serializers.IntegerField()
    error = serializers.CharField(allow_blank=True)
    summary = AnalysisSeatSerializer(many=True)
    deals = AnalysisDealSerializer(many=True)
    cards = AnalysisCardSerializer(many=True)


class ChatMessageSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    match = serializers.IntegerField()
    seat = serializers.IntegerField()
    author = serializers.CharField()
    text = serializers.CharField()
    created_at = serializers.DateTimeField()


class ChatSerializer(serializers.Serializer[Any]):
    messages = ChatMessageSerializer(many=True)
    can_write = serializers.BooleanField()
    max_chars = serializers.IntegerField()


class SeatPresenceSerializer(serializers.Serializer[Any]):
    seat = serializers.IntegerField()
    name = serializers.CharField()
    connected = serializers.BooleanField(help_text="A table page of the person is open.")
    away_seconds = serializers.IntegerField(help_text="Seconds since they were last seen.")
    bot_for_absent = serializers.BooleanField(
        help_text="The others seated a bot for them; they take the seat again at the next deal."
    )
    vote_open = serializers.BooleanField(help_text="The others may vote to seat a bot now.")
    votes = serializers.IntegerField()
    votes_needed = serializers.IntegerField()


class TablePresenceSerializer(serializers.Serializer[Any]):
    type = serializers.CharField()
    match = serializers.IntegerField()
    vote_after_seconds = serializers.FloatField()
    seats = SeatPresenceSerializer(many=True)


class SpectatorViewSerializer(serializers.Serializer[Any]):
    view = serializers.DictField()
