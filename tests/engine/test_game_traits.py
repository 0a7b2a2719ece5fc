"""What a game says of itself (docs/engine.md): the league, the bots and the pages read
these instead of switching on a family's name."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import CHANCE, FAMILIES, SeatRole, load_game
from engine.errors import InvalidGameError
from engine.record import replay_record
from engine.variants import register_family, unregister_family
from tests.engine.toy_family import ToyGame

GOLDEN = Path(__file__).parent / "golden"


@pytest.mark.parametrize(
    ("game", "name"),
    [
        ("kingen", "Kingen"),
        ("kingen(rules=iwwa)", "Kingen (IWWA rules)"),
        ("kingen(players=3)", "Kingen, 3 players"),
        ("king(rules=denexa)", "King (Denexa rules)"),
        ("kung_och_adel(deals=3)", "Kung och Adel, 3 deals"),
        ("priffe(rubbers_per_game=2)", "Priffe, 2 rubbers"),
        ("priffe(rubbers_per_game=1)", "Priffe, 1 rubber"),
        ("priffe(players=3,rubbers_per_game=2)", "Priffe, 3 players, 2 rubbers"),
        ("kingen(must_trump=true)", "Kingen, own rules"),
    ],
)
def test_a_game_has_a_name_for_people(game: str, name: str) -> None:
    assert load_game(game).display_name == name


def test_seats_their_roles_and_the_dummy() -> None:
    three = load_game("priffe(players=3)")
    assert three.seat_roles == (SeatRole.PLAYER,) * 3 + (SeatRole.DUMMY,)
    assert (three.dummy_seat, three.player_seats, three.dummy_name) == (3, (0, 1, 2), "the träkarl")
    four = load_game("priffe")
    assert (four.dummy_seat, four.player_seats) == (-1, (0, 1, 2, 3))
    assert load_game("kingen(players=5)").player_seats == (0, 1, 2, 3, 4)


def test_length_partnerships_and_fixed_deals() -> None:
    assert load_game("priffe(rubbers_per_game=4)").match_length == 4
    assert load_game("kung_och_adel").length_option == "deals"
    assert load_game("kingen").length_option is None
    assert load_game("kingen").match_length is None
    priffe = load_game("priffe")
    assert (priffe.partnership_play, priffe.partnerships_rotate) == (True, True)
    assert priffe.scoring_unit.singular == "rubber"
    assert not load_game("king").partnership_play
    for family in ("kingen", "kung_och_adel"):
        game = load_game(family)
        assert not game.deals_fixed_by_seed
        hint = game.fixed_deals_options
        assert hint is not None
        assert load_game(f"{family}({hint})").deals_fixed_by_seed


@pytest.mark.parametrize("path", sorted(GOLDEN.glob("priffe*.json")), ids=lambda p: p.name)
def test_priffes_rubbers_add_up_to_the_games_scores(path: Path) -> None:
    state = replay_record(path.read_text())
    units = state.game.partnership_units(state)
    assert [u["number"] for u in units] == list(range(1, len(units) + 1))
    assert sum(u["deals"] for u in units) == len(state.deal_scores)
    for seat, score in enumerate(state.scores()):
        assert sum(u["points"][seat] for u in units) == score
    assert load_game("kingen").partnership_units(state) == []


@pytest.mark.parametrize("path", sorted(GOLDEN.glob("*.json")), ids=lambda p: p.name)
def test_every_action_played_has_a_plain_label(path: Path) -> None:
    state = replay_record(path.read_text())
    game = state.game
    labels = game.action_labels()
    for _, seat, action in state.history:
        if seat == CHANCE:
            continue
        assert isinstance(action, int)
        verb = game.action_to_string(action).split(" ", 1)[0]
        assert verb in labels, f"{game.family}: no label for {verb!r}"
        assert game.action_label(action) == labels[verb]


def test_every_built_in_family_names_itself_and_its_examples_load() -> None:
    for name, family in FAMILIES.items():
        assert family.title, name
        for example in family.example_games():
            assert load_game(example).family == name
        assert load_game(family.short_game_string()).family == name


def test_a_family_registers_and_unregisters() -> None:
    with pytest.raises(InvalidGameError, match="unknown game 'toy_tricks'"):
        load_game("toy_tricks")
    register_family(ToyGame)
    try:
        assert load_game("toy_tricks").display_name == "Toy Tricks, 2 deals"
    finally:
        unregister_family("toy_tricks")
    assert "toy_tricks" not in FAMILIES

    class Bad(ToyGame):
        family = "not a name"

    with pytest.raises(InvalidGameError, match="not a family name"):
        register_family(Bad)
