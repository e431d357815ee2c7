"""Count the marked boxes of the pirate track.

The block of 6 rows x 10 boxes is found from markers 24-27 and rectified; each box's score is the ink
in its middle: how far its pixels fall below the paper around the box, averaged. Blur and a far camera
spread a stroke over more, paler pixels but keep its sum, so one threshold serves the camera from 45 to
90 cm up (a count of pixels darker than a fixed level loses the pale strokes of a far camera).

How many players? The print crosses out every column beyond 2 x players, in every row; players fill
the used boxes left to right, row by row. So the marks must be: all crossed-out columns marked, and in
the used columns a prefix in reading order. For each player count 2-5 we count the boxes that break
that pattern and keep the count that fits best; ``players_hint`` (e.g. the number of city boards in
view) settles ties, which happen only when the whole track is full. The boxes marked are then the
length of the prefix that agrees best with the scores of the used boxes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import lru_cache

import cv2
import numpy as np

from vision.board.locate import StickerPlaces
from vision.imaging import percentile_last_axis
from vision.marker_plane import LocatedPlane, detect_markers, locate_plane
from vision.pirates.geometry import (
    BLOCK_H_MM,
    BLOCK_W_MM,
    BLOCK_X_MM,
    BLOCK_Y_MM,
    BOX_MM,
    BOX_PITCH_MM,
    COLUMNS,
    MARKER_MM,
    ROWS,
    TRACK_LAYOUT,
    box_centre_mm,
)

PX_PER_MM = 4.0
# A box is marked when the ink in its middle averages more than this (a fraction of the paper's
# brightness). Over 595 synthetic views from 45 to 90 cm up (0.78-1.9 px/mm) every empty box scored
# under 0.03 and every hand-marked one over 0.10; any threshold from 0.03 to 0.10 read every track.
MARK_THRESHOLD = 0.055
# The middle measured, a square 6.4 mm wide: every cross passes through it, while the printed outline
# stays 2.8 mm away (the box located a millimetre or two off, as at 1 px a mm, moves it inwards).
_MIDDLE_MM = BOX_MM - 2 * 2.8
# Ink is what lies darker than this share of the paper level: paper grain, stains and sensor noise
# stay above it, so an empty box scores about 0 however noisy the picture.
_INK_BELOW_PAPER = 0.92


@dataclass(frozen=True)
class PirateReading:
    boxes: int  # boxes marked by the players
    players: int  # player count the pattern fits
    marks: np.ndarray  # (6, 10) bool, every mark seen including printed cross-outs
    scores: np.ndarray  # (6, 10) ink in each box's middle (block_scores)
    mismatches: int  # boxes that break the fill pattern for ``players``
    confidence: float


def locate_track(markers: dict[int, np.ndarray], stickers: Mapping[int, tuple[float, float]] | None = None
                 ) -> LocatedPlane | None:
    """The track's plane from its markers; ``stickers``: where some of them really lie (marker id -> its
    top-left corner, mm on the plane, ``measure_track_stickers``), the others where the kit puts them."""
    layout = TRACK_LAYOUT if not stickers else replace(
        TRACK_LAYOUT, marker_origins={**TRACK_LAYOUT.marker_origins, **stickers})
    return locate_plane(markers, layout, min_markers=2)


# Stickers stuck on by hand (the kit's places within a millimetre or two) put the boxes off by as much, and
# the ink measured in a box's middle then takes in its printed outline: 2 mm each way and 96.3 % of 300
# views were read exactly instead of 99.7 % (measured as below, 100 %). Each box's printed outline is looked for within
# _FIT_REACH_MM of where the stickers put it, the plane fitted to the boxes found (RANSAC, at least
# _MIN_BOXES_FIT of 60 agreeing within _FIT_TOLERANCE_MM), and the stickers measured on that plane; one is
# moved only when it lies more than STICKER_SLACK_MM off its place (and at most _STICKER_REACH_MM: further,
# the boxes were not found where they are).
_FIT_MARGIN_MM = 5.0
_FIT_REACH_MM = 3.5
_FIT_TOLERANCE_MM = 0.6
_MIN_BOXES_FIT = 30
STICKER_SLACK_MM = 1.0
_STICKER_REACH_MM = 8.0
_OUTLINE_PX = 2  # the template's printed line, at PX_PER_MM


@lru_cache(maxsize=1)
def _box_outline() -> np.ndarray:
    """A printed box's outline at PX_PER_MM, with the line's width around it."""
    side, line = int(round(BOX_MM * PX_PER_MM)), _OUTLINE_PX
    template = np.zeros((side + 2 * line, side + 2 * line), np.float32)
    cv2.rectangle(template, (line, line), (line + side - 1, line + side - 1), 1.0, line)
    return template


def measure_track_stickers(gray: np.ndarray, plane: LocatedPlane, markers: Mapping[int, np.ndarray]
                           ) -> dict[int, tuple[float, float]] | None:
    """Where the track's stickers really lie (marker id -> its top-left corner, mm on the plane), measured
    against the printed boxes (see above) near where ``plane`` puts them; only those off their place by
    more than STICKER_SLACK_MM. None when too few boxes were found on one plane (a hand over the track)."""
    x0, y0 = BLOCK_X_MM - _FIT_MARGIN_MM, BLOCK_Y_MM - _FIT_MARGIN_MM
    seen = plane.rectify(gray, PX_PER_MM, region_mm=(x0, y0, BLOCK_W_MM + 2 * _FIT_MARGIN_MM,
                                                     BLOCK_H_MM + 2 * _FIT_MARGIN_MM)).astype(np.float32)
    # Printed lines: darker than the paper around them.
    lines = np.maximum(cv2.GaussianBlur(seen, (0, 0), 3.0) - seen, 0.0)
    template = _box_outline()
    response = cv2.matchTemplate(lines, template, cv2.TM_CCORR)
    reach, half = int(round(_FIT_REACH_MM * PX_PER_MM)), template.shape[0] / 2
    expected, found = [], []
    for row in range(ROWS):
        for column in range(COLUMNS):
            cx, cy = box_centre_mm(row, column)
            ex, ey = int(round((cx - x0) * PX_PER_MM - half)), int(round((cy - y0) * PX_PER_MM - half))
            top, left = max(0, ey - reach), max(0, ex - reach)
            window = response[top:ey + reach + 1, left:ex + reach + 1]
            if window.size == 0:
                continue
            dy, dx = np.unravel_index(int(np.argmax(window)), window.shape)
            expected.append((cx, cy))
            found.append(((left + dx + half) / PX_PER_MM + x0, (top + dy + half) / PX_PER_MM + y0))
    if len(found) < _MIN_BOXES_FIT:
        return None
    correction, agreeing = cv2.findHomography(np.array(found), np.array(expected), cv2.RANSAC, _FIT_TOLERANCE_MM)
    if correction is None or int(agreeing.sum()) < _MIN_BOXES_FIT:
        return None
    fitted = correction @ plane.homography
    placed: dict[int, tuple[float, float]] = {}
    for marker, (x, y) in TRACK_LAYOUT.marker_origins.items():
        if marker not in markers:
            continue
        corners = cv2.perspectiveTransform(np.asarray(markers[marker], np.float64).reshape(1, 4, 2), fitted)[0]
        origin = corners.mean(axis=0) - MARKER_MM / 2
        off = float(np.hypot(origin[0] - x, origin[1] - y))
        if STICKER_SLACK_MM < off <= _STICKER_REACH_MM:
            placed[marker] = (float(origin[0]), float(origin[1]))
    return placed


_PITCH_PX = int(round(BOX_PITCH_MM * PX_PER_MM))
_PAPER_PERCENTILE = 90
_CLEAR_VOTE = 0.5  # a box this far from the threshold (in votes, see _reading) is a clear call


def block_in_view(plane: LocatedPlane, frame_shape: tuple[int, ...]) -> bool:
    """Whether the frame of ``frame_shape`` shows the middle of every box (``LocatedPlane.shows``): of 16 generated
    tracks cut in half, the boxes beyond the edge rectified black and read as marked, 12 were read with another count,
    5 of them sure of it (60 boxes for 36)."""
    inset = (BOX_PITCH_MM - _MIDDLE_MM) / 2
    return plane.shows(frame_shape, (BLOCK_X_MM + inset, BLOCK_Y_MM + inset, BLOCK_W_MM - 2 * inset,
                                     BLOCK_H_MM - 2 * inset))


def read_track(plane: LocatedPlane, gray: np.ndarray, players_hint: int | None = None) -> PirateReading | None:
    """The reading of the track on ``plane`` in the grey frame ``gray``; None when its boxes are not all in view
    (``block_in_view``)."""
    if not block_in_view(plane, gray.shape):
        return None
    return read_block(rectify_block(plane, gray), players_hint)


def rectify_block(plane: LocatedPlane, frame: np.ndarray) -> np.ndarray:
    """Only the block of boxes, top-down at PX_PER_MM: all the reading needs (from a grey ``frame``, a
    sixth of the pixels of the whole track in colour)."""
    return plane.rectify(frame, PX_PER_MM, region_mm=(BLOCK_X_MM, BLOCK_Y_MM, BLOCK_W_MM, BLOCK_H_MM))


def box_scores(track: np.ndarray) -> np.ndarray:
    """Ink in each box's middle, (6, 10): its pixels' mean shortfall below _INK_BELOW_PAPER of the paper
    level, as a fraction of that level; from the rectified track at PX_PER_MM."""
    x0, y0 = int(round(BLOCK_X_MM * PX_PER_MM)), int(round(BLOCK_Y_MM * PX_PER_MM))
    return block_scores(track[y0:y0 + ROWS * _PITCH_PX, x0:x0 + COLUMNS * _PITCH_PX])


def block_scores(block: np.ndarray) -> np.ndarray:
    """``box_scores`` of the block of boxes alone (``rectify_block``), colour or grey."""
    pitch = _PITCH_PX
    gray = cv2.cvtColor(block, cv2.COLOR_BGR2GRAY) if block.ndim == 3 else block
    if gray.shape != (ROWS * pitch, COLUMNS * pitch):
        return np.zeros((ROWS, COLUMNS), np.float32)
    cells = gray.reshape(ROWS, pitch, COLUMNS, pitch).transpose(0, 2, 1, 3)  # (row, col, y, x)
    # Paper brightness around each box (shadows and glare change it across the track): the 90th
    # percentile as np.percentile interpolates it, from one partition of the grey levels.
    paper = np.maximum(percentile_last_axis(cells.reshape(ROWS, COLUMNS, -1), _PAPER_PERCENTILE), 1.0)
    paper = paper.astype(np.float32)[:, :, None, None]
    inset = int(round((BOX_PITCH_MM - _MIDDLE_MM) / 2 * PX_PER_MM))
    middle = cells[:, :, inset:pitch - inset, inset:pitch - inset].astype(np.float32)
    ink = np.maximum(_INK_BELOW_PAPER * paper - middle, 0.0) / paper
    return ink.mean(axis=(2, 3))


def filled_prefix(evidence: np.ndarray) -> int:
    """How many boxes, in reading order, the players have filled: the prefix length k that agrees best
    with per-box ``evidence`` (positive: marked), i.e. maximises sum(evidence[:k]) - sum(evidence[k:]).
    One faint mark amid clear ones, or one speck past the last, then does not move the count."""
    agreement = np.concatenate(([0.0], np.cumsum(evidence, dtype=np.float64)))
    return int(np.argmax(agreement))


def infer_players(marks: np.ndarray, players_hint: int | None = None) -> tuple[int, int]:
    """(player count, mismatching boxes) that best explain the marks (see the module's note)."""
    best: tuple[int, int, int] | None = None  # (mismatches, not-hint, players)
    for players in range(2, 6):
        used = 2 * players
        crossed_out_missing = int((~marks[:, used:]).sum())
        inside = marks[:, :used].ravel()
        filled = filled_prefix(np.where(inside, 1.0, -1.0))
        expected = np.arange(inside.size) < filled
        mismatches = crossed_out_missing + int((inside != expected).sum())
        key = (mismatches, 0 if players == players_hint else 1, -players)
        if best is None or key < best:
            best = key
    assert best is not None
    return -best[2], best[0]


def read_marks(track: np.ndarray, players_hint: int | None = None) -> PirateReading:
    """The reading of a rectified track (the whole plane at PX_PER_MM)."""
    return _reading(box_scores(track), players_hint)


def read_block(block: np.ndarray, players_hint: int | None = None) -> PirateReading:
    """The reading of the block of boxes alone (``rectify_block``)."""
    return _reading(block_scores(block), players_hint)


def _reading(scores: np.ndarray, players_hint: int | None) -> PirateReading:
    marks = scores > MARK_THRESHOLD
    players, mismatches = infer_players(marks, players_hint)
    # Each box's vote, -1 (clearly empty: no ink) to +1 (ink twice the threshold or more); a box near
    # the threshold counts little when the fill pattern has to decide about it.
    votes = np.clip(scores / MARK_THRESHOLD - 1.0, -1.0, 1.0)
    boxes = filled_prefix(votes[:, : 2 * players].ravel())
    # Confidence: how clear the closest call was, lowered for each box that breaks the pattern.
    margin = float(np.min(np.abs(votes)))
    confidence = float(np.clip(margin / _CLEAR_VOTE, 0.0, 1.0)) * (0.5**mismatches)
    return PirateReading(boxes, players, marks, scores, mismatches, confidence)


class PirateReader:
    def read(
        self, frame: np.ndarray, markers: dict[int, np.ndarray] | None = None, players_hint: int | None = None
    ) -> PirateReading | None:
        """The track's reading, or None when the track is not in view."""
        gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        if markers is None:
            markers = detect_markers(gray, (TRACK_LAYOUT,))
        # One picture on its own: its stickers measured against its boxes there and then.
        plane = StickerPlaces().track(gray, markers)
        if plane is None:
            return None
        return read_track(plane, gray, players_hint)
