"""Whole recorded games through the tracker: every move, score and the final tally as the engine had them."""

from __future__ import annotations

import pytest

from companion.tracker import Tracker

from .conftest import play_turn, recorded_game


def normal(action):
    """The same move whatever order its drawings and dice were listed in."""
    return {**action, "place": sorted(action["place"], key=lambda p: p["cell"]), "dice": sorted(action["dice"])}


@pytest.mark.parametrize(("n_players", "seed"), [(2, 11), (3, 5), (4, 23), (5, 8)])
def test_recorded_game_gives_the_right_moves_and_tally(store, n_players, seed):
    record, result = recorded_game(n_players, seed)
    names = [p["name"] for p in record[0]["state"]["players"]]
    tracker = Tracker.start_game(store, names, start_player=record[0]["state"]["current_player"])
    sources = []
    for k, step in enumerate(record):
        sources.append(play_turn(tracker, step["state"], step["action"]))
        assert tracker.dispute is None, (k, tracker.dispute)
        want = record[k + 1]["state"] if k + 1 < len(record) else result.final_state.to_json()
        assert tracker.state.to_json()["players"] == want["players"], f"turn {k}"
        assert tracker.state.to_json()["pirate_boxes"] == want["pirate_boxes"]
    # the camera explains almost every turn; the rest were typed in
    assert sources.count("camera") >= 0.8 * len(sources)
    recorded_moves = [normal(e["action"]) for e in store.events(tracker.game_id) if e["type"] == "move"]
    assert recorded_moves == [normal(s["action"]) for s in record]
    assert tracker.finished
    assert tracker.tally == result.tally.to_json()
    games = store.list_games()
    assert games[0]["tally"] == result.tally.to_json() and games[0]["finished"]
    assert store.current_game() is None


def test_restart_resumes_the_same_game(store, tmp_path):
    record, _ = recorded_game(3, 5)
    names = [p["name"] for p in record[0]["state"]["players"]]
    tracker = Tracker.start_game(store, names, start_player=record[0]["state"]["current_player"])
    for step in record[:20]:
        play_turn(tracker, step["state"], step["action"])
    again = Tracker(store, store.current_game())
    assert again.state.to_json() == tracker.state.to_json()
    assert [e.to_json() for e in again.log] == [e.to_json() for e in tracker.log]
    assert again.state.to_json()["players"] == record[20]["state"]["players"]
