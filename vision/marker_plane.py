"""Flat things on the table located by ArUco markers at known places (the dice tray, the pirate track).

Each plane is described in millimetres: where each of its markers' four corners lies on it. Any subset
of at least two markers found in the frame gives a homography from the frame to a top-down view of the
plane, so a die lying on one marker or a finger over another does not lose the tray.
"""

from __future__ import annotations

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
    # One adaptive-threshold window sized for the kit's markers in a 1080p frame (25-40 px a side):
    # as many markers found as the default three windows on our tables, at about half the time.
    params.adaptiveThreshWinSizeMin = 15
    params.adaptiveThreshWinSizeMax = 15
    return cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(ARUCO_DICTIONARY), params)


_DETECTOR: cv2.aruco.ArucoDetector | None = None


def detect_markers(frame: np.ndarray) -> dict[int, np.ndarray]:
    """Marker id -> its 4 corners (TL, TR, BR, BL of the printed marker) in frame pixels, float32 (4, 2)."""
    global _DETECTOR
    if _DETECTOR is None:
        _DETECTOR = make_detector()
    gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    corners, ids, _ = _DETECTOR.detectMarkers(gray)
    found: dict[int, np.ndarray] = {}
    if ids is None:
        return found
    for marker_corners, marker_id in zip(corners, ids.ravel(), strict=True):
        if int(marker_id) in KIT_MARKER_IDS:
            found[int(marker_id)] = marker_corners.reshape(4, 2).astype(np.float32)
    return found


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

    def rectify(self, frame: np.ndarray, px_per_mm: float) -> np.ndarray:
        """Top-down view of the plane at ``px_per_mm``."""
        scale = np.diag([px_per_mm, px_per_mm, 1.0])
        size = (round(self.layout.width_mm * px_per_mm), round(self.layout.height_mm * px_per_mm))
        return cv2.warpPerspective(frame, scale @ self.homography, size, flags=cv2.INTER_LINEAR)

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
