"""Flat things on the table located by ArUco markers at known places (the dice tray, the pirate track).

Each plane is described in millimetres: where each of its markers' four corners lies on it. Any subset
of at least two markers found in the frame gives a homography from the frame to a top-down view of the
plane, so a die lying on one marker or a finger over another does not lose the tray.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

# The kit's one ArUco dictionary (shared/table-kit.md): the printed sheet, the synthetic tables and
# every detector take it from here.
ARUCO_DICTIONARY = cv2.aruco.DICT_4X4_50
# The ids the kit prints: boards 0-19 (4 a seat), tray 20-23, track 24-27. Any other id "found" is a
# drawing that happens to decode (a hatched wall can), and it must not hide a lone board from the
# no-marker finder.
KIT_MARKER_IDS = range(28)


def marker_image(marker_id: int, side_px: int) -> np.ndarray:
    """The black-and-white marker, ``side_px`` square, no margin (uint8, 0 or 255)."""
    dictionary = cv2.aruco.getPredefinedDictionary(ARUCO_DICTIONARY)
    return cv2.aruco.generateImageMarker(dictionary, marker_id, side_px)


def make_detector() -> cv2.aruco.ArucoDetector:
    params = cv2.aruco.DetectorParameters()
    # Subpixel corners: the homographies of small planes (tray, track) need them.
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    # Corners refined over 2 px each way (half a module for tiny markers): the default third of a module
    # (1 px on our 1080p markers) leaves them about where the thresholded outline put them. Boards
    # located from their markers: 0.20 px from the truth instead of 0.31 (median, synthetic tables).
    params.cornerRefinementWinSize = 2
    params.relativeCornerRefinmentWinSize = 0.5
    # One adaptive-threshold window sized for the kit's markers (15-40 px a side in a 1080p frame,
    # 30-60 px in a photo of one board): as many markers found as the default three windows, in 40 %
    # of the time.
    params.adaptiveThreshWinSizeMin = 15
    params.adaptiveThreshWinSizeMax = 15
    # Darker than the local mean by 10 levels, not 7: far fewer specks of table grain and sensor noise
    # to trace (15 % less time), while a marker's black border stays far darker than that.
    params.adaptiveThreshConstant = 10
    return cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(ARUCO_DICTIONARY), params)


_DETECTOR: cv2.aruco.ArucoDetector | None = None


def _detect(gray: np.ndarray) -> dict[int, np.ndarray]:
    global _DETECTOR
    if _DETECTOR is None:
        _DETECTOR = make_detector()
    corners, ids, _ = _DETECTOR.detectMarkers(gray)
    if ids is None:
        return {}
    return {int(i): c.reshape(4, 2).astype(np.float32) for c, i in zip(corners, ids.ravel(), strict=True)
            if int(i) in KIT_MARKER_IDS}


def detect_markers(frame: np.ndarray, layouts: Sequence[PlaneLayout] = ()) -> dict[int, np.ndarray]:
    """Marker id -> its 4 corners (TL, TR, BR, BL of the printed marker) in frame pixels, float32 (4, 2).

    Glare or a shadow can wash a marker out: a plane of ``layouts`` that shows two or three of its
    markers gets a second look, contrast-stretched, just where each missing one should be.
    """
    gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    found = _detect(gray)
    for layout in layouts:
        seen = [m for m in layout.marker_origins if m in found]
        if 2 <= len(seen) < len(layout.marker_origins):
            _look_for_missing(gray, found, layout)
    return found


def _look_for_missing(gray: np.ndarray, found: dict[int, np.ndarray], layout: PlaneLayout) -> None:
    """Add to ``found`` the missing markers of ``layout`` seen in a contrast-stretched patch around the
    place its markers already found put them (two put them within a side; one alone can be many sides
    off, and would need a wide patch for little)."""
    plane = locate_plane(found, layout, min_markers=2)
    if plane is None:
        return
    height, width = gray.shape[:2]
    for marker_id in layout.marker_origins:
        if marker_id in found:
            continue
        expected = plane.to_frame(layout.marker_corners_mm(marker_id))
        side = float(np.mean(np.linalg.norm(expected - np.roll(expected, 1, axis=0), axis=1)))
        if not np.all(np.isfinite(expected)) or not 8 <= side <= max(width, height) / 4:
            continue
        # One side of margin all round: the prediction's error, and room for the threshold window.
        x0, y0 = np.maximum(np.floor(expected.min(axis=0) - side), 0).astype(int)
        x1, y1 = np.minimum(np.ceil(expected.max(axis=0) + side), (width, height)).astype(int)
        if x1 - x0 < 2 * side or y1 - y0 < 2 * side:
            continue  # mostly outside the frame
        patch = gray[y0:y1, x0:x1]
        # Histogram equalisation, then a min-max stretch: each brings back washed-out markers the other
        # misses (synthetic glare over one marker: 99 and 50 of 180, 121 together).
        for stretch in (cv2.equalizeHist, lambda p: cv2.normalize(p, None, 0, 255, cv2.NORM_MINMAX)):
            hit = _detect(stretch(patch)).get(marker_id)
            if hit is not None and np.linalg.norm(hit.mean(axis=0) + (x0, y0) - expected.mean(axis=0)) < side:
                found[marker_id] = hit + np.array([x0, y0], np.float32)
                break


@dataclass(frozen=True)
class PlaneLayout:
    """A rectangle of ``width_mm`` x ``height_mm`` with upright square markers at given places.

    ``marker_origins`` maps a marker id to the plane position (mm) of its top-left corner.
    """

    width_mm: float
    height_mm: float
    marker_side_mm: float
    marker_origins: dict[int, tuple[float, float]]

    def marker_corners_mm(self, marker_id: int) -> np.ndarray:
        x, y = self.marker_origins[marker_id]
        s = self.marker_side_mm
        return np.array([[x, y], [x + s, y], [x + s, y + s], [x, y + s]], dtype=np.float32)


@dataclass(frozen=True)
class LocatedPlane:
    layout: PlaneLayout
    homography: np.ndarray  # frame pixels -> plane millimetres
    markers_seen: tuple[int, ...]

    def rectify(
        self, frame: np.ndarray, px_per_mm: float, region_mm: tuple[float, float, float, float] | None = None
    ) -> np.ndarray:
        """Top-down view of the plane at ``px_per_mm``; of its rectangle ``region_mm`` (x, y, width,
        height) only when given (the same pixels as that crop of the whole view, for less work)."""
        x, y, w, h = (0.0, 0.0, self.layout.width_mm, self.layout.height_mm) if region_mm is None else region_mm
        to_view = np.array([[px_per_mm, 0, -x * px_per_mm], [0, px_per_mm, -y * px_per_mm], [0, 0, 1]])
        size = (round(w * px_per_mm), round(h * px_per_mm))
        return cv2.warpPerspective(frame, to_view @ self.homography, size, flags=cv2.INTER_LINEAR)

    def to_frame(self, points_mm: np.ndarray) -> np.ndarray:
        """Plane millimetres -> frame pixels."""
        inverse = np.linalg.inv(self.homography)
        pts = np.asarray(points_mm, dtype=np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, inverse).reshape(-1, 2)


def locate_plane(markers: dict[int, np.ndarray], layout: PlaneLayout, min_markers: int = 2) -> LocatedPlane | None:
    seen = [m for m in layout.marker_origins if m in markers]
    if len(seen) < min_markers:
        return None
    src = np.concatenate([markers[m] for m in seen]).astype(np.float64)
    dst = np.concatenate([layout.marker_corners_mm(m) for m in seen]).astype(np.float64)
    homography, _ = cv2.findHomography(src, dst, 0)
    if homography is None or not np.all(np.isfinite(homography)):
        return None
    return LocatedPlane(layout, homography, tuple(seen))
