"""Drawer personalities, a marker pen and the symbol styles (walls, crates, houses, churches, persons).

All shapes are built in a cell-local unit frame ([-0.5, 0.5], y down) and drawn by a `Pen`
into a board-sized ink mask, with wobble, pressure, tapering, broken lines and loose closures.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import cv2
import numpy as np
from glyphs import FONT_MASKS, SKELETONS, arc, seg

INK_COLOURS = {  # reflectance-like RGB of common dry-erase markers, with weights
    "black": ((0.12, 0.12, 0.14), 5), "blue": ((0.12, 0.22, 0.62), 4), "red": ((0.72, 0.12, 0.14), 3),
    "green": ((0.1, 0.45, 0.22), 3), "purple": ((0.4, 0.16, 0.5), 1), "brown": ((0.4, 0.25, 0.14), 1),
    "orange": ((0.88, 0.4, 0.1), 0.6), "light_blue": ((0.2, 0.5, 0.8), 0.6), "pink": ((0.85, 0.3, 0.55), 0.4),
}


@dataclass
class Hand:
    colour: tuple[float, float, float]
    width: float
    pressure: float
    wobble: float
    size: float
    slant: float
    sloppy: float
    neat: float
    pieces: float
    font_pref: float
    fonts: list[str]
    loyalty: float
    wall_side: bool
    upper: dict[str, bool] = field(default_factory=dict)
    glyph_var: dict[str, str] = field(default_factory=dict)
    pref: dict[str, str] = field(default_factory=dict)


def random_hand(rng: np.random.Generator, cell: float) -> Hand:
    names = list(INK_COLOURS)
    w = np.array([INK_COLOURS[n][1] for n in names], float)
    colour = INK_COLOURS[names[rng.choice(len(names), p=w / w.sum())]][0]
    colour = tuple(float(np.clip(c + rng.normal(0, 0.03), 0, 1)) for c in colour)
    mode = rng.random()
    font_pref = 0.92 if mode < 0.35 else (0.05 if mode < 0.75 else 0.5)
    # Without the web fonts (not fetched: CI) every letter is drawn in strokes.
    fonts = list(rng.choice(sorted(FONT_MASKS), size=2, replace=False)) if len(FONT_MASKS) >= 2 else []
    font_pref = font_pref if fonts else 0.0
    case = rng.choice(["upper", "lower", "mixed"], p=[0.45, 0.3, 0.25])
    upper = {ch: bool(case == "upper" or (case == "mixed" and rng.random() < 0.5)) for ch in "cspamjn"}
    h = Hand(colour=colour, width=cell * rng.uniform(0.03, 0.085), pressure=rng.uniform(0.05, 0.35),
             wobble=rng.uniform(0.002, 0.014), size=rng.uniform(0.6, 0.92), slant=rng.normal(0, 0.15),
             sloppy=rng.uniform(0, 1), neat=rng.uniform(0.3, 1.0), pieces=rng.uniform(0, 0.4),
             font_pref=font_pref, fonts=fonts, loyalty=rng.uniform(0.65, 0.95), wall_side=rng.random() < 0.4,
             upper=upper)
    for ch, vars_ in SKELETONS.items():
        h.glyph_var[ch] = str(rng.choice(sorted(vars_)))
    for sym, styles in STYLES.items():
        names_, wts = zip(*[(n, wt) for n, (_, wt) in styles.items()], strict=True)
        p = np.array(wts, float)
        h.pref[sym] = str(rng.choice(names_, p=p / p.sum()))
    return h


def resample(p: np.ndarray, step: float) -> np.ndarray:
    d = np.r_[0, np.cumsum(np.hypot(*np.diff(p, axis=0).T))]
    if d[-1] < 1e-9:
        return p[:1].repeat(2, 0)
    n = max(2, int(d[-1] / step) + 1)
    t = np.linspace(0, d[-1], n)
    return np.stack([np.interp(t, d, p[:, 0]), np.interp(t, d, p[:, 1])], 1)


class Pen:
    """Draws unit-frame strokes of one cell into a board mask (uint8)."""

    def __init__(self, mask: np.ndarray, hand: Hand, rng: np.random.Generator, cell: float) -> None:
        self.mask, self.h, self.rng, self.cell = mask, hand, rng, cell
        self.A = np.eye(2)
        self.t = np.zeros(2)

    def place(self, cx: float, cy: float, rot: float = 0.0, shear: float = 0.0, scale: float = 1.0) -> None:
        c, s = math.cos(rot), math.sin(rot)
        self.A = self.cell * scale * np.array([[c, -s], [s, c]]) @ np.array([[1, shear], [0, 1]])
        self.t = np.array([cx, cy])

    def line(self, *pts: tuple[float, float]) -> None:
        p = seg(*pts)
        if len(p) == 2 and self.rng.random() < self.h.pieces and np.hypot(*(p[1] - p[0])) > 0.35:
            k = self.rng.uniform(0.35, 0.65)
            m = p[0] + k * (p[1] - p[0])
            self.stroke(np.stack([p[0], m + self.rng.normal(0, 0.01, 2)]))
            self.stroke(np.stack([m + self.rng.normal(0, 0.012, 2), p[1]]))
            return
        self.stroke(p)

    def closed(self, p: np.ndarray) -> None:
        p = np.concatenate([p, p[:1]], 0)
        p = resample(p, 0.01)
        if self.rng.random() > self.h.neat:
            n = len(p)
            if self.rng.random() < 0.5:  # gap
                p = p[: int(n * self.rng.uniform(0.88, 0.97))]
            else:  # overshoot
                p = np.concatenate([p, p[1: int(n * self.rng.uniform(0.04, 0.12))]], 0)
        self.stroke(p)

    def stroke(self, p: np.ndarray, width: float | None = None) -> None:
        rng, h = self.rng, self.h
        p = resample(np.asarray(p, float), 0.012)
        n = len(p)
        s = np.linspace(0, 1, n) * max(0.05, n * 0.012)
        for k in range(2):
            f, ph = rng.uniform(1, 5, 2), rng.uniform(0, 6.3, 2)
            p[:, k] += h.wobble * (np.sin(f[0] * 6.28 * s + ph[0]) + 0.5 * np.sin(f[1] * 6.28 * s + ph[1]))
        q = p @ self.A.T + self.t
        base = (width or h.width) * rng.uniform(0.9, 1.1)
        u = np.linspace(0, 1, n)
        taper = np.minimum(1, 0.55 + 0.45 * np.minimum(u, 1 - u) / 0.08)
        w = base * taper * (1 + h.pressure * np.sin(rng.uniform(2, 7) * u + rng.uniform(0, 6.3)))
        qi = np.round(q * 8).astype(np.int32)
        wi = np.maximum(1, np.round(w)).astype(int)
        i = 0
        while i < n - 1:
            j = i + 1
            while j < n - 1 and wi[j] == wi[i]:
                j += 1
            cv2.polylines(self.mask, [qi[i:j + 1]], False, 255, int(wi[i]), cv2.LINE_AA, 3)
            i = j

    def dot(self, x: float, y: float) -> None:
        self.stroke(seg((x, y), (x + 0.01, y + 0.008)), self.h.width * 1.3)

    def glyph(self, ch: str, cx: float, cy: float, hgt: float) -> str:
        """Draw a digit or letter centred at (cx, cy) with height hgt; return the style suffix."""
        rng, h = self.rng, self.h
        key = ch
        if ch in "cspamjn" and h.upper.get(ch, True):
            key = ch.upper()
        if ch in "cspamjn" and not h.upper.get(ch, True):
            hgt *= 0.8
        slant = h.slant + rng.normal(0, 0.05)
        if rng.random() < h.font_pref:
            font = h.fonts[0] if rng.random() < 0.8 else h.fonts[1]
            self._font_glyph(FONT_MASKS[font][key], cx, cy, hgt, slant)
            return f"font:{font}"
        vars_ = SKELETONS[key]
        v = h.glyph_var[key] if rng.random() < 0.85 else str(rng.choice(sorted(vars_)))
        strokes = vars_[v]
        allp = np.concatenate(strokes, 0)
        lo, hi = allp.min(0), allp.max(0)
        sc = hgt / max(hi[1] - lo[1], 1e-3)
        sc = min(sc, 1.25 * hgt / max(hi[0] - lo[0], 1e-3))
        sx = sc * rng.uniform(0.85, 1.15)
        a, b = rng.uniform(0, 6.3, 2)
        for st in strokes:
            q = (st - (lo + hi) / 2) * [sx, sc]
            q[:, 0] += q[:, 1] * -slant + 0.03 * hgt * np.sin(q[:, 1] / hgt * 3 + a)
            q[:, 1] += 0.03 * hgt * np.sin(q[:, 0] / hgt * 3 + b)
            self.stroke(q + [cx, cy], self.h.width * 0.9)
        return "strokes"

    def _font_glyph(self, m: np.ndarray, cx: float, cy: float, hgt: float, slant: float) -> None:
        sc = hgt / m.shape[0]
        # glyph pixel -> unit frame -> board px
        G = np.array([[sc, -slant * sc, cx - sc * m.shape[1] / 2 + slant * sc * m.shape[0] / 2],
                      [0, sc, cy - sc * m.shape[0] / 2]])
        G[0, 0] *= self.rng.uniform(0.85, 1.15)
        M = np.c_[self.A, self.t] @ np.r_[G, [[0, 0, 1]]]
        corners = np.array([[0, 0, 1], [m.shape[1], 0, 1], [0, m.shape[0], 1], [m.shape[1], m.shape[0], 1]])
        bc = corners @ M.T
        x0, y0 = np.floor(bc.min(0)).astype(int) - 2
        x1, y1 = np.ceil(bc.max(0)).astype(int) + 2
        H, W = self.mask.shape
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, W), min(y1, H)
        if x1 <= x0 or y1 <= y0:
            return
        M2 = M.copy()
        M2[:, 2] -= [x0, y0]
        patch = cv2.warpAffine(m, M2, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR)
        k = max(0, int(round(self.h.width / 4)) - 1)
        if k:
            patch = cv2.dilate(patch, np.ones((k + 1, k + 1), np.uint8))
        roi = self.mask[y0:y1, x0:x1]
        np.maximum(roi, patch, out=roi)


def rect(x0: float, y0: float, x1: float, y1: float) -> np.ndarray:
    return seg((x0, y0), (x1, y0), (x1, y1), (x0, y1))


def clip_lines(angle: float, spacing: float, x0: float, y0: float, x1: float, y1: float) -> list[np.ndarray]:
    """Parallel lines at angle (rad) clipped to a box."""
    d = np.array([math.cos(angle), math.sin(angle)])
    nrm = np.array([-d[1], d[0]])
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    r = math.hypot(x1 - x0, y1 - y0) / 2
    out = []
    for off in np.arange(-r + spacing / 2, r, spacing):
        c = np.array([cx, cy]) + off * nrm
        ts = []
        for k, (lo, hi) in enumerate(((x0, x1), (y0, y1))):
            if abs(d[k]) > 1e-9:
                ts += [(lo - c[k]) / d[k], (hi - c[k]) / d[k]]
        pts = [c + t * d for t in ts]
        pts = [p for p in pts if x0 - 1e-6 <= p[0] <= x1 + 1e-6 and y0 - 1e-6 <= p[1] <= y1 + 1e-6]
        if len(pts) >= 2:
            pts.sort(key=lambda p: float(p @ d))
            if np.hypot(*(pts[-1] - pts[0])) > 0.03:
                out.append(np.stack([pts[0], pts[-1]]))
    return out


# ---------------------------------------------------------------- walls
def _wbox(pen: Pen, hmin: float = 0.45) -> tuple[float, float, float, float]:
    r = pen.rng
    hx = 0.5 * pen.h.size * r.uniform(0.95, 1.12)
    hy = hx * r.uniform(hmin, 1.0)
    return -hx, -hy, hx, hy


def w_bricks(pen: Pen, outline: bool = True) -> None:
    x0, y0, x1, y1 = _wbox(pen)
    r = pen.rng
    if outline:
        pen.closed(rect(x0, y0, x1, y1))
    rows = int(r.integers(2, 5))
    ys = np.linspace(y0, y1, rows + 1)
    for y in ys[1:-1] if outline else ys:
        pen.line((x0, y), (x1, y))
    nb = int(r.integers(2, 4))
    for i in range(rows):
        off = (0.5 if i % 2 else 0.0) / nb
        for k in range(nb + 1):
            x = x0 + (k / nb + off) * (x1 - x0)
            if x0 + 0.04 < x < x1 - 0.04:
                pen.line((x, ys[i]), (x, ys[i + 1]))


def w_course(pen: Pen) -> None:
    x0, _, x1, _ = _wbox(pen)
    r = pen.rng
    hy = r.uniform(0.1, 0.2)
    cy = r.normal(0, 0.05)
    pen.closed(rect(x0, cy - hy, x1, cy + hy)) if r.random() < 0.6 else (
        pen.line((x0, cy - hy), (x1, cy - hy)), pen.line((x0, cy + hy), (x1, cy + hy)))
    for x in np.linspace(x0, x1, int(r.integers(3, 6)) + 1)[1:-1]:
        pen.line((x, cy - hy), (x, cy + hy))


def w_hatch(pen: Pen, angles: tuple[float, ...], outline: bool) -> None:
    x0, y0, x1, y1 = _wbox(pen, 0.6)
    sp = pen.rng.uniform(0.09, 0.16)
    if outline:
        pen.closed(rect(x0, y0, x1, y1))
    for a in angles:
        for ln in clip_lines(a, sp, x0, y0, x1, y1):
            pen.stroke(ln if pen.rng.random() < 0.5 else ln[::-1])


def w_fill(pen: Pen, dense: bool) -> None:
    x0, y0, x1, y1 = _wbox(pen, 0.4)
    r = pen.rng
    sp = pen.h.width / pen.cell * (0.8 if dense else r.uniform(1.8, 3.5))
    ys = np.arange(y0, y1, sp)
    pts = []
    for i, y in enumerate(ys):
        jx = r.normal(0, 0.0 if dense else 0.04, 2)
        pts += [(x0 + jx[0], y), (x1 + jx[1], y + sp / 2)] if i % 2 == 0 else [(x1 + jx[1], y), (x0 + jx[0], y + sp / 2)]
    pen.stroke(np.array(pts))
    if dense and r.random() < 0.5:
        pen.closed(rect(x0, y0, x1, y1))


def w_crenel(pen: Pen, kind: str) -> None:
    x0, y0, x1, y1 = _wbox(pen, 0.55)
    r = pen.rng
    n = int(r.integers(2, 5))
    notch = (y1 - y0) * r.uniform(0.2, 0.4)
    xs = np.linspace(x0, x1, 2 * n)
    if kind == "merlons":
        base = y0 + notch * 1.2
        pen.closed(rect(x0, base, x1, y1))
        for k in range(n):
            pen.closed(rect(xs[2 * k], y0, xs[2 * k + 1] if 2 * k + 1 < len(xs) else x1, base - 0.02))
        return
    top = [(x0, y1), (x0, y0)]
    for k in range(1, 2 * n - 1):
        yv = y0 if k % 2 == 0 else y0 + notch
        top += [(xs[k], top[-1][1]), (xs[k], yv)]
    top += [(x1, y0), (x1, y1)]
    if kind == "line":
        pen.stroke(np.array(top[1:-1]))
        pen.line((x0, y0 + notch + 0.15), (x1, y0 + notch + 0.15)) if r.random() < 0.6 else None
        return
    pen.closed(np.array(top))
    if kind == "bricks":
        ys = np.linspace(y0 + notch, y1, int(r.integers(3, 5)))
        for y in ys[1:-1]:
            pen.line((x0, y), (x1, y))
        for x in np.linspace(x0, x1, 4)[1:-1]:
            pen.line((x, ys[0]), (x, ys[1]))


def w_zigzag(pen: Pen) -> None:
    x0, y0, x1, y1 = _wbox(pen, 0.4)
    r = pen.rng
    for yc in np.linspace(y0, y1, int(r.integers(1, 4)) + 2)[1:-1]:
        n = int(r.integers(4, 8))
        xs = np.linspace(x0, x1, n + 1)
        amp = (y1 - y0) * r.uniform(0.12, 0.3)
        pen.stroke(np.stack([xs, yc + amp * (-1) ** np.arange(n + 1)], 1))


def w_edge(pen: Pen) -> None:
    # band hugging the board edge; pen already rotated so that "up" faces outward
    r = pen.rng
    hx = 0.5 * r.uniform(0.85, 1.0)
    d = r.uniform(0.12, 0.3)
    y0 = -0.45
    if r.random() < 0.5:
        sp = pen.h.width / pen.cell * 0.8
        pts = [(hx * (-1) ** k, y0 + k * sp / 2) for k in range(int(d / sp * 2) + 1)]
        pen.stroke(np.array(pts))
    else:
        pen.closed(rect(-hx, y0, hx, y0 + d))
        for x in np.linspace(-hx, hx, int(r.integers(3, 6)))[1:-1]:
            pen.line((x, y0), (x, y0 + d))


def w_stones(pen: Pen) -> None:
    x0, y0, x1, y1 = _wbox(pen, 0.5)
    r = pen.rng
    rows = int(r.integers(2, 4))
    for i, y in enumerate(np.linspace(y0, y1, rows * 2 + 1)[1::2]):
        n = int(r.integers(2, 4))
        rx = (x1 - x0) / n / 2 * 0.9
        for k in range(n):
            cx = x0 + (k + 0.5 + (0.25 if i % 2 else 0)) * (x1 - x0) / n
            if cx + rx * 0.5 < x1 + 0.05:
                pen.closed(arc(cx, y, rx, (y1 - y0) / rows / 2 * 0.85, 0, 350))


def w_fence(pen: Pen) -> None:
    x0, y0, x1, y1 = _wbox(pen, 0.6)
    r = pen.rng
    n = int(r.integers(4, 7))
    for x in np.linspace(x0, x1, n):
        pen.stroke(seg((x - 0.03, y1), (x - 0.03, y0 + 0.08), (x, y0), (x + 0.03, y0 + 0.08))
                   if r.random() < 0.7 else seg((x, y1), (x, y0)))
    for y in np.linspace(y0, y1, 4)[1:3]:
        pen.line((x0 - 0.04, y), (x1 + 0.04, y))


# ---------------------------------------------------------------- crates
def _cbox(pen: Pen, aspect: float | None = None) -> tuple[float, float, float, float]:
    r = pen.rng
    hx = 0.5 * pen.h.size * r.uniform(0.85, 1.05)
    hy = hx * (aspect if aspect else r.uniform(0.7, 1.0))
    return -hx, -hy, hx, hy


def c_box(pen: Pen, inner: str, aspect: float | None = None) -> None:
    x0, y0, x1, y1 = _cbox(pen, aspect)
    r = pen.rng
    pen.closed(rect(x0, y0, x1, y1))
    if inner in ("x", "diag"):
        pen.line((x0, y0), (x1, y1))
        if inner == "x":
            pen.line((x1, y0), (x0, y1))
    elif inner in ("planks_h", "planks_v"):
        k = int(r.integers(1, 4))
        for t in np.linspace(0, 1, k + 2)[1:-1]:
            if inner == "planks_h":
                y = y0 + t * (y1 - y0)
                pen.line((x0, y), (x1, y))
            else:
                x = x0 + t * (x1 - x0)
                pen.line((x, y0), (x, y1))
    elif inner == "lid":
        y = y0 + (y1 - y0) * r.uniform(0.18, 0.3)
        pen.line((x0 - 0.03, y), (x1 + 0.03, y))
        if r.random() < 0.5:
            pen.stroke(arc(0, y0, 0.08, 0.06, 180, 360))
    elif inner == "tape":
        pen.line((0, y0), (0, y1))
        pen.line((x0, 0), (x1, 0))
        if r.random() < 0.5:
            pen.stroke(arc(-0.07, y0 - 0.04, 0.07, 0.05, 0, 350))
            pen.stroke(arc(0.07, y0 - 0.04, 0.07, 0.05, 180, 530))
    elif inner == "frame":
        d = (x1 - x0) * 0.14
        pen.closed(rect(x0 + d, y0 + d, x1 - d, y1 - d))
        pen.line((x0 + d, y0 + d), (x1 - d, y1 - d))
        pen.line((x1 - d, y0 + d), (x0 + d, y1 - d))
    elif inner == "scribble":
        for ln in clip_lines(r.uniform(0, 3.14), 0.07, x0, y0, x1, y1):
            pen.stroke(ln)


def c_cube(pen: Pen, kind: str) -> None:
    r = pen.rng
    s = 0.5 * pen.h.size * r.uniform(0.75, 0.95)
    dx, dy = s * r.uniform(0.3, 0.5) * r.choice([-1, 1]), -s * r.uniform(0.3, 0.5)
    x0, y0, x1, y1 = -s - dx / 2, -s - dy / 2, s - dx / 2, s - dy / 2
    if kind == "iso":
        hx = 0.5 * pen.h.size
        hy = hx * 0.55
        pen.closed(seg((0, -2 * hy), (hx, -hy), (hx, hy), (0, 2 * hy), (-hx, hy), (-hx, -hy)))
        pen.stroke(seg((-hx, -hy), (0, 0), (hx, -hy)))
        pen.line((0, 0), (0, 2 * hy))
        return
    pen.closed(rect(x0, y0, x1, y1))
    if kind == "wire":
        pen.closed(rect(x0 + dx, y0 + dy, x1 + dx, y1 + dy))
        for p in ((x0, y0), (x1, y0), (x0, y1), (x1, y1)):
            pen.line(p, (p[0] + dx, p[1] + dy))
    else:  # oblique: top and one side face
        xa, xb = (x0, x1) if dx > 0 else (x1, x0)
        pen.stroke(seg((xa, y0), (xa + dx, y0 + dy), (xb + dx, y0 + dy), (xb + dx, y1 + dy), (xb, y1)))
        pen.line((xb, y0), (xb + dx, y0 + dy))


def c_hash(pen: Pen, boxed: bool) -> None:
    s = 0.5 * pen.h.size * pen.rng.uniform(0.8, 1.0)
    if boxed:
        pen.closed(rect(-s, -s, s, s))
    for t in (-s / 3, s / 3):
        pen.line((t, -s), (t, s))
        pen.line((-s, t), (s, t))


def c_barrel(pen: Pen) -> None:
    hx = 0.5 * pen.h.size * pen.rng.uniform(0.6, 0.8)
    hy = 0.5 * pen.h.size
    pen.closed(arc(0, -hy, hx, hx * 0.3, 0, 355))
    pen.stroke(arc(-hx, 0, hx * 0.2, hy, -90, -270))
    pen.stroke(arc(hx, 0, hx * 0.2, hy, -90, 90))
    pen.stroke(arc(0, hy, hx, hx * 0.3, 0, 180))
    for y in (-hy * 0.35, hy * 0.35):
        pen.stroke(arc(0, y, hx * 1.15, hx * 0.25, 10, 170))


# ---------------------------------------------------------------- houses
def h_house(pen: Pen, kind: str) -> None:
    r = pen.rng
    s = 0.5 * pen.h.size * r.uniform(0.85, 1.05)
    wx = s * (r.uniform(0.5, 0.65) if kind == "tall" else r.uniform(0.7, 1.0))
    roof = s * r.uniform(0.5, 0.9)
    base = s
    wall_top = base - 2 * s * (0.35 if kind == "aframe" else r.uniform(0.5, 0.62))
    apex = wall_top - roof
    off = (s - (apex * -1)) / 2
    base, wall_top, apex = base - off * 0.5, wall_top - off * 0.5, apex - off * 0.5
    if kind in ("pentagon", "door", "window", "chimney", "full", "tall", "aframe"):
        pen.closed(seg((-wx, base), (-wx, wall_top), (0, apex), (wx, wall_top), (wx, base)))
    elif kind in ("square_roof", "filled_roof"):
        pen.closed(rect(-wx, wall_top, wx, base))
        ov = wx * r.uniform(0, 0.25)
        pen.stroke(seg((-wx - ov, wall_top + 0.02), (0, apex), (wx + ov, wall_top + 0.02)))
        if kind == "filled_roof":
            for ln in clip_lines(0.0, pen.h.width / pen.cell * 0.9, -wx, apex, wx, wall_top):
                yv = ln[0, 1]
                k = (yv - apex) / (wall_top - apex)
                pen.stroke(seg((-wx * k, yv), (wx * k, yv)))
    elif kind == "roof_only":
        pen.stroke(seg((-wx * 1.1, base - s * 0.3), (0, apex + s * 0.2), (wx * 1.1, base - s * 0.3)))
        if r.random() < 0.5:
            pen.line((-wx * 1.1, base - s * 0.3), (wx * 1.1, base - s * 0.3))
        return
    elif kind == "envelope":
        bl, br, tl, tr = (-wx, base), (wx, base), (-wx, wall_top), (wx, wall_top)
        pen.stroke(seg(bl, tl, tr, bl, br, tr, (0, apex), tl, br))
        return
    h = base - wall_top
    if kind in ("door", "full"):
        dw = wx * r.uniform(0.25, 0.4)
        dx = r.uniform(-wx * 0.3, wx * 0.3)
        pen.stroke(seg((dx - dw / 2, base), (dx - dw / 2, base - h * 0.55), (dx + dw / 2, base - h * 0.55),
                       (dx + dw / 2, base)))
    if kind in ("window", "full"):
        ws = wx * 0.28
        wcx = -wx * 0.5 if kind == "full" else 0
        wcy = wall_top + h * 0.38
        pen.closed(rect(wcx - ws / 2, wcy - ws / 2, wcx + ws / 2, wcy + ws / 2))
        if r.random() < 0.6:
            pen.line((wcx, wcy - ws / 2), (wcx, wcy + ws / 2))
            pen.line((wcx - ws / 2, wcy), (wcx + ws / 2, wcy))
    if kind in ("chimney", "full"):
        cx = wx * 0.5
        yr = wall_top - (wall_top - apex) * 0.5
        pen.stroke(seg((cx - 0.05, yr - 0.02), (cx - 0.05, apex - 0.02), (cx + 0.05, apex - 0.02),
                       (cx + 0.05, yr + 0.05)))


# ---------------------------------------------------------------- churches
def _cross(pen: Pen, cx: float, cy: float, hgt: float, latin: bool = True) -> None:
    arm = hgt * 0.35 if latin else hgt * 0.5
    ybar = cy - hgt * (0.2 if latin else 0)
    pen.line((cx, cy - hgt / 2), (cx, cy + hgt / 2))
    pen.line((cx - arm, ybar), (cx + arm, ybar))


def ch_church(pen: Pen, d: str, kind: str) -> str:
    r = pen.rng
    s = 0.5 * pen.h.size * r.uniform(0.9, 1.05)
    if kind == "outline":
        wx, top, apex, base = s * 0.8, -s * 0.05, -s * 0.55, s
        pen.closed(seg((-wx, base), (-wx, top), (0, apex), (wx, top), (wx, base)))
        _cross(pen, 0, apex - s * 0.22, s * 0.42)
        return pen.glyph(d, 0, (top + base) / 2 + 0.02, (base - top) * 0.7)
    if kind == "steeple":
        wx, top, apex, base = s * 0.55, -s * 0.1, -s * 0.75, s
        pen.closed(seg((-wx, base), (-wx, top), (0, apex), (wx, top), (wx, base)))
        _cross(pen, 0, apex - s * 0.15, s * 0.3)
        return pen.glyph(d, 0, (top + base) / 2 + 0.03, (base - top) * 0.65)
    if kind in ("cross_beside", "plus_beside"):
        sgn = 1 if r.random() < 0.7 else -1
        _cross(pen, -sgn * s * 0.45, 0, s * 1.2, kind == "cross_beside")
        return pen.glyph(d, sgn * s * 0.4, 0.02, s * 1.1)
    if kind == "cross_above":
        _cross(pen, 0, -s * 0.55, s * 0.75)
        return pen.glyph(d, 0, s * 0.4, s * 1.0)
    if kind == "digit_box":
        pen.closed(rect(-s * 0.8, -s * 0.8, s * 0.8, s * 0.8))
        if r.random() < 0.4:
            _cross(pen, -s * 0.5, -s * 0.45, s * 0.4)
        return pen.glyph(d, 0.02, 0.02, s * 1.1)
    if kind == "arch":
        pen.stroke(np.concatenate([seg((-s * 0.75, s)), arc(0, -s * 0.2, s * 0.75, s * 0.75, 180, 360),
                                   seg((s * 0.75, s))]))
        if r.random() < 0.5:
            pen.line((-s * 0.9, s), (s * 0.9, s))
        if r.random() < 0.6:
            _cross(pen, 0, -s * 1.12, s * 0.32)
        return pen.glyph(d, 0, s * 0.25, s * 1.0)
    if kind == "circled":
        pen.closed(arc(0, s * 0.15, s * 0.75, s * 0.75, r.uniform(-120, -60), r.uniform(-120, -60) + 359)[:-1])
        _cross(pen, 0, -s * 0.85, s * 0.35)
        return pen.glyph(d, 0, s * 0.15, s * 0.85)
    if kind == "big_cross":
        _cross(pen, -s * 0.15, -s * 0.05, s * 1.7)
        return pen.glyph(d, s * 0.55, s * 0.55, s * 0.7)
    # triangle
    pen.closed(seg((-s * 0.9, s * 0.9), (0, -s * 0.65), (s * 0.9, s * 0.9)))
    _cross(pen, 0, -s * 0.85, s * 0.35)
    return pen.glyph(d, 0, s * 0.4, s * 0.75)


# ---------------------------------------------------------------- persons
def p_person(pen: Pen, ch: str, kind: str) -> str:
    r = pen.rng
    rad = 0.5 * pen.h.size * r.uniform(0.9, 1.05)
    ry = rad * (r.uniform(0.65, 0.82) if kind == "oval" else r.uniform(0.92, 1.05))
    rx = rad if kind != "oval" or r.random() < 0.5 else ry
    ry = ry if rx == rad else rad
    a0 = r.normal(-100, 40)
    sgn = -1 if r.random() < 0.7 else 1
    lh = rad * {"small_letter": 0.75, "big_letter": 1.7, "letter_only": 1.6}.get(kind, 1.15)
    if kind in ("closed", "oval", "small_letter", "big_letter"):
        pen.closed(arc(0, 0, rx, ry, a0, a0 + sgn * 355)[:-1])
    elif kind == "open":
        pen.stroke(arc(0, 0, rx, ry, a0, a0 + sgn * r.uniform(290, 335)))
    elif kind == "overshoot":
        pen.stroke(arc(0, 0, rx, ry, a0, a0 + sgn * r.uniform(390, 440)))
    elif kind == "double":
        t = np.radians(np.linspace(a0, a0 + sgn * r.uniform(650, 720), 120))
        k = np.linspace(1.0, r.uniform(0.88, 1.08), 120)
        pen.stroke(np.stack([rx * k * np.cos(t), ry * k * np.sin(t)], 1))
    elif kind == "polygon":
        n = int(r.integers(5, 9))
        t = np.radians(a0 + np.arange(n) * 360 / n + r.normal(0, 8, n))
        pen.closed(np.stack([rx * np.cos(t), ry * np.sin(t)], 1))
    elif kind == "rounded_box":
        t = np.radians(np.linspace(0, 360, 64))
        sq = np.stack([np.sign(np.cos(t)) * np.abs(np.cos(t)) ** 0.4, np.sign(np.sin(t)) * np.abs(np.sin(t)) ** 0.4], 1)
        pen.closed(sq * [rx * 0.9, ry * 0.9])
    return pen.glyph(ch, r.normal(0, 0.02), r.normal(0, 0.02), lh)


Builder = Callable[..., object]
STYLES: dict[str, dict[str, tuple[Builder, float]]] = {
    "wall": {
        "bricks": (lambda p: w_bricks(p, True), 3), "bricks_open": (lambda p: w_bricks(p, False), 2),
        "course": (w_course, 1), "hatch_diag": (lambda p: w_hatch(p, (p.rng.uniform(0.5, 1.1) * p.rng.choice([-1, 1]),), p.rng.random() < 0.5), 2),
        "hatch_vert": (lambda p: w_hatch(p, (1.57,), p.rng.random() < 0.6), 1),
        "hatch_horiz": (lambda p: w_hatch(p, (0.0,), p.rng.random() < 0.6), 1),
        "crosshatch": (lambda p: w_hatch(p, (0.785, -0.785) if p.rng.random() < 0.6 else (0, 1.57), p.rng.random() < 0.5), 1.5),
        "solid": (lambda p: w_fill(p, True), 1), "scribble": (lambda p: w_fill(p, False), 1),
        "crenel_box": (lambda p: w_crenel(p, "box"), 1.5), "crenel_bricks": (lambda p: w_crenel(p, "bricks"), 1.5),
        "merlons": (lambda p: w_crenel(p, "merlons"), 1), "crenel_line": (lambda p: w_crenel(p, "line"), 0.7),
        "zigzag": (w_zigzag, 0.7), "edge_band": (w_edge, 0.8), "stones": (w_stones, 0.7), "fence": (w_fence, 0.7),
    },
    "crate": {
        "box_x": (lambda p: c_box(p, "x"), 3), "diag": (lambda p: c_box(p, "diag"), 1),
        "planks_h": (lambda p: c_box(p, "planks_h"), 1.5), "planks_v": (lambda p: c_box(p, "planks_v"), 1),
        "square": (lambda p: c_box(p, "", 1.0), 1), "rect": (lambda p: c_box(p, "", p.rng.uniform(0.5, 0.75)), 0.8),
        "lid": (lambda p: c_box(p, "lid"), 0.8), "parcel": (lambda p: c_box(p, "tape"), 0.8),
        "frame_x": (lambda p: c_box(p, "frame"), 0.8), "box_scribble": (lambda p: c_box(p, "scribble"), 0.4),
        "cube_wire": (lambda p: c_cube(p, "wire"), 1), "cube_oblique": (lambda p: c_cube(p, "oblique"), 1.2),
        "cube_iso": (lambda p: c_cube(p, "iso"), 0.8), "hash": (lambda p: c_hash(p, False), 0.5),
        "hash_box": (lambda p: c_hash(p, True), 0.5), "barrel": (c_barrel, 0.4),
    },
    "house": {k: ((lambda kk: (lambda p: h_house(p, kk)))(k), w) for k, w in (
        ("pentagon", 3), ("square_roof", 2), ("door", 1.5), ("window", 1), ("chimney", 1), ("full", 0.7),
        ("roof_only", 0.6), ("envelope", 0.8), ("filled_roof", 0.7), ("tall", 0.6), ("aframe", 0.6))},
    "church": {k: ((lambda kk: (lambda p, d: ch_church(p, d, kk)))(k), w) for k, w in (
        ("outline", 3), ("steeple", 1.5), ("cross_beside", 2), ("plus_beside", 1), ("cross_above", 1.5),
        ("digit_box", 1), ("arch", 1), ("circled", 1), ("big_cross", 0.7), ("triangle", 0.6))},
    "person": {k: ((lambda kk: (lambda p, c: p_person(p, c, kk)))(k), w) for k, w in (
        ("closed", 3), ("open", 2), ("oval", 1), ("overshoot", 1.2), ("double", 0.8), ("polygon", 0.6),
        ("small_letter", 0.8), ("big_letter", 0.8), ("rounded_box", 0.4), ("letter_only", 0.3))},
}


def pick_style(pen: Pen, sym: str) -> str:
    if pen.rng.random() < pen.h.loyalty:
        return pen.h.pref[sym]
    names = sorted(STYLES[sym])
    w = np.array([STYLES[sym][n][1] for n in names])
    return str(pen.rng.choice(names, p=w / w.sum()))
