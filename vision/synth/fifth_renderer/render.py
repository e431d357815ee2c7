"""Fifth synthetic-photo renderer: one erasable Saint Malo city board, drawn by one hand, photographed.

python vision/synth/fifth_renderer/render.py --out DIR --boards N --seed S [--start K] [--debug]
"""

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

import cities  # noqa: E402
import glyphs  # noqa: E402
import symbols  # noqa: E402

F = 56  # flat board cell size in px
MARGIN = 8  # board paper beyond the grid, px
SIDE = 7 * F + 2 * MARGIN
MARKER_FRACTION = 0.7
ARUCO = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)

INKS = {  # BGR of the ink at full strength
    "black": (40, 35, 35), "blue": (170, 75, 25), "red": (45, 40, 190), "green": (70, 130, 30),
    "purple": (130, 45, 110), "brown": (35, 60, 105), "orange": (30, 120, 230)}
INK_P = np.array([0.3, 0.25, 0.12, 0.1, 0.08, 0.08, 0.07])


# ---- the hand -----------------------------------------------------------------------------------

class Hand:
    """One drawer's habits."""

    def __init__(self, rng: np.random.Generator):
        names = list(INKS)
        first = names[rng.choice(len(names), p=INK_P)]
        self.inks = [first] if rng.random() < 0.6 else [first, names[rng.integers(len(names))]]
        self.width = rng.uniform(1.8, 4.5)  # px at F
        self.pressure = rng.uniform(0.65, 1.05)
        self.wobble = rng.uniform(0.0, 0.025)
        self.tremor = rng.uniform(0.0, 0.006)
        self.scale = rng.uniform(0.7, 1.02)
        self.offset_sd = rng.uniform(0.0, 0.06)
        self.slant = rng.uniform(-0.2, 0.2)
        self.tilt_sd = rng.uniform(0.0, 6.0)
        self.overshoot = rng.uniform(0.0, 0.06)
        self.double = rng.uniform(0.0, 0.35)
        self.dry = rng.random() < 0.2
        self.turn_side_walls = rng.random() < 0.5
        fonts = glyphs.FONTS
        self.font = fonts[rng.integers(len(fonts))] if fonts and rng.random() < 0.75 else None
        # capitals or lower case; script fonts write lower case (their capitals are hard to read)
        self.upper = rng.random() < 0.5 and self.font not in glyphs.SCRIPT_CAPS
        self.skeleton_variant = int(rng.integers(3))
        self.favourites = {kind: self._favourites(rng, table) for kind, table in symbols.STYLES.items()}
        self.ghosts = rng.uniform(0.0, 0.35)

    @staticmethod
    def _favourites(rng, table):
        names = list(table)
        k = int(rng.integers(1, 4))
        fav = list(rng.choice(names, size=min(k, len(names)), replace=False))
        return fav, names

    def pick_style(self, rng, kind):
        fav, names = self.favourites[kind]
        return fav[rng.integers(len(fav))] if rng.random() < 0.8 else names[rng.integers(len(names))]


# ---- ink ----------------------------------------------------------------------------------------

def _jitter_polyline(rng, pts, hand, px):
    """Resample a polyline and add wobble (smooth) and tremor (fine), in px."""
    pts = np.asarray(pts, np.float64)
    seg = np.linalg.norm(np.diff(pts, axis=0), axis=1)
    total = seg.sum()
    if total < 1e-6:
        return pts
    if hand.overshoot and rng.random() < 0.5:
        d0 = (pts[0] - pts[1]) / max(seg[0], 1e-6)
        d1 = (pts[-1] - pts[-2]) / max(seg[-1], 1e-6)
        pts = np.vstack([pts[0] + d0 * hand.overshoot * px * rng.random(), pts[1:-1],
                         pts[-1] + d1 * hand.overshoot * px * rng.random()])
        seg = np.linalg.norm(np.diff(pts, axis=0), axis=1)
        total = seg.sum()
    n = max(int(total / 3), 2)
    cum = np.concatenate([[0], np.cumsum(seg)])
    # keep the corners: sample the corners plus evenly spaced points
    t = np.union1d(np.linspace(0, total, n), cum)
    out = np.column_stack([np.interp(t, cum, pts[:, 0]), np.interp(t, cum, pts[:, 1])])
    k = len(out)
    knots = rng.normal(0, hand.wobble * px, (max(k // 12, 2), 2))
    smooth = np.column_stack([np.interp(np.linspace(0, 1, k), np.linspace(0, 1, len(knots)), knots[:, j]) for j in (0, 1)])
    return out + smooth + rng.normal(0, hand.tremor * px, out.shape)


class Ink:
    """Density layers, one per ink, on the flat board; strokes add (darker where they cross)."""

    def __init__(self, shape):
        self.layers: dict[str, np.ndarray] = {}
        self.shape = shape

    def layer(self, ink):
        if ink not in self.layers:
            self.layers[ink] = np.zeros(self.shape, np.float32)
        return self.layers[ink]

    def apply(self, img):
        for ink, dens in self.layers.items():
            absorb = -np.log(np.maximum(np.array(INKS[ink], np.float32) / 255.0, 0.04))
            img *= np.exp(-dens[..., None] * absorb[None, None, :])
        return img


def _streak(rng, shape):
    small = rng.uniform(0.3, 1.0, (3, max(2, shape[1] // 6))).astype(np.float32)
    tex = cv2.resize(small, (shape[1], shape[0]), interpolation=cv2.INTER_LINEAR)
    if rng.random() < 0.5:
        tex = cv2.rotate(cv2.resize(small, (shape[0], shape[1])), cv2.ROTATE_90_CLOCKWISE)
    return tex


def draw_ops(rng, ink_layer, ops, hand, box, char_ctx, strength=1.0, ghost=False):
    """Draw unit-coordinate ops into the cell ``box`` (x0, y0, size) of ``ink_layer``. Returns a label
    suffix (|font:..|strokes) when a glyph was drawn."""
    x0, y0, size = box
    pad = int(size * 0.35)
    patch = np.zeros((size + 2 * pad, size + 2 * pad), np.float32)
    # placement transform: unit -> patch px
    scale = hand.scale * rng.uniform(0.9, 1.08) * size
    ang = np.radians(rng.normal(0, hand.tilt_sd) + char_ctx.get("turn", 0))
    off = rng.normal(0, hand.offset_sd, 2) * size
    ca, sa = np.cos(ang), np.sin(ang)
    centre = np.array([pad + size / 2, pad + size / 2]) + off

    def to_px(pts):
        p = np.asarray(pts, np.float64) - 0.5
        p = np.column_stack([p[:, 0] + hand.slant * -p[:, 1] * 0.3, p[:, 1]])
        p = p @ np.array([[ca, sa], [-sa, ca]])
        return p * scale + centre

    label = ""
    width = hand.width * (size / F)
    for op in ops:
        kind = op[0]
        stroke = np.zeros_like(patch)
        if kind == "fill":
            poly = _jitter_polyline(rng, to_px(op[1]), hand, size)
            cv2.fillPoly(stroke, [np.round(poly * 4).astype(np.int32)], op[2] * 0.8, cv2.LINE_AA, shift=2)
        elif kind == "line":
            poly = _jitter_polyline(rng, to_px(op[1]), hand, size)
            w = max(1, int(round(width * op[2] * rng.uniform(0.85, 1.15))))
            cv2.polylines(stroke, [np.round(poly * 4).astype(np.int32)], False, 1.0, w, cv2.LINE_AA, shift=2)
            if rng.random() < hand.double:
                poly2 = _jitter_polyline(rng, to_px(op[1]), hand, size) + rng.normal(0, 0.02 * size, 2)
                cv2.polylines(stroke, [np.round(poly2 * 4).astype(np.int32)], False, 1.0, max(1, w - 1),
                              cv2.LINE_AA, shift=2)
        else:
            label = _draw_glyph(rng, stroke, op[1], op[2], hand, to_px, width, size)
        stroke *= hand.pressure * rng.uniform(0.85, 1.1)
        patch += stroke
    if hand.dry and not ghost:
        patch *= _streak(rng, patch.shape)
    patch *= strength
    if ghost:
        patch = cv2.GaussianBlur(patch, (0, 0), rng.uniform(1.0, 3.0))
    # paste (clipped to the layer)
    h, w = ink_layer.shape
    ya, xa = y0 - pad, x0 - pad
    sy0, sx0 = max(0, -ya), max(0, -xa)
    sy1, sx1 = min(patch.shape[0], h - ya), min(patch.shape[1], w - xa)
    ink_layer[ya + sy0:ya + sy1, xa + sx0:xa + sx1] += patch[sy0:sy1, sx0:sx1]
    return label


def _draw_glyph(rng, stroke, char, gbox, hand, to_px, width, size):
    char = char.upper() if hand.upper and char.isalpha() else char
    corners = to_px([(gbox[0], gbox[1]), (gbox[2], gbox[1]), (gbox[2], gbox[3])])
    tall = float(np.linalg.norm(corners[2] - corners[1]))
    wide = float(np.linalg.norm(corners[1] - corners[0]))
    font = hand.font
    if font is not None and not glyphs.font_has(font, char):
        font = None
    mask = glyphs.font_mask(font, char, max(8, int(tall)), width) if font else None
    if mask is not None:
        mh, mw = mask.shape
        fit = min(tall / mh, wide / mw) * 1.15
        centre = (corners[0] + corners[2]) / 2
        ang = np.arctan2(corners[1][1] - corners[0][1], corners[1][0] - corners[0][0])
        ca, sa = np.cos(ang) * fit, np.sin(ang) * fit
        m = np.array([[ca, -sa, 0], [sa, ca, 0]])
        m[:, 2] = centre - m[:, :2] @ np.array([mw / 2, mh / 2])
        warped = cv2.warpAffine(mask, m, (stroke.shape[1], stroke.shape[0]), flags=cv2.INTER_LINEAR)
        np.maximum(stroke, np.clip(warped * 1.2, 0, 1), out=stroke)
        return f"|font:{font}"
    variant = hand.skeleton_variant if rng.random() < 0.8 else int(rng.integers(3))
    w = max(1, int(round(width)))
    for line in glyphs.skeleton(char, variant):
        unit = np.asarray(line, np.float64)
        # the skeleton's unit box -> glyph box (aspect about 0.75)
        gx0, gy0, gx1, gy1 = gbox
        gw = min(gx1 - gx0, (gy1 - gy0) * 0.8)
        cx = (gx0 + gx1) / 2
        pts = np.column_stack([cx - gw / 2 + unit[:, 0] * gw, gy0 + unit[:, 1] * (gy1 - gy0)])
        poly = _jitter_polyline(rng, to_px(pts), hand, size * 0.5)
        cv2.polylines(stroke, [np.round(poly * 4).astype(np.int32)], False, 1.0, w, cv2.LINE_AA, shift=2)
    return "|strokes"


# ---- the printed board ---------------------------------------------------------------------------

def _noise(rng, shape, cells, amp):
    small = rng.normal(0, 1, (cells, cells)).astype(np.float32)
    return cv2.resize(small, (shape[1], shape[0]), interpolation=cv2.INTER_CUBIC) * amp


def print_board(rng, seat):
    """Flat board (float32 BGR 0..1, SIDE x SIDE) with grid, ring tone, printed crates, stickers."""
    paper = np.array([0.86, 0.93, 0.96]) * rng.uniform(0.92, 1.02) + rng.normal(0, 0.015, 3)
    ring = np.array([0.62, 0.74, 0.80]) * rng.uniform(0.9, 1.05) + rng.normal(0, 0.02, 3)
    img = np.empty((SIDE, SIDE, 3), np.float32)
    img[:] = ring
    inner = slice(MARGIN + F, MARGIN + 6 * F)
    img[inner, inner] = paper
    tex = _noise(rng, (SIDE, SIDE), 20, 0.025) + rng.normal(0, 0.02, (SIDE, SIDE)).astype(np.float32)
    img += tex[..., None]
    # tower badges
    for r, c in cities.TOWERS:
        cx, cy = MARGIN + c * F + F // 2, MARGIN + r * F + F // 2
        cv2.circle(img, (cx, cy), int(F * 0.52), (0.8, 0.88, 0.9), -1, cv2.LINE_AA)
        cv2.circle(img, (cx, cy), int(F * 0.52), (0.45, 0.5, 0.55), 2, cv2.LINE_AA)
        cv2.circle(img, (cx + int(F * 0.2), cy - int(F * 0.2)), int(F * 0.15), (0.2, 0.75, 0.85), -1, cv2.LINE_AA)
    # printed grid: sketchy dark lines
    tone = rng.uniform(0.15, 0.35)
    for k in range(8):
        p = MARGIN + k * F
        for _ in range(2):
            j = rng.normal(0, 0.6, 2)
            cv2.line(img, (int(p + j[0]), MARGIN), (int(p + j[1]), SIDE - MARGIN), (tone,) * 3, 1, cv2.LINE_AA)
            cv2.line(img, (MARGIN, int(p + j[0])), (SIDE - MARGIN, int(p + j[1])), (tone,) * 3, 1, cv2.LINE_AA)
    # printed crates
    orange = np.array([0.2, 0.42, 0.8]) * rng.uniform(0.85, 1.1)
    for r, c in cities.PRINTED_CRATES:
        x0, y0 = MARGIN + c * F, MARGIN + r * F
        q = F * 0.2
        poly = np.array([(x0 + q, y0 + q * 1.3), (x0 + F - q, y0 + q * 1.3), (x0 + F - q * 0.8, y0 + F / 2),
                         (x0 + F - q, y0 + F - q * 1.3), (x0 + q, y0 + F - q * 1.3), (x0 + q * 0.8, y0 + F / 2)])
        cv2.fillPoly(img, [np.round(poly * 4).astype(np.int32)], orange.tolist(), cv2.LINE_AA, shift=2)
        cv2.polylines(img, [np.round(poly * 4).astype(np.int32)], True, (orange * 0.55).tolist(), 1, cv2.LINE_AA, 2)
        for t in (0.42, 0.58):
            y = int(y0 + F * t)
            cv2.line(img, (int(x0 + q * 1.2), y), (int(x0 + F - q * 1.2), y), (orange * 0.7).tolist(), 1, cv2.LINE_AA)
    return img


def add_stickers(rng, img, seat):
    for k, (r, c) in enumerate(cities.TOWERS):
        cx = MARGIN + (c + 0.5) * F + rng.normal(0, 0.02 * F)
        cy = MARGIN + (r + 0.5) * F + rng.normal(0, 0.02 * F)
        ang = rng.normal(0, 1.0)
        side = F * rng.uniform(0.86, 0.97)
        box = cv2.boxPoints(((cx, cy), (side, side), ang))
        white = rng.uniform(0.92, 1.0)
        cv2.fillPoly(img, [np.round(box * 4).astype(np.int32)], (white, white, white * rng.uniform(0.97, 1.0)),
                     cv2.LINE_AA, shift=2)
        marker = cv2.aruco.generateImageMarker(ARUCO, 4 * seat + k, 60).astype(np.float32) / 255.0
        marker = marker * (white - 0.08) + 0.08
        ms = MARKER_FRACTION * F
        m = cv2.getRotationMatrix2D((30.0, 30.0), -ang, ms / 60.0)
        m[:, 2] += np.array([cx, cy]) - 30.0
        warped = cv2.warpAffine(marker, m, (SIDE, SIDE), flags=cv2.INTER_AREA, borderValue=-1)
        sel = warped >= 0
        img[sel] = warped[sel][:, None]


# ---- drawing the city ----------------------------------------------------------------------------

def _wall_turn(hand, r, c):
    """Rotation (degrees) so the wall's unit top faces out; side walls may run along their side."""
    if r == 0:
        return 0.0
    if r == 6:
        return 0.0
    if hand.turn_side_walls:
        return 90.0 if c == 0 else -90.0
    return 0.0


def draw_city(rng, img_shape, city, hand):
    ink = Ink(img_shape[:2])
    styles = {}
    printed = set(cities.PRINTED_CRATES)
    for r in range(7):
        for c in range(7):
            ch = city[r][c]
            if ch == "#" or (r, c) in printed:
                continue
            name = f"{'ABCDEFG'[c]}{r + 1}"
            box = (MARGIN + c * F, MARGIN + r * F, F)
            colour = hand.inks[0] if len(hand.inks) == 1 or rng.random() < 0.6 else hand.inks[1]
            if ch == ".":
                if rng.random() < hand.ghosts:
                    kind = ["wall", "crate", "house", "church", "person"][rng.integers(5)]
                    table = symbols.STYLES[kind]
                    fn = table[list(table)[rng.integers(len(table))]]
                    ops = fn(rng, "3") if kind == "church" else fn(rng, "c") if kind == "person" else fn(rng)
                    draw_ops(rng, ink.layer(colour), ops, hand, box, {}, strength=rng.uniform(0.06, 0.2), ghost=True)
                elif rng.random() < 0.08:
                    smudge = ink.layer(colour)
                    y, x = box[1] + int(rng.uniform(0.2, 0.8) * F), box[0] + int(rng.uniform(0.2, 0.8) * F)
                    blob = np.zeros((F, F), np.float32)
                    axes = (int(F * rng.uniform(0.08, 0.3)), int(F * rng.uniform(0.05, 0.2)))
                    cv2.ellipse(blob, (F // 2, F // 2), axes, rng.uniform(0, 180), 0, 360, float(rng.uniform(0.05, 0.15)), -1)
                    blob = cv2.GaussianBlur(blob, (0, 0), F * 0.06)
                    y, x = y - F // 2, x - F // 2
                    y, x = min(max(y, 0), smudge.shape[0] - F), min(max(x, 0), smudge.shape[1] - F)
                    smudge[y:y + F, x:x + F] += blob
                continue
            kind = symbols.kind_of(ch)
            style = hand.pick_style(rng, kind)
            fn = symbols.STYLES[kind][style]
            ctx = {}
            if kind == "wall":
                ctx["turn"] = _wall_turn(hand, r, c)
                if style == "edge_line":  # the thick line sits on the board-edge side
                    ctx["turn"] = {0: 0.0, 6: 180.0}.get(r, 90.0 if c == 6 else -90.0)
                ops = fn(rng)
            elif kind == "church" or kind == "person":
                ops = fn(rng, ch)
            else:
                ops = fn(rng)
            suffix = draw_ops(rng, ink.layer(colour), ops, hand, box, ctx)
            styles[name] = f"{kind}.{style}{suffix if kind in ('church', 'person') else ''}"
    for layer in ink.layers.values():
        np.minimum(layer, 2.2, out=layer)
    return ink, styles


# ---- the photo -----------------------------------------------------------------------------------

def _table(rng, w, h):
    kind = rng.integers(4)
    base = [np.array([0.25, 0.4, 0.6]), np.array([0.5, 0.5, 0.5]), np.array([0.3, 0.45, 0.25]),
            np.array([0.8, 0.82, 0.84])][kind] * rng.uniform(0.6, 1.2)
    img = np.empty((h, w, 3), np.float32)
    img[:] = base
    if kind == 0:  # wood grain
        ys = np.arange(h, dtype=np.float32)[:, None]
        grain = np.sin(ys * rng.uniform(0.05, 0.2) + _noise(rng, (h, w), 8, 3.0)) * 0.06
        img *= (1 + grain)[..., None]
    img += _noise(rng, (h, w), 6, 0.04)[..., None] + rng.normal(0, 0.02, (h, w, 1)).astype(np.float32)
    return img


def shoot(rng, flat, degrade):
    """Photograph the flat board: perspective, rotation, lens, light, noise, blur, JPEG. Returns uint8 BGR."""
    cell = rng.uniform(22, 48)
    side = SIDE * cell / F
    diag = side * 1.45
    w = int(np.clip(diag * rng.uniform(1.1, 1.5), 320, 1100))
    h = int(np.clip(w * rng.uniform(0.7, 0.85), diag * 1.08, 1100))
    ang = rng.uniform(0, 2 * np.pi)
    ca, sa = np.cos(ang), np.sin(ang)
    src = np.float32([[0, 0], [SIDE, 0], [SIDE, SIDE], [0, SIDE]])
    base = (src - SIDE / 2) * (cell / F)
    dst = base @ np.array([[ca, sa], [-sa, ca]])
    dst += rng.normal(0, side * 0.025, dst.shape)  # perspective
    slack = np.array([w, h]) / 2 - np.abs(dst).max(axis=0) - 4
    centre = np.array([w, h]) / 2 + rng.uniform(-1, 1, 2) * np.maximum(slack, 0) * 0.8
    dst = (dst + centre).astype(np.float32)
    hom = cv2.getPerspectiveTransform(src, dst)
    # pre-blur against aliasing when shrinking
    shrink = F / cell
    flat_s = cv2.GaussianBlur(flat, (0, 0), 0.4 * shrink)
    photo = _table(rng, w, h)
    rad = int(F * 0.25)  # the board's rounded corners
    alpha = np.zeros((SIDE, SIDE), np.float32)
    cv2.rectangle(alpha, (rad, 0), (SIDE - rad, SIDE), 1.0, -1)
    cv2.rectangle(alpha, (0, rad), (SIDE, SIDE - rad), 1.0, -1)
    for x, y in ((rad, rad), (SIDE - rad, rad), (rad, SIDE - rad), (SIDE - rad, SIDE - rad)):
        cv2.circle(alpha, (x, y), rad, 1.0, -1, cv2.LINE_AA)
    warped = cv2.warpPerspective(flat_s, hom, (w, h), flags=cv2.INTER_LINEAR)
    a = cv2.warpPerspective(alpha, hom, (w, h), flags=cv2.INTER_LINEAR)
    # the board's shadow on the table
    sh = cv2.GaussianBlur(a, (0, 0), cell * 0.3)
    sh = np.roll(sh, (int(rng.uniform(1, 6)), int(rng.uniform(1, 6))), axis=(0, 1))
    photo *= (1 - 0.35 * sh)[..., None]
    photo = photo * (1 - a[..., None]) + warped * a[..., None]
    # light: uneven, tinted, soft shadow, glare
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    g = rng.normal(0, 0.25, 2)
    light = rng.uniform(0.75, 1.15) * (1 + g[0] * (xx / w - 0.5) + g[1] * (yy / h - 0.5))
    light += _noise(rng, (h, w), 3, 0.06)
    if rng.random() < 0.5:
        mask = np.zeros((h, w), np.float32)
        pts = (rng.uniform(0, 1, (5, 2)) * [w, h]).astype(np.int32)
        cv2.fillPoly(mask, [cv2.convexHull(pts)], 1.0)
        mask = cv2.GaussianBlur(mask, (0, 0), w * 0.05)
        light *= 1 - rng.uniform(0.1, 0.35) * degrade * mask
    tint = np.array([1.0, 1.0, 1.0]) + rng.normal(0, 0.04, 3)
    warm = rng.uniform(-0.12, 0.12)
    tint += [-warm, 0, warm]
    photo *= light[..., None] * tint
    if rng.random() < 0.6:
        gx, gy = rng.uniform(0, w), rng.uniform(0, h)
        s = rng.uniform(0.05, 0.2) * w
        glare = np.exp(-(((xx - gx) / s) ** 2 + ((yy - gy) / (s * rng.uniform(0.5, 1.5))) ** 2))
        photo += (1 - photo) * (glare * rng.uniform(0.15, 0.55) * degrade)[..., None]
    # lens distortion (radial)
    k1 = rng.uniform(-0.1, 0.04)
    r2 = ((xx - w / 2) ** 2 + (yy - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
    f = 1 + k1 * r2
    photo = cv2.remap(photo, (xx - w / 2) * f + w / 2, (yy - h / 2) * f + h / 2, cv2.INTER_LINEAR,
                      borderMode=cv2.BORDER_REFLECT)
    # blur and noise
    photo = cv2.GaussianBlur(photo, (0, 0), rng.uniform(0.3, 1.0) * degrade + 0.01)
    photo += rng.normal(0, rng.uniform(0.005, 0.025) * degrade, photo.shape).astype(np.float32)
    out = np.clip(photo * 255, 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.uniform(45, 92))])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)


# ---- one board -----------------------------------------------------------------------------------

def _seen_seat(photo):
    from vision.board.locate import find_boards
    return [b.seat for b in find_boards(photo)]


def render_board(seed, k):
    rng = np.random.default_rng([seed, k])
    seat = int(rng.integers(4))
    city = cities.make_city(rng)
    hand = Hand(rng)
    flat = print_board(rng, seat)
    ink, styles = draw_city(rng, flat.shape, city, hand)
    flat = ink.apply(flat)
    add_stickers(rng, flat, seat)
    sheen = rng.uniform(0.0, 0.04)
    flat = np.clip(flat + sheen, 0, 1)
    for attempt in range(20):
        photo = shoot(rng, flat, degrade=max(0.3, 1.0 - attempt * 0.08))
        if seat in _seen_seat(photo):
            return photo, seat, city, styles, flat
    raise RuntimeError(f"board {k}: markers of seat {seat} not found after 20 shots")


def debug_image(flat, city, styles):
    big = cv2.resize(np.clip(flat * 255, 0, 255).astype(np.uint8), (SIDE * 2, SIDE * 2))
    for r in range(7):
        for c in range(7):
            x, y = (MARGIN + c * F) * 2 + 4, (MARGIN + r * F) * 2 + 18
            cv2.putText(big, city[r][c], (x, y), cv2.FONT_HERSHEY_SIMPLEX, 0.55, (0, 0, 255), 2)
            style = styles.get(f"{'ABCDEFG'[c]}{r + 1}", "")
            for j, part in enumerate(style.replace("|", ".").split(".")[1:3]):
                cv2.putText(big, part[:14], (x, y + 72 + 14 * j), cv2.FONT_HERSHEY_SIMPLEX, 0.38, (200, 0, 0), 1)
    return big


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", required=True)
    ap.add_argument("--boards", type=int, required=True)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--debug", action="store_true")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "truth.jsonl", "a" if args.start else "w") as truth:
        for k in range(args.start, args.start + args.boards):
            photo, seat, city, styles, flat = render_board(args.seed, k)
            name = f"board_{k:05d}.png"
            cv2.imwrite(str(out / name), photo)
            truth.write(json.dumps({"image": name, "seat": seat, "city": city, "styles": styles}) + "\n")
            truth.flush()
            if args.debug:
                cv2.imwrite(str(out / f"debug_{k:05d}.png"), debug_image(flat, city, styles))


if __name__ == "__main__":
    main()
