"""Recorded synthetic games for the tracker: bots play, every turn becomes the observations a camera
would commit (dice in the tray, the drawing, the tray emptied)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from companion.bots import mixed_table
from companion.layout import draw_on_city
from companion.simulate import play_game
from companion.store import GameStore
from companion.tracker import infer_action
from vision.observation import BoardReading, DieReading, Observation

ONES = tuple(tuple(1.0 for _ in range(7)) for _ in range(7))


def board(seat: int, city: list[str], uncertain: tuple[str, ...] = ()) -> BoardReading:
    return BoardReading(seat=seat, city=tuple(city), confidence=ONES, uncertain=uncertain)


def dice_readings(faces: list[str]) -> tuple[DieReading, ...]:
    return tuple(DieReading(f, 1.0) for f in faces)


def observation(cities: list[list[str]], dice: list[str] | None, pirate_boxes: int | None = None,
                seats: list[int] | None = None) -> Observation:
    seats = seats or list(range(len(cities)))
    return Observation(boards=tuple(board(seats[i], c) for i, c in enumerate(cities)),
                       dice=None if dice is None else dice_readings(dice), pirate_boxes=pirate_boxes)


draw = draw_on_city


def camera_can_see(action: dict[str, Any]) -> bool:
    """Whether the camera alone explains this move (else the players enter it by hand)."""
    if action["place"]:
        inferred = infer_action(action["player"], action["dice"], action["place"])
        return inferred["symbol"] == action["symbol"] and inferred["turned"] == action["turned"]
    return action["turned"] == 0 and action["logs"] == action["dice"].count("log") \
        and (action["symbol"] == "log" or (action["symbol"] is None and "log" not in action["dice"]))


def recorded_game(n_players: int, seed: int) -> tuple[list[dict[str, Any]], Any]:
    bots = mixed_table(n_players, seed)
    record: list[dict[str, Any]] = []
    result = play_game(n_players, bots, random.Random(seed), start_player=seed % n_players, record=record)
    return record, result


def play_turn(tracker: Any, state: dict[str, Any], action: dict[str, Any]) -> str:
    """Show one turn to the tracker the way a camera commits it; returns 'camera' or 'hand'."""
    cities = [p["city"] for p in state["players"]]
    after = [draw(c, action["place"]) if i == action["player"] else c for i, c in enumerate(cities)]
    tracker.observe(observation(cities, action["dice"], state["pirate_boxes"]))
    if camera_can_see(action):
        if action["place"]:
            tracker.observe(observation(after, action["dice"]))
        tracker.observe(observation(after, []))
        return "camera"
    verdict = tracker.enter_move(action)
    assert verdict.legal, verdict.errors
    tracker.observe(observation(after, []))
    return "hand"


@pytest.fixture
def store(tmp_path):
    s = GameStore(tmp_path)
    yield s
    s.close()
