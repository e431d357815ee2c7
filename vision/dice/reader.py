"""Read the dice lying in the tray: locate the tray, split the dice (touching or not), read each top face.

1. The tray floor is found from ArUco markers 20-23 and rectified to a top-down view.
2. Dice are the white, unsaturated blobs on the floor. A blob holding several touching dice is split by
   its area in die units and k-means on its pixels (squares touching flush have no saddle in their
   distance transform, so a watershed alone would merge them).
3. Each die's top face is centred on its symbol (the cube's sides, visible when the camera looks in at
   an angle, carry none), cut out along the die's axes and classified from colour and shape features.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import cv2
import numpy as np

from vision.dice.features import CROP_PX, face_features, ink_mask
from vision.dice.geometry import DIE_MM, STICKER_MM, TRAY_LAYOUT
from vision.marker_plane import LocatedPlane, detect_markers, locate_plane
from vision.observation import DIE_FACES, DieReading

PX_PER_MM = 2.5
DIE_PX = DIE_MM * PX_PER_MM
WEIGHTS_FILE = "dice_weights.npz"
MAX_DICE = 5


def weights_path() -> Path:
    return Path(str(resources.files("vision.dice").joinpath(WEIGHTS_FILE)))


class DiceClassifier:
    """A one-hidden-layer network on standardised features; weights from ``dice_weights.npz``."""

    def __init__(self, path: Path | None = None) -> None:
        data = np.load(path or weights_path())
        self.mean = data["mean"].astype(np.float32)
        self.scale = data["scale"].astype(np.float32)
        self.w1, self.b1 = data["w1"].astype(np.float32), data["b1"].astype(np.float32)
        self.w2, self.b2 = data["w2"].astype(np.float32), data["b2"].astype(np.float32)
        self.classes = tuple(str(c) for c in data["classes"])

    def predict_proba(self, features: np.ndarray) -> np.ndarray:
        x = (np.atleast_2d(features).astype(np.float32) - self.mean) / self.scale
        hidden = np.maximum(x @ self.w1 + self.b1, 0.0)
        logits = hidden @ self.w2 + self.b2
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        return p / p.sum(axis=1, keepdims=True)


@dataclass(frozen=True)
class DieBlob:
    centre: tuple[float, float]  # top-face centre in the rectified tray, pixels
    angle_deg: float  # die axes, modulo 90
    area_units: float  # blob area in die tops (for diagnostics)


def locate_tray(markers: dict[int, np.ndarray]) -> LocatedPlane | None:
    return locate_plane(markers, TRAY_LAYOUT, min_markers=2)


def _lab_chroma(tray: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    lab = cv2.cvtColor(tray, cv2.COLOR_BGR2LAB)
    chroma = np.abs(lab[:, :, 1].astype(np.int16) - 128) + np.abs(lab[:, :, 2].astype(np.int16) - 128)
    return lab, chroma


def dice_mask(tray: np.ndarray, lab_chroma: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """White, unsaturated pixels (the dice, symbols filled in) on the rectified tray floor."""
    lab, chroma = lab_chroma if lab_chroma is not None else _lab_chroma(tray)
    lightness = lab[:, :, 0]
    h, w = lightness.shape
    floor_level = float(np.median(lightness))
    otsu, _ = cv2.threshold(lightness, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    level = max(otsu, floor_level + 35)
    mask = ((lightness > level) & (chroma < 40)).astype(np.uint8) * 255
    s = round(STICKER_MM * PX_PER_MM) + 2
    for y0, x0 in ((0, 0), (0, w - s), (h - s, w - s), (h - s, 0)):
        mask[y0:y0 + s, x0:x0 + s] = 0
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (7, 7)))
    # Fill the symbols (holes inside the white).
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    filled = np.zeros_like(mask)
    cv2.drawContours(filled, contours, -1, 255, -1)
    return filled


def segment_dice(tray: np.ndarray) -> list[DieBlob]:
    lab, chroma = _lab_chroma(tray)
    mask = dice_mask(tray, (lab, chroma))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    top_area = DIE_PX * DIE_PX
    components = [i for i in range(1, n) if stats[i, cv2.CC_STAT_AREA] >= 0.45 * top_area]
    if not components:
        return []
    # One die's blob is its top plus the sides the camera sees: learn that unit from the lone dice.
    singles = []
    for i in components:
        area = stats[i, cv2.CC_STAT_AREA]
        if area < 1.9 * top_area:
            ys, xs = np.nonzero(labels[stats[i, 1]:stats[i, 1] + stats[i, 3], stats[i, 0]:stats[i, 0] + stats[i, 2]] == i)
            (_, _), (rw, rh), _ = cv2.minAreaRect(np.column_stack([xs, ys]).astype(np.float32))
            # (a lone die seen at a slant is its top plus a side or two: up to ~1.5 times as long as wide)
            if max(rw, rh) / max(min(rw, rh), 1.0) < 1.7:
                singles.append(area)
    unit = float(np.median(singles)) if singles else top_area * 1.25
    unit = float(np.clip(unit, top_area * 0.85, top_area * 2.2))
    counts = {i: max(1, int(round(stats[i, cv2.CC_STAT_AREA] / unit))) for i in components}
    # Five dice at most lie in the tray: take surplus splits from the blobs with the least area per die.
    while sum(counts.values()) > MAX_DICE and any(k > 1 for k in counts.values()):
        crowded = min((i for i in counts if counts[i] > 1), key=lambda i: stats[i, cv2.CC_STAT_AREA] / counts[i])
        counts[crowded] -= 1
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.5)
    found: list[tuple[tuple[float, float], float, float, tuple[float, float] | None]] = []
    for i in components:
        x, y, w, h = stats[i, :4]
        area = stats[i, cv2.CC_STAT_AREA]
        ys, xs = np.nonzero(labels[y:y + h, x:x + w] == i)
        points = np.column_stack([xs + x, ys + y]).astype(np.float32)
        k = counts[i]
        if k == 1:
            groups = [points]
        else:
            _, assign, _ = cv2.kmeans(points, k, None, criteria, 3, cv2.KMEANS_PP_CENTERS)
            groups = [points[assign.ravel() == j] for j in range(k)]
        blob_light = lab[y:y + h, x:x + w, 0][ys, xs].astype(np.float32)
        blob_chroma = chroma[y:y + h, x:x + w][ys, xs]
        white_level = np.percentile(blob_light, 75)
        # Grey cube sides in shade stay above ~0.65 of the white; the symbols are coloured or darker.
        symbol = (blob_light < 0.6 * white_level) | (blob_chroma > 30)
        symbol_points = points[symbol]
        for group in groups:
            if len(group) < 0.3 * top_area:
                continue
            (cx, cy), _, angle = cv2.minAreaRect(group)
            offset = None
            if len(symbol_points):
                d = np.hypot(symbol_points[:, 0] - cx, symbol_points[:, 1] - cy)
                near = symbol_points[d < DIE_PX * 0.75]
                if len(near) >= 6:
                    sx, sy = near.mean(axis=0)
                    offset = (float(sx - cx), float(sy - cy))
            found.append(((float(cx), float(cy)), float(angle % 90.0), area / unit, offset))
    # The top faces all sit the same way off their blobs (the camera's lean): take the typical offset
    # of the symbols, steadier than any one symbol (a log's bar is thin, a head lopsided, and between
    # touching dice the nearest symbol may be the neighbour's).
    offsets = [f[3] for f in found if f[3] is not None]
    lean = np.median(np.array(offsets), axis=0) if offsets else np.zeros(2)
    blobs = [DieBlob((c[0] + float(lean[0]), c[1] + float(lean[1])), a, u) for c, a, u, _ in found]
    return blobs


def face_crop(tray: np.ndarray, blob: DieBlob) -> np.ndarray:
    """The top face, axis-aligned, CROP_PX square (the symbol's own turn is left to the features)."""
    scale = CROP_PX / DIE_PX
    matrix = cv2.getRotationMatrix2D(blob.centre, blob.angle_deg, scale)
    matrix[:, 2] += np.array([CROP_PX / 2, CROP_PX / 2]) - np.array(blob.centre)
    return cv2.warpAffine(tray, matrix, (CROP_PX, CROP_PX), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def recentre(crop: np.ndarray, tray: np.ndarray, blob: DieBlob) -> DieBlob:
    """Shift the crop so the symbol's ink sits at its centre (one refinement step)."""
    _, ink = ink_mask(crop)
    if ink.sum() < 6:
        return blob
    ys, xs = np.nonzero(ink)
    dx, dy = xs.mean() - (CROP_PX - 1) / 2, ys.mean() - (CROP_PX - 1) / 2
    # Back from crop pixels to tray pixels (undo the rotation).
    a = math.radians(blob.angle_deg)
    inv_scale = DIE_PX / CROP_PX
    tx = (dx * math.cos(a) - dy * math.sin(a)) * inv_scale
    ty = (dx * math.sin(a) + dy * math.cos(a)) * inv_scale
    shift = math.hypot(tx, ty)
    if shift > DIE_PX * 0.35:
        return blob
    return DieBlob((blob.centre[0] + 0.8 * tx, blob.centre[1] + 0.8 * ty), blob.angle_deg, blob.area_units)


class DiceReader:
    """Dice faces in the tray of a frame; None when the tray is not in view."""

    def __init__(self, classifier: DiceClassifier | None = None) -> None:
        self.classifier = classifier or DiceClassifier()

    def rectify(self, frame: np.ndarray, markers: dict[int, np.ndarray] | None = None) -> np.ndarray | None:
        if markers is None:
            markers = detect_markers(frame)
        plane = locate_tray(markers)
        if plane is None:
            return None
        return plane.rectify(frame, PX_PER_MM)

    def faces_and_features(self, tray: np.ndarray) -> tuple[list[DieBlob], np.ndarray]:
        blobs = segment_dice(tray)
        refined: list[DieBlob] = []
        features = []
        for blob in blobs:
            crop = face_crop(tray, blob)
            better = recentre(crop, tray, blob)
            if better is not blob:
                crop = face_crop(tray, better)
            refined.append(better)
            features.append(face_features(crop))
        stacked = np.array(features, np.float32) if features else np.zeros((0, 0), np.float32)
        return refined, stacked

    def read_tray(self, tray: np.ndarray) -> tuple[DieReading, ...]:
        blobs, features = self.faces_and_features(tray)
        if not blobs:
            return ()
        proba = self.classifier.predict_proba(features)
        readings = []
        for blob, p in zip(blobs, proba, strict=True):
            best = int(np.argmax(p))
            confidence = float(p[best])
            # A blob that is not one die's worth of white (a die in the air, a hand) is doubtful.
            if not 0.6 <= blob.area_units <= 1.6 and round(blob.area_units) <= 1:
                confidence *= 0.5
            centre_mm = (blob.centre[0] / PX_PER_MM, blob.centre[1] / PX_PER_MM)
            readings.append(DieReading(self.classifier.classes[best], confidence, centre_mm))
        return tuple(readings)

    def read(self, frame: np.ndarray, markers: dict[int, np.ndarray] | None = None) -> tuple[DieReading, ...] | None:
        tray = self.rectify(frame, markers)
        if tray is None:
            return None
        return self.read_tray(tray)


__all__ = ["DIE_FACES", "DiceClassifier", "DiceReader", "DieBlob", "face_crop", "locate_tray", "segment_dice"]
