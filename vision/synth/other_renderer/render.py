#!/usr/bin/env python
"""Independent renderer of overhead photos of Saint Malo city boards with
hand-drawn dry-erase marker symbols.  See README.md."""
import argparse
import json
import math
import os
import sys
import time

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from glyphs import LOWER_META, L, arc, cat, skeleton  # noqa: E402

# The 25 fonts it was allowed (none a hand family's, a new hand's or the benchmark renderer's), as
# `python -m vision.synth.web_fonts` fetches them: <name>.woff in this folder. The order is the one it drew them in.
FONT_DIR = os.environ.get('COMPANION_WEB_FONTS', os.path.expanduser('~/.cache/companion/web-fonts'))
FONT_NAMES = ('architects-daughter', 'caveat', 'chilanka', 'comic-relief', 'coming-soon', 'dekko', 'delius', 'gaegu',
              'gloria-hallelujah', 'gochi-hand', 'handlee', 'indie-flower', 'itim', 'just-another-hand', 'kalam', 'mali',
              'neucha', 'pangolin', 'patrick-hand', 'playpen-sans', 'poor-story', 'schoolbell', 'shantell-sans',
              'short-stack', 'sriracha')
COLS = 'ABCDEFG'
TOWERS = {(0, 0), (6, 0), (6, 6), (0, 6)}
PRINTED_CRATES = {(1, 1), (2, 1), (1, 2), (1, 3)}  # B2 C2 B3 B4 as (col, row)
PERSONS = 'cspamjn'
NONWALL_CLASSES = ['G', 'H', '1', '2', '3', '4', '5'] + list(PERSONS)

INK = {  # RGB, dry-erase marker colours
    'black': (28, 28, 34), 'blue': (22, 58, 168), 'red': (196, 32, 38), 'green': (18, 122, 62),
    'purple': (104, 42, 146), 'brown': (112, 66, 30), 'orange': (228, 112, 22),
}
INK_P = {'black': .3, 'blue': .22, 'red': .15, 'green': .13, 'purple': .1, 'brown': .05, 'orange': .05}

CELL_MM = 28.0
MARGIN = 0.12     # board border outside the grid, in cells
PAD = 0.3         # drawing patch padding around a cell, in cells
SW = [0.08]       # current stroke width in cell units (set per cell; keeps patterns legible)


def fit(n, span, lo=1, k=2.6):
    """at most n repeats of a pattern across span, spaced at least k stroke widths apart"""
    return int(max(lo, min(n, span / (k * SW[0]))))


def cname(i, j):
    return COLS[i] + str(j + 1)


def outer_side(i, j):
    if j == 0:
        return 'top'
    if j == 6:
        return 'bottom'
    if i == 0:
        return 'left'
    if i == 6:
        return 'right'
    return None


# =================================================================== fonts
class FontBank:
    CHARS = 'CSPAMJNcspamjn12345'

    def __init__(self):
        self.names = list(FONT_NAMES)
        self.files = [os.path.join(FONT_DIR, name + '.woff') for name in self.names]
        self.g = {}
        for fi, f in enumerate(self.files):
            ft = ImageFont.truetype(f, 110)
            for ch in self.CHARS:
                im = Image.new('L', (200, 220), 0)
                ImageDraw.Draw(im).text((40, 20), ch, font=ft, fill=255)
                a = np.asarray(im)
                ys, xs = np.nonzero(a > 40)
                if len(xs) == 0:
                    continue
                a = a[ys.min():ys.max() + 1, xs.min():xs.max() + 1].astype(np.float32) / 255.
                dt = cv2.distanceTransform((a > .5).astype(np.uint8), cv2.DIST_L2, 3)
                sw = 2 * float(np.percentile(dt[dt > 0], 95)) if (dt > 0).any() else 4.
                self.g[(fi, ch)] = (a, sw)

    def get(self, fi, ch):
        return self.g.get((fi, ch))


# =================================================================== stroke engine
def resample(p, step):
    d = np.sqrt(((p[1:] - p[:-1]) ** 2).sum(1))
    Ltot = float(d.sum())
    if Ltot < 1e-6:
        return np.repeat(p[:1], 2, 0), 0.
    n = max(2, int(Ltot / step) + 1)
    cum = np.concatenate([[0.], np.cumsum(d)])
    t = np.linspace(0, Ltot, n)
    return np.stack([np.interp(t, cum, p[:, 0]), np.interp(t, cum, p[:, 1])], 1), Ltot


def wobble(p, Ltot, amp, rng):
    n = len(p)
    if n < 3 or amp <= 0:
        return p
    t = np.linspace(0, Ltot, n)
    off = np.zeros(n)
    for f, a in ((rng.uniform(.4, 1.4), 1.), (rng.uniform(2.5, 5.), .35), (rng.uniform(10, 18), .12)):
        off += a * amp * rng.normal() * np.sin(2 * np.pi * f * t + rng.uniform(0, 6.3))
    tg = np.gradient(p, axis=0)
    nn = np.sqrt((tg ** 2).sum(1, keepdims=True)) + 1e-9
    nrm = np.stack([-tg[:, 1], tg[:, 0]], 1) / nn
    return p + nrm * off[:, None]


def draw_stroke(mask, pts, w_px, hand, rng, scale, wobble_amp=None, wmult=1.):
    """pts in cell units (already in patch cell frame), drawn onto uint8 mask; scale=px per cell unit."""
    step = max(1.5, w_px * .45) / scale
    p, Ltot = resample(np.asarray(pts, float), step)
    amp = hand['wobble'] if wobble_amp is None else wobble_amp
    p = wobble(p, Ltot, amp, rng)
    n = len(p)
    w = np.full(n, w_px * wmult)
    if n > 2:
        t = np.linspace(0, 1, n)
        w *= 1 + hand['pressure'] * np.sin(2 * np.pi * rng.uniform(.5, 2.5) * t + rng.uniform(0, 6.3))
        if rng.random() < .5:  # lift-off taper
            k = max(2, n // 8)
            w[-k:] *= np.linspace(1, rng.uniform(.45, .85), k)
        if rng.random() < .3:  # landing taper
            k = max(2, n // 10)
            w[:k] *= np.linspace(rng.uniform(.55, .9), 1, k)
    P = p * scale
    if Ltot * scale < 1.5:
        c = tuple(int(v) for v in np.rint(P[0] * 8))
        cv2.circle(mask, c, int(max(1, w[0] / 2) * 8), 255, -1, cv2.LINE_AA, 3)
        return
    th = np.maximum(1, np.rint(w)).astype(np.int32)
    Pi = np.rint(P * 8).astype(np.int32)
    brk = np.flatnonzero(np.diff(th[:-1])) + 1
    starts = np.concatenate([[0], brk])
    ends = np.concatenate([brk, [n - 1]])
    for a, b in zip(starts, ends, strict=False):
        cv2.polylines(mask, [Pi[a:b + 1]], False, 255, int(th[a]), cv2.LINE_AA, 3)
    if rng.random() < hand['blob']:  # ink blob where the pen rested
        c = tuple(int(v) for v in Pi[0])
        cv2.circle(mask, c, int(w[0] * .62 * 8), 255, -1, cv2.LINE_AA, 3)


# ---------------------------------------------------------------- primitives (unit coords)
def rect_items(x0, y0, x1, y1, rng, mode=None):
    mode = mode or rng.choice(['one', 'one', 'four', 'two', 'three'])
    c = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
    out = []
    if mode == 'one':
        k = int(rng.integers(4))
        seq = c[k:] + c[:k]
        if rng.random() < .5:
            seq = seq[::-1]
        seq = [np.array(q, float) for q in seq]
        pts = seq + [seq[0].copy()]
        e = rng.uniform(-.18, .22)
        if e < 0:
            pts[-1] = pts[-2] + (pts[-1] - pts[-2]) * (1 + e)
        else:
            pts.append(seq[0] + (seq[1] - seq[0]) * e)
        out.append(np.array(pts))
    elif mode == 'four':
        for a in range(4):
            p, q = np.array(c[a], float), np.array(c[(a + 1) % 4], float)
            d = q - p
            out.append(np.array([p - d * rng.uniform(-.05, .12), q + d * rng.uniform(-.05, .12)]))
    elif mode == 'two':
        k = int(rng.integers(4))
        out.append(np.array([c[k], c[(k + 1) % 4], c[(k + 2) % 4]], float))
        out.append(np.array([c[(k + 2) % 4], c[(k + 3) % 4], c[k]], float) + rng.normal(0, .02, 2))
    else:
        out.append(np.array([c[0], c[3], c[2], c[1]], float))
        d = np.array(c[1], float) - np.array(c[0], float)
        out.append(np.array([np.array(c[0]) - d * rng.uniform(0, .1), np.array(c[1]) + d * rng.uniform(0, .1)]))
    return [('s', p, 1.) for p in out]


def line(p, q, rng, ext=.06):
    p, q = np.array(p, float), np.array(q, float)
    d = q - p
    return ('s', np.array([p - d * rng.uniform(-ext / 2, ext), q + d * rng.uniform(-ext / 2, ext)]), 1.)


def ellipse(cx, cy, rx, ry, rng, gap=0., over=0., spiral=0., poly=0):
    a0 = rng.uniform(0, 360)
    dr = 1 if rng.random() < .5 else -1
    sweep = 360 - gap + over
    n = int(max(12, sweep / 6)) if not poly else poly + 1
    t = np.linspace(0, sweep, n)
    ang = np.radians(a0 + dr * t)
    k = 1 + spiral * (t / sweep - .5) + .04 * np.sin(2 * ang + rng.uniform(0, 6.3))
    return ('s', np.stack([cx + rx * k * np.cos(ang), cy + ry * k * np.sin(ang)], 1), 1.)


def cross(cx, cy, h, wd, rng, bar=.32):
    return [line((cx, cy - h / 2), (cx, cy + h / 2), rng, .04),
            line((cx - wd / 2, cy - h / 2 + h * bar), (cx + wd / 2, cy - h / 2 + h * bar), rng, .08)]


def text(ch, cx, cy, h):
    return ('t', ch, cx, cy, h)


def clip_seg(p, d, x0, y0, x1, y1):
    """Liang-Barsky clip of p + t d, t in [-1e3, 1e3], to the rectangle."""
    t0, t1 = -1e3, 1e3
    for pv, dv, lo, hi in ((p[0], d[0], x0, x1), (p[1], d[1], y0, y1)):
        if abs(dv) < 1e-9:
            if pv < lo or pv > hi:
                return None
            continue
        a, b = (lo - pv) / dv, (hi - pv) / dv
        if a > b:
            a, b = b, a
        t0, t1 = max(t0, a), min(t1, b)
    if t1 - t0 < 1e-3:
        return None
    return p + d * t0, p + d * t1


def hatch(x0, y0, x1, y1, ang, sp, rng, zig=False, ext=.03):
    a = math.radians(ang)
    d = np.array([math.cos(a), math.sin(a)])
    nrm = np.array([-d[1], d[0]])
    c = np.array([(x0 + x1) / 2, (y0 + y1) / 2])
    R = math.hypot(x1 - x0, y1 - y0) / 2
    segs = []
    k = -R + rng.uniform(0, sp)
    while k < R:
        s = clip_seg(c + nrm * k, d, x0, y0, x1, y1)
        if s is not None:
            segs.append(s)
        k += sp * rng.uniform(.8, 1.2)
    if zig and segs:
        pts = []
        for i, (p, q) in enumerate(segs):
            pts += [p, q] if i % 2 == 0 else [q, p]
        return [('s', np.array(pts), 1.)]
    out = []
    for p, q in segs:
        dd = q - p
        out.append(('s', np.array([p - dd * rng.uniform(-ext, ext), q + dd * rng.uniform(-ext, ext * 2)]), 1.))
    return out


# =================================================================== symbol generators
# walls: in cell coords, wall frame with the outer edge at y=0 (top)
def wall_region(rng, kind=None):
    kind = kind or rng.choice(['full', 'full', 'outer', 'mid'])
    x0, x1 = rng.uniform(.03, .15), rng.uniform(.85, .97)
    if kind == 'full':
        y0, y1 = rng.uniform(.04, .18), rng.uniform(.8, .96)
    elif kind == 'outer':
        y0 = rng.uniform(.03, .12)
        y1 = y0 + rng.uniform(.3, .5)
    else:
        h = rng.uniform(.3, .55)
        cy = .5 + rng.uniform(-.1, .1)
        y0, y1 = cy - h / 2, cy + h / 2
    return x0, y0, x1, y1


def wall_bricks(rng):
    x0, y0, x1, y1 = wall_region(rng)
    it = []
    rows = fit(int(rng.integers(2, 5)), y1 - y0)
    outline = rng.random() < .65
    if outline:
        it += rect_items(x0, y0, x1, y1, rng)
    ys = np.linspace(y0, y1, rows + 1)
    for k, y in enumerate(ys):
        if outline and k in (0, rows):
            continue
        it.append(line((x0, y), (x1, y), rng))
    nb = fit(int(rng.integers(2, 5)), x1 - x0, 2, 4)
    bw = (x1 - x0) / nb
    for r_ in range(rows):
        off = bw / 2 if r_ % 2 else 0
        x = x0 + off + (bw if off == 0 else 0)
        while x < x1 - bw * .2:
            it.append(line((x, ys[r_]), (x, ys[r_ + 1]), rng, .1))
            x += bw
    return it


def wall_brick_row(rng):
    x0, y0, x1, y1 = wall_region(rng, rng.choice(['outer', 'mid', 'full']))
    nb = int(rng.integers(2, 4))
    rows = 1 if rng.random() < .6 else 2
    it = []
    gw = (x1 - x0) / nb
    gh = (y1 - y0) / rows
    for r_ in range(rows):
        sh = gw / 2 if (r_ % 2) else 0
        for b in range(nb):
            a = x0 + b * gw + sh + gw * .06
            e = min(x1, a + gw * .88)
            if e - a < gw * .3:
                continue
            it += rect_items(a, y0 + r_ * gh + gh * .06, e, y0 + (r_ + 1) * gh - gh * .06, rng)
    return it


def wall_hatch(rng):
    x0, y0, x1, y1 = wall_region(rng)
    ang = rng.choice([rng.uniform(25, 65), rng.uniform(-65, -25), rng.uniform(80, 100)])
    it = hatch(x0, y0, x1, y1, ang, max(2.4 * SW[0], rng.uniform(.08, .17)), rng, zig=rng.random() < .35)
    if rng.random() < .4:
        it += rect_items(x0, y0, x1, y1, rng)
    return it


def wall_crosshatch(rng):
    x0, y0, x1, y1 = wall_region(rng)
    a = rng.uniform(20, 70)
    b = a + rng.choice([90, rng.uniform(60, 110)])
    sp = max(2.8 * SW[0], rng.uniform(.1, .2))
    it = hatch(x0, y0, x1, y1, a, sp, rng) + hatch(x0, y0, x1, y1, b, sp * rng.uniform(.9, 1.2), rng)
    if rng.random() < .3:
        it += rect_items(x0, y0, x1, y1, rng)
    return it


def wall_fill(rng):
    x0, y0, x1, y1 = wall_region(rng, rng.choice(['full', 'outer', 'mid']))
    it = [('p', np.array([(x0, y0), (x1, y0), (x1, y1), (x0, y1)]))]
    it += hatch(x0 + .02, y0 + .02, x1 - .02, y1 - .02, rng.uniform(-70, 70), .07, rng, zig=True)
    return it


def wall_side_band(rng):
    x0, x1 = rng.uniform(.02, .1), rng.uniform(.9, .98)
    y0 = rng.uniform(.02, .08)
    y1 = y0 + rng.uniform(.14, .32)
    if rng.random() < .5:
        it = [('p', np.array([(x0, y0), (x1, y0), (x1, y1), (x0, y1)]))]
        it += hatch(x0, y0, x1, y1, rng.uniform(30, 60), .06, rng, zig=True)
    else:
        it = hatch(x0, y0, x1, y1, rng.uniform(30, 150), max(2.2 * SW[0], rng.uniform(.06, .1)), rng)
        it.append(line((x0, y1), (x1, y1), rng))
    return it


def wall_crenel(rng):
    x0, y0, x1, y1 = wall_region(rng, rng.choice(['full', 'outer', 'full']))
    n = int(rng.integers(2, 5))
    mh = (y1 - y0) * rng.uniform(.18, .35)
    w = (x1 - x0) / (2 * n - 1)
    pts = [(x0, y1), (x0, y0)]
    x = x0
    for k in range(n):
        x += w
        pts += [(x, y0)]
        if k < n - 1:
            pts += [(x, y0 + mh), (x + w, y0 + mh), (x + w, y0)]
            x += w
    pts += [(x1, y0), (x1, y1)]
    it = [('s', np.array(pts), 1.)]
    if rng.random() < .6:
        it.append(line((x0, y1), (x1, y1), rng))
    if rng.random() < .5:
        ym = (y0 + mh + y1) / 2
        it.append(line((x0, ym), (x1, ym), rng))
        for xx in np.linspace(x0, x1, int(rng.integers(3, 5)))[1:-1]:
            it.append(line((xx, ym), (xx, y1), rng))
    return it


def wall_zigzag(rng):
    x0, y0, x1, y1 = wall_region(rng)
    it = []
    for k in range(int(rng.integers(1, 3))):
        n = fit(int(rng.integers(3, 7)), (x1 - x0) / 2, 2, 2.5)
        xs = np.linspace(x0, x1, 2 * n + 1)
        cy = y0 + (y1 - y0) * (k + 1) / (3 if it or rng.random() < .5 else 2)
        a = (y1 - y0) * rng.uniform(.15, .35)
        ys = cy + a * np.array([(-1) ** i for i in range(len(xs))])
        it.append(('s', np.stack([xs, ys], 1), 1.))
    return it


def wall_wavy(rng):
    x0, y0, x1, y1 = wall_region(rng)
    it = []
    nl = fit(int(rng.integers(1, 4)), y1 - y0, 1, 3)
    for k in range(nl):
        cy = y0 + (y1 - y0) * (k + .5) / nl
        t = np.linspace(0, 1, 40)
        ys = cy + rng.uniform(.04, .1) * np.sin(2 * np.pi * rng.uniform(1, 3) * t + rng.uniform(0, 6))
        it.append(('s', np.stack([x0 + (x1 - x0) * t, ys], 1), 1.))
    return it


def wall_edge_line(rng):
    y = rng.uniform(.06, .2)
    x0, x1 = rng.uniform(.0, .1), rng.uniform(.9, 1.)
    it = [line((x0, y), (x1, y), rng)]
    it[0] = ('s', it[0][1], rng.uniform(1.6, 2.6))
    if rng.random() < .5:
        y2 = y + rng.uniform(.1, .2)
        it.append(('s', line((x0, y2), (x1, y2), rng)[1], rng.uniform(1., 2.)))
    return it


def wall_stones(rng):
    x0, y0, x1, y1 = wall_region(rng, rng.choice(['full', 'outer']))
    rows = fit(int(rng.integers(1, 4)), y1 - y0, 1, 3.5)
    n = fit(int(rng.integers(2, 5)), x1 - x0, 2, 3.5)
    it = []
    rh = (y1 - y0) / rows
    rw = (x1 - x0) / n
    for r_ in range(rows):
        sh = rw / 2 if r_ % 2 else 0
        for k in range(n):
            cx = x0 + rw * (k + .5) + sh
            if cx > x1:
                continue
            it.append(ellipse(cx, y0 + rh * (r_ + .5), rw * rng.uniform(.36, .5), rh * rng.uniform(.34, .48), rng,
                              gap=rng.uniform(-20, 40)))
    return it


def wall_ladder(rng):
    x0, y0, x1, y1 = wall_region(rng, rng.choice(['full', 'outer', 'mid']))
    it = [line((x0, y0), (x1, y0), rng), line((x0, y1), (x1, y1), rng)]
    for xx in np.linspace(x0, x1, fit(int(rng.integers(3, 7)), x1 - x0, 3))[1:-1] if rng.random() < .5 else \
            np.linspace(x0 + .05, x1 - .05, fit(int(rng.integers(3, 6)), x1 - x0, 2)):
        it.append(line((xx, y0), (xx, y1), rng, .12))
    return it


def wall_stripes(rng):
    x0, y0, x1, y1 = wall_region(rng)
    return [line((x0, y), (x1, y), rng) for y in np.linspace(y0, y1, fit(int(rng.integers(2, 5)), y1 - y0, 2) )]


WALL = {'bricks': (wall_bricks, 3), 'brick_row': (wall_brick_row, 1.5), 'hatch': (wall_hatch, 3),
        'crosshatch': (wall_crosshatch, 1.5), 'fill': (wall_fill, 1.5), 'side_band': (wall_side_band, 1.5),
        'crenel': (wall_crenel, 1.5), 'zigzag': (wall_zigzag, 1), 'wavy': (wall_wavy, 1),
        'edge_line': (wall_edge_line, 1), 'stones': (wall_stones, 1), 'ladder': (wall_ladder, 1),
        'stripes': (wall_stripes, 1)}


# crates, houses, churches, persons: unit coords [-1,1]^2, y down
def crate_dims(rng, sq=False):
    if sq:
        return 1., 1.
    a = rng.uniform(.75, 1.)
    return (1., a) if rng.random() < .75 else (a, 1.)


def crate_box_x(rng):
    ax, ay = crate_dims(rng, rng.random() < .5)
    return rect_items(-ax, -ay, ax, ay, rng) + [line((-ax, -ay), (ax, ay), rng), line((ax, -ay), (-ax, ay), rng)]


def crate_planks(rng):
    ax, ay = crate_dims(rng)
    it = rect_items(-ax, -ay, ax, ay, rng)
    n = fit(int(rng.integers(1, 4)), .45)
    vert = rng.random() < .25
    for v in np.linspace(-1, 1, n + 2)[1:-1]:
        it.append(line((v * ax, -ay), (v * ax, ay), rng) if vert else line((-ax, v * ay), (ax, v * ay), rng))
    return it


def crate_3d(rng):
    d = rng.uniform(.25, .45)
    sx = rng.choice([-1, 1])
    x0, x1 = (-1, 1 - 2 * d) if sx > 0 else (-1 + 2 * d, 1)
    y0, y1 = -1 + 2 * d, 1
    it = rect_items(x0, y0, x1, y1, rng)
    o = np.array([sx * 2 * d, -2 * d])
    fl, fr = (x0, y0), (x1, y0)
    br = (x1, y1) if sx > 0 else (x0, y1)
    tip = fr if sx > 0 else fl
    it.append(('s', np.array([fl, np.add(fl, o), np.add(fr, o), fr]) if True else None, 1.))
    it.append(('s', np.array([np.add(tip, o), np.add(br, o), br]), 1.))
    if rng.random() < .3:
        it.append(line((x0, y0), (x1, y1), rng))
    return it


def crate_rect(rng):
    a = rng.uniform(.5, .8)
    ax, ay = (1., a) if rng.random() < .7 else (a, 1.)
    return rect_items(-ax, -ay, ax, ay, rng)


def crate_square(rng):
    return rect_items(-1, -1, 1, 1, rng)


def crate_lid(rng):
    ax, ay = crate_dims(rng)
    yl = -ay + 2 * ay * rng.uniform(.18, .32)
    it = rect_items(-ax, -ay, ax, ay, rng) if rng.random() < .6 else \
        rect_items(-ax, yl, ax, ay, rng) + rect_items(-ax * 1.08, -ay, ax * 1.08, yl, rng)
    it.append(line((-ax, yl), (ax, yl), rng))
    if rng.random() < .4:
        it.append(line((-.2 * ax, (yl - ay) / 2 + .02), (.2 * ax, (yl - ay) / 2 + .02), rng))
    return it


def crate_barrel(rng):
    w = rng.uniform(.55, .8)
    b = rng.uniform(.12, .25)
    it = [('s', arc(0, 0, w + b, 1, -110, -250)[::-1] * [1, 1] + [0, 0], 1.)]
    left = arc(0, 0, w + b, 1.0, 250, 110)
    right = arc(0, 0, w + b, 1.0, -70, 70)
    it = [('s', left, 1.), ('s', right, 1.)]
    top = arc(0, -.94, w * .95, .14, 0, 360 - rng.uniform(0, 30))
    it.append(('s', top, 1.))
    it.append(('s', arc(0, .94, w * .95, .12, 10, 170), 1.))
    for yy in [[-.35, .35], [0.], [-.45, 0., .45]][int(rng.integers(3))]:
        it.append(('s', arc(0, yy - .05, (w + b) * .98, .12, 10, 170), 1.))
    return it


def crate_diag(rng):
    ax, ay = crate_dims(rng)
    s = rng.choice([-1, 1])
    return rect_items(-ax, -ay, ax, ay, rng) + [line((-ax, -s * ay), (ax, s * ay), rng)]


def crate_brace(rng):
    ax, ay = crate_dims(rng)
    i = rng.uniform(.15, .28)
    it = rect_items(-ax, -ay, ax, ay, rng) + rect_items(-ax + i, -ay + i, ax - i, ay - i, rng)
    s = rng.choice([-1, 1])
    it.append(line((-ax + i, s * (ay - i)), (ax - i, -s * (ay - i)), rng, 0))
    return it


def crate_hash(rng):
    ax, ay = crate_dims(rng, rng.random() < .5)
    it = rect_items(-ax, -ay, ax, ay, rng)
    for v in (-.33, .33):
        it.append(line((v * ax, -ay), (v * ax, ay), rng))
        it.append(line((-ax, v * ay), (ax, v * ay), rng))
    return it


def crate_carton(rng):
    ax = rng.uniform(.75, 1.)
    top = -.45
    it = rect_items(-ax, top, ax, 1, rng)
    f = rng.uniform(.35, .55)
    it.append(('s', np.array([(-ax, top), (-ax - .15, top - f), (-ax * .15, top - f * .8), (0, top)]), 1.))
    it.append(('s', np.array([(ax, top), (ax + .12, top - f), (ax * .2, top - f * .9)]), 1.))
    return it


CRATE = {'box_x': (crate_box_x, 3), 'planks': (crate_planks, 2.5), 'box_3d': (crate_3d, 1.5),
         'rect': (crate_rect, 1.5), 'square': (crate_square, 1.2), 'lid': (crate_lid, 1),
         'barrel': (crate_barrel, .8), 'diag': (crate_diag, 1), 'brace': (crate_brace, 1),
         'hash': (crate_hash, .8), 'carton': (crate_carton, .6)}


def house_frame(rng):
    bw = rng.uniform(.65, .95)
    yr = rng.uniform(-.3, .1)
    px = rng.uniform(-.08, .08)
    return bw, yr, px


def roof(bw, yr, px, rng, over=0.):
    e = bw + over
    return ('s', np.array([(-e, yr + over * .5), (px, -1), (e, yr + over * .5)]), 1.)


def body(bw, yr, rng, top=None):
    it = [('s', np.array([(-bw, yr), (-bw, 1), (bw, 1), (bw, yr)]), 1.)]
    if top is None:
        top = rng.random() < .6
    if top:
        it.append(line((-bw, yr), (bw, yr), rng))
    return it


def house_basic(rng):
    bw, yr, px = house_frame(rng)
    if rng.random() < .4:
        return rect_items(-bw, yr, bw, 1, rng) + [roof(bw, yr, px, rng)]
    return body(bw, yr, rng) + [roof(bw, yr, px, rng)]


def house_roof_only(rng):
    bw = rng.uniform(.8, 1.)
    it = [('s', np.array([(-bw, .7), (rng.uniform(-.1, .1), -.9), (bw, .7)]), 1.)]
    if rng.random() < .5:
        it.append(line((-bw, .7), (bw, .7), rng))
    if rng.random() < .3:
        it.append(('s', np.array([(.45, -.25), (.45, -.7), (.62, -.7), (.62, .05)]), 1.))
    return it


def door(bw, yr, rng):
    dw = bw * rng.uniform(.22, .38)
    dx = rng.uniform(-bw + dw + .05, bw - dw - .05) if rng.random() < .5 else 0
    dt = 1 - (1 - yr) * rng.uniform(.45, .65)
    if rng.random() < .3:
        return [('s', cat(L((dx - dw, 1), (dx - dw, dt + dw)), arc(dx, dt + dw, dw, dw, 180, 360), L((dx + dw, 1))), 1.)]
    return [('s', np.array([(dx - dw, 1), (dx - dw, dt), (dx + dw, dt), (dx + dw, 1)]), 1.)], dx


def house_door(rng):
    bw, yr, px = house_frame(rng)
    d = door(bw, yr, rng)
    d = d[0] if isinstance(d, tuple) else d
    return body(bw, yr, rng) + [roof(bw, yr, px, rng)] + d


def window(cx, cy, r, rng):
    if rng.random() < .25:
        return [ellipse(cx, cy, r, r, rng, gap=rng.uniform(-20, 20))]
    it = rect_items(cx - r, cy - r, cx + r, cy + r, rng, 'one' if rng.random() < .6 else 'four')
    if rng.random() < .6:
        it += [line((cx - r, cy), (cx + r, cy), rng, 0), line((cx, cy - r), (cx, cy + r), rng, 0)]
    return it


def house_window(rng):
    bw, yr, px = house_frame(rng)
    r = (1 - yr) * rng.uniform(.14, .22)
    cy = yr + (1 - yr) * rng.uniform(.35, .55)
    return body(bw, yr, rng) + [roof(bw, yr, px, rng)] + window(rng.uniform(-.2, .2), cy, r, rng)


def house_one_stroke(rng):
    bw, yr, px = house_frame(rng)
    pts = [(-bw, 1), (-bw, yr), (px, -1), (bw, yr), (bw, 1), (-bw, 1)]
    if rng.random() < .5:
        pts = pts[::-1]
    p = np.array(pts, float)
    e = rng.uniform(-.15, .15)
    p[-1] = p[-2] + (p[-1] - p[-2]) * (1 + e)
    return [('s', p, 1.)]


def house_nikolaus(rng):
    bw, yr, px = house_frame(rng)
    BL, TL, TR, BR, P = (-bw, 1), (-bw, yr), (bw, yr), (bw, 1), (px, -1)
    return [('s', np.array([BL, TL, TR, BL, BR, TL, P, TR, BR], float), 1.)]


def house_chimney(rng):
    bw, yr, px = house_frame(rng)
    it = body(bw, yr, rng) + [roof(bw, yr, px, rng)]
    side = rng.choice([-1, 1])
    t0, t1 = rng.uniform(.35, .5), rng.uniform(.6, .75)

    def on_roof(t):
        return (px + (side * bw - px) * t, -1 + (yr + 1) * t)
    a, b = on_roof(t0), on_roof(t1)
    top = min(a[1], b[1]) - rng.uniform(.2, .4)
    it.append(('s', np.array([a, (a[0], top), (b[0], top), b]), 1.))
    if rng.random() < .35:
        t = np.linspace(0, 1, 20)
        it.append(('s', np.stack([(a[0] + b[0]) / 2 + .1 * np.sin(t * 9) + t * .3 * side, top - .05 - t * .35], 1), .7))
    return it


def house_overhang(rng):
    bw, yr, px = house_frame(rng)
    bw *= .85
    o = rng.uniform(.1, .25)
    it = body(bw, yr, rng, top=False) + [roof(bw, yr, px, rng, over=o)]
    it.append(line((-bw - o, yr + o * .5), (bw + o, yr + o * .5), rng))
    return it


def house_door_window(rng):
    bw, yr, px = house_frame(rng)
    d = door(bw, yr, rng)
    dx = 0
    if isinstance(d, tuple):
        d, dx = d
    it = body(bw, yr, rng) + [roof(bw, yr, px, rng)] + d
    r = (1 - yr) * rng.uniform(.11, .16)
    cy = yr + (1 - yr) * .35
    wx = bw * .55 * (-1 if dx >= 0 else 1)
    it += window(wx, cy, r, rng)
    if rng.random() < .4:
        it += window(-wx, cy, r, rng)
    return it


def house_roof_filled(rng):
    bw, yr, px = house_frame(rng)
    it = body(bw, yr, rng, top=True) + [roof(bw, yr, px, rng)]
    if rng.random() < .5:
        it.append(('p', np.array([(-bw, yr), (px, -1), (bw, yr)])))
    else:
        for y in np.linspace(-1, yr, int(rng.integers(3, 6)) + 1)[1:]:
            f = (y + 1) / (yr + 1)
            it.append(line((px + (-bw - px) * f, y), (px + (bw - px) * f, y), rng, 0))
    return it


def house_townhouse(rng):
    bw = rng.uniform(.4, .6)
    yr = rng.uniform(-.35, -.1)
    it = body(bw, yr, rng) + [('s', np.array([(-bw - .05, yr), (0, -1), (bw + .05, yr)]), 1.)]
    it += window(0, yr + (1 - yr) * .3, bw * .35, rng)
    if rng.random() < .5:
        it += [('s', np.array([(-.15, 1), (-.15, .65), (.15, .65), (.15, 1)]), 1.)]
    return it


HOUSE = {'basic': (house_basic, 3), 'roof_only': (house_roof_only, 1.2), 'door': (house_door, 2),
         'window': (house_window, 1.5), 'one_stroke': (house_one_stroke, 2), 'nikolaus': (house_nikolaus, 1),
         'chimney': (house_chimney, 1.2), 'overhang': (house_overhang, 1), 'door_window': (house_door_window, 1.2),
         'roof_filled': (house_roof_filled, .8), 'townhouse': (house_townhouse, .8)}


def church_outline(rng, d):
    bw, yr = rng.uniform(.65, .9), rng.uniform(-.35, -.15)
    py = yr - rng.uniform(.25, .4)
    it = rect_items(-bw, yr, bw, 1, rng) if rng.random() < .5 else body(bw, yr, rng)
    it.append(('s', np.array([(-bw, yr), (0, py), (bw, yr)]), 1.))
    it += cross(0, (py - 1) / 2, (py + 1) * -1 + .05, .35, rng)
    it.append(text(d, rng.uniform(-.1, .1), (yr + 1) / 2, (1 - yr) * rng.uniform(.55, .8)))
    return it


def church_cross_beside(rng, d):
    s = rng.choice([-1, 1])
    it = cross(s * -.5, 0, rng.uniform(1.4, 1.9), rng.uniform(.55, .8), rng)
    it.append(text(d, s * .5, rng.uniform(-.1, .2), rng.uniform(.9, 1.4)))
    return it


def church_cross_above(rng, d):
    it = cross(rng.uniform(-.15, .15), -.55, rng.uniform(.7, .9), rng.uniform(.45, .7), rng)
    it.append(text(d, rng.uniform(-.15, .15), .5, rng.uniform(.8, 1.0)))
    return it


def church_digit_box(rng, d):
    a = rng.uniform(.8, 1.)
    it = rect_items(-a, -1, a, 1, rng)
    it.append(text(d, rng.uniform(-.1, .1), rng.uniform(-.1, .1), rng.uniform(1.1, 1.6)))
    return it


def church_digit_small_cross(rng, d):
    s = rng.choice([-1, 1])
    it = [text(d, -s * .15, .15, rng.uniform(1.4, 1.75))]
    it += cross(s * .72, -.65, rng.uniform(.5, .7), rng.uniform(.3, .45), rng)
    return it


def church_spire(rng, d):
    bw = rng.uniform(.35, .55)
    base = rng.uniform(.05, .2)
    top = -.45
    tw = bw * rng.uniform(.4, .6)
    it = rect_items(-bw, top, bw, base, rng)
    it.append(('s', np.array([(-tw, top), (0, -.85), (tw, top)]), 1.))
    it += cross(0, -.93, .22, .18, rng)
    if rng.random() < .5:
        it.append(('s', np.array([(-.1, base), (-.1, base - .2), (.1, base - .2), (.1, base)]), 1.))
    it.append(text(d, rng.uniform(-.1, .1), base + (1 - base) / 2 + .05, (1 - base) * .85))
    return it


def church_cross_digit_in(rng, d):
    it = cross(0, 0, 2., rng.uniform(1.3, 1.7), rng, bar=rng.uniform(.28, .38))
    s = rng.choice([-1, 1])
    it.append(text(d, s * .48, .5, rng.uniform(.7, .85)))
    return it


def church_circle_cross(rng, d):
    r = rng.uniform(.6, .72)
    it = [ellipse(0, 1 - r, r, r, rng, gap=rng.uniform(-20, 30))]
    it += cross(0, 1 - 2 * r - .2, .4, .3, rng)
    it.append(text(d, 0, 1 - r, r * 1.2))
    return it


def church_cross_tally(rng, d):
    it = cross(-.55, 0, 1.5, .65, rng)
    n = int(d)
    if rng.random() < .5:  # dots
        for k in range(n):
            yy = -.8 + 1.6 * (k + .5) / n
            it.append(('s', np.array([(.35, yy), (.37, yy + .01)]), 1.3))
        it.append(text(d, .75, 0, .9))
    else:  # tally strokes under a digit
        it.append(text(d, .45, -.35, .9))
        for k in range(n):
            xx = -.05 + k * .22
            it.append(line((xx, .35), (xx + .03, .85), rng, 0))
    return it


def church_arch(rng, d):
    bw = rng.uniform(.55, .75)
    ya = rng.uniform(-.3, -.05)
    it = [('s', cat(L((-bw, 1), (-bw, ya)), arc(0, ya, bw, bw * .8, 180, 360), L((bw, 1))), 1.)]
    if rng.random() < .6:
        it.append(line((-bw, 1), (bw, 1), rng))
    yt = ya - bw * .8
    it += cross(0, yt - .12, .28, .22, rng)
    it.append(text(d, 0, (ya + 1) / 2, (1 - ya) * .7))
    return it


CHURCH = {'outline_digit': (church_outline, 2.2), 'cross_beside': (church_cross_beside, 2.2),
          'cross_above': (church_cross_above, 2), 'digit_box': (church_digit_box, 1.5),
          'digit_small_cross': (church_digit_small_cross, 1.5), 'spire_digit_under': (church_spire, 1.2),
          'cross_digit_in': (church_cross_digit_in, 1.3), 'circle_cross': (church_circle_cross, .6),
          'cross_tally': (church_cross_tally, .5), 'arch': (church_arch, .9)}


def person_circle(kind):
    def f(rng, ch):
        rx = ry = 1.
        gap = over = spiral = 0.
        poly = 0
        lh = rng.uniform(.9, 1.25)
        if kind == 'closed':
            gap = rng.uniform(-8, 5)
        elif kind == 'open':
            gap = rng.uniform(25, 75)
        elif kind == 'overshoot':
            over = rng.uniform(15, 70)
            spiral = rng.uniform(-.12, .12)
        elif kind == 'oval_wide':
            ry = rng.uniform(.65, .85)
            gap = rng.uniform(-20, 25)
            lh *= ry
        elif kind == 'oval_tall':
            rx = rng.uniform(.65, .85)
            gap = rng.uniform(-20, 25)
        elif kind == 'big_letter':
            lh = rng.uniform(1.5, 1.9)
            gap = rng.uniform(-15, 30)
        elif kind == 'small_letter':
            lh = rng.uniform(.6, .85)
            gap = rng.uniform(-15, 30)
        elif kind == 'polygonal':
            poly = int(rng.integers(5, 9))
            gap = rng.uniform(-10, 20)
        it = [ellipse(0, 0, rx, ry, rng, gap, over, spiral, poly)]
        if kind == 'double':
            it.append(ellipse(rng.normal(0, .04), rng.normal(0, .04), rx * rng.uniform(.92, 1.05),
                              ry * rng.uniform(.92, 1.05), rng, rng.uniform(-30, 30)))
        it.append(text(ch, rng.normal(0, .06), rng.normal(0, .06), lh))
        return it
    return f


def person_letter_only(rng, ch):
    return [text(ch, 0, 0, rng.uniform(1.4, 1.9))]


def person_bust(rng, ch):
    r = rng.uniform(.48, .58)
    cy = -1 + r
    it = [ellipse(0, cy, r, r, rng, rng.uniform(-10, 30))]
    it.append(('s', arc(0, 1.0, rng.uniform(.8, .95), 1 - (cy + r) - .05, 190, 350), 1.))
    it.append(text(ch, 0, cy, r * 1.25))
    return it


PERSON = {'circle_closed': (person_circle('closed'), 3), 'circle_open': (person_circle('open'), 2),
          'circle_overshoot': (person_circle('overshoot'), 2), 'oval_wide': (person_circle('oval_wide'), 1.2),
          'oval_tall': (person_circle('oval_tall'), 1.2), 'big_letter': (person_circle('big_letter'), 1.5),
          'small_letter': (person_circle('small_letter'), 1.2), 'double': (person_circle('double'), .8),
          'polygonal': (person_circle('polygonal'), .8), 'letter_only': (person_letter_only, .4),
          'bust': (person_bust, .5)}

TABLES = {'W': WALL, 'G': CRATE, 'H': HOUSE, 'church': CHURCH, 'person': PERSON}


def table_of(sym):
    if sym in 'WGH':
        return sym, TABLES[sym]
    if sym in '12345':
        return 'church', CHURCH
    return 'person', PERSON


def pick(rng, tab):
    names = list(tab)
    w = np.array([tab[n][1] for n in names], float)
    return names[int(rng.choice(len(names), p=w / w.sum()))]


# =================================================================== hand (per-board drawer)
def make_hand(rng, fonts):
    main = rng.choice(list(INK), p=np.array(list(INK_P.values())) / sum(INK_P.values()))
    src = rng.choice(['font', 'strokes', 'mixed'], p=[.45, .38, .17])
    nf = len(fonts.files)
    h = dict(
        color=main, p_other=rng.choice([0., .05, .2]),
        width_mm=rng.uniform(1.5, 4.0), wobble=rng.uniform(.003, .016), pressure=rng.uniform(.04, .28),
        blob=rng.uniform(0, .35), size=rng.uniform(.55, .9), offc=rng.uniform(.1, 1.), rot=rng.uniform(1, 9),
        slant=rng.uniform(-.22, .22), src=src, fonts=[int(x) for x in rng.choice(nf, 2, replace=False)],
        case=rng.choice(['upper', 'lower', 'mixed'], p=[.58, .3, .12]),
        consist=rng.uniform(.3, .9), align_walls=rng.random() < .75, opacity=rng.uniform(.8, .97),
        dry=rng.uniform(0, .55) if rng.random() < .4 else rng.uniform(0, .15),
    )
    h['pref'] = {k: pick(rng, {n: v for n, v in t.items() if n not in ('letter_only', 'cross_tally', 'bust')})
                 for k, t in TABLES.items()}
    return h


# =================================================================== cell rendering
def place_transform(rng, hand, cls):
    """unit [-1,1]^2 -> cell coords [0,1]^2 (2x3 affine)."""
    size = np.clip(max(hand['size'] + rng.normal(0, .08), .42 + 3 * SW[0]), .5, .95)
    asp = np.exp(rng.normal(0, .08))
    hx, hy = size / 2 * asp, size / 2 / asp
    hx, hy = min(hx, .48), min(hy, .48)
    rot = math.radians(rng.normal(0, hand['rot']))
    sh = hand['slant'] * .3 + rng.normal(0, .05)
    ext = max(hx, hy)
    lim = max(0., .5 - ext) + .04
    off = rng.uniform(-1, 1, 2) * lim * hand['offc'] + rng.normal(0, .015, 2)
    c, s = math.cos(rot), math.sin(rot)
    M = np.array([[c, -s], [s, c]]) @ np.array([[1, sh], [0, 1]]) @ np.diag([hx, hy])
    return np.hstack([M, (np.array([.5, .5]) + off)[:, None]])


def wall_transform(rng, hand, side):
    ang = {'top': 0, 'right': 90, 'bottom': 180, 'left': 270}[side] if hand['align_walls'] else 0
    if not hand['align_walls'] and rng.random() < .15:
        ang = 90
    a = math.radians(ang + rng.normal(0, 2.5))
    c, s = math.cos(a), math.sin(a)
    R = np.array([[c, -s], [s, c]]) * rng.uniform(.93, 1.03)
    t = np.array([.5, .5]) - R @ np.array([.5, .5]) + rng.normal(0, .02, 2)
    return np.hstack([R, t[:, None]])


def letter_case(ch, hand, rng):
    if ch in '12345':
        return ch
    c = hand['case']
    if c == 'mixed':
        c = 'upper' if rng.random() < .55 else 'lower'
    return ch.upper() if c == 'upper' else ch.lower()


def render_cell(sym, hand, rng, fonts, s, side=None, style=None):
    """Returns (alpha patch float32 of size (1+2PAD)s, style name)."""
    key, tab = table_of(sym)
    if style is None:
        style = hand['pref'][key] if rng.random() < hand['consist'] else pick(rng, tab)
    fn = tab[style][0]
    w_px = hand['width_mm'] / CELL_MM * s * np.exp(rng.normal(0, .1))
    SW[0] = w_px / s
    if key == 'W':
        items = fn(rng)
        T = wall_transform(rng, hand, side or 'top')
    else:
        items = fn(rng) if key in 'GH' else fn(rng, sym)
        T = place_transform(rng, hand, key)
    P = int(round((1 + 2 * PAD) * s))
    mask = np.zeros((P, P), np.uint8)
    A, b = T[:, :2], T[:, 2]
    det = math.sqrt(abs(np.linalg.det(A)))
    rotA = math.atan2(A[1, 0], A[0, 0])
    glyph_layer = None
    src_used = None
    for it in items:
        if it[0] == 's':
            pts = it[1] @ A.T + b + PAD
            draw_stroke(mask, pts, w_px, hand, rng, s, wmult=it[2])
        elif it[0] == 'p':
            pts = it[1] @ A.T + b + PAD
            pr, _ = resample(np.vstack([pts, pts[:1]]), .03)
            pr = wobble(pr, 1., .012, rng) * s
            cv2.fillPoly(mask, [np.rint(pr * 8).astype(np.int32)], 255, cv2.LINE_AA, 3)
        else:
            _, ch, cx, cy, h = it
            ch = letter_case(ch, hand, rng)
            c = A @ np.array([cx, cy]) + b + PAD
            hh = h * det  # unit height -> cell units
            if ch.islower():
                f, shft = LOWER_META[ch]
                hh *= f
                c = c + np.array([0, shft * hh * .5])
            src = hand['src']
            if src == 'mixed':
                src = 'font' if rng.random() < .5 else 'strokes'
            src_used = src
            rot = rotA + math.radians(rng.normal(0, 4))
            if src == 'font':
                fi = hand['fonts'][0] if rng.random() < .8 else hand['fonts'][1]
                g = fonts.get(fi, ch)
                if g is None:
                    src = 'strokes'
                else:
                    src_used = 'font:' + fonts.names[fi]
                    ga, sw = g
                    sc = hh * s / ga.shape[0]
                    if sc < .8:  # area-downscale first so thin strokes survive
                        gw_ = max(2, int(round(ga.shape[1] * sc)))
                        gh_ = max(2, int(round(ga.shape[0] * sc)))
                        ga = cv2.resize(ga, (gw_, gh_), interpolation=cv2.INTER_AREA)
                        sw, sc = sw * gh_ / g[0].shape[0], hh * s / gh_
                    cr, sr = math.cos(rot) * sc, math.sin(rot) * sc
                    shx = hand['slant'] * .4
                    M = np.array([[cr, -sr], [sr, cr]]) @ np.array([[1, -shx], [0, 1]])
                    gc = np.array([ga.shape[1] / 2, ga.shape[0] / 2])
                    t = c * s - M @ gc
                    W2 = cv2.warpAffine(ga, np.hstack([M, t[:, None]]).astype(np.float32), (P, P),
                                        flags=cv2.INTER_LINEAR)
                    want = w_px * rng.uniform(.8, 1.05)
                    have = sw * sc
                    bn = (W2 > .35).astype(np.uint8)
                    if want > have:
                        dt = cv2.distanceTransform(1 - bn, cv2.DIST_L2, 3)
                        W2 = np.clip((want - have) / 2 + .5 - dt, 0, 1)
                    elif have - want > 1:
                        dt = cv2.distanceTransform(bn, cv2.DIST_L2, 3)
                        W2 = np.clip(dt - (have - want) / 2 + .5, 0, 1)
                    glyph_layer = W2 if glyph_layer is None else np.maximum(glyph_layer, W2)
            if src == 'strokes':
                src_used = 'strokes'
                strokes, aspect, var = skeleton(ch, rng)
                cr, sr = math.cos(rot), math.sin(rot)
                R = np.array([[cr, -sr], [sr, cr]]) @ np.array([[1, -hand['slant'] * .4], [0, 1]])
                for st in strokes:
                    q = np.stack([(st[:, 0] - .5) * hh * aspect, (st[:, 1] - .5) * hh], 1) @ R.T + c
                    draw_stroke(mask, q, w_px * rng.uniform(.85, 1.0), hand, rng, s,
                                wobble_amp=hand['wobble'] * .6)
    alpha = mask.astype(np.float32) / 255.
    if glyph_layer is not None:
        alpha = np.maximum(alpha, glyph_layer)
    name = style
    if src_used:
        name += '|' + src_used
    if key == 'W':
        name = 'wall.' + name
    else:
        name = {'G': 'crate.', 'H': 'house.', 'church': 'church.', 'person': 'person.'}[key] + name
    return alpha, name


# =================================================================== board print
def noise_field(h, w, cells, rng, amp=1.):
    small = rng.normal(0, 1, (max(2, int(h / cells)), max(2, int(w / cells)))).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC) * amp


def make_board(s, rng, aruco, seat):
    m = int(round(MARGIN * s))
    Wt = 7 * s + 2 * m
    img = np.empty((Wt, Wt, 3), np.float32)
    outer = np.array([rng.uniform(190, 214), rng.uniform(176, 194), rng.uniform(138, 165)]) / 255
    inner = np.array([rng.uniform(232, 246), rng.uniform(226, 240), rng.uniform(205, 224)]) / 255
    img[:] = outer
    img[m + s:m + 6 * s, m + s:m + 6 * s] = inner
    tex = noise_field(Wt, Wt, s * .6, rng, .035) + noise_field(Wt, Wt, 3, rng, .02) + noise_field(Wt, Wt, s * 2, rng, .03)
    ring = np.ones((Wt, Wt), np.float32)
    ring[m + s:m + 6 * s, m + s:m + 6 * s] = .45
    img *= (1 + tex * ring)[..., None]
    # printed towers (stone circles) and arrows
    for (i, j) in TOWERS:
        cx, cy = m + (i + .5) * s, m + (j + .5) * s
        cx += (-1 if i == 0 else 1) * .04 * s
        cy += (-1 if j == 0 else 1) * .04 * s
        c8 = (int(cx * 8), int(cy * 8))
        cv2.circle(img, c8, int(.52 * s * 8), (.55, .52, .46), -1, cv2.LINE_AA, 3)
        cv2.circle(img, c8, int(.46 * s * 8), (.88, .86, .8), -1, cv2.LINE_AA, 3)
        d = {(0, 0): (1, 0), (6, 0): (0, 1), (6, 6): (-1, 0), (0, 6): (0, -1)}[(i, j)]
        ax0 = np.array([m + (i + .5) * s, m + (j + .5) * s]) + np.array(d) * .5 * s
        ax1 = ax0 + np.array(d) * .22 * s
        cv2.arrowedLine(img, tuple(int(v * 8) for v in ax0), tuple(int(v * 8) for v in ax1), (.1, .09, .08),
                        max(1, int(.035 * s)), cv2.LINE_AA, 3, .45)
    # grid lines: sketchy, with gaps at the crossings
    gm = np.zeros((Wt, Wt), np.uint8)
    gw = max(1.2, .03 * s)
    for k in range(8):
        for a in range(7):
            for horiz in (0, 1):
                if (k in (0, 7)) and rng.random() < .5:
                    continue
                g0, g1 = rng.uniform(.02, .1), rng.uniform(.02, .1)
                p = np.array([(a + g0, k), (a + 1 - g1, k)], float)
                if not horiz:
                    p = p[:, ::-1]
                p = (p + MARGIN) * s
                mid = (p[0] + p[1]) / 2 + rng.normal(0, .006 * s, 2)
                q = np.rint(np.array([p[0], mid, p[1]]) * 8).astype(np.int32)
                cv2.polylines(gm, [q], False, 255, max(1, int(round(gw * rng.uniform(.8, 1.2)))), cv2.LINE_AA, 3)
    ga = gm.astype(np.float32)[..., None] / 255 * rng.uniform(.6, .85)
    img = img * (1 - ga) + np.array([.2, .17, .13], np.float32) * ga
    # printed crates (identical design on every board)
    for (i, j) in PRINTED_CRATES:
        x0, y0 = m + (i + .15) * s, m + (j + .15) * s
        x1, y1 = m + (i + .85) * s, m + (j + .85) * s
        def ix(v):
            return int(round(v * 8))
        cv2.rectangle(img, (ix(x0), ix(y0)), (ix(x1), ix(y1)), (.77, .55, .31), -1, cv2.LINE_AA, 3)
        lw = max(1, int(.05 * s))
        for t in (1 / 3, 2 / 3):
            yy = y0 + (y1 - y0) * t
            cv2.line(img, (ix(x0), ix(yy)), (ix(x1), ix(yy)), (.47, .29, .14), max(1, int(.025 * s)), cv2.LINE_AA, 3)
        cv2.line(img, (ix(x0), ix(y1)), (ix(x1), ix(y0)), (.86, .66, .4), max(1, int(.08 * s)), cv2.LINE_AA, 3)
        cv2.rectangle(img, (ix(x0), ix(y0)), (ix(x1), ix(y1)), (.3, .18, .09), lw, cv2.LINE_AA, 3)
        for (nx, ny) in ((x0, y0), (x1, y0), (x1, y1), (x0, y1)):
            cv2.circle(img, (ix(nx + (.05 if nx == x0 else -.05) * s), ix(ny + (.05 if ny == y0 else -.05) * s)),
                       ix(.018 * s), (.2, .15, .1), -1, cv2.LINE_AA, 3)
    # wear, dust
    for _ in range(int(rng.integers(0, 6))):
        p = rng.uniform(0, Wt, 2)
        q = p + rng.normal(0, s * .6, 2)
        cv2.line(img, tuple(int(v) for v in p), tuple(int(v) for v in q), tuple([float(rng.uniform(.8, .95))] * 3), 1,
                 cv2.LINE_AA)
    # board alpha (rounded corners) + dark cut edge
    alpha = np.zeros((Wt, Wt), np.uint8)
    r = int(.22 * s)
    cv2.rectangle(alpha, (r, 0), (Wt - 1 - r, Wt - 1), 255, -1)
    cv2.rectangle(alpha, (0, r), (Wt - 1, Wt - 1 - r), 255, -1)
    for cx, cy in ((r, r), (Wt - 1 - r, r), (r, Wt - 1 - r), (Wt - 1 - r, Wt - 1 - r)):
        cv2.circle(alpha, (cx, cy), r, 255, -1, cv2.LINE_AA)
    er = cv2.erode(alpha, np.ones((3, 3), np.uint8), iterations=max(1, int(.025 * s)))
    edge = (alpha.astype(np.float32) - er) / 255.
    img *= (1 - .35 * edge)[..., None]
    return img, alpha.astype(np.float32) / 255, m


def put_markers(img, s, m, seat, aruco, rng):
    ids = {(0, 0): 4 * seat, (6, 0): 4 * seat + 1, (6, 6): 4 * seat + 2, (0, 6): 4 * seat + 3}
    for (i, j), mid in ids.items():
        cx, cy = m + (i + .5) * s + rng.normal(0, .015 * s), m + (j + .5) * s + rng.normal(0, .015 * s)
        ang = rng.normal(0, 1.2)
        quiet = rng.uniform(.9, .96) * s
        R = cv2.getRotationMatrix2D((0, 0), -ang, 1.)[:, :2]
        sq = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], float) * quiet / 2
        poly = (sq @ R.T + [cx, cy])
        cv2.fillPoly(img, [np.rint(poly * 8).astype(np.int32)], tuple([float(rng.uniform(.94, .99))] * 3), cv2.LINE_AA, 3)
        cv2.polylines(img, [np.rint(poly * 8).astype(np.int32)], True, (.75, .75, .72), 1, cv2.LINE_AA, 3)
        mk = cv2.aruco.generateImageMarker(aruco, mid, 6).astype(np.float32) / 255.
        side = .7 * s
        sc = side / 6
        Mk = np.array([[sc, 0, -side / 2], [0, sc, -side / 2]])
        Rf = cv2.getRotationMatrix2D((0, 0), -ang, 1.)
        A = Rf[:, :2] @ Mk[:, :2]
        t = Rf[:, :2] @ Mk[:, 2] + [cx, cy]
        M = np.hstack([A, t[:, None]]).astype(np.float32)
        Wt = img.shape[0]
        bx0, by0 = int(max(0, cx - s)), int(max(0, cy - s))
        bx1, by1 = int(min(Wt, cx + s)), int(min(Wt, cy + s))
        M[:, 2] -= [bx0, by0]
        mw = cv2.warpAffine(mk, M, (bx1 - bx0, by1 - by0), flags=cv2.INTER_NEAREST, borderValue=-1)
        sel = mw >= 0
        sub = img[by0:by1, bx0:bx1]
        ink = np.array([.08, .08, .09], np.float32)
        white = np.array([.96, .96, .95], np.float32)
        col = ink + (white - ink) * np.clip(mw, 0, 1)[..., None]
        sub[sel] = col[sel]


# =================================================================== table & photo
def make_table(H, W, rng):
    kind = rng.choice(['wood', 'wood', 'cloth', 'gingham', 'plain', 'felt'])
    if kind in ('wood', 'plain'):  # smooth content: render at half resolution
        Hf, Wf = H, W
        H, W = H // 2 + 1, W // 2 + 1
    S = int(math.hypot(H, W)) + 4
    if kind == 'wood':
        base = np.array([[190, 150, 100], [110, 75, 45], [212, 176, 128], [72, 50, 35], [150, 138, 122],
                         [160, 110, 70]][int(rng.integers(6))], np.float32) / 255
        base *= rng.uniform(.9, 1.1)
        period = rng.uniform(6, 22)
        y = np.arange(S, dtype=np.float32)[:, None]
        warp = noise_field(S, S, 1, rng)  # placeholder replaced below
        warp = cv2.resize(rng.normal(0, 1, (int(S / 60) + 2, int(S / 300) + 2)).astype(np.float32), (S, S),
                          interpolation=cv2.INTER_CUBIC) * rng.uniform(3, 10)
        g = np.sin(2 * np.pi * (y + warp * period) / period)
        streak = cv2.resize(rng.normal(0, 1, (S // 2, max(2, S // 40))).astype(np.float32), (S, S),
                            interpolation=cv2.INTER_LINEAR)
        pat = 1 + .08 * g + .05 * streak
        seam = rng.uniform(90, 260)
        ys = np.arange(S) % seam < 2
        pat[ys, :] *= .6
        img = base * pat[..., None]
        ang = rng.uniform(0, 180)
        M = cv2.getRotationMatrix2D((S / 2, S / 2), ang, 1.)
        img = cv2.warpAffine(img, M, (S, S), borderMode=cv2.BORDER_REFLECT)
    elif kind in ('cloth', 'gingham', 'felt'):
        pal = [[240, 238, 230], [220, 205, 170], [60, 80, 140], [170, 40, 40], [50, 110, 70], [120, 120, 125],
               [35, 40, 60], [200, 170, 120], [90, 60, 100]]
        base = np.array(pal[int(rng.integers(len(pal)))], np.float32) / 255 * rng.uniform(.9, 1.1)
        xx = np.arange(S, dtype=np.float32)[None, :]
        yy = np.arange(S, dtype=np.float32)[:, None]
        p = rng.uniform(2.5, 5)
        weave = .04 * np.sin(2 * np.pi * yy / p) * np.sin(2 * np.pi * xx / p)
        if kind == 'felt':
            weave = noise_field(S, S, 1, rng, .03)
        fold = noise_field(S, S, rng.uniform(60, 200), rng, .07)
        img = base * (1 + weave + fold)[..., None]
        if kind == 'gingham':
            per = rng.uniform(16, 45)
            a = (np.floor(xx / per) % 2 == 0).astype(np.float32)
            b = (np.floor(yy / per) % 2 == 0).astype(np.float32)
            tint = (a + b) / 2
            white = np.array([.95, .95, .93], np.float32)
            img = img * tint[..., None] + white * (1 + weave[..., None]) * (1 - tint[..., None])
        M = cv2.getRotationMatrix2D((S / 2, S / 2), rng.uniform(0, 180), 1.)
        img = cv2.warpAffine(img, M, (S, S), borderMode=cv2.BORDER_REFLECT)
    else:
        base = np.array([rng.uniform(40, 235) for _ in range(3)], np.float32) / 255
        g = rng.uniform(.6, 1.)
        base = base * g + base.mean() * (1 - g)
        img = base * (1 + noise_field(S, S, 150, rng, .05) + noise_field(S, S, 1.5, rng, .02))[..., None]
    y0, x0 = (S - H) // 2, (S - W) // 2
    img = np.ascontiguousarray(img[y0:y0 + H, x0:x0 + W]).astype(np.float32)
    if kind in ('wood', 'plain'):
        img = cv2.resize(img, (Wf, Hf), interpolation=cv2.INTER_LINEAR)
        img *= (1 + noise_field(Hf, Wf, 1, rng, .015))[..., None]
    return img


def distractors(img, keep, rng):
    H, W = keep.shape
    for _ in range(int(rng.poisson(1.2))):
        kind = rng.choice(['pen', 'die', 'coin', 'note'])
        for _try in range(12):
            c = rng.uniform(0, [W, H])
            ang = rng.uniform(0, 180)
            if kind == 'pen':
                sz = (rng.uniform(110, 150), rng.uniform(14, 20))
            elif kind == 'die':
                sz = (rng.uniform(20, 32),) * 2
            elif kind == 'coin':
                sz = (rng.uniform(18, 28),) * 2
            else:
                sz = (rng.uniform(60, 110), rng.uniform(60, 110))
            box = cv2.boxPoints((tuple(c), sz, ang))
            tmp = np.zeros_like(keep)
            cv2.fillPoly(tmp, [np.rint(box).astype(np.int32)], 1)
            if (tmp * keep).any():
                continue
            sh = np.zeros((H, W), np.float32)
            cv2.fillPoly(sh, [np.rint(box + 4).astype(np.int32)], 1)
            sh = cv2.GaussianBlur(sh, (0, 0), 3)
            img *= (1 - .35 * sh)[..., None]
            if kind == 'pen':
                col = np.array(INK[rng.choice(list(INK))], np.float32) / 255
                cv2.fillPoly(img, [np.rint(box).astype(np.int32)], tuple(float(v) for v in col * .9 + .05), cv2.LINE_AA)
                ca = math.radians(ang)
                d = np.array([math.cos(ca), math.sin(ca)]) * sz[0] * .3
                cap = cv2.boxPoints((tuple(c + d), (sz[0] * .35, sz[1] * 1.1), ang))
                cv2.fillPoly(img, [np.rint(cap).astype(np.int32)], tuple(float(v) for v in col), cv2.LINE_AA)
                cv2.line(img, tuple(int(v) for v in c - d * 1.2), tuple(int(v) for v in c + d * .6), (.95, .95, .95), 2, cv2.LINE_AA)
            elif kind == 'die':
                cv2.fillPoly(img, [np.rint(box).astype(np.int32)], (.93, .92, .9), cv2.LINE_AA)
                col = [(.45, .28, .12), (.9, .5, .1), (.5, .5, .5), (.45, .2, .55), (.2, .55, .25), (.1, .1, .1)][int(rng.integers(6))]
                cv2.circle(img, tuple(int(v) for v in c), int(sz[0] * .25), col, -1, cv2.LINE_AA)
            elif kind == 'coin':
                cv2.circle(img, tuple(int(v) for v in c), int(sz[0] / 2), (.85, .7, .25), -1, cv2.LINE_AA)
                cv2.circle(img, tuple(int(v) for v in c), int(sz[0] / 2.6), (.7, .55, .15), 1, cv2.LINE_AA)
            else:
                cv2.fillPoly(img, [np.rint(box).astype(np.int32)], (.97, .95, .82), cv2.LINE_AA)
            keep = np.maximum(keep, tmp)
            break


def board_homography(Wt, s, c_px, rng):
    mm_per_px = CELL_MM / s
    h = rng.uniform(500, 900)
    f = c_px * h / CELL_MM
    th = math.radians(rng.uniform(0, 360))
    tilt = math.radians(rng.uniform(0, 6))
    ax = rng.uniform(0, 2 * math.pi)
    Rz = np.array([[math.cos(th), -math.sin(th), 0], [math.sin(th), math.cos(th), 0], [0, 0, 1]])
    k = np.array([math.cos(ax), math.sin(ax), 0])
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    Rt = np.eye(3) + math.sin(tilt) * K + (1 - math.cos(tilt)) * K @ K
    src = np.array([[0, 0], [Wt, 0], [Wt, Wt], [0, Wt]], np.float32)
    dst = []
    for X, Y in src:
        p = np.array([(X - Wt / 2) * mm_per_px, (Y - Wt / 2) * mm_per_px, 0.])
        q = Rt @ (Rz @ p) + np.array([0, 0, h])
        dst.append([f * q[0] / q[2], f * q[1] / q[2]])
    return src, np.array(dst, np.float32)


def render_board(rng, fonts, aruco):
    seat = int(rng.integers(5))
    c_px = rng.uniform(22, 48)
    s = int(round(c_px * 2))
    hand = make_hand(rng, fonts)
    # ---- city
    city = [['.'] * 7 for _ in range(7)]
    for (i, j) in TOWERS:
        city[j][i] = '#'
    for (i, j) in PRINTED_CRATES:
        city[j][i] = 'G'
    drawable = [(i, j) for j in range(7) for i in range(7) if (i, j) not in TOWERS and (i, j) not in PRINTED_CRATES]
    outer = [p for p in drawable if outer_side(*p)]
    ndraw = int(round(rng.uniform(.6, .85) * len(drawable)))
    nwall = min(ndraw, int(rng.integers(6, 15)))
    wcells = [outer[k] for k in rng.choice(len(outer), nwall, replace=False)]
    rest = [p for p in drawable if p not in wcells]
    ocells = [rest[k] for k in rng.choice(len(rest), ndraw - nwall, replace=False)]
    for p in wcells:
        city[p[1]][p[0]] = 'W'
    for p in ocells:
        city[p[1]][p[0]] = NONWALL_CLASSES[int(rng.integers(len(NONWALL_CLASSES)))]
    # ---- print
    img, balpha, m = make_board(s, rng, aruco, seat)
    put_markers(img, s, m, seat, aruco, rng)
    Wt = img.shape[0]
    styles, ghosts = {}, {}
    P = int(round((1 + 2 * PAD) * s))

    def composite(alpha, i, j, col, op):
        x0 = m + i * s - int(round(PAD * s))
        y0 = m + j * s - int(round(PAD * s))
        ax0, ay0 = max(0, -x0), max(0, -y0)
        x1, y1 = min(Wt, x0 + P), min(Wt, y0 + P)
        a = alpha[ay0:ay0 + (y1 - max(0, y0)), ax0:ax0 + (x1 - max(0, x0))]
        if hand['dry'] > 0:
            st = noise_field(a.shape[0], a.shape[1], max(2, s * .05), rng, 1.)
            a = a * np.clip(1 - hand['dry'] * (.5 + .5 * st), .25, 1)
        a = (a * op)[..., None]
        reg = img[max(0, y0):y1, max(0, x0):x1]
        reg[:] = reg * (1 - a) + np.array(col, np.float32) / 255 * a

    for j in range(7):
        for i in range(7):
            sym = city[j][i]
            if (i, j) in TOWERS or (i, j) in PRINTED_CRATES:
                continue
            col = INK[hand['color']]
            if rng.random() < hand['p_other']:
                col = INK[rng.choice(list(INK))]
            col = tuple(np.clip(np.array(col) * rng.uniform(.92, 1.08), 0, 255))
            if sym == '.':
                r = rng.random()
                if r < .3:  # half-erased ghost of an older drawing
                    gs = rng.choice(['W'] * (1 if outer_side(i, j) else 0) + ['G', 'H', '3', 'a', 's', 'n', '1', 'm'])
                    a, gname = render_cell(gs, hand, rng, fonts, s, outer_side(i, j))
                    er = np.clip(noise_field(P, P, s * .2, rng, 1.) + rng.uniform(-.3, .8), 0, 1)
                    a = cv2.GaussianBlur(a * er, (0, 0), rng.uniform(.8, 2.5))
                    composite(a, i, j, col, rng.uniform(.06, .28))
                    ghosts[cname(i, j)] = gname
                elif r < .38:  # smudge / wipe
                    a = np.zeros((P, P), np.float32)
                    cv2.ellipse(a, (int(P * rng.uniform(.3, .7)), int(P * rng.uniform(.3, .7))),
                                (int(s * rng.uniform(.15, .4)), int(s * rng.uniform(.05, .2))), rng.uniform(0, 180),
                                0, 360, 1., -1)
                    a = cv2.GaussianBlur(a, (0, 0), s * .08)
                    composite(a, i, j, col, rng.uniform(.05, .15))
                    ghosts[cname(i, j)] = 'smudge'
                elif r < .41:
                    a = np.zeros((P, P), np.uint8)
                    draw_stroke(a, [rng.uniform(PAD + .1, PAD + .9, 2)] * 2, hand['width_mm'] / CELL_MM * s, hand, rng, s)
                    composite(a.astype(np.float32) / 255, i, j, col, hand['opacity'])
                    ghosts[cname(i, j)] = 'speck'
                continue
            a, name = render_cell(sym, hand, rng, fonts, s, outer_side(i, j))
            composite(a, i, j, col, hand['opacity'] * rng.uniform(.93, 1.))
            styles[cname(i, j)] = name
    # ---- photo geometry
    src, dst = board_homography(Wt, s, c_px, rng)
    bx0, by0 = dst.min(0)
    bw_, bh_ = dst.max(0) - dst.min(0)
    W = int(rng.integers(max(500, int(bw_) + 24), max(501, min(800, int(bw_) + 320)) + 1))
    H = int(rng.integers(max(500, int(bh_) + 24), max(501, min(800, int(bh_) + 320)) + 1))
    if rng.random() < .5:
        H = W = max(H, W)
    ox = rng.uniform(10, W - bw_ - 10) - bx0
    oy = rng.uniform(10, H - bh_ - 10) - by0
    dst = dst + np.array([ox, oy], np.float32)
    Hm = cv2.getPerspectiveTransform(src, dst)
    img = cv2.GaussianBlur(img, (0, 0), .75)
    bimg = cv2.warpPerspective(img, Hm, (W, H), flags=cv2.INTER_LINEAR)
    ba = cv2.warpPerspective(balpha, Hm, (W, H), flags=cv2.INTER_LINEAR)
    table = make_table(H, W, rng)
    keep = cv2.dilate((ba > 0).astype(np.uint8), np.ones((15, 15), np.uint8))
    if rng.random() < .5:
        distractors(table, keep, rng)
    shd = cv2.GaussianBlur(ba, (0, 0), rng.uniform(3, 10))
    d = rng.uniform(2, 9, 2)
    shd = cv2.warpAffine(shd, np.float32([[1, 0, d[0]], [0, 1, d[1]]]), (W, H))
    table *= (1 - rng.uniform(.2, .5) * shd)[..., None]
    out = table * (1 - ba[..., None]) + bimg * ba[..., None]
    # ---- lighting
    H4, W4 = H // 4 + 1, W // 4 + 1
    yy, xx = np.mgrid[0:H4, 0:W4].astype(np.float32) * 4
    a = rng.uniform(0, 2 * math.pi)
    gr = ((xx - W / 2) * math.cos(a) + (yy - H / 2) * math.sin(a)) / max(W, H)
    light = 1 + rng.uniform(0, .45) * gr
    rr = ((xx - rng.uniform(0, W)) ** 2 + (yy - rng.uniform(0, H)) ** 2) / (max(W, H) ** 2)
    light *= 1 - rng.uniform(0, .35) * rr
    if rng.random() < .4:  # soft shadow of an arm / lamp
        sm = np.zeros((H4, W4), np.float32)
        pts = rng.uniform(-.2, 1.2, (int(rng.integers(3, 6)), 2)) * [W4, H4]
        cv2.fillPoly(sm, [cv2.convexHull(pts.astype(np.int32))], 1.)
        sm = cv2.GaussianBlur(sm, (0, 0), rng.uniform(4, 11))
        light *= 1 - rng.uniform(.1, .35) * sm
    light = cv2.resize(light.astype(np.float32), (W, H), interpolation=cv2.INTER_LINEAR)
    out *= light[..., None] * rng.uniform(.85, 1.15)
    out *= np.array([rng.uniform(.9, 1.08), 1, rng.uniform(.88, 1.1)], np.float32)
    if rng.random() < .3:  # glare on the glossy board
        g = np.zeros((H, W), np.float32)
        c = dst[int(rng.integers(4))] * .3 + dst.mean(0) * .7 + rng.normal(0, 40, 2)
        cv2.ellipse(g, (int(c[0]), int(c[1])), (int(rng.uniform(30, 90)), int(rng.uniform(15, 50))),
                    rng.uniform(0, 180), 0, 360, 1., -1)
        g = cv2.GaussianBlur(g, (0, 0), rng.uniform(10, 25)) * ba
        out += rng.uniform(.08, .25) * g[..., None]
    # ---- camera
    out = cv2.GaussianBlur(out, (0, 0), rng.uniform(.2, .9))
    out += rng.standard_normal(out.shape, dtype=np.float32) * np.float32(rng.uniform(.006, .02))
    out += cv2.resize(rng.normal(0, .01, (H // 4, W // 4, 3)).astype(np.float32), (W, H))
    o8 = np.clip(out * 255 + .5, 0, 255).astype(np.uint8)
    bgr = cv2.cvtColor(o8, cv2.COLOR_RGB2BGR)
    ok, enc = cv2.imencode('.jpg', bgr, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(55, 93))])
    bgr = cv2.imdecode(enc, cv2.IMREAD_COLOR)
    truth = {'seat': seat, 'city': [''.join(r) for r in city], 'styles': styles, 'ghosts': ghosts,
             'cell_px': round(float(c_px), 2), 'ink': hand['color'], 'letters': hand['src'],
             'corners': dst.round(1).tolist()}
    return bgr, truth


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--out', required=True)
    ap.add_argument('--boards', type=int, required=True)
    ap.add_argument('--seed', type=int, default=0)
    ap.add_argument('--start', type=int, default=0, help='index of the first board (for resuming)')
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    cv2.setNumThreads(1)
    fonts = FontBank()
    aruco = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    t0 = time.time()
    mode = 'a' if args.start else 'w'
    with open(os.path.join(args.out, 'truth.jsonl'), mode) as fh:
        for k in range(args.start, args.start + args.boards):
            rng = np.random.default_rng([args.seed, k])
            bgr, truth = render_board(rng, fonts, aruco)
            name = f'board_{k:05d}.png'
            cv2.imwrite(os.path.join(args.out, name), bgr, [cv2.IMWRITE_PNG_COMPRESSION, 1])
            fh.write(json.dumps(dict(image=name, **truth)) + '\n')
            if (k + 1) % 100 == 0:
                fh.flush()
                print(f'{k + 1 - args.start} boards, {time.time() - t0:.1f}s', file=sys.stderr, flush=True)
    print(f'done {args.boards} boards in {time.time() - t0:.1f}s', file=sys.stderr)


if __name__ == '__main__':
    main()
