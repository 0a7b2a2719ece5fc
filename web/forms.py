"""Forms of the web pages. They check what a person typed; the services decide the rest."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.functional import lazy
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from bots.bundle import MAX_BOT_BYTES, MAX_BOT_SIZE, bot_too_large_message
from bots.runtimes import RUNTIME_NAMES
from bots.seats import builtin_names
from engine.variants import FAMILIES, load_game
from league.models import LEAGUE_FORMATS
from league.words.bot_families import families_missing


def game_choices() -> list[tuple[str, str]]:
    """Every registered family's example games, each by its name for people (the games
    describe themselves: engine.game.Game.examples and display_name)."""
    return [
        (game, str(_(load_game(game).display_name)))
        for family in FAMILIES.values()
        for game in family.example_games()
    ]


def family_choices() -> list[tuple[str, str]]:
    """Every registered family by its name for people."""
    return [(name, str(_(family.title or name))) for name, family in FAMILIES.items()]


def first_game() -> str:
    """The game a form offers first: the first registered family's."""
    return next(iter(FAMILIES))


FORMAT_LABELS = {
    "round_robin": _("Round robin"),
    "rotating_partners": _("Rotating partners"),
    "swiss": _("Swiss"),
    "duplicate": _("Duplicate"),
}
BOT_LABELS = {
    "greedy": _("greedy (rules of thumb)"),
    "random": _("random (any legal card)"),
    "strong": _("strong (searches sampled deals; slow)"),
    "solver": _("solver (solves sampled deals double dummy; slow)"),
}


def builtin_choices() -> list[tuple[str, str]]:
    return [(name, str(BOT_LABELS.get(name, name))) for name in builtin_names()]


class ClubForm(forms.Form):
    name = forms.CharField(max_length=100, label=_("Name"))
    description = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}), required=False, label=_("Description")
    )


class InvitationCreateForm(forms.Form):
    role = forms.ChoiceField(
        choices=[("player", _("player")), ("organiser", _("organiser"))],
        initial="player",
        label=_("Role"),
    )
    username = forms.CharField(
        max_length=150,
        required=False,
        label=_("For (username)"),
        help_text=_(
            "Optional: a personal invitation that only this person can accept; "
            "they find it under Join a club. Leave empty for a code to hand on."
        ),
    )


class BotConsentForm(forms.Form):
    club_organisers_may_enter = forms.BooleanField(
        required=False,
        label=_("Organisers of my clubs may enter this bot in their clubs' leagues"),
    )


class BotRatedGamesForm(forms.Form):
    people_may_play_rated = forms.BooleanField(
        required=False,
        label=_("People may ask for rated games against this bot's versions on the ladders"),
    )


class TournamentForm(forms.Form):
    name = forms.CharField(max_length=120, initial=_("Club league"), label=_("Name"))
    game = forms.ChoiceField(choices=game_choices, initial=first_game, label=_("Game"))
    format = forms.ChoiceField(
        choices=[(f, FORMAT_LABELS.get(f, f)) for f in LEAGUE_FORMATS],
        initial="round_robin",
        label=_("Format"),
    )
    rounds = forms.IntegerField(min_value=1, max_value=100, initial=3, label=_("Rounds"))
    deals = forms.IntegerField(
        min_value=1,
        max_value=1000,
        required=False,
        label=_("Deals"),
        help_text=_(
            "Deals (or rubbers) per match where the game has a length; "
            "leave empty for a whole game."
        ),
    )
    time_control = forms.ChoiceField(
        choices=[
            ("correspondence", _("Correspondence: hours or days per move, people come and go")),
            ("live", _("Live: seconds per move, everyone at the table at once")),
        ],
        initial="correspondence",
        required=False,
        label=_("Time control"),
        widget=forms.RadioSelect,
        help_text=_("Not chosen: live if seconds per move are given, correspondence otherwise."),
    )
    move_hours = forms.FloatField(
        min_value=1,
        max_value=336,
        initial=24,
        required=False,
        label=_("Hours per move (correspondence)"),
        help_text=_(
            "From 1 hour to two weeks (336 hours). Each player is told when a game "
            "awaits their move and before the deadline."
        ),
    )
    move_seconds = forms.FloatField(
        min_value=1,
        max_value=3600,
        initial=30,
        required=False,
        label=_("Seconds per move (live)"),
    )
    at_club = forms.BooleanField(
        required=False,
        label=_("Played at the club, with real cards"),
        help_text=_(
            "Each table gets a printed card with a code; the scores are entered at the "
            "table from a phone. No move is played online."
        ),
    )
    totals_allowed = forms.BooleanField(
        required=False,
        label=_("At the club: tables may enter game totals instead of every deal"),
    )

    def clean(self) -> dict[str, Any] | None:
        """``move_seconds`` becomes the move time of the chosen time control (none chosen:
        live when seconds per move are given, correspondence otherwise)."""
        data = super().clean() or {}
        if not data.get("time_control"):
            live = data.get("move_seconds") is not None and not data.get("move_hours")
            data["time_control"] = "live" if live else "correspondence"
        if data.get("time_control") == "correspondence":
            hours = data.get("move_hours")
            if hours is None and "move_hours" not in self.errors:
                self.add_error("move_hours", _("Give the hours per move."))
            elif hours is not None:
                data["move_seconds"] = hours * 3600
        elif data.get("move_seconds") is None and "move_seconds" not in self.errors:
            self.add_error("move_seconds", _("Give the seconds per move."))
        return data


class BuiltinEntryForm(forms.Form):
    bot = forms.ChoiceField(choices=builtin_choices, label=_("Built-in bot"))
    count = forms.IntegerField(min_value=1, max_value=32, initial=4, label=_("How many"))


class CompetitorEntryForm(forms.Form):
    """One competitor: ``me`` or ``version:ID`` (nobody enters another person)."""

    competitor = forms.ChoiceField(label=_("Competitor"))

    def __init__(self, *args: object, choices: list[tuple[str, str]], **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        field = self.fields["competitor"]
        assert isinstance(field, forms.ChoiceField)
        field.choices = choices


class PlayByForm(forms.Form):
    """A round's play-by date, in UTC; empty clears it."""

    play_by = forms.DateTimeField(
        required=False,
        input_formats=["%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M"],
        label=_("Play by (UTC)"),
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
        help_text=_("No player's deadline in this round falls after it."),
    )


class TableForm(forms.Form):
    game = forms.ChoiceField(choices=game_choices, initial=first_game, label=_("Game"))
    opponents = forms.ChoiceField(
        choices=builtin_choices, initial="greedy", label=_("The other seats are played by")
    )


def families_field(**kwargs: Any) -> forms.MultipleChoiceField:
    """The game families a bot plays: one or more (none is refused, naming what to add)."""
    return forms.MultipleChoiceField(
        label=_("Game families it plays"),
        choices=family_choices,
        widget=forms.CheckboxSelectMultiple,
        error_messages={"required": lazy(families_missing, str)()},
        help_text=_(
            "One or more: its versions play the ladders of these families, and its "
            "validation game is played in the first."
        ),
        **kwargs,
    )


class BotForm(forms.Form):
    name = forms.CharField(max_length=80, label=_("Name"))
    families = families_field()


class BotFamiliesForm(forms.Form):
    """A bot's families changed (its page), or named in one click (a bot of none)."""

    families = families_field()


class BotUploadForm(forms.Form):
    file = forms.FileField(
        label=_("Bot file"),
        help_text=format_lazy(
            "{} (docs/bot-protocol.md).",
            lazy(
                lambda: (
                    _(
                        "One .py, .js or .jar file or a Linux executable, or a .zip with its"
                        " entry file (main.py, main, main.js, bot.jar); at most %(size)s"
                    )
                    % {"size": MAX_BOT_SIZE}
                ),
                str,
            )(),
        ),
        error_messages={
            "required": _("Choose a file to upload: one .py file or a .zip with main.py."),
            "empty": _("The file is empty."),
        },
    )

    runtime = forms.ChoiceField(
        label=_("Runtime"),
        required=False,
        choices=[("", _("Recognise from the files")), *((name, name) for name in RUNTIME_NAMES)],
        help_text=_("python, python-numpy, native (an x86-64 executable), node or java."),
    )

    def clean_file(self) -> Any:
        """The one size limit (bots.bundle), checked before the file is read."""
        upload = self.cleaned_data["file"]
        if upload.size > MAX_BOT_BYTES:
            raise forms.ValidationError(
                bot_too_large_message(upload.name or "the file", upload.size)
            )
        return upload


class PrivateReplayUploadForm(forms.Form):
    """A game record to keep as one's own private replay (league.services.private_replays
    checks the record itself)."""

    file = forms.FileField(
        label=_("Game record"),
        help_text=_(
            "A record as python -m bots match … --record FILE writes it (JSON); only you"
            " will see the replay."
        ),
        error_messages={
            "required": _("Choose the record's file to upload."),
            "empty": _("The file is empty."),
        },
    )
    title = forms.CharField(
        label=_("Title"),
        required=False,
        max_length=200,
        help_text=_("Left empty: the game and its players."),
    )
