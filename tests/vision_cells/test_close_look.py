"""The close-look stages' second look: a cell they leave doubtful is read again from a tighter and a wider crop."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
import pytest

from companion.layout import ALL_CELLS, SIZE
from vision.cells.churches import CHURCHES
from vision.cells.close_look import (
    DEEP_SHARE,
    LOOK_AGAIN_BELOW,
    LOOK_AGAIN_SCALES,
    TAUGHT_WEIGHT,
    StageNetwork,
    panel_reading,
    residual_path,
)
from vision.cells.cnn import CNN_PATH
from vision.cells.labels import GLYPH_CLASSES
from vision.cells.letters import LETTERS, LETTERS_DEEP_SHARE, PERSON_CLASS
from vision.cells.reader import CellReader
from vision.cells.train_hands import unseen_model_path
from vision.synth.hands import FAMILY_NAMES

# The scripted tests below follow one crop a cell through a stage; the wide crop has tests of its own.
ONE_CROP = replace(LETTERS, wide_zoom=None)
S = GLYPH_CLASSES.index("pS")
C = GLYPH_CLASSES.index("pC")
N = GLYPH_CLASSES.index("pN")
EMPTY = GLYPH_CLASSES.index(".")


@dataclass(frozen=True)
class ScriptedStage(StageNetwork):
    """A stage whose network gives the rows it is handed, call by call, and keeps the crops it was shown."""

    replies: list[np.ndarray] = field(default_factory=list)
    shown: list[np.ndarray] = field(default_factory=list)

    def probabilities(self, crops, allowed, prior_shift, head=None):  # type: ignore[override]
        self.shown.append(crops)
        reply = self.replies[len(self.shown) - 1]
        assert len(reply) == len(crops)
        return reply.copy()


def _board_with_squares() -> tuple[np.ndarray, list[int]]:
    """A rectified board with a dark square in the middle of B2, C3 and D4, each a different size."""
    rectified = np.full((448, 448), 200, np.uint8)
    cell = 448 // SIZE
    cells = [ALL_CELLS.index(name) for name in ("B2", "C3", "D4")]
    for k, index in enumerate(cells):
        row, col = divmod(index, SIZE)
        half = int(round((0.1 + 0.03 * k) * cell))
        cx, cy = int((col + 0.5) * cell), int((row + 0.5) * cell)
        rectified[cy - half:cy + half, cx - half:cx + half] = 40
    return rectified, cells


def _person_rows(*letters: tuple[int, float, int, float]) -> np.ndarray:
    rows = np.zeros((len(letters), len(GLYPH_CLASSES)))
    for row, (a, pa, b, pb) in zip(rows, letters, strict=True):
        row[a], row[b] = pa, pb
        row[EMPTY] = 1.0 - pa - pb
    return rows


def test_a_doubtful_cell_is_read_again_tighter_and_wider_and_the_stages_readings_averaged():
    """Three persons: the stage makes C3's reading sure and leaves B2 and D4 doubtful. Only B2 and D4 are read
    again, once at each of ``LOOK_AGAIN_SCALES`` (the crops those scales cut, in that order), and their letter is
    the three readings' mean folded in as a single reading is. Fails when every cell is read again, none is, or
    the extra readings are left out of the letter."""
    rectified, cells = _board_with_squares()
    probs = np.zeros((SIZE * SIZE, len(GLYPH_CLASSES)))
    probs[:, EMPTY] = 1.0
    probs[cells] = _person_rows((C, 0.5, S, 0.45), (C, 0.5, S, 0.45), (C, 0.5, S, 0.45))
    before = probs.copy()
    first = _person_rows((S, 0.6, C, 0.4), (C, 1.0, S, 0.0), (N, 0.6, C, 0.4))
    tighter = _person_rows((S, 1.0, C, 0.0), (N, 1.0, C, 0.0))
    wider = _person_rows((S, 0.9, C, 0.1), (N, 0.5, S, 0.5))
    stage = ScriptedStage(None, None, ONE_CROP, replies=[first, np.concatenate([tighter, wider])])  # type: ignore[arg-type]
    allowed = np.ones(len(GLYPH_CLASSES), bool)
    stage.read(probs, rectified, cells, allowed, np.zeros(len(GLYPH_CLASSES)))

    assert LOOK_AGAIN_SCALES == (0.9, 1.1)
    assert len(stage.shown) == 2
    doubtful = [cells[0], cells[2]]
    expected_crops = np.concatenate([ONE_CROP.crops(rectified, doubtful, scale) for scale in LOOK_AGAIN_SCALES])
    assert np.array_equal(stage.shown[1], expected_crops)
    once = ONE_CROP.combine(before[cells], first)
    assert once[[0, 2]].max(axis=1).max() < LOOK_AGAIN_BELOW <= once[1].max()
    mean = np.stack([first[[0, 2]], tighter, wider]).mean(axis=0)
    assert np.allclose(probs[doubtful], ONE_CROP.combine(before[doubtful], mean))
    assert np.allclose(probs[cells[1]], once[1])
    assert probs[cells[0]].argmax() == S and probs[cells[2]].argmax() == N
    others = [i for i in range(SIZE * SIZE) if i not in cells]
    assert np.array_equal(probs[others], before[others])


def test_a_stage_that_leaves_no_cell_doubtful_reads_each_once():
    rectified, cells = _board_with_squares()
    probs = np.zeros((SIZE * SIZE, len(GLYPH_CLASSES)))
    probs[cells] = _person_rows((C, 0.9, S, 0.1), (S, 0.95, C, 0.05), (N, 0.9, C, 0.1))
    agreeing = _person_rows((C, 1.0, S, 0.0), (S, 1.0, C, 0.0), (N, 1.0, C, 0.0))
    stage = ScriptedStage(None, None, ONE_CROP, replies=[agreeing])  # type: ignore[arg-type]
    stage.read(probs, rectified, cells, np.ones(len(GLYPH_CLASSES), bool), np.zeros(len(GLYPH_CLASSES)))
    assert len(stage.shown) == 1 and len(stage.shown[0]) == 3


def test_a_head_fitted_to_the_seat_counts_more_than_the_stages_own():
    """The same sure readings folded in with the stage's own head (its ``weight``), with no head, and with a head
    fitted to the seat (``TAUGHT_WEIGHT``). Fails when a seat's head gets the stage's share, or the stage's own
    head gets the seat's."""
    rectified, cells = _board_with_squares()
    probs = np.zeros((SIZE * SIZE, len(GLYPH_CLASSES)))
    probs[cells] = _person_rows((C, 0.9, S, 0.1), (S, 0.95, C, 0.05), (N, 0.9, C, 0.1))
    stage_reads = _person_rows((C, 0.8, S, 0.2), (S, 0.9, C, 0.1), (N, 1.0, C, 0.0))
    own, seats = object(), object()
    allowed, shift = np.ones(len(GLYPH_CLASSES), bool), np.zeros(len(GLYPH_CLASSES))
    read = {}
    for name, head in (("none", None), ("own", own), ("seat", seats)):
        out = probs.copy()
        stage = ScriptedStage(None, own, ONE_CROP, replies=[stage_reads])  # type: ignore[arg-type]
        stage.read(out, rectified, cells, allowed, shift, head)  # type: ignore[arg-type]
        assert len(stage.shown) == 1  # every cell sure: read once
        read[name] = out[cells]
    assert ONE_CROP.weight != TAUGHT_WEIGHT
    assert np.allclose(read["none"], ONE_CROP.combine(probs[cells], stage_reads))
    assert np.allclose(read["own"], read["none"])
    assert np.allclose(read["seat"], ONE_CROP.combine(probs[cells], stage_reads, TAUGHT_WEIGHT))


def test_a_tighter_crop_shows_the_drawing_larger():
    rectified, cells = _board_with_squares()
    sides = []
    for scale in (LOOK_AGAIN_SCALES[0], 1.0, LOOK_AGAIN_SCALES[1]):
        crop = ONE_CROP.crops(rectified, cells[:1], scale)[0]
        xs = np.nonzero(crop.max(axis=0) > 0.5)[0]
        sides.append(xs.max() - xs.min() + 1)
    assert sides[0] > sides[1] > sides[2]
    assert sides[0] / sides[2] == pytest.approx(1.1 / 0.9, rel=0.12)


def test_a_stage_whose_wider_crop_would_leave_its_cell_is_refused():
    assert PERSON_CLASS.any()
    with pytest.raises(ValueError, match="past the cell"):
        replace(ONE_CROP, zoom=0.95)


def _doubtful_board() -> tuple[np.ndarray, list[int], np.ndarray, np.ndarray]:
    """Three persons whose first close reading leaves B2 and D4 doubtful and C3 sure (as in the test above)."""
    rectified, cells = _board_with_squares()
    probs = np.zeros((SIZE * SIZE, len(GLYPH_CLASSES)))
    probs[:, EMPTY] = 1.0
    probs[cells] = _person_rows((C, 0.5, S, 0.45), (C, 0.5, S, 0.45), (C, 0.5, S, 0.45))
    first = _person_rows((S, 0.6, C, 0.4), (C, 1.0, S, 0.0), (N, 0.6, C, 0.4))
    return rectified, cells, probs, first


def test_a_panel_reads_each_doubtful_cell_once_and_their_geometric_mean_is_folded_in():
    """The stage's network and two panel networks: only B2 and D4 (doubtful after the first reading) are shown to
    the panel, each member their first close crops once, and the stage's network is not asked again at other
    scales. Their letter is ``panel_reading`` of the three, folded in as one reading is. Fails when the panel is
    skipped, asked about sure cells too, shown other crops, or its readings averaged otherwise."""
    rectified, cells, probs, first = _doubtful_board()
    before = probs.copy()
    one = _person_rows((S, 0.9, C, 0.1), (N, 0.7, C, 0.3))
    two = _person_rows((S, 0.2, C, 0.8), (N, 0.9, C, 0.1))
    members = (ScriptedStage(None, None, ONE_CROP, replies=[one]), ScriptedStage(None, None, ONE_CROP, replies=[two]))  # type: ignore[arg-type]
    stage = ScriptedStage(None, None, ONE_CROP, members, replies=[first])  # type: ignore[arg-type]
    allowed = np.ones(len(GLYPH_CLASSES), bool)
    stage.read(probs, rectified, cells, allowed, np.zeros(len(GLYPH_CLASSES)))

    assert len(stage.shown) == 1
    doubtful = [cells[0], cells[2]]
    for member in members:
        assert len(member.shown) == 1
        assert np.array_equal(member.shown[0], ONE_CROP.crops(rectified, doubtful))
    joint = panel_reading([first[[0, 2]], one, two], allowed & PERSON_CLASS)
    assert np.allclose(probs[doubtful], ONE_CROP.combine(before[doubtful], joint))
    assert np.allclose(probs[cells[1]], ONE_CROP.combine(before[cells], first)[1])
    arithmetic = np.stack([first[[0, 2]], one, two]).mean(axis=0)
    assert not np.allclose(probs[doubtful], ONE_CROP.combine(before[doubtful], arithmetic))


def test_the_residual_network_has_its_share_beside_the_panel():
    """The stage's network, one panel network and the residual one (``deep``): the residual network is shown the
    doubtful cells' first close crops once, like the panel, and its reading counts three times the panel's (a weighted
    geometric mean: the letter stage's ``deep_share``, 0.75). Fails when the residual network is skipped, shown other
    crops, counted as one more panel member (a third of the say here) or given the other stages' half."""
    rectified, cells, probs, first = _doubtful_board()
    before = probs.copy()
    one = _person_rows((S, 0.9, C, 0.1), (N, 0.7, C, 0.3))
    deep_rows = _person_rows((C, 0.95, S, 0.05), (N, 0.2, C, 0.8))
    member = ScriptedStage(None, None, ONE_CROP, replies=[one])  # type: ignore[arg-type]
    deep = ScriptedStage(None, None, ONE_CROP, replies=[deep_rows])  # type: ignore[arg-type]
    stage = ScriptedStage(None, None, ONE_CROP, (member,), deep, replies=[first])  # type: ignore[arg-type]
    allowed = np.ones(len(GLYPH_CLASSES), bool)
    stage.read(probs, rectified, cells, allowed, np.zeros(len(GLYPH_CLASSES)))

    doubtful = [cells[0], cells[2]]
    assert len(stage.shown) == 1 and len(deep.shown) == 1
    assert np.array_equal(deep.shown[0], ONE_CROP.crops(rectified, doubtful))
    kind = allowed & PERSON_CLASS
    panel = panel_reading([first[[0, 2]], one], kind)
    share = ONE_CROP.deep_share
    assert share == LETTERS_DEEP_SHARE == 0.75
    joint = panel_reading([panel, deep_rows], kind, (1 - share, share))
    assert np.allclose(probs[doubtful], ONE_CROP.combine(before[doubtful], joint))
    half = panel_reading([panel, deep_rows], kind, (1 - DEEP_SHARE, DEEP_SHARE))
    assert not np.allclose(probs[doubtful], ONE_CROP.combine(before[doubtful], half))
    as_a_member = panel_reading([first[[0, 2]], one, deep_rows], kind)
    assert not np.allclose(probs[doubtful], ONE_CROP.combine(before[doubtful], as_a_member))


def test_a_stage_without_a_panel_reads_its_doubtful_cells_with_its_residual_network_alone():
    """The church stage's way: no panel, a residual network. A doubtful cell is read by the residual network from the
    same crop (not by the stage's network again at other scales), the two readings half and half. Fails when the
    residual network is skipped for want of a panel."""
    assert CHURCHES.deep_share == DEEP_SHARE == 0.5
    look = replace(ONE_CROP, panel=False, deep_share=CHURCHES.deep_share)
    rectified, cells, probs, first = _doubtful_board()
    before = probs.copy()
    deep_rows = _person_rows((C, 0.95, S, 0.05), (N, 0.2, C, 0.8))
    deep = ScriptedStage(None, None, look, replies=[deep_rows])  # type: ignore[arg-type]
    stage = ScriptedStage(None, None, look, (), deep, replies=[first])  # type: ignore[arg-type]
    allowed = np.ones(len(GLYPH_CLASSES), bool)
    stage.read(probs, rectified, cells, allowed, np.zeros(len(GLYPH_CLASSES)))

    doubtful = [cells[0], cells[2]]
    assert len(stage.shown) == 1 and len(deep.shown) == 1
    kind = allowed & PERSON_CLASS
    half = panel_reading([first[[0, 2]], deep_rows], kind)
    assert np.allclose(probs[doubtful], look.combine(before[doubtful], half))


def test_a_weighted_panel_reading_leans_towards_the_larger_share():
    """Shares weigh each reading's logarithm: at 3 to 1 the reading with the larger share wins a class the two
    readings dispute (0.8 against 0.2 each way: odds of 4 ** (3/4 - 1/4) = 2, so 2/3), where even shares leave them
    tied; shares (1, 1) are the even mean."""
    classes = PERSON_CLASS.copy()
    a, b = _person_rows((S, 0.8, C, 0.2)), _person_rows((C, 0.8, S, 0.2))
    for r in (a, b):
        r[0, EMPTY] = 0.0
    even = panel_reading([a, b], classes)
    assert even[0, S] == pytest.approx(0.5)
    assert np.allclose(panel_reading([a, b], classes, (1.0, 1.0)), even)
    leaning = panel_reading([a, b], classes, (3.0, 1.0))
    assert leaning[0, S] == pytest.approx(2 / 3) and leaning[0].sum() == pytest.approx(1.0)


def test_a_head_fitted_to_the_seat_reads_its_doubtful_cells_without_the_panel():
    """A seat's own head knows that hand and the panel's networks do not: its doubtful cells are read again at the
    other scales by that head, and no panel network is asked; the residual network then reads them from the first
    crops and has its share of the say, as beside the panel. Fails when the panel is asked for a seat, or the residual
    network is skipped or shown other crops."""
    rectified, cells, probs, first = _doubtful_board()
    before = probs.copy()
    deep_rows = _person_rows((C, 0.95, S, 0.05), (N, 0.2, C, 0.8))
    member = ScriptedStage(None, None, ONE_CROP, replies=[])  # type: ignore[arg-type]
    deep = ScriptedStage(None, None, ONE_CROP, replies=[deep_rows])  # type: ignore[arg-type]
    again = np.concatenate([_person_rows((S, 1.0, C, 0.0), (N, 1.0, C, 0.0))] * len(LOOK_AGAIN_SCALES))
    stage = ScriptedStage(None, object(), ONE_CROP, (member,), deep, replies=[first, again])  # type: ignore[arg-type]
    allowed = np.ones(len(GLYPH_CLASSES), bool)
    stage.read(probs, rectified, cells, allowed, np.zeros(len(GLYPH_CLASSES)), object())  # type: ignore[arg-type]
    assert member.shown == [] and len(stage.shown) == 2 and len(deep.shown) == 1
    doubtful = [cells[0], cells[2]]
    assert np.array_equal(deep.shown[0], ONE_CROP.crops(rectified, doubtful))
    kind = allowed & PERSON_CLASS
    scales = (first[[0, 2]] + again.reshape(len(LOOK_AGAIN_SCALES), 2, -1).sum(axis=0)) / (1 + len(LOOK_AGAIN_SCALES))
    joint = panel_reading([scales, deep_rows], kind, (1 - ONE_CROP.deep_share, ONE_CROP.deep_share))
    assert np.allclose(probs[doubtful], ONE_CROP.combine(before[doubtful], joint, TAUGHT_WEIGHT))
    assert not np.allclose(probs[doubtful], ONE_CROP.combine(before[doubtful], scales, TAUGHT_WEIGHT))


def test_a_panel_reading_is_the_normalised_geometric_mean_over_the_stages_classes():
    """Two networks sure of different letters and a third that all but rules out one of them: the third's veto
    holds (an arithmetic mean would give that letter a third), each row sums to 1, and no class outside the ones
    given gets any."""
    classes = PERSON_CLASS.copy()
    readings = [_person_rows((S, 0.9, C, 0.1)), _person_rows((C, 0.9, S, 0.1)), _person_rows((C, 0.5, S, 1e-6))]
    for r in readings:
        r[0, EMPTY] = 0.0
    joint = panel_reading(readings, classes)
    assert joint[0].sum() == pytest.approx(1.0)
    assert joint[0, ~classes].sum() == 0.0
    assert joint[0, C] > 0.95 and joint[0, S] < 0.02
    assert np.mean([r[0, S] for r in readings]) > 0.3


def test_only_the_shipped_networks_letters_are_read_by_a_panel():
    """The shipped reader's letter stage has a panel, one network trained without each family, and the residual
    letter network; its church stage has the residual church network and no panel (a panel gained nothing). A reader
    whose network was trained without a family has no panel, and the residual letter network trained without the same
    family: that family must be read by networks that never saw it (``bench_hands``' leave-one-out table; the shipped
    residual networks learned every family). Fails when a network left without a family is joined by one that learned
    it, when the shipped reader loses its panel or a residual network, or a reader without a family its own."""
    shipped = CellReader(model_path=CNN_PATH)
    assert shipped.letters is not None and shipped.churches is not None
    assert sorted(m.trunk is not None for m in shipped.letters.panel) == [True] * len(FAMILY_NAMES)
    assert LETTERS.panel_for(CNN_PATH) == tuple(
        sorted(unseen_model_path(f).with_name(f"letters_without_{f}.npz") for f in FAMILY_NAMES))
    assert LETTERS.deep_for(CNN_PATH) == residual_path(LETTERS) == CNN_PATH.with_name("letters_residual.npz")
    assert shipped.letters.deep is not None and shipped.letters.deep.trunk.adds is not None
    assert shipped.churches.panel == () and CHURCHES.panel_for(CNN_PATH) == ()
    assert shipped.churches.deep is not None and shipped.churches.deep.trunk.adds is not None
    assert CHURCHES.deep_for(CNN_PATH) == CNN_PATH.with_name("churches_residual.npz")
    for family in FAMILY_NAMES:
        # Every family's is shipped (``train_letters --only unseen --residual 16``); each one's training is checked in
        # test_hands.
        unseen = CellReader(model_path=unseen_model_path(family))
        assert unseen.letters is not None and unseen.letters.panel == ()
        assert LETTERS.deep_for(unseen_model_path(family)) == LETTERS.residual_for(unseen_model_path(family))
        assert unseen.letters.deep is not None and unseen.letters.deep.trunk.adds is not None
        # The church stage's residual network trained without the family, where one is shipped (loose's since stop 63:
        # ``train_letters --stage churches --only unseen --residual 16``); none otherwise.
        own = CHURCHES.residual_for(unseen_model_path(family))
        assert unseen.churches is not None
        assert CHURCHES.deep_for(unseen_model_path(family)) == (own if own.is_file() else None)
        assert (unseen.churches.deep is not None) == own.is_file()
    assert CHURCHES.deep_for(unseen_model_path("loose")) is not None


def test_a_network_trained_without_a_family_is_joined_by_the_residual_network_trained_without_it_alone(tmp_path):
    """Beside a cell network trained without a family, a stage reads its doubtful cells with the residual network
    trained without the same family, from the same folder, when there is one, and with none otherwise: never with the
    shipped residual network (it learned every family), nor with one that left out another family. Fails when
    ``deep_for`` hands a reader without a family a residual network that saw it."""
    without_loose = tmp_path / "cnn_without_loose.npz"
    assert LETTERS.deep_for(without_loose) is None  # no residual network there yet
    LETTERS.residual_for(tmp_path / "cnn_without_round.npz").write_bytes(b"")  # another family's
    assert LETTERS.deep_for(without_loose) is None
    mine = LETTERS.residual_for(without_loose)
    mine.write_bytes(b"")
    assert mine == tmp_path / "letters_residual_without_loose.npz"
    assert LETTERS.deep_for(without_loose) == mine
    assert CHURCHES.deep_for(without_loose) is None  # the church stage's own is another file
    assert LETTERS.deep_for(tmp_path / "cnn_trial.npz") is None  # a network of no family left out: none
    assert LETTERS.deep_for(CNN_PATH) == residual_path(LETTERS)


def test_every_letter_network_reads_the_wider_crop_too_and_the_two_readings_geometric_mean_is_its_reading():
    """The shipped letter stage reads each person's crop at ``wide_zoom`` beside ``zoom``'s, both in one batch, and so
    do its panel and its residual network for the doubtful cells: each network's reading is the geometric mean of its
    two (``panel_reading``). Fails when the wide crop is not read, is read by only some of the networks, is cut at
    another side, or its reading is averaged otherwise (or replaces the close one)."""
    rectified, cells, probs, _ = _doubtful_board()
    before = probs.copy()
    assert LETTERS.wide_zoom is not None and LETTERS.zoom < LETTERS.wide_zoom <= 1.0
    close = _person_rows((S, 0.6, C, 0.4), (C, 1.0, S, 0.0), (N, 0.6, C, 0.4))
    wide = _person_rows((S, 0.7, C, 0.3), (C, 0.9, S, 0.1), (N, 0.45, C, 0.55))
    member_close, member_wide = _person_rows((S, 0.9, C, 0.1), (N, 0.7, C, 0.3)), _person_rows((S, 0.5, C, 0.5), (C, 0.6, N, 0.4))
    deep_close, deep_wide = _person_rows((C, 0.95, S, 0.05), (N, 0.2, C, 0.8)), _person_rows((S, 0.6, C, 0.4), (N, 0.9, C, 0.1))
    member = ScriptedStage(None, None, LETTERS, replies=[np.concatenate([member_close, member_wide])])  # type: ignore[arg-type]
    deep = ScriptedStage(None, None, LETTERS, replies=[np.concatenate([deep_close, deep_wide])])  # type: ignore[arg-type]
    stage = ScriptedStage(None, None, LETTERS, (member,), deep, replies=[np.concatenate([close, wide])])  # type: ignore[arg-type]
    allowed = np.ones(len(GLYPH_CLASSES), bool)
    stage.read(probs, rectified, cells, allowed, np.zeros(len(GLYPH_CLASSES)))

    kind = allowed & PERSON_CLASS
    wide_crops = LETTERS.crops(rectified, cells, LETTERS.wide_zoom / LETTERS.zoom)
    assert np.array_equal(stage.shown[0], np.concatenate([LETTERS.crops(rectified, cells), wide_crops]))
    first = panel_reading([close, wide], kind)
    once = LETTERS.combine(before[cells], first)
    again = [k for k in range(3) if once[k].max() < LOOK_AGAIN_BELOW]
    assert again == [0, 2]  # C3 is sure at once; B2 and D4 are read again
    doubtful = [cells[k] for k in again]
    for network in (member, deep):
        assert len(network.shown) == 1
        assert np.array_equal(network.shown[0], np.concatenate([LETTERS.crops(rectified, doubtful), wide_crops[again]]))
    panel = panel_reading([first[again], panel_reading([member_close, member_wide], kind)], kind)
    share = LETTERS.deep_share
    joint = panel_reading([panel, panel_reading([deep_close, deep_wide], kind)], kind, (1 - share, share))
    assert np.allclose(probs[doubtful], LETTERS.combine(before[doubtful], joint))
    assert np.allclose(probs[cells[1]], once[1])
    one_crop = panel_reading([panel_reading([close[again], member_close], kind), deep_close], kind, (1 - share, share))
    assert not np.allclose(probs[doubtful], LETTERS.combine(before[doubtful], one_crop))


def test_the_wider_crop_shows_the_whole_drawing_smaller():
    rectified, cells = _board_with_squares()
    sides = []
    for crops in (LETTERS.crops(rectified, cells[2:]), LETTERS.wide_crops(rectified, cells[2:])):
        xs = np.nonzero(crops[0].max(axis=0) > 0.5)[0]
        sides.append(xs.max() - xs.min() + 1)
    assert sides[0] / sides[1] == pytest.approx(LETTERS.wide_zoom / LETTERS.zoom, rel=0.12)
    assert ONE_CROP.wide_crops(rectified, cells) is None


def test_a_head_fitted_to_the_seat_reads_the_close_crop_alone():
    """A seat's head learned the seat's drawings at ``zoom`` (``SeatHand.stage_model``): it is shown no wide crop."""
    rectified, cells = _board_with_squares()
    probs = np.zeros((SIZE * SIZE, len(GLYPH_CLASSES)))
    probs[cells] = _person_rows((C, 0.9, S, 0.1), (S, 0.95, C, 0.05), (N, 0.9, C, 0.1))
    sure = _person_rows((C, 1.0, S, 0.0), (S, 1.0, C, 0.0), (N, 1.0, C, 0.0))
    stage = ScriptedStage(None, object(), LETTERS, replies=[sure])  # type: ignore[arg-type]
    stage.read(probs, rectified, cells, np.ones(len(GLYPH_CLASSES), bool), np.zeros(len(GLYPH_CLASSES)), object())  # type: ignore[arg-type]
    assert len(stage.shown) == 1 and np.array_equal(stage.shown[0], LETTERS.crops(rectified, cells))


@pytest.mark.parametrize("wide_zoom", [0.5, 0.4, 1.05])
def test_a_wide_crop_no_wider_than_the_close_one_or_past_the_cell_is_refused(wide_zoom):
    with pytest.raises(ValueError, match="wide crop"):
        replace(LETTERS, wide_zoom=wide_zoom)
