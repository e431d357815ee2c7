"""Synthetic camera frames of a whole table: city boards with seat markers, the dice tray, the pirate track.

``render_table(spec, rng)`` returns a 1920x1080 BGR frame and the truth ``Observation``. Everything that
stays put on a real table (placement, camera, handwriting, lighting) comes from ``spec.seed``, so two
frames of one spec show the same table; ``rng`` only drives what changes from frame to frame (sensor
noise, and the hand, motion blur and rolling die when the spec asks for them).
"""

from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.kit import CELL_MM
from vision.observation import DIE_FACES, BoardReading, DieReading, Observation
from vision.pirates.geometry import PLANE_H_MM as TRACK_H_MM
from vision.pirates.geometry import PLANE_W_MM as TRACK_W_MM
from vision.synth.dice import (
    TRAY_SURROUND_MM,
    PlacedDie,
    TrayLook,
    draw_die,
    render_tray_over,
    tray_over_to_floor,
)
from vision.synth.drawings import Hand
from vision.synth.pen import PenLook, render_pen
from vision.synth.pirates import BOARD_MARGIN_MM, render_track_on_board, track_stickers_by_hand

FRAME_SIZE = (1920, 1080)
BOARD_MM = 7 * CELL_MM
CAMERA_MM = 750.0  # camera height above the table
# hardware.md's reference camera (Camera Module 3 Wide, 102 deg across): the frame's width spans 2.470 x
# its height above the table.
WIDE_VIEW_PER_HEIGHT = 2.470
_VIEW_DISTANCE_MM = 1400.0
_BOARD_CELL_PX = 64
_TRAY_PX_PER_MM = 4.0
_TRACK_PX_PER_MM = 5.0

SKIN_TONES: tuple[tuple[int, int, int], ...] = ((150, 180, 225), (120, 150, 205), (90, 120, 170), (60, 85, 125))


@dataclass(frozen=True)
class TableSpec:
    """What is on the table. ``seats`` defaults to 0..n-1 for the ``cities`` given."""

    cities: tuple[tuple[str, ...], ...]
    dice: tuple[str, ...] = ("log", "crate", "wall", "cross", "head")
    pirate_boxes: int = 0
    seed: int = 0
    seats: tuple[int, ...] | None = None
    max_tilt_deg: float = 35.0
    # The reference camera this high above the table (hardware.md: 29 px a cell at 75 cm). None: 1.4-1.55 px
    # a millimetre (39-43 px a cell, the camera about 52 cm up; dice still lean as from 75 cm).
    camera_cm: float | None = None
    touching_dice: bool = False
    # The table's own tray: its floor, size and dice (the reference 240 x 160 mm tray of 16 mm dice).
    tray: TrayLook = TrayLook()
    language: str = "en"
    # Who drew on each board (``vision.synth.drawings.Hand``), in the order of ``cities``; None: a random
    # hand each (``Hand.random``).
    hands: tuple[Hand, ...] | None = None
    # Each board drawn from a seed of its own and each cell from one of the board's (``render_board``'s
    # ``cell_seed``): the same spec with one drawing more shows every other drawing, and the rest of the
    # table, as it was: the frame after a move.
    drawn_cell_by_cell: bool = False
    # The kit's stickers as a person sticks them: each this far off its place (standard deviation, mm, each
    # way) and, on the boards, turned by as many degrees (``vision.synth.board.stickers_by_hand``, the track's
    # ``vision.synth.pirates.track_stickers_by_hand``); 0: exactly in place.
    sticker_error_mm: float = 0.0
    # The camera's lens bends straight lines outwards (barrel distortion, as a wide lens does): a point a
    # pinhole camera would put at the frame's corner lands this share nearer its middle (hardware.md gives
    # about a tenth for the Camera Module 3 Wide), and every point in between as ``lens_bent_points`` says.
    # The middle keeps its scale: the edges are squeezed. 0: a pinhole camera, as every frame before.
    lens_barrel: float = 0.0
    # A player's marker left lying on the board of this index (in the order of ``cities``), capped, as it is put
    # down after drawing (``vision.synth.pen``); None: no pen. Drawn from a stream of its own: the rest of the
    # table is as without it. ``truth.extra["pen"]`` says where it lies and which cells it covers.
    pen_on: int | None = None
    # What happens in this frame only:
    hand: bool = False
    motion_blur: bool = False
    rolling_die: bool = False

    @property
    def seat_list(self) -> tuple[int, ...]:
        return self.seats if self.seats is not None else tuple(range(len(self.cities)))

    @staticmethod
    def random(rng: np.random.Generator, n_boards: int | None = None, **options: object) -> TableSpec:
        from vision.synth.board import random_city

        n = int(rng.integers(2, 6)) if n_boards is None else n_boards
        cities = tuple(tuple(random_city(rng)) for _ in range(n))
        dice = tuple(DIE_FACES[int(i)] for i in rng.integers(0, len(DIE_FACES), 5))
        return TableSpec(
            cities=cities,
            dice=dice,
            pirate_boxes=int(rng.integers(0, 12 * n + 1)),
            seed=int(rng.integers(0, 2**31)),
            touching_dice=bool(rng.random() < 0.3),
            **options,  # type: ignore[arg-type]
        )

    def still(self) -> TableSpec:
        """The same table with nothing passing over it."""
        return dataclasses.replace(self, hand=False, motion_blur=False, rolling_die=False)


@dataclass(frozen=True)
class _Item:
    kind: str  # "board", "tray", "track", "pen" (on a board: its millimetres)
    width_mm: float
    height_mm: float
    centre_mm: tuple[float, float]
    angle_deg: float

    def corners_mm(self, grow: float = 0.0) -> np.ndarray:
        box = ((self.centre_mm[0], self.centre_mm[1]), (self.width_mm + grow, self.height_mm + grow), self.angle_deg)
        return cv2.boxPoints(box).astype(np.float32)

    def item_to_table(self, px_per_mm: float) -> np.ndarray:
        """Homography: item image pixels -> table millimetres."""
        a = math.radians(self.angle_deg)
        c, s = math.cos(a), math.sin(a)
        k = 1.0 / px_per_mm
        tx = self.centre_mm[0] - (c * self.width_mm / 2 - s * self.height_mm / 2)
        ty = self.centre_mm[1] - (s * self.width_mm / 2 + c * self.height_mm / 2)
        return np.array([[c * k, -s * k, tx], [s * k, c * k, ty], [0, 0, 1]], np.float64)


@dataclass(frozen=True)
class _Camera:
    table_to_frame: np.ndarray
    nadir_mm: tuple[float, float]  # the table point straight below the camera
    height_mm: float


def px_per_mm_at(camera_cm: float) -> float:
    """Frame pixels per table millimetre under the reference camera ``camera_cm`` above the table."""
    return FRAME_SIZE[0] / (WIDE_VIEW_PER_HEIGHT * camera_cm * 10.0)


def _camera(rng: np.random.Generator, max_tilt_deg: float, camera_cm: float | None = None) -> _Camera:
    """Table mm (origin at the view's centre) -> frame pixels, looking down up to ``max_tilt_deg``."""
    near = rng.uniform(1.4, 1.55)  # drawn either way: the tilt and spin below are the same at any height
    px_per_mm = near if camera_cm is None else px_per_mm_at(camera_cm)
    height_mm = CAMERA_MM if camera_cm is None else camera_cm * 10.0
    tilt = math.radians(rng.uniform(0, max_tilt_deg))
    direction = rng.uniform(0, 2 * math.pi)
    d = np.array([math.cos(direction), math.sin(direction)])
    spin = math.radians(rng.uniform(-8, 8))
    # Four table points and where they land: foreshortened along d, farther side smaller.
    half = np.array([[-500, -300], [500, -300], [500, 300], [-500, 300]], np.float64)
    rot = np.array([[math.cos(spin), -math.sin(spin)], [math.sin(spin), math.cos(spin)]])
    pts = half @ rot.T
    along = pts @ d
    # Distance to the view's centre along the optical axis (a camera 75-90 cm up with a moderate lens).
    distance = _VIEW_DISTANCE_MM
    depth = distance + along * math.sin(tilt)
    proj = (pts - np.outer(along * (1 - math.cos(tilt)), d)) * (distance / depth)[:, None] * px_per_mm
    proj += np.array(FRAME_SIZE) / 2
    h = cv2.getPerspectiveTransform(half.astype(np.float32), proj.astype(np.float32)).astype(np.float64)
    nadir = -d * height_mm * math.tan(tilt)
    return _Camera(h, (float(nadir[0]), float(nadir[1])), height_mm)


def _visible_polygon(camera: _Camera, margin_px: float = 25) -> np.ndarray:
    w, h = FRAME_SIZE
    m = margin_px
    frame_pts = np.array([[[m, m], [w - m, m], [w - m, h - m], [m, h - m]]], np.float64)
    return cv2.perspectiveTransform(frame_pts, np.linalg.inv(camera.table_to_frame))[0].astype(np.float32)


def _inside(poly: np.ndarray, pts: np.ndarray) -> bool:
    return all(cv2.pointPolygonTest(poly, (float(x), float(y)), False) >= 0 for x, y in pts)


def _frame_area(camera: _Camera, corners_mm: np.ndarray) -> float:
    pts = cv2.perspectiveTransform(corners_mm.reshape(1, -1, 2).astype(np.float64), camera.table_to_frame)[0]
    return float(cv2.contourArea(pts.astype(np.float32)))


def _place(rng: np.random.Generator, camera: _Camera, sizes: list[tuple[str, float, float]]) -> list[_Item] | None:
    visible = _visible_polygon(camera)
    lo, hi = visible.min(axis=0), visible.max(axis=0)
    centre_scale = _frame_area(camera, np.array([[-5, -5], [5, -5], [5, 5], [-5, 5]], np.float32)) / 100.0
    items: list[_Item] = []
    for kind, w, h in sizes:
        for attempt in range(600):
            # Mostly any angle; when the table gets crowded, boards turn closer to square with the frame.
            angle = float(rng.uniform(0, 360)) if attempt < 300 else float(90 * rng.integers(0, 4) + rng.uniform(-12, 12))
            centre = (float(rng.uniform(lo[0], hi[0])), float(rng.uniform(lo[1], hi[1])))
            item = _Item(kind, w, h, centre, angle)
            if not _inside(visible, item.corners_mm()):
                continue
            # Not in the far corner of a steep view, where it would shrink to half size: players put
            # the tray and boards where the camera sees them well.
            if _frame_area(camera, item.corners_mm()) < 0.55 * centre_scale * w * h:
                continue
            if any(cv2.intersectConvexConvex(item.corners_mm(12), other.corners_mm(12))[0] > 0 for other in items):
                continue
            items.append(item)
            break
        else:
            return None
    return items


def _warp_into(frame: np.ndarray, image: np.ndarray, image_to_frame: np.ndarray, mask: np.ndarray | None = None) -> None:
    """Composite ``image`` into ``frame`` (float32) through a homography, touching only its bounding box."""
    h, w = image.shape[:2]
    corners = cv2.perspectiveTransform(np.array([[[0, 0], [w, 0], [w, h], [0, h]]], np.float64), image_to_frame)[0]
    x0, y0 = np.floor(corners.min(axis=0)).astype(int) - 2
    x1, y1 = np.ceil(corners.max(axis=0)).astype(int) + 2
    x0, y0 = max(x0, 0), max(y0, 0)
    x1, y1 = min(x1, frame.shape[1]), min(y1, frame.shape[0])
    if x1 <= x0 or y1 <= y0:
        return
    shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64) @ image_to_frame
    size = (int(x1 - x0), int(y1 - y0))
    warped = cv2.warpPerspective(image, shift, size, flags=cv2.INTER_AREA).astype(np.float32)
    src_mask = np.full((h, w), 255, np.uint8) if mask is None else mask
    alpha = cv2.warpPerspective(src_mask, shift, size, flags=cv2.INTER_LINEAR).astype(np.float32)[:, :, None] / 255
    region = frame[y0:y1, x0:x1]
    region[:] = region * (1 - alpha) + warped * alpha


@dataclass
class _Scene:
    frame: np.ndarray  # uint8, lit, without per-frame noise
    truth: Observation
    camera: _Camera
    items: list[_Item]
    tray_canvas: np.ndarray  # the tray and its surround without dice in the air (for rolling dice)
    tray_alpha: np.ndarray  # what of tray_canvas covers the table (``render_tray_over``)
    lean_mm: tuple[float, float]
    light_gain: np.ndarray  # (H, W) float32, applied to everything
    lighting: dict[str, object]


def _table_background(rng: np.random.Generator) -> np.ndarray:
    w, h = FRAME_SIZE
    base = np.array(rng.choice([(60, 90, 130), (40, 60, 80), (90, 110, 120), (70, 70, 70), (50, 100, 60)]), np.float32)
    grain = cv2.resize(rng.normal(0, 1, (h // 8 + 1, w // 64 + 1)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
    grain *= 10
    frame = np.empty((h, w, 3), np.float32)
    frame[:] = base
    frame += grain[:, :, None]  # (in place: the same sums as ``base + 10 * grain``, two frames less at the peak)
    return frame


def _lighting(rng: np.random.Generator) -> tuple[np.ndarray, dict[str, object]]:
    w, h = FRAME_SIZE
    # A row and a column, broadcast: the same sums as whole (H, W) grids, a fraction of the memory (the demo renders
    # on the Pi beside the reader).
    yy, xx = np.arange(h, dtype=np.float32)[:, None], np.arange(w, dtype=np.float32)[None, :]
    gx, gy = rng.uniform(-0.2, 0.2, 2)
    scale = rng.uniform(0.85, 1.1)
    info: dict[str, object] = {"shadow": False, "glare": False}
    shadow, depth = None, 0.0
    if rng.random() < 0.4:  # a soft partial shadow (a lamp arm, a box)
        poly = (rng.uniform(0, 1, (4, 2)) * [w, h]).astype(np.int32)
        small = np.zeros((h // 4, w // 4), np.float32)
        cv2.fillConvexPoly(small, cv2.convexHull(poly // 4), 1.0)
        shadow = cv2.resize(cv2.GaussianBlur(small, (0, 0), 8), (w, h))
        depth = rng.uniform(0.15, 0.35)
        info["shadow"] = True
    # The gain is worked out in double precision a band of rows at a time, then kept in single: the same numbers as
    # the whole (H, W) grid in double, without it.
    gain = np.empty((h, w), np.float32)
    for top in range(0, h, 120):
        rows = slice(top, top + 120)
        band = 1.0 + gx * (xx / w - 0.5) + gy * (yy[rows] / h - 0.5)
        band *= scale
        if shadow is not None:
            band *= 1 - depth * shadow[rows]
        gain[rows] = band
    glare = np.zeros((h, w), np.float32)
    if rng.random() < 0.3:  # a lamp's reflection
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        r = rng.uniform(0.03, 0.08) * w
        glare = (xx - cx) ** 2 + (yy - cy) ** 2  # float32 (H, W), made into the glare in place
        np.negative(glare, out=glare)
        glare /= 2 * r * r
        np.exp(glare, out=glare)
        glare *= rng.uniform(40, 90)
        info["glare"] = True
    info["glare_map"] = glare
    return gain, info


@functools.lru_cache(maxsize=3)
def _scene(spec: TableSpec) -> _Scene:
    rng = np.random.default_rng(spec.seed)
    from vision.synth.board import render_board, stickers_by_hand

    sizes: list[tuple[str, float, float]] = [("board", BOARD_MM, BOARD_MM) for _ in spec.cities]
    sizes += [("tray", spec.tray.width_mm, spec.tray.height_mm), ("track", TRACK_W_MM + 2 * BOARD_MARGIN_MM, TRACK_H_MM + 2 * BOARD_MARGIN_MM)]
    # Big items first: they are the hardest to fit.
    order = sorted(range(len(sizes)), key=lambda i: -sizes[i][1] * sizes[i][2])
    items: list[_Item] | None = None
    for _ in range(40):
        camera = _camera(rng, spec.max_tilt_deg, spec.camera_cm)
        placed = _place(rng, camera, [sizes[i] for i in order])
        if placed is not None:
            items = [placed[order.index(i)] for i in range(len(sizes))]
            break
    if items is None:
        raise RuntimeError("could not lay out the table in view")
    frame = _table_background(rng)
    boards = []
    pen_truth: dict[str, object] | None = None
    for k, ((city, seat), item) in enumerate(zip(zip(spec.cities, spec.seat_list, strict=True), items, strict=False)):
        # Drawn cell by cell, a board's drawings take nothing from the scene's random stream.
        board_rng, cell_seed = (np.random.default_rng([spec.seed, k]), spec.seed * 16 + k) if spec.drawn_cell_by_cell \
            else (rng, None)
        # Stuck once: every frame of the table shows its stickers where they are (a stream of their own).
        stickers = stickers_by_hand(np.random.default_rng([spec.seed, k, 1]), spec.sticker_error_mm, CELL_MM) \
            if spec.sticker_error_mm > 0 else None
        image = render_board(list(city), board_rng, cell_px=_BOARD_CELL_PX, seat=seat, language=spec.language,
                             hand=spec.hands[k] if spec.hands is not None else None, cell_seed=cell_seed,
                             stickers=stickers).image
        px = image.shape[1] / BOARD_MM
        to_frame = camera.table_to_frame @ item.item_to_table(px)
        _drop_shadow(frame, to_frame, image.shape[1], image.shape[0], rng)
        _warp_into(frame, image, to_frame)
        corners = cv2.perspectiveTransform(
            np.array([[[0, 0], [image.shape[1], 0], [image.shape[1], image.shape[0]], [0, image.shape[0]]]], np.float64), to_frame
        )[0]
        boards.append(BoardReading(seat=seat, city=tuple(city), confidence=tuple((1.0,) * 7 for _ in range(7)),
                                   corners=tuple((float(x), float(y)) for x, y in corners)))
        if spec.pen_on == k:
            board_mm_to_frame = to_frame @ np.diag([px, px, 1.0])
            pen = _lay_pen(frame, board_mm_to_frame, np.random.default_rng([spec.seed, k, 7]))
            pen_truth = {"seat": seat, "cells": pen_cells(pen), "outline": cv2.perspectiveTransform(
                _pen_item(pen).corners_mm().astype(np.float64)[None], board_mm_to_frame)[0].tolist()}
    tray_item, track_item = items[len(spec.cities)], items[len(spec.cities) + 1]
    # Where the top of a die appears relative to its base, in tray coordinates: away from the nadir.
    away = np.array(tray_item.centre_mm) - np.array(camera.nadir_mm)
    a = math.radians(tray_item.angle_deg)
    away_tray = np.array([math.cos(a) * away[0] + math.sin(a) * away[1], -math.sin(a) * away[0] + math.cos(a) * away[1]])
    lean = tuple(float(v) for v in away_tray * spec.tray.die_mm / camera.height_mm)
    tray_rng = np.random.default_rng(spec.seed + 1)
    tray_image, tray_alpha, dice = render_tray_over(list(spec.dice), tray_rng, _TRAY_PX_PER_MM, TRAY_SURROUND_MM,
                                                    touching=spec.touching_dice, lean_mm=lean, look=spec.tray)
    to_frame = camera.table_to_frame @ tray_item.item_to_table(_TRAY_PX_PER_MM)
    _drop_shadow(frame, to_frame, round(spec.tray.width_mm * _TRAY_PX_PER_MM), round(spec.tray.height_mm * _TRAY_PX_PER_MM),
                 rng)
    _warp_into(frame, tray_image, to_frame @ tray_over_to_floor(_TRAY_PX_PER_MM), tray_alpha)
    track_stickers = track_stickers_by_hand(np.random.default_rng([spec.seed, 99]), spec.sticker_error_mm) \
        if spec.sticker_error_mm > 0 else None
    track_image = render_track_on_board(len(spec.cities) if 2 <= len(spec.cities) <= 5 else 4, spec.pirate_boxes, rng,
                                        _TRACK_PX_PER_MM, track_stickers)
    to_frame = camera.table_to_frame @ track_item.item_to_table(_TRACK_PX_PER_MM)
    _warp_into(frame, track_image, to_frame)
    gain, lighting = _lighting(rng)
    lit = frame  # lit in place: a frame less at the peak
    lit *= gain[:, :, None]
    lit += lighting["glare_map"][:, :, None]  # type: ignore[index]
    truth = Observation(
        boards=tuple(boards),
        dice=tuple(DieReading(d.face, 1.0, d.top_mm) for d in dice),
        pirate_boxes=spec.pirate_boxes,
        extra={"tilt_deg": None, "lighting": {k: v for k, v in lighting.items() if k != "glare_map"},
               **({"pen": pen_truth} if pen_truth is not None else {})},
    )
    return _Scene(np.clip(lit, 0, 255, out=lit).astype(np.uint8), truth, camera, items, tray_image, tray_alpha, lean, gain,
                  lighting)


def _drop_shadow(frame: np.ndarray, to_frame: np.ndarray, w: int, h: int, rng: np.random.Generator) -> None:
    corners = cv2.perspectiveTransform(np.array([[[0, 0], [w, 0], [w, h], [0, h]]], np.float64), to_frame)[0]
    offset = rng.uniform(2, 6, 2)
    x0, y0 = np.floor(corners.min(axis=0) - 20).astype(int)
    x1, y1 = np.ceil(corners.max(axis=0) + 20).astype(int)
    x0, y0 = max(x0, 0), max(y0, 0)
    x1, y1 = min(x1, frame.shape[1]), min(y1, frame.shape[0])
    if x1 <= x0 or y1 <= y0:
        return
    mask = np.zeros((y1 - y0, x1 - x0), np.float32)
    cv2.fillConvexPoly(mask, np.round(corners + offset - [x0, y0]).astype(np.int32), 1.0)
    mask = cv2.GaussianBlur(mask, (0, 0), 4)
    frame[y0:y1, x0:x1] *= (1 - 0.35 * mask)[:, :, None]


def _lay_pen(frame: np.ndarray, board_mm_to_frame: np.ndarray, rng: np.random.Generator) -> PenLook:
    """A marker laid on the board whose millimetres ``board_mm_to_frame`` maps into ``frame``, with its shadow."""
    look = PenLook.random(rng, BOARD_MM)
    px_per_mm = 2.5  # about the board picture's own scale: drawn finer, its outline aliases in the warp
    image, alpha = render_pen(look, px_per_mm, rng)
    to_frame = board_mm_to_frame @ _pen_item(look).item_to_table(px_per_mm)
    _drop_shadow(frame, to_frame, image.shape[1], image.shape[0], rng)
    _warp_into(frame, image, to_frame, alpha)
    return look


def _pen_item(pen: PenLook) -> _Item:
    """The pen as an item lying on its board: the band it covers, in the board's millimetres."""
    return _Item("pen", pen.length_mm, pen.width_mm, pen.centre_mm, pen.angle_deg)


def pen_cells(pen: PenLook, share: float = 0.1) -> tuple[str, ...]:
    """The board's cells (names) of which the pen covers more than ``share``."""
    from companion.layout import ALL_CELLS, SIZE

    px_per_mm = 4.0  # for measuring the covered share
    side = round(BOARD_MM * px_per_mm)
    mask = np.zeros((side, side), np.uint8)
    cv2.fillConvexPoly(mask, np.round(_pen_item(pen).corners_mm() * px_per_mm).astype(np.int32), 1)
    cell = side / SIZE
    covered = []
    for i, name in enumerate(ALL_CELLS):
        row, col = divmod(i, SIZE)
        if mask[round(row * cell):round((row + 1) * cell), round(col * cell):round((col + 1) * cell)].mean() > share:
            covered.append(name)
    return tuple(covered)


def _draw_hand(frame: np.ndarray, target: tuple[float, float], rng: np.random.Generator) -> None:
    """An arm from the nearest frame edge ending in a hand (palm and fingers) over ``target``."""
    w, h = FRAME_SIZE
    tx, ty = target
    edges = [(tx, -60.0), (tx, h + 60.0), (-60.0, ty), (w + 60.0, ty)]
    start = min(edges, key=lambda p: math.hypot(p[0] - tx, p[1] - ty))
    start = (start[0] + rng.uniform(-150, 150), start[1] + rng.uniform(-150, 150))
    tx, ty = tx + rng.uniform(-60, 60), ty + rng.uniform(-60, 60)
    colour = np.array(SKIN_TONES[int(rng.integers(len(SKIN_TONES)))], np.float32) * rng.uniform(0.85, 1.1)
    mask = np.zeros((h, w), np.uint8)
    scale = rng.uniform(0.9, 1.15)
    cv2.line(mask, (int(start[0]), int(start[1])), (int(tx), int(ty)), 255, int(95 * scale))
    direction = math.atan2(ty - start[1], tx - start[0])
    cv2.ellipse(mask, (int(tx), int(ty)), (int(75 * scale), int(65 * scale)), math.degrees(direction), 0, 360, 255, -1)
    for k in range(4):
        spread = math.radians(-30 + 20 * k + rng.uniform(-6, 6))
        length = (95 + rng.uniform(-15, 20)) * scale
        fx = tx + math.cos(direction + spread) * (60 * scale + length)
        fy = ty + math.sin(direction + spread) * (60 * scale + length)
        cv2.line(mask, (int(tx), int(ty)), (int(fx), int(fy)), 255, int(24 * scale))
    thumb = direction + math.radians(rng.choice([-75, 75]))
    cv2.line(mask, (int(tx), int(ty)), (int(tx + math.cos(thumb) * 110 * scale), int(ty + math.sin(thumb) * 110 * scale)), 255,
             int(28 * scale))
    # Only the hand's surroundings are touched (keeps a frame cheap to make).
    ys, xs = np.nonzero(mask[::4, ::4])
    if len(xs) == 0:
        return
    pad = 70
    x0, x1 = max(0, xs.min() * 4 - pad), min(w, xs.max() * 4 + pad)
    y0, y1 = max(0, ys.min() * 4 - pad), min(h, ys.max() * 4 + pad)
    roi_mask = mask[y0:y1, x0:x1]
    soft = cv2.GaussianBlur(roi_mask, (0, 0), 2.5).astype(np.float32)[:, :, None] / 255
    shifted = np.zeros_like(roi_mask)
    shifted[25:, 30:] = roi_mask[:-25, :-30]
    shadow = cv2.GaussianBlur(shifted, (0, 0), 12).astype(np.float32)[:, :, None] / 255
    region = frame[y0:y1, x0:x1]
    region *= 1 - 0.45 * shadow
    rh, rw = region.shape[:2]
    shade = cv2.GaussianBlur(rng.normal(1.0, 0.08, (rh // 16 + 1, rw // 16 + 1)).astype(np.float32), (0, 0), 2)
    shade = cv2.resize(shade, (rw, rh))[:, :, None]
    region[:] = region * (1 - soft) + colour * shade * soft


def _motion_blur(frame: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    length = int(rng.integers(9, 25)) | 1
    kernel = np.zeros((length, length), np.float32)
    kernel[length // 2, :] = 1.0 / length
    rot = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5), float(rng.uniform(0, 180)), 1.0)
    kernel = cv2.warpAffine(kernel, rot, (length, length))
    # Blurred at half size (the streak hides the lost detail anyway): a long kernel is costly at full size.
    h, w = frame.shape[:2]
    half = cv2.resize(frame, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
    half_kernel = cv2.resize(kernel, (length // 2 | 1, length // 2 | 1), interpolation=cv2.INTER_AREA)
    streaked = cv2.filter2D(half, -1, half_kernel / max(float(half_kernel.sum()), 1e-6))
    return cv2.resize(streaked, (w, h), interpolation=cv2.INTER_LINEAR)


def render_table(spec: TableSpec, rng: np.random.Generator) -> tuple[np.ndarray, Observation]:
    """A 1920x1080 BGR camera frame of the table and what a perfect reader would report for it.

    The truth is the table at rest: a hand, a blur or a die in the air (``spec`` options) do not change
    it; ``truth.extra`` says which of them are in the frame.
    """
    scene = _scene(spec.still())
    disturbed = spec.rolling_die or spec.hand or spec.motion_blur
    frame = scene.frame.astype(np.float32) if disturbed else scene.frame
    if spec.rolling_die:
        tray_item = next(i for i in scene.items if i.kind == "tray")
        canvas = scene.tray_canvas.astype(np.float32) / 255.0
        look = spec.tray
        centre = (float(rng.uniform(30, look.width_mm - 30)), float(rng.uniform(30, look.height_mm - 30)))
        face = DIE_FACES[int(rng.integers(len(DIE_FACES)))]
        airborne = PlacedDie(face, (centre[0] + TRAY_SURROUND_MM, centre[1] + TRAY_SURROUND_MM), float(rng.uniform(0, 90)))
        draw_die(canvas, airborne, _TRAY_PX_PER_MM, rng, lean_mm=(scene.lean_mm[0] * 4, scene.lean_mm[1] * 4), rolling=True,
                 die_mm=look.die_mm)
        tray_image = np.clip(canvas * 255, 0, 255).astype(np.uint8)
        to_frame = scene.camera.table_to_frame @ tray_item.item_to_table(_TRAY_PX_PER_MM) @ tray_over_to_floor(_TRAY_PX_PER_MM)
        th, tw = tray_image.shape[:2]
        outline = cv2.perspectiveTransform(np.array([[[0, 0], [tw, 0], [tw, th], [0, th]]], np.float64), to_frame)[0]
        x0, y0 = np.maximum(np.floor(outline.min(axis=0)).astype(int) - 2, 0)
        x1, y1 = np.minimum(np.ceil(outline.max(axis=0)).astype(int) + 2, FRAME_SIZE)
        region = frame[y0:y1, x0:x1]
        redrawn = region.copy()
        shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64) @ to_frame
        _warp_into(redrawn, tray_image, shift, scene.tray_alpha)
        # Relight only the tray (the cached frame is lit already).
        changed = np.any(np.abs(redrawn - region) > 0.5, axis=2)
        region[changed] = (redrawn * scene.light_gain[y0:y1, x0:x1, None])[changed]
    if spec.hand:
        targets = [i for i in scene.items if i.kind in ("board", "tray")]
        item = targets[int(rng.integers(len(targets)))]
        centre = cv2.perspectiveTransform(np.array([[item.centre_mm]], np.float64), scene.camera.table_to_frame)[0, 0]
        _draw_hand(frame, (float(centre[0]), float(centre[1])), rng)
    if disturbed:
        frame = np.clip(frame, 0, 255).astype(np.uint8)
    if spec.motion_blur:
        frame = _motion_blur(frame, rng)
    truth = scene.truth
    if spec.lens_barrel:
        frame = cv2.remap(frame, *_lens_maps(spec.lens_barrel), cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        truth = dataclasses.replace(truth, boards=tuple(
            dataclasses.replace(b, corners=tuple(map(tuple, lens_bent_points(np.array(b.corners, np.float64),
                                                                              spec.lens_barrel).tolist())))
            for b in truth.boards))
    # Sensor noise, drawn fast in 16-bit integers (OpenCV's generator, seeded from ``rng``).
    noise = np.empty(frame.shape, np.int16)
    cv2.setRNGSeed(int(rng.integers(0, 2**31)))
    cv2.randn(noise, 0, float(rng.uniform(1.5, 4.0)))
    noise += frame  # summed and clipped in place
    out = np.clip(noise, 0, 255, out=noise).astype(np.uint8)
    extra = dict(truth.extra)
    extra.update({"hand": spec.hand, "motion_blur": spec.motion_blur, "rolling_die": spec.rolling_die})
    return out, dataclasses.replace(truth, extra=extra)


def _lens_k(barrel: float) -> float:
    """The radial term k of ``r_pinhole = r_bent * (1 + k * r_bent**2)`` (radii over the frame's half diagonal)
    that puts the pinhole frame's corner (r_pinhole = 1) at r_bent = 1 - ``barrel``."""
    return barrel / (1.0 - barrel) ** 3


def _lens_middle() -> tuple[float, float, float]:
    """(x, y, half diagonal) of the frame's middle, in pixels: where a lens bends about, and its radii's unit."""
    w, h = FRAME_SIZE
    cx, cy = (w - 1) / 2, (h - 1) / 2
    return cx, cy, math.hypot(cx, cy)


@functools.lru_cache(maxsize=4)
def _lens_maps(barrel: float) -> tuple[np.ndarray, np.ndarray]:
    """cv2.remap's maps of the bent frame: where in the pinhole frame each of its pixels looks. Beyond the
    pinhole frame (the corners, which a bent lens sees more of) the frame's edge is repeated."""
    w, h = FRAME_SIZE
    cx, cy, half_diagonal = _lens_middle()
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    dx, dy = (xs - cx) / half_diagonal, (ys - cy) / half_diagonal
    stretch = 1.0 + _lens_k(barrel) * (dx * dx + dy * dy)
    return (cx + dx * stretch * half_diagonal).astype(np.float32), (cy + dy * stretch * half_diagonal).astype(np.float32)


def lens_bent_points(points: np.ndarray, barrel: float) -> np.ndarray:
    """Where a lens of ``barrel`` (``TableSpec.lens_barrel``) puts points (n, 2) of the pinhole frame: the
    inverse of ``_lens_maps``' radial stretch, by Newton's method on each radius."""
    cx, cy, half_diagonal = _lens_middle()
    centre = np.array([cx, cy])
    k = _lens_k(barrel)
    offset = (np.asarray(points, np.float64) - centre) / half_diagonal
    pinhole = np.linalg.norm(offset, axis=-1, keepdims=True)
    bent = pinhole.copy()
    for _ in range(8):  # r + k r^3 = pinhole, monotonic in r: a few steps converge to far below a pixel
        bent -= (bent + k * bent**3 - pinhole) / (1.0 + 3.0 * k * bent**2)
    scale = np.divide(bent, pinhole, out=np.ones_like(pinhole), where=pinhole > 0)
    return centre + offset * scale * half_diagonal


def cut_across(frame: np.ndarray, xs: np.ndarray, share: float) -> tuple[np.ndarray, int]:
    """A frame that shows only part of a plane whose markers lie at ``xs`` (frame columns): cut upright at ``share`` of
    the way from the leftmost marker to the rightmost, the side holding two or more of them kept (a camera that sees a
    narrower table, or the plane pushed past its edge). (the part kept, its first column in ``frame``)."""
    xs = np.asarray(xs, np.float64)
    cut = int(xs.min() + share * np.ptp(xs))
    if (xs < cut).sum() >= 2:
        return np.ascontiguousarray(frame[:, :cut]), 0
    return np.ascontiguousarray(frame[:, cut:]), cut
