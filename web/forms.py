"""Forms of the web pages. They check what a person typed; the services decide the rest."""

from __future__ import annotations

from typing import Any

from django import forms

from bots.bundle import MAX_BOT_BYTES, MAX_BOT_SIZE, bot_too_large_message
from bots.seats import builtin_names
from engine.variants import FAMILIES, load_game
from league.models import LEAGUE_FORMATS


def game_choices() -> list[tuple[str, str]]:
    """Every registered family's example games, each by its name for people (the games
    describe themselves: engine.game.Game.examples and display_name)."""
    return [
        (game, load_game(game).display_name)
        for family in FAMILIES.values()
        for game in family.example_games()
    ]


def family_choices() -> list[tuple[str, str]]:
    """Every registered family by its name for people."""
    return [(name, family.title or name) for name, family in FAMILIES.items()]


def first_game() -> str:
    """The game a form offers first: the first registered family's."""
    return next(iter(FAMILIES))


FORMAT_LABELS = {
    "round_robin": "Round robin",
    "rotating_partners": "Rotating partners",
    "swiss": "Swiss",
    "duplicate": "Duplicate",
}
BOT_LABELS = {
    "greedy": "greedy (rules of thumb)",
    "random": "random (any legal card)",
    "strong": "strong (searches sampled deals; slow)",
    "solver": "solver (solves sampled deals double dummy; slow)",
}


def builtin_choices() -> list[tuple[str, str]]:
    return [(name, BOT_LABELS.get(name, name)) for name in builtin_names()]


class ClubForm(forms.Form):
    name = forms.CharField(max_length=100)
    description = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), required=False)


class InvitationCreateForm(forms.Form):
    role = forms.ChoiceField(
        choices=[("player", "player"), ("organiser", "organiser")], initial="player"
    )
    username = forms.CharField(
        max_length=150,
        required=False,
        label="For (username)",
        help_text="Optional: a personal invitation that only this person can accept; "
        "they find it under Join a club. Leave empty for a code to hand on.",
    )


class BotConsentForm(forms.Form):
    club_organisers_may_enter = forms.BooleanField(
        required=False,
        label="Organisers of my clubs may enter this bot in their clubs' leagues",
    )


class TournamentForm(forms.Form):
    name = forms.CharField(max_length=120, initial="Club league")
    game = forms.ChoiceField(choices=game_choices, initial=first_game)
    format = forms.ChoiceField(
        choices=[(f, FORMAT_LABELS.get(f, f)) for f in LEAGUE_FORMATS], initial="round_robin"
    )
    rounds = forms.IntegerField(min_value=1, max_value=100, initial=3)
    deals = forms.IntegerField(
        min_value=1,
        max_value=1000,
        required=False,
        help_text="Deals (or rubbers) per match where the game has a length; "
        "leave empty for a whole game.",
    )
    time_control = forms.ChoiceField(
        choices=[
            ("correspondence", "Correspondence: hours or days per move, people come and go"),
            ("live", "Live: seconds per move, everyone at the table at once"),
        ],
        initial="correspondence",
        required=False,
        label="Time control",
        widget=forms.RadioSelect,
        help_text="Not chosen: live if seconds per move are given, correspondence otherwise.",
    )
    move_hours = forms.FloatField(
        min_value=1,
        max_value=336,
        initial=24,
        required=False,
        label="Hours per move (correspondence)",
        help_text="From 1 hour to two weeks (336 hours). Each player is told when a game "
        "awaits their move and before the deadline.",
    )
    move_seconds = forms.FloatField(
        min_value=1,
        max_value=3600,
        initial=30,
        required=False,
        label="Seconds per move (live)",
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
                self.add_error("move_hours", "Give the hours per move.")
            elif hours is not None:
                data["move_seconds"] = hours * 3600
        elif data.get("move_seconds") is None and "move_seconds" not in self.errors:
            self.add_error("move_seconds", "Give the seconds per move.")
        return data


class BuiltinEntryForm(forms.Form):
    bot = forms.ChoiceField(choices=builtin_choices, label="Built-in bot")
    count = forms.IntegerField(min_value=1, max_value=32, initial=4, label="How many")


class CompetitorEntryForm(forms.Form):
    """One competitor: ``me`` or ``version:ID`` (nobody enters another person)."""

    competitor = forms.ChoiceField(label="Competitor")

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
        label="Play by (UTC)",
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
        help_text="No player's deadline in this round falls after it.",
    )


class TableForm(forms.Form):
    game = forms.ChoiceField(choices=game_choices, initial=first_game)
    opponents = forms.ChoiceField(
        choices=builtin_choices, initial="greedy", label="The other seats are played by"
    )


class BotForm(forms.Form):
    name = forms.CharField(max_length=80)
    family = forms.ChoiceField(
        choices=lambda: [("", "any family"), *family_choices()],
        required=False,
        help_text="The game its validation game is played in.",
    )


class BotUploadForm(forms.Form):
    file = forms.FileField(
        label="Bot file",
        help_text=f"One .py file, or a .zip with main.py; at most {MAX_BOT_SIZE}"
        " (docs/bot-protocol.md).",
        error_messages={
            "required": "Choose a file to upload: one .py file or a .zip with main.py.",
            "empty": "The file is empty.",
        },
    )

    def clean_file(self) -> Any:
        """The one size limit (bots.bundle), checked before the file is read."""
        upload = self.cleaned_data["file"]
        if upload.size > MAX_BOT_BYTES:
            raise forms.ValidationError(
                bot_too_large_message(upload.name or "the file", upload.size)
            )
        return upload
