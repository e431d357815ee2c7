"""The printed city board, flat and top-down: tan outer ring, light inside, printed grid, tower
discs, the 4 printed crates and the seat's ArUco stickers exactly where table-kit.md puts them."""

from __future__ import annotations

from functools import cache

import cv2
import numpy as np

from companion.layout import LAYOUT, SIZE, TOWER_MARKER_FRACTION, cell_index, seat_marker_ids

CELL = 80  # board px per cell (the marker's 70 % = 56 px, starting on whole pixels)
SIDE = CELL * SIZE


def smooth_noise(rng: np.random.Generator, shape: tuple[int, int], coarse: int) -> np.ndarray:
    """Low-frequency noise, about -1..1, made at coarse resolution and scaled up."""
    h, w = shape
    small = rng.normal(0, 1, (max(2, h // coarse), max(2, w // coarse))).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)


@cache
def _marker(marker_id: int) -> np.ndarray:
    dic = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    m = cv2.aruco.generateImageMarker(dic, marker_id, 6)
    px = int(round(CELL * TOWER_MARKER_FRACTION))
    return cv2.resize(m, (px, px), interpolation=cv2.INTER_AREA)


def _crate_icon(img: np.ndarray, col: int, row: int) -> None:
    """The printed starting crate: an orange-brown box with planks, identical on every board."""
    x0, y0 = col * CELL, row * CELL
    a, b = int(0.2 * CELL), int(0.8 * CELL)
    cv2.rectangle(img, (x0 + a, y0 + a), (x0 + b, y0 + b), (60, 125, 190), -1, cv2.LINE_AA)
    cv2.rectangle(img, (x0 + a, y0 + a), (x0 + b, y0 + b), (30, 60, 100), 2, cv2.LINE_AA)
    for k in (1, 2):
        y = y0 + a + (b - a) * k // 3
        cv2.line(img, (x0 + a, y), (x0 + b, y), (30, 70, 115), 2, cv2.LINE_AA)
    cv2.line(img, (x0 + a, y0 + b), (x0 + b, y0 + a), (35, 80, 125), 2, cv2.LINE_AA)


def print_board(rng: np.random.Generator, seat: int) -> np.ndarray:
    """The board's print (BGR uint8, SIDE x SIDE), stickers on."""
    inner = np.array([225, 232, 236], np.float32) + rng.normal(0, 4, 3)
    outer = np.array([150, 180, 205], np.float32) + rng.normal(0, 6, 3)
    yy, xx = np.mgrid[0:SIDE, 0:SIDE]
    ring = (xx < CELL) | (xx >= SIDE - CELL) | (yy < CELL) | (yy >= SIDE - CELL)
    img = np.where(ring[..., None], outer, inner).astype(np.float32)
    img += (smooth_noise(rng, (SIDE, SIDE), 12) * 5)[..., None]
    img += rng.normal(0, 3, (SIDE, SIDE, 1)).astype(np.float32)
    img = np.clip(img, 0, 255).astype(np.uint8)
    # printed grid: slightly irregular dark lines
    line_col = (70, 85, 95)
    for k in range(1, SIZE):
        p = k * CELL
        for a in range(SIZE):
            j = rng.normal(0, 1.2, 2)
            cv2.line(img, (int(p + j[0]), a * CELL + 4), (int(p + j[1]), a * CELL + CELL - 4), line_col, 2,
                     cv2.LINE_AA)
            cv2.line(img, (a * CELL + 4, int(p + j[0])), (a * CELL + CELL - 4, int(p + j[1])), line_col, 2,
                     cv2.LINE_AA)
    cv2.rectangle(img, (0, 0), (SIDE - 1, SIDE - 1), (90, 110, 125), 3)
    for g in LAYOUT.printed_crates:
        _crate_icon(img, *cell_index(g))
    for tower, mid in seat_marker_ids(seat).items():
        col, row = cell_index(tower)
        cx, cy = int((col + 0.5) * CELL), int((row + 0.5) * CELL)
        cv2.circle(img, (cx, cy), int(0.47 * CELL), (175, 200, 215), -1, cv2.LINE_AA)
        cv2.circle(img, (cx, cy), int(0.47 * CELL), (90, 105, 120), 2, cv2.LINE_AA)
        # white sticker with the marker at exactly 70 % of a cell, centred, upright
        h = int(0.42 * CELL)
        white = 240 + int(rng.integers(-8, 10))
        cv2.rectangle(img, (cx - h, cy - h), (cx + h - 1, cy + h - 1), (white, white, white), -1)
        m = _marker(mid)
        off = int(round((0.5 - TOWER_MARKER_FRACTION / 2) * CELL))
        x0, y0 = col * CELL + off, row * CELL + off
        mk = np.where(m > 127, white, 25).astype(np.uint8)
        img[y0:y0 + m.shape[0], x0:x0 + m.shape[1]] = mk[..., None]
    return img
