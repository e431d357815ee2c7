"""Rotation-invariant colour and shape features of one die's top face.

The face is white-balanced against the die's own white first, so warm light, shade and colour casts
move every die of a frame the same way and the symbol's colour stays comparable between frames.
"""

from __future__ import annotations

import cv2
import numpy as np

CROP_PX = 40  # the top face is resampled to this many pixels a side
_N_HUE = 12
_N_VALUE = 6
_N_RINGS = 4

_yy, _xx = np.mgrid[0:CROP_PX, 0:CROP_PX].astype(np.float32)
_RADIUS = np.hypot(_xx - (CROP_PX - 1) / 2, _yy - (CROP_PX - 1) / 2) / (CROP_PX / 2)
_INNER = _RADIUS < 0.86  # the symbol sits well inside the face; the rim may show the cube's side


def ink_mask(face: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(white-balanced face as float, mask of symbol pixels) for a CROP_PX square BGR face crop."""
    f = face.astype(np.float32)
    bright = f.mean(axis=2)
    # The die's white: the brighter pixels of the face (the symbol covers well under half of it).
    ref_mask = bright >= np.percentile(bright[_INNER], 70)
    white = np.maximum(f[ref_mask].mean(axis=0), 1.0)
    norm = f / white
    value = norm.mean(axis=2)
    chroma = norm.max(axis=2) - norm.min(axis=2)
    # Below 0.62 of the white: the symbol; the cube's grey sides (when the crop strays onto them) stay above.
    ink = ((value < 0.62) | (chroma > 0.2)) & _INNER
    return norm, ink


def feature_names() -> list[str]:
    names = ["ink_frac", "mean_b", "mean_g", "mean_r", "std_b", "std_g", "std_r", "value", "chroma"]
    names += [f"hue{i}" for i in range(_N_HUE)]
    names += [f"val{i}" for i in range(_N_VALUE)]
    names += [f"ring{i}" for i in range(_N_RINGS)]
    names += ["elongation", "components", "solidity", "hu1", "hu2", "hu3", "fill_bbox", "largest_frac"]
    return names


N_FEATURES = len(feature_names())


def face_features(face: np.ndarray) -> np.ndarray:
    """Feature vector (float32, N_FEATURES) of a CROP_PX x CROP_PX BGR top-face crop."""
    norm, ink = ink_mask(face)
    n_ink = int(ink.sum())
    out = np.zeros(N_FEATURES, np.float32)
    out[0] = n_ink / float(_INNER.sum())
    if n_ink < 4:
        return out
    pix = np.clip(norm[ink], 0, 1.5)
    out[1:4] = pix.mean(axis=0)
    out[4:7] = pix.std(axis=0)
    value = pix.mean(axis=1)
    chroma = pix.max(axis=1) - pix.min(axis=1)
    out[7] = value.mean()
    out[8] = chroma.mean()
    hsv = cv2.cvtColor(np.clip(pix, 0, 1).reshape(-1, 1, 3).astype(np.float32), cv2.COLOR_BGR2HSV).reshape(-1, 3)
    hue_hist = np.bincount((hsv[:, 0] / 360.0 * _N_HUE).astype(int) % _N_HUE, weights=chroma, minlength=_N_HUE)
    out[9:9 + _N_HUE] = hue_hist / n_ink
    i = 9 + _N_HUE
    val_hist = np.bincount(np.clip((value * _N_VALUE).astype(int), 0, _N_VALUE - 1), minlength=_N_VALUE)
    out[i:i + _N_VALUE] = val_hist / n_ink
    i += _N_VALUE
    rings = np.clip((_RADIUS[ink] / 0.86 * _N_RINGS).astype(int), 0, _N_RINGS - 1)
    out[i:i + _N_RINGS] = np.bincount(rings, minlength=_N_RINGS) / n_ink
    i += _N_RINGS
    mask = ink.astype(np.uint8)
    moments = cv2.moments(mask, binaryImage=True)
    mu20, mu02, mu11 = moments["mu20"], moments["mu02"], moments["mu11"]
    common = np.sqrt(max((mu20 - mu02) ** 2 + 4 * mu11**2, 0.0))
    l1, l2 = (mu20 + mu02 + common) / 2, (mu20 + mu02 - common) / 2
    out[i] = np.log1p(l1 / max(l2, 1e-3))
    n_labels, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    areas = stats[1:, cv2.CC_STAT_AREA]
    out[i + 1] = min(int((areas >= 3).sum()), 12) / 12.0
    points = cv2.findNonZero(mask)
    hull_area = cv2.contourArea(cv2.convexHull(points)) if points is not None else 0.0
    out[i + 2] = n_ink / max(hull_area, 1.0)
    hu = cv2.HuMoments(moments).ravel()[:3]
    out[i + 3:i + 6] = -np.sign(hu) * np.log10(np.abs(hu) + 1e-12) / 10.0
    rect = cv2.minAreaRect(points)
    out[i + 6] = n_ink / max(rect[1][0] * rect[1][1], 1.0)
    out[i + 7] = (areas.max() / n_ink) if n_labels > 1 else 0.0
    return out
