"""Only what stays still reaches the game: a hand, a blur or a die in the air never makes a change.

Each frame's observation is first cleaned: a blurred frame is distrusted as a whole; a part under a
hand (the reader reports big changes over a board, the tray or the track) or out of view (markers
hidden) keeps its last committed value. The cleaned observation is committed only when it differs
from the last commit and has stayed exactly the same for ``hold_frames`` consecutive frames and at
least ``hold_seconds``; a reading with doubtful parts (a die read with low confidence, a board
suddenly much less sure of its cells, an unclear track) must hold ``doubt_factor`` times longer, and a board
that reads more cells changed than any move draws (a hand left resting on it) ``LEAP_SECONDS``. Any
distrusted frame restarts the count. A drawn cell read in doubt as another symbol, while its committed
symbol is still one of its likely readings, keeps the committed symbol (``steady_board``). Each board's
per-cell ``alternatives`` (the readings' probabilities the tracker weighs against the rules) are not
averaged: the committed frame's own are kept, like its city.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterator
from typing import Protocol

import cv2
import numpy as np

from companion.layout import ALL_CELLS, SIZE
from vision.observation import DOUBTFUL_DIE_BELOW, BoardReading, DieReading, Observation

# A symbol drawn on a board turns into another only when it is erased (the empty space is seen and committed
# first) and drawn again, and a fresh drawing is read clearly. So a drawn cell that a frame reads in doubt as
# another symbol, while the committed symbol keeps at least this probability, is the same drawing under other
# noise (a hand's shadow, glare, a doubtful cell's two readings trading places): it keeps the committed
# symbol. bench_frame's no-change check committed such a flip once in 1,000 frames (a wall read as a crate at
# 0.98 at rest, as a wall at 0.65 under a hand's shadow). Empty spaces are not held: a new drawing, however
# doubtful, must reach the tracker.
KEEP_COMMITTED_SYMBOL_AT_LEAST = 0.1
_BLANK = frozenset(".#")
# A board read with more of its cells changed since its last commit than any move draws (at most 7: five walls and
# the tower's person, or an architect and three houses; a misread beside them) is not a move: a hand or an arm
# resting on it. The reader takes a hand for what it is while the hand is new (``occluded_seats``), but a hand left
# still for a second becomes the view it compares against, and the board is read with the hand on it
# (``bench_mishaps.py``: of 30 generated tables with a hand resting on a board for 6 s, stirring once, 20 committed
# such a reading, 215 cells changed; with this rule 9, 41 cells, none more than 8). Such a reading must hold still
# ``LEAP_SECONDS`` before it is committed; a hand that moves restarts the count, one taken away ends it. A new game's
# boards wiped clean, or a board swapped, wait that long once.
LEAP_CELLS = 8
LEAP_SECONDS = 10.0

Signature = tuple[object, ...]


def frame_sharpness(frame: np.ndarray, width: int = 480) -> float:
    """Variance of the Laplacian on a downscaled grey frame: low when the frame is blurred."""
    gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    scale = width / gray.shape[1]
    if scale < 1:
        gray = cv2.resize(gray, (width, max(1, round(gray.shape[0] * scale))), interpolation=cv2.INTER_AREA)
    return float(cv2.Laplacian(gray, cv2.CV_32F).var())


def signature(obs: Observation) -> Signature:
    """What counts as "the same observation": cities by seat, dice faces as a multiset, pirate boxes, and the
    seats whose stickers are on two boards (the table is told when that begins and ends)."""
    boards = tuple(sorted((b.seat, b.city) for b in obs.boards))
    dice = None if obs.dice is None else tuple(sorted(d.face for d in obs.dice))
    return (boards, dice, obs.pirate_boxes, tuple(obs.extra.get("doubled_seats", ())))


class StabilityFilter:
    """Turns a stream of per-frame observations into committed, stable ones.

    ``push(obs)`` returns the observation to commit (something changed and held still), else None.
    The reader tells the filter what to distrust through ``obs.extra``: ``sharpness`` (float),
    ``occluded_seats`` (seats under a hand), ``dice_occluded``, ``dice_moving`` (the tray changed since
    the previous frame: dice are read only at rest) and ``pirates_occluded`` (bools).
    """

    def __init__(
        self,
        hold_frames: int = 5,
        hold_seconds: float = 0.0,
        *,
        min_die_confidence: float = DOUBTFUL_DIE_BELOW,
        max_uncertain_cells: int = 3,
        doubt_factor: int = 4,
        min_track_confidence: float = 0.3,
        blur_ratio: float = 0.45,
        min_sharpness: float = 15.0,
        leap_seconds: float = LEAP_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.hold_frames = max(1, hold_frames)
        self.hold_seconds = hold_seconds
        self.min_die_confidence = min_die_confidence
        self.max_uncertain_cells = max_uncertain_cells
        self.doubt_factor = doubt_factor
        self._doubtful = False
        self.min_track_confidence = min_track_confidence
        self.blur_ratio = blur_ratio
        self.min_sharpness = min_sharpness
        self.leap_seconds = leap_seconds
        self._leap = False
        self._before_leap: Observation | None = None  # the commit that a leap's commit replaced
        self.clock = clock
        self.committed: Observation | None = None
        self._candidate: Signature | None = None
        self._candidate_since = 0.0
        self._held = 0
        self._sharpness_history: list[float] = []
        self.distrusted_frames = 0

    # --- what to distrust ---------------------------------------------------------------------------
    def _blurred(self, obs: Observation) -> bool:
        sharpness = obs.extra.get("sharpness")
        if sharpness is None:
            return False
        history = self._sharpness_history
        typical = float(np.median(history)) if len(history) >= 3 else None
        blurred = sharpness < self.min_sharpness or (typical is not None and sharpness < self.blur_ratio * typical)
        if not blurred:
            history.append(float(sharpness))
            del history[:-30]
        return blurred

    def _board_doubtful(self, board: BoardReading, previous: BoardReading | None) -> bool:
        """Much less sure of its cells than at the last commit (some boards always carry a few
        doubtful cells; a hand or a shadow the diff missed adds many at once)."""
        before = len(previous.uncertain) if previous is not None else 0
        return len(board.uncertain) > before + self.max_uncertain_cells

    def _leaps(self, cleaned: Observation) -> bool:
        """Whether a board of ``cleaned`` reads more cells otherwise than at the last commit than a move draws
        (``LEAP_CELLS``; the cells it does not see left out), and not back to what it read before the last leap
        (the hand that stayed long enough taken away)."""
        if self.committed is None:
            return False
        for board in cleaned.boards:
            if _cells_apart(board, self.committed.board(board.seat)) > LEAP_CELLS and (
                    self._before_leap is None or _cells_apart(board, self._before_leap.board(board.seat)) > LEAP_CELLS):
                return True
        return False

    def _back_from_leap(self, board: BoardReading) -> bool:
        """Whether ``board`` reads as it did before the last leap's commit (within ``LEAP_CELLS``) and nearer that
        than the commit: the hand that rested long enough to be committed is gone. The reader still reports the
        board covered (the view it compares against has the hand in it, until the view without it has held still),
        but what shows is the board as it was."""
        if self._before_leap is None or self.committed is None:
            return False
        before = self._before_leap.board(board.seat)
        if before is None:
            return False
        back = _cells_apart(board, before)
        return back <= LEAP_CELLS and back < _cells_apart(board, self.committed.board(board.seat))

    def clean(self, obs: Observation) -> tuple[Observation, bool] | None:
        """(the observation with covered or missing parts replaced by the last commit, whether any
        part read is doubtful); None to distrust the whole frame."""
        if self._blurred(obs):
            return None
        last = self.committed
        doubtful = False
        occluded = set(obs.extra.get("occluded_seats", ()))
        boards: dict[int, BoardReading] = {b.seat: b for b in (last.boards if last else ())}
        for board in obs.boards:
            if board.seat in occluded and not self._back_from_leap(board):
                if board.seat not in boards:
                    return None  # under a hand and nothing to fall back on: wait for a clean view
                continue
            doubtful |= self._board_doubtful(board, boards.get(board.seat))
            boards[board.seat] = steady_board(board, boards.get(board.seat))
        dice: tuple[DieReading, ...] | None = obs.dice
        if obs.extra.get("dice_occluded") or obs.extra.get("dice_moving") or obs.dice is None:
            if last is not None and last.dice is not None:
                dice = last.dice
            elif obs.extra.get("dice_occluded") or obs.extra.get("dice_moving"):
                return None
        else:
            doubtful |= any(d.confidence < self.min_die_confidence for d in obs.dice)
        pirates = obs.pirate_boxes
        if pirates is None or obs.extra.get("pirates_occluded"):
            if last is not None and last.pirate_boxes is not None:
                pirates = last.pirate_boxes
            elif obs.extra.get("pirates_occluded"):
                return None
        else:
            doubtful |= float(obs.extra.get("pirates_confidence", 1.0)) < self.min_track_confidence
        cleaned = dataclasses.replace(
            obs, boards=tuple(sorted(boards.values(), key=lambda b: b.seat)), dice=dice, pirate_boxes=pirates
        )
        return cleaned, doubtful

    # --- holding ------------------------------------------------------------------------------------
    def push(self, obs: Observation) -> Observation | None:
        result = self.clean(obs)
        if result is None:
            self.distrusted_frames += 1
            self._candidate = None
            self._held = 0
            return None
        cleaned, doubtful = result
        now = self.clock()
        sig = signature(cleaned)
        if sig != self._candidate:
            self._candidate = sig
            self._candidate_since = now
            self._held = 1
            self._doubtful = doubtful
            self._leap = self._leaps(cleaned)
        else:
            self._held += 1
            self._doubtful |= doubtful
        if self.committed is not None and sig == signature(self.committed):
            return None
        # A reading with doubtful parts (a low-confidence die, a board suddenly full of doubtful
        # cells) must hold several times longer: a die in the air or a passing shadow never does.
        needed = self.hold_frames * (self.doubt_factor if self._doubtful else 1)
        seconds = max(self.hold_seconds, self.leap_seconds if self._leap else 0.0)
        if self._held >= needed and now - self._candidate_since >= seconds:
            # Only the commit right after a leap may be the way back from it.
            self._before_leap = self.committed if self._leap else None
            self.committed = cleaned
            return cleaned
        return None


def _cells_apart(board: BoardReading, other: BoardReading | None) -> int:
    """How many cells that both ``board`` and ``other`` see they read otherwise (0 when there is no ``other``): a
    board coming back into view shows again what was out of it, which is no move."""
    if other is None or other.city == board.city:
        return 0
    unseen = {ALL_CELLS.index(name) for name in (*board.unseen, *other.unseen)}
    return sum(a != b for i, (a, b) in enumerate(zip("".join(board.city), "".join(other.city), strict=True))
               if i not in unseen)


def steady_board(board: BoardReading, committed: BoardReading | None) -> BoardReading:
    """``board`` with each drawn cell that it reads in doubt as another symbol given back its ``committed``
    symbol, when that symbol is still among the cell's likely readings (``KEEP_COMMITTED_SYMBOL_AT_LEAST``)."""
    if committed is None or committed.city == board.city:
        return board
    rows = [list(row) for row in board.city]
    confidence = [list(row) for row in board.confidence]
    doubted = set(board.uncertain)
    kept = False
    for i, name in enumerate(ALL_CELLS):
        row, col = divmod(i, SIZE)
        now, before = board.city[row][col], committed.city[row][col]
        if (now != before and now not in _BLANK and before not in _BLANK and name in doubted
                and board.alternatives.get(name, {}).get(before, 0.0) >= KEEP_COMMITTED_SYMBOL_AT_LEAST):
            rows[row][col] = before
            confidence[row][col] = board.alternatives[name][before]
            kept = True
    if not kept:
        return board
    return dataclasses.replace(board, city=tuple("".join(r) for r in rows),
                               confidence=tuple(tuple(r) for r in confidence))


class ObservationReader(Protocol):
    def read(self, frame: np.ndarray) -> Observation: ...


class _Source(Protocol):
    is_live: bool

    def read(self) -> np.ndarray | None: ...


def stable_observations(
    source: _Source,
    reader: ObservationReader,
    *,
    hold_frames: int = 5,
    hold_seconds: float = 0.0,
    idle_sleep: float = 0.02,
    stop: Callable[[], bool] | None = None,
    stability: StabilityFilter | None = None,
) -> Iterator[Observation]:
    """Read frames from ``source`` and yield each committed stable observation (for the tracker).

    Ends when a replay runs out, or when ``stop()`` says so; a live source with no frame now is polled
    again after ``idle_sleep`` seconds.
    """
    filt = stability or StabilityFilter(hold_frames, hold_seconds)
    index = 0
    while not (stop and stop()):
        frame = source.read()
        if frame is None:
            if not source.is_live:
                return
            time.sleep(idle_sleep)
            continue
        detail = getattr(source, "detail", None)
        obs = reader.read(frame, detail=detail) if callable(detail) else reader.read(frame)
        obs = dataclasses.replace(obs, frame_index=index, timestamp=obs.timestamp or time.time())
        index += 1
        committed = filt.push(obs)
        if committed is not None:
            yield committed
