"""``companion tally --game castles-of-tuscany|dice-settlers STATE.json``: the examples' totals, bad input
in one line with exit status 2, and Saint Malo's tally unchanged without --game."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from companion import cli
from companion.rules import GameState, final_tally

from .examples import ANNA, BENNO, SETTLERS_EXAMPLE

SAINT_MALO_STATE = {
    "players": [
        {"name": "Anke", "city": ["#WWWWW#", "WGGcc.W", "WG.a..W", "WG..1.W", "W.....W", "W..HH.W", "#WWWWW#"],
         "coins": 3, "logs": 2, "vp": 11, "cannons_lost": 1},
        {"name": "Ben", "city": ["#.....#", ".GG....", ".G.....", ".G.....", ".......", ".......", "#.....#"],
         "coins": 7, "logs": 0, "vp": 4, "cannons_lost": 0},
    ],
    "pirate_boxes": 3, "current_player": 0,
}


def run(capsys, argv):
    code = cli.main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def write(tmp_path, data, name="state.json"):
    path = tmp_path / name
    path.write_text(json.dumps(data) if not isinstance(data, str) else data, encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("game", ["castles-of-tuscany", "castles_of_tuscany"])
def test_tuscany_tally(tmp_path, capsys, game):
    code, out, err = run(capsys, ["tally", "--game", game, write(tmp_path, {"players": [ANNA, BENNO]})])
    assert code == 0 and err == ""
    result = json.loads(out)
    assert [(p["name"], p["total"]) for p in result["players"]] == [("Anna", 77), ("Benno", 78)]
    assert result["winners"] == ["Benno"]
    assert result["players"][0]["orange_after_scoring3"] == 72


def test_settlers_tally(tmp_path, capsys):
    code, out, err = run(capsys, ["tally", "--game", "dice-settlers", write(tmp_path, SETTLERS_EXAMPLE)])
    assert code == 0 and err == ""
    result = json.loads(out)
    assert [(p["name"], p["total"]) for p in result["players"]] == [("Anna", 72), ("Bruno", 62)]
    assert result["winners"] == ["Anna"]


def test_saint_malo_stays_the_default_byte_for_byte(tmp_path, capsys):
    path = write(tmp_path, SAINT_MALO_STATE)
    expected = json.dumps(final_tally(GameState.from_json(SAINT_MALO_STATE)).to_json()) + "\n"
    code, out, _ = run(capsys, ["tally", path])
    assert code == 0 and out == expected
    code, out, _ = run(capsys, ["tally", "--game", "saint-malo", path])
    assert code == 0 and out == expected


def test_standard_input(capsys, monkeypatch):
    import io
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(json.dumps(SETTLERS_EXAMPLE).encode())))
    code, out, _ = run(capsys, ["tally", "--game", "dice-settlers", "-"])
    assert code == 0 and json.loads(out)["winners"] == ["Anna"]


@pytest.mark.parametrize("game, data, words", [
    ("chess", {"players": []}, "unknown game 'chess'"),
    ("dice-settlers", "{not json", "malformed JSON"),
    ("dice-settlers", {"players": [{"name": "A", "dice_owned": 1}]}, "players"),
    ("dice-settlers", {**SETTLERS_EXAMPLE, "map": [{"id": 0}]}, "map[0].id"),
    ("castles-of-tuscany", {"players": [ANNA, {**BENNO, "empty_spaces": -2}]}, "players[1].empty_spaces"),
    ("castles-of-tuscany", [1, 2], "(top level)"),
    ("castles-of-tuscany", SETTLERS_EXAMPLE, "game"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, game, data, words):
    code, out, err = run(capsys, ["tally", "--game", game, write(tmp_path, data)])
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and words in err and "Traceback" not in err


def test_the_installed_command(tmp_path):
    path = write(tmp_path, {"players": [ANNA, BENNO]})
    done = subprocess.run([sys.executable, "-m", "companion", "tally", "--game", "castles-of-tuscany", path],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and json.loads(done.stdout)["winners"] == ["Benno"]
    done = subprocess.run([sys.executable, "-m", "companion", "tally", "--game", "dice-settlers", str(tmp_path / "no.json")],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "no.json" in done.stderr


def test_the_readme_examples_give_the_readme_outputs():
    import re
    from pathlib import Path

    from companion.games import get_game

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Two more games"):]
    blocks = [json.loads(b) for b in re.findall(r"```json\n(.*?)```", section, re.S)]
    assert len(blocks) == 4
    for state, expected in (blocks[0:2], blocks[2:4]):
        assert get_game(state["game"]).tally(state, "README.md") == expected
