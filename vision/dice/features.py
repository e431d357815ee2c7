"""Rotation-invariant colour and shape features of one die's top face.

The face is measured against the die's own white: darkness is each pixel's darkest colour channel
over the white's, colours are white-balanced on it, so warm light, shade and colour casts move every
die of a frame the same way and the symbol's colour stays comparable between frames. The symbol's
mask is cut halfway between the white and the symbol's darkest pixels, so a faint, blurred wall in
dim light is found as whole as a black pair of swords.
"""

from __future__ import annotations

import functools

import cv2
import numpy as np

CROP_PX = 40  # the top face is resampled to this many pixels a side
_N_HUE = 12
_N_VALUE = 6
_N_RINGS = 4
# Darkness sampled on circles around the face's centre: the strength of its angular harmonics tells
# a cross (thin arms) from a wall (a solid block) or swords (an X), whatever the die's turn.
_POLAR_RADII = (4.0, 8.0, 12.0)
_POLAR_ANGLES = 32
_N_HARMONICS = 6
_MAX_SHIFT = 6.0  # pixels the rings and circles may follow the symbol off the crop's centre

_yy, _xx = np.mgrid[0:CROP_PX, 0:CROP_PX].astype(np.float32)
_RADIUS = np.hypot(_xx - (CROP_PX - 1) / 2, _yy - (CROP_PX - 1) / 2) / (CROP_PX / 2)
_INNER = _RADIUS < 0.86  # the symbol sits well inside the face; the rim may show the cube's side
_N_INNER = int(_INNER.sum())
_RING_OF_PIXEL = np.clip((_RADIUS / 0.86 * _N_RINGS).astype(int), 0, _N_RINGS - 1)
_theta = np.linspace(0, 2 * np.pi, _POLAR_ANGLES, endpoint=False)
_POLAR_X = np.array([(CROP_PX - 1) / 2 + r * np.cos(_theta) for r in _POLAR_RADII], np.float32)
_POLAR_Y = np.array([(CROP_PX - 1) / 2 + r * np.sin(_theta) for r in _POLAR_RADII], np.float32)


class FaceInk:
    """A face crop measured against its white: ``norm`` (white-balanced BGR), ``relative`` (darkest
    channel over the white's), ``ink`` (the symbol's mask, inside the inner disc) and its threshold."""

    def __init__(self, face: np.ndarray) -> None:
        self.face = face  # the crop measured
        darkest = cv2.min(cv2.min(face[:, :, 0], face[:, :, 1]), face[:, :, 2]).astype(np.float32)
        inner = darkest[_INNER]
        # The white: the brighter tenth of the inner disc (a wall covers about half of it).
        white_level = max(float(np.partition(inner, int(0.9 * _N_INNER))[int(0.9 * _N_INNER)]), 1.0)
        whites = (darkest >= 0.9 * white_level).view(np.uint8)
        white = np.maximum(np.array(cv2.mean(face, mask=whites)[:3], np.float32), 1.0)
        self.norm = face.astype(np.float32) / white
        self.relative = darkest / white_level
        rel_inner = inner / white_level
        # Halfway between the white and the symbol's darkest pixels (3rd percentile of the disc).
        self.darkest = float(np.partition(rel_inner, int(0.03 * _N_INNER))[int(0.03 * _N_INNER)])
        self.threshold = float(np.clip((1.0 + self.darkest) / 2, 0.55, 0.8))
        self.ink = (self.relative < self.threshold) & _INNER

    @functools.cached_property
    def moments(self) -> dict[str, float]:
        """The symbol mask's image moments (``cv2.moments``): where it lies and how it is spread."""
        return cv2.moments(self.ink.view(np.uint8), binaryImage=True)


def feature_names() -> list[str]:
    names = ["ink_frac", "mean_b", "mean_g", "mean_r", "std_b", "std_g", "std_r", "value", "chroma"]
    names += [f"hue{i}" for i in range(_N_HUE)]
    names += [f"val{i}" for i in range(_N_VALUE)]
    names += [f"ring{i}" for i in range(_N_RINGS)]
    names += ["elongation", "components", "solidity", "hu1", "hu2", "hu3", "fill_bbox", "largest_frac"]
    names += ["ink_threshold", "darkest", "ink_darkness"]
    for r in range(len(_POLAR_RADII)):
        names += [f"polar{r}_mean"] + [f"polar{r}_h{h}" for h in range(1, _N_HARMONICS + 1)]
    return names


N_FEATURES = len(feature_names())


def face_features(face: np.ndarray, measured: FaceInk | None = None) -> np.ndarray:
    """Feature vector (float32, N_FEATURES) of a CROP_PX x CROP_PX BGR top-face crop; ``measured``: that crop's
    ``FaceInk`` when the caller has it already."""
    measured = FaceInk(face) if measured is None else measured
    norm, ink = measured.norm, measured.ink
    n_ink = int(ink.sum())
    out = np.zeros(N_FEATURES, np.float32)
    out[0] = n_ink / float(_N_INNER)
    i = 9 + _N_HUE + _N_VALUE + _N_RINGS + 8
    out[i] = measured.threshold
    out[i + 1] = measured.darkest
    mask = ink.view(np.uint8)
    moments = measured.moments
    # Rings and circles centre on the symbol itself: a crop a little off the face's centre reads alike.
    centre = (CROP_PX - 1) / 2
    if moments["m00"] >= 4:
        dx = float(np.clip(moments["m10"] / moments["m00"] - centre, -_MAX_SHIFT, _MAX_SHIFT))
        dy = float(np.clip(moments["m01"] / moments["m00"] - centre, -_MAX_SHIFT, _MAX_SHIFT))
    else:
        dx = dy = 0.0
    # Darkness on circles, as angular spectra (magnitudes: the die's turn drops out).
    darkness = np.maximum(1.0 - measured.relative, 0.0)
    polar = cv2.remap(darkness, _POLAR_X + dx, _POLAR_Y + dy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    spectrum = np.abs(np.fft.rfft(polar, axis=1))[:, : _N_HARMONICS + 1] / _POLAR_ANGLES
    j = i + 3
    for r in range(len(_POLAR_RADII)):
        mean = spectrum[r, 0]
        out[j] = mean
        out[j + 1:j + 1 + _N_HARMONICS] = spectrum[r, 1:] / max(mean, 0.05)
        j += 1 + _N_HARMONICS
    if n_ink < 4:
        return out
    out[i + 2] = cv2.mean(darkness, mask=mask)[0]
    mean, std = cv2.meanStdDev(norm, mask=mask)
    out[1:4] = mean.ravel()
    out[4:7] = std.ravel()
    pix = norm[ink]
    b, g, r = pix[:, 0], pix[:, 1], pix[:, 2]
    value = (b + g + r) / 3
    chroma = np.maximum(np.maximum(b, g), r) - np.minimum(np.minimum(b, g), r)
    out[7] = value.mean()
    out[8] = chroma.mean()
    hsv = cv2.cvtColor(np.minimum(pix, 1.0).reshape(-1, 1, 3), cv2.COLOR_BGR2HSV).reshape(-1, 3)
    hue_hist = np.bincount((hsv[:, 0] / 360.0 * _N_HUE).astype(int) % _N_HUE, weights=chroma, minlength=_N_HUE)
    out[9:9 + _N_HUE] = hue_hist / n_ink
    k = 9 + _N_HUE
    val_hist = np.bincount(np.clip((value * _N_VALUE).astype(int), 0, _N_VALUE - 1), minlength=_N_VALUE)
    out[k:k + _N_VALUE] = val_hist / n_ink
    k += _N_VALUE
    ring = np.hypot(_xx[ink] - centre - dx, _yy[ink] - centre - dy) / (CROP_PX / 2)
    out[k:k + _N_RINGS] = np.bincount(np.minimum((ring / 0.86 * _N_RINGS).astype(int), _N_RINGS - 1),
                                      minlength=_N_RINGS) / n_ink
    k += _N_RINGS
    mu20, mu02, mu11 = moments["mu20"], moments["mu02"], moments["mu11"]
    common = np.sqrt(max((mu20 - mu02) ** 2 + 4 * mu11**2, 0.0))
    l1, l2 = (mu20 + mu02 + common) / 2, (mu20 + mu02 - common) / 2
    out[k] = np.log1p(l1 / max(l2, 1e-3))
    n_labels, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    areas = stats[1:, cv2.CC_STAT_AREA]
    out[k + 1] = min(int((areas >= 3).sum()), 12) / 12.0
    points = cv2.findNonZero(mask)
    hull_area = cv2.contourArea(cv2.convexHull(points))
    out[k + 2] = n_ink / max(hull_area, 1.0)
    hu = cv2.HuMoments(moments).ravel()[:3]
    out[k + 3:k + 6] = -np.sign(hu) * np.log10(np.abs(hu) + 1e-12) / 10.0
    rect = cv2.minAreaRect(points)
    out[k + 6] = n_ink / max(rect[1][0] * rect[1][1], 1.0)
    out[k + 7] = (areas.max() / n_ink) if n_labels > 1 else 0.0
    return out
