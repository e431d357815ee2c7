"""Rules fixes found by a careful tester (issue 15): a pass turns nothing; a pass is allowed when only a
paid turn would allow an action; STATE files keep their printed crates and name every field; dispute
messages name the cell, the rule and the player. Each test quotes the rulebook line it rests on."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.cli import main
from companion.rules import GameState, judge, legal_actions
from companion.rules.state import StateError

ALL_OUTER_WALLS = {f"{c}1": "W" for c in "BCDEF"} | {f"{c}7": "W" for c in "BCDEF"} \
    | {f"A{r}": "W" for r in range(2, 7)} | {f"G{r}": "W" for r in range(2, 7)}


def test_a_pass_cannot_claim_turned_dice(h):
    """"Prima di risolvere i dadi, potete decidere di ruotarne uno o più tra quelli che non corrispondono
    al simbolo che avete deciso di risolvere" and "Le spade incrociate sono assolutamente proibite quando si
    ruotano i dadi" (000, Risoluzione dei dadi): dice are turned to the symbol chosen; a pass chooses none,
    so it turns none, least of all swords, and is charged nothing."""
    state = h.state_of({"coins": 10, "city": ALL_OUTER_WALLS})
    for turned in (1, 4):
        verdict = judge(state, h.act(None, dice=["swords"] * 4 + ["wall"], turned=turned))
        assert "pass.turned" in h.rules_of(verdict)
        assert not verdict.legal
    honest = judge(state, h.act(None, dice=["swords"] * 4 + ["wall"]))
    assert honest.legal and honest.state.players[0].coins == 10


def test_a_pass_is_allowed_when_only_a_paid_turn_would_allow_an_action(h):
    """"potete decidere di ruotarne uno o più" (000, Risoluzione dei dadi): turning costs 2 coins and is a
    choice, never a duty. With four swords and a wall, every outer space walled, only turning the wall die
    (paid) would allow an action, so the player may pass and only marks the swords."""
    state = h.state_of({"coins": 10, "city": ALL_OUTER_WALLS})
    dice = ["swords"] * 4 + ["wall"]
    verdict = judge(state, h.act(None, dice=dice))
    assert verdict.legal, verdict.errors
    options = legal_actions(state, dice)
    assert any(a.symbol is None for a in options)  # the pass is one option ...
    assert any(a.symbol == "crate" and a.turned == 1 for a in options)  # ... paying to turn is another


def test_must_use_says_which_move_was_possible(h):
    """"dovete scegliere uno di questi cinque simboli da usare" (000, Risoluzione dei dadi): with a die that
    can be used as it fell, passing is refused, and the verdict says what was possible."""
    state = h.state_of({"coins": 10})
    verdict = judge(state, h.act(None, dice=["swords"] * 3 + ["crate", "wall"]))
    must = [e.message for e in verdict.errors if e.rule == "action.must_use"]
    assert must and "1 die shows crate: a crate in an empty space was possible" in must[0]


def test_too_few_crosses_names_the_church_its_cell_and_the_size_rule(h):
    """"Se avete tirato 3 croci, ad esempio, potete decidere di costruire una chiesa, di dimensione 1, 2 o 3"
    (000): a church's size is the number of crosses used."""
    state = h.state_of({"coins": 0})
    verdict = judge(state, h.act("cross", {"D4": "3"}, dice=["cross", "swords", "swords", "wall", "wall"]))
    message = next(e.message for e in verdict.errors if e.rule == "dice.too_few")
    assert "church of size 3 at D4 needs 3 crosses" in message and "number of crosses used" in message


def test_too_few_heads_names_the_person_its_cell_and_the_level_rule(h):
    """"Con tre teste verdi potete aggiungere un "Architetto" o un "Mercante"." (000): a person's level is
    the number of heads used."""
    state = h.state_of({"coins": 0})
    verdict = judge(state, h.act("head", {"E5": "m"}, dice=["head", "head", "wall", "wall", "wall"]))
    message = next(e.message for e in verdict.errors if e.rule == "dice.too_few")
    assert "merchant at E5 is a level-3 person and needs 3 heads" in message


def test_max_houses_names_the_cells(h):
    """"Quando aggiungete un architetto, potete immediatamente usare fino a tre tronchi non utilizzati
    presenti nella vostro deposito della legna per costruire delle case" (000): at most three houses."""
    state = h.state_of({"coins": 0, "logs": 5})
    place = {"D4": "a", "D5": "H", "E5": "H", "E4": "H", "C5": "H"}
    verdict = judge(state, h.act("head", place, dice=["head"] * 3 + ["wall", "wall"]))
    message = next(e.message for e in verdict.errors if e.rule == "architect.max_houses")
    assert "4 houses drawn at" in message and all(c in message for c in ("C5", "D5", "E4", "E5"))


def test_not_current_names_who_moved(h):
    """"Quindi sarà il turno del giocatore successivo e dei suoi tre lanci" (000): one player at a time."""
    state = h.state_of({"name": "Anke"}, {"name": "Bo"})
    verdict = judge(state, h.act("crate", {"D4": "G"}, dice=["crate"] * 5, player=1))
    message = next(e.message for e in verdict.errors if e.rule == "turn.not_current")
    assert "(Anke)" in message and "made by player 1 (Bo)" in message


def good_state() -> dict:
    return {"players": [{"name": "Anke", "city": ["#.....#", ".GG....", ".G.....", ".G.....", ".......",
                                                   ".......", "#.....#"], "coins": 3, "logs": 2, "vp": 0}],
            "pirate_boxes": 0, "current_player": 0}


def test_a_printed_crate_cannot_be_changed_in_a_state(tmp_path: Path, capsys):
    """"Ogni giocatore ha 4 casse di merci nella propria città all'inizio del gioco." (000): the four crates
    are printed on every city board; a STATE with one of them erased or drawn over is a mistake."""
    state = good_state()
    state["players"][0]["city"][1] = ".cG...."  # B2, a printed crate, holds a citizen
    with pytest.raises(StateError, match=r"players\[0\]\.city\[1\]: B2 is a crate printed"):
        GameState.from_json(state)
    path = tmp_path / "state.json"
    path.write_text(json.dumps(state))
    assert main(["tally", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "B2" in err


@pytest.mark.parametrize("field", ["coins", "logs", "vp"])
def test_a_state_without_coins_logs_or_points_names_the_field(field: str, tmp_path: Path, capsys):
    """"Ogni giocatore ha 3 monete all'inizio del gioco." / "Ogni giocatore ha due tronchi all'inizio del
    gioco." (000): these are a table's starting values, not a default for a field left out of a file."""
    state = good_state()
    del state["players"][0][field]
    path = tmp_path / "state.json"
    path.write_text(json.dumps(state))
    assert main(["tally", str(path)]) == 2
    assert f"players[0].{field}: missing" in capsys.readouterr().err
