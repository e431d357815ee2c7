"""Kill the service mid-game (SIGKILL), start it again: the same game, the same state, the same PIN."""

from __future__ import annotations

import random

from companion.bots import GreedyBot
from companion.rules import GameState

from .service_process import ServiceProcess


def test_restart_after_sigkill_shows_the_same_game(tmp_path):
    data = tmp_path / "data"
    first = ServiceProcess(data)
    try:
        status, answer = first.post_json("/setup", {"players": ["Anke", "Ben", "Carla"], "start_player": 2})
        assert status == 200, answer
        bot, rng = GreedyBot(1), random.Random(1)
        for _ in range(7):
            state = GameState.from_json(first.get_json("/api/state"))
            status, answer = first.post_json("/move", bot.choose_action(state, rng).to_json())
            assert status == 200, answer
        drawn = next(e["action"] for e in first.get_json("/api/state")["log"]
                     if e["kind"] == "move" and e["action"]["place"])
        status, answer = first.post_json("/correct", {"player": drawn["player"], "cell": drawn["place"][0]["cell"],
                                                      "item": "."})
        assert status == 200, answer
        before = first.get_json("/api/state")
        page_before = first.get_text("/")
        pin = first.pin
    finally:
        first.kill()
    second = ServiceProcess(data)
    try:
        assert second.pin == pin
        after = second.get_json("/api/state")
        for key in ("game_id", "players", "current_player", "pirate_boxes", "log", "dispute", "tally"):
            assert after[key] == before[key], key
        assert len([e for e in after["log"] if e["kind"] in ("move", "override")]) == 7
        page_after = second.get_text("/")
        for p in before["players"]:
            assert f">{p['vp']}<" in page_after
        assert page_after.count('class="ev ') == page_before.count('class="ev ')
        # and the game goes on
        state = GameState.from_json(after)
        status, _ = second.post_json("/move", GreedyBot(2).choose_action(state, random.Random(2)).to_json())
        assert status == 200
    finally:
        second.stop()
