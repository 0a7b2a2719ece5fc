"""The forms of tables: the new table (its game and rule options in plain words, its time
control, its club and each player's seat) and the host's changes of a seat.

The game is chosen among the families' example games by their names for people (the
engine's ``display_name``), with the length and every rule option the family declares
(engine/options.py) labelled by its description: a blank option keeps what the chosen
rules say. The form builds the game string from them; the engine checks it.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from engine.errors import InvalidGameError
from engine.options import OptionSpec, format_game_string, parse_game_string
from engine.variants import FAMILIES, load_game
from web.forms import builtin_choices, first_game, game_choices

MAX_PLAYERS = 5
"""Seat rows on the form: the most players any game seats (Kingen for five)."""
SEAT_KINDS = [
    ("me", _("Me")),
    ("open", _("Open: anyone may take it")),
    ("invite", _("Kept for a person I name")),
    ("bot", _("A bot")),
]
AS_THE_RULES_SAY = _("as the rules say")
HOUR = 3600
DAY = 86400
LIVE_MOVE_SECONDS = 120


def option_field_name(family: str, option: str) -> str:
    return f"option_{family}_{option}"


def _words(value: str) -> str:
    return value.replace("_", " ")


def _option_field(spec: OptionSpec) -> forms.Field:
    """A rule option as a form field labelled by its description; blank: the rules'."""
    label = _(spec.doc)  # the engine's words, in web/engine_messages.py for the catalogue
    if spec.kind == "bool":
        return forms.ChoiceField(
            label=label,
            required=False,
            choices=[("", AS_THE_RULES_SAY), ("true", _("yes")), ("false", _("no"))],
        )
    if spec.kind == "choice":
        return forms.ChoiceField(
            label=label,
            required=False,
            choices=[("", AS_THE_RULES_SAY), *[(c, _(_words(c))) for c in spec.choices]],
        )
    if spec.kind == "int":
        return forms.IntegerField(
            label=label, required=False, min_value=spec.minimum, max_value=spec.maximum
        )
    example = spec.format(spec.default) if spec.default else ""
    return forms.CharField(
        label=label,
        required=False,
        max_length=200,
        help_text=_("For example %(words)s") % {"words": _words(example)} if example else "",
    )


def family_options() -> list[tuple[str, str, list[tuple[str, OptionSpec]]]]:
    """(family, its name for people, its rule options but the length) for the form."""
    found = []
    for name, family in FAMILIES.items():
        length = family.length_option
        specs = [
            (option, spec)
            for option, spec in family.rules_class.option_specs().items()
            if option != length
        ]
        found.append((name, family.title or name, specs))
    return found


def _length_help() -> str:
    parts = []
    for game, _name in game_choices():
        loaded = load_game(game)
        if loaded.length_option is not None and loaded.match_length is not None:
            parts.append(f"{loaded.title or loaded.family}: {loaded.match_unit.plural}")
    described = "; ".join(dict.fromkeys(parts))
    return _("Where the game has a length (%(described)s); empty: the usual length.") % {
        "described": described
    }


def _bot_choices(own_bots: list[tuple[str, str]]) -> list[tuple[str, str]]:
    builtin = [
        (f"builtin:{name}", _("Built-in: %(label)s") % {"label": label})
        for name, label in builtin_choices()
    ]
    return builtin + [(value, _("Mine: %(label)s") % {"label": label}) for value, label in own_bots]


class TableOpenForm(forms.Form):
    """A new table. ``clubs``: the person's clubs (a table there is listed in that club's
    lobby); ``own_bots``: their active bots as ``(version:ID, label)``."""

    game = forms.ChoiceField(choices=game_choices, initial=first_game, label=_("Game"))
    length = forms.IntegerField(
        required=False, min_value=1, max_value=1000, label=_("Length of the game")
    )
    time_control = forms.ChoiceField(
        choices=[
            ("live", _("Live: everyone at the table now")),
            (
                "correspondence",
                _("Correspondence: come back to move, hours or days each"),
            ),
        ],
        initial="live",
        widget=forms.RadioSelect,
        label=_("How you play"),
    )
    move_seconds = forms.IntegerField(
        required=False,
        min_value=5,
        max_value=3600,
        initial=LIVE_MOVE_SECONDS,
        label=_("Seconds per move (live)"),
    )
    time_bank_seconds = forms.IntegerField(
        required=False,
        min_value=0,
        max_value=3600,
        initial=0,
        label=_("Time bank in seconds (live)"),
        help_text=_("Extra time to draw on when a move takes longer."),
    )
    correspondence_amount = forms.IntegerField(
        required=False,
        min_value=1,
        max_value=336,
        initial=1,
        label=_("Time per move (correspondence)"),
        help_text=_("At least an hour, at most two weeks."),
    )
    correspondence_unit = forms.ChoiceField(
        choices=[("days", _("days")), ("hours", _("hours"))],
        initial="days",
        required=False,
        label=_("Unit"),
    )
    club = forms.ChoiceField(required=False, label=_("Club"))

    def __init__(
        self,
        *args: Any,
        clubs: list[tuple[int, str]],
        own_bots: list[tuple[str, str]],
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.fields["length"].help_text = _length_help()
        club = self.fields["club"]
        assert isinstance(club, forms.ChoiceField)
        club.choices = [("", _("No club: the site's lobby")), *[(str(i), n) for i, n in clubs]]
        club.help_text = (
            "A club's table is listed in its lobby only; its open seats are for members."
        )
        bots = _bot_choices(own_bots)
        for row in range(MAX_PLAYERS):
            self.fields[f"seat_{row}"] = forms.ChoiceField(  # a hidden row sends nothing
                choices=SEAT_KINDS,
                required=False,
                initial="me" if row == 0 else "bot",
                label=_("Player %(row_1)s") % {"row_1": row + 1},
            )
            self.fields[f"seat_{row}_username"] = forms.CharField(
                required=False,
                max_length=150,
                label=_("Player %(row_1)s: username") % {"row_1": row + 1},
            )
            self.fields[f"seat_{row}_bot"] = forms.ChoiceField(
                choices=bots,
                initial="builtin:greedy",
                required=False,
                label=_("Player %(row_1)s: bot") % {"row_1": row + 1},
            )
        self.option_groups = []
        for family, title, specs in family_options():
            names = []
            for option, spec in specs:
                name = option_field_name(family, option)
                self.fields[name] = _option_field(spec)
                names.append(name)
            self.option_groups.append((family, title, names))

    # ------------------------------------------------------------ read by the template

    def seat_rows(self) -> list[tuple[forms.BoundField, forms.BoundField, forms.BoundField]]:
        return [
            (self[f"seat_{r}"], self[f"seat_{r}_username"], self[f"seat_{r}_bot"])
            for r in range(MAX_PLAYERS)
        ]

    def option_fieldsets(self) -> list[tuple[str, str, list[forms.BoundField]]]:
        return [(f, title, [self[n] for n in names]) for f, title, names in self.option_groups]

    def players_of_games(self) -> dict[str, int]:
        """How many players each game of the list seats (the page's script shows that
        many seat rows)."""
        return {game: len(load_game(game).player_seats) for game, _name in game_choices()}

    # ------------------------------------------------------------ what it makes

    def game_string(self) -> str:
        """The game with its length and options, checked by the engine; a form error
        naming the problem otherwise (raised as ValidationError by ``clean``)."""
        family, options = parse_game_string(self.cleaned_data["game"])
        loaded_family = FAMILIES[family]
        for option in loaded_family.rules_class.option_specs():
            value = self.cleaned_data.get(option_field_name(family, option))
            if value not in (None, ""):
                options[option] = str(value).strip().replace(" ", "_")
        length = self.cleaned_data.get("length")
        if length is not None:
            if loaded_family.length_option is None:
                raise forms.ValidationError(
                    {"length": f"{loaded_family.title or family} is always one whole game"}
                )
            options[loaded_family.length_option] = str(length)
        game = format_game_string(family, options)
        try:
            return str(load_game(game))
        except InvalidGameError as exc:
            raise forms.ValidationError(
                _("The rules do not fit together: %(exc)s") % {"exc": exc}
            ) from None

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if "game" in cleaned and not self.errors:
            cleaned["game_string"] = self.game_string()
            players = len(load_game(cleaned["game_string"]).player_seats)
            for row in range(players):
                kind = cleaned.get(f"seat_{row}")
                if not kind:
                    self.add_error(f"seat_{row}", _("Choose who sits here."))
                if kind == "invite" and not cleaned.get(f"seat_{row}_username", "").strip():
                    self.add_error(f"seat_{row}_username", _("Name the person to keep it for."))
                if kind == "bot" and not cleaned.get(f"seat_{row}_bot"):
                    self.add_error(f"seat_{row}_bot", _("Choose the bot."))
        return cleaned

    def seat_specs(self) -> list[str]:
        """The seats as league.services.tables reads them, one per player's row (a
        dummy's seat, where the game has one, is the filler bot's)."""
        game = load_game(self.cleaned_data["game_string"])
        rows = iter(range(MAX_PLAYERS))
        specs = []
        for seat in range(game.num_seats):
            if seat == game.dummy_seat:
                specs.append("builtin:greedy")
                continue
            row = next(rows)
            kind = self.cleaned_data[f"seat_{row}"]
            if kind == "invite":
                specs.append(f"invite:{self.cleaned_data[f'seat_{row}_username'].strip()}")
            elif kind == "bot":
                specs.append(self.cleaned_data[f"seat_{row}_bot"])
            else:
                specs.append(kind)
        return specs

    def time_control_chosen(self) -> tuple[str, float, float]:
        """(time control, seconds per move, time bank) as chosen."""
        data = self.cleaned_data
        if data["time_control"] == "correspondence":
            unit = HOUR if data.get("correspondence_unit") == "hours" else DAY
            amount = data.get("correspondence_amount") or 1
            return "correspondence", float(amount * unit), 0.0
        move = data.get("move_seconds")
        bank = data.get("time_bank_seconds")
        return "live", float(move or LIVE_MOVE_SECONDS), float(bank or 0)


def game_initial(game: str) -> dict[str, Any]:
    """The form's game fields for a table of ``game`` (a canonical game string): the most
    specific example game whose options it has, then its length and each other option in
    its field; the inverse of ``TableOpenForm.game_string``."""
    family, options = parse_game_string(game)
    loaded_family = FAMILIES[family]
    examples = [
        (example, parse_game_string(example)[1])
        for example in loaded_family.example_games()
        if parse_game_string(example)[0] == family
    ]
    fitting = [
        (example, example_options)
        for example, example_options in examples
        if all(options.get(option) == value for option, value in example_options.items())
    ]
    example, example_options = max(fitting, key=lambda found: len(found[1]), default=(family, {}))
    initial: dict[str, Any] = {"game": example}
    specs = loaded_family.rules_class.option_specs()
    for option, value in options.items():
        if option in example_options:
            continue
        if option == loaded_family.length_option:
            initial["length"] = value
        elif option in specs:
            kind = specs[option].kind
            initial[option_field_name(family, option)] = (
                value if kind in ("bool", "choice", "int") else _words(value)
            )
    return initial


def time_control_initial(
    *, time_control: str, move_seconds: float, time_bank_seconds: float
) -> dict[str, Any]:
    """The form's time fields as a table was played: the inverse of
    ``TableOpenForm.time_control_chosen``."""
    if time_control == "correspondence":
        days = move_seconds >= DAY and move_seconds % DAY == 0
        return {
            "time_control": "correspondence",
            "correspondence_amount": int(move_seconds // (DAY if days else HOUR)),
            "correspondence_unit": "days" if days else "hours",
        }
    return {
        "time_control": "live",
        "move_seconds": int(move_seconds),
        "time_bank_seconds": int(time_bank_seconds),
    }


class SeatBotForm(forms.Form):
    bot = forms.ChoiceField(label=_("Bot"))

    def __init__(self, *args: Any, own_bots: list[tuple[str, str]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["bot"]
        assert isinstance(field, forms.ChoiceField)
        field.choices = _bot_choices(own_bots)


class SeatInviteForm(forms.Form):
    username = forms.CharField(
        max_length=150,
        required=False,
        label=_("Username"),
        help_text=_("Empty: open the seat to anyone."),
    )
