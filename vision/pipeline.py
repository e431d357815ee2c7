"""One camera frame -> one Observation: city boards, dice in the tray, pirate boxes.

Markers are detected once per frame and shared by the board, tray and track locators. A frame that
barely differs from the previous one (compared downscaled) returns the previous observation at once.
Big changes against the last still view of the table (a hand, an arm) are reported in
``Observation.extra`` so the stability filter can ignore the parts they cover.
"""

from __future__ import annotations

import dataclasses
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import wait as futures_wait
from pathlib import Path
from typing import Any, NamedTuple

import cv2
import numpy as np

from companion.layout import ALL_CELLS, SIZE
from vision.board.locate import BOARD_LAYOUTS, StickerPlaces, cells_out_of_view, cells_under, doubled_seats
from vision.board.lying import covered_cells
from vision.board.thumbnail import THUMB_CHANGE, board_thumb, cells_within_reach
from vision.cells.cnn import single_threaded_blas
from vision.cells.reader import DRAWABLE_INDEX
from vision.dice.geometry import TRAY_LAYOUT
from vision.dice.reader import NEAR_WHITE_FLOOR_FROM, DiceReader
from vision.imaging import has_colour
from vision.marker_plane import LocatedPlane, PlaneLayout, detect_markers
from vision.observation import DOUBTFUL_DIE_BELOW, BoardReading, DieReading, Observation
from vision.pirates.geometry import TRACK_LAYOUT
from vision.pirates.reader import PirateReader, read_track
from vision.stability import frame_sharpness

SMALL_SIZE = (320, 180)  # the downscaled frame used for the fast path and occlusion
_UNCHANGED_LEVEL = 12  # grey levels: a pixel of the small frame that moved less is unchanged
_UNCHANGED_PIXELS = 2  # ...and this many changed pixels still count as the same scene
_OCCLUDER_LEVEL = 28
_AROUND_PLANE = 4  # small-frame pixels (6 of the 1080p frame's each, 3 cm at 75 cm up) around a plane
_AROUND_MARKER = 1  # small-frame pixels around a marker: a change there needs a new look for it
_PLANE_CORNER = 1 / 7  # of each side: a plane's corner, where its sticker is (a board's tower)
_OCCLUDER_FRACTION = 0.004  # a connected change this big (of the frame) is a hand, not a move
_STATIC_FRAMES_FOR_REFERENCE = 8
# Every plane of the kit: one that shows only some of its markers gets a second look for the others.
KIT_LAYOUTS: tuple[PlaneLayout, ...] = (*BOARD_LAYOUTS, TRAY_LAYOUT, TRACK_LAYOUT)
_MAX_BOARD_THREADS = 4  # a Pi 4 or 5 has 4 cores; more threads than cores only wait
GREY_DIE_CONFIDENCE = DOUBTFUL_DIE_BELOW / 2  # the most a die read from a frame without colour is sure of
# One board's cells as read: city, confidence, uncertain cells, each cell's likeliest readings.
CellsRead = tuple[list[str], list[list[float]], list[str], dict[str, dict[str, float]]]
# What one board's cells are read from: (the rectified board, its seat's hand or None, its cells' last
# reading or None, the cells to read again or None for all).
_CellsJob = tuple[np.ndarray, Any, Any, list[int] | None]
# The frame's moment at the camera's full resolution, or what makes it when asked (a 12 MP copy is made
# only when a board is read): ``TableReader.read``'s ``detail``.
Detail = np.ndarray | Callable[[], np.ndarray | None] | None


@dataclasses.dataclass(frozen=True)
class _ReadBoard:
    """A board's last read: the thumbnail each cell was read from, the reading, its seat's hand version
    then, and the cells' readings behind it (``CellReader.read_cells``; None from a reader without them)."""

    thumb: np.ndarray
    board: BoardReading
    hand_version: int
    cells: Any


class _KeptTray(NamedTuple):
    """The tray's last read: while nothing in or around it changed since, its dice are what they were."""

    small: np.ndarray  # the small frame then
    plane: LocatedPlane
    dice: tuple[Any, ...] | None
    frame_shape: tuple[int, ...]  # (a kept read holds for frames of this size only)


class _KeptMarkers(NamedTuple):
    """The markers' last whole-frame look: while every change lies in ``quiet`` (``_quiet_zone``), they are
    where they were."""

    small: np.ndarray  # the small frame then
    markers: dict[int, np.ndarray]
    quiet: np.ndarray
    frame_shape: tuple[int, ...]
    doubled_seats: list[int]  # seats whose stickers were on two boards (``doubled_seats``)


class TableReader:
    """Reads whole frames. Keeps a little state between frames (fast path, reference view)."""

    def __init__(self, language: str = "en", data_dir: str | Path | None = None, *, cell_reader: Any = None,
                 hands: Any = None) -> None:
        self.language = language
        self.data_dir = data_dir
        # Each seat's hand (vision.cells.seat_hand.TableHands): its examples vote when its board is read.
        # Without one, the teaching sheets kept in ``data_dir`` (``companion teach``).
        if hands is None and data_dir is not None:
            from vision.cells.seat_hand import TableHands

            hands = TableHands.taught(data_dir, language)
        self.hands: Any = hands
        self.dice_reader = DiceReader()
        self.pirate_reader = PirateReader()
        self._cell_reader: Any = cell_reader  # anything with .read(rectified) -> (city, confidence, uncertain)
        self._loading = threading.Lock()  # guards the cell reader's loading (``cell_reader``)
        self._last_small: np.ndarray | None = None
        self._last_obs: Observation | None = None
        self._reference: np.ndarray | None = None
        self._static_frames = 0
        self.frame_index = 0
        self.fast_hits = 0
        self.boards_reused = 0
        self.cells_read = 0  # cells the networks read (a board read whole: 41)
        # seat -> what its board's last read left: an unchanged board is not read again until its hand learns
        # something, and a changed one only where it changed.
        self._board_cache: dict[int, _ReadBoard] = {}
        # The tray's and the markers' last reads (a move is drawn on a board: neither moved).
        self._tray_cache: _KeptTray | None = None
        self.trays_reused = 0
        self._markers_cache: _KeptMarkers | None = None
        self.markers_reused = 0
        self._pool: ThreadPoolExecutor | None = None
        # Where the stickers really lie (stuck on by hand) on the boards and around the track, measured once each.
        self._stickers = StickerPlaces()

    @property
    def cell_reader(self) -> Any:
        """The cell reader, loaded at first use, once: two threads loading it at once both read every network file,
        and on Python 3.11 (the Pi's) NumPy's parsing of the files' headers in two threads at once can fail outright
        ("AST constructor recursion depth mismatch", CPython gh-106905): a table's first frame with two boards
        to read did so in ``bench_mishaps``."""
        if self._cell_reader is None:
            with self._loading:
                if self._cell_reader is None:
                    from vision.cells import CellReader

                    self._cell_reader = CellReader(language=self.language, data_dir=self.data_dir)
        return self._cell_reader

    def reset(self, *, same_table: bool = False) -> None:
        """Forget what was seen: the next frame is read whole. ``same_table``: the view changed (the camera
        knocked, the light) but not the table, whose stickers stay where they were measured and whose tray and
        dice keep the sizes measured. Another table's are measured afresh (``DiceReader.forget``): ``companion
        scan`` reads each photo on its own, and one table's 14 mm dice are not another's 20 mm ones (the dice's side
        is the median of the last 15 measured, so it took eight photos of the new table to be believed)."""
        self._board_cache.clear()
        self._tray_cache = None
        self._markers_cache = None
        if not same_table:
            self._stickers.clear()
            self.dice_reader.forget()
        self._last_small = None
        self._last_obs = None
        self._reference = None
        self._static_frames = 0

    # --- frame comparison ---------------------------------------------------------------------------
    @staticmethod
    def small(frame: np.ndarray) -> np.ndarray:
        gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        return cv2.resize(gray, SMALL_SIZE, interpolation=cv2.INTER_AREA)

    @staticmethod
    def _changed_pixels(a: np.ndarray, b: np.ndarray, level: int) -> np.ndarray:
        return cv2.absdiff(a, b) > level

    def _occluders(self, small: np.ndarray) -> np.ndarray | None:
        """Mask (small frame) of big connected changes against the last still view, or None."""
        if self._reference is None:
            return None
        changed = self._changed_pixels(small, self._reference, _OCCLUDER_LEVEL).astype(np.uint8)
        changed = cv2.morphologyEx(changed, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
        n, labels, stats, _ = cv2.connectedComponentsWithStats(changed, connectivity=8)
        big = [i for i in range(1, n) if stats[i, cv2.CC_STAT_AREA] >= _OCCLUDER_FRACTION * small.size]
        if not big:
            return None
        return np.isin(labels, big)

    # --- reading ------------------------------------------------------------------------------------
    def read(self, frame: np.ndarray, detail: Detail = None) -> Observation:
        """The frame's observation. ``detail``: the same moment at a higher resolution (the camera's whole
        sensor; an array, or a function that makes it): the boards read are rectified from it, everything
        else (markers, dice, track, the fast path) comes from ``frame``."""
        if frame is None or frame.ndim != 3 or frame.shape[2] != 3 or frame.size == 0:
            raise ValueError("TableReader.read needs a BGR image")
        now = time.time()
        index = self.frame_index
        self.frame_index += 1
        gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)  # once: the small frame, markers, boards, track
        small = self.small(gray)
        if self._last_small is not None and self._last_small.shape == small.shape:
            moved = int(self._changed_pixels(small, self._last_small, _UNCHANGED_LEVEL).sum())
            if moved <= _UNCHANGED_PIXELS:
                self._static_frames += 1
                still = self._static_frames >= _STATIC_FRAMES_FOR_REFERENCE
                if still:
                    self._reference = small
                if self._last_obs is not None:
                    self.fast_hits += 1
                    # Nothing moved since the last frame: whatever was moving in the tray is at rest.
                    extra = {**self._last_obs.extra, "dice_moving": False}
                    if still:
                        # The view the last read took hands against is now this one: what it took for a hand is
                        # what lies there, as a read now would say. Kept, the report held a board as covered for as
                        # long as nothing moved after a hand had rested on it and been lifted (bench_mishaps).
                        extra.update(occluded_seats=[], dice_occluded=False, pirates_occluded=False)
                    return dataclasses.replace(self._last_obs, timestamp=now, frame_index=index, extra=extra)
            else:
                self._static_frames = 0
        if self._reference is None:
            self._reference = small  # the first view is the first reference
        previous = self._last_small
        self._last_small = small
        obs = self.read_full(frame, small, previous, gray=gray, detail=detail)
        obs = dataclasses.replace(obs, timestamp=now, frame_index=index)
        self._last_obs = obs
        return obs

    def read_full(
        self, frame: np.ndarray, small: np.ndarray | None = None, previous: np.ndarray | None = None,
        *, gray: np.ndarray | None = None, detail: Detail = None,
    ) -> Observation:
        gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if gray is None else gray
        small = self.small(gray) if small is None else small
        scale = SMALL_SIZE[0] / frame.shape[1], SMALL_SIZE[1] / frame.shape[0]  # frame -> small frame
        seen = self._markers_cache
        if seen is not None and seen.frame_shape == frame.shape and seen.small.shape == small.shape and not (
                self._changed_pixels(seen.small, small, _UNCHANGED_LEVEL) & ~seen.quiet).any():
            # Nothing moved but drawings on the boards, dice in the tray, the track's boxes: the kit's
            # markers are where they were (and the whole-frame look for them is a third of a move's frame).
            markers, doubled = seen.markers, seen.doubled_seats
            self.markers_reused += 1
        else:
            twice: set[int] = set()
            markers, seen = detect_markers(gray, KIT_LAYOUTS, doubled=twice), None
            doubled = doubled_seats(twice)
        # The tray and its dice are read on the pool from here on, beside the boards' placing and their cells
        # (``_start_tray``); no tray is still being read once this frame's read is over, whatever happened.
        tray = self._start_tray(frame, small, gray, scale, markers, kept_markers=seen is not None)
        try:
            return self._read_boards_and_track(frame, small, previous, gray, detail, scale, markers, seen, tray,
                                               doubled)
        finally:
            futures_wait([tray])

    def _read_boards_and_track(
        self, frame: np.ndarray, small: np.ndarray, previous: np.ndarray | None, gray: np.ndarray, detail: Detail,
        scale: tuple[float, float], markers: dict[int, np.ndarray], seen: _KeptMarkers | None,
        tray: Future[tuple[LocatedPlane | None, tuple[DieReading, ...] | None]], doubled: list[int],
    ) -> Observation:
        """``read_full`` once the markers are known and the tray is being read (``tray``); ``doubled``: the seats
        whose stickers are on two boards, neither of which is read (which player's is which, the camera cannot
        tell)."""
        from vision.board import find_single_board

        # Boards are rectified from the grey frame: the cell reader reads grey ink, and a third of the warp.
        unread = {m for seat in doubled for m in BOARD_LAYOUTS[seat].marker_origins}
        board_markers = {m: q for m, q in markers.items() if m not in unread} if unread else markers
        located = self._stickers.locate(gray, board_markers) if any(m < 20 for m in board_markers) else []
        if not markers:
            # No kit markers at all: a photo of one board on its own (seat 0).
            single = find_single_board(frame)
            located = [single] if single is not None else []
        boards: list[BoardReading | None] = []
        to_read: list[tuple[int, Any, np.ndarray, tuple[tuple[float, float], ...], _ReadBoard | None, list[int] | None,
                            list[int]]] = []
        hands = {lb.seat: self.hands.hand(lb.seat) for lb in located} if self.hands is not None else {}
        unseen = {lb.seat: _unseen_cells(lb, gray.shape, [other for other in located if other is not lb])
                  for lb in located}
        for lb in located:
            corners = tuple((float(x), float(y)) for x, y in np.asarray(lb.corners).reshape(-1, 2))
            thumb = board_thumb(lb.rectified)
            cached = self._board_cache.get(lb.seat)
            hand_version = getattr(hands.get(lb.seat), "version", -1)
            if cached is not None and cached.hand_version != hand_version:
                cached = None  # its hand learned since: every cell is read again with what it learned
            if cached is not None and cached.board.unseen != unseen[lb.seat]:
                cached = None  # more or less of it in view: what came into view was never read
            if cached is not None and _same_thumb(cached.thumb, thumb):
                # Nothing drawn on this board since it was last read: keep that reading.
                boards.append(dataclasses.replace(cached.board, corners=corners))
                self.boards_reused += 1
                continue
            changed = _changed_cells(cached.thumb, thumb) if cached is not None and cached.cells is not None else None
            covered: list[int] = []
            if changed is not None and (covered := covered_cells(cached.thumb, thumb)):
                # Something lies on the board (``vision.board.lying``): its cells keep their last reading and their
                # last look in the cache, and are reported covered until it is taken away.
                changed = [i for i in changed if i not in covered]
                if not changed:
                    boards.append(dataclasses.replace(cached.board, corners=corners).with_covered(_names(covered)))
                    self.boards_reused += 1
                    continue
            to_read.append((len(boards), lb, thumb, corners, cached, changed, covered))
            boards.append(None)
        # The thumbnails above compare the frame's own boards (the detail may come and go); what is read
        # is the board at the detail's resolution when there is one.
        sharpest = _boards_from_detail([lb for _, lb, *_ in to_read], detail, gray.shape) if to_read else []
        jobs = [(r, hands.get(lb.seat), cached.cells if cached is not None and changed is not None else None, changed)
                for (_, lb, _, _, cached, changed, _), r in zip(to_read, sharpest, strict=True)]
        self.cells_read += sum(len(DRAWABLE_INDEX) if previous is None else len(changed or ()) for _, _, previous, changed in jobs)
        # BLAS limited around the whole batch: each read's own limit then saves and restores 1, whatever order
        # the threads enter and leave in (``_start_cells``).
        with single_threaded_blas():
            collect_cells = self._start_cells(jobs)
            # The track is read while the pool reads the tray and the boards' cells.
            try:
                # Measured at 640 px wide: at the fast-path size a motion blur hides in the downscaling.
                sharpness = frame_sharpness(gray, width=640)
                track_plane = self._stickers.track(gray, markers)
                hint = len(boards) if 2 <= len(boards) <= 5 else None
                track_read = read_track(track_plane, gray, hint) if track_plane is not None else None
                tray_plane, dice = tray.result()
            finally:
                # Whatever happened above, no board is still being read once this frame's read is over.
                read_cells = collect_cells()
        for (slot, lb, thumb, corners, cached, changed, covered), rectified, ((city, confidence, uncertain, alternatives), cells) in zip(
                to_read, sharpest, read_cells, strict=True):
            board = BoardReading(
                seat=lb.seat,
                city=tuple(city),
                confidence=tuple(tuple(float(v) for v in row) for row in confidence),
                uncertain=tuple(uncertain),
                corners=corners,
                alternatives=alternatives,
                rectified=rectified,
            ).with_unseen(unseen[lb.seat])
            # Each cell's part of the thumbnail is the one it was last read from: a cell that drifts slowly
            # (daylight, a smudge) is read again once it has drifted far enough, not compared frame to frame.
            if cached is not None and changed is not None and cells is not None:
                thumb = _with_cells_of(cached.thumb, thumb, changed)
            self._board_cache[lb.seat] = _ReadBoard(thumb, board, getattr(hands.get(lb.seat), "version", -1), cells)
            boards[slot] = board.with_covered(_names(covered))  # (the cache keeps what lies under it as last read)
        # A camera that sends no colour misreads dice (``vision.imaging.has_colour``): the table is told, and each die,
        # told apart by its colours, is a guess there: doubted, so that the camera view rings it and the roll is held
        # longer before it is taken (``vision.stability``).
        colourless = not has_colour(frame)
        if colourless and dice:
            dice = tuple(dataclasses.replace(d, confidence=min(d.confidence, GREY_DIE_CONFIDENCE)) for d in dice)
        extra: dict[str, Any] = {"sharpness": sharpness, "colourless": colourless}
        # A tray floor nearly as light as the dice loses dice (``NEAR_WHITE_FLOOR_FROM``): the table is told. Its last
        # read's (a tray kept unchanged is the same floor).
        lightness = getattr(self.dice_reader, "floor_lightness", None) if tray_plane is not None else None
        if lightness is not None:
            extra["tray_floor_light"] = lightness >= NEAR_WHITE_FLOOR_FROM
        # A tray found but given no dice is one whose floor runs past the frame's edge without all five dice in view
        # (``DiceReader.read_in_view``'s None): the table is told, so that the players move it back into view rather
        # than wonder where their roll went.
        if tray_plane is not None:
            extra["tray_cut"] = dice is None
        pirate_boxes = None
        if track_read is not None:
            pirate_boxes = track_read.boxes
            extra["pirates_confidence"] = track_read.confidence
            extra["pirate_players"] = track_read.players
        if tray_plane is not None and previous is not None and previous.shape == small.shape:
            # Something moved in the tray since the last frame (a die rolling, a hand): dice read now
            # are not at rest.
            moved = self._changed_pixels(small, previous, _UNCHANGED_LEVEL)
            extra["dice_moving"] = _covers(moved, _plane_outline(tray_plane) * scale)
        occluders = self._occluders(small)
        if occluders is not None:
            extra["occluded_seats"] = [
                b.seat for b in boards if _covers(occluders, np.array(b.corners) * scale)
            ]
            extra["dice_occluded"] = tray_plane is not None and _covers(occluders, _plane_outline(tray_plane) * scale)
            extra["pirates_occluded"] = track_plane is not None and _covers(
                occluders, _plane_outline(track_plane) * scale
            )
        extra["markers"] = sorted(markers)
        if doubled:
            extra["doubled_seats"] = list(doubled)
        if seen is None:
            planes = [np.asarray(b.corners, np.float64) for b in boards if b is not None]
            planes += [_plane_outline(p) for p in (tray_plane, track_plane) if p is not None]
            self._markers_cache = _KeptMarkers(small, markers, _quiet_zone(small.shape, frame.shape, planes, markers),
                                               frame.shape, doubled)
        return Observation(boards=tuple(b for b in boards if b is not None), dice=dice, pirate_boxes=pirate_boxes,
                           extra=extra)

    def _start_cells(self, boards: list[_CellsJob]) -> Callable[[], list[tuple[CellsRead, Any]]]:
        """Starts the cell reader on each (board, its seat's hand or None, its cells' last reading or None, the
        cells to read again), side by side on the machine's cores when there are several, and gives what
        collects the readings, in the boards' order. The network's matrix products and OpenCV release the GIL,
        so 4 boards take 26-30 ms on this 2-core machine instead of 51. The caller limits BLAS to one thread a
        board until it has collected (``single_threaded_blas``) and reads the track meanwhile (the tray is read on the
        pool too: ``_start_tray``); with one core the boards are read when collected."""
        read = self._read_one_board
        pool = self._board_pool() if boards else None
        if pool is None:
            return lambda: [read(b) for b in boards]
        futures = [pool.submit(read, b) for b in boards]
        return lambda: [f.result() for f in futures]

    def _start_tray(self, frame: np.ndarray, small: np.ndarray, gray: np.ndarray, scale: tuple[float, float],
                    markers: dict[int, np.ndarray], *, kept_markers: bool,
                    ) -> Future[tuple[LocatedPlane | None, tuple[DieReading, ...] | None]]:
        """The tray's last reading when nothing changed over it; else ``_read_tray`` started on the boards' pool when
        the machine has several cores (read here at once on one).
        The pool takes it before the boards, so on two cores one worker reads the tray while the other reads boards,
        and the frame's own thread places the boards meanwhile; before, the tray was read on the frame's thread
        beside two board workers, three threads on two cores, after the boards were placed. Measured in turn (stop 56,
        24 frames of four boards as rendered, four rounds): 70.6-80.9 -> 69.8-74.5 ms a frame, 116-127 -> 113-120 ms of
        CPU; ``bench_frame.py``'s JPEG frames, two rounds: 69.5 and 72.1 -> 68.1 and 71.6 ms, the frame after a move
        11.3 and 10.9 -> 11.0 and 11.6 ms."""
        done: Future[tuple[LocatedPlane | None, tuple[DieReading, ...] | None]] = Future()
        tray = self._kept_tray(frame, small)
        if tray is not None and not _covers(self._changed_pixels(tray.small, small, _UNCHANGED_LEVEL),
                                            _plane_outline(tray.plane) * scale, grow=_AROUND_PLANE):
            # Nothing changed over the tray or within _AROUND_PLANE of it (its stickers, a die's top leaning out): the
            # last reading, here (handing it to the pool cost a frame after a move about 1 ms).
            self.trays_reused += 1
            done.set_result((tray.plane, tray.dice))
            return done
        pool = self._board_pool()
        if pool is not None:
            return pool.submit(self._read_tray, frame, small, gray, scale, markers, kept_markers=kept_markers)
        try:
            done.set_result(self._read_tray(frame, small, gray, scale, markers, kept_markers=kept_markers))
        except Exception as error:  # noqa: BLE001 (handed on to whoever collects it, as the pool would)
            done.set_exception(error)
        return done

    def _kept_tray(self, frame: np.ndarray, small: np.ndarray) -> _KeptTray | None:
        """The tray's last reading when it was read from a frame of this size; else None."""
        tray = self._tray_cache
        if tray is None or tray.frame_shape != frame.shape or tray.small.shape != small.shape:
            return None
        return tray

    def _board_pool(self) -> ThreadPoolExecutor | None:
        """The pool the boards' cells and the tray are read on, made at first use; None on one core."""
        cores = min(os.cpu_count() or 1, _MAX_BOARD_THREADS)
        if cores <= 1:
            return None
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=cores, thread_name_prefix="board")
        return self._pool

    def _read_tray(self, frame: np.ndarray, small: np.ndarray, gray: np.ndarray, scale: tuple[float, float],
                   markers: dict[int, np.ndarray], *, kept_markers: bool,
                   ) -> tuple[LocatedPlane | None, tuple[DieReading, ...] | None]:
        """(the tray's plane or None, its dice) read again (where it was when ``kept_markers``: nothing moved at its
        corners); ``_start_tray`` keeps the last reading instead when nothing changed over the tray."""
        tray = self._kept_tray(frame, small)
        if tray is not None and kept_markers:
            # The markers were kept (nothing moved at the tray's corners): the tray is where it was read.
            tray_plane = tray.plane
        else:
            tray_plane = self.dice_reader.locate(frame, markers, gray)  # its size measured from its stickers
        dice = None
        if tray_plane is not None:
            dice = self.dice_reader.read_in_view(frame, tray_plane)
            if dice:
                tops = tray_plane.to_frame(np.array([d.centre for d in dice], np.float64))
                dice = tuple(dataclasses.replace(d, in_frame=(float(x), float(y))) for d, (x, y) in zip(dice, tops, strict=True))
        self._tray_cache = _KeptTray(small, tray_plane, dice, frame.shape) if tray_plane is not None else None
        return tray_plane, dice

    def _read_one_board(self, board: _CellsJob) -> tuple[CellsRead, Any]:
        """((city, confidence, uncertain, alternatives), the cells' reading for the next read or None) of a
        job (``_start_cells``); a reader without alternatives gives none, one without ``read_cells`` reads
        the whole board every time."""
        reader = self.cell_reader
        rectified, hand, previous, changed = board
        if hasattr(reader, "read_cells"):
            return reader.read_cells(rectified, hand, previous, changed)
        extra = () if hand is None else (hand,)  # a reader made without hands is asked without one
        if hasattr(reader, "read_with_alternatives"):
            return tuple(reader.read_with_alternatives(rectified, *extra)), None  # type: ignore[return-value]
        city, confidence, uncertain = reader.read(rectified, *extra)
        return (city, confidence, uncertain, {}), None


def _boards_from_detail(located: list[Any], detail: Detail, frame_shape: tuple[int, ...]) -> list[np.ndarray]:
    """Each located board's rectified image: from ``detail`` when it is the frame at a higher resolution,
    else the frame's own."""
    from vision.board import rectified_from_detail

    picture = detail() if callable(detail) else detail
    if picture is None or picture.ndim not in (2, 3) or picture.size == 0:
        return [lb.rectified for lb in located]
    out = []
    for lb in located:
        sharper = rectified_from_detail(picture, lb, frame_shape)
        out.append(lb.rectified if sharper is None else sharper)
    return out



def _unseen_cells(board: Any, frame_shape: tuple[int, ...], others: list[Any]) -> tuple[str, ...]:
    """The drawable cells of a located board that the camera does not see, by name: beyond the frame's edge
    (``cells_out_of_view``) or where another board ``others`` lies over it or under it (``cells_under``)."""
    hidden = set(cells_out_of_view(board, frame_shape))
    low, high = np.asarray(board.corners).min(axis=0), np.asarray(board.corners).max(axis=0)
    for other in others:
        other_low, other_high = np.asarray(other.corners).min(axis=0), np.asarray(other.corners).max(axis=0)
        if (other_low < high).all() and (low < other_high).all():  # (outlines apart: nothing to look for)
            hidden.update(cells_under(board, other))
    return tuple(sorted(ALL_CELLS[i] for i in DRAWABLE_INDEX if i in hidden))


def _names(cells: list[int]) -> list[str]:
    return [ALL_CELLS[i] for i in cells]


def _same_thumb(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and int((cv2.absdiff(a, b) > THUMB_CHANGE).sum()) <= 3


def _changed_cells(before: np.ndarray, now: np.ndarray) -> list[int] | None:
    """The drawable cells (indices row by row) whose crops may read differently in ``now`` than in ``before``
    (board thumbnails): any of its thumbnail's pixels changed, or one within the crop's reach of it (its
    margin and the second look's nudges, ``thumbnail.CROP_REACH``); None when the thumbnails do not compare."""
    if before.shape != now.shape or before.shape[0] % SIZE:
        return None
    return cells_within_reach((cv2.absdiff(before, now) > THUMB_CHANGE).astype(np.uint8))


def _with_cells_of(before: np.ndarray, now: np.ndarray, cells: list[int]) -> np.ndarray:
    """``before`` (a board thumbnail) with the parts of ``cells`` taken from ``now``."""
    out = before.copy()
    cell = before.shape[0] // SIZE
    for i in cells:
        row, col = divmod(i, SIZE)
        out[row * cell:(row + 1) * cell, col * cell:(col + 1) * cell] = now[row * cell:(row + 1) * cell,
                                                                            col * cell:(col + 1) * cell]
    return out


def _quiet_zone(small_shape: tuple[int, ...], frame_shape: tuple[int, ...], planes: list[np.ndarray],
                markers: dict[int, np.ndarray]) -> np.ndarray:
    """Where in the small frame a change leaves the kit's markers as they are (bool mask): inside the planes
    found (``planes``: outlines in frame pixels, edges included, for a wall is drawn right up to its board's
    edge; a board's drawings, the tray's dice, the track's boxes), out of their corners (where the stickers
    are, seen or not: a board's towers) and ``_AROUND_MARKER`` pixels clear of every marker. Anything that
    changes elsewhere (a hand coming in, a board or the tray moved, a marker uncovered) needs a new look."""
    scale = np.array([small_shape[1] / frame_shape[1], small_shape[0] / frame_shape[0]])
    quiet = np.zeros(small_shape[:2], np.uint8)
    for outline in planes:
        corners = outline.reshape(-1, 2) * scale
        cv2.fillConvexPoly(quiet, np.round(corners).astype(np.int32), 1)
        for k, corner in enumerate(corners):
            along = (corners[k - 1] - corner) * _PLANE_CORNER, (corners[(k + 1) % len(corners)] - corner) * _PLANE_CORNER
            corner_part = np.array([corner, corner + along[0], corner + along[0] + along[1], corner + along[1]])
            cv2.fillConvexPoly(quiet, np.round(corner_part).astype(np.int32), 0)
    for corners in markers.values():
        (x0, y0), (x1, y1) = np.floor(corners.min(axis=0) * scale), np.ceil(corners.max(axis=0) * scale)
        cv2.rectangle(quiet, (int(x0) - _AROUND_MARKER, int(y0) - _AROUND_MARKER),
                      (int(x1) + _AROUND_MARKER, int(y1) + _AROUND_MARKER), 0, -1)
    return quiet.astype(bool)


def _plane_outline(plane: LocatedPlane) -> np.ndarray:
    w, h = plane.layout.width_mm, plane.layout.height_mm
    return plane.to_frame(np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64))


def _covers(occluders: np.ndarray, polygon: np.ndarray, grow: int = 3) -> bool:
    """Whether the changes (a mask) reach into ``polygon`` (small-frame pixels), grown by ``grow`` pixels."""
    if len(polygon) < 3:
        return False
    region = np.zeros(occluders.shape, np.uint8)
    cv2.fillConvexPoly(region, np.round(polygon).astype(np.int32), 1)
    region = cv2.dilate(region, np.ones((2 * grow + 1, 2 * grow + 1), np.uint8))
    return bool((occluders & (region > 0)).any())
