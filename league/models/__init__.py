"""The league's rows, a module an area (clubs, accounts, tournaments, matches, results,
standings, ratings, notifications, club nights, ladders, processes), each model with the
constraints that make impossible states unstorable (docs/league.md); read them from here:
``from league.models import Match``."""

from league.models.accounts import (
    AccountSettings,
    ApiToken,
    ApiTokenScope,
    Competitor,
    PersonDisplaySettings,
    ProfileVisibility,
    SignedInSession,
)
from league.models.club_nights import RoundAttendance, ScoreCorrection, TableSheet, TableSheetStatus
from league.models.clubs import ROLE_VALUES, Club, Invitation, Membership, Role
from league.models.ladders import Ladder, LadderEntrant, LadderEntrantStatus
from league.models.matches import (
    PERSON_MAX_STRIKES,
    SEAT_OUTCOME_CHOICES,
    ChatMessage,
    Match,
    MatchEvent,
    MatchSeat,
    MatchStatus,
    SeatInvitation,
    SeatLog,
    SeatOutcome,
)
from league.models.notifications import (
    EmailMode,
    Notification,
    NotificationKind,
    NotificationPreference,
)
from league.models.presence import AbsenceVote, SeatConnection
from league.models.processes import Heartbeat, OutboxTask, ProcessTick
from league.models.ratings import RatedMatch, Rating, RatingChange, RatingQueueEntry
from league.models.replays import PrivateReplay
from league.models.results import AnalysisStatus, MatchAnalysis, MatchResult
from league.models.standings import StandingsPart, StandingsSnapshot
from league.models.tournaments import (
    CLUBLESS_FORMATS,
    CORRESPONDENCE_MIN_SECONDS,
    LEAGUE_FORMATS,
    Entry,
    Round,
    RoundSchedule,
    TimeControl,
    Tournament,
    TournamentFormat,
    TournamentStatus,
)

__all__ = ["Heartbeat", "OutboxTask", "ProcessTick"]
__all__ += ["ROLE_VALUES", "Club", "Invitation", "Membership", "Role"]
__all__ += ["Competitor", "PersonDisplaySettings"]
__all__ += ["AccountSettings", "ApiToken", "ApiTokenScope", "ProfileVisibility", "SignedInSession"]
__all__ += ["CLUBLESS_FORMATS", "CORRESPONDENCE_MIN_SECONDS", "LEAGUE_FORMATS", "Entry", "Round"]
__all__ += ["RoundSchedule", "TimeControl", "Tournament", "TournamentFormat", "TournamentStatus"]
__all__ += ["PERSON_MAX_STRIKES", "SEAT_OUTCOME_CHOICES", "ChatMessage", "Match", "MatchEvent"]
__all__ += ["MatchSeat", "MatchStatus", "SeatInvitation", "SeatLog", "SeatOutcome"]
__all__ += ["AnalysisStatus", "MatchAnalysis", "MatchResult"]
__all__ += ["StandingsPart", "StandingsSnapshot"]
__all__ += ["RatedMatch", "Rating", "RatingChange", "RatingQueueEntry"]
__all__ += ["EmailMode", "Notification", "NotificationKind", "NotificationPreference"]
__all__ += ["RoundAttendance", "ScoreCorrection", "TableSheet", "TableSheetStatus"]
__all__ += ["Ladder", "LadderEntrant", "LadderEntrantStatus"]
__all__ += ["PrivateReplay"]
__all__ += ["AbsenceVote", "SeatConnection"]
