"""Synthetic pirate track: the main board's block of 6 x 10 boxes on parchment, columns beyond
2 x players crossed out in print, the boxes marked so far crossed by hand, markers 24-27 at the corners."""

from __future__ import annotations

import cv2
import numpy as np

from vision.pirates.geometry import (
    BLOCK_X_MM,
    BLOCK_Y_MM,
    BOX_MM,
    BOX_PITCH_MM,
    COLUMNS,
    MARKER_MM,
    PLANE_H_MM,
    PLANE_W_MM,
    ROWS,
    STRENGTHS,
    TRACK_LAYOUT,
    box_centre_mm,
)
from vision.synth.dice import draw_markers

INK_COLOURS: tuple[tuple[float, float, float], ...] = (
    (0.1, 0.1, 0.1),  # black marker (BGR)
    (0.45, 0.15, 0.1),  # blue
    (0.1, 0.1, 0.55),  # red
    (0.15, 0.35, 0.1),  # green
)


def _hand_cross(canvas: np.ndarray, centre: tuple[float, float], size: float, px: float, rng: np.random.Generator,
                colour: tuple[float, float, float]) -> None:
    """An X drawn by a marker: two slightly wobbly strokes, not quite corner to corner."""
    thickness = max(1, int(round(rng.uniform(0.9, 1.8) * px)))
    half = size / 2 * rng.uniform(0.65, 0.95)
    style = rng.random()
    strokes = [((-1, -1), (1, 1)), ((1, -1), (-1, 1))]
    if style < 0.08:
        strokes = [((-1, 0), (1, 0)), ((0, -1), (0, 1))]  # some players draw a plus
    for (ax, ay), (bx, by) in strokes:
        jitter = rng.normal(0, 0.12, 4) * half
        p0 = (centre[0] + ax * half + jitter[0], centre[1] + ay * half + jitter[1])
        p1 = (centre[0] + bx * half + jitter[2], centre[1] + by * half + jitter[3])
        mid = ((p0[0] + p1[0]) / 2 + rng.normal(0, 0.08) * half, (p0[1] + p1[1]) / 2 + rng.normal(0, 0.08) * half)
        pts = np.array([p0, mid, p1]) * px
        cv2.polylines(canvas, [np.round(pts * 16).astype(np.int32)], False, colour, thickness, cv2.LINE_AA, shift=4)


def render_track(players: int, marked: int, rng: np.random.Generator, px_per_mm: float = 5.0,
                 markers: bool = True) -> np.ndarray:
    """Top-down BGR picture of the track plane (TRACK_LAYOUT) with ``marked`` boxes crossed by hand (and
    the kit's stickers where it puts them, unless ``markers`` is False)."""
    if not 2 <= players <= 5:
        raise ValueError("players must be 2-5")
    if not 0 <= marked <= 12 * players:
        raise ValueError("marked boxes out of range")
    w, h = round(PLANE_W_MM * px_per_mm), round(PLANE_H_MM * px_per_mm)
    paper = np.array([0.78, 0.88, 0.93], np.float32) * rng.uniform(0.9, 1.05, 3).astype(np.float32)
    canvas = np.empty((h, w, 3), np.float32)
    canvas[:] = paper
    stain = cv2.resize(rng.normal(0, 0.05, (h // 20 + 2, w // 20 + 2)).astype(np.float32), (w, h))
    canvas *= (1 + stain + rng.normal(0, 0.015, (h, w)).astype(np.float32))[:, :, None]
    printed = (0.15, 0.18, 0.22)
    line = max(1, int(round(0.4 * px_per_mm)))
    # Row separators and strength labels, as on the board.
    for r in range(ROWS + 1):
        y = (BLOCK_Y_MM + r * BOX_PITCH_MM) * px_per_mm
        cv2.line(canvas, (int(BLOCK_X_MM * px_per_mm * 0.4), int(y)), (int((BLOCK_X_MM + COLUMNS * BOX_PITCH_MM) * px_per_mm), int(y)),
                 (0.45, 0.5, 0.55), 1, cv2.LINE_AA)
    for r, strength in enumerate(STRENGTHS):
        y = (BLOCK_Y_MM + (r + 0.7) * BOX_PITCH_MM) * px_per_mm
        text = np.zeros((h, w), np.uint8)
        cv2.putText(text, str(strength), (int(BLOCK_X_MM * 0.2 * px_per_mm), int(y)), cv2.FONT_HERSHEY_SIMPLEX,
                    0.09 * px_per_mm, 255, max(1, int(px_per_mm * 0.3)), cv2.LINE_AA)
        # Mixed in over the label's rows only: elsewhere the mix leaves the canvas as it is, and a whole canvas of
        # temporaries for each label was the track's peak.
        rows = np.flatnonzero(text.any(axis=1))
        if rows.size == 0:
            continue
        band = slice(int(rows[0]), int(rows[-1]) + 1)
        ink = text[band].astype(np.float32)[:, :, None] / 255.0
        canvas[band] = canvas[band] * (1 - ink) + np.array(printed, np.float32) * ink
    used = 2 * players
    for r in range(ROWS):
        for c in range(COLUMNS):
            cx, cy = box_centre_mm(r, c)
            half = BOX_MM / 2
            p0 = (int((cx - half) * px_per_mm), int((cy - half) * px_per_mm))
            p1 = (int((cx + half) * px_per_mm), int((cy + half) * px_per_mm))
            cv2.rectangle(canvas, p0, p1, printed, line, cv2.LINE_AA)
            if c >= used:
                # Crossed out in print: a bold X over the unused box.
                for a, b in (((p0[0], p0[1]), (p1[0], p1[1])), ((p1[0], p0[1]), (p0[0], p1[1]))):
                    cv2.line(canvas, a, b, printed, max(1, int(px_per_mm * 1.4)), cv2.LINE_AA)
    colour = INK_COLOURS[int(rng.integers(len(INK_COLOURS)))]
    for k in range(marked):
        r, c = divmod(k, used)
        _hand_cross(canvas, box_centre_mm(r, c), BOX_MM, px_per_mm, rng, colour)
    # A few stray dots and erased traces on the board.
    for _ in range(int(rng.integers(0, 4))):
        x, y = rng.uniform(0, w), rng.uniform(0, h)
        cv2.circle(canvas, (int(x), int(y)), int(rng.uniform(0.3, 0.8) * px_per_mm), tuple(float(v) for v in paper * 0.75), -1)
    if markers:
        draw_markers(canvas, TRACK_LAYOUT.marker_origins, MARKER_MM, px_per_mm, margin_mm=_STICKER_RIM_MM)
    return np.clip(canvas * 255, 0, 255).astype(np.uint8)


BOARD_MARGIN_MM = 12.0  # main-board parchment around the track plane
_STICKER_RIM_MM = 2.0  # white sticker around each marker
# A sticker stuck by hand beside the block comes no nearer its boxes than this past its place: its rim then
# ends 1 mm short of the first box's printed outline (a person does not stick it over a box).
_STICKER_INWARD_MM = 3.0


def track_stickers_by_hand(rng: np.random.Generator, error_mm: float) -> dict[int, tuple[float, float]]:
    """Where a person sticks the track's stickers: marker id -> (dx, dy) mm off the kit's place, each
    way ``error_mm`` (standard deviation), never over the block of boxes."""
    placed = {}
    for marker, (x, y) in TRACK_LAYOUT.marker_origins.items():
        inward = np.array([1.0 if x < BLOCK_X_MM else -1.0, 1.0 if y < BLOCK_Y_MM else -1.0])
        off = rng.normal(0, error_mm, 2)
        placed[marker] = tuple(float(v) for v in inward * np.minimum(inward * off, _STICKER_INWARD_MM))
    return placed  # type: ignore[return-value]


def render_track_on_board(players: int, marked: int, rng: np.random.Generator, px_per_mm: float = 5.0,
                          stickers: dict[int, tuple[float, float]] | None = None) -> np.ndarray:
    """``render_track`` with a margin of main board around it (so the markers have paper on every side).
    ``stickers``: each marker that far (mm) off its place (``track_stickers_by_hand``).

    The track plane's origin lies at (BOARD_MARGIN_MM, BOARD_MARGIN_MM) of the returned picture.
    """
    track = render_track(players, marked, rng, px_per_mm, markers=stickers is None)
    m = round(BOARD_MARGIN_MM * px_per_mm)
    colour = [float(v) for v in np.median(track.reshape(-1, 3), axis=0)]
    board = cv2.copyMakeBorder(track, m, m, m, m, cv2.BORDER_CONSTANT, value=colour)
    if stickers is not None:
        # Stuck on the main board, where they may lie a little beyond the track's plane.
        origins = {k: (x + BOARD_MARGIN_MM + stickers[k][0], y + BOARD_MARGIN_MM + stickers[k][1])
                   for k, (x, y) in TRACK_LAYOUT.marker_origins.items()}
        canvas = board.astype(np.float32) / 255.0
        draw_markers(canvas, origins, MARKER_MM, px_per_mm, margin_mm=_STICKER_RIM_MM)
        board = np.clip(canvas * 255, 0, 255).astype(np.uint8)
    return board


def track_scene(
    rng: np.random.Generator,
    players: int | None = None,
    marked: int | None = None,
    canvas_size: tuple[int, int] = (720, 560),
    effects: bool = True,
    px_per_mm: float | None = None,
    sticker_error_mm: float = 0.0,
) -> tuple[np.ndarray, int, int]:
    """A camera view of the pirate track alone: (BGR frame, players, boxes marked), ``px_per_mm`` frame
    pixels a millimetre at the track's centre (drawn from the cameras' range when None);
    ``sticker_error_mm``: its stickers stuck by hand (``track_stickers_by_hand``)."""
    from vision.synth.dice import camera_effects, random_view

    if players is None:
        players = int(rng.integers(2, 6))
    if marked is None:
        marked = int(rng.integers(0, 12 * players + 1))
    render_scale = 5.0
    stickers = track_stickers_by_hand(rng, sticker_error_mm) if sticker_error_mm > 0 else None
    board = render_track_on_board(players, marked, rng, render_scale, stickers)
    width = PLANE_W_MM + 2 * BOARD_MARGIN_MM
    height = PLANE_H_MM + 2 * BOARD_MARGIN_MM
    # The track as the table cameras see it (hardware.md, section 2): the reference camera from 90 cm, its
    # highest (0.86 px/mm), through 75 cm (1.04) to 50 cm over a small table (1.55); a webcam hangs
    # higher and sees about the same, 1.1-1.65; 2.0 for a camera set lower still.
    scale = float(rng.uniform(0.86, 2.0)) if px_per_mm is None else px_per_mm
    to_frame = random_view(width, height, rng, canvas_size, scale)
    frame = np.empty((canvas_size[1], canvas_size[0], 3), np.uint8)
    frame[:] = np.array(rng.uniform(40, 160, 3), np.uint8)
    warp = to_frame @ np.diag([1 / render_scale, 1 / render_scale, 1.0])
    cv2.warpPerspective(board, warp, canvas_size, dst=frame, flags=cv2.INTER_AREA, borderMode=cv2.BORDER_TRANSPARENT)
    if effects:
        frame = camera_effects(frame, rng)
    return frame, players, marked
