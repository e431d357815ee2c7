"""A board pushed partly past the frame's edge is still found by its markers in view; the cells the camera
does not see are reported unseen (empty, confidence 0, uncertain), never read from the warp's stretched edge."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from companion.layout import ALL_CELLS, SIZE, cell_index
from companion.tracker import city_cell
from vision.cells.reader import DRAWABLE_INDEX
from vision.pipeline import TableReader
from vision.synth.table import TableSpec, cut_across, render_table


@pytest.fixture(scope="module")
def cut_table():
    """A generated table whose frame is cut through the middle of board 0, keeping the side with two corners."""
    rng = np.random.default_rng(30)
    spec = TableSpec.random(rng, n_boards=3, camera_cm=75)
    frame, truth = render_table(spec, rng)
    shown, offset = cut_across(frame, np.array(truth.boards[0].corners)[:, 0], 0.5)
    return shown, truth, offset


def _cell_centres_x(corners: np.ndarray, offset: int) -> dict[str, float]:
    """Each cell's centre's x in the cut frame, from the board's true corners (A1, G1, G7, A7)."""
    board_to_frame = cv2.getPerspectiveTransform(np.float32([[0, 0], [SIZE, 0], [SIZE, SIZE], [0, SIZE]]),
                                                 np.float32(corners))
    centres = np.float32([[[i % SIZE + 0.5, i // SIZE + 0.5] for i in range(SIZE * SIZE)]])
    xs = cv2.perspectiveTransform(centres, board_to_frame)[0, :, 0] - offset
    return {ALL_CELLS[i]: float(xs[i]) for i in range(SIZE * SIZE)}


def test_cells_past_the_frames_edge_are_unseen_and_the_rest_is_read(cut_table):
    from vision.cells import CellReader

    shown, truth, offset = cut_table
    obs = TableReader(cell_reader=CellReader("en")).read(shown)
    board = obs.board(0)
    assert board is not None, "the board is found by the two markers in view"
    corners = np.array(truth.boards[0].corners)
    cell_width = float(np.linalg.norm(corners[1] - corners[0])) / SIZE
    centres = _cell_centres_x(corners, offset)
    width = shown.shape[1]
    drawable = {ALL_CELLS[i] for i in DRAWABLE_INDEX}
    gone = {c for c in drawable if not cell_width <= centres[c] <= width - cell_width}
    far_out = {c for c in drawable if not 0 <= centres[c] <= width}  # the whole middle of the cell out
    assert far_out and far_out <= set(board.unseen) <= drawable
    for name in board.unseen:
        col, row = cell_index(name)
        assert board.city[row][col] == "." and board.confidence[row][col] == 0.0 and name in board.uncertain
        assert name not in board.alternatives
    in_view = drawable - gone
    assert in_view and not in_view & set(board.unseen)
    wrong = [c for c in in_view if city_cell(board.city, c) != city_cell(truth.boards[0].city, c)]
    assert not wrong, wrong
    # The boards wholly in view have no cell unseen.
    for other in obs.boards:
        if other.seat != 0:
            assert other.unseen == ()


def test_a_board_that_comes_back_into_view_is_read_again(cut_table):
    from vision.cells import CellReader

    shown, truth, offset = cut_table
    rng = np.random.default_rng(30)
    spec = TableSpec.random(rng, n_boards=3, camera_cm=75)
    whole, _ = render_table(spec, rng)
    reader = TableReader(cell_reader=CellReader("en"))
    cut = reader.read(shown).board(0)
    assert cut is not None and cut.unseen
    # The same table seen whole (the camera turned back): every cell in view again, read.
    back = reader.read(whole).board(0)
    assert back is not None and back.unseen == ()
    assert back.city == truth.boards[0].city


def test_a_track_cut_by_the_frames_edge_is_not_read_as_marked_boxes():
    from vision.marker_plane import detect_markers
    from vision.pipeline import KIT_LAYOUTS
    from vision.pirates.geometry import TRACK_LAYOUT
    from vision.pirates.reader import PirateReader

    rng = np.random.default_rng(99)
    spec = TableSpec.random(rng, camera_cm=75)
    frame, truth = render_table(spec, rng)
    markers = detect_markers(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), KIT_LAYOUTS)
    shown, _ = cut_across(frame, np.array([markers[i].mean(axis=0)[0] for i in TRACK_LAYOUT.marker_origins]), 0.5)
    reader = TableReader()
    assert reader.read(frame).pirate_boxes == truth.pirate_boxes == 36
    reader.reset()
    # Half the boxes beyond the edge: not in view, so no count (the stability filter keeps the last one).
    cut_obs = reader.read(shown)
    assert cut_obs.pirate_boxes is None and "pirate_boxes" not in cut_obs.to_json()
    assert PirateReader().read(shown) is None
    assert PirateReader().read(frame).boxes == 36


def test_a_tray_cut_by_the_frames_edge_gives_its_roll_only_when_all_five_dice_are_in_view():
    """A tray cut across by the frame's edge: where the five dice still lie in view, they are the roll, read right; where
    one or more lies beyond the edge (its top not wholly in the frame), no dice at all and the tray is said to be cut.
    Before (stop 79) every cut tray gave no dice; before that, phantoms from the warp's edge made rolls of five."""
    from vision.dice.geometry import DIE_MM, TRAY_LAYOUT
    from vision.dice.reader import DiceReader
    from vision.marker_plane import detect_markers
    from vision.pipeline import KIT_LAYOUTS

    rng = np.random.default_rng(4321)
    spec = TableSpec.random(rng, camera_cm=75)
    frame, truth = render_table(spec, rng)
    markers = detect_markers(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), KIT_LAYOUTS)
    tray = np.array([markers[i].mean(axis=0)[0] for i in TRAY_LAYOUT.marker_origins])
    reader = TableReader()
    rolled = sorted(truth.dice_faces)
    assert sorted(reader.read(frame).dice_faces) == rolled
    outcomes = []
    for share in (0.2, 0.35, 0.5, 0.65, 0.8):
        shown, _ = cut_across(frame, tray, share)
        plane = DiceReader().locate(shown)
        assert plane is not None, share
        half = DIE_MM / 2
        all_in_view = all(plane.shows(shown.shape, (d.centre[0] - half, d.centre[1] - half, 2 * half, 2 * half))
                          for d in truth.dice)
        reader.reset()
        observation = reader.read_full(shown)
        alone = DiceReader().read(shown)
        if all_in_view:
            assert sorted(observation.dice_faces) == rolled and sorted(d.face for d in alone) == rolled, share
            assert observation.extra["tray_cut"] is False, share
        else:
            assert observation.dice is None and alone is None, share
            assert observation.extra["tray_cut"] is True, share
        outcomes.append(all_in_view)
    assert outcomes == [True, False, False, False, True]  # both cases are tried


def test_the_floor_beyond_the_frames_edge_is_painted_as_floor_not_read_as_the_warps_black():
    """Rectified, the part of a cut tray's floor that the frame does not show is painted over from the floor in view
    (``floor_beyond_the_frame``): no pixel there is the warp's black, and it is as light as the floor around it."""
    from vision.dice.geometry import TRAY_LAYOUT
    from vision.dice.reader import PX_PER_MM, DiceReader
    from vision.marker_plane import detect_markers
    from vision.pipeline import KIT_LAYOUTS

    rng = np.random.default_rng(4321)
    frame, _ = render_table(TableSpec.random(rng, camera_cm=75), rng)
    markers = detect_markers(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), KIT_LAYOUTS)
    tray = np.array([markers[i].mean(axis=0)[0] for i in TRAY_LAYOUT.marker_origins])
    shown, _ = cut_across(frame, tray, 0.5)
    plane = DiceReader().locate(shown)
    surround, margin = DiceReader.rectify_surround(shown, plane)
    floor = surround[margin:-margin, margin:-margin]
    # Where the frame shows the floor (a few pixels' leeway each way: the rectified tray is straightened a little).
    shown_floor = plane.rectify(np.full(shown.shape[:2], 255, np.uint8), PX_PER_MM)
    leeway = np.ones((9, 9), np.uint8)
    floor_seen, floor_beyond = cv2.erode(shown_floor, leeway) == 255, cv2.dilate(shown_floor, leeway) == 0
    assert 0.1 < floor_beyond.mean() < 0.9  # the cut runs across the floor
    beyond = floor[floor_beyond].astype(np.float64).mean(axis=1)
    in_view = np.median(floor[floor_seen].astype(np.float64).mean(axis=1))
    assert beyond.min() > 0.5 * in_view and abs(beyond.mean() - in_view) < 0.25 * in_view


def test_where_one_board_lies_over_another_neither_is_read():
    """Board 3 of another table pasted over a third of board 0: the cells of either under the other's outline are
    unseen (which board is on top the camera cannot tell); before, board 0's were read from board 3's print."""
    from vision.board.locate import OUT_OF_VIEW_CUT
    from vision.cells import CellReader

    rng = np.random.default_rng(5)
    frame, truth = render_table(TableSpec.random(rng, n_boards=2, camera_cm=75), rng)
    other = TableSpec.random(rng, n_boards=2, camera_cm=75)
    over, over_truth = render_table(TableSpec(cities=other.cities, seats=(3, 4), seed=other.seed, camera_cm=75), rng)
    source = np.array(over_truth.boards[0].corners, np.float32)
    lower = np.array(truth.boards[0].corners, np.float32)
    shift = lower.mean(axis=0) - source.mean(axis=0) + (lower[1] - lower[0]) * 0.7
    moved = cv2.warpAffine(over, np.float32([[1, 0, shift[0]], [0, 1, shift[1]]]), (frame.shape[1], frame.shape[0]))
    mask = np.zeros(frame.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, np.int32(source + shift), 255)
    obs = TableReader(cell_reader=CellReader("en")).read(np.where(mask[:, :, None] > 0, moved, frame))
    below, above = obs.board(0), obs.board(3)
    assert below is not None and above is not None
    top_outline = (source + shift).astype(np.float64)
    for board, outline, corners in ((below, top_outline, lower), (above, lower.astype(np.float64), source + shift)):
        to_frame = cv2.getPerspectiveTransform(np.float32([[0, 0], [SIZE, 0], [SIZE, SIZE], [0, SIZE]]),
                                               np.float32(corners))
        for i in DRAWABLE_INDEX:
            name, (row, col) = ALL_CELLS[i], divmod(i, SIZE)
            middle = cv2.perspectiveTransform(np.float32([[[col + 0.5, row + 0.5]]]), to_frame)[0, 0]
            under = cv2.pointPolygonTest(np.float32(outline), (float(middle[0]), float(middle[1])), True)
            cell_px = float(np.linalg.norm(corners[1] - corners[0])) / SIZE
            if under > (0.5 - OUT_OF_VIEW_CUT) * cell_px * 1.5:  # the whole cell under the other board
                assert name in board.unseen, (board.seat, name)
            elif under < -cell_px:  # a cell clear of it
                assert name not in board.unseen, (board.seat, name)
    # Board 0's cells clear of board 3 are read as drawn.
    for i in DRAWABLE_INDEX:
        name, (row, col) = ALL_CELLS[i], divmod(i, SIZE)
        if name not in below.unseen:
            assert below.city[row][col] == truth.boards[0].city[row][col], name
