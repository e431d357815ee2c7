"""A drawer's hand: marker ink, stroke wobble and the drawings of each kind in many styles.

Drawings are built in 'footprint' coordinates ([-0.5, 0.5]^2 = one cell, y down) and mapped to
the canonical board image (cell = C px) by a per-drawing affine transform chosen by the hand."""
import cv2
import glyphs
import numpy as np

C = 72  # canonical cell size (px)

INKS = {  # appearance on white, RGB
    'black': (38, 38, 44), 'blue': (32, 62, 165), 'red': (190, 38, 45), 'green': (28, 128, 62),
    'purple': (105, 48, 145), 'brown': (112, 70, 42), 'orange': (228, 112, 32),
}
INK_P = {'black': .3, 'blue': .25, 'red': .13, 'green': .15, 'purple': .07, 'brown': .05, 'orange': .05}

STYLES = {
    'wall': ['bricks', 'bricks_stack', 'hatch', 'crosshatch', 'solid', 'scribble', 'crenel', 'zigzag',
             'stones', 'lines'],
    'crate': ['cross', 'planks', 'cube', 'box', 'diag', 'braced', 'framed'],
    'house': ['plain', 'door', 'window', 'chimney', 'detailed', 'roof_fill', 'outline', 'eaves'],
    'church': ['box_cross', 'cross_beside', 'cross_above', 'digit_box', 'shape', 'big_cross', 'tower'],
    'person': ['circle', 'oval', 'open', 'overshoot', 'retraced', 'big_letter'],
}

KIND_OF = {'W': 'wall', 'G': 'crate', 'H': 'house'}
for _d in '12345':
    KIND_OF[_d] = 'church'
for _p in 'cspamjn':
    KIND_OF[_p] = 'person'


def rot(a):
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s], [s, c]])


def chaikin(p, it=2):
    for _ in range(it):
        q = 0.75 * p[:-1] + 0.25 * p[1:]
        r = 0.25 * p[:-1] + 0.75 * p[1:]
        p = np.vstack([p[:1], np.stack([q, r], 1).reshape(-1, 2), p[-1:]])
    return p


def resample(p, step):
    d = np.sqrt(((p[1:] - p[:-1]) ** 2).sum(1))
    L = d.sum()
    if L < 1e-6:
        return p[:1].repeat(2, 0), 0.0
    s = np.concatenate([[0], np.cumsum(d)])
    n = max(2, int(L / step) + 1)
    t = np.linspace(0, L, n)
    return np.stack([np.interp(t, s, p[:, 0]), np.interp(t, s, p[:, 1])], 1), L


class Ink:
    """density layers (one per marker colour) over the canonical board image."""

    def __init__(self, size, ncol):
        self.dens = np.zeros((ncol, size, size), np.float32)
        self.size = size
        self.ghost = None

    def roi(self, x0, y0, w, h):
        self.x0, self.y0 = int(x0), int(y0)
        self.w, self.h = int(w), int(h)
        self.tmp = np.zeros((self.h, self.w), np.uint8)

    def _target(self, ci):
        if self.ghost is not None:
            return self.ghost
        return self.dens[ci, self.y0:self.y0 + self.h, self.x0:self.x0 + self.w]

    def polyline(self, ci, pts, thick, alpha, widths=None):
        t = self.tmp
        t.fill(0)
        q = np.round((pts - (self.x0, self.y0)) * 16).astype(np.int32)
        if widths is None:
            cv2.polylines(t, [q], False, 255, max(1, int(round(thick))), cv2.LINE_AA, 4)
        else:
            n = len(q)
            k = max(2, n // len(widths))
            for i, w in enumerate(widths):
                seg = q[i * k: min(n, (i + 1) * k + 1)]
                if len(seg) >= 2:
                    cv2.polylines(t, [seg], False, 255, max(1, int(round(w))), cv2.LINE_AA, 4)
        tg = self._target(ci)
        tg += t.astype(np.float32) * (alpha / 255.0)

    def mask(self, ci, m, M, alpha):
        M = M.copy()
        M[:, 2] -= (self.x0, self.y0)
        w = cv2.warpAffine(m, M, (self.w, self.h), flags=cv2.INTER_LINEAR, borderValue=0)
        tg = self._target(ci)
        tg += w * alpha


class Hand:
    def __init__(self, rng, fonts_ok=True):
        r = self.rng = rng
        names = list(INK_P)
        p = np.array([INK_P[n] for n in names])
        ncol = 1 if r.random() < 0.65 else 2
        self.colours = list(r.choice(names, ncol, replace=False, p=p / p.sum()))
        self.ink_rgb = []
        for n in self.colours:
            c = np.array(INKS[n], float) + r.normal(0, 8, 3)
            self.ink_rgb.append(np.clip(c, 10, 245))
        self.colour_by_kind = {k: int(r.integers(ncol)) for k in STYLES}
        self.colour_mix = r.random() < 0.4  # else colour chosen per kind
        self.pen = r.uniform(1.8, 4.4)          # px at C=72
        self.alpha = r.uniform(0.6, 0.97)
        self.dry = r.uniform(0, 0.55) if r.random() < 0.5 else 0.0
        self.wobble = r.uniform(0.002, 0.016)   # cell units
        self.tremor = r.uniform(0.0, 0.004)
        self.size = r.uniform(0.66, 0.95)
        self.size_sd = r.uniform(0.02, 0.08)
        self.pos_bias = r.normal(0, 0.03, 2)
        self.pos_sd = r.uniform(0.01, 0.06)
        self.rot_bias = r.normal(0, 0.04)
        self.rot_sd = r.uniform(0.0, 0.09)
        self.slant = r.normal(0.08, 0.15)
        self.over = r.uniform(0.0, 0.09)        # overshoot at corners
        self.gap = r.uniform(0.0, 0.25)         # probability that a corner does not meet
        self.sketch = r.uniform(0, 0.3) if r.random() < 0.35 else 0.0
        self.bow = r.uniform(0.0, 0.05)
        self.rect_loop = r.random() < 0.5       # rectangles in one stroke vs four lines
        self.wall_along = r.random() < 0.3      # side walls drawn along the board edge
        self.wall_fill = r.uniform(0.8, 1.02)
        self.upper = r.random() < 0.7
        self.case_mix = r.uniform(0, 0.15)
        self.fav = {}
        for k, lst in STYLES.items():
            w = r.uniform(0.1, 0.6, len(lst)) ** 2
            for i in r.choice(len(lst), int(r.integers(1, 3)), replace=False):
                w[i] += r.uniform(2, 6)
            self.fav[k] = w / w.sum()
        self.variant = {ch: int(r.integers(len(glyphs.SKEL[ch]))) for ch in glyphs.SKEL}
        self.font = None
        self.font_lower = None
        self.font_rate = 0.0
        if fonts_ok and glyphs.FONTS and r.random() < 0.6:
            pool = glyphs.FONTS_UPPER_OK if self.upper else glyphs.FONTS
            self.font = str(r.choice(pool))
            self.font_rate = r.uniform(0.75, 1.0)
        self.glyph_h = r.uniform(0.55, 0.75)

    # ---------------------------------------------------------- geometry helpers (footprint)
    def _extend(self, p0, p1):
        r = self.rng
        d = p1 - p0
        L = np.hypot(*d) + 1e-9
        u = d / L
        a = self.over * r.random()
        b = self.over * r.random()
        if r.random() < self.gap:
            a = -r.uniform(0.01, 0.05)
        if r.random() < self.gap:
            b = -r.uniform(0.01, 0.05)
        return p0 - u * a, p1 + u * b

    def L(self, p0, p1, ext=True):
        p0, p1 = np.asarray(p0, float), np.asarray(p1, float)
        if ext:
            p0, p1 = self._extend(p0, p1)
        d = p1 - p0
        n = np.array([-d[1], d[0]])
        c = (p0 + p1) / 2 + n * self.bow * self.rng.normal()
        t = np.linspace(0, 1, 8)[:, None]
        return (1 - t) ** 2 * p0 + 2 * (1 - t) * t * c + t * t * p1

    def poly(self, pts, closed=False):
        pts = np.asarray(pts, float)
        if closed:
            if self.rect_loop or len(pts) != 4:
                r = self.rng
                q = np.vstack([pts, pts[:1]])
                q = q + r.normal(0, 0.008, q.shape)
                # closing overshoot or gap
                d = q[1] - q[0]
                e = self.over * r.random() * 1.5 - (0.04 if r.random() < self.gap else 0)
                q = np.vstack([q, q[-1] + d / (np.hypot(*d) + 1e-9) * e])
                return [q]
            return [self.L(pts[i], pts[(i + 1) % 4]) for i in range(4)]
        return [np.vstack([self.L(pts[i], pts[i + 1], ext=False) for i in range(len(pts) - 1)])]

    def rect(self, x0, y0, x1, y1):
        return self.poly([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], closed=True)

    def ell(self, cx, cy, rx, ry, a0=None, sweep=360.0):
        r = self.rng
        if a0 is None:
            a0 = r.uniform(0, 360)
        n = max(12, int(abs(sweep) / 10))
        t = np.radians(np.linspace(a0, a0 + sweep, n))
        # hand-drawn: radius drifts a little along the loop
        drift = 1 + 0.06 * np.sin(t * r.uniform(0.5, 1.5) + r.uniform(0, 6)) * r.random()
        return [np.stack([cx + rx * drift * np.cos(t), cy + ry * drift * np.sin(t)], 1)]

    def cross(self, cx, cy, h, w=None, bar=0.33):
        w = h * 0.7 if w is None else w
        yb = cy - h / 2 + bar * h
        return [self.L((cx, cy - h / 2), (cx, cy + h / 2)), self.L((cx - w / 2, yb), (cx + w / 2, yb))]

    # ---------------------------------------------------------- style choice
    def style(self, kind):
        lst = STYLES[kind]
        return lst[int(self.rng.choice(len(lst), p=self.fav[kind]))]

    def colour(self, kind):
        if self.colour_mix or len(self.colours) == 1:
            return int(self.rng.integers(len(self.colours))) if self.rng.random() < 0.25 else \
                self.colour_by_kind[kind]
        return self.colour_by_kind[kind]

    # ---------------------------------------------------------- rendering of strokes
    def transform(self, cell_x, cell_y, kind):
        r = self.rng
        s = self.size * (1 + r.normal(0, self.size_sd))
        if kind == 'wall':
            s = self.wall_fill * (1 + r.normal(0, 0.03))
        s = float(np.clip(s, 0.45, 1.04))
        ang = self.rot_bias + r.normal(0, self.rot_sd)
        off = self.pos_bias + r.normal(0, self.pos_sd, 2)
        lim = max(0.0, (1.06 - s) / 2)
        off = np.clip(off, -lim, lim)
        A = C * s * rot(ang) @ np.diag([1 + r.normal(0, 0.04), 1 + r.normal(0, 0.04)])
        t = np.array([(cell_x + 0.5 + off[0]) * C, (cell_y + 0.5 + off[1]) * C])
        return A, t

    def draw_stroke(self, ink, ci, pts_fp, A, t, wmul=1.0, alpha_mul=1.0):
        r = self.rng
        p = pts_fp @ A.T + t
        p, L = resample(p, 2.0)
        if L < 0.5:
            p = np.vstack([p[:1], p[:1] + 0.7])
        n = len(p)
        # wobble along the normal: slow waves + hand tremor
        tan = np.gradient(p, axis=0)
        tan /= (np.linalg.norm(tan, axis=1, keepdims=True) + 1e-9)
        nor = np.stack([-tan[:, 1], tan[:, 0]], 1)
        s = np.linspace(0, L / C, n)
        w = self.wobble * (np.sin(2 * np.pi * s * r.uniform(0.6, 2.2) + r.uniform(0, 6.3)) +
                           0.5 * np.sin(2 * np.pi * s * r.uniform(2.5, 5) + r.uniform(0, 6.3)))
        if self.tremor > 0 and n > 3:
            tr = r.normal(0, self.tremor, n)
            tr = np.convolve(tr, np.ones(3) / 3, 'same')
            w = w + tr
        p = p + nor * (w * C)[:, None]
        thick = self.pen * wmul * (1 + r.normal(0, 0.06))
        widths = None
        if n > 12 and r.random() < 0.5:
            widths = thick * (1 + 0.18 * r.normal(0, 1, max(2, n // 10)))
        a = self.alpha * alpha_mul * (1 + r.normal(0, 0.05))
        ink.polyline(ci, p, thick, a, widths)
        if r.random() < 0.25:  # marker rests at the stroke start: a darker dot
            ink.tmp.fill(0)
            c = np.round((p[0] - (ink.x0, ink.y0)) * 16).astype(int)
            cv2.circle(ink.tmp, tuple(int(v) for v in c), int(thick * 8 * 0.7), 255, -1, cv2.LINE_AA, 4)
            ink._target(ci)[:] += ink.tmp.astype(np.float32) * (0.25 / 255)
        if self.sketch and r.random() < self.sketch:  # second, slightly offset pass
            q = p + r.normal(0, 0.012 * C, 2) + r.normal(0, 0.3, p.shape)
            q = q[int(n * r.uniform(0, 0.2)): max(2, int(n * r.uniform(0.7, 1.0)))]
            if len(q) >= 2:
                ink.polyline(ci, q, thick * 0.85, a * 0.8)

    def glyph(self, ink, ci, ch, cx, cy, hgt, A, t):
        """draw one letter/digit at footprint position; returns the truth tag ('font:x' or 'strokes')."""
        r = self.rng
        font = None
        if self.font and r.random() < self.font_rate:
            font = self.font
            if ch.isupper() and font in glyphs.FANCY:
                font = None
        if font is not None:
            m = glyphs.font_mask(font, ch, hgt * np.linalg.norm(A[:, 0]), self.pen * 1.0)
            if m is not None:
                mh, mw = m.shape
                k = hgt / mh
                sl = self.slant * 0.5 + r.normal(0, 0.05)
                G = np.array([[k, -sl * k], [0, k]]) @ rot(r.normal(0, 0.05))
                c0 = np.array([mw / 2, mh / 2])
                Mq = np.hstack([G, (np.array([cx, cy]) - G @ c0)[:, None]])  # mask px -> footprint
                M = np.hstack([A @ Mq[:, :2], (A @ Mq[:, 2] + t)[:, None]])
                ink.mask(ci, cv2.GaussianBlur(m, (3, 3), 0.6), M, self.alpha * (1 + r.normal(0, 0.05)))
                return 'font:' + font
        strokes, aspect = glyphs.skeleton(ch, self.variant[ch] if r.random() < 0.85 else
                                          int(r.integers(len(glyphs.SKEL[ch]))))
        sl = self.slant + r.normal(0, 0.06)
        wx = 1 + r.normal(0, 0.08)
        G = np.array([[hgt * wx, -sl * hgt], [0, hgt]])
        for s in strokes:
            q = s @ G.T + (cx, cy)
            q = q + r.normal(0, 0.006, q.shape)
            self.draw_stroke(ink, ci, q, A, t)
        return 'strokes'

    # ---------------------------------------------------------- one drawing
    def drawing(self, ink, cell_x, cell_y, sym, ctx, style=None, alpha_mul=1.0, ci=None):
        """draw symbol sym in cell (cell_x, cell_y); returns 'kind.style[|src]'."""
        kind = KIND_OF[sym]
        style = style or self.style(kind)
        ci = self.colour(kind) if ci is None else ci
        A, t = self.transform(cell_x, cell_y, kind)
        if kind == 'wall' and self.wall_along and ctx.get('side') in ('left', 'right'):
            A = A @ rot(np.pi / 2)
        strokes, glyph = getattr(self, 'd_' + kind)(style, sym)
        for s in strokes:
            self.draw_stroke(ink, ci, s, A, t, alpha_mul=alpha_mul)
        tag = kind + '.' + (self.person_style(style) if kind == 'person' else style)
        if glyph is not None:
            ch, gx, gy, gh = glyph
            src = self.glyph(ink, ci, ch, gx, gy, gh, A, t)
            tag += '|' + src
        return tag

    # ---------------------------------------------------------- walls
    def d_wall(self, st, sym):
        r = self.rng
        hb = r.uniform(0.45, 0.95) if st not in ('solid', 'scribble') else r.uniform(0.4, 0.8)
        y0, y1 = -hb / 2, hb / 2
        x0, x1 = -0.5, 0.5
        out = []
        outline = r.random() < 0.8

        def clip_lines(angle, spacing):
            res = []
            d = np.array([np.cos(angle), np.sin(angle)])
            n = np.array([-d[1], d[0]])
            corners = np.array([(x0, y0), (x1, y0), (x1, y1), (x0, y1)])
            proj = corners @ n
            for o in np.arange(proj.min() + spacing * r.uniform(0.3, 0.8), proj.max(), spacing):
                # intersect line {p: p.n = o} with rect
                pts = []
                for i in range(4):
                    a, b = corners[i], corners[(i + 1) % 4]
                    da, db = a @ n - o, b @ n - o
                    if da * db < 0:
                        pts.append(a + (b - a) * da / (da - db))
                if len(pts) == 2:
                    res.append(self.L(pts[0], pts[1]))
            return res

        if st in ('bricks', 'bricks_stack'):
            n = int(r.integers(2, 5))
            if outline:
                out += self.rect(x0, y0, x1, y1)
            else:
                out += [self.L((x0, y0), (x1, y0)), self.L((x0, y1), (x1, y1))]
            ys = np.linspace(y0, y1, n + 1)
            for y in ys[1:-1]:
                out.append(self.L((x0, y), (x1, y)))
            k = int(r.integers(1, 4))
            for i in range(n):
                off = (0.5 if (st == 'bricks' and i % 2) else 0.0)
                for j in range(k + 1):
                    x = x0 + (j + 0.5 + off) / (k + 1) * (x1 - x0) if st == 'bricks' else \
                        x0 + (j + 1) / (k + 1) * (x1 - x0)
                    if x0 + 0.04 < x < x1 - 0.04:
                        out.append(self.L((x, ys[i]), (x, ys[i + 1]), ext=False))
        elif st == 'lines':
            n = int(r.integers(3, 6))
            for y in np.linspace(y0, y1, n):
                out.append(self.L((x0, y), (x1, y)))
            if r.random() < 0.4:
                out += [self.L((x0, y0), (x0, y1)), self.L((x1, y0), (x1, y1))]
        elif st in ('hatch', 'crosshatch'):
            if outline:
                out += self.rect(x0, y0, x1, y1)
            a = np.radians(r.choice([45, -45, 60, -60, 30, 120, 90]) + r.normal(0, 5))
            sp = r.uniform(0.09, 0.17) if st == 'hatch' else r.uniform(0.13, 0.22)
            out += clip_lines(a, sp)
            if st == 'crosshatch':
                out += clip_lines(a + np.radians(r.choice([90, 60, 75])), sp)
        elif st == 'solid':
            if outline:
                out += self.rect(x0, y0, x1, y1)
            sp = self.pen / C * r.uniform(0.9, 1.4)
            ys = np.arange(y0, y1, sp)
            pts = []
            for i, y in enumerate(ys):
                xa, xb = (x0, x1) if i % 2 == 0 else (x1, x0)
                pts += [(xa + r.normal(0, 0.02), y), (xb + r.normal(0, 0.02), y + sp / 2)]
            if len(pts) > 2:
                out.append(np.array(pts))
        elif st == 'scribble':
            if outline and r.random() < 0.6:
                out += self.rect(x0, y0, x1, y1)
            n = int(r.integers(14, 26))
            xs = np.linspace(x0 + 0.05, x1 - 0.05, n) + r.normal(0, 0.04, n)
            ys = np.where(np.arange(n) % 2 == 0, y0 + 0.04, y1 - 0.04) + r.normal(0, 0.05, n)
            p = np.stack([xs, ys], 1)
            out.append(chaikin(p, 2))
        elif st == 'crenel':
            k = int(r.integers(2, 5))
            dh = r.uniform(0.12, 0.25) * (y1 - y0) / 0.6
            top = y0 + dh
            pts = [(x0, y1), (x0, y0)]
            xs = np.linspace(x0, x1, 2 * k)
            for i in range(1, 2 * k - 1):
                yprev = y0 if (i - 1) % 2 == 0 else top
                ynew = top if yprev == y0 else y0
                pts += [(xs[i], yprev), (xs[i], ynew)]
            pts += [(x1, y0), (x1, y1), (x0, y1)]
            out += self.poly(pts)
            if r.random() < 0.6:
                ym = (top + y1) / 2
                out.append(self.L((x0, ym), (x1, ym), ext=False))
                for j in range(2):
                    xx = x0 + (j + 1) / 3 * (x1 - x0)
                    out.append(self.L((xx, top), (xx, ym), ext=False))
                    xx2 = x0 + (j + 0.5) / 2 * (x1 - x0)
                    out.append(self.L((xx2, ym), (xx2, y1), ext=False))
        elif st == 'zigzag':
            rows = int(r.integers(1, 4))
            if r.random() < 0.7:
                out += self.rect(x0, y0, x1, y1)
            ys = np.linspace(y0, y1, rows + 1)
            for i in range(rows):
                n = int(r.integers(4, 8))
                xs = np.linspace(x0 + 0.02, x1 - 0.02, n + 1)
                p = [(x, ys[i] + 0.03 if j % 2 == 0 else ys[i + 1] - 0.03) for j, x in enumerate(xs)]
                out.append(np.array(p))
        elif st == 'stones':
            if outline and r.random() < 0.6:
                out += self.rect(x0, y0, x1, y1)
            rows = int(r.integers(2, 4))
            hh = (y1 - y0) / rows
            for i in range(rows):
                k = int(r.integers(2, 4))
                ww = (x1 - x0) / k
                off = ww / 2 * (i % 2) * r.random()
                for j in range(k + 1):
                    cx = x0 + off + (j + 0.5) * ww - (ww / 2 if off else 0)
                    if cx < x0 + ww * 0.3 or cx > x1 - ww * 0.3:
                        continue
                    cy = y0 + (i + 0.5) * hh
                    out += self.ell(cx, cy, ww * 0.42, hh * 0.4, sweep=350 + r.uniform(0, 30))
        return out, None

    # ---------------------------------------------------------- crates
    def d_crate(self, st, sym):
        r = self.rng
        w = r.uniform(0.7, 1.0)
        h = w * r.uniform(0.65, 1.05) if r.random() < 0.6 else w
        x0, x1, y0, y1 = -w / 2, w / 2, -h / 2, h / 2
        out = []
        if st == 'cube':
            d = r.uniform(0.15, 0.28) * w
            fx0, fx1, fy0, fy1 = x0, x1 - d, y0 + d, y1
            out += self.rect(fx0, fy0, fx1, fy1)
            out += self.poly([(fx0, fy0), (fx0 + d, y0), (x1, y0), (fx1, fy0)])
            out += self.poly([(x1, y0), (x1, y1 - d), (fx1, fy1)])
            if r.random() < 0.4:
                out += [self.L((fx0, fy0), (fx1, fy1)), self.L((fx1, fy0), (fx0, fy1))]
            return out, None
        out += self.rect(x0, y0, x1, y1)
        if st == 'cross':
            out += [self.L((x0, y0), (x1, y1)), self.L((x1, y0), (x0, y1))]
        elif st == 'diag':
            out += [self.L((x0, y0), (x1, y1)) if r.random() < 0.5 else self.L((x1, y0), (x0, y1))]
        elif st == 'planks':
            n = int(r.integers(1, 4))
            vert = r.random() < 0.3
            for i in range(1, n + 1):
                f = i / (n + 1)
                if vert:
                    x = x0 + f * w
                    out.append(self.L((x, y0), (x, y1), ext=False))
                else:
                    y = y0 + f * h
                    out.append(self.L((x0, y), (x1, y), ext=False))
        elif st == 'braced':
            a = y0 + h * 0.22
            b = y1 - h * 0.22
            out += [self.L((x0, a), (x1, a), ext=False), self.L((x0, b), (x1, b), ext=False),
                    self.L((x0, b), (x1, a), ext=False)]
        elif st == 'framed':
            m = min(w, h) * r.uniform(0.14, 0.22)
            out += self.rect(x0 + m, y0 + m, x1 - m, y1 - m)
            out += [self.L((x0 + m, y0 + m), (x1 - m, y1 - m), ext=False),
                    self.L((x1 - m, y0 + m), (x0 + m, y1 - m), ext=False)]
        return out, None

    # ---------------------------------------------------------- houses
    def _house(self, w, hb, hr, eaves=0.0, outline=False, yb=0.5):
        x0, x1 = -w / 2, w / 2
        ytop = yb - hb
        apex = (self.rng.normal(0, 0.02), ytop - hr)
        if outline:
            return self.poly([(x0, yb), (x0, ytop), apex, (x1, ytop), (x1, yb), (x0, yb)]), ytop, apex
        out = self.rect(x0, ytop, x1, yb)
        out += self.poly([(x0 - eaves, ytop + eaves * 0.5), apex, (x1 + eaves, ytop + eaves * 0.5)])
        return out, ytop, apex

    def d_house(self, st, sym):
        r = self.rng
        w = r.uniform(0.55, 0.85)
        H = r.uniform(0.85, 1.0)
        hb = H * r.uniform(0.45, 0.6)
        hr = H - hb
        yb = H / 2
        eaves = r.uniform(0.06, 0.14) if st == 'eaves' else 0.0
        out, ytop, apex = self._house(w, hb, hr, eaves, outline=(st == 'outline'), yb=yb)
        x1 = w / 2
        door = st in ('door', 'detailed') or (st == 'eaves' and r.random() < 0.5)
        win = st in ('window', 'detailed')
        if door:
            dw = w * r.uniform(0.22, 0.32)
            dx = r.uniform(-0.15, 0.15) * w if not win else w * 0.18
            dh = hb * r.uniform(0.45, 0.65)
            out += self.poly([(dx - dw / 2, yb), (dx - dw / 2, yb - dh), (dx + dw / 2, yb - dh),
                              (dx + dw / 2, yb)])
        if win:
            ww = w * r.uniform(0.18, 0.26)
            two = (not door) and r.random() < 0.5
            cy = ytop + hb * 0.38
            panes = r.random() < 0.5
            for cx in ([-w * 0.22] if door else [-w * 0.2, w * 0.2] if two else [0.0]):
                out += self.rect(cx - ww / 2, cy - ww / 2, cx + ww / 2, cy + ww / 2)
                if panes:
                    out += [self.L((cx, cy - ww / 2), (cx, cy + ww / 2), ext=False),
                            self.L((cx - ww / 2, cy), (cx + ww / 2, cy), ext=False)]
        if st in ('chimney', 'detailed'):
            f = r.uniform(0.45, 0.7)
            cxl = x1 - (x1 - 0) * f
            ch_w = w * 0.13
            ybase_l = ytop - hr * (1 - (cxl - 0) / (x1 - 0)) if x1 else ytop
            ybase_r = ytop - hr * (1 - (cxl + ch_w) / x1)
            yt = min(ybase_l, ybase_r) - hr * 0.35
            out += self.poly([(cxl, ybase_l), (cxl, yt), (cxl + ch_w, yt), (cxl + ch_w, ybase_r)])
        if st == 'roof_fill':
            # hatch the roof triangle
            n = int(r.integers(4, 9))
            for i in range(1, n):
                f = i / n
                y = apex[1] + f * (ytop - apex[1])
                half = f * w / 2
                out.append(self.L((-half, y), (half, y), ext=False))
        return out, None

    # ---------------------------------------------------------- churches
    def d_church(self, st, sym):
        r = self.rng
        gh = self.glyph_h * r.uniform(0.9, 1.1)
        out = []
        if st == 'box_cross':
            w, h = r.uniform(0.75, 1.0), r.uniform(0.75, 1.0)
            out += self.rect(-w / 2, -h / 2, w / 2, h / 2)
            if r.random() < 0.5:  # cross left, digit right
                out += self.cross(-w * 0.24, 0, h * 0.55, h * 0.35)
                g = (sym, w * 0.2, 0.0, min(gh, h * 0.6))
            else:  # cross on top, digit below
                out += self.cross(0, -h * 0.24, h * 0.36, h * 0.3)
                g = (sym, 0.0, h * 0.2, min(gh * 0.8, h * 0.45))
        elif st == 'cross_beside':
            side = 1 if r.random() < 0.7 else -1
            out += self.cross(-0.22 * side, 0, r.uniform(0.55, 0.85))
            g = (sym, 0.22 * side, r.uniform(-0.05, 0.1), gh)
        elif st == 'cross_above':
            ch = r.uniform(0.3, 0.42)
            out += self.cross(0, -0.5 + ch / 2 + 0.03, ch)
            g = (sym, 0.0, 0.5 - gh * 0.8 / 2 - 0.05, gh * 0.8)
        elif st == 'digit_box':
            w = r.uniform(0.55, 0.85)
            out += self.rect(-w / 2, -w / 2, w / 2, w / 2)
            if r.random() < 0.4:  # with a little cross on the box top
                out += self.cross(0, -w / 2 - 0.1, 0.2, 0.14, bar=0.4)
            g = (sym, 0.0, 0.0, min(gh, w * 0.75))
        elif st in ('shape', 'tower'):
            w = r.uniform(0.6, 0.85)
            if st == 'shape':
                hb = r.uniform(0.56, 0.66)
                hr = r.uniform(0.14, 0.2)
                w = r.uniform(0.72, 0.9)
                yb = 0.5
                o, ytop, apex = self._house(w, hb, hr, yb=yb)
                out += o
                out += self.cross(apex[0], apex[1] - 0.1, 0.2, 0.14, bar=0.4)
                g = (sym, 0.0, yb - hb / 2, min(gh, hb * 0.8))
            else:
                w = r.uniform(0.85, 1.0)
                tw = w * 0.27
                hb = r.uniform(0.55, 0.64)
                yb = 0.5
                x0, x1 = -w / 2, w / 2
                out += self.rect(x0 + tw, yb - hb, x1, yb)
                out += self.poly([(x0 + tw, yb - hb), ((x0 + tw + x1) / 2, yb - hb - 0.12), (x1, yb - hb)])
                tt = yb - hb - 0.16
                out += self.poly([(x0 + tw, yb), (x0, yb), (x0, tt), (x0 + tw, tt), (x0 + tw, yb - hb)])
                out += self.poly([(x0, tt), (x0 + tw / 2, tt - 0.1), (x0 + tw, tt)])
                out += self.cross(x0 + tw / 2, tt - 0.17, 0.14, 0.1, bar=0.4)
                g = (sym, (x0 + tw + x1) / 2, yb - hb / 2, min(gh, hb * 0.8))
        else:  # big_cross with the digit in a quadrant
            hc = r.uniform(0.85, 1.0)
            out += self.cross(-0.2, 0, hc, 0.6, bar=0.3)
            g = (sym, 0.2, 0.22, gh * 0.7)
        return out, g

    # ---------------------------------------------------------- persons
    def d_person(self, st, sym):
        r = self.rng
        up = self.upper if r.random() > self.case_mix else not self.upper
        ch = sym.upper() if up else sym
        self._case = 'upper' if up else 'lower'
        rad = r.uniform(0.36, 0.48)
        rx, ry = rad, rad
        gh = rad * r.uniform(1.15, 1.45) * (1.0 if up else 0.85)
        out = []
        if st == 'oval':
            if r.random() < 0.6:
                ry = rad * r.uniform(0.72, 0.88)
            else:
                rx = rad * r.uniform(0.72, 0.88)
            gh = min(gh, 1.6 * ry)
        if st == 'open':
            gapd = r.uniform(35, 80)
            out += self.ell(0, 0, rx, ry, a0=r.choice([-60, 250, 300, 200]) + gapd / 2, sweep=360 - gapd)
        elif st == 'overshoot':
            out += self.ell(0, 0, rx, ry, sweep=360 + r.uniform(30, 90))
        elif st == 'retraced':
            out += self.ell(0, 0, rx, ry, sweep=360 + r.uniform(0, 30))
            out += self.ell(r.normal(0, 0.02), r.normal(0, 0.02), rx * r.uniform(0.93, 1.05),
                            ry * r.uniform(0.93, 1.05), sweep=r.uniform(200, 360))
        elif st == 'big_letter':
            rx, ry = rad * 1.08, rad * 1.08
            out += self.ell(0, 0, rx, ry, sweep=360 + r.uniform(-10, 25))
            gh = 1.55 * rad * (1.0 if up else 0.85)
        else:
            out += self.ell(0, 0, rx, ry, sweep=360 + r.uniform(-8, 20))
        return out, (ch, r.normal(0, 0.02), r.normal(0, 0.02), gh)

    # name used in truth for persons (with case)
    def person_style(self, st):
        return st + '_' + self._case
