"""Small image helpers shared by the readers and the renderer (NumPy and OpenCV)."""

from __future__ import annotations

import cv2
import numpy as np


def percentile_last_axis(values: np.ndarray, percentile: float) -> np.ndarray:
    """``np.percentile(values, percentile, axis=-1)`` (linear interpolation) with one ``np.partition``
    instead of a full sort: the paper level of many crops or boxes at once. float64 out."""
    size = values.shape[-1]
    position = (size - 1) * percentile / 100
    low = int(np.floor(position))
    high = min(low + 1, size - 1)
    ranked = np.partition(values, (low, high), axis=-1)
    below, above = ranked[..., low].astype(np.float64), ranked[..., high].astype(np.float64)
    return below + (above - below) * (position - low)


def unsharp_masked(image: np.ndarray, amount: float, sigma: float) -> np.ndarray:
    """``image`` plus ``amount`` times its difference from itself blurred by ``sigma`` px (an unsharp mask): a camera's
    sharpening, or a look at stickers blur ran together."""
    return cv2.addWeighted(image, 1.0 + amount, cv2.GaussianBlur(image, (0, 0), sigma), -amount, 0)


def shrunk_for_warp(image: np.ndarray, to_dest: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``image`` area-averaged down to about the scale ``to_dest`` (a 3 x 3 homography, or a 2 x 3 affine)
    draws it at, and the transform from the shrunk image: warp that instead of ``image``.

    OpenCV's ``warpPerspective`` and ``warpAffine`` sample the source at one point a destination pixel
    (``INTER_AREA`` there is bilinear too), so a stroke thinner than the shrink factor lands at full strength
    or vanishes depending on where it falls: a synthetic photo drew an N as a lone diagonal and an S as a J.
    A camera's pixel averages the light over its area; averaging first does what it does. The scale kept is
    the nearest edge's (the largest), so no part of the image is enlarged by more than the tilt's ratio."""
    h, w = image.shape[:2]
    full = np.vstack([to_dest, [0.0, 0.0, 1.0]]) if to_dest.shape == (2, 3) else np.asarray(to_dest, np.float64)
    src = np.array([[[0, 0], [w, 0], [w, h], [0, h]]], np.float64)
    quad = cv2.perspectiveTransform(src, full)[0]
    edges = np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)
    scale = float(max(edges[0] / w, edges[2] / w, edges[1] / h, edges[3] / h))
    if scale >= 0.8:  # shrunk by less than a quarter: point sampling loses no stroke
        return image, to_dest
    new_w, new_h = max(1, round(w * scale)), max(1, round(h * scale))
    small = cv2.resize(image, (new_w, new_h), interpolation=cv2.INTER_AREA)
    from_small = np.diag([w / new_w, h / new_h, 1.0])
    out = full @ from_small
    return small, (out[:2] if to_dest.shape == (2, 3) else out)


# A frame has no colour when even its most coloured pixels (the 99th percentile of a pixel's spread between its
# three channels, every 16th pixel each way) spread this little: a monochrome camera, or a webcam with its
# saturation at 0, sends B = G = R, and a colour table never does (the dice, the inks, the tray). Eight generated
# tables (seeds 0-7) as rendered: 59-88 grey levels; dimmed to 0.35, 20-31; the same frames grey, 0. The dice are
# told apart by their colours (a crate's brown from a log's, a cross from a head: ``vision.dice``), so on grey
# frames they are misread (a 6-table probe at stop 67: dice right on 4 of 6 trays), and the players are told
# (``Observation.extra``'s ``colourless``, the tracker's warnings).
NO_COLOUR_SPREAD = 8
_COLOUR_SAMPLE_STEP = 16  # every 16th pixel each way: 8,160 of a 1080p frame's, enough for a percentile (0.2 ms)


def has_colour(frame: np.ndarray) -> bool:
    """Whether a BGR frame holds any colour at all (``NO_COLOUR_SPREAD``); a grey one (2-D) has none."""
    if frame.ndim != 3 or frame.shape[2] < 3:
        return False
    blue, green, red = cv2.split(np.ascontiguousarray(frame[::_COLOUR_SAMPLE_STEP, ::_COLOUR_SAMPLE_STEP, :3]))
    spread = cv2.subtract(cv2.max(cv2.max(blue, green), red), cv2.min(cv2.min(blue, green), red))
    return float(percentile_last_axis(spread.reshape(-1), 99)) > NO_COLOUR_SPREAD
