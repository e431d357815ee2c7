"""Only what stays still reaches the game: a hand, a blur or a die in the air never makes a change.

Each frame's observation is first cleaned: parts the frame cannot be trusted on (a board under a hand
or read with many doubtful cells, dice with a doubtful face or a blob that is not one die, the whole
frame when it is blurred) are replaced by the last committed value of that part. A part that drops out
of view (markers hidden) also keeps its last value. The cleaned observation is committed only when it
differs from the last commit and has stayed exactly the same for ``hold_frames`` consecutive frames and
at least ``hold_seconds``; any distrusted frame restarts the count.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterator
from typing import Protocol

import cv2
import numpy as np

from vision.observation import BoardReading, DieReading, Observation

Signature = tuple[object, ...]


def frame_sharpness(frame: np.ndarray, width: int = 480) -> float:
    """Variance of the Laplacian on a downscaled grey frame: low when the frame is blurred."""
    gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    scale = width / gray.shape[1]
    if scale < 1:
        gray = cv2.resize(gray, (width, max(1, round(gray.shape[0] * scale))), interpolation=cv2.INTER_AREA)
    return float(cv2.Laplacian(gray, cv2.CV_32F).var())


def signature(obs: Observation) -> Signature:
    """What counts as "the same observation": cities by seat, dice faces as a multiset, pirate boxes."""
    boards = tuple(sorted((b.seat, b.city) for b in obs.boards))
    dice = None if obs.dice is None else tuple(sorted(d.face for d in obs.dice))
    return (boards, dice, obs.pirate_boxes)


class StabilityFilter:
    """Turns a stream of per-frame observations into committed, stable ones.

    ``push(obs)`` returns the observation to commit (something changed and held still), else None.
    The reader tells the filter what to distrust through ``obs.extra``: ``sharpness`` (float),
    ``occluded_seats`` (seats under a hand), ``dice_occluded`` and ``pirates_occluded`` (bools).
    """

    def __init__(
        self,
        hold_frames: int = 5,
        hold_seconds: float = 0.0,
        *,
        min_die_confidence: float = 0.6,
        max_uncertain_cells: int = 4,
        min_track_confidence: float = 0.3,
        blur_ratio: float = 0.45,
        min_sharpness: float = 15.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.hold_frames = max(1, hold_frames)
        self.hold_seconds = hold_seconds
        self.min_die_confidence = min_die_confidence
        self.max_uncertain_cells = max_uncertain_cells
        self.min_track_confidence = min_track_confidence
        self.blur_ratio = blur_ratio
        self.min_sharpness = min_sharpness
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

    def _board_ok(self, board: BoardReading, occluded: set[int]) -> bool:
        return board.seat not in occluded and len(board.uncertain) <= self.max_uncertain_cells

    def _dice_ok(self, obs: Observation) -> bool:
        if obs.extra.get("dice_occluded") or obs.dice is None:
            return False
        return all(d.confidence >= self.min_die_confidence for d in obs.dice)

    def clean(self, obs: Observation) -> Observation | None:
        """The observation with untrusted parts replaced by the last commit; None to distrust it all."""
        if self._blurred(obs):
            return None
        last = self.committed
        occluded = set(obs.extra.get("occluded_seats", ()))
        boards: dict[int, BoardReading] = {b.seat: b for b in (last.boards if last else ())}
        fresh_boards = {b.seat: b for b in obs.boards}
        for seat, board in fresh_boards.items():
            if self._board_ok(board, occluded):
                boards[seat] = board
            elif seat not in boards:
                return None  # nothing to fall back on: wait for a clean view
        dice: tuple[DieReading, ...] | None
        if self._dice_ok(obs):
            dice = obs.dice
        elif last is not None and last.dice is not None:
            dice = last.dice
        elif obs.dice is None and not obs.extra.get("dice_occluded"):
            dice = None  # no tray in view at all
        else:
            return None
        pirates = obs.pirate_boxes
        track_conf = float(obs.extra.get("pirates_confidence", 1.0))
        if pirates is None or obs.extra.get("pirates_occluded") or track_conf < self.min_track_confidence:
            pirates = last.pirate_boxes if last is not None else pirates
            if pirates is not None and last is None:
                return None
        return dataclasses.replace(
            obs, boards=tuple(sorted(boards.values(), key=lambda b: b.seat)), dice=dice, pirate_boxes=pirates
        )

    # --- holding ------------------------------------------------------------------------------------
    def push(self, obs: Observation) -> Observation | None:
        cleaned = self.clean(obs)
        if cleaned is None:
            self.distrusted_frames += 1
            self._candidate = None
            self._held = 0
            return None
        now = self.clock()
        sig = signature(cleaned)
        if sig != self._candidate:
            self._candidate = sig
            self._candidate_since = now
            self._held = 1
        else:
            self._held += 1
        if self.committed is not None and sig == signature(self.committed):
            return None
        if self._held >= self.hold_frames and now - self._candidate_since >= self.hold_seconds:
            self.committed = cleaned
            return cleaned
        return None


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
        obs = reader.read(frame)
        obs = dataclasses.replace(obs, frame_index=index, timestamp=obs.timestamp or time.time())
        index += 1
        committed = filt.push(obs)
        if committed is not None:
            yield committed
