"""What one seat may know: the only thing a bot or a person's screen is ever given."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, NamedTuple

from engine.cards import CARD_NAMES, SUIT_CARDS, SUIT_LETTERS

if TYPE_CHECKING:
    from engine.game import Game


class TrickView(NamedTuple):
    """A completed trick (a named tuple: views are built at every decision)."""

    leader: int
    cards: tuple[int, ...]
    """The cards in play order, the first from ``leader``."""
    winner: int


_PLAY_STRINGS = tuple("play " + name for name in CARD_NAMES)


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
        """The view as the bot protocol and the web send it: cards and actions as strings."""
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
            "trick": [names[c] for c in self.trick],
            "tricks": [
                {"leader": leader, "cards": [names[c] for c in cards], "winner": winner}
                for leader, cards, winner in self.tricks
            ],
            "tricks_won": list(self.tricks_won),
            "scores": list(self.scores),
            "deal_scores": [list(s) for s in self.deal_scores],
            "legal": [plays[a] if a < 52 else action(a) for a in self.legal],
            "public": self.public,
            "private": self.private,
        }


def spectator_view(view: PlayerView) -> PlayerView:
    """What someone who holds no seat may see: ``view`` without the seat's hand, its
    private facts and its legal actions (public play, bids and scores stay)."""
    return replace(view, seat=-1, hand=0, private={}, legal=())
