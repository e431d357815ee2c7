"""A dry-erase marker on the flat board: wobbly, pressure-varying anti-aliased strokes into an ink layer."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

Pts = np.ndarray  # (n, 2) float points


def arc(cx: float, cy: float, rx: float, ry: float, a0: float, a1: float, n: int = 0) -> Pts:
    """Points on an ellipse arc, angles in degrees, y pointing down (90 = bottom)."""
    n = n or max(6, int(abs(a1 - a0) / 12))
    t = np.radians(np.linspace(a0, a1, n))
    return np.stack([cx + rx * np.cos(t), cy + ry * np.sin(t)], 1)


def P(*xy: float) -> Pts:
    """A polyline from flat x, y numbers."""
    return np.asarray(xy, np.float64).reshape(-1, 2)


@dataclass
class Hand:
    """A player's habits, fixed for one board."""

    width: float  # stroke width in board px
    neat: float  # 0 sloppy .. 1 neat
    slant: float  # shear of letters
    size: float  # fraction of a cell a symbol fills
    pressure: bool


class Pen:
    """Draws into a uint8 ink layer (255 = full ink) in board pixels."""

    def __init__(self, layer: np.ndarray, rng: np.random.Generator, hand: Hand) -> None:
        self.layer = layer
        self.rng = rng
        self.hand = hand
        self.width = hand.width
        self.wobble = 1.0
        self.level = 255

    def _wobbled(self, pts: Pts) -> Pts:
        """Densify and add smooth sideways drift (larger for sloppy hands)."""
        seg = np.linalg.norm(np.diff(pts, axis=0), axis=1)
        total = float(seg.sum())
        if total < 1e-6:
            return pts
        n = int(min(200, max(4, total / 3)))
        cum = np.concatenate([[0], np.cumsum(seg)])
        t = np.linspace(0, total, n)
        dense = np.stack([np.interp(t, cum, pts[:, 0]), np.interp(t, cum, pts[:, 1])], 1)
        amp = self.wobble * (0.25 + 1.4 * (1 - self.hand.neat)) * (0.4 + total / 150)
        k = max(3, n // 4)
        noise = self.rng.normal(0, 1, (n + k, 2))
        noise = np.cumsum(noise, axis=0)
        noise = noise[k:] - noise[:-k]
        noise -= np.linspace(noise[0], noise[-1], n)  # keep the ends near their place
        noise *= amp / (np.sqrt(k) + 1e-6)
        return dense + noise

    def line(self, pts: Pts, width: float | None = None, closed: bool = False) -> None:
        pts = np.asarray(pts, np.float64)
        if closed:
            pts = np.vstack([pts, pts[:1] + self.rng.normal(0, 0.8, 2)])
        if len(pts) < 2:
            return
        pts = self._wobbled(pts)
        w = self.width if width is None else width
        ip = np.round(pts * 8).astype(np.int32)
        if not self.hand.pressure:
            t = max(1, int(round(w)))
            cv2.polylines(self.layer, [ip], False, self.level, t, cv2.LINE_AA, 3)
            return
        # pressure: thicker mid-stroke, lighter at lift-off, drawn in chunks
        n = len(ip)
        chunk = max(2, n // 6)
        for i in range(0, n - 1, chunk):
            f = 0.7 + 0.5 * np.sin(np.pi * (i + chunk / 2) / n)
            t = max(1, int(round(w * f)))
            cv2.polylines(self.layer, [ip[i:i + chunk + 1]], False, self.level, t, cv2.LINE_AA, 3)

    def fill(self, pts: Pts, level: int | None = None) -> None:
        ip = np.round(np.asarray(pts) * 8).astype(np.int32)
        cv2.fillPoly(self.layer, [ip], self.level if level is None else level, cv2.LINE_AA, 3)

    def scribble(self, quad: Pts, spacing: float, angle: float) -> None:
        """Zig-zag hatching that fills a convex polygon (a scribbled-in area)."""
        quad = np.asarray(quad, np.float64)
        c = quad.mean(0)
        a = np.radians(angle)
        d = np.array([np.cos(a), np.sin(a)])
        nrm = np.array([-d[1], d[0]])
        proj = (quad - c) @ nrm
        pts = []
        for k, o in enumerate(np.arange(proj.min() + spacing / 2, proj.max(), spacing)):
            seg = _clip_line(quad, c + nrm * o, d)
            if seg is not None:
                pts.extend(seg if k % 2 == 0 else seg[::-1])
        if len(pts) >= 2:
            self.line(np.asarray(pts))

    def paste(self, mask: np.ndarray, x: float, y: float) -> None:
        """Max-blend a 0..1 glyph mask with its top-left corner at (x, y)."""
        h, w = mask.shape
        x0, y0 = int(round(x)), int(round(y))
        H, W = self.layer.shape
        xa, ya, xb, yb = max(0, x0), max(0, y0), min(W, x0 + w), min(H, y0 + h)
        if xb <= xa or yb <= ya:
            return
        sub = (mask[ya - y0:yb - y0, xa - x0:xb - x0] * self.level).astype(np.uint8)
        np.maximum(self.layer[ya:yb, xa:xb], sub, out=self.layer[ya:yb, xa:xb])


def _clip_line(poly: Pts, p: np.ndarray, d: np.ndarray) -> list[np.ndarray] | None:
    """The chord of a convex polygon on the line p + t d."""
    ts = []
    n = len(poly)
    for i in range(n):
        a, b = poly[i], poly[(i + 1) % n]
        e = b - a
        den = d[0] * (-e[1]) - d[1] * (-e[0])
        if abs(den) < 1e-9:
            continue
        r = a - p
        t = (r[0] * (-e[1]) - r[1] * (-e[0])) / den
        s = (d[0] * r[1] - d[1] * r[0]) / den
        if -1e-9 <= s <= 1 + 1e-9:
            ts.append(t)
    if len(ts) < 2:
        return None
    return [p + d * min(ts), p + d * max(ts)]
