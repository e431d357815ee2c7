#!/usr/bin/env python3
"""Independent renderer of overhead photos of a Saint Malo table.

Written only from table-kit.md, rules-reference.md, contract.md and reference-art/.
Usage: python render.py --out DIR --tables N --seed S [--no-dice]
"""
import argparse
import json
import math
import os

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

HERE = os.path.dirname(os.path.abspath(__file__))
ART = "/work/shared/reference-art"
# The nine fonts no network of the product learned; `python -m vision.synth.web_fonts` fetches them (npm) as
# <name>.woff into this folder.
FONT_DIR = os.environ.get("COMPANION_WEB_FONTS", os.path.expanduser("~/.cache/companion/web-fonts"))

CELL = 28.0          # mm
MARGIN = 5.0         # board paper beyond the grid, mm
BOARD = 7 * CELL + 2 * MARGIN
S = 4.0              # board texture px per mm
W_IMG, H_IMG = 1920, 1080

TOWERS = {(0, 0), (6, 0), (6, 6), (0, 6)}            # (col,row)
PRINTED = {(1, 1), (2, 1), (1, 2), (1, 3)}           # B2 C2 B3 B4
INK = {"black": (38, 36, 42), "blue": (28, 62, 168), "red": (196, 36, 44),
       "green": (26, 128, 66), "purple": (112, 42, 150)}

# ---------------------------------------------------------------- hands
# a hand = letters (font or own strokes) + drawing styles + pen colour + stroke width (mm)
HANDS = [
    dict(name="hachi-blue", font="hachi-maru-pop", color="blue", width=(2.0, 2.6), case="upper",
         wall=["bricks", "hatch"], crate=["cross", "bare"], house=["classic", "door"],
         church=["church", "boxdigit"], circle=["closed", "oval"]),
    dict(name="sofadi-black", font="sofadi-one", color="black", width=(2.6, 3.3), case="upper",
         wall=["band", "crenel"], crate=["planks", "3d"], house=["chimney", "classic"],
         church=["crossabove", "crossside"], circle=["open", "closed"]),
    dict(name="yeonsung-red", font="yeon-sung", color="red", width=(3.0, 3.8), case="mixed",
         wall=["zigzag", "bricks"], crate=["cross", "3d"], house=["filledroof", "window"],
         church=["crossside", "tomb"], circle=["oval", "double"]),
    dict(name="kavivanar-green", font="kavivanar", color="green", width=(2.3, 3.0), case="lower",
         wall=["hatch", "crenel"], crate=["bare", "planks"], house=["classic", "window"],
         church=["church", "crossabove"], circle=["closed", "open"]),
    dict(name="strokes-purple", font=None, color="purple", width=(2.6, 3.6), case="upper",
         wall=["bricks", "band", "zigzag"], crate=["cross", "planks"], house=["door", "classic"],
         church=["boxdigit", "crossside"], circle=["closed", "double", "open"]),
    dict(name="dokdo-black", font="east-sea-dokdo", color="black", width=(2.4, 3.2), case="mixed",
         wall=["crenel", "hatch"], crate=["3d", "bare"], house=["classic", "filledroof"],
         church=["tomb", "church"], circle=["oval", "open"]),
    dict(name="sunshiney-blue", font="sunshiney", color="blue", width=(2.8, 3.6), case="upper",
         wall=["bricks", "zigzag"], crate=["planks", "cross"], house=["chimney", "door"],
         church=["crossabove", "boxdigit"], circle=["closed"]),
    dict(name="cute-red", font="cute-font", color="red", width=(2.2, 2.8), case="upper",
         wall=["band", "bricks"], crate=["bare", "3d"], house=["window", "classic"],
         church=["church", "crossside"], circle=["double", "oval"]),
    dict(name="strokes-lower-green", font=None, color="green", width=(2.0, 2.8), case="lower",
         wall=["hatch", "zigzag"], crate=["3d", "cross"], house=["classic", "chimney"],
         church=["crossside", "crossabove"], circle=["open", "oval"]),
    dict(name="loveya-purple", font="love-ya-like-a-sister", color="purple", width=(2.6, 3.4),
         case="mixed", wall=["bricks", "crenel"], crate=["cross", "planks"], house=["door", "filledroof"],
         church=["boxdigit", "tomb"], circle=["closed", "open"]),
]

_font_cache = {}


def font(name, size):
    key = (name, size)
    if key not in _font_cache:
        _font_cache[key] = ImageFont.truetype(os.path.join(FONT_DIR, name + ".woff"), size)
    return _font_cache[key]


# ---------------------------------------------------------------- noise helpers
def lowfreq(rng, h, w, cells, amp=1.0):
    small = rng.standard_normal((max(2, cells), max(2, int(cells * w / max(h, 1)) + 1))).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC) * amp


def smooth1d(rng, n, k, amp):
    ctrl = rng.standard_normal(max(2, k))
    xs = np.linspace(0, len(ctrl) - 1, n)
    return np.interp(xs, np.arange(len(ctrl)), ctrl) * amp


# ---------------------------------------------------------------- the city
def make_city(rng):
    g = [["." for _ in range(7)] for _ in range(7)]
    for c, r in TOWERS:
        g[r][c] = "#"
    for c, r in PRINTED:
        g[r][c] = "G"
    outer = [(c, r) for r in range(7) for c in range(7)
             if (r in (0, 6) or c in (0, 6)) and (c, r) not in TOWERS]

    def empty(cells=None):
        cells = cells or [(c, r) for r in range(7) for c in range(7)]
        return [(c, r) for c, r in cells if g[r][c] == "."]

    def nb4(c, r):
        return [(c + dc, r + dr) for dc, dr in ((1, 0), (-1, 0), (0, 1), (0, -1)) if 0 <= c + dc < 7 and 0 <= r + dr < 7]

    def nb8(c, r):
        return [(c + dc, r + dr) for dc in (-1, 0, 1) for dr in (-1, 0, 1)
                if (dc or dr) and 0 <= c + dc < 7 and 0 <= r + dr < 7]

    target = int(rng.uniform(0.42, 0.95) * 41)
    filled = 0
    guard = 0
    while filled < target and guard < 400:
        guard += 1
        act = rng.choice(["wall", "crate", "cross", "head"], p=[0.27, 0.2, 0.2, 0.33])
        if act == "wall":
            e = empty(outer)
            if not e:
                continue
            k = min(len(e), int(rng.integers(1, 5)))
            # walls tend to go along one side
            e.sort(key=lambda p: (p[1] == 0, p[0] == 6, p[1] == 6, p[0] == 0, rng.random()))
            start = int(rng.integers(0, len(e)))
            pick = [e[(start + i) % len(e)] for i in range(k)]
            for c, r in pick:
                g[r][c] = "W"
            filled += k
        elif act == "crate":
            e = empty()
            if not e:
                continue
            c, r = e[int(rng.integers(len(e)))]
            grp = [(c, r)]
            for _ in range(int(rng.integers(0, 3))):
                cand = [q for p in grp for q in nb4(*p) if g[q[1]][q[0]] == "." and q not in grp]
                if not cand:
                    break
                grp.append(cand[int(rng.integers(len(cand)))])
            for c, r in grp:
                g[r][c] = "G"
            filled += len(grp)
        elif act == "cross":
            e = empty()
            if not e:
                continue
            c, r = e[int(rng.integers(len(e)))]
            g[r][c] = str(int(rng.choice([1, 2, 3, 4, 5], p=[0.27, 0.3, 0.23, 0.13, 0.07])))
            filled += 1
        else:
            e = empty()
            if not e:
                continue
            c, r = e[int(rng.integers(len(e)))]
            p = rng.choice(list("cspamjn"), p=[0.24, 0.16, 0.12, 0.17, 0.13, 0.1, 0.08])
            g[r][c] = p
            filled += 1
            if p == "a":
                n = int(rng.integers(0, 4))
                cand = [q for q in nb8(c, r) if g[q[1]][q[0]] == "."]
                if n and cand:
                    grp = [cand[int(rng.integers(len(cand)))]]
                    while len(grp) < n:
                        more = [q for pp in grp for q in nb4(*pp) if g[q[1]][q[0]] == "." and q not in grp]
                        if not more:
                            break
                        grp.append(more[int(rng.integers(len(more)))])
                    for cc, rr in grp:
                        g[rr][cc] = "H"
                    filled += len(grp)
    return ["".join(row) for row in g]


# ---------------------------------------------------------------- pen strokes
class Pen:
    """Draws marker strokes (mm coordinates on the board) into a uint8 mask at S px/mm."""

    def __init__(self, mask, rng, width, wobble=0.25):
        self.m, self.rng, self.w, self.wob = mask, rng, width, wobble

    def stroke(self, pts, width=None, wobble=None, intensity=None):
        rng = self.rng
        pts = np.asarray(pts, np.float64)
        if len(pts) < 2:
            return
        w = (width or self.w) * rng.uniform(0.9, 1.1)
        wob = self.wob if wobble is None else wobble
        seg = np.linalg.norm(np.diff(pts, axis=0), axis=1)
        L = seg.sum()
        if L < 1e-6:
            return
        n = max(4, int(L / 0.35))
        t = np.concatenate([[0], np.cumsum(seg)])
        s = np.linspace(0, L, n)
        x = np.interp(s, t, pts[:, 0])
        y = np.interp(s, t, pts[:, 1])
        dx, dy = np.gradient(x), np.gradient(y)
        nn = np.hypot(dx, dy) + 1e-9
        nx, ny = -dy / nn, dx / nn
        off = smooth1d(rng, n, max(2, int(L / 6)), wob) + smooth1d(rng, n, max(2, int(L / 1.5)), wob * 0.25)
        x, y = x + nx * off, y + ny * off
        press = 1.0 + smooth1d(rng, n, max(2, int(L / 8)), 0.12)
        # a marker starts with a small blob and lifts a bit at the end
        ramp = np.clip(s / 1.2, 0.75, 1.0) * np.clip((L - s) / 2.0, 0.8, 1.0)
        rad = np.maximum(0.4, w * 0.5 * press * ramp)
        val = int(255 * (intensity if intensity is not None else rng.uniform(0.82, 1.0)))
        sh = 4
        f = S * (1 << sh)
        for xi, yi, ri in zip(x, y, rad, strict=False):
            cv2.circle(self.m, (int(xi * f), int(yi * f)), max(1, int(ri * f)), val, -1, cv2.LINE_AA, sh)

    def poly(self, pts, closed=True, **kw):
        pts = list(pts)
        if closed:
            pts = pts + [pts[0]]
        # a person draws a box as 1-4 strokes: split at corners sometimes
        if len(pts) > 3 and self.rng.random() < 0.5:
            for a, b in zip(pts[:-1], pts[1:], strict=False):
                ext = self.rng.uniform(-0.3, 1.2)
                a, b = np.array(a, float), np.array(b, float)
                d = (b - a) / (np.linalg.norm(b - a) + 1e-9)
                self.stroke([a - d * ext * self.rng.random(), b + d * ext], **kw)
        else:
            self.stroke(pts, **kw)

    def fill(self, pts, intensity=None):
        p = (np.asarray(pts) * S * 16).astype(np.int32)
        val = int(255 * (intensity or self.rng.uniform(0.75, 0.95)))
        cv2.fillPoly(self.m, [p], val, cv2.LINE_AA, 4)


def curve(ctrl, n=40):
    """Catmull-Rom through control points."""
    P = np.asarray(ctrl, float)
    if len(P) < 3:
        return P
    P = np.vstack([P[0] * 2 - P[1], P, P[-1] * 2 - P[-2]])
    out = []
    for i in range(1, len(P) - 2):
        p0, p1, p2, p3 = P[i - 1], P[i], P[i + 1], P[i + 2]
        for t in np.linspace(0, 1, max(3, n // (len(P) - 3)), endpoint=False):
            t2, t3 = t * t, t * t * t
            out.append(0.5 * ((2 * p1) + (-p0 + p2) * t + (2 * p0 - 5 * p1 + 4 * p2 - p3) * t2 + (-p0 + 3 * p1 - 3 * p2 + p3) * t3))
    out.append(P[-2])
    return np.array(out)


def arc(cx, cy, rx, ry, a0, a1, n=48):
    a = np.radians(np.linspace(a0, a1, n))
    return np.stack([cx + rx * np.cos(a), cy + ry * np.sin(a)], 1)


# own stroke letters, unit box (0..1, y down; lowercase x-height 0.4..1, descenders to 1.35)
def glyph_strokes(ch):
    def A(*p):
        return np.array(p, float)
    if ch == "C":
        return [arc(0.55, 0.5, 0.5, 0.5, -50, -310)]
    if ch == "c":
        return [arc(0.55, 0.7, 0.42, 0.3, -50, -310)]
    if ch == "S":
        return [curve([(0.88, 0.15), (0.5, 0.0), (0.12, 0.18), (0.3, 0.45), (0.72, 0.55), (0.88, 0.8), (0.5, 1.0), (0.08, 0.85)])]
    if ch == "s":
        return [curve([(0.8, 0.48), (0.5, 0.4), (0.2, 0.5), (0.35, 0.68), (0.72, 0.75), (0.8, 0.92), (0.5, 1.0), (0.15, 0.93)])]
    if ch == "P":
        return [A((0.18, 1.0), (0.18, 0.0)), curve([(0.18, 0.02), (0.6, 0.0), (0.85, 0.25), (0.6, 0.5), (0.18, 0.52)])]
    if ch == "p":
        return [A((0.2, 0.4), (0.2, 1.35)), curve([(0.2, 0.5), (0.55, 0.4), (0.82, 0.68), (0.55, 0.98), (0.2, 0.9)])]
    if ch == "A":
        return [A((0.0, 1.0), (0.5, 0.0), (1.0, 1.0)), A((0.22, 0.62), (0.8, 0.6))]
    if ch == "a":
        return [arc(0.45, 0.7, 0.33, 0.3, 0, 360), A((0.8, 0.42), (0.8, 1.0))]
    if ch == "M":
        return [A((0.02, 1.0), (0.1, 0.0), (0.5, 0.65), (0.9, 0.0), (0.98, 1.0))]
    if ch == "m":
        return [A((0.05, 0.4), (0.05, 1.0)), curve([(0.05, 0.55), (0.28, 0.4), (0.5, 0.55), (0.5, 1.0)]),
                curve([(0.5, 0.55), (0.73, 0.4), (0.95, 0.55), (0.95, 1.0)])]
    if ch == "J":
        return [A((0.3, 0.0), (0.95, 0.0)), curve([(0.65, 0.0), (0.65, 0.75), (0.45, 1.0), (0.12, 0.8)])]
    if ch == "j":
        return [curve([(0.6, 0.42), (0.6, 1.15), (0.4, 1.35), (0.15, 1.2)]), A((0.6, 0.2), (0.61, 0.22))]
    if ch == "N":
        return [A((0.05, 1.0), (0.05, 0.0), (0.95, 1.0), (0.95, 0.0))]
    if ch == "n":
        return [A((0.1, 0.4), (0.1, 1.0)), curve([(0.1, 0.58), (0.5, 0.38), (0.88, 0.6), (0.88, 1.0)])]
    if ch == "1":
        return [A((0.25, 0.25), (0.55, 0.0), (0.55, 1.0))]
    if ch == "2":
        return [curve([(0.12, 0.25), (0.45, 0.0), (0.85, 0.22), (0.6, 0.6), (0.1, 1.0)]), A((0.1, 1.0), (0.92, 0.98))]
    if ch == "3":
        return [curve([(0.12, 0.12), (0.5, 0.0), (0.82, 0.22), (0.45, 0.47)]), curve([(0.45, 0.47), (0.88, 0.7), (0.5, 1.0), (0.1, 0.88)])]
    if ch == "4":
        return [A((0.72, 1.0), (0.72, 0.0), (0.05, 0.68), (0.98, 0.68))]
    if ch == "5":
        return [A((0.85, 0.0), (0.25, 0.02), (0.2, 0.45)), curve([(0.2, 0.45), (0.6, 0.38), (0.88, 0.68), (0.55, 1.0), (0.1, 0.88)])]
    raise KeyError(ch)


def draw_text(pen, hand, ch, cx, cy, height, rng):
    """A letter or digit centred at (cx,cy) mm, cap height `height` mm."""
    ang = rng.uniform(-12, 12)
    if hand["font"] is None:
        lower = ch.islower()
        wid = height * rng.uniform(0.7, 0.95) * (1.0 if ch not in "1" else 0.6)
        sh = rng.uniform(-0.15, 0.15)
        ca, sa = math.cos(math.radians(ang)), math.sin(math.radians(ang))
        for st in glyph_strokes(ch):
            st = np.asarray(st, float).copy()
            st += rng.normal(0, 0.025, st.shape) * (len(st) < 6)
            ycen = 0.7 if lower else 0.5
            x = (st[:, 0] - 0.5) * wid + (st[:, 1] - ycen) * height * sh
            y = (st[:, 1] - ycen) * height * (1.45 if lower else 1.0)
            pen.stroke(np.stack([cx + x * ca - y * sa, cy + x * sa + y * ca], 1))
        return
    # font glyph, thickened to the pen's width, slightly warped
    F = font(hand["font"], 160)
    im = Image.new("L", (260, 300), 0)
    ImageDraw.Draw(im).text((50, 40), ch, font=F, fill=255)
    g = np.array(im)
    ys, xs = np.nonzero(g > 100)
    if len(xs) == 0:
        return
    g = g[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    hpx = height * S * (1.25 if ch in "pj" else 1.0) * (0.9 if ch.islower() and ch not in "pj" else 1.0)
    sc = hpx / g.shape[0]
    g = cv2.resize(g, (max(2, int(g.shape[1] * sc)), max(2, int(g.shape[0] * sc))), interpolation=cv2.INTER_AREA)
    pad = int(pen.w * S * 2 + 6)
    g = cv2.copyMakeBorder(g, pad, pad, pad, pad, cv2.BORDER_CONSTANT, 0)
    b = (g > 110).astype(np.uint8)
    dt = cv2.distanceTransform(b, cv2.DIST_L2, 3)
    sw = 2 * np.percentile(dt[b > 0], 90) if b.any() else 1
    want = pen.w * S * rng.uniform(0.85, 1.05)
    if sw < want:
        r = int(round((want - sw) / 2))
        if r > 0:
            g = cv2.dilate(g, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1)))
    elif sw > want * 1.4:
        r = int(round((sw - want) / 2))
        g = cv2.erode(g, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1)))
    # warp: rotation + shear + gentle elastic wobble
    hh, ww = g.shape
    M = cv2.getRotationMatrix2D((ww / 2, hh / 2), ang, 1.0)
    M[0, 1] += rng.uniform(-0.18, 0.18)
    g = cv2.warpAffine(g, M, (ww, hh))
    dx = lowfreq(rng, hh, ww, 3, S * 0.5)
    dy = lowfreq(rng, hh, ww, 3, S * 0.5)
    gx, gy = np.meshgrid(np.arange(ww, dtype=np.float32), np.arange(hh, dtype=np.float32))
    g = cv2.remap(g, gx + dx, gy + dy, cv2.INTER_LINEAR)
    g = cv2.GaussianBlur(g, (0, 0), 0.8)
    g = (g.astype(np.float32) * rng.uniform(0.82, 1.0)).astype(np.uint8)
    x0 = int(cx * S - ww / 2)
    y0 = int(cy * S - hh / 2 + (0.12 * hpx if ch in "pj" else 0))
    H, Wm = pen.m.shape
    xa, ya, xb, yb = max(0, x0), max(0, y0), min(Wm, x0 + ww), min(H, y0 + hh)
    if xb > xa and yb > ya:
        sub = pen.m[ya:yb, xa:xb]
        np.maximum(sub, g[ya - y0:yb - y0, xa - x0:xb - x0], out=sub)


def small_cross(pen, cx, cy, h, rng):
    def j():
        return rng.normal(0, 0.3)
    pen.stroke([(cx + j(), cy - h / 2), (cx + j(), cy + h / 2)], width=pen.w * 0.9)
    pen.stroke([(cx - h * 0.32, cy - h * 0.18 + j()), (cx + h * 0.32, cy - h * 0.18 + j())], width=pen.w * 0.9)


STYLE = [None]


def draw_symbol(pen, hand, sym, ox, oy, rng, side=None):
    """Draw symbol `sym` in the cell whose top-left corner is (ox,oy) mm; STYLE[0] gets the style."""
    STYLE[0] = None
    cx, cy = ox + CELL / 2 + rng.normal(0, 0.8), oy + CELL / 2 + rng.normal(0, 0.8)
    def j(s=0.5):
        return rng.normal(0, s)
    if sym == "W":
        st = rng.choice(hand["wall"])
        STYLE[0] = str(st)
        e = rng.uniform(9.5, 11.5)
        vertical = side in ("L", "R") and rng.random() < 0.5
        def P(u, v):  # u along the wall, v across
            return (cx + v, cy + u) if vertical else (cx + u, cy + v)
        if st == "bricks":
            rows = int(rng.integers(2, 4))
            hgt = rng.uniform(6, 9)
            pen.poly([P(-e + j(), -hgt + j()), P(e + j(), -hgt + j()), P(e + j(), hgt + j()), P(-e + j(), hgt + j())])
            for i in range(1, rows):
                v = -hgt + 2 * hgt * i / rows
                pen.stroke([P(-e, v + j(0.3)), P(e, v + j(0.3))])
            for i in range(rows):
                v0, v1 = -hgt + 2 * hgt * i / rows, -hgt + 2 * hgt * (i + 1) / rows
                k = int(rng.integers(2, 4))
                for q in range(k):
                    u = -e + 2 * e * (q + 0.5 + 0.5 * (i % 2)) / (k + 0.5)
                    pen.stroke([P(u + j(0.3), v0), P(u + j(0.3), v1)])
        elif st == "hatch":
            n = int(rng.integers(4, 7))
            d = rng.choice([-1, 1])
            hgt = rng.uniform(6, 10)
            if rng.random() < 0.6:
                pen.poly([P(-e, -hgt), P(e, -hgt), P(e, hgt), P(-e, hgt)])
            for i in range(n):
                u = -e + 2 * e * (i + 0.5) / n
                pen.stroke([P(u - d * hgt * 0.5 + j(0.3), -hgt), P(u + d * hgt * 0.5 + j(0.3), hgt)])
        elif st == "band":
            hgt = rng.uniform(4, 7)
            pen.fill([P(-e + j(), -hgt + j()), P(e + j(), -hgt + j()), P(e + j(), hgt + j()), P(-e + j(), hgt + j())])
            # scribble texture: the fill done with back-and-forth strokes
            zz = []
            for i in range(int(rng.integers(5, 9))):
                u = -e + 2 * e * i / 7
                zz += [P(u + j(0.4), -hgt), P(u + 1.5 + j(0.4), hgt)]
            pen.stroke(zz)
        elif st == "crenel":
            hgt = rng.uniform(7, 9)
            k = int(rng.integers(3, 5))
            pts = [P(-e, hgt)]
            for q in range(k):
                u0 = -e + 2 * e * q / k
                u1 = -e + 2 * e * (q + 0.5) / k
                u2 = -e + 2 * e * (q + 1) / k
                pts += [P(u0, -hgt), P(u1, -hgt), P(u1, -hgt * 0.35), P(u2, -hgt * 0.35)]
            pts[-1] = P(e, -hgt)
            pts += [P(e, hgt)]
            pen.poly(pts, closed=True)
            if rng.random() < 0.5:
                pen.stroke([P(-e, hgt * 0.3), P(e, hgt * 0.3)])
        else:  # zigzag between two lines
            hgt = rng.uniform(5, 8)
            pen.stroke([P(-e, -hgt + j()), P(e, -hgt + j())])
            pen.stroke([P(-e, hgt + j()), P(e, hgt + j())])
            k = int(rng.integers(4, 7))
            pen.stroke([P(-e + 2 * e * q / k, (-hgt if q % 2 else hgt) * 0.92) for q in range(k + 1)])
    elif sym == "G":
        st = rng.choice(hand["crate"])
        STYLE[0] = str(st)
        a, b = rng.uniform(8, 11), rng.uniform(6, 9.5)
        if rng.random() < 0.3:
            a, b = b, a
        box = [(cx - a + j(), cy - b + j()), (cx + a + j(), cy - b + j()), (cx + a + j(), cy + b + j()), (cx - a + j(), cy + b + j())]
        if st == "3d":
            d = rng.uniform(3, 5)
            a2, b2 = a - d / 2, b - d / 2
            f = [(cx - a2 - d / 2, cy - b2 + d / 2), (cx + a2 - d / 2, cy - b2 + d / 2), (cx + a2 - d / 2, cy + b2 + d / 2), (cx - a2 - d / 2, cy + b2 + d / 2)]
            pen.poly(f)
            pen.stroke([f[0], (f[0][0] + d, f[0][1] - d), (f[1][0] + d, f[1][1] - d), f[1]])
            pen.stroke([(f[1][0] + d, f[1][1] - d), (f[2][0] + d, f[2][1] - d), f[2]])
        else:
            pen.poly(box)
            if st == "cross":
                pen.stroke([box[0], box[2]])
                pen.stroke([box[1], box[3]])
            elif st == "planks":
                n = int(rng.integers(1, 4))
                for i in range(1, n + 1):
                    y = cy - b + 2 * b * i / (n + 1)
                    pen.stroke([(cx - a, y + j(0.3)), (cx + a, y + j(0.3))])
    elif sym == "H":
        st = rng.choice(hand["house"])
        STYLE[0] = str(st)
        a = rng.uniform(7, 9.5)
        top, bot = cy - rng.uniform(0, 2), cy + rng.uniform(8, 10.5)
        peak = cy - rng.uniform(9, 12)
        body = [(cx - a + j(), top), (cx - a + j(), bot), (cx + a + j(), bot), (cx + a + j(), top)]
        if rng.random() < 0.5:
            pen.stroke(body + [(cx + a + 1.5, top + 0.5), (cx + j(), peak), (cx - a - 1.5, top + 0.5), body[0]])
        else:
            pen.poly(body, closed=True)
            pen.stroke([(cx - a - 1.5 + j(), top + 0.5), (cx + j(), peak), (cx + a + 1.5 + j(), top + 0.5)])
        if st == "door":
            dw = rng.uniform(2, 3)
            pen.stroke([(cx - dw, bot), (cx - dw, bot - 5), (cx + dw, bot - 5), (cx + dw, bot)])
        elif st == "chimney":
            xx = cx + a * 0.5
            pen.stroke([(xx, peak + (top - peak) * 0.5 + 1), (xx, peak - 1), (xx + 2.5, peak - 1), (xx + 2.5, peak + (top - peak) * 0.62)])
        elif st == "filledroof":
            pen.fill([(cx - a - 1.5, top + 0.5), (cx, peak), (cx + a + 1.5, top + 0.5)])
        elif st == "window":
            w = rng.uniform(2, 3)
            wx, wy = cx + rng.choice([-1, 1]) * a * 0.45, (top + bot) / 2
            pen.poly([(wx - w, wy - w), (wx + w, wy - w), (wx + w, wy + w), (wx - w, wy + w)])
    elif sym in "12345":
        st = rng.choice(hand["church"])
        STYLE[0] = str(st)
        if st == "church":
            a = rng.uniform(6.5, 8.5)
            top, bot, peak = cy - 2, cy + 10.5, cy - 7.5
            pen.poly([(cx - a, top), (cx - a, bot), (cx + a, bot), (cx + a, top)])
            pen.stroke([(cx - a - 1, top + 0.5), (cx + j(0.3), peak), (cx + a + 1, top + 0.5)])
            small_cross(pen, cx, peak - 3, 5.5, rng)
            draw_text(pen, hand, sym, cx, (top + bot) / 2 + 0.5, rng.uniform(7, 8.5), rng)
        elif st == "crossside":
            s = rng.choice([-1, 1])
            small_cross(pen, cx + s * 6.5, cy, rng.uniform(10, 14), rng)
            draw_text(pen, hand, sym, cx - s * 4, cy, rng.uniform(11, 14), rng)
        elif st == "crossabove":
            small_cross(pen, cx, cy - 7, rng.uniform(7, 9), rng)
            draw_text(pen, hand, sym, cx, cy + 4.5, rng.uniform(9, 11.5), rng)
        elif st == "tomb":
            a = rng.uniform(7, 9)
            pts = [(cx - a, cy + 10)] + list(arc(cx, cy - 2, a, a * 0.9, 180, 360, 20)) + [(cx + a, cy + 10)]
            pen.stroke(pts)
            if rng.random() < 0.6:
                small_cross(pen, cx, cy - 2 - a * 0.9 - 3, 5, rng)
            draw_text(pen, hand, sym, cx, cy + 2, rng.uniform(9, 11), rng)
        else:  # boxdigit
            a = rng.uniform(8, 10)
            pen.poly([(cx - a, cy - a), (cx + a, cy - a), (cx + a, cy + a), (cx - a, cy + a)])
            if rng.random() < 0.5:
                small_cross(pen, cx, cy - a - 2.5, 5, rng)
            draw_text(pen, hand, sym, cx, cy, rng.uniform(10, 12.5), rng)
    elif sym in "cspamjn":
        st = rng.choice(hand["circle"])
        STYLE[0] = str(st)
        r = rng.uniform(8.5, 11)
        rx, ry = r, r
        if st == "oval":
            k = rng.uniform(0.72, 0.88)
            if rng.random() < 0.5:
                rx *= k
            else:
                ry *= k
        a0 = rng.uniform(0, 360)
        span = {"closed": rng.uniform(360, 380), "open": rng.uniform(300, 335),
                "oval": rng.uniform(350, 375), "double": rng.uniform(560, 700)}[st]
        pts = arc(cx, cy, rx, ry, a0, a0 + span, 80)
        t = np.linspace(0, 1, len(pts))[:, None]
        pts = pts + (t * rng.normal(0, 1.0, 2)) + rng.normal(0, 0.1, pts.shape)
        pen.stroke(pts)
        case = hand["case"]
        ch = sym.upper() if case == "upper" or (case == "mixed" and rng.random() < 0.5) else sym
        h = min(rx, ry) * rng.uniform(1.05, 1.3)
        draw_text(pen, hand, ch, cx + j(0.6), cy + j(0.6), h, rng)


# ---------------------------------------------------------------- board texture
def board_texture(rng, seat, city, hand, ghosts=True):
    n = int(round(BOARD * S))
    paper = np.array([rng.uniform(200, 215), rng.uniform(183, 196), rng.uniform(145, 162)], np.float32)
    light = np.array([rng.uniform(236, 246), rng.uniform(230, 240), rng.uniform(214, 226)], np.float32)
    img = np.empty((n, n, 3), np.float32)
    img[:] = paper
    g0, g1 = int((MARGIN + CELL) * S), int((MARGIN + 6 * CELL) * S)
    img[g0:g1, g0:g1] = light
    mott = lowfreq(rng, n, n, 40, 7) + lowfreq(rng, n, n, 8, 4) + rng.normal(0, 3, (n, n)).astype(np.float32)
    inner = np.zeros((n, n), np.float32)
    inner[g0:g1, g0:g1] = 1
    inner = cv2.GaussianBlur(inner, (0, 0), 2)
    img += (mott * (1 - 0.7 * inner))[..., None]
    # grid lines, drawn a little loosely like the printed board
    line = (rng.uniform(60, 80),) * 3
    lw = max(2, int(0.7 * S))
    for k in range(8):
        for m in range(7):
            a = MARGIN + m * CELL + rng.uniform(0.3, 1.2)
            b = MARGIN + (m + 1) * CELL - rng.uniform(0.3, 1.2)
            c = MARGIN + k * CELL
            for horiz in (True, False):
                t = np.linspace(a, b, 8)
                w = c + smooth1d(rng, 8, 3, 0.25)
                pts = np.stack([t, w], 1) if horiz else np.stack([w, t], 1)
                cv2.polylines(img, [(pts * S * 16).astype(np.int32)], False, line, lw, cv2.LINE_AA, 4)
    # printed towers (medallions with the bonus icons; mostly covered by stickers)
    for (c, r) in TOWERS:
        cx, cy = (MARGIN + (c + 0.5) * CELL) * S, (MARGIN + (r + 0.5) * CELL) * S
        R = int(12.8 * S)
        cv2.circle(img, (int(cx), int(cy)), R, (222, 214, 190), -1, cv2.LINE_AA)
        cv2.circle(img, (int(cx), int(cy)), R, (110, 100, 80), int(1.2 * S), cv2.LINE_AA)
        cv2.circle(img, (int(cx), int(cy)), R - int(2 * S), (170, 160, 135), int(0.6 * S), cv2.LINE_AA)
        # little arrow toward the side the bonus belongs to
        d = {(0, 0): (1, 0), (6, 0): (0, 1), (6, 6): (-1, 0), (0, 6): (0, -1)}[(c, r)]
        p0 = (int(cx + d[0] * 10 * S - d[1] * 8 * S), int(cy + d[1] * 10 * S + d[0] * 8 * S))
        p1 = (int(p0[0] + d[0] * 5 * S), int(p0[1] + d[1] * 5 * S))
        cv2.arrowedLine(img, p0, p1, (30, 30, 30), int(0.8 * S), cv2.LINE_AA, tipLength=0.4)
    # printed crates: a fixed wooden crate drawing
    for (c, r) in PRINTED:
        ox, oy = (MARGIN + c * CELL) * S, (MARGIN + r * CELL) * S
        x0, y0, x1, y1 = int(ox + 4 * S), int(oy + 7 * S), int(ox + 24 * S), int(oy + 22 * S)
        cv2.rectangle(img, (x0, y0), (x1, y1), (196, 112, 48), -1, cv2.LINE_AA)
        cv2.rectangle(img, (x0, y0), (x1, y1), (110, 58, 22), int(0.9 * S), cv2.LINE_AA)
        for yy in (y0 + (y1 - y0) // 3, y0 + 2 * (y1 - y0) // 3):
            cv2.line(img, (x0, yy), (x1, yy), (135, 72, 30), int(0.6 * S), cv2.LINE_AA)
        for xx in (x0 + int(2 * S), x1 - int(2 * S)):
            cv2.line(img, (xx, y0), (xx, y1), (150, 84, 36), int(1.2 * S), cv2.LINE_AA)
    img = np.clip(img, 0, 255)
    # ink
    w = rng.uniform(*hand["width"])
    mask = np.zeros((n, n), np.uint8)
    pen = Pen(mask, rng, w, wobble=rng.uniform(0.15, 0.45))
    ghost = np.zeros((n, n), np.uint8)
    gpen = Pen(ghost, rng, w, wobble=0.3)
    styles = {}
    for r in range(7):
        for c in range(7):
            ch = city[r][c]
            ox, oy = MARGIN + c * CELL, MARGIN + r * CELL
            side = "T" if r == 0 else "B" if r == 6 else "L" if c == 0 else "R" if c == 6 else None
            if ch in "#" or (c, r) in PRINTED:
                continue
            if ch == ".":
                if ghosts and rng.random() < 0.12:
                    gsym = rng.choice(list("GHW2c") if side else list("GH3pa"))
                    draw_symbol(gpen, hand, gsym, ox, oy, rng, side)
                continue
            draw_symbol(pen, hand, ch, ox, oy, rng, side)
            styles["ABCDEFG"[c] + str(r + 1)] = STYLE[0]
    # ink texture: streaks and uneven density
    tex = np.clip(0.88 + lowfreq(rng, n, n, 60, 0.06) + rng.normal(0, 0.04, (n, n)).astype(np.float32), 0.6, 1)
    a = mask.astype(np.float32) / 255 * tex * rng.uniform(0.88, 0.97)
    ga = cv2.GaussianBlur(ghost, (0, 0), rng.uniform(3, 7)).astype(np.float32) / 255
    erase = np.clip(lowfreq(rng, n, n, 30, 1.0) + 0.2, 0, 1)
    ga = ga * erase * rng.uniform(0.15, 0.35)
    smudge = np.clip(lowfreq(rng, n, n, 14, 1.0) - 1.6, 0, 1) * 0.12
    color = np.array(INK[hand["color"]], np.float32)
    img = img * (1 - ga - smudge)[..., None] + (color * 0.6 + 120)[None, None] * (ga + smudge)[..., None]
    img = img * (1 - a)[..., None] + color[None, None] * a[..., None]
    # marker stickers on the towers
    d = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    side_mm = 0.7 * CELL
    ids = {(0, 0): 4 * seat, (6, 0): 4 * seat + 1, (6, 6): 4 * seat + 2, (0, 6): 4 * seat + 3}
    for (c, r), mid in ids.items():
        cx, cy = MARGIN + (c + 0.5) * CELL + rng.normal(0, 0.5), MARGIN + (r + 0.5) * CELL + rng.normal(0, 0.5)
        paste_marker(img, d, mid, cx, cy, side_mm, rng.normal(0, 1.5), border_mm=2.2)
    alpha = np.zeros((n, n), np.uint8)
    cv2.rectangle(alpha, (0, 0), (n - 1, n - 1), 255, -1)
    rr = int(4 * S)
    for (x, y) in ((0, 0), (n - 1, 0), (0, n - 1), (n - 1, n - 1)):
        cv2.rectangle(alpha, (x - rr if x else 0, y - rr if y else 0), (x + rr if not x else n, y + rr if not y else n), 0, -1)
        cv2.circle(alpha, (rr if not x else n - 1 - rr, rr if not y else n - 1 - rr), rr, 255, -1, cv2.LINE_AA)
    # the board's edge: a thin darker rim of cardboard
    edge = cv2.morphologyEx(alpha, cv2.MORPH_GRADIENT, np.ones((5, 5), np.uint8))
    img = img * (1 - edge[..., None] / 255 * 0.35)
    return np.clip(img, 0, 255).astype(np.uint8), alpha, styles


def paste_marker(img, d, mid, cx, cy, side_mm, ang, border_mm=2.2):
    """White sticker with the marker centred at (cx,cy) mm of a texture at S px/mm."""
    px = int(side_mm * S)
    mk = cv2.aruco.generateImageMarker(d, mid, px, borderBits=1)
    b = int(border_mm * S)
    st = cv2.copyMakeBorder(mk, b, b, b, b, cv2.BORDER_CONSTANT, value=255)
    st = cv2.cvtColor(st, cv2.COLOR_GRAY2RGB).astype(np.float32)
    st = st * np.array([0.97, 0.97, 0.95]) + 4
    m = st.shape[0]
    M = cv2.getRotationMatrix2D((m / 2, m / 2), ang, 1.0)
    M[0, 2] += cx * S - m / 2
    M[1, 2] += cy * S - m / 2
    h, w = img.shape[:2]
    warped = cv2.warpAffine(st, M, (w, h), flags=cv2.INTER_LINEAR)
    am = cv2.warpAffine(np.full((m, m), 1, np.float32), M, (w, h), flags=cv2.INTER_LINEAR)
    img[:] = img * (1 - am[..., None]) + warped * am[..., None]


# ---------------------------------------------------------------- dice tray
def die_symbols():
    out = {}
    for face in ("log", "crate", "wall", "cross", "head", "swords"):
        a = np.array(Image.open(os.path.join(ART, f"die-{face}.png")).convert("RGBA")).astype(np.float32)
        rgb = a[..., :3]
        hsv = cv2.cvtColor(rgb.astype(np.uint8), cv2.COLOR_RGB2HSV)
        h, w = rgb.shape[:2]
        yy, xx = np.mgrid[0:h, 0:w]
        inside = np.hypot(xx - w / 2, yy - h / 2) < 0.44 * min(h, w)
        m = ((hsv[..., 1] > 80) | (hsv[..., 2] < 165)) & inside
        m = cv2.GaussianBlur(m.astype(np.float32), (0, 0), 0.8)
        out[face] = (rgb, m)
    return out


def tray_texture(rng, tw, th, dice_faces, syms, H_local_to_img_nadir, h_cam):
    """Tray in its own mm frame (0..tw, 0..th floor, plus rim). Returns RGB, alpha, rim width."""
    rim = rng.uniform(8, 14)
    W, Hh = int((tw + 2 * rim) * S), int((th + 2 * rim) * S)
    dark = rng.random() < 0.5
    floor = np.array(rng.uniform(30, 70, 3) if dark else rng.uniform(190, 235, 3), np.float32)
    rimc = floor * rng.uniform(0.6, 0.85) if not dark else floor + rng.uniform(20, 50)
    img = np.empty((Hh, W, 3), np.float32)
    img[:] = rimc
    f0 = (int(rim * S), int(rim * S))
    img[f0[1]:Hh - f0[1], f0[0]:W - f0[0]] = floor
    img += (lowfreq(rng, Hh, W, 10, 4) + rng.normal(0, 2.5, (Hh, W)).astype(np.float32))[..., None]
    # inner rim shadow
    fl = np.zeros((Hh, W), np.float32)
    fl[f0[1]:Hh - f0[1], f0[0]:W - f0[0]] = 1
    sh = cv2.GaussianBlur(1 - fl, (0, 0), 3 * S) * fl
    img *= (1 - 0.5 * sh)[..., None]
    d = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    ms = rng.uniform(16, 22)
    inset = ms / 2 + 3
    corners = {20: (inset, inset), 21: (tw - inset, inset), 22: (tw - inset, th - inset), 23: (inset, th - inset)}
    for mid, (x, y) in corners.items():
        paste_marker(img, d, mid, rim + x, rim + y, ms, rng.normal(0, 2), border_mm=2.0)
    # dice
    placed = []
    size = rng.uniform(14, 20)
    for face in dice_faces:
        for _ in range(200):
            x, y = rng.uniform(inset * 2 + size * 0.2, tw - inset * 2 - size * 0.2), rng.uniform(size, th - size)
            if all(math.hypot(x - a, y - b) > size * 1.55 for a, b in placed) and \
                    all(math.hypot(x - a, y - b) > ms * 0.75 + size * 0.85 for a, b in corners.values()):
                break
        placed.append((x, y))
        draw_die(img, rng, syms[face], rim + x, rim + y, size, rng.uniform(0, 360), H_local_to_img_nadir(x, y), h_cam)
    alpha = np.full((Hh, W), 255, np.uint8)
    return np.clip(img, 0, 255), alpha, rim


def draw_die(img, rng, sym, cx, cy, size, ang, parallax_dir, h_cam):
    """A white rounded cube seen from above; parallax_dir = (dx,dy) mm from nadir in tray frame."""
    k = size / (h_cam - size)
    ox, oy = parallax_dir[0] * k, parallax_dir[1] * k   # top face displaced outward
    a = math.radians(ang)
    R = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    sq = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], float) * size / 2
    base = sq @ R.T + (cx, cy)
    top = base + (ox, oy)
    # shadow
    shm = np.zeros(img.shape[:2], np.float32)
    cv2.fillPoly(shm, [((base + (1.5, 2.5)) * S).astype(np.int32)], 1.0)
    shm = cv2.GaussianBlur(shm, (0, 0), 2 * S)
    img *= (1 - 0.45 * shm)[..., None]
    # sides: hull of base and top, greyish
    hull = cv2.convexHull(np.vstack([base, top]).astype(np.float32) * S).astype(np.int32)
    cv2.fillPoly(img, [hull], (175, 175, 170), cv2.LINE_AA)
    # top face with symbol
    fs = int(size * S)
    rgb, m = sym
    face = np.full((fs, fs, 3), 246, np.float32)
    yy, xx = np.mgrid[0:fs, 0:fs]
    edge = np.minimum(np.minimum(xx, fs - 1 - xx), np.minimum(yy, fs - 1 - yy)) / fs
    face *= (0.86 + 0.14 * np.clip(edge / 0.15, 0, 1))[..., None]
    symrgb = cv2.resize(rgb, (int(fs * 1.2), int(fs * 1.2)), interpolation=cv2.INTER_AREA)
    symm = cv2.resize(m, (int(fs * 1.2), int(fs * 1.2)), interpolation=cv2.INTER_AREA)
    o = (symrgb.shape[0] - fs) // 2
    symrgb, symm = symrgb[o:o + fs, o:o + fs], symm[o:o + fs, o:o + fs]
    face = face * (1 - symm[..., None]) + symrgb * symm[..., None]
    src = np.float32([[0, 0], [fs, 0], [fs, fs], [0, fs]])
    rr = size * 0.12
    dst = np.float32(top * S)
    Hm = cv2.getPerspectiveTransform(src, dst)
    hh, ww = img.shape[:2]
    wf = cv2.warpPerspective(face, Hm, (ww, hh), flags=cv2.INTER_LINEAR)
    mk = np.zeros((fs, fs), np.float32)
    cv2.rectangle(mk, (int(rr * S), 0), (fs - int(rr * S), fs), 1, -1)
    cv2.rectangle(mk, (0, int(rr * S)), (fs, fs - int(rr * S)), 1, -1)
    for px in (int(rr * S), fs - int(rr * S)):
        for py in (int(rr * S), fs - int(rr * S)):
            cv2.circle(mk, (px, py), int(rr * S), 1, -1, cv2.LINE_AA)
    wm = cv2.warpPerspective(mk, Hm, (ww, hh), flags=cv2.INTER_LINEAR)
    img[:] = img * (1 - wm[..., None]) + wf * wm[..., None]


# ---------------------------------------------------------------- table surface
def table_surface(rng):
    h, w = H_IMG, W_IMG
    kind = rng.choice(["wood", "cloth", "plain"], p=[0.45, 0.3, 0.25])
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    if kind == "wood":
        base = np.array(rng.choice([[150, 100, 60], [190, 150, 105], [110, 72, 45], [205, 175, 135], [90, 60, 40]]), np.float32)
        base = base * rng.uniform(0.9, 1.1, 3)
        ang = rng.choice([0, 90]) + rng.normal(0, 3)
        a = math.radians(ang)
        v = -xx * math.sin(a) + yy * math.cos(a)
        warp = lowfreq(rng, h, w, 5, 12)
        # grain: noise stretched along the fibre direction, rotated onto the table
        big = int(math.hypot(h, w)) + 4
        streak = cv2.resize(rng.standard_normal((int(big / 2.5), 24)).astype(np.float32), (big, big), interpolation=cv2.INTER_CUBIC)
        streak += cv2.resize(rng.standard_normal((int(big / 1.2), 90)).astype(np.float32), (big, big), interpolation=cv2.INTER_CUBIC) * 0.5
        streak = streak.T  # streaks run along x
        M = cv2.getRotationMatrix2D((big / 2, big / 2), -ang, 1.0)
        M[0, 2] -= (big - w) / 2
        M[1, 2] -= (big - h) / 2
        grain = cv2.warpAffine(streak, M, (w, h), borderMode=cv2.BORDER_REFLECT)
        grain = grain + 0.6 * np.sin((v + warp * 3) * rng.uniform(0.02, 0.05))
        plank = rng.uniform(90, 180)
        seams = (np.abs(((v + rng.uniform(0, plank)) % plank) - plank / 2) > plank / 2 - 1.2).astype(np.float32)
        shade = grain * rng.uniform(6, 12) + lowfreq(rng, h, w, 4, 8)
        img = base[None, None] + shade[..., None] * np.array([1.0, 0.8, 0.6])
        img *= (1 - 0.35 * seams)[..., None]
    elif kind == "cloth":
        base = np.array(rng.choice([[40, 95, 60], [40, 60, 110], [120, 35, 40], [90, 90, 95], [170, 160, 140], [30, 30, 35]]), np.float32)
        weave = (np.sin(xx * 1.3) * np.sin(yy * 1.3)) * 2.5
        img = base[None, None] + (weave + lowfreq(rng, h, w, 8, 8) + rng.normal(0, 4, (h, w)))[..., None]
        # folds
        img *= (1 + lowfreq(rng, h, w, 3, 0.06))[..., None]
    else:
        base = np.array(rng.choice([[225, 225, 220], [60, 62, 66], [200, 190, 170], [150, 160, 165]]), np.float32)
        img = base[None, None] + (lowfreq(rng, h, w, 6, 5) + rng.normal(0, 3, (h, w)))[..., None]
    return np.clip(img, 0, 255).astype(np.float32), str(kind)


# ---------------------------------------------------------------- camera and scene
def camera(rng):
    cell_px = rng.uniform(25, 35)
    h = rng.uniform(600, 900)
    f = cell_px * h / CELL
    K = np.array([[f, 0, W_IMG / 2 + rng.normal(0, 15)], [0, f, H_IMG / 2 + rng.normal(0, 15)], [0, 0, 1]])
    tx, ty, yaw = [math.radians(v) for v in (rng.normal(0, 3), rng.normal(0, 3), rng.normal(0, 2))]
    Rx = np.array([[1, 0, 0], [0, math.cos(tx), -math.sin(tx)], [0, math.sin(tx), math.cos(tx)]])
    Ry = np.array([[math.cos(ty), 0, math.sin(ty)], [0, 1, 0], [-math.sin(ty), 0, math.cos(ty)]])
    Rz = np.array([[math.cos(yaw), -math.sin(yaw), 0], [math.sin(yaw), math.cos(yaw), 0], [0, 0, 1]])
    R = Rz @ Ry @ Rx
    # table frame: origin at the camera's nadir, mm, x right, y toward the bottom of the frame
    Hc = K @ R @ np.array([[1, 0, 0], [0, 1, 0], [0, 0, h]])
    return Hc, h, f


def apply_h(H, pts):
    p = np.hstack([np.asarray(pts, float), np.ones((len(pts), 1))]) @ H.T
    return p[:, :2] / p[:, 2:]


def pose_matrix(cx, cy, ang_deg, half):
    """texture px (at S px/mm, size 2*half mm) -> table mm."""
    a = math.radians(ang_deg)
    T0 = np.array([[1 / S, 0, -half], [0, 1 / S, -half], [0, 0, 1]])
    R = np.array([[math.cos(a), -math.sin(a), cx], [math.sin(a), math.cos(a), cy], [0, 0, 1]])
    return R @ T0


def composite(scene, tex, alpha, H_tex_to_img, rng, shadow_mm=1.5, shadow_strength=0.3, px_per_mm=1.0):
    # pre-shrink the texture to ~1.5x the final scale to avoid aliasing
    k = min(1.0, 1.5 * px_per_mm / S)
    if k < 1.0:
        small = cv2.resize(tex, None, fx=k, fy=k, interpolation=cv2.INTER_AREA)
        asmall = cv2.resize(alpha, None, fx=k, fy=k, interpolation=cv2.INTER_AREA)
        H = H_tex_to_img @ np.diag([1 / k, 1 / k, 1])
    else:
        small, asmall, H = tex, alpha, H_tex_to_img
    h, w = scene.shape[:2]
    wt = cv2.warpPerspective(small.astype(np.float32), H, (w, h), flags=cv2.INTER_LINEAR)
    wa = cv2.warpPerspective(asmall.astype(np.float32) / 255, H, (w, h), flags=cv2.INTER_LINEAR)
    off = shadow_mm * px_per_mm
    M = np.float32([[1, 0, off * 0.7], [0, 1, off]])
    sh = cv2.GaussianBlur(cv2.warpAffine(wa, M, (w, h)), (0, 0), max(1, 2.5 * px_per_mm))
    scene *= (1 - shadow_strength * sh)[..., None]
    scene[:] = scene * (1 - wa[..., None]) + wt * wa[..., None]
    return wa


def draw_clutter(scene, rng, Hc, occupied, ppm):
    """Pens, coins and wooden logs lying on the table, away from boards and tray."""
    h, w = scene.shape[:2]
    Hinv = np.linalg.inv(Hc)
    items = []
    for _ in range(int(rng.integers(2, 8))):
        kind = rng.choice(["pen", "coin", "coin", "log"])
        for _ in range(30):
            u, v = rng.uniform(40, w - 40), rng.uniform(40, h - 40)
            if occupied[int(v), int(u)] == 0:
                break
        else:
            continue
        X, Y = apply_h(Hinv, [(u, v)])[0]
        a = rng.uniform(0, math.pi)
        if kind == "pen":
            L, Wd = rng.uniform(120, 145), rng.uniform(11, 15)
        elif kind == "log":
            L, Wd = rng.uniform(22, 30), rng.uniform(7, 10)
        else:
            L = Wd = rng.uniform(18, 24)
        ca, sa = math.cos(a), math.sin(a)
        rect = [(X + ca * dx - sa * dy, Y + sa * dx + ca * dy) for dx, dy in
                ((-L / 2, -Wd / 2), (L / 2, -Wd / 2), (L / 2, Wd / 2), (-L / 2, Wd / 2))]
        poly = apply_h(Hc, rect).astype(np.float32)
        test = np.zeros((h, w), np.uint8)
        cv2.fillPoly(test, [poly.astype(np.int32)], 1)
        if (test & (occupied > 0)).any():
            continue
        shm = np.zeros((h, w), np.float32)
        cv2.fillPoly(shm, [(poly + (2.5 * ppm, 4 * ppm)).astype(np.int32)], 1.0)
        scene *= (1 - 0.35 * cv2.GaussianBlur(shm, (0, 0), 3 * ppm))[..., None]
        if kind == "coin":
            c = apply_h(Hc, [(X, Y)])[0]
            col = (rng.uniform(190, 220), rng.uniform(160, 180), rng.uniform(60, 90)) if rng.random() < 0.7 else (190, 190, 195)
            r = L / 2 * ppm
            cv2.circle(scene, (int(c[0] * 16), int(c[1] * 16)), int(r * 16), col, -1, cv2.LINE_AA, 4)
            cv2.circle(scene, (int(c[0] * 16), int(c[1] * 16)), int(r * 0.75 * 16), tuple(x * 0.85 for x in col), 1, cv2.LINE_AA, 4)
        elif kind == "log":
            cv2.fillPoly(scene, [(poly * 16).astype(np.int32)], (rng.uniform(110, 150), rng.uniform(70, 90), rng.uniform(40, 55)), cv2.LINE_AA, 4)
        else:
            col = np.array(INK[rng.choice(list(INK))], float)
            cv2.fillPoly(scene, [(poly * 16).astype(np.int32)], (235, 235, 232), cv2.LINE_AA, 4)
            cap = [rect[1], (rect[1][0] - ca * 40, rect[1][1] - sa * 40), (rect[2][0] - ca * 40, rect[2][1] - sa * 40), rect[2]]
            cv2.fillPoly(scene, [(apply_h(Hc, cap) * 16).astype(np.int32)], tuple(col), cv2.LINE_AA, 4)
        cv2.fillPoly(occupied, [poly.astype(np.int32)], 255)
        items.append(str(kind))
    return items


def lens_distort(img, k1, f, cx, cy):
    h, w = img.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    x, y = (xx - cx) / f, (yy - cy) / f
    r2 = x * x + y * y
    # barrel distortion, rescaled so the frame corners stay in view (no black borders)
    s = (1 + k1 * r2) / (1 + k1 * ((w / 2 / f) ** 2 + (h / 2 / f) ** 2))
    return cv2.remap(img, (x * s * f + cx).astype(np.float32), (y * s * f + cy).astype(np.float32), cv2.INTER_LINEAR)


def distort_points(pts, k1, f, cx, cy):
    p = (np.asarray(pts, float) - (cx, cy)) / f
    sc = 1 + k1 * ((W_IMG / 2 / f) ** 2 + (H_IMG / 2 / f) ** 2)
    d = p.copy()
    for _ in range(30):
        r2 = (d ** 2).sum(1, keepdims=True)
        d = p * sc / (1 + k1 * r2)
    return d * f + (cx, cy)


def render_table(rng, idx, dice_on, syms):
    scene, surface = table_surface(rng)
    for _ in range(50):
        Hc, hcam, f = camera(rng)
        ppm = f / hcam
        Hinv = np.linalg.inv(Hc)
        # visible table rectangle (inner box of the projected frame)
        cor = apply_h(Hinv, [(0, 0), (W_IMG, 0), (W_IMG, H_IMG), (0, H_IMG)])
        x0, x1 = max(cor[0, 0], cor[3, 0]), min(cor[1, 0], cor[2, 0])
        y0, y1 = max(cor[0, 1], cor[1, 1]), min(cor[2, 1], cor[3, 1])
        nb = int(rng.integers(2, 5))
        seats = sorted(rng.choice(5, nb, replace=False).tolist()) if rng.random() < 0.5 else list(range(nb))
        slots = ["bottom", "top", "left", "right"]
        if nb == 4 and rng.random() < 0.3:
            slots = ["bottom", "bottom2", "top", "top2"]
        rng.shuffle(slots)
        half = BOARD / 2
        m = 20
        poses = []
        for s in slots[:nb]:
            jx, jy = rng.normal(0, 60), rng.normal(0, 25)
            if s == "bottom":
                p = ((x0 + x1) / 2 + jx, y1 - half - m - abs(jy), 0)
            elif s == "top":
                p = ((x0 + x1) / 2 + jx, y0 + half + m + abs(jy), 180)
            elif s == "bottom2":
                p = ((x0 + x1) / 2 - 280 + jx / 3, y1 - half - m - abs(jy), 0)
            elif s == "top2":
                p = ((x0 + x1) / 2 + 280 + jx / 3, y0 + half + m + abs(jy), 180)
            elif s == "left":
                p = (x0 + half + m + abs(jx) / 2, (y0 + y1) / 2 + jy, 90)
            else:
                p = (x1 - half - m - abs(jx) / 2, (y0 + y1) / 2 + jy, 270)
            poses.append((p[0], p[1], p[2] + rng.normal(0, 6)))
        if nb == 4 and "bottom2" in slots:
            # place the two bottom boards and two top boards side by side
            b = [i for i, s in enumerate(slots[:nb]) if s.startswith("bottom")]
            t = [i for i, s in enumerate(slots[:nb]) if s.startswith("top")]
            cxm = (x0 + x1) / 2
            for grp in (b, t):
                for k, i in enumerate(grp):
                    poses[i] = (cxm + (-1 if k == 0 else 1) * (half + 25 + rng.uniform(0, 40)), poses[i][1], poses[i][2])
        ok = True
        for i in range(nb):
            for j in range(i):
                if math.hypot(poses[i][0] - poses[j][0], poses[i][1] - poses[j][1]) < BOARD * 1.15:
                    ok = False
        for (bx, by, ba) in poses:
            pts = apply_h(Hc @ pose_matrix(bx, by, ba, half), [(0, 0), (BOARD * S, 0), (BOARD * S, BOARD * S), (0, BOARD * S)])
            if pts[:, 0].min() < 15 or pts[:, 1].min() < 15 or pts[:, 0].max() > W_IMG - 15 or pts[:, 1].max() > H_IMG - 15:
                ok = False
        tray = None
        if ok and dice_on:
            tw, th = rng.uniform(200, 300), rng.uniform(140, 200)
            if th > tw * 0.8:
                th = tw * 0.7
            for _ in range(40):
                tx, ty = rng.uniform(x0 + 150, x1 - 150), rng.uniform(y0 + 120, y1 - 120)
                rad = math.hypot(tw, th) / 2 + 15
                if all(math.hypot(tx - bx, ty - by) > rad + half * 1.3 for bx, by, _ in poses):
                    tray = (tx, ty, tw, th, rng.choice([0, 90]) + rng.normal(0, 8))
                    break
            if tray is None:
                ok = False
        if ok:
            break
    else:
        raise RuntimeError(f"could not lay out table {idx}")

    occupied = np.zeros((H_IMG, W_IMG), np.uint8)
    boards = []
    used_hands = rng.choice(len(HANDS), nb, replace=False)
    for k, (bx, by, ba) in enumerate(poses):
        seat = seats[k]
        hand = HANDS[int(used_hands[k])]
        city = make_city(rng)
        tex, alpha, styles = board_texture(rng, seat, city, hand)
        Hb = Hc @ pose_matrix(bx, by, ba, half)
        wa = composite(scene, tex, alpha, Hb, rng, shadow_mm=rng.uniform(1, 3), shadow_strength=0.35, px_per_mm=ppm)
        occupied[wa > 0.01] = 255
        gc = apply_h(Hb, [(MARGIN * S, MARGIN * S), ((MARGIN + 7 * CELL) * S, MARGIN * S),
                          ((MARGIN + 7 * CELL) * S, (MARGIN + 7 * CELL) * S), (MARGIN * S, (MARGIN + 7 * CELL) * S)])
        boards.append(dict(seat=int(seat), city=city, hand=hand["name"], grid_corners=gc.tolist(), rotation=round(ba % 360, 1), styles=styles))
    dice = None
    if tray is not None:
        tx, ty, tw, th, ta = tray
        dice = [str(rng.choice(["log", "crate", "wall", "cross", "head", "swords"])) for _ in range(5)]
        a = math.radians(ta)

        def nadir_dir(x, y):
            # vector from the camera nadir (table origin) to the die, expressed in tray frame
            lx, ly = x - tw / 2, y - th / 2
            wx = tx + lx * math.cos(a) - ly * math.sin(a)
            wy = ty + lx * math.sin(a) + ly * math.cos(a)
            return (wx * math.cos(-a) - wy * math.sin(-a), wx * math.sin(-a) + wy * math.cos(-a))
        ttex, talpha, rim = tray_texture(rng, tw, th, dice, syms, nadir_dir, hcam)
        Ht = pose_matrix(tx, ty, ta, 0) @ np.array([[1, 0, -(tw / 2 + rim) * S], [0, 1, -(th / 2 + rim) * S], [0, 0, 1]])
        wa = composite(scene, ttex, talpha, Hc @ Ht, rng, shadow_mm=5, shadow_strength=0.4, px_per_mm=ppm)
        occupied[wa > 0.01] = 255
    clutter = draw_clutter(scene, rng, Hc, cv2.dilate(occupied, np.ones((9, 9), np.uint8)), ppm)

    # light: gradient, vignetting, warm/cool cast, occasional glare on the glossy boards
    yy, xx = np.mgrid[0:H_IMG, 0:W_IMG].astype(np.float32)
    g = 1 + rng.uniform(-0.25, 0.25) * (xx / W_IMG - 0.5) + rng.uniform(-0.25, 0.25) * (yy / H_IMG - 0.5)
    g += lowfreq(rng, H_IMG, W_IMG, 3, 0.06)
    r2 = ((xx - W_IMG / 2) ** 2 + (yy - H_IMG / 2) ** 2) / (W_IMG / 2) ** 2
    g *= 1 - rng.uniform(0.05, 0.25) * r2
    expo = rng.uniform(0.75, 1.1)
    cast = np.array([rng.uniform(0.92, 1.06), 1.0, rng.uniform(0.85, 1.05)])
    scene = scene * (g * expo)[..., None] * cast
    if rng.random() < 0.35:
        gx, gy = rng.uniform(200, W_IMG - 200), rng.uniform(150, H_IMG - 150)
        s = rng.uniform(40, 120)
        blob = np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2 * rng.uniform(0.5, 2)) / (2 * s * s))
        scene += (blob * rng.uniform(25, 70))[..., None]
    # optics: lens distortion, defocus / slight motion blur
    k1 = rng.uniform(0.0, 0.03)
    cx, cy = W_IMG / 2, H_IMG / 2
    scene = lens_distort(scene.astype(np.float32), k1, f, cx, cy)
    for b in boards:
        b["grid_corners"] = [[round(v, 1) for v in p] for p in distort_points(b["grid_corners"], k1, f, cx, cy)]
    scene = cv2.GaussianBlur(scene, (0, 0), rng.uniform(0.35, 0.8))
    if rng.random() < 0.15:
        L = int(rng.integers(1, 3))
        kern = np.zeros((L * 2 + 1, L * 2 + 1), np.float32)
        a = rng.uniform(0, math.pi)
        cv2.line(kern, (int(L - L * math.cos(a)), int(L - L * math.sin(a))), (int(L + L * math.cos(a)), int(L + L * math.sin(a))), 1, 1)
        scene = cv2.filter2D(scene, -1, kern / kern.sum())
    # sensor: shot + read noise, a little chroma noise
    lvl = rng.uniform(1.5, 5)
    scene = scene + rng.normal(0, 1, scene.shape).astype(np.float32) * (lvl * np.sqrt(np.clip(scene, 1, 255) / 128))
    scene = scene + cv2.resize(rng.normal(0, lvl * 0.6, (H_IMG // 4, W_IMG // 4, 3)).astype(np.float32), (W_IMG, H_IMG))
    out = np.clip(scene, 0, 255).astype(np.uint8)
    ok, enc = cv2.imencode(".jpg", cv2.cvtColor(out, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(70, 92))])
    out = cv2.imdecode(enc, cv2.IMREAD_COLOR)
    meta = dict(surface=surface, cell_px=round(f * CELL / hcam, 1), camera_height_mm=round(hcam), k1=round(k1, 4), clutter=clutter)
    return out, boards, dice, meta


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--tables", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--dice", type=float, default=0.7, help="fraction of tables with a dice tray")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    syms = die_symbols()
    with open(os.path.join(a.out, "truth.jsonl"), "w") as fh:
        for i in range(a.tables):
            rng = np.random.default_rng([a.seed, i])
            img, boards, dice, meta = render_table(rng, i, rng.random() < a.dice, syms)
            name = f"table_{i:03d}.png"
            cv2.imwrite(os.path.join(a.out, name), img)
            fh.write(json.dumps(dict(image=name, boards=boards, dice=dice, meta=meta)) + "\n")
            fh.flush()
            print(name, len(boards), "boards", "dice" if dice else "", flush=True)


if __name__ == "__main__":
    main()
