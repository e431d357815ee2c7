"""A camera that sends no colour (a monochrome camera, a webcam's saturation at 0): the frame's observation says so,
and the tracker tells the players, since the dice are told apart by their colours."""

from __future__ import annotations

import cv2
import numpy as np

from companion.store import GameStore
from companion.tracker import Tracker
from vision.imaging import has_colour
from vision.observation import DOUBTFUL_DIE_BELOW, Observation
from vision.pipeline import TableReader
from vision.synth.table import TableSpec, render_table


def test_a_grey_frame_has_no_colour_and_a_dim_table_still_has():
    frame, _ = render_table(TableSpec.random(np.random.default_rng(3), n_boards=2, camera_cm=75),
                            np.random.default_rng(3))
    grey = cv2.cvtColor(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    assert has_colour(frame) and has_colour((frame * 0.35).astype(np.uint8))
    assert not has_colour(grey) and not has_colour(grey[:, :, 0])
    # Sensor noise of a few levels per channel on a grey picture is no colour either.
    noisy = np.clip(grey.astype(np.int16) + np.random.default_rng(1).integers(-2, 3, grey.shape), 0, 255)
    assert not has_colour(noisy.astype(np.uint8))
    reader = TableReader(language="en")
    coloured, colourless = reader.read_full(frame), reader.read_full(grey)
    assert coloured.extra["colourless"] is False and colourless.extra["colourless"] is True
    # Dice told apart by their colours are guesses on a grey frame: every one doubted, where in colour they are not.
    assert colourless.dice and all(d.confidence < DOUBTFUL_DIE_BELOW for d in colourless.dice)
    assert coloured.dice and all(d.confidence >= DOUBTFUL_DIE_BELOW for d in coloured.dice)


def test_the_players_are_told_when_the_camera_sends_no_colour(tmp_path):
    store = GameStore(tmp_path)
    try:
        t = Tracker.start_game(store, ["Anke", "Ben"], start_player=0)
        t.observe(Observation(extra={"colourless": True}))
        assert any("The camera sends no colour" in w for w in t.warnings), t.warnings
        t.observe(Observation(extra={"colourless": False}))
        assert not any("no colour" in w for w in t.warnings), t.warnings
    finally:
        store.close()
