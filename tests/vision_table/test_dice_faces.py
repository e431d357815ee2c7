"""The face network (``vision.dice.faces``): a die's top face read from its crop's pixels, multiplied with the
classifier's reading of its features."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.dice.faces import FaceNetwork, combined, face_inks
from vision.dice.features import CROP_PX
from vision.dice.reader import DiceClassifier, DiceReader
from vision.dice.train import labelled_features
from vision.observation import DOUBTFUL_DIE_BELOW


@pytest.fixture(scope="module")
def network() -> FaceNetwork:
    return FaceNetwork()


@pytest.fixture(scope="module")
def far_dice():
    """Dice of the training floors seen from 75-100 cm (11-14 px a side): what the features misread most."""
    return labelled_features(16, seed=4_700_001, far_share=1.0)


def _face(colour: tuple[int, int, int], white: tuple[int, int, int]) -> np.ndarray:
    crop = np.full((CROP_PX, CROP_PX, 3), white, np.uint8)
    cv2.rectangle(crop, (14, 10), (25, 29), colour, -1)
    return crop


def test_a_faces_ink_is_measured_against_its_own_white():
    """0 on the die's white, near 1 where a channel is black; a warm light that tints the whole die changes
    nothing much, since the ink is measured on the die's own white."""
    inks = face_inks([_face((0, 0, 0), (235, 235, 235)), _face((0, 0, 0), (170, 200, 240))])
    assert inks.shape == (2, CROP_PX, CROP_PX, 3) and inks.dtype == np.float32
    for ink in inks:
        assert np.abs(ink[2:8, 2:8]).max() < 0.05  # the white
        assert ink[15:25, 16:24].min() > 0.95  # the black symbol
    assert np.abs(inks[0] - inks[1]).max() < 0.05


def test_a_coloured_symbol_keeps_its_colour():
    """A green head's ink is strong in the blue and red channels, weak in the green one, and an orange crate's
    otherwise: the network sees colour as the features do."""
    head = face_inks([_face((60, 150, 40), (235, 235, 235))])[0][20, 20]
    crate = face_inks([_face((30, 120, 240), (235, 235, 235))])[0][20, 20]
    assert head[1] < head[0] and head[1] < head[2]  # BGR: green passes
    assert crate[2] < crate[0] and crate[2] < crate[1]  # orange: red passes


def test_two_readings_are_sure_only_where_both_are():
    sure = np.array([[0.98, 0.01, 0.01, 0.0, 0.0, 0.0]])
    unsure = np.array([[0.55, 0.40, 0.05, 0.0, 0.0, 0.0]])
    other = np.array([[0.02, 0.97, 0.01, 0.0, 0.0, 0.0]])
    both = combined(sure, sure)
    assert both.argmax() == 0 and both.max() > 0.95
    mixed = combined(sure, unsure)
    assert mixed.argmax() == 0 and mixed.max() < both.max()
    disagree = combined(sure, other)
    assert disagree.max() < DOUBTFUL_DIE_BELOW
    assert np.allclose(combined(unsure, other).sum(axis=1), 1.0)


def test_the_network_reads_every_turn_of_far_dice(network, far_dice):
    """Every quarter turn and mirror of a face is the same face: the network reads the far dice of training's
    floors as labelled whichever way they lie (a network that read the pixels' layout, not the symbol, would
    not), and about as well as the classifier reads their features."""
    inks = face_inks(far_dice.faces)
    assert len(far_dice.labels) >= 70
    right = []
    for k in range(4):
        for flip in (False, True):
            turned = np.rot90(inks, k, axes=(1, 2))
            turned = turned[:, :, ::-1] if flip else turned
            right.append(np.mean(network.predict_proba(np.ascontiguousarray(turned)).argmax(axis=1) == far_dice.labels))
    assert min(right) >= 0.95
    features = np.mean(DiceClassifier().predict_proba(far_dice.features).argmax(axis=1) == far_dice.labels)
    assert min(right) >= features - 0.03


def test_the_reader_multiplies_both_readings():
    """The reader's confidence in a die is the combined reading's: with the face network it differs from the
    classifier's alone, and reading without it (``face_network`` None) gives the classifier's alone."""
    from vision.synth.dice import TrayLook, tray_scene

    rng = np.random.default_rng(4_700_002)
    frame, dice, _ = tray_scene(rng, look=TrayLook("green felt", 240.0, 160.0, 16.0))
    with_network = DiceReader()
    without = DiceReader(with_network.classifier)
    without.face_network = None
    a, b = with_network.read(frame), without.read(frame)
    assert a is not None and b is not None and len(a) == len(b) == len(dice)
    assert sorted(d.face for d in a) == sorted(d.face for d in dice)
    assert [d.centre for d in a] == [d.centre for d in b]  # found alike: only the reading differs
    assert any(abs(x.confidence - y.confidence) > 1e-6 for x, y in zip(a, b, strict=True))


@pytest.mark.parametrize("floor, seed, nth", [("dark grey", 555_002, 29), ("pink", 777_007, 17)])
def test_a_small_far_face_the_features_misread_is_read_right_with_the_face_network(floor, seed, nth):
    """14 mm dice in a 20 x 14 cm tray, seen from far (trays of the seeds 555000 and 777000 that ``bench_dice`` draws
    its floors from: dark grey's 30th, pink's 18th): faces a few pixels across that the classifier misreads from its
    features (a wall as a cross; two crosses as swords), read right with the face network. (bench_dice's own seed had
    two such trays, a swords read as a cross on light wood and one on green felt; the classifier alone reads both
    right since the trays' stickers were fitted as lines and a light tinted beyond what it learned is evened to the
    stickers' white, and no other tray of that size group there is read wrong by it and right with the network.)"""
    from vision.synth.dice import TrayLook, tray_scene

    rng = np.random.default_rng(seed)
    for _ in range(nth + 1):
        frame, dice, _ = tray_scene(rng, look=TrayLook(floor, 200.0, 140.0, 14.0))
    reader = DiceReader()
    alone = DiceReader(reader.classifier)
    alone.face_network = None
    truth = sorted(d.face for d in dice)
    before = alone.read(frame)
    assert before is not None and sorted(r.face for r in before) != truth
    readings = reader.read(frame)
    assert readings is not None and sorted(r.face for r in readings) == truth
