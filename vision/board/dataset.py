"""Synthetic photos of one board for testing and benchmarking the localisation.

A rendered board is laid on a textured table under a random camera: rotation, perspective tilt,
scale, lighting gradient, a soft shadow, glare, blur and sensor noise. The true board corners in the
frame come back with the picture, so the localisation error can be measured.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import cv2
import numpy as np

from companion.layout import SIZE
from vision.imaging import shrunk_for_warp, unsharp_masked


@dataclass(frozen=True)
class BoardPhoto:
    frame: np.ndarray
    corners: np.ndarray  # true A1, G1, G7, A7 outer corners in the frame, (4, 2)


def table_texture(rng: np.random.Generator, width: int, height: int) -> np.ndarray:
    """A wood-ish or cloth-ish table top."""
    base = np.array(rng.choice([(60, 90, 130), (40, 60, 80), (90, 110, 120), (70, 70, 70), (50, 100, 60)]),
                    np.float32)
    grain = rng.normal(0, 1, (height // 8 + 1, width // 64 + 1)).astype(np.float32)
    grain = cv2.resize(grain, (width, height), interpolation=cv2.INTER_CUBIC)
    fine = rng.normal(0, 4, (height, width)).astype(np.float32)
    table = base[None, None, :] + (12 * grain + fine)[:, :, None]
    return np.clip(table, 0, 255).astype(np.uint8)


def board_homography(rng: np.random.Generator, board_side: int, frame_size: tuple[int, int], *,
                     rotation_deg: float | None = None, tilt_deg: float = 20.0,
                     fill: tuple[float, float] = (0.5, 0.8)) -> np.ndarray:
    """Board image -> frame homography: rotate, tilt (perspective up to ``tilt_deg``), scale, place."""
    width, height = frame_size
    angle = np.radians(rng.uniform(0, 360) if rotation_deg is None else rotation_deg)
    side = min(width, height) * rng.uniform(*fill)
    half = side / 2
    square = np.array([[-half, -half], [half, -half], [half, half], [-half, half]])
    rot = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    pts = square @ rot.T
    # Perspective: a camera tilted by ``tilt`` around a random axis shrinks the far side.
    tilt = np.radians(rng.uniform(0.5, 1.0) * tilt_deg) if tilt_deg > 0 else 0.0
    axis = rng.uniform(0, 2 * np.pi)
    direction = np.array([np.cos(axis), np.sin(axis)])
    depth = 1.0 + np.sin(tilt) * (pts @ direction) / side
    pts = pts / depth[:, None]
    pts -= (pts.max(axis=0) + pts.min(axis=0)) / 2
    # Keep the whole board in view (a rotated square needs up to 1.41 times its side).
    pts *= min(1.0, (width - 12) / np.ptp(pts[:, 0]), (height - 12) / np.ptp(pts[:, 1]))
    margin = np.abs(pts).max(axis=0)
    centre = np.array([rng.uniform(margin[0] + 5, max(margin[0] + 6, width - margin[0] - 5)),
                       rng.uniform(margin[1] + 5, max(margin[1] + 6, height - margin[1] - 5))])
    dst = (pts + centre).astype(np.float32)
    src = np.array([[0, 0], [board_side, 0], [board_side, board_side], [0, board_side]], np.float32)
    return cv2.getPerspectiveTransform(src, dst)


def photograph(board: np.ndarray, alpha: np.ndarray | None, rng: np.random.Generator, *,
               frame_size: tuple[int, int] = (960, 720), rotation_deg: float | None = None,
               tilt_deg: float = 20.0, fill: tuple[float, float] = (0.5, 0.8),
               lighting: bool = True, area_average: bool = False, camera_processing: bool = False) -> BoardPhoto:
    """Lay ``board`` (square BGR, 7 cells) on a table and take a picture of it.

    ``area_average``: the board averaged down to the frame's scale first, as a camera's pixels average the
    light (``shrunk_for_warp``); else sampled at one point a pixel, where thin strokes break up.
    ``camera_processing``: the picture as a camera sends it (``processed_by_camera``), not the light itself."""
    width, height = frame_size
    side = board.shape[0]
    h = board_homography(rng, side, frame_size, rotation_deg=rotation_deg, tilt_deg=tilt_deg, fill=fill)
    frame = table_texture(rng, width, height)
    mask_src = alpha if alpha is not None else np.full(board.shape[:2], 255, np.uint8)
    board_h = mask_h = h
    if area_average:
        board, board_h = shrunk_for_warp(board, h)
        mask_src, mask_h = shrunk_for_warp(mask_src, h)
    warped = cv2.warpPerspective(board, board_h, (width, height), flags=cv2.INTER_LINEAR)
    mask = cv2.warpPerspective(mask_src, mask_h, (width, height), flags=cv2.INTER_LINEAR)[:, :, None] / 255.0
    frame = (frame * (1 - mask) + warped * mask).astype(np.float32)
    if lighting:
        frame = _light(frame, rng)
    if camera_processing:
        frame = processed_by_camera(frame)
    corners = cv2.perspectiveTransform(
        np.array([[[0, 0], [side, 0], [side, side], [0, side]]], np.float64), h)[0]
    return BoardPhoto(frame=np.clip(frame, 0, 255).astype(np.uint8), corners=corners)


def _light(frame: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    height, width = frame.shape[:2]
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
    # Smooth brightness gradient across the table.
    gx, gy = rng.uniform(-0.25, 0.25, 2)
    gain = 1.0 + gx * (xx / width - 0.5) + gy * (yy / height - 0.5)
    gain *= rng.uniform(0.8, 1.15)
    frame = frame * gain[:, :, None]
    if rng.random() < 0.5:  # soft shadow of an arm or a box
        poly = (rng.uniform(0, 1, (4, 2)) * [width, height]).astype(np.int32)
        shadow = np.zeros((height, width), np.float32)
        cv2.fillConvexPoly(shadow, cv2.convexHull(poly), 1.0)
        shadow = cv2.GaussianBlur(shadow, (0, 0), 25)
        frame = frame * (1 - rng.uniform(0.2, 0.45) * shadow)[:, :, None]
    if rng.random() < 0.4:  # glare from a lamp
        cx, cy = rng.uniform(0, width), rng.uniform(0, height)
        r = rng.uniform(0.05, 0.15) * width
        glare = np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * r * r))
        frame = frame + rng.uniform(60, 140) * glare[:, :, None]
    sigma = rng.uniform(0.0, 1.2)
    if sigma > 0.3:
        frame = cv2.GaussianBlur(frame, (0, 0), sigma)
    frame = frame + rng.normal(0, rng.uniform(1, 5), frame.shape).astype(np.float32)
    return frame


def processed_by_camera(frame: np.ndarray, rng: np.random.Generator | None = None) -> np.ndarray:
    """What a camera makes of the light on its sensor before a program sees it: one colour a pixel (an RGGB
    Bayer filter), the other two interpolated back (OpenCV's demosaicing, bilinear or edge-aware), an unsharp
    mask (webcams and phones sharpen), and JPEG at quality 60-90 with the colour at half resolution (4:2:0,
    OpenCV's default, as MJPEG webcams send it). A sensor with as many pixels as the frame, as most USB
    webcams have; one with more, scaled down (the Pi's camera module), shows less of it.

    Without ``rng`` its randomness is drawn from the picture itself, so that a scene drawn with it is the same
    scene as without it, and so are the ones drawn after it (the benchmarks compare the very same photos)."""
    if rng is None:
        rng = np.random.default_rng(zlib.crc32(np.ascontiguousarray(frame).tobytes()))
    image = np.clip(frame, 0, 255).astype(np.uint8)
    mosaic = np.empty(image.shape[:2], np.uint8)
    mosaic[0::2, 0::2] = image[0::2, 0::2, 2]  # red
    mosaic[0::2, 1::2] = image[0::2, 1::2, 1]  # green
    mosaic[1::2, 0::2] = image[1::2, 0::2, 1]  # green
    mosaic[1::2, 1::2] = image[1::2, 1::2, 0]  # blue
    demosaic = cv2.COLOR_BayerRGGB2BGR_EA if rng.random() < 0.5 else cv2.COLOR_BayerRGGB2BGR
    image = cv2.cvtColor(mosaic, demosaic)
    amount = float(rng.uniform(0.3, 1.2))
    image = unsharp_masked(image, amount, float(rng.uniform(0.8, 1.6)))
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(60, 91))])
    assert ok
    return cv2.imdecode(data, cv2.IMREAD_COLOR)


def rectified_error(found_corners: np.ndarray, true_corners: np.ndarray) -> float:
    """Largest corner error in cells (the board side is 7 cells)."""
    side = np.linalg.norm(true_corners[1] - true_corners[0])
    return float(np.max(np.linalg.norm(found_corners - true_corners, axis=1)) / side * SIZE)
