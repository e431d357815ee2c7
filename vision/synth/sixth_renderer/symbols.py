"""Drawers for each city class: many structurally different ways to draw one symbol in a cell.

Each drawer takes the pen, the cell (x0, y0, side in board px) and returns its style name.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from vision.synth.sixth_renderer import fonts, glyphs
from vision.synth.sixth_renderer.pen import P, Pen, Pts, arc

Cell = tuple[float, float, float]


class Frame:
    """Maps unit-square points into a symbol's box in a cell (random size, offset and tilt)."""

    def __init__(self, pen: Pen, cell: Cell, size: float | None = None, aspect: float = 1.0) -> None:
        rng, hand = pen.rng, pen.hand
        x0, y0, cs = cell
        f = size if size is not None else float(np.clip(hand.size * rng.uniform(0.82, 1.1), 0.5, 0.94))
        w, h = f * cs, f * cs
        if aspect > 1:
            h /= aspect
        else:
            w *= aspect
        slack_x, slack_y = cs - w, cs - h
        off = 0.15 + 0.7 * hand.neat
        self.x = x0 + slack_x * float(np.clip(rng.normal(0.5, 0.18 / off), 0.08, 0.92))
        self.y = y0 + slack_y * float(np.clip(rng.normal(0.5, 0.18 / off), 0.08, 0.92))
        self.w, self.h = w, h
        a = np.radians(rng.normal(0, 2 + 5 * (1 - hand.neat)))
        self.R = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])

    def __call__(self, pts: Pts) -> Pts:
        q = (np.asarray(pts, np.float64) - 0.5) * [self.w, self.h]
        return q @ self.R.T + [self.x + self.w / 2, self.y + self.h / 2]


def _j(rng: np.random.Generator, pts: Pts, amp: float) -> Pts:
    """Corner jitter in unit coordinates (hand-drawn boxes are never square)."""
    return pts + rng.normal(0, amp, pts.shape)


def _rect(rng: np.random.Generator, x0: float = 0, y0: float = 0, x1: float = 1, y1: float = 1,
          amp: float = 0.02) -> Pts:
    return _j(rng, P(x0, y0, x1, y0, x1, y1, x0, y1), amp)


# ---------------------------------------------------------------- crates
def _planks(pen: Pen, F: Frame, n: int, direction: str, lo: float = 0.0, hi: float = 1.0) -> None:
    rng = pen.rng
    for k in range(n):
        t = lo + (hi - lo) * (k + 1) / (n + 1) + rng.normal(0, 0.02)
        if direction == "h":
            pen.line(F(P(lo + 0.02, t, hi - 0.02, t + rng.normal(0, 0.02))))
        elif direction == "v":
            pen.line(F(P(t, lo + 0.02, t + rng.normal(0, 0.02), hi - 0.02)))
        else:  # diagonal planks clipped to the box
            o = -0.6 + 1.2 * (k + 1) / (n + 1) + rng.normal(0, 0.02)
            a = np.array([max(0.0, o), max(0.0, -o)])
            b = np.array([min(1.0, 1 + o), min(1.0, 1 - o)])
            pen.line(F(np.stack([a, b])))


def crate(pen: Pen, cell: Cell) -> str:
    rng = pen.rng
    style = str(rng.choice(["planks_h", "planks_v", "planks_diag", "planks_bare", "x", "diagonal", "box3d",
                            "bare", "nested", "filled", "scribbled", "planks_z"]))
    F = Frame(pen, cell, aspect=float(rng.choice([1.0, 1.0, rng.uniform(0.7, 1.4)])))
    box = _rect(rng)
    if style != "planks_bare" and style != "box3d":
        pen.line(F(box), closed=True)
    if style == "planks_h":
        _planks(pen, F, int(rng.integers(2, 5)), "h")
    elif style == "planks_v":
        _planks(pen, F, int(rng.integers(2, 5)), "v")
    elif style == "planks_diag":
        _planks(pen, F, int(rng.integers(2, 5)), "d")
    elif style == "planks_bare":
        d = str(rng.choice(["h", "v"]))
        for k in range(int(rng.integers(3, 5))):  # stacked bars with no outline
            t = 0.1 + 0.8 * k / 3
            bar = P(0, t - 0.07, 1, t - 0.07, 1, t + 0.07, 0, t + 0.07) if d == "h" else \
                P(t - 0.07, 0, t + 0.07, 0, t + 0.07, 1, t - 0.07, 1)
            pen.line(F(_j(rng, bar, 0.01)), closed=True)
    elif style == "x":
        pen.line(F(_j(rng, P(0, 0, 1, 1), 0.02)))
        pen.line(F(_j(rng, P(1, 0, 0, 1), 0.02)))
    elif style == "diagonal":
        pen.line(F(_j(rng, P(0, 0, 1, 1) if rng.random() < 0.5 else P(1, 0, 0, 1), 0.02)))
    elif style == "box3d":
        d = rng.uniform(0.18, 0.3)
        front = _rect(rng, 0, d, 1 - d, 1)
        pen.line(F(front), closed=True)
        pen.line(F(P(0, d, d, 0, 1, 0, 1, 1 - d, 1 - d, 1)))
        pen.line(F(P(1 - d, d, 1, 0)))
        if rng.random() < 0.5:
            _planks(pen, _Sub(F, 0, d, 1 - d, 1), 2, "h")
    elif style == "nested":
        m = rng.uniform(0.2, 0.3)
        pen.line(F(_rect(rng, m, m, 1 - m, 1 - m)), closed=True)
    elif style == "filled":
        pen.fill(F(box))
    elif style == "scribbled":
        pen.scribble(F(box), pen.width * rng.uniform(1.2, 2.2), rng.uniform(0, 180))
    elif style == "planks_z":
        _planks(pen, F, 2, "h")
        pen.line(F(_j(rng, P(0.05, 0.33, 0.95, 0.67) if rng.random() < 0.5 else P(0.05, 0.67, 0.95, 0.33), 0.02)))
    return f"crate.{style}"


class _Sub:
    """A sub-box of a frame, itself usable as a frame."""

    def __init__(self, F: Frame, x0: float, y0: float, x1: float, y1: float) -> None:
        self.F, self.o, self.s = F, np.array([x0, y0]), np.array([x1 - x0, y1 - y0])

    def __call__(self, pts: Pts) -> Pts:
        return self.F(self.o + np.asarray(pts) * self.s)


# ---------------------------------------------------------------- walls
def _square_wave(n: int, a: float, b: float) -> Pts:
    """n teeth along u in 0..1: level a on the teeth, b in the gaps."""
    xs = np.linspace(0, 1, 2 * n + 1)
    return np.array([p for k in range(2 * n) for p in ((xs[k], a if k % 2 == 0 else b),
                                                       (xs[k + 1], a if k % 2 == 0 else b))])


def wall(pen: Pen, cell: Cell, side: str) -> str:
    """A wall drawn along the board's edge. Local (u, v): u along the edge, v from the edge (0) inwards."""
    rng = pen.rng
    x0, y0, cs = cell
    m_u, m_v = rng.uniform(0.02, 0.12), rng.uniform(0.05, 0.2)
    depth = rng.uniform(0.45, 0.85)
    v0 = m_v + rng.uniform(0, 1 - 2 * m_v - depth) if 1 - 2 * m_v - depth > 0 else m_v
    v1 = min(0.97, v0 + depth)
    a = np.radians(rng.normal(0, 1.5 + 3 * (1 - pen.hand.neat)))
    ca, sa = np.cos(a), np.sin(a)

    def L(pts: Pts) -> Pts:  # local -> board px
        p = np.asarray(pts, np.float64)
        u = m_u + p[:, 0] * (1 - 2 * m_u)
        v = v0 + p[:, 1] * (v1 - v0)
        u, v = 0.5 + (u - 0.5) * ca - (v - 0.5) * sa, 0.5 + (u - 0.5) * sa + (v - 0.5) * ca
        if side == "top":
            x, y = u, v
        elif side == "bottom":
            x, y = u, 1 - v
        elif side == "left":
            x, y = v, u
        else:
            x, y = 1 - v, u
        return np.stack([x0 + x * cs, y0 + y * cs], 1)

    style = str(rng.choice(["bricks", "stacked", "band_solid", "band_hatched", "battlement", "battlement_filled",
                            "battlement_band", "zigzag", "stones", "band_crenel", "double_line",
                            "crosshatch"]))
    box = _rect(rng, amp=0.015)
    j = lambda p: _j(rng, p, 0.015)  # noqa: E731
    if style in ("bricks", "stacked"):
        rows = int(rng.integers(2, 4))
        outline = rng.random() < 0.7
        if outline:
            pen.line(L(box), closed=True)
        for r in range(1, rows):
            t = r / rows
            pen.line(L(j(P(0, t, 1, t))))
        nb = int(rng.integers(2, 4))
        for r in range(rows):
            off = 0.5 / nb if style == "bricks" and r % 2 else 0.0
            for b in range(nb + 1):
                u = b / nb + off
                if 0.04 < u < 0.96:
                    pen.line(L(j(P(u, r / rows, u, (r + 1) / rows))))
        if not outline:
            pen.line(L(j(P(0, 0, 1, 0))))
            pen.line(L(j(P(0, 1, 1, 1))))
        style = style + ("" if outline else "_open")
    elif style == "band_solid":
        pen.fill(L(box))
    elif style == "band_hatched":
        pen.line(L(box), closed=True)
        ang = float(rng.choice([45, 135, 90]))
        pen.scribble(L(box), pen.width * rng.uniform(1.8, 3.0), ang + (90 if side in ("left", "right") else 0))
    elif style.startswith("battlement"):
        out = rng.random() < 0.6  # merlons towards the board's edge (out) or its middle (in)
        n = int(rng.integers(2, 4))
        hb = rng.uniform(0.3, 0.5)  # merlon height (fraction of depth)
        tip, notch, base = (0.0, hb, 1.0) if out else (1.0, 1.0 - hb, 0.0)
        crest = _square_wave(n, tip, notch)
        shape = np.vstack([crest, [[1, base], [0, base]]])
        if style == "battlement_filled":
            pen.fill(L(shape))
        else:
            pen.line(L(j(shape)), closed=True)
        if style == "battlement_band":
            band = P(0, notch, 1, notch, 1, base, 0, base)
            pen.scribble(L(band), pen.width * rng.uniform(1.3, 2.0), 0 if side in ("top", "bottom") else 90)
        style = f"{style}|{'out' if out else 'in'}"
    elif style == "zigzag":
        n = int(rng.integers(3, 7))
        lines = int(rng.integers(1, 3))
        for r in range(lines):
            lo, hi = r / lines + 0.05, (r + 1) / lines - 0.05
            xs = np.linspace(0, 1, n * 2 + 1)
            pen.line(L(j(np.stack([xs, np.where(np.arange(len(xs)) % 2, lo, hi)], 1))))
    elif style == "stones":
        n = int(rng.integers(3, 5))
        rows = int(rng.integers(1, 3))
        for r in range(rows):
            for k in range(n):
                cu, cv = (k + 0.5 + (0.5 if r % 2 else 0)) / n, (r + 0.5) / rows
                if cu > 1:
                    continue
                pen.line(L(arc(cu, cv, 0.45 / n, 0.42 / rows, 0, 360 + rng.uniform(0, 30))))
    elif style == "band_crenel":
        pen.line(L(box), closed=True)
        lo = rng.uniform(0.2, 0.4)
        pen.line(L(j(_square_wave(int(rng.integers(2, 4)), lo, lo + rng.uniform(0.25, 0.4)))))
    elif style == "double_line":
        a1, a2 = rng.uniform(0.2, 0.4), rng.uniform(0.6, 0.8)
        pen.line(L(j(P(0, a1, 1, a1))))
        pen.line(L(j(P(0, a2, 1, a2))))
    elif style == "crosshatch":
        if rng.random() < 0.6:
            pen.line(L(box), closed=True)
        sp = pen.width * rng.uniform(2.0, 3.2)
        pen.scribble(L(box), sp, 45)
        pen.scribble(L(box), sp, 135)
    return f"wall.{style}"


# ---------------------------------------------------------------- glyphs (digits, letters)
def glyph(pen: Pen, ch: str, x: float, y: float, w: float, h: float, source: str) -> str:
    """Writes one character into a box, from stroke skeletons or a font; returns its source tag."""
    rng, hand = pen.rng, pen.hand
    slant = hand.slant + rng.normal(0, 0.06)
    if source == "strokes":
        table = glyphs.DIGITS.get(ch) or glyphs.LETTERS[ch]
        name = str(rng.choice(sorted(table)))
        strokes = [s + rng.normal(0, 0.025 * (1.4 - hand.neat), s.shape) for s in table[name]]
        for s in glyphs.fit(strokes, x, y, w, h, slant, rng.normal(0, 3)):
            pen.line(s)
        return f"strokes:{name}"
    grow = max(0, int(round(pen.width * rng.uniform(0.15, 0.45))))
    mask = fonts.fitted_glyph(source, ch, int(w), int(h), slant, grow)
    mh, mw = mask.shape
    pen.paste(mask, x + w / 2 - mw / 2, y + h / 2 - mh / 2)
    return f"font:{source}"


def pick_source(rng: np.random.Generator, font_pool: tuple[str, ...]) -> str:
    if rng.random() < 0.55 or not font_pool:
        return "strokes"
    name = str(rng.choice(font_pool))
    fonts.check_allowed(name)
    return name


# ---------------------------------------------------------------- churches
def church(pen: Pen, cell: Cell, size: int, font_pool: tuple[str, ...]) -> str:
    rng = pen.rng
    d = str(size)
    src = pick_source(rng, font_pool)
    style = str(rng.choice(["chapel", "cross_beside", "digit_box", "digit_circle_cross", "digit_cross_above"]))
    F = Frame(pen, cell)
    bx, by, bw, bh = F.x, F.y, F.w, F.h

    def cross(cx: float, cy: float, s: float) -> None:
        pen.line(F(_j(rng, P(cx, cy - s, cx, cy + s), 0.01)))
        pen.line(F(_j(rng, P(cx - 0.6 * s, cy - 0.35 * s, cx + 0.6 * s, cy - 0.35 * s), 0.01)))

    if style == "chapel":
        roof = rng.uniform(0.3, 0.4)
        body = P(0.08, roof, 0.5, 0.18, 0.92, roof, 0.92, 1, 0.08, 1)
        pen.line(F(_j(rng, body, 0.015)), closed=True)
        cross(0.5, 0.07, 0.11)
        tag = glyph(pen, d, bx + 0.22 * bw, by + (roof + 0.05) * bh, 0.56 * bw, (0.92 - roof) * bh, src)
    elif style == "cross_beside":
        left = rng.random() < 0.5
        cross(0.2 if left else 0.8, 0.45, 0.25)
        gx = 0.42 if left else 0.05
        tag = glyph(pen, d, bx + gx * bw, by + 0.1 * bh, 0.55 * bw, 0.8 * bh, src)
    elif style == "digit_box":
        pen.line(F(_rect(rng, 0.1, 0.1, 0.9, 0.9)), closed=True)
        if rng.random() < 0.5:
            cross(0.5, -0.02, 0.08)
        tag = glyph(pen, d, bx + 0.2 * bw, by + 0.17 * bh, 0.6 * bw, 0.66 * bh, src)
    elif style == "digit_circle_cross":
        pen.line(F(arc(0.5, 0.57, 0.43, 0.43, 0, 360)))
        cross(0.5, 0.05, 0.09)
        tag = glyph(pen, d, bx + 0.27 * bw, by + 0.3 * bh, 0.46 * bw, 0.54 * bh, src)
    else:
        cross(0.5 + rng.normal(0, 0.05), 0.12, 0.11)
        tag = glyph(pen, d, bx + 0.2 * bw, by + 0.28 * bh, 0.6 * bw, 0.72 * bh, src)
    return f"church.{style}|{tag}"


# ---------------------------------------------------------------- persons
PERSON_LETTER = {"c": "Cc", "s": "Ss", "p": "Pp", "a": "Aa", "m": "Mm", "j": "Jj", "n": "Nn"}


def person(pen: Pen, cell: Cell, who: str, font_pool: tuple[str, ...]) -> str:
    rng = pen.rng
    ch = PERSON_LETTER[who][int(rng.random() < 0.45)]
    src = pick_source(rng, font_pool)
    style = str(rng.choice(["circle", "open_circle", "oval", "double_circle", "scribbled_circle",
                            "circle_after"]))
    F = Frame(pen, cell, aspect=rng.uniform(1.15, 1.5) if style == "oval" else rng.uniform(0.9, 1.1))
    start = rng.uniform(0, 360)
    if style == "circle":
        pen.line(F(arc(0.5, 0.5, 0.5, 0.5, start, start + 360 + rng.uniform(-8, 15))))
    elif style == "open_circle":
        pen.line(F(arc(0.5, 0.5, 0.5, 0.5, start, start + rng.uniform(270, 330))))
    elif style == "oval":
        pen.line(F(arc(0.5, 0.5, 0.5, 0.5, start, start + 365)))
    elif style == "double_circle":
        pen.line(F(arc(0.5, 0.5, 0.5, 0.5, start, start + 360)))
        pen.line(F(arc(0.5, 0.5, 0.43, 0.43, start + 40, start + 400)))
    elif style == "scribbled_circle":
        turns = rng.uniform(1.5, 2.4)
        t = np.radians(np.linspace(start, start + 360 * turns, int(40 * turns)))
        r = 0.47 + rng.normal(0, 0.025, len(t)).cumsum() * 0.3
        pen.line(F(np.stack([0.5 + r * np.cos(t), 0.5 + r * np.sin(t)], 1)))
    # the letter: sometimes small and off-centre, lowercase a little smaller
    small = rng.uniform(0.45, 0.7) if rng.random() < 0.3 else rng.uniform(0.62, 0.8)
    if ch.islower():
        small *= 0.9
    if style == "circle_after":
        small = rng.uniform(0.75, 0.95)  # letter first, circle over it overlapping its ends
    gw, gh = F.w * small * 0.8, F.h * small
    cx = F.x + F.w / 2 + rng.normal(0, 0.05) * F.w
    cy = F.y + F.h / 2 + rng.normal(0, 0.05) * F.h
    tag = glyph(pen, ch, cx - gw / 2, cy - gh / 2, gw, gh, src)
    if style == "circle_after":
        pen.line(F(arc(0.5, 0.5, 0.42, 0.42, start, start + 360 + rng.uniform(0, 20))))
    case = "upper" if ch.isupper() else "lower"
    return f"person.{style}|{case}|{tag}"


# ---------------------------------------------------------------- houses
def house(pen: Pen, cell: Cell) -> str:
    rng = pen.rng
    style = str(rng.choice(["plain", "door", "filled_roof", "chimney", "window"]))
    F = Frame(pen, cell)
    roof = rng.uniform(0.3, 0.48)
    ov = rng.uniform(0, 0.08)
    pen.line(F(_rect(rng, 0.12, roof, 0.88, 1)), closed=True)
    roof_pts = _j(rng, P(0.12 - ov, roof, 0.5, 0, 0.88 + ov, roof), 0.015)
    if style == "filled_roof":
        pen.fill(F(roof_pts))
    else:
        pen.line(F(roof_pts))
    if style == "door":
        pen.line(F(P(0.42, 1, 0.42, 0.72, 0.58, 0.72, 0.58, 1)))
    elif style == "chimney":
        pen.line(F(P(0.68, roof * 0.55, 0.68, roof * 0.15, 0.78, roof * 0.15, 0.78, roof * 0.8)))
    elif style == "window":
        pen.line(F(_rect(rng, 0.35, roof + 0.12, 0.65, roof + 0.35)), closed=True)
    return f"house.{style}"


DrawFn = Callable[..., str]
