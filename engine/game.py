"""Game (immutable rules), State (one playthrough) and PlayerView (what one seat may know):
the engine's whole contract.

Why this module is long: it is the engine's whole contract (Game, State, the views a state
gives, actions, options and what a game says about itself), which every variant, the bots
and the league read: one place to read it. A view holds its game and a state makes views,
so they are written together (apart, the two modules imported each other).

    game = load_game("kingen(rules=iwwa)")
    state = game.new_initial_state(seed=7)   # chance events come from the seed
    while not state.is_terminal():
        state.apply_action(choose(state.view_for(state.current_seat)))
    state.scores()

Actions are small ints: 0..51 play that card; family actions (bids, trump choices,
contracts) are codes from 64 up. ``game.action_to_string`` and ``game.parse_action``
convert to and from the short strings used on the wire, in records and on screen
(``play QS``, ``trump H``, ``contract queens``, ``pass``).
"""

from __future__ import annotations

import enum
import functools
import random
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from operator import itemgetter
from typing import Any, ClassVar, Generic, NamedTuple, TypeVar

from engine.cards import (
    BIT,
    CARD_NAMES,
    FULL_DECK,
    SUIT_CARDS,
    SUIT_LETTERS,
    SUIT_MASKS,
    SUIT_NAMES,
    SUIT_OF,
    card_name,
    mask_of,
    parse_card,
    parse_suit,
    winning_card,
)
from engine.chance import Chance
from engine.errors import IllegalActionError, InvalidCardError, InvalidChanceError, ScoreEntryError
from engine.inference import CardInference
from engine.options import Rules, format_game_string
from engine.solving import PLAIN_PLAY, CardPlayRules, DealScoring
from engine.table_sheet import (
    ScoreSheet,
    SheetField,
    SheetLine,
    TableScores,
    deal_totals,
    entered,
    entry_deals,
    seat_numbers,
    totals_checked,
    unknown_keys,
)

CHANCE = -1
"""``current_seat`` when the next event is a chance event (a deal)."""
TERMINAL = -2
"""``current_seat`` when the game is over."""

CARD_ACTIONS = 52
TRUMP_ACTIONS = 64
"""64..67: name that suit trumps (``trump C`` .. ``trump S``); 68: no trumps (``trump NT``)."""
NO_TRUMP_ACTION = 68
PASS = 80
ACCEPT = 81
REJECT = 82
FAMILY_ACTIONS = 128
"""Codes from here up are the family's own (bids, contracts, offers, ...)."""

_COMMON_ACTIONS = {PASS: "pass", ACCEPT: "accept", REJECT: "reject", NO_TRUMP_ACTION: "trump NT"}
_COMMON_CODES = {name: code for code, name in _COMMON_ACTIONS.items()}

_ACTION_LABELS = {
    "play": "play a card",
    "trump": "choose trumps",
    "pass": "pass",
    "accept": "accept",
    "reject": "reject",
}
"""The plain label of each kind of action every family shares, by its verb."""

_COMMON_EXPLANATIONS = {
    NO_TRUMP_ACTION: "Play this deal without trumps: the highest card of the suit led wins "
    "each trick.",
    PASS: "Pass: let your turn go by without a bid or an offer.",
    ACCEPT: "Accept what was offered.",
    REJECT: "Turn down what was offered.",
}
"""The explanation of each non-card action every family shares (trump suits apart)."""


class SeatRole(enum.Enum):
    """What sits at a seat: a player (a person or a bot), or a dummy that nobody sits at,
    whose cards its partner plays (Priffe's träkarl when three play)."""

    PLAYER = "player"
    DUMMY = "dummy"


@dataclass(frozen=True, slots=True)
class ScoringUnit:
    """What one result of a family is called when the league ranks it: a game, or for a
    family of partnership play the unit whose partnerships are fixed (Priffe's rubber)."""

    singular: str
    plural: str

    def count(self, n: int) -> str:
        """``1 rubber``, ``2 rubbers``."""
        return f"{n} {self.singular if n == 1 else self.plural}"


GAME_UNIT = ScoringUnit("game", "games")
DEAL_UNIT = ScoringUnit("deal", "deals")

PartnershipUnit = dict[str, Any]
"""One unit of partnership play of a finished game, as JSON (stored with a result): its
``number`` (from 1), the ``deals`` it lasted, the clockwise ``seating`` of its four seats
(partners opposite: seating[0] with [2], [1] with [3]) and each seat's individual
``points`` of it (the units' points add up to the game's scores); a family adds its own
facts (Priffe: ``partners``, the side ``totals``, each seat's ``settlement``)."""

RulesT = TypeVar("RulesT", bound=Rules)
HistoryItem = tuple[int, int, "int | Chance"]
"""(deal number, seat or CHANCE, action code or chance event)."""


class Game(ABC, Generic[RulesT]):
    """The immutable rules of one family with its options; builds fresh states."""

    family: ClassVar[str]
    """The family's name in game strings (``kingen``)."""
    rules_class: ClassVar[type[Rules]]

    # --- what the family says of itself (the league, the bots and the pages ask these;
    # nothing outside the engine switches on a family's name) --------------------------

    title: ClassVar[str] = ""
    """The family's name for people (``Kung och Adel``); the family's name if empty."""
    preset_titles: ClassVar[Mapping[str, str]] = {}
    """The name for people of each preset (``iwwa``: ``IWWA rules``)."""
    examples: ClassVar[tuple[str, ...]] = ()
    """Game strings worth offering people (forms, sample games), the plain family first;
    ``(family,)`` if empty."""
    length_option: ClassVar[str | None] = None
    """The option that sets how long a match is (``deals``, ``rubbers_per_game``), or None
    when a match is always one whole game."""
    match_unit: ClassVar[ScoringUnit] = DEAL_UNIT
    """What ``length_option`` counts."""
    fixed_deals_options: ClassVar[str | None] = None
    """Options (``shuffle_policy=full_shuffle``) under which ``deals_fixed_by_seed`` holds,
    for a family where it does not always: what to suggest for duplicate play."""
    scoring_unit: ClassVar[ScoringUnit] = GAME_UNIT
    """What one ranked result is: a game, or a family's partnership unit (``rubber``)."""
    partnerships_rotate: ClassVar[bool] = False
    dummy_name: ClassVar[str] = "the dummy"
    """The dummy seat's name for people (Priffe: ``the träkarl``)."""
    short_game: ClassVar[str] = ""
    """A short game of the family (a new bot's validation game); the family if empty."""

    @classmethod
    def example_games(cls) -> tuple[str, ...]:
        """``examples``, or the family alone."""
        return cls.examples or (cls.family,)

    @classmethod
    def short_game_string(cls) -> str:
        return cls.short_game or cls.family

    """Partnership play only: whether the partnerships change between units of one game
    (Priffe's rubbers) rather than staying with the seats."""

    def __init__(self, rules: RulesT, preset: str | None = None) -> None:
        self.rules = rules
        self.preset = preset
        self._string = format_game_string(self.family, rules.canonical_options(preset))

    @property
    @abstractmethod
    def num_seats(self) -> int: ...

    @property
    @abstractmethod
    def deal_count(self) -> int:
        """How many deals a whole game has (for open-ended families: the agreed number),
        or 0 when the game's length is open-ended and its state decides when it ends
        (Priffe plays rubbers until a side's second exit)."""

    @property
    def deals_fixed_by_seed(self) -> bool:
        """Whether a seed decides the cards of every deal whatever the players do, so that
        tables given one seed hold the same cards deal after deal (duplicate play). False
        where the cards depend on play: Kingen's cut-only deals gather the tricks played;
        in Kung och Adel the ranks won decide who holds which hand of the next deal."""
        return True

    @property
    def seat_roles(self) -> tuple[SeatRole, ...]:
        """The role of each seat (every seat a player unless the family says otherwise)."""
        return (SeatRole.PLAYER,) * self.num_seats

    @property
    def player_seats(self) -> tuple[int, ...]:
        """The seats that people or bots take (not a dummy's)."""
        return tuple(s for s, role in enumerate(self.seat_roles) if role is SeatRole.PLAYER)

    @property
    def dummy_seat(self) -> int:
        """The seat of the dummy, or -1 when every seat is a player's."""
        roles = self.seat_roles
        return roles.index(SeatRole.DUMMY) if SeatRole.DUMMY in roles else -1

    @property
    def partnership_play(self) -> bool:
        """Whether results are ranked as partnerships (four seats, partners opposite) per
        unit of ``partnership_units``, rather than each seat on its own per game."""
        return False

    def partnership_units(self, state: State[Any]) -> list[PartnershipUnit]:
        """The units of partnership play of the finished ``state`` (see PartnershipUnit);
        empty for a family without partnership play."""
        return []

    @property
    def match_length(self) -> int | None:
        """The value of ``length_option`` (deals or rubbers in a match), or None."""
        if self.length_option is None:
            return None
        return int(getattr(self.rules, self.length_option))

    @property
    def display_name(self) -> str:
        """The game for people: ``Priffe, 2 rubbers``, ``Kingen (IWWA rules), 3 players``,
        never ``priffe(rubbers_per_game=2)``. Options beyond the preset, the number of
        players and the length are summed up as ``own rules``."""
        name = self.title or self.family
        preset = self.preset_titles.get(self.preset or "", self.preset)
        parts = [f"{name} ({preset})" if preset else name]
        options = self.rules.canonical_options(self.preset)
        options.pop("rules", None)
        default_players = self.rules_class.option_specs().get("players")
        if options.pop("players", None) is not None and default_players is not None:
            parts.append(f"{len(self.player_seats)} players")
        if self.length_option is not None:
            options.pop(self.length_option, None)
            length = self.match_length
            if length is not None:
                parts.append(self.match_unit.count(length))
        if options:
            parts.append("own rules")
        return ", ".join(parts)

    def action_label(self, action: int) -> str:
        """The plain label of the kind of ``action`` (``play a card``, ``bid``,
        ``choose a contract``) for people; ValueError for an unknown code."""
        verb = self.action_to_string(action).split(" ", 1)[0]
        return self.action_labels().get(verb, verb)

    def action_labels(self) -> dict[str, str]:
        """The plain label of every kind of action of the family, by its verb."""
        return {**_ACTION_LABELS, **self.family_action_labels}

    family_action_labels: ClassVar[Mapping[str, str]] = {}
    """The plain label of each of the family's own verbs (``contract``: ``choose a contract``)."""

    def action_explanation(self, action: int) -> str:
        """What ``action`` does under these rules, in a sentence or two for people: the
        table shows it beside a bid or a choice, the replay beside what was chosen
        (``bid noll``: *No trumps: your side tries to take fewer tricks than the other
        side.*). Empty for playing a card (the card says it all); ValueError for an
        unknown code. A family explains its own actions in ``family_action_explanation``
        and may explain the shared ones (trumps, pass, accept) its own way there too."""
        self.action_to_string(action)  # ValueError for an unknown code
        if 0 <= action < CARD_ACTIONS:
            return ""
        own = self.family_action_explanation(action)
        if own:
            return own
        if TRUMP_ACTIONS <= action < TRUMP_ACTIONS + 4:
            suit = SUIT_NAMES[action - TRUMP_ACTIONS]
            return (
                f"Make {suit}s trumps for this deal: a {suit} beats any card of another suit "
                "(you still follow suit when you can)."
            )
        return _COMMON_EXPLANATIONS[action]

    def family_action_explanation(self, action: int) -> str | None:
        """The family's own explanation of ``action`` (a non-card action code), or None
        to use the common one of a shared action (trumps, pass, accept, reject)."""
        return None

    # --- play at a physical table (engine/table_sheet.py) -----------------------------

    def score_sheet(self) -> ScoreSheet:
        """The score sheet of one game played with real cards at a table: what is
        written for each deal. A family whose deals score in its own units overrides
        it with ``table_scores``; by default each deal's points are written per seat."""
        fields = (SheetField("points", "points", "seats"),)
        lines = tuple(
            SheetLine(deal, f"deal {deal}", (deal - 1) % len(self.player_seats), fields)
            for deal in range(1, max(self.deal_count, 1) + 1)
        )
        return ScoreSheet(
            game=str(self),
            seats=self.num_seats,
            players=self.player_seats,
            lines=lines,
            open_ended=self.deal_count == 0,
            totals_sum=None,
        )

    def table_scores(self, entry: Any) -> TableScores:
        """What an entry of the whole game (one object per deal, as ``score_sheet``
        describes) scores; ScoreEntryError naming what does not add up."""
        deals = entry_deals(entry)
        sheet = self.score_sheet()
        if not sheet.open_ended and len(deals) != len(sheet.lines):
            raise ScoreEntryError(f"{entered(len(deals))}; a game of {self} has {len(sheet.lines)}")
        scores = []
        for number, deal in enumerate(deals, start=1):
            where = f"deal {number}"
            unknown_keys(deal, ("points",), where=where)
            points = seat_numbers(
                deal, "points", where=where, seats=self.num_seats, what="points", minimum=None
            )
            scores.append(tuple(points))
        return TableScores(tuple(scores), deal_totals(scores, self.num_seats), complete=True)

    def table_totals(self, totals: Any) -> TableScores:
        """Game totals alone (where ``score_sheet().totals_allowed``), checked."""
        return totals_checked(self.score_sheet(), totals)

    @abstractmethod
    def new_initial_state(self, seed: int | None = None) -> State[Any]:
        """A new game. With a seed, chance events (deals) resolve themselves from it;
        without one, the caller applies them (replaying a record)."""

    def new_search_state(self, view: PlayerView, hands: Sequence[int]) -> State[Any]:
        """A state at the decision point of ``view`` (card play only), with ``hands`` as
        every seat's cards (``hands[view.seat]`` must be ``view.hand``), that ends after
        the current deal. Search bots sample the hidden hands and play out from here;
        the deal's result is then ``state.deal_scores[-1]``."""
        raise NotImplementedError(f"{self.family} has no search states")

    @property
    def deck(self) -> int:
        """The cards dealt in a deal, as a mask (Kingen for three or five drops some)."""
        return FULL_DECK

    def playout_public(self, public: dict[str, Any], hands: Sequence[int]) -> dict[str, Any] | None:
        """The public facts of a view (``public``, as of the start of a search) brought up
        to date with the search state's ``hands`` where they show cards in hand (Priffe:
        the träkarl's exposed hand); None when nothing in them changes during card play."""
        return None

    def card_inference(self, view: PlayerView) -> CardInference:
        """What ``view`` proves about the other hands under the family's rules (search
        bots ask this instead of knowing the family: engine/inference.py)."""
        return CardInference(view)

    def family_action_name(self, action: int) -> str | None:
        """The string of a family-specific action code, or None if unknown."""
        return None

    def parse_family_action(self, verb: str, argument: str) -> int | None:
        """The code of a family-specific action string, or None if not one of the family's."""
        return None

    def action_to_string(self, action: int) -> str:
        if 0 <= action < CARD_ACTIONS:
            return "play " + card_name(action)
        if TRUMP_ACTIONS <= action < TRUMP_ACTIONS + 4:
            return "trump " + SUIT_LETTERS[action - TRUMP_ACTIONS]
        name = _COMMON_ACTIONS.get(action) or self.family_action_name(action)
        if name is None:
            raise ValueError(f"unknown action code {action}")
        return name

    def parse_action(self, text: str) -> int:
        """The code of an action string; IllegalActionError naming the problem otherwise."""
        clean = " ".join(text.split())
        verb, _, argument = clean.partition(" ")
        verb = verb.lower()
        try:
            if verb == "play" and argument:
                return parse_card(argument)
            if verb == "trump" and argument:
                if argument.upper() in ("NT", "N", "NOTRUMP", "NOTRUMPS"):
                    return NO_TRUMP_ACTION
                return TRUMP_ACTIONS + parse_suit(argument)
        except InvalidCardError as exc:
            raise IllegalActionError(str(exc), text) from None
        if not argument and verb in _COMMON_CODES:
            return _COMMON_CODES[verb]
        code = self.parse_family_action(verb, argument)
        if code is None:
            raise IllegalActionError(f"not an action of {self.family}", text)
        return code

    def __str__(self) -> str:
        return self._string

    def __repr__(self) -> str:
        return f"load_game({self._string!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Game) and other._string == self._string

    def __hash__(self) -> int:
        return hash(self._string)


GameT = TypeVar("GameT", bound=Game[Any])


class State(ABC, Generic[GameT]):
    """One playthrough. Mutable; ``clone()`` gives an independent copy.

    States use ``__slots__`` (every subclass declares its own): CPython 3.11 keeps fast
    attribute access only for instances with few dict attributes, and a state has many.
    """

    __slots__ = (
        "current_seat",
        "deal_number",
        "deal_scores",
        "deal_starts",
        "dealer",
        "game",
        "log",
        "num_seats",
        "phase",
        "rng",
        "seed",
        "stop_after_deal",
        "totals",
    )

    def __init__(self, game: GameT, seed: int | None) -> None:
        self.game = game
        self.num_seats = game.num_seats
        self.rng: random.Random | None = random.Random(seed) if seed is not None else None
        self.seed = seed
        self.current_seat = CHANCE
        self.phase = "deal"
        self.log: list[int | Chance] = []
        """Every event in order: a chance event, or ``seat << 10 | action`` (packed for
        speed; read it through ``history``)."""
        self.deal_starts: list[int] = []
        """Index in ``log`` of the first event of each deal."""
        self.deal_number = 0
        self.dealer = 0
        self.deal_scores: list[list[int]] = []
        self.totals = [0] * self.num_seats
        self.stop_after_deal = False  # search states end with their deal

    # --- the contract -------------------------------------------------------------

    def is_terminal(self) -> bool:
        return self.current_seat == TERMINAL

    def is_chance(self) -> bool:
        return self.current_seat == CHANCE

    def scores(self) -> list[int]:
        """Running totals (final scores once the game is over)."""
        return list(self.totals)

    def acting_seat(self) -> int:
        """The seat whose player decides now: ``current_seat``, except where a seat is
        played by another (Priffe's träkarl, a dummy, is played by its partner). Ask this
        seat's view for the decision; ``apply_action(a, seat=acting_seat())`` is accepted."""
        return self.current_seat

    @abstractmethod
    def legal_actions(self) -> Sequence[int]:
        """The legal actions of ``current_seat``, ascending; empty at chance and at the end.

        A list or a tuple (card play returns the engine's own lookup-table tuples where it
        can): read it, copy it to change it, compare it with ``list(...)``."""

    def apply_action(self, action: int, seat: int | None = None) -> None:
        """Apply the current seat's action. With ``seat``, also check it is that seat's turn.

        Raises IllegalActionError naming the rule broken; the state is then unchanged.
        """
        current = self.current_seat
        if current < 0:
            rule = "the game is over" if current == TERMINAL else "a deal comes next, not an action"
            raise IllegalActionError(rule, self._describe(action))
        if seat is not None and seat != current:
            raise IllegalActionError(
                f"not your turn: seat {current} is to act", self._describe(action)
            )
        self._apply(action)
        self.log.append(current << 10 | action)
        if self.current_seat == CHANCE and self.rng is not None:
            self._resolve_chance()

    def apply_chance(self, event: Chance) -> None:
        """Apply a chance event (replaying a record). InvalidChanceError if impossible."""
        if self.current_seat != CHANCE:
            raise InvalidChanceError(f"no chance event is due now (phase {self.phase})")
        self._log_chance(event)
        if self.current_seat == CHANCE and self.rng is not None:
            self._resolve_chance()

    def sample_chance(self, rng: random.Random) -> Chance:
        """Draw the chance event due now from ``rng``."""
        if self.current_seat != CHANCE:
            raise InvalidChanceError("no chance event is due now")
        return self._sample_chance(rng)

    @abstractmethod
    def view_for(self, seat: int) -> PlayerView:
        """What ``seat`` may know now."""

    def action_to_string(self, action: int) -> str:
        return self.game.action_to_string(action)

    def parse_action(self, text: str) -> int:
        return self.game.parse_action(text)

    def clone(self) -> State[GameT]:
        cls = type(self)
        new = cls.__new__(cls)
        for name in _slot_names(cls):
            value = getattr(self, name)
            if isinstance(value, list):
                value = [v.copy() if isinstance(v, list) else v for v in value]
            elif isinstance(value, dict):
                value = dict(value)
            setattr(new, name, value)
        if self.rng is not None:
            new.rng = random.Random()
            new.rng.setstate(self.rng.getstate())
        return new

    # --- what a family implements -------------------------------------------------

    @abstractmethod
    def _apply(self, action: int) -> None:
        """Validate and apply ``action`` for ``current_seat``; raise IllegalActionError."""

    @abstractmethod
    def _apply_chance(self, event: Chance) -> None: ...

    @abstractmethod
    def _sample_chance(self, rng: random.Random) -> Chance: ...

    # --- shared helpers -------------------------------------------------------------

    def _resolve_chance(self) -> None:
        assert self.rng is not None
        while self.current_seat == CHANCE:
            self._log_chance(self._sample_chance(self.rng))

    def _log_chance(self, event: Chance) -> None:
        deal = self.deal_number
        self._apply_chance(event)
        if self.deal_number != deal:
            self.deal_starts.append(len(self.log))
        self.log.append(event)

    @property
    def history(self) -> list[HistoryItem]:
        """Every event so far as (deal number, seat or CHANCE, action code or chance event)."""
        items: list[HistoryItem] = []
        starts = self.deal_starts
        deal = 0
        for index, event in enumerate(self.log):
            while deal < len(starts) and starts[deal] <= index:
                deal += 1
            if isinstance(event, Chance):
                items.append((deal, CHANCE, event))
            else:
                items.append((deal, event >> 10, event & 1023))
        return items

    def _describe(self, action: int) -> str:
        try:
            return self.game.action_to_string(action)
        except ValueError:
            return f"action {action}"

    def _illegal(self, rule: str, action: int) -> IllegalActionError:
        return IllegalActionError(rule, self._describe(action))

    def _finish_deal(self, scores: Sequence[int]) -> None:
        """Book a deal's scores, then move to the next deal or the end of the game."""
        self.deal_scores.append(list(scores))
        for seat, points in enumerate(scores):
            self.totals[seat] += points
        if self.stop_after_deal or self.deal_number >= self.game.deal_count:
            self.phase = "over"
            self.current_seat = TERMINAL
        else:
            self.phase = "deal"
            self.current_seat = CHANCE


# ---------------------------------------------------------------- views
# What one seat may know: the only thing a bot or a person's screen is ever given.


class TrickView(NamedTuple):
    """A completed trick (a named tuple: views are built at every decision)."""

    leader: int
    cards: tuple[int, ...]
    """The cards in play order, the first from ``leader``."""
    winner: int


_PLAY_STRINGS = tuple("play " + name for name in CARD_NAMES)


@functools.lru_cache(maxsize=8192)
def _trick_json(trick: TrickView) -> dict[str, Any]:
    """A completed trick as ``PlayerView.to_json`` gives it, built once and then shared by
    every view that holds it (a trick is public and never changes once completed: a
    view's later decisions in the deal, the other seats' views, a replay's steps): half of
    a view's JSON was its finished tricks, built again at each decision. Read it; never
    change it."""
    leader, cards, winner = trick
    return {"leader": leader, "cards": [CARD_NAMES[c] for c in cards], "winner": winner}


def _names(mask: int) -> list[str]:
    names = CARD_NAMES
    c, d, h, s = SUIT_CARDS
    return [
        names[x]
        for x in (
            *c[mask & 0x1FFF],
            *d[mask >> 13 & 0x1FFF],
            *h[mask >> 26 & 0x1FFF],
            *s[mask >> 39],
        )
    ]


@dataclass(frozen=True, slots=True)
class PlayerView:
    """One seat's knowledge of a state.

    It holds the seat's own hand and nothing of another seat's unplayed cards: the cards
    already played are public (``tricks``, ``trick``), and family-specific public facts
    (bids, offers, ranks, an exposed card) are in ``public``; facts only this seat knows
    besides its hand (a tribute it received) are in ``private``.
    """

    game: Game[Any]
    seat: int
    phase: str
    to_act: int
    """The seat to act next, or -1 when the game is over."""
    deal_number: int
    """1-based number of the current deal; 0 before the first deal."""
    deal_count: int
    dealer: int
    hand: int
    """This seat's cards (a mask)."""
    hand_sizes: tuple[int, ...]
    contract: str
    trump: int
    """The trump suit (0..3) of this deal, or -1."""
    leader: int
    """Who led (or leads) the current trick."""
    trick: tuple[int, ...]
    """Cards of the current trick in play order, the first from ``leader``."""
    tricks: tuple[TrickView, ...]
    """Completed tricks of the current deal."""
    tricks_won: tuple[int, ...]
    played: int
    """Mask of every card played in this deal."""
    scores: tuple[int, ...]
    """Running totals of the game (completed deals)."""
    deal_scores: tuple[tuple[int, ...], ...]
    """Scores of each completed deal."""
    legal: tuple[int, ...]
    """Legal actions of this seat when it is to act, else empty."""
    public: dict[str, Any] = field(default_factory=dict)
    private: dict[str, Any] = field(default_factory=dict)

    @property
    def num_seats(self) -> int:
        return self.game.num_seats

    def to_json(self) -> dict[str, Any]:
        """The view as the bot protocol and the web send it: cards and actions as strings
        (the finished tricks' entries are shared between views: ``_trick_json``)."""
        action = self.game.action_to_string
        names = CARD_NAMES
        plays = _PLAY_STRINGS
        return {
            "game": str(self.game),
            "seat": self.seat,
            "phase": self.phase,
            "to_act": self.to_act,
            "deal": self.deal_number,
            "deals": self.deal_count,
            "dealer": self.dealer,
            "hand": _names(self.hand),
            "hand_sizes": list(self.hand_sizes),
            "contract": self.contract,
            "trump": SUIT_LETTERS[self.trump] if self.trump >= 0 else None,
            "leader": self.leader,
            "trick": list(map(names.__getitem__, self.trick)),
            "tricks": list(map(_trick_json, self.tricks)),
            "tricks_won": list(self.tricks_won),
            "scores": list(self.scores),
            "deal_scores": list(map(list, self.deal_scores)),
            "legal": [plays[a] if a < 52 else action(a) for a in self.legal],
            "public": self.public,
            "private": self.private,
        }


def spectator_view(view: PlayerView) -> PlayerView:
    """What someone who holds no seat may see: ``view`` without the seat's hand, its
    private facts and its legal actions (public play, bids and scores stay)."""
    return replace(view, seat=-1, hand=0, private={}, legal=())


def _slot_names(cls: type) -> tuple[str, ...]:
    names = _SLOT_NAMES.get(cls)
    if names is None:
        names = tuple(n for c in cls.__mro__ for n in getattr(c, "__slots__", ()))
        _SLOT_NAMES[cls] = names
    return names


_SLOT_NAMES: dict[type, tuple[str, ...]] = {}


@functools.cache
def _clockwise(n: int) -> tuple[int, ...]:
    """The seat left of each seat of ``n``."""
    return tuple((s + 1) % n for s in range(n))


_TRUMPS_IT = 2
_BEATS = tuple(
    tuple(
        tuple(
            1 if c // 13 == w // 13 and c > w else _TRUMPS_IT if c // 13 == t != w // 13 else 0
            for c in range(CARD_ACTIONS)
        )
        for w in range(CARD_ACTIONS)
    )
    for t in (0, 1, 2, 3, -1)
)
"""``_BEATS[trump][winning card][card]``: 1 if the card beats the winning card in its suit,
``_TRUMPS_IT`` if it trumps it, else 0 (``trump`` -1, no trumps, is the last table)."""
_PLAYED_BIT = BIT + (0,) * CARD_ACTIONS
"""The bit of a card for ``apply_action``'s check: ``BIT`` followed by zeros, so that an index
from -52 to 103 gives a card's bit or 0 (no card) with one lookup, no comparison; anything
else raises IndexError or TypeError."""
_LOGGED = tuple(tuple(seat << 10 | card for card in range(CARD_ACTIONS)) for seat in range(16))
"""``_LOGGED[seat][card]`` is the log entry ``seat << 10 | card``, ready made for up to 16
seats (a lookup allocates nothing; the two operations allocate an int each)."""


class TrickTakingState(State[GameT]):
    """Dealing, following suit, tricks and trumps, shared by every family.

    A family sets ``hands``, ``trump`` and ``leader`` and calls ``_start_play()``;
    implements ``_play_rule()`` (the legal cards of the seat to play, with the reason for
    the restriction) and ``_after_trick()`` (scoring, end of deal).
    """

    __slots__ = (
        "_beats_row",
        "_legal_cache",
        "completed",
        "dealt",
        "hands",
        "leader",
        "led_suit",
        "left_of",
        "plain_play",
        "trick",
        "tricks_per_deal",
        "tricks_won",
        "trump",
        "trumped",
        "watch_every_trick",
        "win_card",
        "win_seat",
    )

    REASON_FOLLOW = "follow"

    def __init__(self, game: GameT, seed: int | None) -> None:
        super().__init__(game, seed)
        n = self.num_seats
        self.hands = [0] * n
        self.dealt = 0  # every card dealt this deal
        self.trump = -1
        self.leader = 0
        self.trick: list[int] = []
        self.led_suit = -1
        self.win_card = -1
        self._beats_row = _BEATS[-1][0]
        """``_BEATS[trump][win_card]`` of the trick being played (kept with ``win_card``)."""
        self.win_seat = -1
        self.trumped = False
        self.tricks_won = [0] * n
        self.left_of = _clockwise(n)
        """The next seat clockwise of each seat; families that re-seat players change it."""
        self.completed: list[tuple[int, list[int], int]] = []  # (leader, cards, winner)
        self.tricks_per_deal = 13
        self.watch_every_trick = False  # call _after_trick after every trick, not only the last
        self.plain_play = False  # this deal's only rule is to follow suit: skip _play_rule
        self._legal_cache: int | None = None
        """The legal cards of ``current_seat`` as a mask once computed, in card play only;
        None otherwise (None, not -1: an identity test is cheaper than comparing a 52-bit int)."""

    def _start_play(self, leader: int) -> None:
        """Start the tricks of a deal whose ``hands`` are set."""
        self.phase = "play"
        self.leader = leader
        self.current_seat = leader
        self.trick = []
        self.tricks_won = [0] * self.num_seats
        self.completed = []
        self.dealt = sum(self.hands)  # hands are disjoint: their sum is their union
        self._legal_cache = None

    def _restore_play(self, view: PlayerView, hands: Sequence[int]) -> None:
        """Set the card-play fields from a view and full hands (for search states)."""
        if view.phase != "play" or view.to_act < 0:
            raise ValueError("search states start in card play, at a seat's decision")
        if hands[view.seat] != view.hand:
            raise ValueError("the searching seat's hand must be its own")
        self.stop_after_deal = True
        self.deal_number = view.deal_number
        self.dealer = view.dealer
        self.totals = list(view.scores)
        self.deal_scores = [list(s) for s in view.deal_scores]
        self.hands = list(hands)
        self.trump = view.trump
        self.completed = [(t.leader, list(t.cards), t.winner) for t in view.tricks]
        self.tricks_won = list(view.tricks_won)
        self.dealt = view.played
        for hand in hands:
            self.dealt |= hand
        self.leader = view.leader
        self.trick = list(view.trick)
        self.phase = "play"
        self.current_seat = view.to_act
        self._legal_cache = None
        if self.trick:
            self.led_suit = SUIT_OF[self.trick[0]]
            self.win_card = winning_card(view.trick, self.trump)
            self._beats_row = _BEATS[self.trump][self.win_card]
            seat = self.leader
            for _ in range(self.trick.index(self.win_card)):
                seat = self.left_of[seat]
            self.win_seat = seat
            self.trumped = SUIT_OF[self.win_card] == self.trump != self.led_suit

    @property
    def played(self) -> int:
        """Mask of every card played so far in this deal."""
        held = 0
        for hand in self.hands:
            held |= hand
        return self.dealt & ~held

    def won_masks(self) -> list[int]:
        """The cards each seat has taken in the tricks of this deal."""
        taken: list[list[int]] = [[] for _ in range(self.num_seats)]
        for _, cards, winner in self.completed:
            taken[winner] += cards
        # Faster than a loop over the cards: the bits of a seat's cards from one C-level
        # getter, summed (distinct bits: the sum is their union).
        return [
            sum(itemgetter(*cards)(BIT)) if len(cards) > 1 else mask_of(cards) for cards in taken
        ]

    @abstractmethod
    def _play_rule(self) -> tuple[int, str]:
        """(legal cards as a mask, the reason of the narrowest restriction applied)."""

    @abstractmethod
    def _after_trick(self, winner: int) -> None:
        """Called after the last trick of a deal (after every trick if
        ``watch_every_trick``); ``current_seat`` is already the winner."""

    def _explain(self, reason: str, card: int) -> str:
        """The message for a play refused by ``reason``; families extend it."""
        if reason == self.REASON_FOLLOW:
            return f"must follow suit (you hold a {SUIT_NAMES[self.led_suit]})"
        return "not allowed by the rules of this contract"

    def legal_actions(self) -> Sequence[int]:
        # Written for speed (it runs before every card). The legal mask is computed once
        # per decision and cached for apply_action. The cards of one suit come as the
        # tuple of a per-suit lookup table (ascending, like every other answer).
        mask = self._legal_cache
        if mask is None:
            if self.phase != "play":
                return self._bidding_actions()
            if self.plain_play:
                mask = self.hands[self.current_seat]
                if self.trick:
                    led = self.led_suit
                    follow = mask & SUIT_MASKS[led]
                    if follow:
                        self._legal_cache = follow
                        return SUIT_CARDS[led][follow >> 13 * led]
                self._legal_cache = mask
                c, d, h, s = SUIT_CARDS
                low = mask & 0x3FFFFFF  # two 26-bit halves: cheaper small-int operations
                high = mask >> 26
                return [*c[low & 8191], *d[low >> 13], *h[high & 8191], *s[high >> 13]]
            mask = self._legal_cache = self._play_rule()[0]
        if self.trick:
            led = self.led_suit
            if not mask & ~SUIT_MASKS[led]:  # following suit: one table lookup
                return SUIT_CARDS[led][mask >> 13 * led]
        c, d, h, s = SUIT_CARDS
        return [*c[mask & 8191], *d[mask >> 13 & 8191], *h[mask >> 26 & 8191], *s[mask >> 39]]

    def _bidding_actions(self) -> list[int]:
        """Legal actions outside card play (bids, trump choices, ...); families override."""
        return []

    def apply_action(self, action: int, seat: int | None = None) -> None:
        # The hot path of every game, kept in one function and written for speed: a card
        # played by the seat to play. ``_legal_cache`` is only ever set in card play (by
        # legal_actions or legal_play_mask), so a cached mask also answers "is this card
        # play?" without comparing the phase.
        current = self.current_seat
        mask = self._legal_cache
        if mask is None or seat is not None:
            if self.phase != "play" or (seat is not None and seat != current):
                super().apply_action(action, seat)
                return
            if mask is None:
                mask = self._play_rule()[0]
        try:
            bit = mask & _PLAYED_BIT[action]
        except (IndexError, TypeError):  # not an int, or far out of range
            bit = 0
        if not bit:
            raise self._refuse_play(action)
        self._legal_cache = None
        self.hands[current] ^= bit
        self.log.append(_LOGGED[current][action])
        trick = self.trick
        if not trick:
            trick.append(action)
            self.led_suit = action // 13
            self.win_card = action
            self._beats_row = _BEATS[self.trump][action]
            self.win_seat = current
            self.trumped = False
            self.current_seat = self.left_of[current]
            return
        beats = self._beats_row[action]
        if beats:
            self.win_card = action
            self._beats_row = _BEATS[self.trump][action]
            self.win_seat = current
            if beats == _TRUMPS_IT:
                self.trumped = True
        trick.append(action)
        following = self.left_of[current]
        if following != self.leader:  # every seat plays once to a trick
            self.current_seat = following
            return
        winner = self.win_seat
        self.tricks_won[winner] += 1
        completed = self.completed
        completed.append((self.leader, trick, winner))
        self.trick = []
        self.leader = winner
        self.current_seat = winner
        if self.watch_every_trick or len(completed) == self.tricks_per_deal:
            self._after_trick(winner)
            if self.current_seat == CHANCE and self.rng is not None:
                self._resolve_chance()

    def _apply(self, action: int) -> None:
        """Actions outside card play; card play never gets here (see apply_action)."""
        self._apply_bid(action)

    def _apply_bid(self, action: int) -> None:
        """Apply a non-card action (bid, trump choice, ...); families override."""
        raise self._illegal(f"no action is expected now (phase {self.phase})", action)

    def legal_play_mask(self) -> int:
        mask = self._legal_cache
        if mask is None:
            mask = self._play_rule()[0]
            if self.phase == "play":  # the cache means card play (see apply_action)
                self._legal_cache = mask
        return mask

    def _refuse_play(self, card: object) -> IllegalActionError:
        if not isinstance(card, int):
            return IllegalActionError("a card must be played now", repr(card))
        if not 0 <= card < CARD_ACTIONS:
            return self._illegal("a card must be played now", card)
        if not self.hands[self.current_seat] >> card & 1:
            return self._illegal(f"you do not hold {card_name(card)}", card)
        return self._illegal(self._explain(self._play_rule()[1], card), card)

    def _trick_views(self) -> tuple[TrickView, ...]:
        return tuple(
            TrickView(leader, tuple(cards), winner) for leader, cards, winner in self.completed
        )

    def _legal_for_view(self, seat: int) -> tuple[int, ...]:
        return tuple(self.legal_actions()) if seat == self.current_seat else ()

    def contract_name(self) -> str:
        """The current deal's contract for people ("hearts", "trumps (S)", "2 down")."""
        return ""

    # --- what the double-dummy solver reads (engine/solving.py) -------------------------

    def solver_play_rules(self) -> CardPlayRules:
        """The legal cards of this deal's card play as the solver computes them: following
        suit unless the family says more (its contract's obligations)."""
        return PLAIN_PLAY

    def solver_scoring(self, seat: int) -> DealScoring:
        """What ``seat`` scores from the card play of the current deal (card play only);
        NotImplementedError for a family that does not say."""
        raise NotImplementedError(f"{self.game.family} does not describe its scoring")

    def _score_with_tricks(self, seat: int, tricks: Sequence[int]) -> int:
        """``seat``'s score of the current deal had the seats won ``tricks``, by the
        family's own scoring code (``_score_tricks`` on a copy that ends with the deal)."""
        copy = self.clone()
        assert isinstance(copy, TrickTakingState)
        copy.rng = None
        copy.stop_after_deal = True
        copy.tricks_won = list(tricks)
        copy._score_tricks()
        return copy.deal_scores[-1][seat]

    def _score_tricks(self) -> None:
        """Score the deal from ``tricks_won`` alone (families whose score depends only on
        the tricks counted: see ``_score_with_tricks``)."""
        raise NotImplementedError

    def _view(
        self,
        seat: int,
        public: dict[str, Any],
        private: dict[str, Any] | None = None,
        *,
        legal: tuple[int, ...] | None = None,
        hand: int | None = None,
    ) -> PlayerView:
        """The view of ``seat`` with the facts every trick-taking family shares; a family's
        ``view_for`` adds its own ``public`` and ``private`` facts (and may override the
        legal actions or the hand, e.g. for a seat that plays a dummy)."""
        return PlayerView(
            game=self.game,
            seat=seat,
            phase=self.phase,
            to_act=self.current_seat if self.current_seat >= 0 else -1,
            deal_number=self.deal_number,
            deal_count=self.game.deal_count,
            dealer=self.dealer,
            hand=self.hands[seat] if hand is None else hand,
            hand_sizes=tuple(h.bit_count() for h in self.hands),
            contract=self.contract_name(),
            trump=self.trump,
            leader=self.leader,
            trick=tuple(self.trick),
            tricks=self._trick_views(),
            tricks_won=tuple(self.tricks_won),
            played=self.played,
            scores=tuple(self.totals),
            deal_scores=tuple(tuple(s) for s in self.deal_scores),
            legal=self._legal_for_view(seat) if legal is None else legal,
            public=public,
            private={} if private is None else private,
        )
