"""The camera picture with what was recognised drawn over it: board outline and grid, cell readings,
uncertain cells, dice. One JPEG per request, built from the service's latest frame."""

from __future__ import annotations

import threading
from typing import Any

import cv2
import numpy as np

from companion.layout import cell_name
from vision.observation import DOUBTFUL_DIE_BELOW

GRID = (113, 204, 46)     # BGR green
UNSURE = (34, 126, 230)   # orange
DIE = (219, 152, 52)      # blue
MAX_WIDTH = 1280

_cache_lock = threading.Lock()
_cache: dict[str, Any] = {"key": None, "jpeg": None}


def draw_overlay(frame: np.ndarray, obs: Any) -> np.ndarray:
    image = frame.copy()
    for board in getattr(obs, "boards", ()) or ():
        if len(board.corners) != 4:
            continue
        corners = np.float32(board.corners)
        src = np.float32([[0, 0], [7, 0], [7, 7], [0, 7]])
        h = cv2.getPerspectiveTransform(src, corners)
        lines = []
        for k in range(8):
            lines.append([[k, 0], [k, 7]])
            lines.append([[0, k], [7, k]])
        pts = cv2.perspectiveTransform(np.float32(lines).reshape(-1, 1, 2), h).reshape(-1, 2, 2)
        for a, b in pts:
            cv2.line(image, tuple(int(v) for v in a), tuple(int(v) for v in b), GRID, 1, cv2.LINE_AA)
        centres = cv2.perspectiveTransform(
            np.float32([[[c + 0.5, r + 0.5]] for r in range(7) for c in range(7)]), h).reshape(-1, 2)
        scale = max(0.35, float(np.linalg.norm(corners[1] - corners[0])) / 7 / 60)
        for i, (x, y) in enumerate(centres):
            r, c = divmod(i, 7)
            ch = board.city[r][c]
            name = cell_name(c, r)
            unsure = name in board.uncertain
            if unsure:
                quad = cv2.perspectiveTransform(
                    np.float32([[[c, r]], [[c + 1, r]], [[c + 1, r + 1]], [[c, r + 1]]]), h).astype(np.int32)
                cv2.polylines(image, [quad], True, UNSURE, 3, cv2.LINE_AA)
            if ch not in ".#":
                cv2.putText(image, ch, (int(x) - 6, int(y) + 6), cv2.FONT_HERSHEY_SIMPLEX, 0.6 * scale,
                            UNSURE if unsure else GRID, 2, cv2.LINE_AA)
        x0, y0 = corners[0]
        cv2.putText(image, f"seat {board.seat}", (int(x0), max(15, int(y0) - 8)), cv2.FONT_HERSHEY_SIMPLEX,
                    0.7, GRID, 2, cv2.LINE_AA)
    for die in getattr(obs, "dice", None) or ():
        if die.in_frame is None:
            continue  # read from a tray image alone: no place in this picture
        x, y = die.in_frame
        colour = UNSURE if die.confidence < DOUBTFUL_DIE_BELOW else DIE
        label = die.face if colour is DIE else f"{die.face}?"
        cv2.circle(image, (int(x), int(y)), 26, colour, 2, cv2.LINE_AA)
        cv2.putText(image, label, (int(x) - 24, int(y) - 30), cv2.FONT_HERSHEY_SIMPLEX, 0.55, colour, 2,
                    cv2.LINE_AA)
    # Seats whose stickers are on two boards: neither board is read, so neither has an outline to show why.
    extra = getattr(obs, "extra", None) or {}
    for k, seat in enumerate(extra.get("doubled_seats", ())):
        cv2.putText(image, f"seat {seat}: its stickers on two boards, neither read", (10, 30 + 30 * k),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.8, UNSURE, 2, cv2.LINE_AA)
    pirates = getattr(obs, "pirate_boxes", None)
    if pirates is not None:
        cv2.putText(image, f"pirate boxes: {pirates}", (10, image.shape[0] - 12), cv2.FONT_HERSHEY_SIMPLEX, 0.8,
                    (255, 255, 255), 2, cv2.LINE_AA)
    return image


def overlay_jpeg(service: Any) -> bytes | None:
    """JPEG of the latest frame with the overlay; re-encoded only when a new frame has arrived."""
    frame, obs, key = service.last_frame, service.last_observation, service.frame_counter
    if frame is None:
        return None
    with _cache_lock:
        if _cache["key"] == (id(service), key):
            return _cache["jpeg"]
    image = draw_overlay(frame, obs)
    if image.shape[1] > MAX_WIDTH:
        factor = MAX_WIDTH / image.shape[1]
        image = cv2.resize(image, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA)
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 80])
    if not ok:
        return None
    data = buf.tobytes()
    with _cache_lock:
        _cache["key"], _cache["jpeg"] = (id(service), key), data
    return data
