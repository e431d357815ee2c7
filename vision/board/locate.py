"""Finding city boards in a frame and rectifying them to a fixed top-down square.

With the kit's markers (table-kit.md): ids 4s..4s+3 sit centred on towers A1, G1, G7, A7 of seat s,
each 70 % of a cell, upright. Every detected marker gives four known board points, so two markers
already fix the homography and three or four make it robust (a hand over one tower loses nothing).

Without markers (a phone photo of one board): the board's outline is the largest convex
quadrilateral in the picture. Its rotation is read from the board itself: the four printed
starting crates B2, C2, B3, B4 look identical (printed) and sit in an L next to tower A1, and tower
A1 carries the only green icon (the person bonus). Each of the four rotations is scored on those two
cues and the best one wins.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from companion.layout import LAYOUT, SIZE, cell_index
from vision import marker_plane
from vision.marker_plane import PlaneLayout

MARKER_FRACTION = 0.7
TOWER_ORDER: tuple[str, ...] = ("A1", "G1", "G7", "A7")
SEAT_COUNT = 5
RECT_CELL_PX = 64  # rectified board = 7 * 64 = 448 px square
MIN_MARKERS = 2  # each marker gives 4 points: two markers fix the homography


@dataclass(frozen=True)
class LocatedBoard:
    """A board found in a frame.

    ``corners``: the board's outer corners in the frame, A1's first then clockwise as the owner sees
    it (A1, G1, G7, A7). ``homography`` maps frame pixels to ``rectified`` pixels. ``rectified`` is
    the top-down board, 7 * ``cell_px`` square, A1 top-left. ``markers`` counts markers used (0 = grid).
    """

    seat: int
    corners: np.ndarray
    homography: np.ndarray
    rectified: np.ndarray
    cell_px: int = RECT_CELL_PX
    markers: int = 0


def _marker_board_corners(tower_index: int) -> np.ndarray:
    """The 4 corners (TL, TR, BR, BL) of a tower's marker, in cell units on the board."""
    col, row = cell_index(TOWER_ORDER[tower_index])
    half = MARKER_FRACTION / 2
    cx, cy = col + 0.5, row + 0.5
    return np.array([[cx - half, cy - half], [cx + half, cy - half], [cx + half, cy + half],
                     [cx - half, cy + half]], np.float64)


def _board_layout(seat: int) -> PlaneLayout:
    """Where seat ``seat``'s markers lie on its board, in cell units (a 7 x 7 plane, A1 top-left)."""
    origins = {4 * seat + k: (float(c[0, 0]), float(c[0, 1])) for k, c in
               enumerate(_marker_board_corners(k) for k in range(len(TOWER_ORDER)))}
    return PlaneLayout(width_mm=SIZE, height_mm=SIZE, marker_side_mm=MARKER_FRACTION, marker_origins=origins)


BOARD_LAYOUTS: tuple[PlaneLayout, ...] = tuple(_board_layout(seat) for seat in range(SEAT_COUNT))


def detect_markers(frame: np.ndarray) -> dict[int, np.ndarray]:
    """Marker id -> 4 corners (TL, TR, BR, BL of the printed marker) in frame pixels, float32 (4, 2).

    The kit's one detector (``vision.marker_plane``), with a second look where a board shows only some
    of its markers.
    """
    return marker_plane.detect_markers(frame, BOARD_LAYOUTS)


def _rectify(frame: np.ndarray, board_to_frame: np.ndarray, cell_px: int) -> tuple[np.ndarray, np.ndarray]:
    scale = np.diag([cell_px, cell_px, 1.0])
    frame_to_rect = scale @ np.linalg.inv(board_to_frame)
    frame_to_rect /= frame_to_rect[2, 2]
    side = SIZE * cell_px
    rectified = cv2.warpPerspective(frame, frame_to_rect, (side, side), flags=cv2.INTER_AREA,
                                    borderMode=cv2.BORDER_REPLICATE)
    return rectified, frame_to_rect


def _board_corners(board_to_frame: np.ndarray) -> np.ndarray:
    unit = np.array([[[0, 0], [SIZE, 0], [SIZE, SIZE], [0, SIZE]]], np.float64)
    return cv2.perspectiveTransform(unit, board_to_frame)[0]


def find_boards(
    frame: np.ndarray,
    markers: dict[int, np.ndarray] | None = None,
    *,
    cell_px: int = RECT_CELL_PX,
) -> list[LocatedBoard]:
    """Every city board whose markers (at least two of ids 4s..4s+3) are in view, by seat.

    ``markers`` (id -> 4 corners) lets a caller that already ran the detector skip a second run.
    """
    if frame is None or frame.ndim not in (2, 3) or frame.size == 0:
        raise ValueError("find_boards needs an image")
    markers = detect_markers(frame) if markers is None else markers
    boards: list[LocatedBoard] = []
    for seat in range(SEAT_COUNT):
        board_pts, frame_pts = [], []
        for k in range(4):
            corners = markers.get(4 * seat + k)
            if corners is not None:
                board_pts.append(_marker_board_corners(k))
                frame_pts.append(np.asarray(corners, np.float64).reshape(4, 2))
        if len(board_pts) < MIN_MARKERS:
            continue
        board_to_frame, _ = cv2.findHomography(np.vstack(board_pts), np.vstack(frame_pts), 0)
        if board_to_frame is None:
            continue
        rectified, frame_to_rect = _rectify(frame, board_to_frame, cell_px)
        boards.append(LocatedBoard(seat=seat, corners=_board_corners(board_to_frame).astype(np.float32),
                                   homography=frame_to_rect, rectified=rectified, cell_px=cell_px,
                                   markers=len(board_pts)))
    return boards


# --- A board without markers -------------------------------------------------------------------------


def _order_clockwise(quad: np.ndarray) -> np.ndarray:
    centre = quad.mean(axis=0)
    angles = np.arctan2(quad[:, 1] - centre[1], quad[:, 0] - centre[0])
    quad = quad[np.argsort(angles)]  # clockwise in image coordinates (y down)
    start = int(np.argmin(quad.sum(axis=1)))  # top-left-most first
    return np.roll(quad, -start, axis=0)


def _refine_sides(contour: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """Fit a line to each side's middle stretch and intersect: rounded board corners do not count."""
    pts = contour.reshape(-1, 2).astype(np.float64)
    lines = []
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        d = b - a
        length = np.hypot(*d)
        t = ((pts - a) @ d) / (length**2)
        dist = np.abs(d[0] * (pts[:, 1] - a[1]) - d[1] * (pts[:, 0] - a[0])) / length
        near = pts[(t > 0.12) & (t < 0.88) & (dist < 0.04 * length)]
        if len(near) < 5:
            return quad
        vx, vy, x0, y0 = cv2.fitLine(near.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
        lines.append((np.array([x0, y0]), np.array([vx, vy])))
    out = []
    for i in range(4):
        (p1, d1), (p2, d2) = lines[i - 1], lines[i]
        m = np.array([d1, -d2]).T
        if abs(np.linalg.det(m)) < 1e-6:
            return quad
        s = np.linalg.solve(m, p2 - p1)
        out.append(p1 + s[0] * d1)
    refined = np.array(out)
    if np.max(np.linalg.norm(refined - quad, axis=1)) > 0.1 * np.sqrt(cv2.contourArea(quad.astype(np.float32))):
        return quad
    return refined


def _largest_quad(polygon: np.ndarray) -> np.ndarray:
    """The 4 vertices of a convex polygon spanning the largest area (a board's corners, even rounded)."""
    n = len(polygon)
    if n > 40:
        polygon = polygon[np.linspace(0, n - 1, 40).astype(int)]
        n = 40
    x, y = polygon[:, 0], polygon[:, 1]
    # tri[a, b, c]: twice the signed area of triangle (a, b, c).
    tri = (x[None, :, None] - x[:, None, None]) * (y[None, None, :] - y[:, None, None]) - (
        x[None, None, :] - x[:, None, None]) * (y[None, :, None] - y[:, None, None])
    idx = np.arange(n)
    best, best_area = polygon[:4], -1.0
    for i in range(n):
        for k in range(i + 2, n):
            between = (idx > i) & (idx < k)
            outside = (idx > k) | (idx < i)
            if not between.any() or not outside.any():
                continue
            a1 = np.abs(tri[i, :, k])
            j = int(np.argmax(np.where(between, a1, -1)))
            m = int(np.argmax(np.where(outside, a1, -1)))
            area = a1[j] + a1[m]
            if area > best_area:
                best_area = float(area)
                best = polygon[sorted([i, j, k, m])]
    return best


def _board_quadrilateral(frame: np.ndarray) -> np.ndarray | None:
    colour = cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR) if frame.ndim == 2 else frame
    scale = min(800.0 / max(colour.shape[:2]), 1.0)
    small_bgr = cv2.resize(colour, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else colour
    small = cv2.cvtColor(small_bgr, cv2.COLOR_BGR2GRAY)
    blur = cv2.GaussianBlur(small, (5, 5), 0)
    area_total = small.shape[0] * small.shape[1]
    kernel = np.ones((5, 5), np.uint8)
    # 1. Unlike the table: colour distance from the frame's border (the table around the board).
    lab = cv2.cvtColor(cv2.GaussianBlur(small_bgr, (7, 7), 0), cv2.COLOR_BGR2LAB).astype(np.float32)
    border = np.vstack([lab[:4].reshape(-1, 3), lab[-4:].reshape(-1, 3), lab[:, :4].reshape(-1, 3),
                        lab[:, -4:].reshape(-1, 3)])
    distance = np.linalg.norm(lab - np.median(border, axis=0), axis=2)
    distance = np.clip(distance * (255.0 / max(float(distance.max()), 1.0)), 0, 255).astype(np.uint8)
    _, unlike_table = cv2.threshold(distance, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    unlike_table = cv2.morphologyEx(cv2.morphologyEx(unlike_table, cv2.MORPH_CLOSE, kernel), cv2.MORPH_OPEN, kernel)
    # 2. Edges; 3. brightness either way.
    edges = cv2.dilate(cv2.Canny(blur, 30, 90), np.ones((3, 3), np.uint8))
    _, otsu = cv2.threshold(blur, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    candidates: list[np.ndarray] = []
    for binary in (unlike_table, edges, otsu, 255 - otsu):
        contours, _ = cv2.findContours(binary, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        for contour in contours:
            area = cv2.contourArea(contour)
            if area < 0.08 * area_total:
                continue
            pts = contour.reshape(-1, 2)
            on_edge = (pts[:, 0] <= 1) | (pts[:, 1] <= 1) | (pts[:, 0] >= small.shape[1] - 2) | (
                pts[:, 1] >= small.shape[0] - 2)
            if on_edge.mean() > 0.05:
                continue  # the table around the board, not the board
            hull = cv2.convexHull(contour)
            perimeter = cv2.arcLength(hull, True)
            approx = cv2.approxPolyDP(hull, 0.005 * perimeter, True).reshape(-1, 2).astype(np.float64)
            if len(approx) < 4:
                continue
            quad = _order_clockwise(_largest_quad(approx))
            quad_area = cv2.contourArea(quad.astype(np.float32))
            if quad_area > 0.97 * area_total or quad_area < 0.85 * cv2.contourArea(hull):
                continue  # the whole frame, or not a quadrilateral
            candidates.append(_refine_sides(contour, quad))
            candidates.append(quad)
    if not candidates:
        return None
    # Several segmentations give several outlines: snap each to the strongest straight edges near it
    # and keep the one that runs along the strongest edge all round (the board against the table).
    gx = cv2.Sobel(blur, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(blur, cv2.CV_32F, 0, 1, ksize=3)
    snapped = [_snap_to_edges(gx, gy, _snap_to_edges(gx, gy, quad)[0], 0.015) for quad in candidates]
    best = max(snapped, key=lambda qs: qs[1])
    return best[0] / scale


def _snap_to_edges(gx: np.ndarray, gy: np.ndarray, quad: np.ndarray, reach_fraction: float = 0.04
                   ) -> tuple[np.ndarray, float]:
    """Move each side of ``quad`` (both ends independently, a few % of its length) onto the strongest
    edge; return the new corners and the mean edge strength along the sides."""
    h, w = gx.shape
    t = np.linspace(0.15, 0.85, 40)  # the straight middle of each side, away from rounded corners
    lines, total = [], 0.0
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        d = b - a
        length = float(np.hypot(*d))
        if length < 10:
            return quad, 0.0
        normal = np.array([-d[1], d[0]]) / length
        reach = max(2, int(reach_fraction * length))
        shifts = np.arange(-reach, reach + 1, dtype=np.float64)
        da, db = np.meshgrid(shifts, shifts, indexing="ij")
        da, db = da.ravel(), db.ravel()
        off = da[:, None] * (1 - t[None, :]) + db[:, None] * t[None, :]
        px = a[0] + d[0] * t[None, :] + normal[0] * off
        py = a[1] + d[1] * t[None, :] + normal[1] * off
        xi = np.clip(np.round(px).astype(int), 0, w - 1)
        yi = np.clip(np.round(py).astype(int), 0, h - 1)
        response = gx[yi, xi] * normal[0] + gy[yi, xi] * normal[1]
        # The median of the signed response wants one edge of the same polarity all along the side:
        # the board against the table, not a short strong stroke (a drawing, a grid dash, a shadow).
        strength = np.abs(np.median(response, axis=1))
        # Prefer edges near the segmented outline: table grain can be as strong as the board's rim.
        k = int(np.argmax(strength * (1.0 - 0.5 * (np.abs(da) + np.abs(db)) / (2 * reach))))
        total += float(strength[k])
        a2, b2 = a + normal * da[k], b + normal * db[k]
        lines.append((a2, b2 - a2))
    corners = []
    for i in range(4):
        (p1, d1), (p2, d2) = lines[i - 1], lines[i]
        m = np.array([d1, -d2]).T
        if abs(np.linalg.det(m)) < 1e-9:
            return quad, 0.0
        s = np.linalg.solve(m, p2 - p1)
        corners.append(p1 + s[0] * d1)
    return np.array(corners), total / 4


def _grid_score(gray: np.ndarray, quad: np.ndarray, cell: int = 24) -> float:
    """How sharply the board's printed grid lines show at the 1/7 steps once rectified by ``quad``."""
    side = SIZE * cell
    target = np.array([[0, 0], [side, 0], [side, side], [0, side]], np.float32)
    h = cv2.getPerspectiveTransform(quad.astype(np.float32), target)
    rect = cv2.warpPerspective(gray, h, (side, side), flags=cv2.INTER_AREA).astype(np.float32)
    score = 0.0
    for profile in (rect[cell // 2:-cell // 2].mean(axis=0), rect[:, cell // 2:-cell // 2].mean(axis=1)):
        for k in range(1, SIZE):
            at = k * cell
            line = profile[at - 1:at + 2].min()
            around = np.concatenate([profile[at - 8:at - 4], profile[at + 5:at + 9]]).mean()
            score += float(around - line)
    return score / (float(rect.std()) + 1.0)


def _orientation_score(rectified: np.ndarray, cell_px: int) -> float:
    """How much a rectified board looks upright: identical printed crates in B2 C2 B3 B4, green A1."""
    gray = cv2.cvtColor(rectified, cv2.COLOR_BGR2GRAY).astype(np.float32)
    crops = []
    m = cell_px // 8
    for cell in LAYOUT.printed_crates:
        col, row = cell_index(cell)
        crop = gray[row * cell_px + m:(row + 1) * cell_px - m, col * cell_px + m:(col + 1) * cell_px - m]
        crop = crop - crop.mean()
        crops.append(crop / (np.linalg.norm(crop) + 1e-6))
    sims = [float((crops[i] * crops[j]).sum()) for i in range(len(crops)) for j in range(i + 1, len(crops))]
    hsv = cv2.cvtColor(rectified[:cell_px, :cell_px], cv2.COLOR_BGR2HSV)
    green = np.mean((hsv[:, :, 0] > 35) & (hsv[:, :, 0] < 85) & (hsv[:, :, 1] > 80) & (hsv[:, :, 2] > 50))
    return float(np.mean(sims)) + 2.0 * float(green)


def find_single_board(frame: np.ndarray, *, cell_px: int = RECT_CELL_PX) -> LocatedBoard | None:
    """One board photographed alone, without markers: outline by contours, rotation by its print."""
    if frame is None or frame.ndim not in (2, 3) or frame.size == 0:
        raise ValueError("find_single_board needs an image")
    quad = _board_quadrilateral(frame)
    if quad is None:
        return None
    if frame.ndim == 2:
        frame = cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    unit = np.array([[0, 0], [SIZE, 0], [SIZE, SIZE], [0, SIZE]], np.float32)
    views: list[tuple[float, LocatedBoard]] = []
    for k in range(4):  # the four ways the board can lie; its own print says which is upright
        corners = np.roll(quad, -k, axis=0).astype(np.float32)
        board_to_frame = cv2.getPerspectiveTransform(unit, corners).astype(np.float64)
        rectified, frame_to_rect = _rectify(frame, board_to_frame, cell_px)
        views.append((_orientation_score(rectified, cell_px),
                      LocatedBoard(seat=0, corners=corners, homography=frame_to_rect, rectified=rectified,
                                   cell_px=cell_px, markers=0)))
    return max(views, key=lambda v: v[0])[1]
