from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from vision.observation import BoardReading, DieReading, Observation
from vision.stability import StabilityFilter, frame_sharpness, stable_observations

CITY = ("#.....#", ".GG....", ".G.....", ".G.....", ".......", ".......", "#.....#")
CITY_AFTER = ("#.....#", ".GG....", ".G.....", ".G.....", "...H...", ".......", "#.....#")
CONF = tuple((1.0,) * 7 for _ in range(7))


def obs(city=CITY, dice=("head", "head", "wall", "cross", "swords"), boxes=3, die_conf=0.99, uncertain=(), **extra):
    return Observation(
        boards=(BoardReading(0, city, CONF, tuple(uncertain)), BoardReading(1, CITY, CONF)),
        dice=tuple(DieReading(f, die_conf) for f in dice),
        pirate_boxes=boxes,
        extra={"sharpness": 400.0, **extra},
    )


def feed(filt: StabilityFilter, items) -> list[Observation]:
    return [c for o in items if (c := filt.push(o)) is not None]


def test_commits_once_when_the_scene_holds():
    filt = StabilityFilter(hold_frames=4)
    commits = feed(filt, [obs()] * 10)
    assert len(commits) == 1
    assert commits[0].board(0).city == CITY


def test_disturbances_never_commit_a_change():
    filt = StabilityFilter(hold_frames=4)
    assert len(feed(filt, [obs()] * 6)) == 1
    disturbances = (
        # a hand over board 0: the reader flags it, and it reads garbage under the hand
        [obs(city=CITY_AFTER, occluded_seats=[0])] * 8
        # a blurred frame reads different dice
        + [obs(dice=("log",) * 5, sharpness=40.0)] * 8
        # a die in the air: a doubtful face
        + [obs(dice=("log", "head", "wall", "cross", "swords"), die_conf=0.3)] * 8
        # board 0 with many doubtful cells (something over it that the diff missed)
        + [obs(city=CITY_AFTER, uncertain=["A2", "B5", "C5", "D4", "E4", "F6"])] * 8
        # the track's markers hidden: no reading of the track at all
        + [dataclasses.replace(obs(), pirate_boxes=None)] * 8
        # a flicker: a new reading that does not hold for hold_frames
        + [obs(boxes=4)] * 3 + [obs()]
    )
    assert feed(filt, disturbances) == []
    assert filt.distrusted_frames == 8  # the blurred frames; the others were distrusted in part


def test_real_change_commits_after_holding():
    filt = StabilityFilter(hold_frames=4)
    feed(filt, [obs()] * 5)
    commits = feed(filt, [obs(city=CITY_AFTER, occluded_seats=[0])] * 3 + [obs(city=CITY_AFTER)] * 6)
    assert len(commits) == 1
    assert commits[0].board(0).city == CITY_AFTER
    # the other board was carried along unchanged
    assert commits[0].board(1).city == CITY


def test_hold_seconds_is_respected():
    now = [0.0]
    filt = StabilityFilter(hold_frames=2, hold_seconds=1.0, clock=lambda: now[0])
    results = []
    for _ in range(5):
        results.append(filt.push(obs()))
        now[0] += 0.3
    assert [r is not None for r in results] == [False, False, False, False, True]


def test_sharpness_drops_for_a_blurred_frame():
    rng = np.random.default_rng(0)
    sharp = (rng.random((240, 320, 3)) * 255).astype(np.uint8)
    import cv2

    blurred = cv2.GaussianBlur(sharp, (0, 0), 4)
    assert frame_sharpness(blurred) < 0.1 * frame_sharpness(sharp)


class _ListSource:
    is_live = False

    def __init__(self, frames):
        self.frames = list(frames)

    def read(self):
        return self.frames.pop(0) if self.frames else None


class _ScriptedReader:
    def __init__(self, script):
        self.script = list(script)

    def read(self, frame):
        return self.script.pop(0)


def test_stable_observations_generator_yields_commits_in_order():
    script = [obs()] * 4 + [obs(boxes=4)] * 4
    frames = [np.zeros((4, 4, 3), np.uint8)] * len(script)
    out = list(stable_observations(_ListSource(frames), _ScriptedReader(script), hold_frames=3))
    assert [o.pirate_boxes for o in out] == [3, 4]
    assert out[1].frame_index == 6  # committed on the third frame of the new reading


@pytest.mark.parametrize("options", [{"hand": True}, {"motion_blur": True}, {"rolling_die": True}])
def test_rendered_disturbances_commit_nothing(options, table_spec, cell_stub):
    from vision.pipeline import TableReader
    from vision.synth.table import render_table

    rng = np.random.default_rng(7)
    reader = TableReader(cell_reader=cell_stub)
    filt = StabilityFilter(hold_frames=3)
    still = [render_table(table_spec, rng)[0] for _ in range(4)]
    commits = [c for f in still if (c := filt.push(reader.read(f))) is not None]
    assert len(commits) == 1
    assert sorted(commits[0].dice_faces) == sorted(table_spec.dice)
    assert commits[0].pirate_boxes == table_spec.pirate_boxes
    disturbed = dataclasses.replace(table_spec, **options)
    for _ in range(5):
        frame, truth = render_table(disturbed, rng)
        assert filt.push(reader.read(frame)) is None


def test_a_doubtful_reading_needs_a_longer_hold_but_gets_there():
    filt = StabilityFilter(hold_frames=3, doubt_factor=4)
    feed(filt, [obs()] * 4)
    changed = obs(dice=("log", "log", "wall", "cross", "swords"), die_conf=0.5)
    results = [filt.push(changed) is not None for _ in range(13)]
    assert results == [False] * 11 + [True, False]
    assert sorted(filt.committed.dice_faces) == ["cross", "log", "log", "swords", "wall"]


def _board(city, uncertain=(), alternatives=None):
    return BoardReading(0, city, CONF, tuple(uncertain), alternatives=alternatives or {})


# B2 holds a crate in CITY; the same drawing read in doubt as a wall in another frame.
CITY_B2_WALL = ("#.....#", ".WG....", ".G.....", ".G.....", ".......", ".......", "#.....#")


def test_a_drawing_read_in_doubt_as_another_symbol_keeps_its_committed_symbol():
    """A crate read at rest, then the same crate read in doubt as a wall (its crate reading still likely):
    nothing was drawn, so nothing is committed."""
    filt = StabilityFilter(hold_frames=4)
    assert len(feed(filt, [obs()] * 5)) == 1
    flipped = dataclasses.replace(
        obs(), boards=(_board(CITY_B2_WALL, ["B2"], {"B2": {"W": 0.62, "G": 0.35}}), BoardReading(1, CITY, CONF)))
    assert feed(filt, [flipped] * 30) == []
    assert filt.committed.board(0).city == CITY


@pytest.mark.parametrize("reading", [
    # read surely as a wall: the drawing did change (it was erased and drawn again)
    {"city": CITY_B2_WALL, "uncertain": (), "alternatives": {"B2": {"W": 0.999}}},
    # in doubt, but the committed crate is no longer a likely reading
    {"city": CITY_B2_WALL, "uncertain": ("B2",), "alternatives": {"B2": {"W": 0.7, "H": 0.25, "G": 0.02}}},
    # a new drawing on an empty space, however doubtful, is never held back
    {"city": CITY_AFTER, "uncertain": ("D5",), "alternatives": {"D5": {"H": 0.5, ".": 0.45}}},
])
def test_a_changed_drawing_still_commits(reading):
    filt = StabilityFilter(hold_frames=4)
    feed(filt, [obs()] * 5)
    changed = dataclasses.replace(obs(), boards=(_board(**reading), BoardReading(1, CITY, CONF)))
    commits = feed(filt, [changed] * 20)
    assert len(commits) == 1
    assert commits[0].board(0).city == reading["city"]
