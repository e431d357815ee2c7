"""tally / check / simulate through the real command (companion.cli.main)."""

import io
import json

import pytest

from companion.cli import main
from companion.rules import GameState

ACTION = {"player": 0, "dice": ["head", "head", "wall", "head", "swords"], "symbol": "head", "turned": 0,
          "place": [{"cell": "D4", "item": "a"}, {"cell": "E5", "item": "H"}, {"cell": "E6", "item": "H"}],
          "logs": 0}


@pytest.fixture
def state_file(tmp_path):
    path = tmp_path / "state.json"
    path.write_text(json.dumps(GameState.new(["Anke", "Stefan"]).to_json()))
    return path


def _write(tmp_path, name, data):
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return str(path)


def test_tally(state_file, capsys):
    assert main(["tally", str(state_file)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["winners"] == ["Anke", "Stefan"]
    assert out["players"][0] == {"name": "Anke", "vp": 0, "full_city": 0, "coins": 1, "logs": 2, "churches": 0,
                                 "cannons": 0, "total": 3, "empty_spaces": 41}


def test_tally_from_stdin(state_file, capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO(state_file.read_text()))
    assert main(["tally", "-"]) == 0
    assert json.loads(capsys.readouterr().out)["players"][1]["name"] == "Stefan"


def test_check_legal_from_stdin(state_file, capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(ACTION)))
    assert main(["check", str(state_file), "-"]) == 0
    verdict = json.loads(capsys.readouterr().out)
    assert verdict["legal"] is True and verdict["errors"] == []
    assert verdict["effects"] == {"vp": 6, "coins": 0, "logs": -2, "pirate_boxes": 1, "attacks": []}
    assert verdict["state"]["players"][0]["city"][3] == ".G.a..."
    assert verdict["state"]["current_player"] == 1


def test_check_illegal_exits_0_with_errors(state_file, tmp_path, capsys):
    action = dict(ACTION, place=[{"cell": "D4", "item": "a"}, {"cell": "F6", "item": "H"}])
    assert main(["check", str(state_file), _write(tmp_path, "a.json", action)]) == 0
    verdict = json.loads(capsys.readouterr().out)
    assert verdict["legal"] is False
    assert verdict["errors"][0]["rule"] == "architect.adjacent"
    assert verdict["state"] == json.loads(state_file.read_text())


@pytest.mark.parametrize(("action", "needle"), [
    (dict(ACTION, place=[{"cell": "H9", "item": "a"}]), "place[0].cell: unknown cell 'H9' (cells are A1..G7)"),
    (dict(ACTION, symbol="fish"), "symbol: unknown symbol 'fish'"),
    (dict(ACTION, player=4), "player: 4 is not a player index"),
    ("{not json", "malformed JSON at line 1"),
])
def test_check_bad_action_one_line_exit_2(state_file, tmp_path, capsys, action, needle):
    path = _write(tmp_path, "action.json", action)
    assert main(["check", str(state_file), path]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert needle in err and "action.json" in err


def test_bad_state_and_missing_file(tmp_path, capsys):
    assert main(["tally", _write(tmp_path, "s.json", {"players": [], "pirate_boxes": 0})]) == 2
    assert "s.json: players:" in capsys.readouterr().err
    assert main(["tally", str(tmp_path / "nope.json")]) == 2
    err = capsys.readouterr().err
    assert "nope.json: cannot read" in err and err.count("\n") == 1


def test_simulate_summary(capsys):
    assert main(["simulate", "--players", "3", "--games", "5", "--seed", "1"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["games"] == 5 and out["players"] == 3 and len(out["average_score"]) == 3
    assert sum(out["wins"]) >= 5 and out["average_rounds"] > 5 and out["average_attacks"] <= 6
    assert main(["simulate", "--players", "3", "--games", "5", "--seed", "1"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["average_score"] == out["average_score"]  # seeded: same games


def test_simulate_with_bots_and_bad_arguments(capsys):
    assert main(["simulate", "--players", "2", "--games", "1", "--seed", "2", "--bots", "greedy,random"]) == 0
    assert json.loads(capsys.readouterr().out)["bots"] == ["greedy", "random"]
    assert main(["simulate", "--players", "7", "--games", "1"]) == 2
    assert "--players: 7" in capsys.readouterr().err
    assert main(["simulate", "--players", "2", "--games", "1", "--bots", "clever"]) == 2
    assert "unknown bot 'clever'" in capsys.readouterr().err


def test_check_command_accepts_bot_moves_and_returns_the_engine_state(tmp_path, capsys):
    import random

    from companion.bots import GreedyBot, RandomBot
    from companion.simulate import play_game

    record: list[dict] = []
    play_game(3, [RandomBot(), GreedyBot(), RandomBot()], random.Random(5), record=record)
    for k in range(0, len(record) - 1, max(1, len(record) // 25)):
        state_path = _write(tmp_path, "s.json", record[k]["state"])
        action_path = _write(tmp_path, "a.json", record[k]["action"])
        assert main(["check", state_path, action_path]) == 0
        verdict = json.loads(capsys.readouterr().out)
        assert verdict["legal"], verdict["errors"]
        assert verdict["state"] == record[k + 1]["state"]
