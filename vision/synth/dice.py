"""Synthetic dice: the reference die faces rendered rotated, lit, blurred, on white cubes with shadows.

The face pictures are read from ``/work/shared/reference-art`` (``../shared`` next to the repository,
or ``$COMPANION_REFERENCE_ART``, see ``vision.synth.art``) at generation time only; without them a drawn look-alike is used.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.board.dataset import processed_by_camera
from vision.dice.geometry import DIE_MM, STICKER_MM, TRAY_H_MM, TRAY_W_MM, tray_layout
from vision.marker_plane import marker_image
from vision.observation import DIE_FACES
from vision.synth.art import DIE_ART, reference_art_dir

ART_SIZE = 172


def _drawn_face(face: str) -> np.ndarray:
    """A look-alike face (BGRA) for when the reference art is absent."""
    s = ART_SIZE
    img = np.zeros((s, s, 4), np.uint8)
    cv2.rectangle(img, (6, 6), (s - 7, s - 7), (235, 235, 235, 255), -1)
    cv2.circle(img, (s // 2, s // 2), 70, (215, 215, 215, 255), -1)
    c = s // 2
    if face == "log":
        box = cv2.boxPoints(((c, c), (110, 20), -15)).astype(np.int32)
        cv2.fillPoly(img, [box], (30, 55, 95, 255))
    elif face == "crate":
        box = cv2.boxPoints(((c, c), (90, 55), -15)).astype(np.int32)
        cv2.fillPoly(img, [box], (35, 105, 205, 255))
    elif face == "wall":
        for row in range(5):
            off = 0 if row % 2 == 0 else 10
            for col in range(5):
                x = 40 + off + col * 20
                y = 45 + row * 17
                cv2.rectangle(img, (x, y), (x + 16, y + 13), (110, 110, 110, 255), -1)
    elif face == "cross":
        cv2.rectangle(img, (c - 6, 35), (c + 6, 140), (140, 50, 120, 255), -1)
        cv2.rectangle(img, (45, 60), (127, 72), (140, 50, 120, 255), -1)
    elif face == "head":
        cv2.ellipse(img, (c, c - 5), (35, 45), 0, 0, 360, (60, 130, 40, 255), -1)
        cv2.rectangle(img, (c - 15, c + 30), (c + 15, c + 55), (60, 130, 40, 255), -1)
    elif face == "swords":
        cv2.line(img, (50, 40), (125, 135), (15, 15, 15, 255), 10)
        cv2.line(img, (122, 40), (47, 135), (15, 15, 15, 255), 10)
    return img


@functools.cache
def face_art(face: str) -> np.ndarray:
    """The die face picture, BGRA, about 172 x 171, symbol centred."""
    if face not in DIE_FACES:
        raise ValueError(f"unknown die face {face!r}")
    path = reference_art_dir() / DIE_ART.format(face=face)
    img = cv2.imread(str(path), cv2.IMREAD_UNCHANGED) if path.is_file() else None
    if img is None or img.ndim != 3 or img.shape[2] != 4:
        return _drawn_face(face)
    return img


def _rounded_square_mask(size: int, radius: float) -> np.ndarray:
    mask = np.zeros((size, size), np.uint8)
    r = max(1, int(radius))
    cv2.rectangle(mask, (r, 0), (size - 1 - r, size - 1), 255, -1)
    cv2.rectangle(mask, (0, r), (size - 1, size - 1 - r), 255, -1)
    for cx, cy in ((r, r), (size - 1 - r, r), (r, size - 1 - r), (size - 1 - r, size - 1 - r)):
        cv2.circle(mask, (cx, cy), r, 255, -1)
    return mask


def top_face_patch(face: str, size_px: float, angle_deg: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The die's top face, rotated by ``angle_deg``: (BGR float32 0..1, alpha float32 0..1), square patch.

    The art's flat grey disc is replaced by a white face with a soft gradient; the symbol is kept.
    """
    art = face_art(face).astype(np.float32) / 255.0
    bgr = art[:, :, :3]
    h, w = bgr.shape[:2]
    # Symbol pixels: coloured or clearly darker than the grey-white face.
    spread = bgr.max(axis=2) - bgr.min(axis=2)
    symbol = ((spread > 0.12) | (bgr.mean(axis=2) < 0.62)) & (art[:, :, 3] > 0.5)
    base = np.full_like(bgr, 1.0)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    gx, gy = rng.uniform(-1, 1, 2)
    gradient = 1.0 - rng.uniform(0.0, 0.08) * ((xx / w - 0.5) * gx + (yy / h - 0.5) * gy + 0.5)
    base *= gradient[:, :, None]
    face_img = np.where(symbol[:, :, None], bgr, base)
    face_img = cv2.resize(face_img, (ART_SIZE, ART_SIZE), interpolation=cv2.INTER_AREA)
    # Symbol colours vary a little between dice sets and inks.
    tint = rng.uniform(0.9, 1.1, 3).astype(np.float32)
    sym = cv2.resize(symbol.astype(np.float32), (ART_SIZE, ART_SIZE)) > 0.5
    face_img[sym] = np.clip(face_img[sym] * tint, 0, 1)
    alpha = _rounded_square_mask(ART_SIZE, ART_SIZE * rng.uniform(0.08, 0.16)).astype(np.float32) / 255.0
    # Rotate about the centre onto a patch large enough for any angle, then scale to size_px.
    pad = int(ART_SIZE * 0.75)
    big = np.zeros((ART_SIZE + 2 * pad, ART_SIZE + 2 * pad, 4), np.float32)
    big[pad:pad + ART_SIZE, pad:pad + ART_SIZE, :3] = face_img
    big[pad:pad + ART_SIZE, pad:pad + ART_SIZE, 3] = alpha
    centre = (big.shape[1] / 2, big.shape[0] / 2)
    scale = size_px / ART_SIZE
    out_size = max(3, int(math.ceil(big.shape[0] * scale)))
    matrix = cv2.getRotationMatrix2D(centre, angle_deg, scale)
    matrix[:, 2] += out_size / 2 - np.array(centre)
    patch = cv2.warpAffine(big, matrix, (out_size, out_size), flags=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
    return patch[:, :, :3], patch[:, :, 3]


def _paste(canvas: np.ndarray, patch: np.ndarray, alpha: np.ndarray, centre: tuple[float, float]) -> None:
    """Alpha-blend a float patch (0..1) centred at ``centre`` onto a float canvas, clipped to its edges."""
    ph, pw = alpha.shape
    x0 = int(round(centre[0] - pw / 2))
    y0 = int(round(centre[1] - ph / 2))
    cx0, cy0 = max(x0, 0), max(y0, 0)
    cx1, cy1 = min(x0 + pw, canvas.shape[1]), min(y0 + ph, canvas.shape[0])
    if cx1 <= cx0 or cy1 <= cy0:
        return
    sub_a = alpha[cy0 - y0:cy1 - y0, cx0 - x0:cx1 - x0, None]
    sub_p = patch[cy0 - y0:cy1 - y0, cx0 - x0:cx1 - x0]
    region = canvas[cy0:cy1, cx0:cx1]
    region[:] = region * (1 - sub_a) + sub_p * sub_a


def _square(centre: tuple[float, float], side: float, angle_deg: float) -> np.ndarray:
    return cv2.boxPoints(((float(centre[0]), float(centre[1])), (side, side), angle_deg)).astype(np.float32)


@dataclass(frozen=True)
class PlacedDie:
    face: str
    centre_mm: tuple[float, float]  # centre of the die's base on the tray floor
    angle_deg: float
    lean_mm: tuple[float, float] = (0.0, 0.0)  # where the top face shows, relative to the base

    @property
    def top_mm(self) -> tuple[float, float]:
        return (self.centre_mm[0] + self.lean_mm[0], self.centre_mm[1] + self.lean_mm[1])


def draw_die(
    canvas: np.ndarray,
    die: PlacedDie,
    px_per_mm: float,
    rng: np.random.Generator,
    lean_mm: tuple[float, float] = (0.0, 0.0),
    light: float = 1.0,
    rolling: bool = False,
    tops_later: list[tuple[np.ndarray, np.ndarray, tuple[float, float]]] | None = None,
    die_mm: float = DIE_MM,
) -> None:
    """Draw one die on a float BGR canvas (0..1) of a top-down plane view.

    ``lean_mm`` is where the top face appears relative to the base once projected onto the floor (the
    camera is not straight above): the cube's white sides fill the gap between base and top.
    With ``tops_later`` the top face is not pasted but appended there (patch, alpha, centre), for the
    caller to paste once every die's shadow and sides are drawn.
    """
    side = die_mm * px_per_mm
    base_c = (die.centre_mm[0] * px_per_mm, die.centre_mm[1] * px_per_mm)
    if rolling:
        # Mid-air: nearer the camera (bigger), tilted (two faces showing), shadow far below.
        side *= rng.uniform(1.15, 1.4)
    top_c = (base_c[0] + lean_mm[0] * px_per_mm, base_c[1] + lean_mm[1] * px_per_mm)
    # Soft shadow on the floor.
    shadow = np.zeros(canvas.shape[:2], np.float32)
    sd = rng.uniform(0.05, 0.25, 2) * side
    shadow_pts = _square((base_c[0] + sd[0], base_c[1] + sd[1]), side * 1.05, die.angle_deg)
    x, y, w, h = cv2.boundingRect(shadow_pts.astype(np.int32))
    pad = int(side)
    y0, y1 = max(0, y - pad), min(canvas.shape[0], y + h + pad)
    x0, x1 = max(0, x - pad), min(canvas.shape[1], x + w + pad)
    if y1 > y0 and x1 > x0:
        cv2.fillConvexPoly(shadow, shadow_pts.astype(np.int32), 1.0)
        k = int(side * 0.4) | 1
        sub = cv2.GaussianBlur(shadow[y0:y1, x0:x1], (k, k), 0)
        canvas[y0:y1, x0:x1] *= (1 - rng.uniform(0.3, 0.55) * sub)[:, :, None]
    # The visible sides: hull of the base and top squares, white in shade.
    base_sq = _square(base_c, side * 0.97, die.angle_deg)
    top_sq = _square(top_c, side, die.angle_deg)
    hull = cv2.convexHull(np.concatenate([base_sq, top_sq]).astype(np.float32))
    side_shade = rng.uniform(0.68, 0.9) * light
    side_colour = tuple(float(v) for v in np.clip(side_shade * rng.uniform(0.96, 1.04, 3), 0, 1))
    cv2.fillConvexPoly(canvas, np.round(hull * 16).astype(np.int32), side_colour, lineType=cv2.LINE_AA, shift=4)
    # cv2.boxPoints turns the body clockwise on the picture, getRotationMatrix2D the face anticlockwise:
    # the face is turned by minus the angle to lie square on its body (a real die's top does).
    patch, alpha = top_face_patch(die.face, side, -die.angle_deg, rng)
    patch = np.clip(patch * light, 0, 1)
    if tops_later is not None:
        tops_later.append((patch, alpha, top_c))
    else:
        _paste(canvas, patch, alpha, top_c)
    if rolling:
        # A die in the air blurs along its path.
        length = int(side * rng.uniform(0.6, 1.5)) | 1
        kernel = np.zeros((length, length), np.float32)
        kernel[length // 2, :] = 1.0 / length
        rot = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5), rng.uniform(0, 180), 1.0)
        kernel = cv2.warpAffine(kernel, rot, (length, length))
        kernel /= max(kernel.sum(), 1e-6)
        r = int(side * 1.6)
        ya, yb = max(0, int(top_c[1]) - r), min(canvas.shape[0], int(top_c[1]) + r)
        xa, xb = max(0, int(top_c[0]) - r), min(canvas.shape[1], int(top_c[0]) + r)
        if yb > ya and xb > xa:
            canvas[ya:yb, xa:xb] = cv2.filter2D(canvas[ya:yb, xa:xb], -1, kernel)


def place_dice(
    faces: list[str], rng: np.random.Generator, touching: bool = False, max_tries: int = 400,
    look: TrayLook | None = None,
) -> list[PlacedDie]:
    """Random resting places for the dice on the tray floor, off the marker stickers.

    With ``touching``, one or two pairs of dice are pushed against each other (edge to edge or corner on).
    """
    # A die with no room left (its partner boxed in by the rim and the others) restarts the throw;
    # throws that fit the first time draw exactly as before.
    for _ in range(50):
        placed = _try_place_dice(faces, rng, touching, max_tries, look or TrayLook())
        if placed is not None:
            return placed
    raise RuntimeError("could not place the dice on the tray")


def _try_place_dice(
    faces: list[str], rng: np.random.Generator, touching: bool, max_tries: int, look: TrayLook
) -> list[PlacedDie] | None:
    side, tray_w, tray_h = look.die_mm, look.width_mm, look.height_mm
    margin = side * 0.8
    placed: list[PlacedDie] = []
    for face in faces:
        for _ in range(max_tries):
            angle = float(rng.uniform(0, 90))
            if touching and placed and len(placed) % 2 == 1:
                # Put this side against the previous one.
                prev = placed[-1]
                direction = rng.uniform(0, 2 * math.pi)
                dist = side * rng.uniform(1.0, 1.12)
                cx = prev.centre_mm[0] + dist * math.cos(direction)
                cy = prev.centre_mm[1] + dist * math.sin(direction)
                if rng.random() < 0.5:
                    angle = prev.angle_deg + float(rng.uniform(-6, 6))
                    # Flush edge to edge: step along one of the previous side's axes.
                    axis = math.radians(prev.angle_deg + 90 * int(rng.integers(0, 4)))
                    cx = prev.centre_mm[0] + side * 1.02 * math.cos(axis)
                    cy = prev.centre_mm[1] + side * 1.02 * math.sin(axis)
                    cx += rng.uniform(-4, 4) * -math.sin(axis)
                    cy += rng.uniform(-4, 4) * math.cos(axis)
            else:
                cx = float(rng.uniform(margin, tray_w - margin))
                cy = float(rng.uniform(margin, tray_h - margin))
            if not (margin <= cx <= tray_w - margin and margin <= cy <= tray_h - margin):
                continue
            # Dice on the corner stickers are not read (see vision.dice.reader): keep them off.
            clear = side * 1.05
            near_corner_x = cx < STICKER_MM + clear or cx > tray_w - STICKER_MM - clear
            near_corner_y = cy < STICKER_MM + clear or cy > tray_h - STICKER_MM - clear
            if near_corner_x and near_corner_y:
                continue
            square = _square((cx, cy), side * 1.01, angle)
            # Dice never overlap; without ``touching`` they keep a little apart too.
            grow = 1.0 if touching else 1.35
            if any(
                cv2.intersectConvexConvex(_square(d.centre_mm, side * grow, d.angle_deg), square)[0] > 0.5
                for d in placed
            ):
                continue
            placed.append(PlacedDie(face, (cx, cy), angle))
            break
        else:
            return None
    return placed


FLOOR_COLOURS: tuple[tuple[float, float, float], ...] = (
    (0.18, 0.32, 0.12),  # green felt (BGR)
    (0.35, 0.18, 0.10),  # blue felt
    (0.12, 0.12, 0.40),  # red felt
    (0.12, 0.12, 0.12),  # black
    (0.16, 0.28, 0.40),  # wood
)

# Plain tray floors by name (BGR, 0..1, before the light): the table's own tray may be any of them
# (table-kit.md: a plain floor, light or dark). The dice are white, the stickers 0.95.
FLOORS: dict[str, tuple[float, float, float]] = {
    "green felt": FLOOR_COLOURS[0],
    "blue felt": FLOOR_COLOURS[1],
    "red felt": FLOOR_COLOURS[2],
    "black": FLOOR_COLOURS[3],
    "wood": FLOOR_COLOURS[4],
    "light grey": (0.70, 0.70, 0.69),
    "pale grey": (0.80, 0.80, 0.79),
    "mid grey": (0.55, 0.55, 0.55),
    "dark grey": (0.28, 0.28, 0.28),
    "beige": (0.66, 0.80, 0.86),
    "cream": (0.74, 0.88, 0.92),
    "light wood": (0.42, 0.60, 0.74),
    "dark green felt": (0.10, 0.20, 0.06),
    "navy": (0.30, 0.12, 0.06),
    "light blue": (0.85, 0.70, 0.52),
    "yellow": (0.20, 0.75, 0.85),
    "orange": (0.10, 0.45, 0.85),
    "pink": (0.72, 0.62, 0.88),
    "purple": (0.45, 0.18, 0.35),
    "teal": (0.45, 0.45, 0.10),
    "brown": (0.12, 0.20, 0.30),
    # Not a floor to roll on (hardware.md §1: as light as the dice), nor trained on: the one the table is warned of.
    "white paper": (0.92, 0.92, 0.91),
}


@dataclass(frozen=True)
class TrayLook:
    """The table's own tray and dice: the floor (a ``FLOORS`` name; None draws one of ``FLOOR_COLOURS`` as
    the generator always did), the floor's size and the dice's side, in millimetres."""

    floor: str | None = None
    width_mm: float = TRAY_W_MM
    height_mm: float = TRAY_H_MM
    die_mm: float = DIE_MM

    def __post_init__(self) -> None:
        if self.floor is not None and self.floor not in FLOORS:
            raise ValueError(f"unknown tray floor {self.floor!r}; one of: {', '.join(FLOORS)}")


def floor_colour(look: TrayLook, rng: np.random.Generator) -> np.ndarray:
    """The floor's BGR (0..1): a named floor varies a little (dye lot, lamp), the drawn ones as before."""
    if look.floor is None:
        floor = np.array(FLOOR_COLOURS[int(rng.integers(len(FLOOR_COLOURS)))], np.float32)
        return np.clip(floor * rng.uniform(0.8, 1.25, 3), 0, 1)
    floor = np.array(FLOORS[look.floor], np.float32)
    return np.clip(floor * rng.uniform(0.95, 1.05, 3) * rng.uniform(0.95, 1.05), 0, 1).astype(np.float32)


def render_tray(
    faces: list[str],
    rng: np.random.Generator,
    px_per_mm: float = 4.0,
    *,
    touching: bool = False,
    lean_mm: tuple[float, float] | None = None,
    rolling: int = 0,
    light: float | None = None,
    look: TrayLook | None = None,
) -> tuple[np.ndarray, list[PlacedDie]]:
    """A top-down picture of the tray floor with its markers and the dice at rest.

    Returns (BGR uint8 image of the floor (``look``: 240 x 160 mm unless told) at ``px_per_mm``, the dice
    placed). ``rolling`` extra dice are drawn mid-air (not in the returned list: they are not lying in the
    tray).
    """
    canvas, dice = _paint_tray(faces, rng, px_per_mm, touching, lean_mm, rolling, light, 0.0, 0.0, look or TrayLook())
    return np.clip(canvas * 255, 0, 255).astype(np.uint8), dice


# Synthetic trays are drawn this far beyond their floor (``render_tray_over``): under a camera 60-90 cm up a
# die by the wall near the frame's edge leans out by up to 20 mm, its top's far edge up to 15 mm beyond.
TRAY_SURROUND_MM = 20.0


def render_tray_over(
    faces: list[str],
    rng: np.random.Generator,
    px_per_mm: float,
    surround_mm: float,
    *,
    touching: bool = False,
    lean_mm: tuple[float, float] | None = None,
    light: float | None = None,
    look: TrayLook | None = None,
) -> tuple[np.ndarray, np.ndarray, list[PlacedDie]]:
    """``render_tray`` with ``surround_mm`` more on every side, where a die by the wall, leaning out as
    the camera sees it, shows its top over the wall: (BGR uint8, alpha uint8 (the floor, and what the
    dice and their shadows cover beyond it), the dice placed (floor millimetres)). The same picture of
    the floor as ``render_tray`` from the same ``rng``, which it leaves as ``render_tray`` would.

    Painted twice, over black and over white, from the same random state: where the two differ is
    what shows through beyond the floor, which gives the alpha (soft edges and shadows included).
    """
    look = look or TrayLook()
    state = rng.bit_generator.state
    over_black, dice = _paint_tray(faces, rng, px_per_mm, touching, lean_mm, 0, light, surround_mm, 0.0, look)
    rng.bit_generator.state = state
    over_white, _ = _paint_tray(faces, rng, px_per_mm, touching, lean_mm, 0, light, surround_mm, 1.0, look)
    # In place, canvas by canvas: the same numbers, two canvases less at the peak (the demo renders on the Pi).
    over_white -= over_black
    alpha = np.clip(1.0 - over_white.mean(axis=2), 0.0, 1.0)
    del over_white
    colour = over_black
    colour /= np.maximum(alpha, 1e-3)[:, :, None]
    colour *= 255
    return (np.clip(colour, 0, 255, out=colour).astype(np.uint8), np.round(alpha * 255).astype(np.uint8), dice)


def tray_over_to_floor(px_per_mm: float) -> np.ndarray:
    """Homography: pixels of a ``render_tray_over`` picture at ``px_per_mm`` -> pixels of the floor's own."""
    margin = round(TRAY_SURROUND_MM * px_per_mm)
    return np.array([[1.0, 0.0, -margin], [0.0, 1.0, -margin], [0.0, 0.0, 1.0]])


def _paint_tray(
    faces: list[str],
    rng: np.random.Generator,
    px_per_mm: float,
    touching: bool,
    lean_mm: tuple[float, float] | None,
    rolling: int,
    light: float | None,
    surround_mm: float,
    outside: float,
    look: TrayLook,
) -> tuple[np.ndarray, list[PlacedDie]]:
    """The float canvas (0..1) of ``render_tray``, ``surround_mm`` larger on every side, painted ``outside``
    beyond the floor; the dice placed in floor millimetres."""
    w, h = round(look.width_mm * px_per_mm), round(look.height_mm * px_per_mm)
    m = round(surround_mm * px_per_mm)
    shift = m / px_per_mm  # floor millimetres -> canvas millimetres
    canvas = np.full((h + 2 * m, w + 2 * m, 3), outside, np.float32)
    inner = canvas[m:m + h, m:m + w]
    inner[:] = floor_colour(look, rng)
    lit_floor = look.floor is not None
    # Felt / wood texture.
    noise = rng.normal(0, 0.03, (h // 4 + 1, w // 4 + 1)).astype(np.float32)
    inner *= 1 + cv2.resize(noise, (w, h))[:, :, None]
    layout = tray_layout(look.width_mm, look.height_mm)
    draw_markers(inner, layout.marker_origins, layout.marker_side_mm, px_per_mm, margin_mm=3.5)
    if lean_mm is None:
        lean_mm = tuple(rng.uniform(-0.45, 0.45, 2) * look.die_mm)  # type: ignore[assignment]
    if light is None:
        light = float(rng.uniform(0.85, 1.05))
    if lit_floor:
        # The lamp that lights the dice lights a named floor alike (the drawn floors keep their old look).
        inner *= light
    dice = place_dice(faces, rng, touching=touching, look=look)
    dice = [PlacedDie(d.face, d.centre_mm, d.angle_deg, (float(lean_mm[0]), float(lean_mm[1]))) for d in dice]
    # Resting dice are all as tall, so their top faces are the highest things in the tray: a neighbour's
    # shadow or sides never cover them (the camera sees the tops over the sides of touching dice).
    tops: list[tuple[np.ndarray, np.ndarray, tuple[float, float]]] = []
    for die in dice:
        on_canvas = PlacedDie(die.face, (die.centre_mm[0] + shift, die.centre_mm[1] + shift), die.angle_deg, die.lean_mm)
        draw_die(canvas, on_canvas, px_per_mm, rng, lean_mm=lean_mm, light=light, tops_later=tops, die_mm=look.die_mm)
    for patch, alpha, centre in tops:
        _paste(canvas, patch, alpha, centre)
    for _ in range(rolling):
        face = DIE_FACES[int(rng.integers(len(DIE_FACES)))]
        centre = (float(rng.uniform(20, look.width_mm - 20)) + shift, float(rng.uniform(20, look.height_mm - 20)) + shift)
        airborne = PlacedDie(face, centre, float(rng.uniform(0, 90)))
        draw_die(canvas, airborne, px_per_mm, rng, lean_mm=(lean_mm[0] * 3, lean_mm[1] * 3), light=light, rolling=True,
                 die_mm=look.die_mm)
    return canvas, dice


def draw_markers(
    canvas: np.ndarray,
    origins: dict[int, tuple[float, float]],
    side_mm: float,
    px_per_mm: float,
    margin_mm: float = 3.0,
) -> None:
    """Paste upright ArUco stickers (white margin around the black marker) on a float canvas."""
    side_px = round(side_mm * px_per_mm)
    for marker_id, (x_mm, y_mm) in origins.items():
        marker = marker_image(marker_id, side_px).astype(np.float32) / 255.0
        x0, y0 = round(x_mm * px_per_mm), round(y_mm * px_per_mm)
        m = round(margin_mm * px_per_mm)
        ya, yb = max(0, y0 - m), min(canvas.shape[0], y0 + side_px + m)
        xa, xb = max(0, x0 - m), min(canvas.shape[1], x0 + side_px + m)
        canvas[ya:yb, xa:xb] = 0.95
        ys, xs = slice(max(0, y0), min(canvas.shape[0], y0 + side_px)), slice(max(0, x0), min(canvas.shape[1], x0 + side_px))
        sub = marker[ys.start - y0:ys.stop - y0, xs.start - x0:xs.stop - x0]
        canvas[ys, xs] = (0.06 + 0.89 * sub)[:, :, None]


def camera_effects(
    image: np.ndarray,
    rng: np.random.Generator,
    *,
    blur: float | None = None,
    noise: float | None = None,
    jpeg: int | None = None,
    cast: bool = True,
) -> np.ndarray:
    """Lighting cast, lens blur, sensor noise and JPEG compression of a BGR uint8 image."""
    img = image.astype(np.float32)
    if cast:
        img *= rng.uniform(0.9, 1.1, 3).astype(np.float32) * rng.uniform(0.8, 1.15)
    sigma = rng.uniform(0.0, 1.1) if blur is None else blur
    if sigma > 0.05:
        img = cv2.GaussianBlur(img, (0, 0), sigma)
    level = rng.uniform(1.0, 6.0) if noise is None else noise
    if level > 0:
        img += rng.normal(0, level, img.shape).astype(np.float32)
    out = np.clip(img, 0, 255).astype(np.uint8)
    quality = int(rng.integers(70, 96)) if jpeg is None else jpeg
    if quality < 100:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, quality])
        if ok:
            out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out


def random_view(
    plane_w_mm: float,
    plane_h_mm: float,
    rng: np.random.Generator,
    canvas_size: tuple[int, int],
    px_per_mm: float,
    max_tilt_deg: float = 35.0,
    centre: tuple[float, float] | None = None,
    rotation_deg: float | None = None,
) -> np.ndarray:
    """A homography from plane millimetres to canvas pixels: rotated any way, seen up to ``max_tilt_deg``
    off vertical (a foreshortening along a random direction), at about ``px_per_mm``."""
    w, h = canvas_size
    angle = math.radians(rng.uniform(0, 360) if rotation_deg is None else rotation_deg)
    tilt = math.radians(rng.uniform(0, max_tilt_deg))
    tilt_dir = rng.uniform(0, 2 * math.pi)
    corners = np.array([[0, 0], [plane_w_mm, 0], [plane_w_mm, plane_h_mm], [0, plane_h_mm]], np.float64)
    pts = corners - [plane_w_mm / 2, plane_h_mm / 2]
    rot = np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]])
    pts = pts @ rot.T * px_per_mm
    # Perspective: points farther along the tilt direction appear smaller (farther from the camera).
    direction = np.array([math.cos(tilt_dir), math.sin(tilt_dir)])
    distance_px = 700.0 * px_per_mm  # about 70 cm above the table
    along = pts @ direction
    depth = distance_px + along * math.sin(tilt)
    foreshort = pts - np.outer(along * (1 - math.cos(tilt)), direction)
    pts = foreshort * (distance_px / depth)[:, None]
    if centre is None:
        half = np.abs(pts).max(axis=0)
        lo = half + 5
        hi = np.array([w, h]) - half - 5
        centre = tuple(rng.uniform(np.minimum(lo, hi), np.maximum(lo, hi)))
    pts = pts + np.array(centre)
    return cv2.getPerspectiveTransform(corners.astype(np.float32), pts.astype(np.float32)).astype(np.float64)


def camera_px_per_mm(rng: np.random.Generator) -> float:
    """Frame pixels per tray millimetre as the table camera gives them, drawn.

    The camera hangs 60-90 cm above the table (hardware.md: 1.30-0.86 px/mm), 50 cm over a two-player table:
    its height is drawn evenly over 48-90 cm, so over a third of the views come from 75-90 cm, where the dice
    are smallest and the reader errs most. Then +-10 % for where the tray lies in the frame (the lens
    squeezes the frame's edges by about a tenth): 0.78-1.78 px/mm in all (the tray still fits the view).
    """
    from vision.synth.table import px_per_mm_at  # here: vision.synth.table draws its trays with this module

    return px_per_mm_at(float(rng.uniform(48.0, 90.0))) * float(rng.uniform(0.9, 1.1))


def tray_scene(
    rng: np.random.Generator,
    faces: list[str] | None = None,
    *,
    touching: bool | None = None,
    px_per_mm: float | None = None,
    canvas_size: tuple[int, int] | None = None,
    effects: bool = True,
    look: TrayLook | None = None,
    camera_processing: bool = False,
) -> tuple[np.ndarray, list[PlacedDie], np.ndarray]:
    """A camera view of the tray alone (for training and testing the dice reader), at ``px_per_mm`` or
    as the table camera gives it from any height it may hang at (``camera_px_per_mm``); the tray, its
    floor and dice as ``look`` says (the reference 240 x 160 mm tray of 16 mm dice by default).

    Returns (BGR frame, the dice at rest, homography tray mm -> frame px). The frame is 720 x 560 unless
    told, larger for a tray larger than the reference one. ``camera_processing``: the frame as a webcam sends
    it (``vision.board.dataset.processed_by_camera``), its randomness drawn from the picture so that the trays
    are the same with it as without it.
    """
    look = look or TrayLook()
    if canvas_size is None:
        grow = max(1.0, look.width_mm / TRAY_W_MM, look.height_mm / TRAY_H_MM)
        canvas_size = (round(720 * grow), round(560 * grow))
    if faces is None:
        faces = [DIE_FACES[int(i)] for i in rng.integers(0, len(DIE_FACES), 5)]
    if touching is None:
        touching = bool(rng.random() < 0.4)
    render_scale = 4.0
    tray, alpha, dice = render_tray_over(faces, rng, render_scale, TRAY_SURROUND_MM, touching=touching, look=look)
    scale = camera_px_per_mm(rng) if px_per_mm is None else px_per_mm
    to_frame = random_view(look.width_mm, look.height_mm, rng, canvas_size, scale)
    table = np.array(rng.uniform(60, 200, 3), np.float32)
    warp = to_frame @ np.diag([1 / render_scale, 1 / render_scale, 1.0]) @ tray_over_to_floor(render_scale)
    seen = cv2.warpPerspective(tray, warp, canvas_size, flags=cv2.INTER_AREA).astype(np.float32)
    cover = cv2.warpPerspective(alpha, warp, canvas_size, flags=cv2.INTER_LINEAR).astype(np.float32)[:, :, None] / 255
    frame = np.clip(table * (1 - cover) + seen * cover + 0.5, 0, 255).astype(np.uint8)
    if effects:
        frame = camera_effects(frame, rng)
    if camera_processing:
        frame = processed_by_camera(frame)
    return frame, dice, to_frame


# The floors and sizes the dice classifier is trained on (``vision.dice.train``) and those held out of
# training entirely for the benchmark (``benchmarks/bench_dice.py``): the held-out floors include the
# light grey and beige of the tester's table, and the held-out sizes the ends of the range (trays of
# 20 x 14 and 30 x 20 cm, dice of 14 and 20 mm), which training never sees.
TRAIN_FLOORS: tuple[str | None, ...] = (None, None, None, "mid grey", "pale grey", "cream", "light blue", "yellow",
                                        "navy", "teal")
HELD_OUT_FLOORS: tuple[str, ...] = ("light grey", "beige", "dark grey", "dark green felt", "light wood", "brown",
                                    "orange", "pink", "purple")
TRAIN_TRAY_MM = ((215.0, 285.0), (148.0, 192.0))
TRAIN_DIE_MM = (15.0, 19.0)


def training_look(rng: np.random.Generator) -> TrayLook:
    """A tray for training: a training floor, a tray and dice inside the training sizes."""
    floor = TRAIN_FLOORS[int(rng.integers(len(TRAIN_FLOORS)))]
    (w0, w1), (h0, h1) = TRAIN_TRAY_MM
    return TrayLook(floor, float(rng.uniform(w0, w1)), float(rng.uniform(h0, h1)), float(rng.uniform(*TRAIN_DIE_MM)))
