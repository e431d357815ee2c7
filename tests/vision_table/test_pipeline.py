from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest

from vision.pipeline import TableReader
from vision.synth.table import FRAME_SIZE, render_table


@pytest.fixture
def reader(cell_stub) -> TableReader:
    return TableReader(cell_reader=cell_stub)


def test_render_table_frame_and_truth(table_spec):
    frame, truth = render_table(table_spec, np.random.default_rng(1))
    assert frame.shape == (FRAME_SIZE[1], FRAME_SIZE[0], 3) and frame.dtype == np.uint8
    assert [b.seat for b in truth.boards] == [0, 1, 2]
    assert sorted(truth.dice_faces) == sorted(table_spec.dice)
    assert truth.pirate_boxes == table_spec.pirate_boxes
    again, _ = render_table(table_spec, np.random.default_rng(2))
    # Same table, new sensor noise: close but not identical.
    diff = np.abs(frame.astype(int) - again.astype(int))
    assert 0 < diff.mean() < 6


def test_full_read_finds_every_part(reader, table_spec, cell_stub):
    frame, truth = render_table(table_spec, np.random.default_rng(3))
    obs = reader.read(frame)
    assert [b.seat for b in obs.boards] == [0, 1, 2]
    assert cell_stub.calls == 3
    assert sorted(obs.dice_faces) == sorted(truth.dice_faces)
    assert obs.pirate_boxes == table_spec.pirate_boxes
    assert all(len(b.corners) == 4 for b in obs.boards)


def test_dice_are_placed_in_the_frame_inside_the_tray(reader, table_spec):
    """The camera view draws each die where its top face is in the picture (its ``centre`` is tray
    millimetres: drawn as pixels, every die landed in the frame's top-left corner)."""
    from vision.dice.reader import locate_tray
    from vision.marker_plane import detect_markers

    frame, _ = render_table(table_spec, np.random.default_rng(3))
    obs = reader.read(frame)
    plane = locate_tray(detect_markers(frame))
    assert plane is not None and obs.dice
    outline = plane.to_frame(np.array([[0, 0], [240, 0], [240, 160], [0, 160]], np.float64)).astype(np.float32)
    for die in obs.dice:
        assert die.in_frame is not None
        assert cv2.pointPolygonTest(outline, die.in_frame, False) > 0, die


def test_unchanged_scene_takes_the_fast_path_and_a_change_does_not(reader, table_spec, cell_stub):
    rng = np.random.default_rng(4)
    first = reader.read(render_table(table_spec, rng)[0])
    calls = cell_stub.calls
    second = reader.read(render_table(table_spec, rng)[0])
    assert reader.fast_hits == 1 and cell_stub.calls == calls
    assert second.dice == first.dice and second.frame_index == first.frame_index + 1
    changed = dataclasses.replace(table_spec, dice=("log", "log", "log", "crate", "crate"))
    third = reader.read(render_table(changed, rng)[0])
    assert reader.fast_hits == 1
    assert sorted(third.dice_faces) == ["crate", "crate", "log", "log", "log"]


def test_a_hand_is_reported_over_what_it_covers(reader, table_spec):
    rng = np.random.default_rng(5)
    reader.read(render_table(table_spec, rng)[0])
    seen = {"boards": 0, "tray": 0}
    for _ in range(4):
        frame, _ = render_table(dataclasses.replace(table_spec, hand=True), rng)
        extra = reader.read(frame).extra
        covered = bool(extra.get("occluded_seats")) or bool(extra.get("dice_occluded"))
        assert covered
        seen["boards"] += bool(extra.get("occluded_seats"))
        seen["tray"] += bool(extra.get("dice_occluded"))
    assert sum(seen.values()) >= 4


def test_a_frame_without_anything_reads_empty(reader):
    obs = reader.read(np.full((1080, 1920, 3), 90, np.uint8))
    assert obs.boards == () and obs.dice is None and obs.pirate_boxes is None


def test_a_lone_board_without_markers_is_seat_zero(reader, cell_stub):
    from companion.layout import empty_city
    from vision.board.dataset import photograph
    from vision.synth.board import render_city

    rng = np.random.default_rng(8)
    board = render_city(list(empty_city()), rng, seat=None)
    photo = photograph(board, None, rng, frame_size=(1280, 960), tilt_deg=10.0, lighting=False)
    obs = reader.read(photo.frame)
    assert [b.seat for b in obs.boards] == [0]
    assert cell_stub.calls == 1
    assert obs.dice is None and obs.pirate_boxes is None


def test_boards_unchanged_since_their_last_read_are_not_read_again(reader, table_spec, cell_stub):
    rng = np.random.default_rng(9)
    reader.read(render_table(table_spec, rng)[0])
    assert cell_stub.calls == 3
    # A hand over one board: the frame changed, the other boards did not.
    frame, _ = render_table(dataclasses.replace(table_spec, hand=True), rng)
    obs = reader.read(frame)
    assert reader.boards_reused >= 1
    assert cell_stub.calls + reader.boards_reused == 6
    assert [b.seat for b in obs.boards] == [0, 1, 2] or obs.extra.get("occluded_seats")


def test_new_dice_are_moving_for_one_frame_then_at_rest(reader, table_spec):
    from vision.stability import StabilityFilter

    rng = np.random.default_rng(10)
    filt = StabilityFilter(hold_frames=3)
    for _ in range(4):
        filt.push(reader.read(render_table(table_spec, rng)[0]))
    assert filt.committed is not None
    rolled = dataclasses.replace(table_spec, dice=("log", "log", "log", "crate", "crate"))
    first = reader.read(render_table(rolled, rng)[0])
    assert first.extra["dice_moving"] is True
    assert filt.push(first) is None
    commits = [c for _ in range(4) if (c := filt.push(reader.read(render_table(rolled, rng)[0]))) is not None]
    assert len(commits) == 1 and sorted(commits[0].dice_faces) == ["crate", "crate", "log", "log", "log"]


@pytest.mark.parametrize(("floor", "width", "height", "die"), [("light grey", 200.0, 140.0, 14.0), ("beige", 300.0, 200.0, 20.0)])
def test_a_table_with_its_own_tray_reads_its_dice(reader, table_spec, floor, width, height, die):
    """The whole frame with a tray of the table's own (floor, size, dice): the tray measured from its
    stickers, its dice where they lie in it."""
    from vision.synth.dice import TrayLook

    spec = dataclasses.replace(table_spec, tray=TrayLook(floor, width, height, die))
    frame, truth = render_table(spec, np.random.default_rng(3))
    obs = reader.read(frame)
    assert obs.dice is not None and sorted(obs.dice_faces) == sorted(truth.dice_faces)
    tops = np.array([d.centre for d in truth.dice])
    for die_read in obs.dice:
        assert np.min(np.hypot(*(tops - np.array(die_read.centre)).T)) < 4.0


def _with_drawings(spec, seat: int, drawings: dict[tuple[int, int], str]):
    """``spec`` with ``drawings`` ((row, col) -> city character) added on ``seat``'s board."""
    city = [list(row) for row in spec.cities[seat]]
    for (row, col), char in drawings.items():
        city[row][col] = char
    cities = list(spec.cities)
    cities[seat] = tuple("".join(r) for r in city)
    return dataclasses.replace(spec, cities=tuple(cities))


def test_a_move_is_read_where_it_was_drawn_and_the_tray_is_not_read_again(table_spec):
    """The frame after a move: the board drawn on is read again only around its new drawings (each of the
    cells' readings as a whole read of the same frame gives it), the other boards and the untouched
    tray not at all; a new roll is read again."""
    from vision.cells import CellReader

    cells = CellReader("en")
    reader = TableReader(cell_reader=cells)
    spec = dataclasses.replace(table_spec, drawn_cell_by_cell=True)
    rng = np.random.default_rng(12)
    first = reader.read(render_table(spec, rng)[0])
    assert reader.cells_read == 3 * 41 and reader.trays_reused == 0
    moved = _with_drawings(spec, 1, {(4, 2): "s", (2, 4): "3"})
    frame = render_table(moved, rng)[0]
    after = reader.read(frame)
    assert 2 <= reader.cells_read - 3 * 41 <= 12
    assert reader.boards_reused == 2 and reader.trays_reused == 1
    assert after.dice == first.dice
    fresh = TableReader(cell_reader=cells).read(frame)
    assert [b.city for b in after.boards] == [b.city for b in fresh.boards]
    assert after.boards[1].city[4][2] == "s" and after.boards[1].city[2][4] == "3"
    for cell in ("C5", "E3"):  # read from this frame, as a whole read of it reads them
        assert after.boards[1].alternatives[cell] == fresh.boards[1].alternatives[cell]
    rolled = dataclasses.replace(moved, dice=("log", "log", "log", "crate", "crate"))
    again = reader.read(render_table(rolled, rng)[0])
    assert reader.trays_reused == 1 and sorted(again.dice_faces) == ["crate", "crate", "log", "log", "log"]
    assert reader.cells_read - 3 * 41 <= 12  # nothing drawn: no cell read


def test_changed_cells_reach_as_far_as_a_crop_sees():
    from vision.pipeline import _changed_cells, _with_cells_of

    before = np.full((84, 84), 200, np.uint8)
    now = before.copy()
    now[2 * 12 + 5, 3 * 12 + 6] = 120  # the middle of D3
    assert _changed_cells(before, now) == [2 * 7 + 3]
    now[4 * 12 + 11, 1 * 12 + 5] = 120  # the bottom edge of B5: B6's crop sees it too
    assert _changed_cells(before, now) == [2 * 7 + 3, 4 * 7 + 1, 5 * 7 + 1]
    now[3:9, 3:9] = 0  # a tower is never read (and this is out of its neighbours' reach)
    assert _changed_cells(before, now) == [2 * 7 + 3, 4 * 7 + 1, 5 * 7 + 1]
    assert _changed_cells(before, now[:80, :80]) is None
    kept = _with_cells_of(before, now, [2 * 7 + 3])
    assert kept[2 * 12 + 5, 3 * 12 + 6] == 120 and kept[4 * 12 + 11, 1 * 12 + 5] == 200 and kept[0, 0] == 200


def test_markers_are_looked_for_again_only_when_something_changed_outside_the_planes(reader, table_spec):
    """A drawing inside a board leaves the kit's markers where they were (the last look's are kept); a
    hand coming in over the table's edge does not."""
    spec = dataclasses.replace(table_spec, drawn_cell_by_cell=True)
    rng = np.random.default_rng(13)
    first = reader.read(render_table(spec, rng)[0])
    drawn = _with_drawings(spec, 2, {(3, 3): "H"})
    after = reader.read(render_table(drawn, rng)[0])
    assert reader.markers_reused == 1
    assert after.extra["markers"] == first.extra["markers"] and [b.seat for b in after.boards] == [0, 1, 2]
    assert np.allclose([b.corners for b in after.boards], [b.corners for b in first.boards])
    reader.read(render_table(dataclasses.replace(drawn, hand=True), rng)[0])
    assert reader.markers_reused == 1


def test_the_quiet_zone_leaves_out_every_plane_corner_and_marker():
    from vision.pipeline import _quiet_zone

    board = np.array([[100, 100], [500, 100], [500, 500], [100, 500]], np.float64)
    marker = {7: np.array([[600, 600], [660, 600], [660, 660], [600, 660]], np.float32)}
    quiet = _quiet_zone((180, 320), (1080, 1920), [board], marker)
    scale = 320 / 1920
    assert quiet[int(300 * scale), int(300 * scale)]  # the board's middle
    assert not quiet[int(110 * scale), int(110 * scale)] and not quiet[int(490 * scale), int(490 * scale)]  # towers
    assert not quiet[int(300 * scale), int(700 * scale)]  # the table beside it
    with_marker = _quiet_zone((180, 320), (1080, 1920), [board * 2.2], marker)
    assert with_marker[int(800 * scale), int(800 * scale)] and not with_marker[int(630 * scale), int(630 * scale)]


@pytest.mark.parametrize("boards", [1, 3])
def test_the_dice_are_read_while_the_boards_cells_are(table_spec, cell_stub, monkeypatch, boards):
    """The tray and its dice are read on the pool beside the boards' cells, a lone board's too: here each board's
    reading waits for the dice reader to have started, and the dice reader for a board's reading to have started.
    Read one after the other, in either order, one would wait in vain."""
    import threading

    import vision.pipeline as pipeline

    monkeypatch.setattr(pipeline.os, "cpu_count", lambda: 2)  # the pool, even on a one-core machine
    dice_started, cells_started = threading.Event(), threading.Event()
    waited: list[bool] = []
    dice_waited: list[bool] = []

    class CellsBesideDice:
        def read(self, rectified: np.ndarray) -> tuple[list[str], list[list[float]], list[str]]:
            cells_started.set()
            waited.append(dice_started.wait(timeout=10))
            return cell_stub.read(rectified)

    reader = TableReader(cell_reader=CellsBesideDice())
    read_plane = reader.dice_reader.read_plane

    def read_dice(*args, **kwargs):  # type: ignore[no-untyped-def]
        dice_started.set()
        dice_waited.append(cells_started.wait(timeout=10))
        return read_plane(*args, **kwargs)

    monkeypatch.setattr(reader.dice_reader, "read_plane", read_dice)
    spec = dataclasses.replace(table_spec, cities=table_spec.cities[:boards])
    frame, truth = render_table(spec, np.random.default_rng(3))
    obs = reader.read(frame)
    assert waited == [True] * boards and dice_waited == [True]
    assert [b.seat for b in obs.boards] == list(range(boards))
    assert sorted(obs.dice_faces) == sorted(truth.dice_faces)


def test_a_failing_dice_read_leaves_no_board_being_read(table_spec, cell_stub, monkeypatch):
    """An error while the dice are read reaches the caller once every board's reading is over: nothing of this
    frame goes on in the pool behind the caller's back."""
    import threading

    import vision.pipeline as pipeline

    monkeypatch.setattr(pipeline.os, "cpu_count", lambda: 2)
    cells_started = threading.Event()
    finished: list[int] = []

    class SlowCells:
        def read(self, rectified: np.ndarray) -> tuple[list[str], list[list[float]], list[str]]:
            cells_started.set()
            threading.Event().wait(0.3)
            finished.append(1)
            return cell_stub.read(rectified)

    reader = TableReader(cell_reader=SlowCells())

    def failing_dice(*args, **kwargs):  # type: ignore[no-untyped-def]
        cells_started.wait(timeout=10)
        raise RuntimeError("dice reader failed")

    monkeypatch.setattr(reader.dice_reader, "read_plane", failing_dice)
    frame, _ = render_table(table_spec, np.random.default_rng(3))
    with pytest.raises(RuntimeError, match="dice reader failed"):
        reader.read(frame)
    assert len(finished) == 3


def test_a_failing_board_placing_leaves_no_tray_being_read(table_spec, cell_stub, monkeypatch):
    """The tray is started on the pool before the boards are placed: an error there reaches the caller once the
    tray's read is over, as a failing dice read waits for the boards."""
    import threading

    import vision.pipeline as pipeline

    monkeypatch.setattr(pipeline.os, "cpu_count", lambda: 2)
    tray_started = threading.Event()
    finished: list[int] = []
    reader = TableReader(cell_reader=cell_stub)
    read_plane = reader.dice_reader.read_plane

    def slow_dice(*args, **kwargs):  # type: ignore[no-untyped-def]
        tray_started.set()
        threading.Event().wait(0.3)
        finished.append(1)
        return read_plane(*args, **kwargs)

    def failing_placing(*args, **kwargs):  # type: ignore[no-untyped-def]
        tray_started.wait(timeout=10)
        raise RuntimeError("boards not placed")

    monkeypatch.setattr(reader.dice_reader, "read_plane", slow_dice)
    monkeypatch.setattr(reader._stickers, "locate", failing_placing)
    frame, _ = render_table(table_spec, np.random.default_rng(3))
    with pytest.raises(RuntimeError, match="boards not placed"):
        reader.read(frame)
    assert finished == [1]


def test_one_core_and_two_read_a_frame_alike(table_spec, cell_stub, monkeypatch):
    """On one core the tray is read at once and the boards when collected; on two, side by side on the pool: the
    same observation."""
    import vision.pipeline as pipeline

    frame, truth = render_table(table_spec, np.random.default_rng(5))
    seen = []
    for cores in (1, 2):
        monkeypatch.setattr(pipeline.os, "cpu_count", lambda cores=cores: cores)
        obs = TableReader(cell_reader=cell_stub).read(frame)
        seen.append((sorted(obs.dice_faces), obs.pirate_boxes, [(b.seat, b.city) for b in obs.boards]))
    assert seen[0] == seen[1] and seen[0][0] == sorted(truth.dice_faces) and len(seen[0][2]) == len(table_spec.cities)


def test_another_table_has_its_tray_and_dice_measured_afresh_and_the_same_table_keeps_them(reader, table_spec):
    """``reset()``: another table (``companion scan``'s next photo), whose dice may be another size: nothing kept of
    the last tray and dice. ``reset(same_table=True)``: the camera knocked, the table the same: their sizes kept."""
    frame, _ = render_table(table_spec, np.random.default_rng(7))
    reader.read(frame)
    dice = reader.dice_reader
    assert dice.tray_mm is not None and len(dice.sides_measured) == 1
    reader.reset(same_table=True)
    reader.read(frame)
    assert len(dice.sides_measured) == 2
    reader.reset()
    assert dice.tray_mm is None and len(dice.sides_measured) == 0


class _SlowToLoad:
    """Stands in for vision.cells.CellReader's class: each one made takes a while to load (as the networks do) and
    is counted; it reads as the test's stub."""

    made = 0

    def __init__(self, stub, **_: object) -> None:
        import time

        time.sleep(0.3)
        type(self).made += 1
        self._stub = stub

    def read(self, rectified, *extra):
        return self._stub.read(rectified, *extra)


@pytest.fixture
def slow_to_load(monkeypatch, cell_stub):
    import vision.cells
    import vision.pipeline as pipeline

    _SlowToLoad.made = 0
    monkeypatch.setattr(vision.cells, "CellReader", lambda **kw: _SlowToLoad(cell_stub, **kw))
    monkeypatch.setattr(pipeline.os, "cpu_count", lambda: 4)  # the boards' pool, whatever this machine has
    return _SlowToLoad


def test_the_cell_reader_is_loaded_once_for_boards_read_side_by_side(table_spec, slow_to_load):
    """A table's first frame has its boards read on the pool, each needing the cell reader: it is loaded once,
    before them. Loaded by each board's thread, two loads ran at once, and on Python 3.11 NumPy's parsing of the
    network files in two threads at once can fail ("AST constructor recursion depth mismatch")."""
    frame, _ = render_table(table_spec, np.random.default_rng(5))
    obs = TableReader().read(frame)
    assert len(obs.boards) == len(table_spec.cities) >= 2
    assert slow_to_load.made == 1


def test_threads_asking_for_the_cell_reader_at_once_get_the_one_loaded(slow_to_load):
    from concurrent.futures import ThreadPoolExecutor

    reader = TableReader()
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda _: reader.cell_reader, range(4)))
    assert slow_to_load.made == 1 and all(g is got[0] for g in got)
