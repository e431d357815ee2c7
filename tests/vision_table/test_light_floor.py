"""A tray floor nearly as light as the dice (hardware.md §1 asks for one visibly darker): the frame's observation says
so, measured against the stickers' white paper, and the tracker tells the players."""

from __future__ import annotations

import numpy as np
import pytest

from companion.store import GameStore
from companion.tracker import Tracker
from vision.dice.reader import NEAR_WHITE_FLOOR_FROM, DiceReader
from vision.observation import Observation
from vision.pipeline import TableReader
from vision.synth.dice import TrayLook, tray_scene


def _lightness(floor: str, seed: int) -> tuple[float, bool]:
    """(the floor's lightness as the dice reader measured it, what the frame's observation says) of a tray scene."""
    frame, _, _ = tray_scene(np.random.default_rng(seed), look=TrayLook(floor))
    reader = TableReader(language="en")
    observation = reader.read_full(frame)
    assert observation.dice is not None  # the tray was read
    return reader.dice_reader.floor_lightness, observation.extra["tray_floor_light"]


@pytest.mark.parametrize(("floor", "light"), [("black", False), ("green felt", False), ("light grey", False),
                                               ("beige", False), ("cream", False), ("pale grey", False),
                                               ("white paper", True)])
def test_a_floor_as_light_as_the_dice_is_told_and_the_floors_that_read_are_not(floor, light):
    lightness, told = _lightness(floor, 11)
    assert told is light, lightness
    assert (lightness >= NEAR_WHITE_FLOOR_FROM) is light
    # The measure is the floor's own: dark floors far under it, light grey and beige under it with room.
    if floor in ("black", "green felt"):
        assert lightness < 0.45
    if floor in ("light grey", "beige", "cream", "pale grey"):
        assert lightness < NEAR_WHITE_FLOOR_FROM - 0.02
    if floor == "white paper":
        assert lightness > 0.9


def test_a_reader_remembers_no_floor_of_another_table():
    reader = DiceReader()
    assert reader.floor_lightness is None
    reader.floor_lightness = 0.9
    reader.forget()
    assert reader.floor_lightness is None


def test_the_players_are_told_while_the_tray_floor_is_light(tmp_path):
    store = GameStore(tmp_path)
    try:
        t = Tracker.start_game(store, ["Anke", "Ben"], start_player=0)
        t.observe(Observation(extra={"tray_floor_light": True}))
        assert any("tray's floor is nearly as light as the dice" in w for w in t.warnings), t.warnings
        t.observe(Observation(extra={}))  # the tray not read this frame: still the same floor
        assert any("nearly as light" in w for w in t.warnings), t.warnings
        t.observe(Observation(extra={"tray_floor_light": False}))
        assert not any("nearly as light" in w for w in t.warnings), t.warnings
    finally:
        store.close()
