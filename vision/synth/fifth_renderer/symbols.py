"""What a hand draws in one cell: each style returns ops in unit cell coordinates (x right, y down).

Ops: ("line", points, width_factor), ("fill", points, density), ("glyph", char, (x0, y0, x1, y1)).
"""

import numpy as np


def _box(x0, y0, x1, y1):
    return [(x0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, y0)]


def _line(*pts, w=1.0):
    return ("line", [tuple(p) for p in pts], w)


def _band(rng):
    """Top and bottom of a wall band, sometimes filling the whole cell."""
    if rng.random() < 0.35:
        return 0.05, 0.95
    h = rng.uniform(0.4, 0.8)
    top = rng.uniform(0.05, 0.95 - h)
    return top, top + h


# ---- walls ------------------------------------------------------------------------------------

def _bricks(rng, offset: bool, y0=None, y1=None):
    if y0 is None:
        y0, y1 = _band(rng)
    rows = int(rng.integers(2, 5))
    ops = [("line", _box(0.05, y0, 0.95, y1), 1.0)] if rng.random() < 0.8 else []
    h = (y1 - y0) / rows
    per_row = int(rng.integers(2, 4))
    for k in range(rows):
        ya, yb = y0 + k * h, y0 + (k + 1) * h
        if k:
            ops.append(_line((0.05, ya), (0.95, ya)))
        shift = 0.5 / per_row if offset and k % 2 else 0.0
        for j in range(per_row + 1):
            x = 0.05 + 0.9 * (j / per_row + shift)
            if 0.1 < x < 0.9:
                ops.append(_line((x, ya), (x, yb)))
    return ops


def wall_bricks_offset(rng):
    return _bricks(rng, True)


def wall_bricks_stacked(rng):
    return _bricks(rng, False)


def _hatch_lines(rng, x0, y0, x1, y1, angle, spacing):
    """Parallel lines at ``angle`` (degrees) clipped to a box."""
    d = np.array([np.cos(np.radians(angle)), np.sin(np.radians(angle))])
    n = np.array([-d[1], d[0]])
    centre = np.array([(x0 + x1) / 2, (y0 + y1) / 2])
    reach = np.hypot(x1 - x0, y1 - y0) / 2
    ops = []
    for t in np.arange(-reach, reach, spacing) + rng.uniform(0, spacing):
        p = centre + n * t
        pts = []
        for s in np.linspace(-reach, reach, 40):
            q = p + d * s
            if x0 <= q[0] <= x1 and y0 <= q[1] <= y1:
                pts.append(q)
        if len(pts) >= 2:
            ops.append(_line(pts[0], pts[-1], w=0.8))
    return ops


def wall_hatch(rng):
    y0, y1 = _band(rng)
    ops = [("line", _box(0.05, y0, 0.95, y1), 1.0)] if rng.random() < 0.6 else []
    return ops + _hatch_lines(rng, 0.05, y0, 0.95, y1, rng.choice([45, 135, 60, 120]), rng.uniform(0.1, 0.18))


def wall_crosshatch(rng):
    y0, y1 = _band(rng)
    s = rng.uniform(0.12, 0.2)
    ops = [("line", _box(0.05, y0, 0.95, y1), 1.0)] if rng.random() < 0.5 else []
    return ops + _hatch_lines(rng, 0.05, y0, 0.95, y1, 45, s) + _hatch_lines(rng, 0.05, y0, 0.95, y1, 135, s)


def wall_band_solid(rng):
    y0, y1 = _band(rng)
    y1 = min(y1, y0 + rng.uniform(0.25, 0.7))
    box = _box(0.06, y0, 0.94, y1)
    return [("fill", box[:4], rng.uniform(0.6, 1.0)), ("line", box, 1.0)]


def _teeth_profile(rng, y_top, y_notch, n=None):
    n = n or int(rng.integers(2, 5))
    w = 0.9 / (2 * n - 1)
    pts = [(0.05, y_top)]
    x = 0.05
    for k in range(2 * n - 1):
        y = y_top if k % 2 == 0 else y_notch
        pts += [(x, y), (x + w, y)]
        x += w
        nxt = y_notch if k % 2 == 0 else y_top
        if k < 2 * n - 2:
            pts.append((x, nxt))
    return pts


def wall_crenel_line(rng):
    y = rng.uniform(0.25, 0.55)
    return [("line", _teeth_profile(rng, y, y + rng.uniform(0.15, 0.3)), 1.0)]


def wall_crenel_outline(rng):
    top = rng.uniform(0.08, 0.3)
    bottom = rng.uniform(0.75, 0.95)
    prof = _teeth_profile(rng, top, top + rng.uniform(0.12, 0.25))
    return [("line", prof + [(0.95, bottom), (0.05, bottom), prof[0]], 1.0)]


def wall_crenel_band(rng):
    top = rng.uniform(0.1, 0.3)
    notch = top + rng.uniform(0.12, 0.22)
    bottom = rng.uniform(0.7, 0.95)
    prof = _teeth_profile(rng, top, notch)
    outline = prof + [(0.95, bottom), (0.05, bottom)]
    return [("fill", outline, rng.uniform(0.5, 0.95)), ("line", outline + [prof[0]], 1.0)]


def wall_crenel_bricks(rng):
    top = rng.uniform(0.08, 0.22)
    notch = top + rng.uniform(0.12, 0.2)
    bottom = rng.uniform(0.78, 0.95)
    prof = _teeth_profile(rng, top, notch)
    ops = [("line", prof + [(0.95, bottom), (0.05, bottom), prof[0]], 1.0)]
    return ops + [op for op in _bricks(rng, rng.random() < 0.7, notch, bottom) if op[1][0][1] > notch + 0.01]


def _zigzag(x0, x1, y0, y1, n):
    xs = np.linspace(x0, x1, 2 * n + 1)
    return [(x, y0 if k % 2 else y1) for k, x in enumerate(xs)]


def wall_zigzag_line(rng):
    y = rng.uniform(0.3, 0.5)
    return [("line", _zigzag(0.05, 0.95, y, y + rng.uniform(0.2, 0.4), int(rng.integers(2, 6))), 1.0)]


def wall_zigzag_triangles(rng):
    y1 = rng.uniform(0.6, 0.85)
    y0 = y1 - rng.uniform(0.25, 0.45)
    zig = _zigzag(0.05, 0.95, y0, y1, int(rng.integers(2, 5)))
    ops = [("line", zig + [zig[0]], 1.0)]
    if rng.random() < 0.3:
        ops.insert(0, ("fill", zig, 0.7))
    return ops


def wall_zigzag_rows(rng):
    rows = int(rng.integers(2, 4))
    n = int(rng.integers(2, 5))
    h = rng.uniform(0.12, 0.2)
    return [("line", _zigzag(0.05, 0.95, y, y + h, n), 1.0)
            for y in np.linspace(0.1, 0.85 - h, rows)]


def wall_stones(rng):
    y0, y1 = _band(rng)
    ops = []
    rows = int(rng.integers(2, 4))
    h = (y1 - y0) / rows
    for k in range(rows):
        x = 0.05 + rng.uniform(0, 0.08)
        while x < 0.85:
            w = rng.uniform(0.18, 0.35)
            cx, cy = x + w / 2, y0 + (k + 0.5) * h
            t = np.linspace(0, 2 * np.pi, 10)
            r = 1 + rng.normal(0, 0.12, t.size)
            r[-1] = r[0]
            ops.append(("line", list(zip(cx + w / 2 * 0.9 * r * np.cos(t), cy + h / 2 * 0.85 * r * np.sin(t),
                                         strict=True)), 0.9))
            x += w + rng.uniform(0.0, 0.05)
    return ops


def wall_stripes(rng):
    n = int(rng.integers(2, 6))
    return [_line((0.05, y), (0.95, y)) for y in np.linspace(0.15, 0.85, n)]


def wall_edge_line(rng):
    """A thick line along the cell side facing the board's edge (unit top = outside)."""
    y = rng.uniform(0.06, 0.2)
    ops = [("line", [(0.04, y), (0.96, y)], rng.uniform(2.0, 3.5))]
    if rng.random() < 0.4:
        ops.append(("line", [(0.04, y + 0.12), (0.96, y + 0.12)], 1.0))
    return ops


WALL = {"bricks_offset": wall_bricks_offset, "bricks_stacked": wall_bricks_stacked, "hatch": wall_hatch,
        "crosshatch": wall_crosshatch, "band_solid": wall_band_solid, "crenel_line": wall_crenel_line,
        "crenel_outline": wall_crenel_outline, "crenel_band": wall_crenel_band,
        "crenel_bricks": wall_crenel_bricks, "zigzag_line": wall_zigzag_line,
        "zigzag_triangles": wall_zigzag_triangles, "zigzag_rows": wall_zigzag_rows, "stones": wall_stones,
        "stripes": wall_stripes, "edge_line": wall_edge_line}


# ---- crates -----------------------------------------------------------------------------------

def _crate_box(rng):
    if rng.random() < 0.6:
        s = rng.uniform(0.6, 0.9)
        return 0.5 - s / 2, 0.5 - s / 2, 0.5 + s / 2, 0.5 + s / 2
    w, h = rng.uniform(0.6, 0.92), rng.uniform(0.4, 0.7)
    return 0.5 - w / 2, 0.5 - h / 2, 0.5 + w / 2, 0.5 + h / 2


def crate_cross(rng):
    x0, y0, x1, y1 = _crate_box(rng)
    return [("line", _box(x0, y0, x1, y1), 1.0), _line((x0, y0), (x1, y1)), _line((x1, y0), (x0, y1))]


def crate_planks(rng):
    x0, y0, x1, y1 = _crate_box(rng)
    n = int(rng.integers(1, 5))
    ops = [("line", _box(x0, y0, x1, y1), 1.0)]
    upright = rng.random() < 0.4
    for t in np.linspace(0, 1, n + 2)[1:-1]:
        if upright:
            x = x0 + t * (x1 - x0)
            ops.append(_line((x, y0), (x, y1)))
        else:
            y = y0 + t * (y1 - y0)
            ops.append(_line((x0, y), (x1, y)))
    return ops


def crate_cube(rng):
    s = rng.uniform(0.45, 0.65)
    d = rng.uniform(0.15, 0.25)
    x0, y0 = 0.5 - (s + d) / 2, 0.5 - (s - d) / 2
    front = _box(x0, y0, x0 + s, y0 + s)
    top = [(x0, y0), (x0 + d, y0 - d), (x0 + s + d, y0 - d), (x0 + s, y0)]
    side = [(x0 + s + d, y0 - d), (x0 + s + d, y0 + s - d), (x0 + s, y0 + s)]
    return [("line", front, 1.0), ("line", top, 1.0), ("line", side, 1.0)]


def crate_bare(rng):
    return [("line", _box(*_crate_box(rng)), 1.0)]


def crate_diagonal(rng):
    x0, y0, x1, y1 = _crate_box(rng)
    return [("line", _box(x0, y0, x1, y1), 1.0), _line((x0, y1), (x1, y0))]


def crate_zbrace(rng):
    x0, y0, x1, y1 = _crate_box(rng)
    a, b = y0 + 0.2 * (y1 - y0), y0 + 0.8 * (y1 - y0)
    return [("line", _box(x0, y0, x1, y1), 1.0), ("line", [(x0, a), (x1, a), (x0, b), (x1, b)], 1.0)]


def crate_box_in_box(rng):
    x0, y0, x1, y1 = _crate_box(rng)
    m = rng.uniform(0.08, 0.14)
    return [("line", _box(x0, y0, x1, y1), 1.0), ("line", _box(x0 + m, y0 + m, x1 - m, y1 - m), 0.9)]


def crate_filled(rng):
    x0, y0, x1, y1 = _crate_box(rng)
    box = _box(x0, y0, x1, y1)
    if rng.random() < 0.5:
        return [("fill", box[:4], rng.uniform(0.5, 0.9)), ("line", box, 1.0)]
    return [("line", box, 1.0)] + _hatch_lines(rng, x0, y0, x1, y1, rng.choice([45, 135, 0]), 0.1)


CRATE = {"cross": crate_cross, "planks": crate_planks, "cube": crate_cube, "bare": crate_bare,
         "diagonal": crate_diagonal, "zbrace": crate_zbrace, "box_in_box": crate_box_in_box, "filled": crate_filled}


# ---- houses -----------------------------------------------------------------------------------

def _house_frame(rng):
    w = rng.uniform(0.5, 0.8)
    x0, x1 = 0.5 - w / 2, 0.5 + w / 2
    top = rng.uniform(0.05, 0.2)
    eave = top + rng.uniform(0.2, 0.35)
    bottom = rng.uniform(0.82, 0.95)
    return x0, x1, top, eave, bottom


def _pentagon(x0, x1, top, eave, bottom):
    return [(x0, bottom), (x0, eave), ((x0 + x1) / 2, top), (x1, eave), (x1, bottom), (x0, bottom)]


def house_pentagon(rng):
    return [("line", _pentagon(*_house_frame(rng)), 1.0)]


def house_door(rng):
    x0, x1, top, eave, bottom = _house_frame(rng)
    cx, dw, dh = (x0 + x1) / 2 + rng.uniform(-0.1, 0.1), rng.uniform(0.1, 0.16), rng.uniform(0.2, 0.3)
    return [("line", _pentagon(x0, x1, top, eave, bottom), 1.0),
            ("line", [(cx - dw, bottom), (cx - dw, bottom - dh), (cx + dw, bottom - dh), (cx + dw, bottom)], 0.9)]


def house_windows(rng):
    x0, x1, top, eave, bottom = _house_frame(rng)
    ops = [("line", _pentagon(x0, x1, top, eave, bottom), 1.0)]
    s = rng.uniform(0.08, 0.12)
    ym = (eave + bottom) / 2
    for cx in ((x0 * 2 + x1) / 3, (x0 + 2 * x1) / 3)[: int(rng.integers(1, 3))]:
        ops.append(("line", _box(cx - s, ym - s, cx + s, ym + s), 0.8))
    return ops


def house_chimney(rng):
    x0, x1, top, eave, bottom = _house_frame(rng)
    cx = x0 + 0.75 * (x1 - x0)
    ry = top + (eave - top) * 0.5
    return [("line", _pentagon(x0, x1, top, eave, bottom), 1.0),
            ("line", [(cx - 0.05, ry), (cx - 0.05, top - 0.02), (cx + 0.05, top - 0.02), (cx + 0.05, ry + 0.05)], 0.9)]


def house_roof_filled(rng):
    x0, x1, top, eave, bottom = _house_frame(rng)
    roof = [(x0 - 0.04, eave), ((x0 + x1) / 2, top), (x1 + 0.04, eave)]
    ops = [("line", [(x0, eave), (x0, bottom), (x1, bottom), (x1, eave)], 1.0), ("line", roof + [roof[0]], 1.0)]
    if rng.random() < 0.5:
        ops.insert(0, ("fill", roof, rng.uniform(0.6, 1.0)))
    else:
        ops += _hatch_lines(rng, x0 + 0.05, top + 0.05, x1 - 0.05, eave - 0.02, 0, 0.07)[:4]
    return ops


def house_roof_on_square(rng):
    x0, x1, top, eave, bottom = _house_frame(rng)
    gap = rng.uniform(0.0, 0.04)
    return [("line", _box(x0, eave + gap, x1, bottom), 1.0),
            ("line", [(x0 - 0.05, eave), ((x0 + x1) / 2, top), (x1 + 0.05, eave), (x0 - 0.05, eave)], 1.0)]


def house_full(rng):
    """Outline with door, a window and sometimes a chimney, all on one frame."""
    x0, x1, top, eave, bottom = _house_frame(rng)
    cx = (x0 + x1) / 2
    ops = [("line", _pentagon(x0, x1, top, eave, bottom), 1.0),
           ("line", [(cx - 0.15, bottom), (cx - 0.15, bottom - 0.25), (cx - 0.02, bottom - 0.25),
                     (cx - 0.02, bottom)], 0.9),
           ("line", _box(cx + 0.06, eave + 0.08, cx + 0.2, eave + 0.2), 0.8)]
    if rng.random() < 0.6:
        chim = x0 + 0.25 * (x1 - x0)
        ry = top + (eave - top) * 0.5
        ops.append(("line", [(chim - 0.05, ry + 0.05), (chim - 0.05, top - 0.02), (chim + 0.05, top - 0.02),
                             (chim + 0.05, ry)], 0.9))
    return ops


HOUSE = {"pentagon": house_pentagon, "door": house_door, "windows": house_windows, "chimney": house_chimney,
         "roof_filled": house_roof_filled, "roof_on_square": house_roof_on_square, "full": house_full}


# ---- churches (digit given) --------------------------------------------------------------------

def _cross(cx, cy, h):
    return [_line((cx, cy - h / 2), (cx, cy + h / 2)), _line((cx - h * 0.35, cy - h * 0.15), (cx + h * 0.35, cy - h * 0.15))]


def church_chapel(rng, digit):
    w = rng.uniform(0.5, 0.7)
    x0, x1 = 0.5 - w / 2, 0.5 + w / 2
    top, eave, bottom = rng.uniform(0.22, 0.3), rng.uniform(0.4, 0.48), rng.uniform(0.88, 0.96)
    ops = [("line", _pentagon(x0, x1, top, eave, bottom), 1.0)] + _cross(0.5, top - 0.1, 0.18)
    return ops + [("glyph", digit, (x0 + 0.08, eave + 0.03, x1 - 0.08, bottom - 0.05))]


def church_cross_beside(rng, digit):
    left = rng.random() < 0.6
    cx = 0.27 if left else 0.73
    gx = (0.5, 0.12, 0.9, 0.88) if left else (0.1, 0.12, 0.5, 0.88)
    return _cross(cx, 0.5, rng.uniform(0.55, 0.8)) + [("glyph", digit, gx)]


def church_cross_above(rng, digit):
    return _cross(0.5, 0.2, 0.34) + [("glyph", digit, (0.25, 0.42, 0.75, 0.95))]


def church_digit_box(rng, digit):
    s = rng.uniform(0.6, 0.85)
    ops = [("line", _box(0.5 - s / 2, 0.5 - s / 2, 0.5 + s / 2, 0.5 + s / 2), 1.0)]
    if rng.random() < 0.5:
        ops += _cross(0.5, 0.5 - s / 2 - 0.1, 0.26)
    return ops + [("glyph", digit, (0.5 - s / 2 + 0.1, 0.5 - s / 2 + 0.1, 0.5 + s / 2 - 0.1, 0.5 + s / 2 - 0.1))]


def church_circle_cross(rng, digit):
    r = rng.uniform(0.28, 0.36)
    t = np.linspace(0, 2 * np.pi, 24)
    circle = list(zip(0.5 + r * np.cos(t), 0.58 + r * np.sin(t), strict=True))
    return [("line", circle, 1.0)] + _cross(0.5, 0.58 - r - 0.1, 0.28) + [
        ("glyph", digit, (0.5 - r * 0.6, 0.58 - r * 0.65, 0.5 + r * 0.6, 0.58 + r * 0.65))]


CHURCH = {"chapel": church_chapel, "cross_beside": church_cross_beside, "cross_above": church_cross_above,
          "digit_box": church_digit_box, "circle_cross": church_circle_cross}


# ---- persons (letter given) --------------------------------------------------------------------

def _ring(rng, r, rx_scale=1.0, gap=0.0, overshoot=0.0):
    a0 = rng.uniform(0, 2 * np.pi)
    t = np.linspace(a0 + gap, a0 + 2 * np.pi + overshoot, 30)
    rr = r * (1 + rng.normal(0, 0.02))
    return list(zip(0.5 + rr * rx_scale * np.cos(t), 0.5 + rr * np.sin(t), strict=True))


def _letter_box(r):
    k = r * 0.62
    return (0.5 - k, 0.5 - k * 1.05, 0.5 + k, 0.5 + k * 1.05)


def person_circle(rng, letter):
    r = rng.uniform(0.33, 0.46)
    return [("line", _ring(rng, r), 1.0), ("glyph", letter, _letter_box(r))]


def person_circle_gap(rng, letter):
    r = rng.uniform(0.33, 0.46)
    return [("line", _ring(rng, r, gap=rng.uniform(0.4, 1.2)), 1.0), ("glyph", letter, _letter_box(r))]


def person_oval(rng, letter):
    r = rng.uniform(0.33, 0.45)
    sx = rng.uniform(0.7, 1.2)
    return [("line", _ring(rng, r, rx_scale=sx), 1.0), ("glyph", letter, _letter_box(r * min(1.0, sx)))]


def person_double(rng, letter):
    r = rng.uniform(0.36, 0.46)
    return [("line", _ring(rng, r), 1.0), ("line", _ring(rng, r - 0.06), 0.9), ("glyph", letter, _letter_box(r - 0.06))]


def person_loose(rng, letter):
    r = rng.uniform(0.34, 0.47)
    return [("line", _ring(rng, r, overshoot=rng.uniform(0.3, 1.0)), 1.0), ("glyph", letter, _letter_box(r * 1.05))]


PERSON = {"circle": person_circle, "circle_gap": person_circle_gap, "oval": person_oval,
          "double": person_double, "loose": person_loose}

STYLES = {"wall": WALL, "crate": CRATE, "house": HOUSE, "church": CHURCH, "person": PERSON}


def kind_of(char: str) -> str:
    if char == "W":
        return "wall"
    if char == "G":
        return "crate"
    if char == "H":
        return "house"
    if char in "12345":
        return "church"
    return "person"
