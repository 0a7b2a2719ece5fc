"""The double-dummy solver against exhaustive search through the engine itself.

Positions come from games played by the greedy players (every family, the contract kinds
of each: Kingen's six negative contracts and trumps, King's negative and positive hands,
Priffe's suit, noll, spel and misère with and without the träkarl, Kung och Adel's
quotas), stopped when every hand holds at most four cards, at the start of a trick or in
the middle of one. The reference plays every legal card through ``apply_action`` and
reads the deal's score from the engine: the engine stays the referee of both the legal
cards and the scores.
"""

from __future__ import annotations

import dataclasses
import importlib.machinery
import importlib.util
import random
import shutil
import subprocess
import sysconfig
from pathlib import Path
from typing import Any

import pytest

from engine.cards import BIT
from engine.double_dummy import (
    _c_arguments,
    compiled_available,
    legal_mask,
    problem_of,
    solve,
    solve_problem,
)
from engine.game import State, TrickTakingState
from engine.players import make_player
from engine.variants import load_game

GAMES = (
    "kingen",
    "kingen(rules=iwwa)",
    "kingen(players=3,rules=iwwa)",
    "kingen(players=5,undertrump_policy=no_undertrump,must_overtrump=true)",
    "dubbelkingen",
    "king",
    "king(rules=denexa)",
    "king(heart_lead_rule=after_broken,k_hearts_forced=on_void_or_cannot_win,must_trump=true)",
    "king(k_hearts_forced=on_void,down_payment=capped)",
    "kung_och_adel",
    "kung_och_adel(rank_update=by_margin)",
    "priffe",
    "priffe(players=3)",
)


def _positions(game_string: str, seeds: range, cards: int) -> list[TrickTakingState[Any]]:
    """Positions with at most ``cards`` cards a hand, one per deal, from greedy games."""
    game = load_game(game_string)
    found: list[TrickTakingState[Any]] = []
    for seed in seeds:
        rng = random.Random(seed)
        state = game.new_initial_state(seed=seed)
        players = [make_player("greedy", seed * 7 + s) for s in range(game.num_seats)]
        stop_at = rng.randrange(game.num_seats)  # cards already in the trick when stopping
        taken = -1
        while not state.is_terminal():
            if (
                isinstance(state, TrickTakingState)
                and state.phase == "play"
                and state.current_seat >= 0
                and max(h.bit_count() for h in state.hands) <= cards
                and len(state.trick) == stop_at
                and taken != state.deal_number
                and len(state.legal_actions()) > 1
            ):
                copy = state.clone()
                assert isinstance(copy, TrickTakingState)
                copy.rng = None
                copy.stop_after_deal = True
                found.append(copy)
                taken = state.deal_number
                stop_at = rng.randrange(game.num_seats)
            seat = state.acting_seat()
            state.apply_action(players[seat].choose(state.view_for(seat)), seat=seat)
            if len(found) >= 12:
                return found
    return found


def _exhaustive(
    state: State[Any], me: int, side: tuple[int, ...], alpha: float, beta: float
) -> int:
    if state.current_seat < 0:
        return state.deal_scores[-1][me]
    maximize = state.acting_seat() in side
    best = -(10**9) if maximize else 10**9
    for action in state.legal_actions():
        child = state.clone()
        child.apply_action(action)
        value = _exhaustive(child, me, side, alpha, beta)
        if maximize:
            best = max(best, value)
            alpha = max(alpha, value)
        else:
            best = min(best, value)
            beta = min(beta, value)
        if alpha >= beta:
            break
    return best


def _reference(state: TrickTakingState[Any]) -> dict[int, int]:
    me = state.acting_seat()
    side = state.solver_scoring(me).side
    values = {}
    for action in state.legal_actions():
        child = state.clone()
        child.apply_action(action)
        values[action] = _exhaustive(child, me, side, -(10**9), 10**9)
    return values


@pytest.mark.parametrize("game_string", GAMES)
def test_the_solver_matches_exhaustive_search(game_string: str) -> None:
    positions = _positions(game_string, range(40), 4 if "priffe" in game_string else 3)
    assert len(positions) >= 6
    for state in positions:
        expected = _reference(state)
        assert solve(state, compiled=False) == expected, state.contract_name()
        if compiled_available():
            assert solve(state, compiled=True) == expected, state.contract_name()


def test_every_contract_kind_is_met() -> None:
    """The positions above cover each family's contract kinds (the test would pass
    vacuously if the games never reached some)."""
    names = set()
    for game_string in GAMES:
        for state in _positions(game_string, range(40), 4):
            names.add((load_game(game_string).family, state.contract_name().split(" (")[0]))
    for kind in ("tricks", "hearts", "kings_jacks", "queens", "king_of_hearts", "seventh_last"):
        assert ("kingen", kind) in names
    assert ("kingen", "trumps") in names
    assert {n for f, n in names if f == "king"} >= {"tricks", "hearts", "up", "down"} or any(
        f == "king" and ("up" in n or "down" in n) for f, n in names
    )
    assert any(f == "priffe" and n == "noll" for f, n in names)


@pytest.mark.parametrize("game_string", GAMES)
def test_the_solvers_legal_cards_are_the_engines(game_string: str) -> None:
    game = load_game(game_string)
    checked = 0
    for seed in range(6):
        state = game.new_initial_state(seed=seed)
        players = [make_player("greedy", seed + s) for s in range(game.num_seats)]
        while not state.is_terminal():
            if isinstance(state, TrickTakingState) and state.phase == "play":
                seat = state.current_seat
                led = state.led_suit if state.trick else -1
                win = state.win_card if state.trick else -1
                suits_led = sum({1 << cards[0] // 13 for _, cards, _ in state.completed})
                mask = legal_mask(
                    state.solver_play_rules(),
                    state.hands[seat],
                    led,
                    win,
                    state.trump,
                    state.played,
                    suits_led,
                )
                assert mask == state.legal_play_mask(), state.contract_name()
                checked += 1
            seat = state.acting_seat()
            state.apply_action(players[seat].choose(state.view_for(seat)), seat=seat)
    assert checked > 100


def test_values_do_not_change_when_equivalent_cards_are_swapped() -> None:
    """A card in hand and a played card of the same suit with nothing in play between
    them are interchangeable: giving the hand the played card changes no value."""
    swaps = 0
    for game_string in ("kingen", "king", "priffe", "kung_och_adel"):
        for state in _positions(game_string, range(30), 4):
            p = problem_of(state)
            in_play = 0
            for h in p.hands:
                in_play |= h
            for c in p.trick:
                in_play |= BIT[c]
            for held in range(52):
                owner = next((s for s, h in enumerate(p.hands) if h >> held & 1), -1)
                if owner < 0:
                    continue
                for gone in (held - 1, held + 1):
                    if not 0 <= gone < 52 or gone // 13 != held // 13:
                        continue
                    if not p.played >> gone & 1 or in_play >> gone & 1 or gone in p.trick:
                        continue
                    if p.card_points[gone] != p.card_points[held]:
                        continue
                    marks = (p.rules.follow_penalty, p.rules.discard_penalty)
                    if any((m >> gone & 1) != (m >> held & 1) for m in marks):
                        continue
                    if {held, gone} & {p.rules.forced_card, p.rules.forced_when_beaten_by}:
                        continue
                    hands = list(p.hands)
                    hands[owner] ^= BIT[held] | BIT[gone]
                    swapped = dataclasses.replace(
                        p, hands=tuple(hands), played=p.played ^ BIT[held] ^ BIT[gone]
                    )
                    before = solve_problem(p, compiled=False)
                    after = solve_problem(swapped, compiled=False)
                    rename = {gone: held}
                    assert {rename.get(c, c): v for c, v in after.items()} == before
                    swaps += 1
                    break
    assert swaps > 20


def test_the_solver_reads_positions_only() -> None:
    state = _positions("kingen(rules=iwwa)", range(3), 4)[0]
    before = (list(state.hands), list(state.trick), list(state.log), state.current_seat)
    solve(state, compiled=False)
    if compiled_available():
        solve(state, compiled=True)
    assert (list(state.hands), list(state.trick), list(state.log), state.current_seat) == before


@pytest.mark.skipif(not compiled_available(), reason="the compiled solver was not built")
@pytest.mark.parametrize("game_string", GAMES)
def test_the_compiled_prunings_and_kept_table_change_no_value(game_string: str) -> None:
    """The compiled search prunes with bounds the pure-Python one does not use (the
    outcome reachable from each count vector, the last trick played without search) and
    keeps its transposition table from one solve to the next while the deal's constants
    are the same. On larger endgames (five cards a hand) and on deals redrawn from them
    (the other seats' cards dealt again, as the solver bot's samples are), solved one
    after another without emptying the table, it gives the pure-Python values."""
    rng = random.Random(game_string)
    positions = _positions(game_string, range(40), 5)
    assert len(positions) >= 6
    compared = 0
    for state in positions:
        p = problem_of(state)
        acting = state.acting_seat()
        problems = [p]
        others = [s for s in range(p.num_seats) if s != acting]
        pool = [c for s in others for c in range(52) if p.hands[s] >> c & 1]
        for _ in range(3):
            rng.shuffle(pool)
            hands = list(p.hands)
            at = 0
            for s in others:
                size = p.hands[s].bit_count()
                hands[s] = sum(BIT[c] for c in pool[at : at + size])
                at += size
            problems.append(dataclasses.replace(p, hands=tuple(hands)))
        for problem in problems:
            assert solve_problem(problem, compiled=True) == solve_problem(problem, compiled=False)
            compared += 1
    assert compared >= 24


def _build_verifying_solver(directory: Path) -> Any:
    """engine/_dds.c built with -DVERIFY into ``directory``: each answer its table gives
    is checked against a search of the same position without the table."""
    compiler = shutil.which("gcc") or shutil.which("cc")
    if compiler is None:
        pytest.skip("no C compiler")
    source = Path(__file__).resolve().parents[2] / "engine" / "_dds.c"
    target = directory / "_dds_verify.so"
    include = sysconfig.get_paths()["include"]
    subprocess.run(
        [
            compiler,
            "-O1",
            "-DVERIFY",
            "-shared",
            "-fPIC",
            f"-I{include}",
            str(source),
            "-o",
            str(target),
        ],
        check=True,
        capture_output=True,
    )
    loader = importlib.machinery.ExtensionFileLoader("_dds", str(target))
    spec = importlib.util.spec_from_file_location("_dds", str(target), loader=loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


@pytest.mark.skipif(not compiled_available(), reason="the compiled solver was not built")
def test_the_tables_winning_ranks_give_only_true_bounds(tmp_path: Path) -> None:
    """An entry of the compiled solver's table keeps only the top cards of each suit that
    decided its bounds, so it answers for other positions too (the same lengths, the same
    holders of those cards, other low cards). Every such answer, in every family, on
    positions solved one after another with the table kept (and on deals redrawn from
    them), is checked by the verifying build against a search without the table: none is
    wrong, and many were given."""
    solver = _build_verifying_solver(tmp_path)
    rng = random.Random(7)
    for game_string in GAMES:
        for state in _positions(game_string, range(12), 6):
            p = problem_of(state)
            acting = state.acting_seat()
            others = [s for s in range(p.num_seats) if s != acting]
            pool = [c for s in others for c in range(52) if p.hands[s] >> c & 1]
            for _ in range(2):
                answer = solver.solve(_c_arguments(p), 0)
                assert answer is not None
                rng.shuffle(pool)
                hands, at = list(p.hands), 0
                for s in others:
                    size = p.hands[s].bit_count()
                    hands[s] = sum(BIT[c] for c in pool[at : at + size])
                    at += size
                p = dataclasses.replace(p, hands=tuple(hands))
    checks, failures = solver.verified()
    assert failures == 0
    assert checks > 1000
