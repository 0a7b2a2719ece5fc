"""A club night's pure parts: who plays a round, the table cards, the seating list, the
hand records of a duplicate round (docs/league.md, *A club night*).

Plain data in and out: ids, names, game strings and seeds; the engine is asked what each
game's score sheet is and what a seed deals. No database, no clock.

**Who plays a round.** The organiser says who is present. The round is planned for the
present entrants exactly as any round is (the format's scheduler). Where they do not fill
whole tables, the substitute rule applies, in this order:

1. reserves: club members the organiser named as reserves (no entrants: their scores
   never count in the standings) join the round, as many as fill the short table;
2. the format's bye: the schedulers plan the round with byes instead of filler bots
   (``Fill.BYES``: the players who do not fit sit out, the byes spread evenly over the
   rounds); where a plan still has a filler seat (the simple rotation of duplicate play,
   tables of three or five), that table cannot be played at a club and its players sit
   the round out too. A bye is no match and no score, and the seating list says so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.chance import DEAL, Chance
from engine.game import CHANCE
from engine.table_sheet import compass_names
from engine.variants import load_game

ENTRY_CODE_ALPHABET = "ACDEFHJKMNPRTUVWXY34679"
"""The letters of a table's entry code: none that read alike (0/O, 1/I/L, 2/Z, 5/S, 8/B)."""
ENTRY_CODE_LENGTH = 6
"""23**6, about 148 million codes: a code cannot be guessed while its table plays (the
arithmetic with the guesses allowed: docs/api.md, *Rate limits*)."""
DUPLICATE_DEALS_SHOWN = 40
"""The most deals a round's hand records list (a whole game of the longest family)."""


@dataclass(frozen=True, slots=True)
class RoundPlayers:
    """Who is seated in a round: the present entrants and the reserves that fill up."""

    players: tuple[int, ...]
    reserves_used: tuple[int, ...]


def round_players(
    present: Sequence[int], reserves: Sequence[int], *, table_size: int
) -> RoundPlayers:
    """The substitute rule's step 1: ``present`` and as many of ``reserves`` (in the order
    given) as fill the last table; none when the tables are full already."""
    short = -len(present) % table_size
    used = tuple(r for r in reserves if r not in set(present))[:short]
    return RoundPlayers(tuple(present) + used, used)


def playable_tables(
    tables: Sequence[Sequence[int | None]], *, dummy: int = -1
) -> list[list[int | None]]:
    """The tables a club can play: those without a filler seat (the dummy's is none)."""
    return [
        list(t) for t in tables if all(who is not None or s == dummy for s, who in enumerate(t))
    ]


def table_sides(player_seats: Sequence[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The two sides of a table, each with its own entry code: what one side enters, the
    other confirms. The players' seats taken alternately round the table: partners
    opposite (North and South, East and West), at a table of three North and South
    against East."""
    return tuple(player_seats[0::2]), tuple(player_seats[1::2])


def seat_positions(game_string: str) -> list[dict[str, Any]]:
    """Each seat's number, compass position and role (``player``, or the dummy)."""
    game = load_game(game_string)
    names = compass_names(game.num_seats)
    dummy = game.dummy_seat
    return [
        {
            "seat": seat,
            "compass": names[seat],
            "role": "dummy" if seat == dummy else "player",
        }
        for seat in range(game.num_seats)
    ]


def table_card(
    *,
    game_string: str,
    round_number: int,
    table: int,
    names: Sequence[str],
    codes: Sequence[str],
    entry_urls: Sequence[str],
    reserve_seats: Sequence[int] = (),
    totals_allowed: bool = False,
) -> dict[str, Any]:
    """A table card: seats with names and compass positions (a reserve marked: his score
    does not count), the first dealer, the order of contracts or deals, an empty score
    grid in the family's scoring (the sheet's lines and fields), and each side's entry
    code and its address (``codes`` and ``entry_urls``: the first side's, the second's;
    ``code`` and ``entry_url`` are the first side's)."""
    game = load_game(game_string)
    sheet = game.score_sheet()
    seats = seat_positions(game_string)
    for seat, name in zip(seats, names, strict=True):
        seat["name"] = name if seat["role"] == "player" else game.dummy_name
        seat["reserve"] = seat["seat"] in reserve_seats
    sides = [
        {
            "side": number,
            "seats": list(side),
            "compass": [seats[s]["compass"] for s in side],
            "names": [seats[s]["name"] for s in side],
            "code": code,
            "entry_url": url,
        }
        for number, (side, code, url) in enumerate(
            zip(table_sides(game.player_seats), codes, entry_urls, strict=False), start=1
        )
    ]
    first = sheet.lines[0].dealer if sheet.lines else 0
    return {
        "round": round_number,
        "table": table,
        "game": game_string,
        "game_name": game.display_name,
        "seats": seats,
        "first_dealer": (
            {"seat": first, "name": seats[first]["name"], "compass": seats[first]["compass"]}
            if first >= 0
            else {"seat": None, "name": sheet.dealer_rule, "compass": ""}
        ),
        "order": [
            {"deal": line.deal, "title": line.title, "dealer": line.dealer} for line in sheet.lines
        ],
        "sheet": {**sheet.to_json(), "totals_allowed": totals_allowed and sheet.totals_allowed},
        "code": codes[0],
        "entry_url": entry_urls[0],
        "sides": sides,
    }


def seating_list(
    cards: Sequence[Mapping[str, Any]], *, byes: Sequence[str] = ()
) -> list[dict[str, Any]]:
    """The round's seating list to pin on the wall: every player by name, with the table
    and the compass position to go to, alphabetically; then the players who sit out."""
    rows = [
        {"name": seat["name"], "table": card["table"], "compass": seat["compass"]}
        for card in cards
        for seat in card["seats"]
        if seat["role"] == "player"
    ]
    rows.sort(key=lambda r: (str(r["name"]).casefold(), r["table"]))
    rows += [{"name": name, "table": None, "compass": "sits out (bye)"} for name in byes]
    return rows


def hand_records(game_string: str, seed: int) -> list[dict[str, Any]]:
    """The cards of every deal a seed deals for ``game_string`` (a game whose deals the
    seed alone decides, ``Game.deals_fixed_by_seed``: duplicate play), as the engine deals
    them: each deal's hands by seat, sorted by suit. The game is played through with the
    first legal action at each turn, which changes nothing in the cards dealt."""
    game = load_game(game_string)
    if not game.deals_fixed_by_seed:
        raise ValueError(f"{game_string}: the deals depend on the play, not on the seed alone")
    state = game.new_initial_state(seed=seed)
    while not state.is_terminal() and len(state.deal_starts) <= DUPLICATE_DEALS_SHOWN:
        state.apply_action(state.legal_actions()[0])
    dealt: dict[int, list[list[str]]] = {}
    exposed: dict[int, str] = {}
    for deal, seat, event in state.history:
        if seat != CHANCE or not isinstance(event, Chance) or event.kind != DEAL:
            continue
        if deal > DUPLICATE_DEALS_SHOWN:
            break
        shown = event.to_json()
        hands = dealt.setdefault(deal, [[] for _ in shown["cards"]])
        for hand, cards in zip(hands, shown["cards"], strict=True):
            hand += cards  # a deal dealt in stages (Kung och Adel) adds up
        if shown.get("exposed"):
            exposed[deal] = shown["exposed"]
    return [
        {
            "deal": deal,
            "hands": [_by_suit(hand) for hand in hands],
            "cards": hands,
            "exposed": exposed.get(deal),
        }
        for deal, hands in sorted(dealt.items())
    ]


_SUIT_ORDER = "SHDC"
_RANK_ORDER = "AKQJT98765432"


def _by_suit(cards: Sequence[str]) -> dict[str, str]:
    """A hand as people write it: spades, hearts, diamonds, clubs, high cards first."""
    out: dict[str, str] = {}
    for suit in _SUIT_ORDER:
        ranks = sorted((c[0] for c in cards if c[-1] == suit), key=_RANK_ORDER.index)
        out[suit] = "".join(ranks) or "-"
    return out
