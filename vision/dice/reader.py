"""Read the dice lying in the tray: locate the tray, split the dice (touching or not), read each top face.

1. The tray floor is found from ArUco markers 20-23 and rectified to a top-down view.
2. Dice are the white blobs on the floor (bright in their darkest colour channel, which no felt is).
   A blob's area in die units says how many dice it holds.
3. Each die's top face is found by its symbol: the only dark patch the die's white cuts off from the
   floor (the cube's sides, seen when the camera looks in at an angle, and the gaps between touching
   dice all reach the floor). The symbols also count packed dice whose hidden sides make their blob
   look a die short. A die whose symbol is not seen falls back to splitting its blob and the camera's
   lean measured on the others.
4. The top face is cut out around its symbol and classified from colour and shape features.

On a floor nearly as light as the dice, where their white hardly stands out, the dice are also found by their
symbols alone (``dice_by_symbols``), and so read when the blobs miss them.
"""

from __future__ import annotations

import itertools
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path

import cv2
import numpy as np

from vision.dice.faces import FaceNetwork, combined, measured_inks
from vision.dice.features import CROP_PX, FaceInk, face_features
from vision.dice.geometry import (
    DIE_MM,
    MARKER_FROM_FAR_SIDE,
    MARKER_INSET_MM,
    STICKER_MM,
    TRAY_LAYOUT,
    TRAY_MARKER_MM,
    TRAY_MM_RANGE,
    believable_die_mm,
    tray_layout,
)
from vision.marker_plane import LocatedPlane, PlaneLayout, detect_markers, locate_plane, marker_side
from vision.observation import DIE_FACES, DOUBTFUL_DIE_BELOW, DieReading

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
class TrayView:
    """How a rectified tray is drawn: the floor's layout (its measured size) and the pixels a millimetre,
    chosen so that its dice are DIE_PX a side whatever their size (every pixel measure below is in those
    pixels)."""

    layout: PlaneLayout = TRAY_LAYOUT
    px_per_mm: float = PX_PER_MM

    @property
    def die_mm(self) -> float:
        return DIE_PX / self.px_per_mm


REFERENCE_VIEW = TrayView()
# A die measured within this share of the reference size is read at the reference scale (the network
# learned faces a few per cent larger or smaller); farther off, the tray is rectified again to its size.
DIE_SCALE_TOLERANCE = 0.04


@dataclass(frozen=True)
class DieBlob:
    centre: tuple[float, float]  # top-face centre in the rectified tray, pixels
    angle_deg: float  # die axes, modulo 90
    area_units: float  # blob area in die tops (for diagnostics)
    # A die of packed dice whose symbol was not seen, its top placed from what is left of their blob where little
    # of the blob's white is (``OFF_WHITE_BELOW``).
    placed_off_white: bool = False
    # Another clear mark within a die of the symbol taken for this die's top, in a blob of packed dice (the floor seen
    # through a gap walled in by the dice, or the die's own faint symbol beside such a gap): read too, and the
    # surer of the two readings kept (``DiceReader._read``).
    rival: tuple[float, float] | None = None
    # A die found by its symbol on a light floor (``dice_by_symbols``) with little white around the mark: perhaps a
    # shadow's piece, not a symbol.
    little_white: bool = False


# A marker's outline as the detector gives it lies about 0.3 px inside the printed square (its threshold
# shrinks a blurred black square): on 15-30 px markers 1-2 % of their size, which measured trays 2-3 %
# too large. Each side is found again where the grey level crosses halfway from the marker's black border
# to the sticker's white, which a symmetric blur leaves in place, on profiles this far each way (in
# module widths: the border is one module of six) at these places along the side. The crossings are fitted
# with a line, not only moved outwards together: the detector's side can be turned a few degrees off the printed
# one (a dark table's sticker on a 30 cm black tray: its corners 1.4 px off when the side kept the detector's
# direction, 0.6 px refitted). On 840 trays of every floor and size group (seed 555000, not bench_dice's) the
# tray's size was measured 0.14 -> 0.08 % off (median; 95th percentile 0.71 -> 0.66 %, worst 1.50 -> 1.35 %), and
# the dice's tops placed 0.44 -> 0.31 mm off (99th percentile 2.65 -> 2.50 mm) by the tray's plane alone.
_EDGE_REACH_MODULES = 0.9
_EDGE_SAMPLES = np.linspace(0.15, 0.85, 11)
# A side's fitted line is believed when its crossings agree (those this far from their median, or 2.5 times
# their median spread, are left out, and at least _EDGE_FIT_FROM stay) and it turns at most _EDGE_MAX_SLOPE
# (about 8.5 degrees) from the detector's side; otherwise the side is only moved, by the crossings' median.
_EDGE_FIT_SPREAD_PX = 0.5
_EDGE_FIT_FROM = 5
_EDGE_MAX_SLOPE = 0.15


def _median(values: np.ndarray) -> float:
    """``np.median`` of a few values (a side's 11 crossings at most), as it gives it, in a tenth of its time."""
    ordered = np.sort(values)
    middle = len(ordered) // 2
    return float(ordered[middle]) if len(ordered) % 2 else float((ordered[middle - 1] + ordered[middle]) / 2)


def refine_marker_corners(gray: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """A tray marker's four corners (frame px, TL TR BR BL) moved onto its printed square's edges: each side
    refitted where the grey level is halfway between the border's black and the sticker's white; a side
    that is not clear as given. The four sides' profiles are sampled in one remap and their crossings found
    together (a side at a time cost 1.4 ms a marker, mostly calls on small arrays)."""
    corners = np.asarray(corners, np.float64)
    centre = corners.mean(axis=0)
    module = marker_side(corners) / 6.0
    steps = np.linspace(-_EDGE_REACH_MODULES, _EDGE_REACH_MODULES, 15) * module
    starts, ends = corners, np.roll(corners, -1, axis=0)  # side k runs from corner k to corner k + 1
    lengths = np.maximum(np.linalg.norm(ends - starts, axis=1), 1e-9)
    alongs = (ends - starts) / lengths[:, None]
    normals = np.column_stack([alongs[:, 1], -alongs[:, 0]])
    outwards = np.einsum("ij,ij->i", normals, (starts + ends) / 2 - centre) >= 0
    normals[~outwards] *= -1.0
    bases = starts[:, None, :] + _EDGE_SAMPLES[None, :, None] * (ends - starts)[:, None, :]  # (4, samples, 2)
    pts = bases[:, :, None, :] + steps[None, None, :, None] * normals[:, None, None, :]  # (4, samples, steps, 2)
    n_samples = len(_EDGE_SAMPLES)
    profiles = cv2.remap(gray, pts[..., 0].reshape(4 * n_samples, -1).astype(np.float32),
                         pts[..., 1].reshape(4 * n_samples, -1).astype(np.float32), cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_REPLICATE).astype(np.float64)  # (4 * samples, steps)
    # Each profile's black is its darkest inside the edge, not its first samples: where a white bit of the
    # marker meets the border, blur brings that white into them, the halfway level rose above the border's
    # black and the side went unrefitted (on a 30 cm tray, one corner 1.6 px off measured it 2.3 % long).
    inner = len(steps) // 2 + 1
    darkest = profiles[:, :inner].argmin(axis=1)
    black = profiles[np.arange(len(profiles)), darkest]
    white = profiles[:, inner:].max(axis=1)
    # Each profile's first step at or above halfway from its darkest on, and the crossing between it and the step
    # before, for every profile of every side at once.
    half = (black + white) / 2
    rising = (profiles >= half[:, None]) & (np.arange(len(steps))[None, :] >= darkest[:, None])
    first = rising.argmax(axis=1)
    crossed = rising.any(axis=1) & (first > 0)
    i = np.maximum(first, 1)
    rows = np.arange(len(profiles))
    lower, upper = profiles[rows, i - 1], profiles[rows, i]
    t = (half - lower) / np.maximum(upper - lower, 1e-9)
    side = rows // n_samples
    from_start = (bases.reshape(-1, 2) - starts[side])
    all_offsets = np.einsum("ij,ij->i", from_start, normals[side]) + steps[i - 1] + t * (steps[i] - steps[i - 1])
    contrast = np.median((white - black).reshape(4, n_samples), axis=1)
    lines = []
    for k in range(4):
        a, along, normal = starts[k], alongs[k], normals[k]
        mine = slice(k * n_samples, (k + 1) * n_samples)
        kept = crossed[mine] if contrast[k] >= 30 else np.zeros(n_samples, bool)
        offsets = all_offsets[mine][kept]
        if len(offsets) < 3:
            lines.append((a, along))  # not clear (glare, a die's shadow): this side as given
            continue
        offset = _median(offsets)
        spread = _median(np.abs(offsets - offset))
        agree = np.abs(offsets - offset) <= max(_EDGE_FIT_SPREAD_PX, 2.5 * spread)
        if agree.sum() >= _EDGE_FIT_FROM:
            # offset = intercept + slope * (distance along the side from a): the printed side's own line (least
            # squares written out: np.polyfit's overhead cost about 0.6 ms a tray's read).
            along_side, fitted = from_start[mine][kept][agree] @ along, offsets[agree]
            centred = along_side - along_side.mean()
            slope = float(centred @ (fitted - fitted.mean())) / max(float(centred @ centred), 1e-9)
            intercept = float(fitted.mean()) - slope * float(along_side.mean())
            if abs(slope) <= _EDGE_MAX_SLOPE:
                direction = along + slope * normal
                lines.append((a + intercept * normal, direction / np.linalg.norm(direction)))
                continue
        lines.append((a + offset * normal, along))
    refined = []
    for k in range(4):
        (p1, d1), (p2, d2) = lines[(k - 1) % 4], lines[k]
        m = np.column_stack([d1, -d2])
        if abs(np.linalg.det(m)) < 1e-6:
            return corners.astype(np.float32)
        t = np.linalg.solve(m, p2 - p1)
        refined.append(p1 + t[0] * d1)
    return np.array(refined, np.float32)


def measure_tray(markers: dict[int, np.ndarray], known: tuple[float, float] | None = None) -> tuple[float, float] | None:
    """The tray floor's (width, height) in millimetres, measured from its stickers: the markers are printed
    20 mm a side and pushed into the floor's corners, so their own squares give the scale and their places
    the floor's size. A side is measured when markers are seen at both its ends (20 or 23 and 21 or 22 for
    the width, 20 or 21 and 22 or 23 for the height); the other is ``known`` (the last measured) or the
    reference tray's. None when fewer than two markers are seen or the size is not a tray's.

    One linear solve: the plane's homography (frame -> floor mm) with the width and height folded in as
    unknowns (a marker measured from the far side sits at ``width - 24 + its own offset``: the products
    of the width with the homography's last row are unknowns of their own; the width is their ratio).
    """
    seen = [m for m in TRAY_LAYOUT.marker_origins if m in markers]
    if len(seen) < 2:
        return None
    default = known or (TRAY_LAYOUT.width_mm, TRAY_LAYOUT.height_mm)
    far = np.array([MARKER_FROM_FAR_SIDE[m] for m in seen])
    measured = [bool(far[:, axis].any() and not far[:, axis].all()) for axis in (0, 1)]
    points = np.concatenate([markers[m] for m in seen]).astype(np.float64)
    centre = points.mean(axis=0)
    spread = max(float(np.abs(points - centre).mean()), 1e-6)
    p = np.column_stack([(points - centre) / spread, np.ones(len(points))])
    side = TRAY_MARKER_MM
    corner_offsets = np.array([[0, 0], [side, 0], [side, side], [0, side]], np.float64)
    rows = []
    for k, m in enumerate(seen):
        for c in range(4):
            pc = p[4 * k + c]
            for axis in (0, 1):
                from_far = MARKER_FROM_FAR_SIDE[m][axis]
                # Plane coordinate = from_far * size + constant.
                constant = corner_offsets[c, axis] + (-MARKER_INSET_MM - side if from_far else MARKER_INSET_MM)
                if from_far and not measured[axis]:
                    constant += default[axis]
                row = np.zeros(15)
                row[3 * axis:3 * axis + 3] = pc  # g1 or g2
                row[6:9] = -constant * pc  # g3
                if from_far and measured[axis]:
                    row[9 + 3 * axis:12 + 3 * axis] = -pc  # size * g3
                rows.append(row)
    a = np.array(rows)
    unknowns = [*range(9)] + [9 + 3 * axis + j for axis in (0, 1) if measured[axis] for j in range(3)]
    _, _, vt = np.linalg.svd(a[:, unknowns])
    z = np.zeros(15)
    z[unknowns] = vt[-1]
    g3 = z[6:9]
    size = list(default)
    for axis in (0, 1):
        if measured[axis]:
            size[axis] = float(z[9 + 3 * axis:12 + 3 * axis] @ g3 / max(float(g3 @ g3), 1e-12))
    if not all(TRAY_MM_RANGE[0] <= v <= TRAY_MM_RANGE[1] for v in size):
        return None
    return size[0], size[1]


def locate_tray(
    markers: dict[int, np.ndarray], known: tuple[float, float] | None = None, gray: np.ndarray | None = None
) -> LocatedPlane | None:
    """The tray in the frame, its floor measured from the markers seen (``measure_tray``); with the frame
    (``gray``) the tray markers' corners are first refitted onto their printed squares
    (``refine_marker_corners``)."""
    if gray is not None:
        markers = {m: refine_marker_corners(gray, c) if m in TRAY_LAYOUT.marker_origins else c for m, c in markers.items()}
    size = measure_tray(markers, known)
    if all(m in markers for m in TRAY_LAYOUT.marker_origins) and (size is None or _tray_misfit(markers, size) > _TRAY_FIT_WITHIN):
        # Four stickers that no tray's plane puts where they were found: one is not this tray's. The three that fit their
        # own plane best measure it, if they fit it.
        fits = []
        for left_out in TRAY_LAYOUT.marker_origins:
            three = {m: c for m, c in markers.items() if m != left_out}
            three_size = measure_tray(three, known)
            if three_size is not None:
                fits.append((_tray_misfit(three, three_size), left_out, three, three_size))
        if fits and min(fits)[0] <= _TRAY_FIT_WITHIN:
            _, _, markers, size = min(fits)
    if size is None:
        return None
    return locate_plane(markers, tray_layout(*size), min_markers=2)


# Each corner of the tray's stickers lies within this share of its sticker's side of where the tray's plane, measured
# from them, puts it: at most 0.10 for four stickers on 218 trays of the benchmark renderer (median 0.04; lens bending
# and blur included), where a board's sticker decoded as a tray's (seed 14, table 35: the real one unseen) lay 7.8 sides
# off and made a tray of 37 x 32 cm, whose dice were not read.
_TRAY_FIT_WITHIN = 0.5


def _tray_misfit(markers: dict[int, np.ndarray], size: tuple[float, float]) -> float:
    """How far (in its own sides) the tray sticker of ``markers`` farthest from where the tray's plane, measured from
    them (``size``), puts it lies from there: the largest of its corners' distances."""
    layout = tray_layout(*size)
    seen = [m for m in layout.marker_origins if m in markers]
    found = np.concatenate([markers[m] for m in seen]).astype(np.float64)
    printed = np.concatenate([layout.marker_corners_mm(m) for m in seen]).astype(np.float64)
    homography, _ = cv2.findHomography(printed, found, 0)
    if homography is None or not np.all(np.isfinite(homography)):
        return float("inf")
    put = cv2.perspectiveTransform(printed[None], homography)[0]
    off = np.linalg.norm(put - found, axis=1).reshape(len(seen), 4).max(axis=1)
    return max(float(o) / max(marker_side(markers[m]), 1e-6) for o, m in zip(off, seen, strict=True))


# The stickers' white is measured on this brightest share of each sticker's pixels (its rim and its marker's white
# modules), and the tray's colours are evened to it by at most this gain a channel.
_STICKER_WHITE_SHARE = 0.3
_MOST_WHITE_GAIN = 2.0
# The light's tint the dice reader learned: the generator tints each channel by up to a tenth either way, and its
# trays' stickers' white needs gains of 1.01-1.17 to be grey again (20 beige trays). Only a tint beyond it is evened:
# a light the reader knows is read as before (evening those too put a pocket of floor by the wall back among the
# symbols, ``test_the_floor_between_dice_packed_against_the_wall_is_no_symbol``), and evened only down to it, the
# bluish daylight below still lost dice on beige.
_LEARNED_TINT = 1.2


def sticker_corners(shape: tuple[int, ...], side: int) -> tuple[tuple[int, int], ...]:
    """The top-left pixels (y, x) of the four ``side`` x ``side`` squares in the corners of a rectified floor of
    ``shape``: where its stickers lie (clockwise from the top-left)."""
    height, width = shape[:2]
    return ((0, 0), (0, width - side), (height - side, width - side), (height - side, 0))


def sticker_white(floor: np.ndarray, view: TrayView = REFERENCE_VIEW) -> np.ndarray | None:
    """The colour (BGR) the light gives white paper on a rectified tray ``floor``: its stickers' white, the median of
    the three whitest of the four (a hand or a shadow may lie over one); None when the floor is too small to hold
    them."""
    side = round(STICKER_MM * view.px_per_mm)
    height, width = floor.shape[:2]
    if side < 4 or height < 2 * side or width < 2 * side or floor.ndim != 3:
        return None
    whites = []
    for y0, x0 in sticker_corners(floor.shape, side):
        patch = floor[y0:y0 + side, x0:x0 + side].reshape(-1, 3).astype(np.float32)
        brightness = patch.sum(axis=1)
        whites.append(np.median(patch[brightness >= np.quantile(brightness, 1.0 - _STICKER_WHITE_SHARE)], axis=0))
    whitest = sorted(whites, key=lambda colour: -float(colour.sum()))[:3]
    return np.median(np.array(whitest), axis=0)


# A floor at least this light against the stickers' white paper (``floor_lightness``) is nearly as light as the dice,
# and the players are told (the tracker's warning; hardware.md §1 asks for a floor visibly darker than the dice). On the
# trays of the renderer written apart from ours (``benchmarks/bench_elsewhere.py``, seeds 1-3, 2026-12-03) the floors
# under 0.4 of the white lost 1 die of 210, those at 0.83-1.02 of it 99 of 210 (40 of those 42 trays from 0.87 on). Our
# generator's lightest floors, which read (beige, light grey 0.64-0.73, cream 0.72-0.81: 45 of 45 dice; pale grey
# 0.78-0.82: 43 of 45), stay under it.
NEAR_WHITE_FLOOR_FROM = 0.85


def floor_lightness(floor: np.ndarray, view: TrayView = REFERENCE_VIEW) -> float | None:
    """How light a rectified tray ``floor`` is: the median of its darkest channel off the stickers, as a share of the
    stickers' white (``sticker_white``, the white paper under the same light); None when that cannot be measured."""
    white = sticker_white(floor, view)
    if white is None or float(white.min()) < 1.0:
        return None
    darkest = darkest_channel(floor)
    # Every other pixel each way: a plain floor's median is the same, in under half the time (3.7 -> 1.6 ms a tray here).
    off = _off_stickers(darkest.shape, view)[::2, ::2] > 0
    return float(np.median(darkest[::2, ::2][off])) / float(white.min())


def balanced_to_stickers(image: np.ndarray, floor: np.ndarray, view: TrayView = REFERENCE_VIEW) -> np.ndarray:
    """``image`` (the tray, or the tray and what lies around it) with its colour channels evened so that the stickers'
    white on ``floor`` (the tray's own floor in ``image``) is grey again: the dice are told from the floor by being
    white (``whiteness``), and a lamp or a window's daylight tints both, with the camera's white balance locked at
    calibration (``vision.camera_settings``). Channels are only raised, each to the white's brightest: under a bluish
    daylight (red 0.8, blue 1.12 of a neutral light) every die on a beige floor was lost, its white as colourful as
    the floor. The image itself when the tint is one the reader learned (``_LEARNED_TINT``) or the stickers' white
    cannot be measured."""
    white = sticker_white(floor, view)
    if white is None or float(white.min()) < 1.0:
        return image
    gains = np.minimum(float(white.max()) / white, _MOST_WHITE_GAIN)
    if float(gains.max()) <= _LEARNED_TINT:
        return image
    return cv2.transform(image, np.diag(gains).astype(np.float32))


# A tray's read asks for the same rectified tray's darkest channel seven times (its dice segmented, outlined and
# measured, the floor's levels, the surround), 0.23 ms each on a 400 x 600 tray here: each thread keeps the last one
# it made, for that very array (a rectified tray is a fresh array, never written into), read-only so that no caller
# can change what the next one is given.
_LAST_DARKEST = threading.local()


def darkest_channel(tray: np.ndarray) -> np.ndarray:
    """Min over B, G, R: high only where a pixel is both bright and uncoloured (the dice's white). Read-only."""
    last = getattr(_LAST_DARKEST, "pair", None)
    if last is not None and last[0] is tray:
        return last[1]
    # (Split first: OpenCV copies a channel's strided view before it compares, three times as slow.)
    blue, green, red = cv2.split(tray)
    darkest = cv2.min(cv2.min(blue, green), red)
    darkest.flags.writeable = False
    _LAST_DARKEST.pair = (tray, darkest)
    return darkest


def whiteness(tray: np.ndarray) -> np.ndarray:
    """The darkest channel less half the pixel's colourfulness (max - min channel): what tells the dice
    from the floor. A light coloured floor (cream, beige, pale blue) is nearly as bright as the dice in
    its darkest channel, but coloured: this takes it well down, while the dice's white and grey stay
    (a lamp's colour cast leaves them a little colourful, hence only half)."""
    darkest = darkest_channel(tray)  # (the tray's floor levels have usually made it already)
    blue, green, red = cv2.split(tray)
    brightest = cv2.max(cv2.max(blue, green), red)
    return cv2.subtract(darkest, cv2.subtract(brightest, darkest) // 2)


# Each tray marker's dark square, in its white sticker, is looked for this far around its printed place
# in the rectified tray; when one is found more than STICKER_OFF_MM from it, the view is re-warped to put
# the squares in place. A tray located from three markers is 1-8 mm off at the fourth corner (90 cm up:
# the plane's perspective drawn from markers of 15 px), which cuts or misplaces the dice there and brings
# in what lies beyond the floor; the squares' centres are found to 0.2 mm (0.5 at worst) seen from 90 cm,
# and a tray located from all four markers is within 1 mm everywhere.
STICKER_REACH_MM = 20.0
STICKER_OFF_MM = 1.0


def _square_centre(outline: np.ndarray, side: float, outward: np.ndarray, cut: bool) -> np.ndarray | None:
    """Centre of a marker's dark square from its outline (in the outline's pixels), or None when the outline
    is not one: as wide as tall, the marker's size give or take a quarter, filling its box (not run into a
    dark floor). With ``cut`` (the outline reaches the floor's edge: the view put the tray's corner too far
    in) it may be cut there: its inner corner, the point farthest towards ``outward``'s opposite, and the
    marker's side place the centre."""
    _, (w, h), _ = cv2.minAreaRect(outline)
    moments = cv2.moments(outline)
    if 0.75 * side < min(w, h) and max(w, h) < 1.3 * side and moments["m00"] >= 0.85 * w * h:
        return np.array([moments["m10"] / moments["m00"], moments["m01"] / moments["m00"]])
    # Cut, its white bits open onto the cut: its hull is what is seen of the square.
    hull = cv2.convexHull(outline)
    _, _, bw, bh = cv2.boundingRect(hull)
    if not cut or min(bw, bh) < side / 2 or max(bw, bh) > 1.3 * side or cv2.contourArea(hull) < 0.85 * bw * bh:
        return None
    points = hull.reshape(-1, 2).astype(np.float64)
    return points[np.argmin(points @ outward)] + outward * side / 2


def marker_squares(
    tray: np.ndarray, view: TrayView = REFERENCE_VIEW, margin: int = 0
) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """Tray marker id -> (centre where the kit prints it, centre of its dark square as seen), in rectified
    pixels of ``tray`` (the floor and ``margin`` pixels beyond it on every side), for the markers whose
    square is seen (the one nearest its printed place)."""
    height, width = tray.shape[:2]
    side = view.layout.marker_side_mm * view.px_per_mm
    reach = STICKER_REACH_MM * view.px_per_mm
    found = {}
    for marker_id in view.layout.marker_origins:
        printed = view.layout.marker_corners_mm(marker_id).mean(axis=0).astype(np.float64) * view.px_per_mm + margin
        outward = np.sign(printed - (width / 2, height / 2))  # towards the tray's corner
        x0, y0 = np.maximum(printed - side / 2 - reach, 0).astype(int)
        x1, y1 = np.minimum(printed + side / 2 + reach, (width, height)).astype(int)
        window = darkest_channel(tray[y0:y1, x0:x1])
        _, dark = cv2.threshold(window, 0, 255, cv2.THRESH_BINARY_INV + cv2.THRESH_OTSU)
        # Outer outlines, also of what lies in a hole of another dark region (a dark floor and what lies
        # beyond it can ring the sticker's white).
        outlines, hierarchy = cv2.findContours(dark, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
        candidates = []
        for outline, (_, _, _, parent) in zip(outlines, hierarchy[0] if outlines else (), strict=True):
            if parent >= 0:
                continue
            bx, by, bw, bh = cv2.boundingRect(outline)
            cut = x0 + bx == 0 or y0 + by == 0 or x0 + bx + bw == width or y0 + by + bh == height
            candidates.append(_square_centre(outline, side, outward, cut))
        # Also the hole the sticker's white rim rings, filled out to its hull: blurred from far on a dark
        # floor, the Otsu level splits the black square's one-module border where white bits meet it, and
        # its dark outline is then notched or in pieces (a 30 x 20 cm tray seen from 90 cm: the fourth
        # sticker's square was not found and the tray measured 3 % short), while the rim stays whole.
        rims, rim_hierarchy = cv2.findContours(cv2.bitwise_not(dark), cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
        for outline, (_, _, _, parent) in zip(rims, rim_hierarchy[0] if rims else (), strict=True):
            if parent >= 0:
                candidates.append(_square_centre(cv2.convexHull(outline), side, outward, cut=False))
        best: tuple[float, np.ndarray] | None = None
        for centre in candidates:
            if centre is None:
                continue
            centre += (x0, y0)
            off = float(np.linalg.norm(centre - printed))
            if off < reach and (best is None or off < best[0]):
                best = (off, centre)
        if best is not None:
            found[marker_id] = (printed, best[1])
    return found


def undecoded_marker(frame: np.ndarray, plane: LocatedPlane) -> tuple[int, np.ndarray] | None:
    """(id, corners in ``frame`` px) of the one tray marker ``plane`` was located without, from its dark
    square as the floor rectified by the other three shows it (``marker_squares``); None when it is not
    seen or more than one is missing.

    Three markers measure a tray only to about 3 % (the fourth corner is drawn from the perspective of
    their 15-20 px squares): on a 30 cm tray 9 mm, which put dice by the far wall 6-8 mm off their place.
    A sticker whose bits do not decode (small, turned about 45 degrees, blurred) still shows its square,
    whose centre is found to 0.2-0.5 mm; its corners here are that centre and the printed side, square to
    the floor (``refine_marker_corners`` then fits them to its edges).
    """
    missing = [m for m in plane.layout.marker_origins if m not in plane.markers_seen]
    if len(missing) != 1 or frame.ndim != 3:
        return None
    # The floor and SURROUND_MM beyond: the fourth corner may lie 10 mm or more off, its sticker partly
    # beyond the floor as located.
    view = TrayView(plane.layout, PX_PER_MM)
    margin_mm = SURROUND_MM
    region = (-margin_mm, -margin_mm, plane.layout.width_mm + 2 * margin_mm, plane.layout.height_mm + 2 * margin_mm)
    margin = round(margin_mm * view.px_per_mm)
    squares = marker_squares(plane.rectify(frame, view.px_per_mm, region), view, margin)
    if missing[0] not in squares:
        return None
    centre_mm = (squares[missing[0]][1] - margin) / view.px_per_mm
    half = plane.layout.marker_side_mm / 2
    corners_mm = centre_mm + np.array([[-half, -half], [half, -half], [half, half], [-half, half]])
    return missing[0], plane.to_frame(corners_mm).astype(np.float32)


def tray_correction(tray: np.ndarray, view: TrayView = REFERENCE_VIEW) -> np.ndarray | None:
    """The homography (rectified pixels -> rectified pixels) that puts the tray markers' squares where the
    kit prints them (see STICKER_OFF_MM), or None when none is needed or fewer than three are seen."""
    squares = marker_squares(tray, view)
    if len(squares) < 3:
        return None
    printed = np.array([p for p, _ in squares.values()], np.float32)
    seen = np.array([c for _, c in squares.values()], np.float32)
    if np.max(np.linalg.norm(seen - printed, axis=1)) <= STICKER_OFF_MM * view.px_per_mm:
        return None
    if len(squares) == 4:
        return cv2.getPerspectiveTransform(seen, printed)
    return np.vstack([cv2.getAffineTransform(seen, printed), [0.0, 0.0, 1.0]])


def straighten_tray(tray: np.ndarray, view: TrayView = REFERENCE_VIEW) -> np.ndarray:
    """The rectified tray re-warped by ``tray_correction``, or as it is when none is needed."""
    correction = tray_correction(tray, view)
    if correction is None:
        return tray
    return cv2.warpPerspective(tray, correction, (tray.shape[1], tray.shape[0]), flags=cv2.INTER_LINEAR)


# The dice's white is the level this share of the floor (stickers left out) lies below: a single 14 mm die
# in a 30 x 20 cm tray shows about 0.2 % of it as white top.
_DICE_WHITE_QUANTILE = 0.999
# Above the floor's level by at least this much (grey levels) for a pixel to be a die's: the floor's own
# texture and the sensor's noise stay under it.
_ABOVE_FLOOR_MIN = 12.0


# On a light floor only the dice's tops clear the level (their shaded sides are as grey as the floor), and
# the white around a big symbol (a crate, a cross's arms), blurred from far, breaks into pieces: pieces this
# close (an eighth of a die) are one top, and a piece smaller than half a top is one with any within a
# third of a die; each group is drawn whole as its convex hull.
_TOP_PIECES_GAP_PX = int(0.125 * DIE_PX) | 1
_SMALL_PIECE_GAP_PX = int(0.35 * DIE_PX) | 1


def _whole_tops(mask: np.ndarray) -> np.ndarray:
    """``mask`` with each group of nearby pieces filled out to its convex hull."""
    grouped = cv2.dilate(mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (_TOP_PIECES_GAP_PX, _TOP_PIECES_GAP_PX)))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    small = np.isin(labels, 1 + np.nonzero(stats[1:, cv2.CC_STAT_AREA] < 0.5 * DIE_PX * DIE_PX)[0]).view(np.uint8)
    if small.any():
        reach = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (_SMALL_PIECE_GAP_PX, _SMALL_PIECE_GAP_PX))
        grouped = cv2.max(grouped, cv2.dilate(small * 255, reach))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(grouped, connectivity=8)
    out = mask.copy()
    for j in range(1, n):
        x, y, w, h = stats[j, :4]
        pieces = (labels[y:y + h, x:x + w] == j) & (mask[y:y + h, x:x + w] > 0)
        points = cv2.findNonZero(pieces.view(np.uint8))
        if points is None or len(points) < 3:
            continue
        cv2.fillConvexPoly(out, cv2.convexHull(points + np.array([x, y], np.int32)), 255)
    return out


def _off_stickers(shape: tuple[int, ...], view: TrayView) -> np.ndarray:
    """Mask (uint8) of the floor without its corner stickers."""
    mask = np.full(shape[:2], 255, np.uint8)
    s = round(STICKER_MM * view.px_per_mm) + 2
    for y0, x0 in sticker_corners(shape, s):
        mask[max(y0, 0):y0 + s, max(x0, 0):x0 + s] = 0
    return mask


def white_level(darkest: np.ndarray, view: TrayView = REFERENCE_VIEW) -> float:
    """The level of the floor's ``whiteness`` (``darkest``) above which a pixel is the dice's white or grey.

    Measured between the floor and the dice's white as this tray shows them: the floor is the median of
    the floor (off its stickers), the dice's white its brightest thousandth. On a dark floor (felt, wood:
    dark in their darkest channel) the level is as low as the floor allows (the dice's shaded sides
    count too); on a light one (grey, beige, cream) halfway up to the dice's white, where a fixed step
    above the floor would put it above the dice themselves (a light grey floor gave no die at all).
    """
    return _levels(darkest, view)[0]


def _levels(darkest: np.ndarray, view: TrayView, halfway: bool = False) -> tuple[float, bool, float]:
    """(``white_level``, whether the floor is light: the level set halfway up to the dice's white, the dice's
    white)."""
    hist = cv2.calcHist([darkest], [0], _off_stickers(darkest.shape, view), [256], [0, 256]).ravel()
    cumulative = np.cumsum(hist)
    floor_level = float(np.searchsorted(cumulative, cumulative[-1] / 2))
    dice_white = float(np.searchsorted(cumulative, cumulative[-1] * _DICE_WHITE_QUANTILE))
    otsu, _ = cv2.threshold(darkest, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    middle = max((floor_level + dice_white) / 2, floor_level + _ABOVE_FLOOR_MIN)
    dark_floor_level = max(otsu, floor_level + 35)
    return (middle if halfway else min(dark_floor_level, middle)), middle < dark_floor_level, dice_white


# The dice's shaded sides are 0.68-0.9 of their tops' white: above this share of the white the level
# leaves only the tops (the sides no longer join a top's white around its symbol into one blob).
_TOPS_ONLY_SHARE = 0.7


@dataclass(frozen=True)
class FloorLevels:
    """How the dice are told from a tray's floor: above ``level`` in the darkest channel on a dark floor,
    in the ``whiteness`` on a light one (``light``). ``tops_only``: the level is so high that only the dice's
    tops clear it, in pieces where a big symbol and blur cut their white (``dice_outlines`` joins them)."""

    level: float
    light: bool
    tops_only: bool = False

    def image(self, tray: np.ndarray) -> np.ndarray:
        return whiteness(tray) if self.light else darkest_channel(tray)


def floor_levels(tray: np.ndarray, view: TrayView = REFERENCE_VIEW, halfway: bool = False) -> FloorLevels:
    """The ``FloorLevels`` of a rectified tray: a floor is light when the level halfway up from it to the
    dice's white lies below the dark floors' level (``white_level``); the dice are then found in the
    whiteness, which also takes a light floor's colour off it. With ``halfway`` the level is halfway up
    from the floor to the dice's white on any floor: where a blurred edge is (for measuring the dice)."""
    darkest = darkest_channel(tray)
    level, light, white = _levels(darkest, view)
    image = whiteness(tray) if light else darkest
    if halfway:
        return FloorLevels(_levels(image, view, halfway=True)[0], light, light)
    if light:
        return FloorLevels(_levels(image, view)[0], True, True)
    # A light grey floor just short of "light" (its halfway level a grey step above the dark floors'): the
    # level is as high, a head's top broke in two pieces each smaller than a die's, and the die was lost.
    return FloorLevels(level, False, level >= _TOPS_ONLY_SHARE * white)


def dice_outlines(tray: np.ndarray, view: TrayView = REFERENCE_VIEW, levels: FloorLevels | None = None) -> list[np.ndarray]:
    """Outlines of the white blobs (dice, touching dice as one) on the rectified tray floor (BGR)."""
    levels = levels or floor_levels(tray, view)
    image = levels.image(tray)
    _, mask = cv2.threshold(image, levels.level, 255, cv2.THRESH_BINARY)
    s = round(STICKER_MM * view.px_per_mm) + 2
    for y0, x0 in sticker_corners(image.shape, s):
        mask[y0:y0 + s, x0:x0 + s] = 0
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (7, 7)))
    if levels.tops_only:
        mask = _whole_tops(mask)
    # Outer outlines only: the symbols (holes in the white) are filled in.
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    return [outline for outline in contours if not _within_rim(outline, mask)]


def _within_rim(outline: np.ndarray, mask: np.ndarray) -> bool:
    """Whether a blob of ``mask`` lies within the floor's outer pixels (fewer than _RIM_BLOB_PX of its pixels
    beyond them). Those pixels mix in what lies beyond the floor (a light table by a light floor), joined
    along the wall into a spurious die that took a real die's place. (They are not simply left out of the
    mask: a die against the wall then lost its symbol, cut open to the floor.)"""
    h, w = mask.shape
    e = _EDGE_PX + 2
    x, y, bw, bh = cv2.boundingRect(outline)
    if x >= e and y >= e and x + bw <= w - e and y + bh <= h - e:
        return False  # clear of the rim: most blobs, nothing to count
    own = np.zeros((bh, bw), np.uint8)
    cv2.drawContours(own, [outline], -1, 1, -1, offset=(-x, -y))
    own &= mask[y:y + bh, x:x + bw] > 0
    inner = own[max(e - y, 0):max(h - e - y, 0), max(e - x, 0):max(w - e - x, 0)]
    return cv2.countNonZero(inner) < _RIM_BLOB_PX


# A blob with fewer pixels than this beyond the floor's outer pixels is no die (a tenth of a die's top).
_RIM_BLOB_PX = 0.1 * DIE_PX * DIE_PX


# A symbol is darker, in its darkest colour channel, than INK_DARK of the brightest pixel within
# WHITE_PX / 2 (the die's white around it, wherever the shade and whatever the colour cast).
WHITE_PX = 41
INK_DARK = 0.75
MIN_SYMBOL_PX = 60
# The 10 % darkest pixels of a symbol lie below this share of the white; the cube's sides, in shade,
# stay above 0.65 (a faint, blurred wall reaches about 0.68).
MAX_SYMBOL_DEPTH = 0.7
# A symbol beyond the dice the blob's area counts must be this clear (sum of darkness over its pixels).
# Blur takes ink off the symbols seen from far: from 90 cm one in fifty real ones has less than 60 (the
# faint log of a die packed among three was missed at 70), while what else is enclosed by white (a gap
# walled in by packed dice) stays under 50 but for one in a thousand symbols, and lies within a die of a
# real symbol.
EXTRA_SYMBOL_INK = 50.0
# Under this share of its top face on the floor a die's reading is doubtful: on 120 generated tables under
# the camera at 75 cm every die misread had 0.75 or less of its face in view, and 4 of 570 read right
# (in trays read all right) had less than 0.8.
FACE_SEEN_AT_LEAST = 0.8
# The tray is rectified this far beyond its floor on every side (``DiceReader.read_plane``): from 75 cm a
# die by the wall near the frame's edge leans out by up to 20 mm, its top's far edge up to 15 mm beyond.
SURROUND_MM = 16.0
SYMBOL_GAP = 0.75 * DIE_PX  # the symbols of two dice are at least this far apart
# A top face's symbol lies at least this far (in die sides) inside its blob; a mark nearer the blob's edge is on
# a side face seen at a slant, or a shadow. On 1,650 symbols of processed trays of touching dice (seed 555000,
# not bench_dice's), every top's symbol lay 0.40 of a side in or more; 19 of the 22 other marks, less than 0.35.
TOP_SYMBOL_DEPTH = 0.35
_WHITE_KERNEL = cv2.getStructuringElement(cv2.MORPH_RECT, (WHITE_PX, WHITE_PX))
# A top-face crop whose darkest pixels (``FaceInk.darkest``, relative to its white) are lighter than this shows no
# symbol: a die's side face, or the floor.
BLANK_FACE_ABOVE = 0.8
# A symbol whose darkest pixels are lighter than this (relative to the white) is faint, and its reading doubtful:
# on 2,249 dice of the held-out floors, any tray and die size (seed 31337, not bench_dice's), the 2,241 under it
# were all read right, and 2 of the 8 over it were misread, with 0.92 and 0.995.
FAINT_FACE_ABOVE = 0.65
# A symbol whose middle lies farther than this from the face crop's (CROP_PX a side) is looked for again: the crop
# is on a side face as much as on the top (the symbol's own rings follow it only 6 px: ``features._MAX_SHIFT``).
OFF_CENTRE_PX = 8.0
MIN_OFF_CENTRE_INK = 20  # ink pixels: fewer are specks, not a symbol to follow
# How far (in die sides) from a blank face the top's symbol is looked for: a die seen from the side shows a side
# face up to a die and a half long between the floor and its top.
BLANK_FACE_SEARCH = 1.5
# How far (in die sides) a top still not found is looked for by the floor's edge or beyond it
# (``DiceReader.surround_faces``).
FAR_TOP_SEARCH = 4.5
_EDGE_PX = 3  # the rectified tray's outer pixels mix in what lies beyond the floor
_Rect = tuple[tuple[float, float], tuple[float, float], float]  # cv2.minAreaRect: centre, size, angle


@dataclass(frozen=True)
class _Symbol:
    x: float
    y: float
    ink: float  # sum over its pixels of (1 - darkness relative to the white)


def _symbols(darkest: np.ndarray, blob: np.ndarray, origin: tuple[int, int],
             floor_edge: np.ndarray | None = None) -> list[_Symbol]:
    """The symbols inside one blob: dark pixels cut off from the floor by the die's white.

    ``darkest`` is the min over B, G, R of a patch around the blob, ``blob`` its mask there (bool).
    The cube's sides and the gaps between touching dice are dark too but reach the floor (a side
    next to the top is darker than the top's white within reach), so only the symbols are left.
    ``floor_edge`` (bool, the patch's pixels on the floor's own edge, ``_floor_edge``): the floor goes on
    beyond them, so what reaches them reaches the floor too.
    """
    white = cv2.dilate(darkest, _WHITE_KERNEL).astype(np.float32)
    relative = darkest.astype(np.float32) / np.maximum(white, 1.0)
    floor = ~blob if floor_edge is None else ~blob | floor_edge
    dark = ((relative < INK_DARK) & blob) | floor
    n, labels = cv2.connectedComponents(dark.view(np.uint8), connectivity=8)
    reaches_floor = np.zeros(n, bool)
    reaches_floor[labels[floor]] = True
    symbol = dark & ~reaches_floor[labels]
    # Join the pieces of one symbol a pixel apart (the bricks of a sharp wall).
    n, labels = cv2.connectedComponents(cv2.dilate(symbol.view(np.uint8), np.ones((3, 3), np.uint8)), connectivity=8)
    ys, xs = np.nonzero(symbol)
    if n <= 1 or not len(xs):
        return []
    ids = labels[ys, xs]
    rel = relative[ys, xs]
    count = np.bincount(ids, minlength=n)
    sum_x = np.bincount(ids, weights=xs, minlength=n)
    sum_y = np.bincount(ids, weights=ys, minlength=n)
    ink = np.bincount(ids, weights=1.0 - rel, minlength=n)
    order = np.argsort(ids, kind="stable")
    starts = np.concatenate([[0], np.cumsum(count)])
    out = []
    for j in range(1, n):
        if count[j] < MIN_SYMBOL_PX:
            continue
        own = order[starts[j]:starts[j + 1]]
        cx, cy = sum_x[j] / count[j], sum_y[j] / count[j]
        parts = _one_symbol_each(xs[own], ys[own], cx, cy)
        for part in parts:
            part_rel = rel[own[part]]
            if len(part_rel) < MIN_SYMBOL_PX:
                continue
            depth = float(np.partition(part_rel, len(part_rel) // 10)[len(part_rel) // 10])
            if depth > MAX_SYMBOL_DEPTH:
                continue
            if len(parts) == 1:
                out.append(_Symbol(origin[0] + cx, origin[1] + cy, float(ink[j])))
            else:
                out.append(_Symbol(origin[0] + float(xs[own[part]].mean()), origin[1] + float(ys[own[part]].mean()),
                                   float((1.0 - part_rel).sum())))
    return sorted(out, key=lambda sym: -sym.ink)


# A pixel looks like the floor when none of its colour channels is farther than this from the floor's median.
FLOOR_LIKE_WITHIN = 40

# A die placed from what is left of a packed blob has at least this share of the blob's white within half a die of
# its top, or it is doubtful (``DieBlob.placed_off_white``): on the tests' trays such tops had 0.82-0.95 of it, the
# one placed beside the blob on a black floor 0.10.
OFF_WHITE_BELOW = 0.5


def _white_share(blob: np.ndarray, centre: tuple[float, float]) -> float:
    """The share of ``blob`` (a patch's mask) within half a die of ``centre`` (patch pixels): 0 outside the patch."""
    half = int(round(DIE_PX / 2))
    x, y = int(round(centre[0])), int(round(centre[1]))
    window = blob[max(y - half, 0):max(y + half, 0), max(x - half, 0):max(x + half, 0)]
    return float(np.count_nonzero(window)) / float((2 * half) ** 2)


def _floor_colour(tray: np.ndarray) -> np.ndarray:
    """The median colour of a rectified floor (BGR; the dice cover a small part of it), every eighth pixel each way
    (a few thousand: 0.2 ms)."""
    return np.median(tray[::8, ::8].reshape(-1, tray.shape[2]), axis=0)


def _floor_edge(tray: np.ndarray, box: tuple[int, int, int, int], known: dict[str, np.ndarray]) -> np.ndarray | None:
    """The pixels of a patch ``box`` (x0, y0, x1, y1) of a rectified floor ``tray`` that lie on the floor's own
    edge and look like the floor there (None when the patch touches no edge). Dice packed against the wall close
    their outline along the edge, and the floor left between two of them and the wall was taken for a symbol: at
    bench_dice's seed a beige floor's pocket between two heads read as a log 15 mm from any die, and the real log,
    the faintest symbol of that blob, was dropped. A top leaning out over the wall is cut by the edge too, its
    symbol with it (a cross on blue felt): its pixels there are the symbol's colour, not the floor's. ``known``: the
    floor's colour once measured (``_floor_colour``: only for a patch on the edge, once a tray)."""
    height, width = tray.shape[:2]
    x0, y0, x1, y1 = box
    if x0 > 0 and y0 > 0 and x1 < width and y1 < height:
        return None
    edge = np.zeros((y1 - y0, x1 - x0), bool)
    edge[0, :] |= y0 == 0
    edge[-1, :] |= y1 == height
    edge[:, 0] |= x0 == 0
    edge[:, -1] |= x1 == width
    if "floor" not in known:
        known["floor"] = _floor_colour(tray)
    distance = np.abs(tray[y0:y1, x0:x1].astype(np.int16) - known["floor"].astype(np.int16)).max(axis=2)
    return edge & (distance <= FLOOR_LIKE_WITHIN)


# A symbol's pixels lie within this far of their middle (95th percentile, in die sides): on 1,558 symbols of
# touching dice (seed 555000, plain and processed, not bench_dice's) at most 0.52. Farther, they are two dice's
# symbols joined by the specks of a shaded top between them (0.78 on a blue felt tray of bench_dice).
SYMBOL_REACH = 0.65


def _one_symbol_each(xs: np.ndarray, ys: np.ndarray, cx: float, cy: float) -> list[np.ndarray]:
    """Index arrays into one dark component's pixels: the whole, or its two halves when it reaches farther than
    one symbol can (``SYMBOL_REACH``)."""
    whole = np.arange(len(xs))
    reach = (xs - cx) ** 2 + (ys - cy) ** 2  # squared: compared with a square, no roots taken
    k = int(0.95 * (len(reach) - 1))
    if float(np.partition(reach, k)[k]) <= (SYMBOL_REACH * DIE_PX) ** 2:
        return [whole]
    labels = _split_labels(np.column_stack([xs, ys]).astype(np.float32), 2, [])
    return [whole[labels == 0], whole[labels == 1]]


def _clear_of(sym: _Symbol, others: list[_Symbol]) -> bool:
    """Whether ``sym`` lies at least SYMBOL_GAP from each of ``others``: on another die than theirs."""
    return all((sym.x - o.x) ** 2 + (sym.y - o.y) ** 2 >= SYMBOL_GAP**2 for o in others)


def _apart(symbols: list[_Symbol], min_ink: float = 0.0) -> list[_Symbol]:
    """``symbols`` (clearest first) of at least ``min_ink``, without any within SYMBOL_GAP of a clearer one:
    one a die."""
    kept: list[_Symbol] = []
    for sym in symbols:
        if sym.ink >= min_ink and _clear_of(sym, kept):
            kept.append(sym)
    return kept


def _rival(sym: _Symbol, picked: list[_Symbol], symbols: list[_Symbol]) -> tuple[float, float] | None:
    """Where the clearest mark of a packed blob's ``symbols`` lies that is not ``picked``, at least EXTRA_SYMBOL_INK
    clear, within a die of ``sym`` and of no other die picked: the other candidate for ``sym``'s top (``DieBlob.rival``)."""
    others = [p for p in picked if p is not sym]
    for mark in symbols:  # (clearest first)
        if mark.ink >= EXTRA_SYMBOL_INK and mark not in picked and not _clear_of(mark, [sym]) and _clear_of(mark, others):
            return (mark.x, mark.y)
    return None


def _split(points: np.ndarray, k: int, seeds: list[tuple[float, float]], fixed: int = 0) -> list[np.ndarray]:
    """k groups of a blob's pixels (``_split_labels``)."""
    labels = _split_labels(points, k, seeds, fixed)
    return [points[labels == j] for j in range(k)]


# k-means of a blob's pixels: at most this many rounds, until no centre moves more than this many pixels.
_SPLIT_ROUNDS = 30
_SPLIT_SETTLED_PX = 0.5


def _split_labels(points: np.ndarray, k: int, seeds: list[tuple[float, float]], fixed: int = 0) -> np.ndarray:
    """Each point's group of k (k-means from ``seeds`` plus farthest points; deterministic). The first
    ``fixed`` seeds stay where they are (dice whose top was seen: only the others' groups move)."""
    centres = [np.asarray(s, np.float32) for s in seeds[:k]]
    if not centres:
        centres.append(points[np.argmax(((points - points.mean(axis=0)) ** 2).sum(axis=1))])
    while len(centres) < k:
        d = np.min([((points - c) ** 2).sum(axis=1) for c in centres], axis=0)
        centres.append(points[int(np.argmax(d))])

    def nearest() -> np.ndarray:
        return np.argmin([((points - c) ** 2).sum(axis=1) for c in centres], axis=0).astype(np.int32)

    assign = nearest()
    if fixed:
        for _ in range(_SPLIT_ROUNDS):
            moved = False
            for j in range(fixed, k):
                own = points[assign == j]
                if len(own):
                    new = own.mean(axis=0)
                    moved |= bool(np.abs(new - centres[j]).max() > _SPLIT_SETTLED_PX)
                    centres[j] = new
            assign = nearest()
            if not moved:
                break
        return assign
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, _SPLIT_ROUNDS, _SPLIT_SETTLED_PX)
    _, assign, _ = cv2.kmeans(points, k, assign.reshape(-1, 1), criteria, 1, cv2.KMEANS_USE_INITIAL_LABELS)
    return assign.ravel()


def _depth_inside(blob: np.ndarray, box: tuple[int, int, int, int], width: int, height: int) -> np.ndarray:
    """Each pixel's distance to the edge of ``blob`` (its patch ``box`` in a tray ``width`` x ``height``); the
    tray's own edges are no edge (a die by the wall is cut there, not ended)."""
    x0, y0, x1, y1 = box
    reach = int(DIE_PX)
    sides = (reach if y0 == 0 else 0, reach if y1 == height else 0, reach if x0 == 0 else 0, reach if x1 == width else 0)
    grown = cv2.copyMakeBorder(blob, *sides, cv2.BORDER_REPLICATE) if any(sides) else blob
    grown = cv2.copyMakeBorder(grown, 1, 1, 1, 1, cv2.BORDER_CONSTANT, value=0)
    depth = cv2.distanceTransform(grown, cv2.DIST_L2, 5)
    return depth[1 + sides[0]:1 + sides[0] + blob.shape[0], 1 + sides[2]:1 + sides[2] + blob.shape[1]]


def _outline_patch(outline: np.ndarray, pad: int, width: int, height: int) -> tuple[np.ndarray, tuple[int, int, int, int]]:
    """An outline filled in (1 inside) on its bounding box grown by ``pad`` within the picture, and that box
    (x0, y0, x1, y1)."""
    x, y, w, h = cv2.boundingRect(outline)
    x0, y0, x1, y1 = max(x - pad, 0), max(y - pad, 0), min(x + w + pad, width), min(y + h + pad, height)
    blob = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.drawContours(blob, [outline], -1, 1, -1, offset=(-x0, -y0))
    return blob, (x0, y0, x1, y1)


# A lone die's symbol lies this far (in die sides) from where the camera's lean, measured on at least
# LEAN_FROM_DICE lone dice, puts its top face at most: on 810 lone dice of processed trays (seed 555000, not
# bench_dice's), real symbols lay within 0.19 of a side (99th percentile), the one taken from a shadow at 0.59.
LEAN_TRUST = 0.35
LEAN_FROM_DICE = 3


def segment_dice(tray: np.ndarray, view: TrayView = REFERENCE_VIEW, levels: FloorLevels | None = None) -> list[DieBlob]:
    """The dice lying in a rectified tray: each top face's centre and axes (``levels``: the tray's ``floor_levels``,
    when the caller has them).

    Blobs of white are counted in dice by their area; each die's top face is then found by its symbol
    (the only dark thing enclosed by a die's white), which also corrects the count when packed dice
    hide each other's sides. A die whose symbol is not seen falls back to splitting the blob's pixels
    and the camera's lean measured on the other dice.
    """
    darkest = darkest_channel(tray)
    floor_colour: dict[str, np.ndarray] = {}  # (measured when a blob first touches the floor's edge)
    outlines = dice_outlines(tray, view, levels)
    top_area = DIE_PX * DIE_PX
    height, width = darkest.shape
    pad = WHITE_PX // 2 + 1
    components: list[int] = []
    areas: dict[int, int] = {}
    patches: dict[int, tuple[np.ndarray, int, int]] = {}
    rects: dict[int, _Rect] = {}
    symbols: dict[int, list[_Symbol]] = {}
    singles = []
    for i, outline in enumerate(outlines):
        if cv2.contourArea(outline) < 0.4 * top_area:
            continue
        blob, (x0, y0, x1, y1) = _outline_patch(outline, pad, width, height)
        areas[i] = cv2.countNonZero(blob)
        if areas[i] < 0.45 * top_area:
            continue
        components.append(i)
        patches[i] = (blob, x0, y0)
        rects[i] = cv2.minAreaRect(outline)
        rw, rh = rects[i][1]
        # (a lone die seen at a slant is its top plus a side or two: up to ~1.5 times as long as wide)
        if areas[i] < 1.9 * top_area and max(rw, rh) / max(min(rw, rh), 1.0) < 1.7:
            singles.append(areas[i])
        depth = _depth_inside(blob, (x0, y0, x1, y1), width, height)
        symbols[i] = [sym for sym in _symbols(darkest[y0:y1, x0:x1], blob.view(bool), (x0, y0),
                                              _floor_edge(tray, (x0, y0, x1, y1), floor_colour))
                      if depth[int(round(sym.y)) - y0, int(round(sym.x)) - x0] >= TOP_SYMBOL_DEPTH * DIE_PX]
    if not components:
        return []
    # One die's blob is its top plus the sides the camera sees: learn that unit from the lone dice.
    unit = float(np.median(singles)) if singles else top_area * 1.25
    unit = float(np.clip(unit, top_area * 0.85, top_area * 2.2))
    counts = {i: max(1, int(round(areas[i] / unit))) for i in components}
    # Five dice at most lie in the tray: take surplus splits first from the blobs with fewer clear symbols than
    # dice, from the one whose dice would be the smallest without it. Packed dice whose sides show (the camera
    # leaning in) count a die too many by area; taken from the blob with least area per die, that was a pair of
    # two clear symbols next to them, and one of its dice was lost. Since stop 62 the area a die would have after
    # the split is taken away, not before: a tray at the frame's edge (dice leaning far) counted 5 dice by area in a
    # cluster of 3 and 2 in a touching pair by the wall, 2.2 units; least area per die before took the pair's second
    # die (2.2 units for one die), after takes the cluster's (1.6 units a die). bench_dice's whole tables 746 -> 747
    # of 750 dice right, every tray of its floors and sizes as before (6,300 of 6,300).
    clear = {i: len(_apart(symbols[i], EXTRA_SYMBOL_INK)) for i in components}
    while sum(counts.values()) > MAX_DICE and any(k > 1 for k in counts.values()):
        unsure = [i for i in counts if counts[i] > max(1, clear[i])]
        crowded = min(unsure or (i for i in counts if counts[i] > 1), key=lambda i: areas[i] / (counts[i] - 1))
        counts[crowded] -= 1
    # Each blob's symbols, clearest first, never two within one die of each other; beyond the area's
    # count only clear ones (packed dice hide each other's sides, so their blob looks a die short).
    chosen: dict[int, list[_Symbol]] = {}
    for i in components:
        picked: list[_Symbol] = []
        for sym in symbols[i]:
            if len(picked) >= counts[i] and sym.ink < EXTRA_SYMBOL_INK:
                break
            if _clear_of(sym, picked):
                picked.append(sym)
        chosen[i] = picked
    for i in sorted(components, key=lambda i: -len(chosen[i])):
        if len(chosen[i]) > counts[i]:
            counts[i] += max(0, min(MAX_DICE - sum(counts.values()), len(chosen[i]) - counts[i]))
        chosen[i] = chosen[i][:counts[i]]
    # The camera's lean (where a top face sits off its blob), from the lone dice whose symbol was seen.
    leans = [(chosen[i][0].x - rects[i][0][0], chosen[i][0].y - rects[i][0][1]) for i in components
             if counts[i] == 1 and chosen[i]]
    lean = np.median(np.array(leans), axis=0) if leans else np.zeros(2)
    blobs: list[DieBlob] = []
    for i in components:
        k, picked = counts[i], chosen[i]
        blob, x0, y0 = patches[i]
        units = float(areas[i] / unit)
        if k == 1 and picked:
            top = (picked[0].x, picked[0].y)
            expected = (rects[i][0][0] + float(lean[0]), rects[i][0][1] + float(lean[1]))
            if len(leans) >= LEAN_FROM_DICE and np.hypot(top[0] - expected[0], top[1] - expected[1]) > LEAN_TRUST * DIE_PX:
                # What was taken for its symbol lies where no top face of this blob can be (a shadow, a
                # side's edge; the real symbol too faint to be seen): the top is where the lean puts it.
                top = expected
            blobs.append(DieBlob(top, float(rects[i][2] % 90.0), units))
            continue
        ys, xs = np.nonzero(blob)
        points = np.column_stack([xs + x0, ys + y0]).astype(np.float32)
        if len(picked) == k:
            # Each die's own pixels are those nearer its symbol than any other's (for its axes).
            centres = np.array([(p.x, p.y) for p in picked], np.float32)
            nearest = np.argmin(((points[:, None, :] - centres[None]) ** 2).sum(axis=2), axis=1)
            for j, p in enumerate(picked):
                own = points[nearest == j]
                angle = cv2.minAreaRect(own)[2] if len(own) >= 5 else rects[i][2]
                blobs.append(DieBlob((p.x, p.y), float(angle % 90.0), units, rival=_rival(p, picked, symbols[i])))
            continue
        # Some symbol unseen: each die whose symbol was seen has its top there; the blob's pixels are split
        # among those dice (held at their symbols) and the unseen ones, whose tops are where the lean puts
        # them from their group. (k-means over every die moved seen tops too: a pink floor taken into a blob
        # of five packed dice drew two groups off their clear symbols, and two dice were misplaced.)
        groups = [points] if k == 1 else _split(points, k, [(p.x - lean[0], p.y - lean[1]) for p in picked],
                                                fixed=len(picked))
        for j, group in enumerate(groups):
            if j < len(picked):
                angle = cv2.minAreaRect(group)[2] if len(group) >= 5 else rects[i][2]
                blobs.append(DieBlob((picked[j].x, picked[j].y), float(angle % 90.0), units,
                                     rival=_rival(picked[j], picked, symbols[i])))
                continue
            if len(group) < 0.3 * top_area:
                continue
            (cx, cy), _, angle = cv2.minAreaRect(group)
            top = (cx + float(lean[0]), cy + float(lean[1]))
            off_white = k > 1 and _white_share(blob, (top[0] - x0, top[1] - y0)) < OFF_WHITE_BELOW
            blobs.append(DieBlob(top, float(angle % 90.0), units, placed_off_white=off_white))
    return blobs


# On a floor nearly as light as the dice the dice's white hardly stands out from it, and the blobs ``segment_dice``
# starts from break up, vanish or take in the floor: from SYMBOLS_FIRST_FROM (``floor_lightness``) the dice are also
# looked for by their symbols (``dice_by_symbols``), the one thing on such a floor much darker than the white within
# reach, and those found so are read when the blobs miss any of them (``DiceReader.surround_faces``). 0.8 takes in
# the floors that lost dice on the renderer written apart from ours (0.83 and up); at 0.75 the symbol path also took
# our beige tray (0.79), whose blobs read it and whose symbols it misplaced. From 0.8 the lightest floors the blobs
# do read (cream, just under or over the line) keep their blobs, each at a symbol.
SYMBOLS_FIRST_FROM = 0.8
# Under SYMBOLS_SECOND_BELOW a symbol with the die's white around it stands out from the floor too, and where the blobs
# leave a tray doubtful (``_doubtful_tray``) its dice found by their symbols are read when they are the surer reading
# (``_surer_reading``): on a dark brown floor of the renderer written apart from ours (0.2), dice drawn leaning, with
# their sides in view, gave blobs of one die and a half, all five doubted and two misread, where the symbols read all
# five right. On floors between the two (our beige, 0.79) the symbols misplaced two of 42 small dice, sure of them.
SYMBOLS_SECOND_BELOW = 0.5
# A mark is a symbol when its darkest tenth lies under LIGHT_FLOOR_SYMBOL_DEPTH of the white around it (MAX_SYMBOL_DEPTH:
# a die's shaded side stays above it) and it is at most LIGHT_FLOOR_SYMBOL_LONG dice long (on our generator's 'white
# paper' floor, never trained on, seeds 1000-1007 and 2000-2007, every symbol was 0.59-1.00 long).
LIGHT_FLOOR_SYMBOL_DEPTH = MAX_SYMBOL_DEPTH
LIGHT_FLOOR_SYMBOL_LONG = 1.05
# A die's axes are read from the edges around its symbol, between these distances from its middle (die sides): the
# top face's own outline and the sides' (the symbol's edges, nearer, turn with the symbol's drawing, not the die).
_AXES_RING = (0.3, 0.75)
# A mark too long for a symbol is looked into again at levels this much darker a step (``_symbol_marks``).
_DEEPER_BY = 0.05
# A die's shadow is dark too, and cut off from the die at a darker level it breaks into marks as short as a symbol.
# What tells them apart is the white just around the mark (``_white_around``: within _AROUND_PX, at _AROUND_WHITE of
# the white within reach or more): a symbol lies in its top face's white, a shadow between the floor and the die's
# shaded side. On our generator's 'white paper' floor (seeds 3000-3019, 16 mm dice, and 7000-7019, 14 mm) all 200
# symbols had 0.6 of it white or more (197 of them 0.8), 141 of the 170 shadow pieces less than 0.6. Marks are
# taken whitest around first; under AROUND_WHITE_AT_LEAST none is a symbol, under AROUND_WHITE_SURE a die found
# there is doubtful (``DieBlob.little_white``).
_AROUND_PX = 4
_AROUND_WHITE = 0.85
AROUND_WHITE_AT_LEAST = 0.15
AROUND_WHITE_SURE = 0.5
# Two marks nearer than this (die sides) are one die's symbol and its shadow: two dice's symbols lie a side apart at
# least (their tops do not overlap), a shadow's pieces 0.62-1.08 of a side from the symbol. Under a side: the die's
# size may be unmeasured on such a floor (``measure_die`` needs its blobs), and 14 mm dice are then 0.875 of DIE_PX.
SHADOW_REACH = 0.85


def die_axes(gray: np.ndarray, centre: tuple[float, float]) -> float:
    """The die's axes (degrees modulo 90, as ``cv2.minAreaRect`` turns them) around a top face's ``centre``: the
    direction the grey level's edges there agree on, each edge weighted by its strength, fourfold symmetric."""
    reach = int(_AXES_RING[1] * DIE_PX) + 2
    height, width = gray.shape
    cx, cy = centre
    x0, x1 = max(0, int(cx) - reach), min(width, int(cx) + reach + 1)
    y0, y1 = max(0, int(cy) - reach), min(height, int(cy) + reach + 1)
    if x1 - x0 < 3 or y1 - y0 < 3:
        return 0.0
    patch = cv2.GaussianBlur(gray[y0:y1, x0:x1].astype(np.float32), (3, 3), 0)
    gx = cv2.Sobel(patch, cv2.CV_32F, 1, 0)
    gy = cv2.Sobel(patch, cv2.CV_32F, 0, 1)
    ys, xs = np.mgrid[y0:y1, x0:x1]
    distance = np.hypot(xs - cx, ys - cy) / DIE_PX
    weight = np.hypot(gx, gy) * ((distance > _AXES_RING[0]) & (distance < _AXES_RING[1]))
    turn = complex((weight * np.exp(4j * np.arctan2(gy, gx))).sum())
    return float(np.degrees(np.angle(turn)) / 4.0) % 90.0


def _symbol_marks(ink: np.ndarray, relative: np.ndarray, marks: list[tuple[float, float, float]],
                  level: float = INK_DARK, origin: tuple[int, int] = (0, 0)) -> None:
    """Append to ``marks`` (white around it: ``_white_around``, x, y) each mark of ``ink`` (uint8 mask of ``relative`` under ``level``) that is a
    symbol by ``dice_by_symbols``' bounds. A mark too long is looked into again at ever darker levels (``_DEEPER_BY``
    a step) down to its own darkest tenth: a symbol joined by its paler edge to the die's shaded side or its shadow
    (on the renderer written apart from ours, 2 heads of 5 and most crosses on light floors) comes apart from them."""
    n, labels, stats, centres = cv2.connectedComponentsWithStats(ink, connectivity=8)
    for j in range(1, n):
        x, y, w, h, area = (int(v) for v in stats[j])
        if area < MIN_SYMBOL_PX:
            continue
        own = labels[y:y + h, x:x + w] == j
        darkness = relative[y:y + h, x:x + w][own]
        depth = float(np.partition(darkness, len(darkness) // 10)[len(darkness) // 10])
        if depth > LIGHT_FLOOR_SYMBOL_DEPTH:
            continue
        (_, _), (rw, rh), _ = cv2.minAreaRect(cv2.findNonZero(own.view(np.uint8)))
        if max(rw, rh) <= LIGHT_FLOOR_SYMBOL_LONG * DIE_PX:
            marks.append((_white_around(relative, own, x, y), origin[0] + float(centres[j][0]),
                          origin[1] + float(centres[j][1])))
        elif level - _DEEPER_BY > depth:
            deeper = level - _DEEPER_BY
            core = (own & (relative[y:y + h, x:x + w] < deeper)).view(np.uint8)
            _symbol_marks(core, relative[y:y + h, x:x + w], marks, deeper, (origin[0] + x, origin[1] + y))


def _white_around(relative: np.ndarray, own: np.ndarray, x: int, y: int) -> float:
    """The share of the pixels just around a mark (``own``, its mask at (x, y) in ``relative``) that are white."""
    r = _AROUND_PX
    h, w = relative.shape
    x0, y0, x1, y1 = max(0, x - r), max(0, y - r), min(w, x + own.shape[1] + r), min(h, y + own.shape[0] + r)
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    mask[y - y0:y - y0 + own.shape[0], x - x0:x - x0 + own.shape[1]] = own
    ring = cv2.dilate(mask, np.ones((2 * r + 1, 2 * r + 1), np.uint8)) > cv2.dilate(mask, np.ones((3, 3), np.uint8))
    around = relative[y0:y1, x0:x1][ring]
    return float((around >= _AROUND_WHITE).mean()) if around.size else 0.0


def dice_by_symbols(tray: np.ndarray, view: TrayView = REFERENCE_VIEW) -> list[DieBlob]:
    """The dice of a rectified tray whose floor is nearly as light as they are (``SYMBOLS_FIRST_FROM``): a top face
    at each symbol, the darkest marks against the white within reach (the dice's, or the floor's as light), those
    deep and short enough for a symbol (``LIGHT_FLOOR_SYMBOL_DEPTH``, ``LIGHT_FLOOR_SYMBOL_LONG``), those whitest
    around first (``AROUND_WHITE_AT_LEAST``) and never two within SHADOW_REACH of each other, MAX_DICE at most; its
    axes from the edges around it (``die_axes``)."""
    darkest = darkest_channel(tray)
    white = cv2.dilate(darkest, _WHITE_KERNEL).astype(np.float32)
    relative = darkest.astype(np.float32) / np.maximum(white, 1.0)
    ink = ((relative < INK_DARK) & (_off_stickers(tray.shape, view) > 0)).view(np.uint8)
    rim = _EDGE_PX + 1
    ink[:rim] = 0
    ink[-rim:] = 0
    ink[:, :rim] = 0
    ink[:, -rim:] = 0
    # (Pieces a pixel apart are one mark: the bricks of a wall.)
    ink = cv2.morphologyEx(ink, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    marks: list[tuple[float, float, float]] = []  # (white around, x, y)
    _symbol_marks(ink, relative, marks)
    kept: list[tuple[float, float, float]] = []
    for around, x, y in sorted(marks, reverse=True):
        if around < AROUND_WHITE_AT_LEAST:
            break
        if all(np.hypot(x - other[1], y - other[2]) >= SHADOW_REACH * DIE_PX for other in kept):
            kept.append((around, x, y))
    gray = cv2.cvtColor(tray, cv2.COLOR_BGR2GRAY) if tray.ndim == 3 else tray
    return [DieBlob((x, y), die_axes(gray, (x, y)), 1.0, little_white=around < AROUND_WHITE_SURE)
            for around, x, y in kept[:MAX_DICE]]


_WIDTH_DIRECTIONS = np.deg2rad(np.arange(0.0, 180.0, 1.0))
_UNIT_NORMALS = np.column_stack([np.cos(_WIDTH_DIRECTIONS), np.sin(_WIDTH_DIRECTIONS)])


# A lone die's blob (its top and the sides the camera sees) is less than this many times another's (the
# sides seen grow with the lean, the same for every die in the tray); two touching dice are about twice one.
_SINGLE_AREA_RATIO = 1.5


def measure_die(tray: np.ndarray, view: TrayView = REFERENCE_VIEW) -> float | None:
    """The side of the dice in the tray, millimetres, measured on a rectified tray (``view``'s scale);
    None when no lone die shows a symbol and no blob two clear ones (or the side is not one believed on this floor:
    ``geometry.believable_die_mm``).

    A die seen from the camera is its top square and, where the camera looks in at an angle, the sides
    between the top and its base: the shape of its top swept along the lean (the top's offset from the
    base, the same for every die in the tray). Its width across a direction n is then the square's width
    plus |lean . n|, and the square's width is the side itself across its own axes: so the side is the
    least, over all directions, of the blob's width less |lean . n|. The lean is twice the offset of a
    die's symbol (its top's centre) from its blob's centre (the middle of the sweep), and the dice's side
    the median over the lone dice (blobs of one clear symbol, none much larger than another; of one symbol
    clear or faint when the clear ones show fewer than two). With no lone die, the closest two clear
    symbols of one blob (two touching dice) measure it.
    """
    darkest = darkest_channel(tray)
    floor_colour: dict[str, np.ndarray] = {}  # (measured when a blob first touches the floor's edge)
    outlines = dice_outlines(tray, view, floor_levels(tray, view, halfway=True))
    least_top = (LEAST_DIE_SEEN_MM * view.px_per_mm) ** 2
    height, width = darkest.shape
    pad = WHITE_PX // 2 + 1
    blobs: list[tuple[np.ndarray, float, tuple[float, float], list[_Symbol]]] = []
    for outline in sorted(outlines, key=cv2.contourArea, reverse=True)[:2 * MAX_DICE]:
        area = cv2.contourArea(outline)
        if area < 0.6 * least_top:
            continue
        blob, (x0, y0, x1, y1) = _outline_patch(outline, pad, width, height)
        symbols = _symbols(darkest[y0:y1, x0:x1], blob.view(bool), (x0, y0), _floor_edge(tray, (x0, y0, x1, y1), floor_colour))
        hull = cv2.convexHull(outline).reshape(-1, 2).astype(np.float64)
        blobs.append((hull, area, cv2.minAreaRect(outline)[0], symbols))
    # Clear symbols first; from far (14 mm dice 11 px a side) every symbol may be fainter than that, or a
    # single lone die left to give the lean, and a lone die's blob is then told by any symbol it shows.
    sides = _lone_dice_sides(blobs, EXTRA_SYMBOL_INK)
    if len(sides) < _LONE_DICE_ENOUGH:
        sides = max(sides, _lone_dice_sides(blobs, 0.0), key=len)
    if sides:
        die_mm = float(np.median(sides)) / view.px_per_mm
    else:
        # Every die touches another: two touching dice's tops are at least a side apart, nearly a side where
        # they lie flush, so the closest two symbols in one blob measure the side (a little long).
        spacing = [np.hypot(a.x - b.x, a.y - b.y) for *_, symbols in blobs
                   for a, b in itertools.combinations(_apart(symbols, EXTRA_SYMBOL_INK), 2)]
        if not spacing:
            return None
        die_mm = float(min(spacing)) / view.px_per_mm
    low, high = believable_die_mm(view.layout.width_mm, view.layout.height_mm)
    return die_mm if low <= die_mm <= high else None


# The kit's smallest dice are 14 mm, and our pink tray's (0.86 of the white) measure 14.1 mm. Two near-white trays of the
# renderer written apart from ours measured theirs 12.0 mm, a third under what they look: read at that scale their
# symbols were too large to be found (1 die of 5 on each). Under 16 mm, the reference, would have taken in the pink one
# too, and one of its faces was then misread.
LIGHT_FLOOR_LEAST_DIE_MM = 13.0


def believed_die(floor: np.ndarray, view: TrayView = REFERENCE_VIEW) -> float | None:
    """The dice's side as ``measure_die`` measures it on a rectified tray ``floor``, unless not believed: on a floor nearly
    as light as the dice (``SYMBOLS_FIRST_FROM``) their white merges with the floor's and their blobs shrink, so a side
    measured there under LIGHT_FLOOR_LEAST_DIE_MM is not."""
    measured = measure_die(floor, view)
    if measured is not None and measured < LIGHT_FLOOR_LEAST_DIE_MM and (floor_lightness(floor, view) or 0.0) >= SYMBOLS_FIRST_FROM:
        return None
    return measured


# A blob under 0.6 of a square this size is no die's (the smallest dice, 14 mm, seen blurred from far).
LEAST_DIE_SEEN_MM = 12.0


# ``measure_die`` takes the faint symbols too when the clear ones show fewer lone dice than this.
_LONE_DICE_ENOUGH = 2


def _lone_dice_sides(blobs: list[tuple[np.ndarray, float, tuple[float, float], list[_Symbol]]], min_ink: float) -> list[float]:
    """The sides (pixels) of the lone dice among ``blobs`` (hull, area, centre, symbols), told by their
    symbols of at least ``min_ink``, the lean taken from the same dice (``measure_die``)."""
    told = [_apart(symbols, min_ink) for _, _, _, symbols in blobs]
    counts = [len(apart) for apart in told]
    # One clear symbol is one die only in a blob no larger than _SINGLE_AREA_RATIO times the least blob
    # showing one symbol, clear or faint: a pair of touching small dice (14 mm) whose second symbol is faint
    # shows one clear symbol too, and its symbol's offset from the pair's middle, taken for the lean, made
    # the lone dice measure 8 mm (and two such pairs, the least blob of one clear symbol a pair, 10 mm).
    ones = [area for (_, area, _, symbols), count in zip(blobs, counts, strict=True)
            if count == 1 or len(_apart(symbols)) == 1]
    if not ones:
        return []
    single = [count == 1 and blob[1] <= _SINGLE_AREA_RATIO * min(ones) for blob, count in zip(blobs, counts, strict=True)]
    offsets = [(apart[0].x - centre[0], apart[0].y - centre[1])
               for (_, _, centre, _), apart, one in zip(blobs, told, single, strict=True) if one]
    if not offsets:
        return []
    lean = 2.0 * np.median(np.array(offsets), axis=0)
    leaning = np.abs(_UNIT_NORMALS @ lean)
    sides = []
    for (hull, _, _, _), one in zip(blobs, single, strict=True):
        if one:
            projections = hull @ _UNIT_NORMALS.T
            widths = projections.max(axis=0) - projections.min(axis=0)
            sides.append(float(np.min(widths - leaning)))
    return sides


def _crop_matrix(blob: DieBlob) -> np.ndarray:
    """Tray pixels -> face crop pixels: the top face, turned square to the crop, CROP_PX a side."""
    matrix = cv2.getRotationMatrix2D(blob.centre, blob.angle_deg, CROP_PX / DIE_PX)
    matrix[:, 2] += np.array([CROP_PX / 2, CROP_PX / 2]) - np.array(blob.centre)
    return matrix


def _wholly_inside(shape: tuple[int, ...], blob: DieBlob) -> bool:
    height, width = shape[:2]
    reach = DIE_PX * 0.75 + 1  # half the crop's diagonal, in tray pixels
    x, y = blob.centre
    return _EDGE_PX + reach <= x < width - _EDGE_PX - reach and _EDGE_PX + reach <= y < height - _EDGE_PX - reach


def top_beyond_floor(surround: np.ndarray, margin: int, blob: DieBlob, levels: FloorLevels,
                     others: tuple[tuple[float, float], ...] = (), within: float = 1.0,
                     where: Callable[[float, float], bool] | None = None) -> DieBlob:
    """``blob`` (floor pixels) with its top face found again in ``surround`` (the floor and ``margin``
    pixels beyond it on every side): a die by the wall leans out over the floor's edge, and on the floor
    alone its symbol was cut, which put the top's centre off. The symbol nearest the first guess, within
    a die, among the dark patches enclosed by the white (above ``levels``, as ``floor_levels`` set them
    on the floor) that the die's own white belongs to; the blob as it was when there is none. A symbol
    within SYMBOL_GAP of ``others`` (the other dice's tops, floor pixels) is theirs, not this die's: a die
    against the wall whose own symbol was not seen took its touching neighbour's, and the two were read as one.
    ``within``: how far (in die sides) from the first guess the symbol may lie; ``where`` (a symbol's centre in
    ``surround``'s pixels): whether a symbol there may be taken."""
    cx, cy = blob.centre[0] + margin, blob.centre[1] + margin
    reach = int((within + 0.5) * DIE_PX)
    x0, y0 = max(int(cx) - reach, 0), max(int(cy) - reach, 0)
    x1, y1 = min(int(cx) + reach, surround.shape[1]), min(int(cy) + reach, surround.shape[0])
    darkest = darkest_channel(surround[y0:y1, x0:x1])
    white = (levels.image(surround[y0:y1, x0:x1]) >= levels.level).astype(np.uint8)
    white = cv2.morphologyEx(white, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (7, 7)))
    # The die's white: the component with most white pixels within half a die of the first guess.
    n, labels = cv2.connectedComponents(white, connectivity=8)
    near = np.zeros_like(white)
    cv2.circle(near, (int(round(cx - x0)), int(round(cy - y0))), int(DIE_PX / 2), 1, -1)
    counts = np.bincount(labels[(near > 0) & (white > 0)], minlength=n)
    if n <= 1 or counts[1:].max() == 0:
        return blob
    die = (labels == 1 + int(np.argmax(counts[1:]))).astype(np.uint8)
    # Its symbols are holes in it: filled in, they belong to it.
    outlines, _ = cv2.findContours(die, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    filled = np.zeros_like(die)
    cv2.drawContours(filled, outlines, -1, 1, -1)
    taken = [_Symbol(x + margin, y + margin, 0.0) for x, y in others]
    near_symbols = [sym for sym in _symbols(darkest, filled.view(bool), (x0, y0))
                    if (sym.x - cx) ** 2 + (sym.y - cy) ** 2 < (within * DIE_PX) ** 2 and _clear_of(sym, taken)
                    and (where is None or where(sym.x, sym.y))]
    if not near_symbols:
        return blob
    best = min(near_symbols, key=lambda sym: (sym.x - cx) ** 2 + (sym.y - cy) ** 2)
    return DieBlob((best.x - margin, best.y - margin), blob.angle_deg, blob.area_units)


def _by_the_edge(shape: tuple[int, ...], margin: int, view: TrayView) -> Callable[[float, float], bool]:
    """Whether a point of a surround (a floor of ``shape`` with ``margin`` pixels beyond it on every side) lies
    within a die of the floor's edge or beyond it, and off its corner stickers."""
    height, width = shape[:2]
    off_stickers = _off_stickers(shape, view)

    def by_the_edge(x: float, y: float) -> bool:
        fx, fy = x - margin, y - margin
        if 0 <= fx < width and 0 <= fy < height and not off_stickers[int(fy), int(fx)]:
            return False
        return min(fx, fy, width - fx, height - fy) < DIE_PX

    return by_the_edge


def _in_surround(blob: DieBlob, margin: int) -> DieBlob:
    rival = None if blob.rival is None else (blob.rival[0] + margin, blob.rival[1] + margin)
    return replace(blob, centre=(blob.centre[0] + margin, blob.centre[1] + margin), rival=rival)


def blank_face(ink: FaceInk) -> bool:
    """Whether a face crop (``FaceInk``) shows no symbol at all: its darkest pixels nearly as light as its white."""
    return ink.darkest > BLANK_FACE_ABOVE


def faint_face(ink: FaceInk) -> bool:
    """Whether a face crop's symbol is faint (``FAINT_FACE_ABOVE``)."""
    return ink.darkest > FAINT_FACE_ABOVE


def symbol_off_centre(ink: FaceInk) -> bool:
    """Whether a face crop's symbol (``FaceInk``: at least MIN_OFF_CENTRE_INK pixels of it) lies farther than
    OFF_CENTRE_PX from the crop's middle."""
    moments = ink.moments
    if moments["m00"] < MIN_OFF_CENTRE_INK:
        return False
    centre = (CROP_PX - 1) / 2
    dx, dy = moments["m10"] / moments["m00"] - centre, moments["m01"] / moments["m00"] - centre
    return dx * dx + dy * dy > OFF_CENTRE_PX**2


def face_crop(tray: np.ndarray, blob: DieBlob) -> np.ndarray:
    """The top face, axis-aligned, CROP_PX square (the symbol's own turn is left to the features)."""
    return seen_face_crop(tray, blob)[0]


def seen_face_crop(tray: np.ndarray, blob: DieBlob) -> tuple[np.ndarray, float]:
    """``face_crop``, and how much of the top face lies on ``tray``.

    A die by the tray's wall, seen leaning outwards, shows its top partly beyond the floor's edge
    (and the rectified floor's outermost pixels blend in what lies beyond it): the crop is white
    there, the die's own white (edge rows repeated or mirrored would draw stripes or a second symbol).
    """
    matrix = _crop_matrix(blob)
    if _wholly_inside(tray.shape, blob):
        return cv2.warpAffine(tray, matrix, (CROP_PX, CROP_PX), flags=cv2.INTER_LINEAR), 1.0
    inside = tray[_EDGE_PX:-_EDGE_PX, _EDGE_PX:-_EDGE_PX]
    matrix[:, 2] += matrix[:, :2] @ np.array([_EDGE_PX, _EDGE_PX], np.float64)
    crop = cv2.warpAffine(inside, matrix, (CROP_PX, CROP_PX), flags=cv2.INTER_LINEAR)
    seen = cv2.warpAffine(np.full(inside.shape[:2], 255, np.uint8), matrix, (CROP_PX, CROP_PX), flags=cv2.INTER_LINEAR)
    unseen = seen < 255
    seen_fraction = 1.0 - float(unseen.mean())
    if unseen.all():
        return crop, seen_fraction
    if unseen.any():
        darkest = crop.min(axis=2)
        bright = ~unseen & (darkest >= np.percentile(darkest[~unseen], 90))
        crop[unseen] = crop[bright].mean(axis=0).astype(np.uint8)
    return crop, seen_fraction


# How many of the last dice measurements ``DiceReader.dice_side`` takes the median of.
DICE_SIDES_REMEMBERED = 15


class DiceReader:
    """Dice faces in the tray of a frame; None when the tray is not in view.

    The tray's size is measured from its stickers (``locate``), the dice's from their blobs
    (``measure_die``); the floor is then rectified so that a die is DIE_PX a side, whatever the tray and
    the dice. A tray seen with markers on one side only takes its other side from the last tray measured
    whole (the tray of this table: the last measured with all four stickers in view holds while one is
    covered). ``die_mm`` gives the dice's side instead when it is known (nothing is measured then).
    """

    def __init__(self, classifier: DiceClassifier | None = None, die_mm: float | None = None,
                 face_network: FaceNetwork | None = None) -> None:
        self.classifier = classifier or DiceClassifier()
        # The face network's reading is multiplied with the classifier's (``faces.combined``); set to None, the
        # classifier reads alone (as before the network, for comparing).
        self.face_network: FaceNetwork | None = face_network or FaceNetwork()
        self.die_mm = die_mm
        self.forget()

    def forget(self) -> None:
        """Another table: nothing remembered of the last tray and dice."""
        self.tray_mm: tuple[float, float] | None = None
        self.sides_measured: deque[float] = deque(maxlen=DICE_SIDES_REMEMBERED)
        self.floor_lightness: float | None = None  # the last tray's (``floor_lightness``)
        self.read_by_symbols = False  # whether the last tray's dice were found by their symbols (``dice_by_symbols``)

    def dice_side(self, measured: float | None) -> float | None:
        """The dice's side (mm) to read this frame with: the median of the last DICE_SIDES_REMEMBERED
        measured (``measured``, this frame's, among them); None before any die was measured.

        The dice of a table do not change size during a game: a frame where every die touches another, or
        where the only lone die's symbol is too faint to measure it (14 mm dice from 90 cm), is read at the
        size the frames before measured, not at the reference 16 mm, and one view's error (up to a tenth
        from far) is outvoted by the others."""
        if getattr(self, "sides_measured", None) is None:  # (a reader made without __init__)
            self.sides_measured = deque(maxlen=DICE_SIDES_REMEMBERED)
        if measured is not None:
            self.sides_measured.append(measured)
        return float(np.median(self.sides_measured)) if self.sides_measured else None

    def locate(
        self, frame: np.ndarray, markers: dict[int, np.ndarray] | None = None, gray: np.ndarray | None = None
    ) -> LocatedPlane | None:
        """The tray in ``frame``, from ``markers`` or from its markers looked for as the pipeline does, its
        floor measured from them (``locate_tray``)."""
        if gray is None:
            gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        if markers is None:
            markers = detect_markers(gray, (TRAY_LAYOUT,))
        known = getattr(self, "tray_mm", None)  # (a reader made without __init__ remembers nothing)
        whole = all(m in markers for m in TRAY_LAYOUT.marker_origins)
        if known is not None and not whole:
            # A tray is measured best with all four stickers in view; with one covered (a hand, a die) the
            # last such measurement holds (three markers put the fourth corner millimetres off).
            refined = {m: refine_marker_corners(gray, c) for m, c in markers.items() if m in TRAY_LAYOUT.marker_origins}
            return locate_plane(refined, tray_layout(*known), min_markers=2)
        plane = locate_tray(markers, known, gray)
        whole = plane is not None and len(plane.markers_seen) == 4  # (a misfit sticker left out: ``locate_tray``)
        if plane is not None and len(plane.markers_seen) == 3:
            # The fourth sticker seen but not decoded: its square measures the tray whole.
            fourth = undecoded_marker(frame, plane)
            if fourth is not None:
                markers = {**markers, fourth[0]: fourth[1]}
                plane = locate_tray(markers, known, gray) or plane
                whole = len(plane.markers_seen) == 4
        if plane is not None and whole:
            self.tray_mm = (plane.layout.width_mm, plane.layout.height_mm)
        return plane

    def rectify(self, frame: np.ndarray, markers: dict[int, np.ndarray] | None = None) -> np.ndarray | None:
        """The tray floor at the reference scale (PX_PER_MM), or None when the tray is not in view."""
        plane = self.locate(frame, markers)
        return None if plane is None else plane.rectify(frame, PX_PER_MM)

    def read_plane(self, frame: np.ndarray, plane: LocatedPlane) -> tuple[DieReading, ...]:
        """The dice of the tray ``plane`` locates in ``frame``: the floor rectified with SURROUND_MM more on
        every side, where a die by the wall may show its top (``top_beyond_floor``)."""
        view, surround, margin = self.view_surround(frame, plane)
        readings = self._read(surround[margin:-margin, margin:-margin], surround, margin, view)
        if getattr(self, "die_mm", None) or not _doubtful_tray(readings):
            return readings
        light = self.floor_lightness is not None and self.floor_lightness >= SYMBOLS_FIRST_FROM
        if getattr(self, "sides_measured", None) and not light:
            return readings
        # A doubtful reading where no die was ever measured (a light floor merges the dice's white with its own, and their
        # blobs measure nothing: read at the reference 16 mm), or where the dice were measured on a light floor (their
        # blobs shrink there: 18-20 mm dice measured 15 mm): the tray is read again at each of the kit's other sizes, and
        # the surest reading kept (``_surer_reading``: more dice surely, never fewer dice).
        best_lightness, best_by_symbols = self.floor_lightness, self.read_by_symbols
        for die_mm in KIT_DIE_MM:
            if abs(die_mm / view.die_mm - 1.0) <= DIE_SCALE_TOLERANCE:
                continue  # (the size just read)
            other = TrayView(plane.layout, DIE_PX / die_mm)
            surround, margin = self.rectify_surround(frame, plane, other)
            again = self._read(surround[margin:-margin, margin:-margin], surround, margin, other)
            if _surer_reading(again, readings):
                readings, best_lightness, best_by_symbols = again, self.floor_lightness, self.read_by_symbols
        self.floor_lightness, self.read_by_symbols = best_lightness, best_by_symbols
        return readings

    def view_surround(self, frame: np.ndarray, plane: LocatedPlane) -> tuple[TrayView, np.ndarray, int]:
        """(the view its dice are read in, the floor and SURROUND_MM beyond it rectified in that view and
        straightened, the margin in its pixels): rectified at the reference scale, and again at the dice's
        own when ``believed_die`` finds them other than the reference dice."""
        view = TrayView(plane.layout, PX_PER_MM)
        surround, margin = self.rectify_surround(frame, plane, view)
        die_mm = getattr(self, "die_mm", None) or self.dice_side(believed_die(surround[margin:-margin, margin:-margin], view))
        if die_mm is not None and abs(die_mm / DIE_MM - 1.0) > DIE_SCALE_TOLERANCE:
            view = TrayView(plane.layout, DIE_PX / die_mm)
            surround, margin = self.rectify_surround(frame, plane, view)
        return view, surround, margin

    @staticmethod
    def rectify_surround(frame: np.ndarray, plane: LocatedPlane, view: TrayView | None = None) -> tuple[np.ndarray, int]:
        """(the tray floor and SURROUND_MM beyond it on every side, rectified at ``view``'s scale (the
        reference one unless told) and straightened (see ``tray_correction``), the margin in its pixels)."""
        view = view or TrayView(plane.layout, PX_PER_MM)
        w, h = plane.layout.width_mm, plane.layout.height_mm
        margin = round(SURROUND_MM * view.px_per_mm)
        region = (-margin / view.px_per_mm, -margin / view.px_per_mm, w + 2 * margin / view.px_per_mm,
                  h + 2 * margin / view.px_per_mm)
        surround = plane.rectify(frame, view.px_per_mm, region)
        if not plane.shows(frame.shape, region):
            surround = floor_beyond_the_frame(surround, plane, frame.shape, view.px_per_mm, region)
        correction = tray_correction(surround[margin:-margin, margin:-margin], view)
        if correction is not None:
            shift = np.array([[1.0, 0.0, margin], [0.0, 1.0, margin], [0.0, 0.0, 1.0]])
            surround = cv2.warpPerspective(surround, shift @ correction @ np.linalg.inv(shift),
                                           (surround.shape[1], surround.shape[0]), flags=cv2.INTER_LINEAR)
        return balanced_to_stickers(surround, surround[margin:-margin, margin:-margin], view), margin

    def read_tray(
        self, tray: np.ndarray, px_per_mm: float = PX_PER_MM, die_mm: float | None = None
    ) -> tuple[DieReading, ...]:
        """The dice of a rectified tray floor on its own (``rectify``: ``px_per_mm``, a tray of its size):
        a top beyond it is not seen. The dice's side is measured (``measure_die``) unless ``die_mm`` says
        it."""
        height, width = tray.shape[:2]
        view = TrayView(tray_layout(width / px_per_mm, height / px_per_mm), px_per_mm)
        tray = straighten_tray(tray, view)
        tray = balanced_to_stickers(tray, tray, view)
        die_mm = die_mm or getattr(self, "die_mm", None) or self.dice_side(believed_die(tray, view))
        if die_mm is not None and abs(die_mm / (DIE_PX / px_per_mm) - 1.0) > DIE_SCALE_TOLERANCE:
            scale = DIE_PX / die_mm / px_per_mm
            tray = cv2.resize(tray, (round(width * scale), round(height * scale)), interpolation=cv2.INTER_LINEAR)
            view = TrayView(view.layout, DIE_PX / die_mm)
        return self._read(tray, tray, 0, view)

    def surround_faces(
        self, floor: np.ndarray, surround: np.ndarray, margin: int, view: TrayView = REFERENCE_VIEW,
        by_symbols: bool = False,
    ) -> tuple[list[DieBlob], list[float], np.ndarray, list[bool], list[FaceInk]]:
        """(the dice found on ``floor``, how much of each top face lies in ``surround``, their faces'
        features, cropped from ``surround``: a top beyond the floor is seen whole, whether each crop's
        symbol lies in its middle, and the crops as measured: ``FaceInk.face`` is each crop). With ``by_symbols``
        the dice are found by their symbols alone (``dice_by_symbols``), each where its symbol is: not looked for
        again (``top_beyond_floor``)."""
        levels = floor_levels(floor, view)  # (once: the dice are found by them, and a top beyond the floor too)
        blobs = dice_by_symbols(floor, view) if by_symbols else segment_dice(floor, view, levels)
        if margin and blobs and not by_symbols:
            blobs = [blob if _wholly_inside(floor.shape, blob) else
                     top_beyond_floor(surround, margin, blob, levels, tuple(b.centre for b in blobs if b is not blob))
                     for blob in blobs]
        crops = [seen_face_crop(surround, _in_surround(b, margin)) for b in blobs]
        inks = [FaceInk(crop) for crop, _ in crops]
        for i, ink in enumerate(inks):
            # Every face of a die has a symbol in its middle: a blank crop is a side face (a die seen from the
            # side, or by the wall with its top out over the floor's edge), and a crop whose symbol lies near
            # its edge straddles a side face and the top. The top is where the die's own symbol is. A faint crop may be
            # a side face too (a grey side's texture, 0.72 of its white on a whole table of bench_dice): looked for as a
            # blank one, but kept unless the crop found shows more ink (a faint symbol of its own is then found again).
            blank = blank_face(ink)
            off_centre = symbol_off_centre(ink)
            faint = not blank and not off_centre and faint_face(ink)
            # (A die found by its symbol is where its symbol is.)
            if levels is not None and not by_symbols and (blank or off_centre or faint):
                others = tuple(b.centre for j, b in enumerate(blobs) if j != i)
                within = BLANK_FACE_SEARCH if blank or faint else 1.0
                moved = top_beyond_floor(surround, margin, blobs[i], levels, others, within=within)
                if (blank or off_centre) and moved is blobs[i]:
                    # Its top may lie by the floor's edge or out over it, far from where it was placed: a die of
                    # packed dice whose symbol the floor cut (so it was not seen) is placed by the lean measured on
                    # dice elsewhere in the tray, and two of bench_dice's whole tables (the camera leaning in from the
                    # far side) put such a top on a side face 2.8 and 3.8 dice from its own. There no other die's
                    # symbol lies unclaimed (theirs were found), but a corner sticker's pattern may (taken for a head).
                    moved = top_beyond_floor(surround, margin, blobs[i], levels, others, within=FAR_TOP_SEARCH,
                                             where=_by_the_edge(floor.shape, margin, view))
                crop = seen_face_crop(surround, _in_surround(moved, margin))
                found = FaceInk(crop[0])
                if not faint or found.darkest < ink.darkest:
                    blobs[i], crops[i], inks[i] = moved, crop, found
        features = [face_features(crop, ink) for (crop, _), ink in zip(crops, inks, strict=True)]
        seen = [fraction for _, fraction in crops]
        centred = [not symbol_off_centre(ink) for ink in inks]
        return (blobs, seen, np.array(features, np.float32) if features else np.zeros((0, 0), np.float32), centred,
                inks)

    def _faces_proba(self, features: np.ndarray, inks: list[FaceInk]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(each face's probabilities: the classifier's on ``features``, times the face network's on ``inks`` when
        there is one; how sure the two are of the face read: the least of their probabilities for it; whether both
        read that face, each on its own)."""
        proba = self.classifier.predict_proba(features)
        if self.face_network is None:
            return proba, proba.max(axis=1), np.ones(len(proba), bool)
        by_face = self.face_network.predict_proba(measured_inks(inks))
        both = combined(proba, by_face)
        best = np.argmax(both, axis=1)
        rows = np.arange(len(both))
        agreed = (np.argmax(proba, axis=1) == best) & (np.argmax(by_face, axis=1) == best)
        return both, np.minimum(proba[rows, best], by_face[rows, best]), agreed

    def _read(self, floor: np.ndarray, surround: np.ndarray, margin: int, view: TrayView) -> tuple[DieReading, ...]:
        self.floor_lightness = floor_lightness(floor, view)  # (what the table is told: ``NEAR_WHITE_FLOOR_FROM``)
        self.read_by_symbols = False
        readings = self._readings(self.surround_faces(floor, surround, margin, view), surround, margin, view)
        light = self.floor_lightness is not None and self.floor_lightness >= SYMBOLS_FIRST_FROM
        dark = self.floor_lightness is not None and self.floor_lightness < SYMBOLS_SECOND_BELOW
        if dark and _doubtful_tray(readings):
            # On a dark floor the symbols are a second opinion where the blobs leave a die doubtful or fewer than
            # five: taken when they read more dice surely, or as many more surely (``_surer_reading``).
            found = self.surround_faces(floor, surround, margin, view, by_symbols=True)
            by_symbols = self._readings(found, surround, margin, view)
            if _surer_reading(by_symbols, readings):
                readings, self.read_by_symbols = by_symbols, True
        if light:
            # Where the dice's white still stands out (cream, pale grey under a dim lamp) their blobs find them best,
            # each at a symbol (and a top leaning out over the floor's edge); where it does not, the blobs miss dice
            # that their symbols find, or lie where no symbol is (a mint floor's lighter patches, of the renderer
            # written apart from ours, read as three logs, doubted). The dice found by their symbols are read when
            # they are more, or when a die the blobs found has no symbol there (``_each_at_a_symbol``) unless the blobs
            # read more dice surely (five crosses of the other renderer, on a near-white floor with its dice measured
            # 13.5 mm, read right and sure by their blobs, four of them doubted by their symbols).
            found = self.surround_faces(floor, surround, margin, view, by_symbols=True)
            if len(found[0]) > len(readings) or (found[0] and len(readings) > MAX_DICE):
                readings, self.read_by_symbols = self._readings(found, surround, margin, view), True
            elif not _each_at_a_symbol(readings, found[0], view):
                by_symbols = self._readings(found, surround, margin, view)
                if _sure_dice(by_symbols) >= _sure_dice(readings):
                    readings, self.read_by_symbols = by_symbols, True
        return readings

    def _readings(self, found: tuple[list[DieBlob], list[float], np.ndarray, list[bool], list[FaceInk]],
                  surround: np.ndarray, margin: int, view: TrayView) -> tuple[DieReading, ...]:
        """The dice ``surround_faces`` found, read."""
        blobs, seen_fractions, features, centred, inks = found
        if not blobs:
            return ()
        proba, sureness, agreed = self._faces_proba(features, inks)
        for i, blob in enumerate(blobs):
            if blob.rival is None:
                continue
            # Two clear marks within a die of each other in a packed blob: one is the top's symbol, the other the
            # floor seen through a gap the dice wall in (a 14 mm log beside one, on a beige floor 90 cm below the
            # camera: the gap was the clearer, read as a wall for sure by the face network, while the features'
            # classifier said log or wall). The mark both readers agree on more is the top.
            moved = replace(blob, centre=blob.rival, rival=None)
            crop, seen = seen_face_crop(surround, _in_surround(moved, margin))
            ink = FaceInk(crop)
            rival = self._faces_proba(np.array([face_features(crop, ink)], np.float32), [ink])
            if rival[1][0] > sureness[i]:
                blobs[i], seen_fractions[i], inks[i] = moved, seen, ink
                centred[i] = not symbol_off_centre(ink)
                proba[i], agreed[i] = rival[0][0], rival[2][0]
        readings = []
        for blob, p, seen, ink, in_middle, both in zip(blobs, proba, seen_fractions, inks, centred, agreed, strict=True):
            best = int(np.argmax(p))
            confidence = float(p[best])
            # A blob that is not one die's worth of white (a die in the air, a hand) is doubtful.
            if not 0.6 <= blob.area_units <= 1.6 and round(blob.area_units) <= 1:
                confidence *= 0.5
            # A top face partly beyond the floor's edge (a die by the wall, the camera leaning in from the
            # far side) is read from what is left of its symbol: doubtful.
            if seen < FACE_SEEN_AT_LEAST:
                confidence *= 0.5
            # A symbol barely darker than the die's white (blurred, washed out by light) is read from too little;
            # no symbol at all where the top was looked for, even beyond the floor, is a side face (the top turned
            # away from the camera, or hidden), never a top, and the classifier has no class for it.
            if faint_face(ink):
                confidence *= 0.5
            # A symbol still near the crop's edge after it was looked for: the top is hidden or turned away, and the
            # crop shows a neighbour's symbol or a side face's edge.
            if not in_middle:
                confidence *= 0.5
            # The features' classifier and the face network read different faces: their product picks one that one
            # of them does not read (a blurred 14 mm swords read as a wall, 0.69-0.73, on trays sent as a webcam
            # sends them: the classifier said swords or cross, the network wall).
            if not both:
                confidence *= 0.5
            # A die of packed dice whose symbol was not seen, its top placed by the lean where hardly any of their white
            # is, and not found again (``top_beyond_floor``): its crop shows the floor and a neighbour's edge (read
            # as a head for sure on a whole table of the tests).
            if blob.placed_off_white:
                confidence *= 0.5
            if blob.little_white:
                confidence *= 0.5
            centre_mm = (blob.centre[0] / view.px_per_mm, blob.centre[1] / view.px_per_mm)
            readings.append(DieReading(self.classifier.classes[best], confidence, centre_mm))
        return tuple(readings)

    def read(self, frame: np.ndarray, markers: dict[int, np.ndarray] | None = None) -> tuple[DieReading, ...] | None:
        """The dice in the tray; None when the tray is not in view, or its floor only in part and not all the dice
        (``read_in_view``)."""
        plane = self.locate(frame, markers)
        return None if plane is None else self.read_in_view(frame, plane)

    def read_in_view(self, frame: np.ndarray, plane: LocatedPlane) -> tuple[DieReading, ...] | None:
        """The dice of the tray ``plane`` locates in ``frame`` (``read_plane``). Where the frame's edge cuts off some of
        its floor (``floor_in_view``), only five dice, each sure (DOUBTFUL_DIE_BELOW) and its top wholly in view: a roll
        is the five dice (rules-reference.md), so five seen are all of them, but fewer may mean a die out of view, and
        a doubtful one may be the edge's phantom or a die half cut off. None otherwise (the tray is then said to be cut).

        Why: a tray a few millimetres past the frame's edge, all its dice in view, gave no roll at all (the benchmark
        renderer's seed 11, stop 79: two of 40 tables, their floors 2-3 % out of view, 8 and 19 mm deep; both read right
        so). On 100 generated trays cut across (16 tables as ``tests/vision_table/test_out_of_view``'s, seeds 4321-4336,
        each cut 10-90 % of the way across), the 39 with all five dice in view were all read right and none of the 61
        others gave a roll; any five dice taken, 43 of them gave a wrong one (phantoms by the edge, dice cut off)."""
        dice = self.read_plane(frame, plane)
        if floor_in_view(plane, frame.shape):
            return dice
        whole = len(dice) == MAX_DICE and all(d.confidence >= DOUBTFUL_DIE_BELOW and _top_in_view(plane, d, frame.shape)
                                              for d in dice)
        return dice if whole else None


def _top_in_view(plane: LocatedPlane, die: DieReading, frame_shape: tuple[int, ...]) -> bool:
    """Whether a frame of ``frame_shape`` shows the whole top of ``die`` (a reference die's square around its centre)."""
    half = DIE_MM / 2
    return plane.shows(frame_shape, (die.centre[0] - half, die.centre[1] - half, 2 * half, 2 * half))


def _doubtful_tray(readings: tuple[DieReading, ...]) -> bool:
    """Whether the blobs' reading of a tray leaves room for the symbols' (``DiceReader._read``) or another die size's
    (``DiceReader.read_plane``): fewer than the five dice, or a die read under DOUBTFUL_DIE_BELOW. Not where they found
    no die at all (an empty tray, between rolls): no other reading could replace that one, since ``_surer_reading``
    never takes dice where the blobs found none."""
    return bool(readings) and (len(readings) < MAX_DICE or _sure_dice(readings) < len(readings))


def _sure_dice(readings: tuple[DieReading, ...]) -> int:
    """How many of ``readings`` are sure (at DOUBTFUL_DIE_BELOW or over)."""
    return sum(d.confidence >= DOUBTFUL_DIE_BELOW for d in readings)


# The dice's sides (mm) a doubtful tray is read at again when no die was measured, or when they were on a light floor
# (``DiceReader.read_plane``): the kit's range (table-kit.md: 14-20 mm) from the reference 16 mm, a step of 2 mm either way.
KIT_DIE_MM = (16.0, 18.0, 20.0, 14.0)


# How much surer on the whole (mean confidence) the symbols' reading of as many dice, as many surely, must be to win.
SURER_BY_MEAN = 0.1


def _surer_reading(by_symbols: tuple[DieReading, ...], by_blobs: tuple[DieReading, ...]) -> bool:
    """Whether the dice found by their symbols are the better reading of a tray than the blobs': more dice read surely
    (at DOUBTFUL_DIE_BELOW or over; at most the five in all), or as many dice, as many surely, read more surely on the
    whole (the mean of their confidences, higher by a tenth), or any dice where the blobs found more than five. Never
    fewer dice than the blobs found otherwise (a webcam's blurred 14 mm dice on green felt: the symbols read three of
    five surely, the blobs two and all five), nor where the blobs found none (an empty tray's floor has marks a symbol's
    search takes for doubtful dice)."""
    if not by_blobs or not by_symbols or len(by_symbols) > MAX_DICE:
        return False
    if len(by_blobs) > MAX_DICE:
        # More dice than a roll has is no reading of the tray (a light floor's blobs each split in two, the top from the
        # shaded side: eight dice on the benchmark renderer's seed 15, table 31, where the symbols found the five).
        return True
    if len(by_symbols) < len(by_blobs):
        return False
    sure_symbols, sure_blobs = _sure_dice(by_symbols), _sure_dice(by_blobs)
    if sure_symbols != sure_blobs:
        return sure_symbols > sure_blobs
    return len(by_symbols) == len(by_blobs) and (
        float(np.mean([d.confidence for d in by_symbols])) > float(np.mean([d.confidence for d in by_blobs])) + SURER_BY_MEAN)


def _each_at_a_symbol(readings: tuple[DieReading, ...], by_symbols: list[DieBlob], view: TrayView) -> bool:
    """Whether each of ``readings`` lies within half a die of a die found by its symbol (``dice_by_symbols``)."""
    reach = 0.5 * DIE_PX / view.px_per_mm
    return all(any(np.hypot(r.centre[0] - b.centre[0] / view.px_per_mm, r.centre[1] - b.centre[1] / view.px_per_mm)
                   < reach for b in by_symbols) for r in readings)


# The tray's floor counts as in view when the frame shows all of it but this much by its walls (mm): a die there still
# shows most of its top.
FLOOR_EDGE_MM = 3.0
# What lies beyond the frame's edge, rectified, is the warp's black; and this many pixels more of it (the frame's last
# pixels blend into that black as they are warped).
BEYOND_FRAME_SEAM_PX = 3
# How far around each pixel painted over ``floor_beyond_the_frame`` looks for the floor it continues (pixels).
BEYOND_FRAME_INPAINT_PX = 5


def floor_beyond_the_frame(surround: np.ndarray, plane: LocatedPlane, frame_shape: tuple[int, ...], px_per_mm: float,
                           region: tuple[float, float, float, float]) -> np.ndarray:
    """``surround`` (``plane``'s ``region`` rectified at ``px_per_mm`` from a frame of ``frame_shape``) with what the frame
    does not show painted over from what it does (``cv2.inpaint``, Telea's method): floor continued, not the warp's black,
    whose edge was read as dice. Painted in one flat colour of the floor's instead (its median), the patch's own edge
    against a floor darker by its walls was read as a sure die on the benchmark renderer's table 36 at seed 11; painted
    in its 20th percentile, or not painted, a phantom made a wrong roll of five, surely read, on one of the 100 cut trays
    of ``read_in_view``'s docstring. A die beyond the edge is not seen either way: whether all of them are is
    ``DiceReader.read_in_view``'s question. Only a cut tray's read pays for it (about 40 ms for a strip 24 mm deep)."""
    shown = plane.rectify(np.full(frame_shape[:2], 255, np.uint8), px_per_mm, region)
    seam = cv2.getStructuringElement(cv2.MORPH_RECT, (2 * BEYOND_FRAME_SEAM_PX + 1,) * 2)
    beyond = cv2.dilate((shown < 255).astype(np.uint8), seam)
    return cv2.inpaint(surround, beyond, BEYOND_FRAME_INPAINT_PX, cv2.INPAINT_TELEA)


def floor_in_view(plane: LocatedPlane, frame_shape: tuple[int, ...]) -> bool:
    """Whether a frame of ``frame_shape`` shows the tray's floor (``LocatedPlane.shows``, but ``FLOOR_EDGE_MM`` by its
    walls): only then do its dice say what was rolled. A tray pushed past the frame's edge is still found by the
    stickers left in view; its floor beyond the edge, rectified, was read as dice (16 generated trays cut across at
    three places each: 5 dice read where some were not seen, their places taken by phantoms)."""
    edge = FLOOR_EDGE_MM
    return plane.shows(frame_shape, (edge, edge, plane.layout.width_mm - 2 * edge, plane.layout.height_mm - 2 * edge))


__all__ = ["DIE_FACES", "DiceClassifier", "DiceReader", "DieBlob", "TrayView", "face_crop", "floor_in_view", "locate_tray",
           "measure_die", "measure_tray", "segment_dice"]
