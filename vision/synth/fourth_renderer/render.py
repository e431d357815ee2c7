"""Synthetic photos of Saint Malo city boards (fourth, independent renderer).

    python render.py --out DIR --boards N --seed S [--start K] [--debug]
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

cv2.setNumThreads(1)

import board as bd  # noqa: E402
import glyphs  # noqa: E402
from camera import shoot  # noqa: E402
from hand import C, Hand, Ink  # noqa: E402

DETECTOR = cv2.aruco.ArucoDetector(bd.ARUCO, cv2.aruco.DetectorParameters())


def draw_board(rng):
    """city, seat, styles and the canonical (pre-camera) board image."""
    city = bd.make_city(rng)
    seat = int(rng.integers(4))
    h = Hand(rng, fonts_ok=bool(glyphs.FONTS))
    prn, alpha = bd.board_print(rng)
    ink = Ink(bd.S, len(h.colours))
    styles = {}
    ghost_rate = rng.uniform(0, 0.35) if rng.random() < 0.7 else 0.0
    smudge_rate = rng.uniform(0, 0.2)
    for row in range(7):
        for col in range(7):
            ch = city[row][col]
            if ch == '#' or (col, row) in bd.PRINTED_CRATES:
                continue
            x0 = max(0, int(bd.M + (col - 0.3) * C))
            y0 = max(0, int(bd.M + (row - 0.3) * C))
            x1 = min(bd.S, int(bd.M + (col + 1.3) * C))
            y1 = min(bd.S, int(bd.M + (row + 1.3) * C))
            ink.roi(x0, y0, x1 - x0, y1 - y0)
            # canonical cell origin in cell units (hand.transform works in cell units incl. margin)
            cx, cy = col + bd.M / C, row + bd.M / C
            ctx = {'side': bd.side_of(col, row), 'outer': bd.is_outer(col, row)}
            if ch != '.':
                styles[bd.cell_name(col, row)] = h.drawing(ink, cx, cy, ch, ctx)
            else:
                if rng.random() < ghost_rate:
                    _ghost(rng, h, ink, cx, cy, ctx)
                if rng.random() < smudge_rate:
                    _smudge(rng, h, ink, cx, cy)
    if h.dry > 0:
        ink.dens *= bd.dry_texture(rng, (bd.S, bd.S), h.dry)[None]
    img = bd.composite_ink(prn, ink.dens, h.ink_rgb, rng)
    img = bd.add_stickers(img, seat, rng)
    return city, seat, styles, img, alpha


def _ghost(rng, h, ink, cx, cy, ctx):
    """a half-erased earlier drawing: faint, blurred, partial."""
    syms = list('GH12345cspamjn') + (['W'] * 4 if ctx['outer'] else [])
    sym = syms[int(rng.integers(len(syms)))]
    ink.ghost = np.zeros((ink.h, ink.w), np.float32)
    ci = int(rng.integers(len(h.colours)))
    h.drawing(ink, cx, cy, sym, ctx, ci=ci)
    g = ink.ghost
    ink.ghost = None
    keep = bd.noise(rng, ink.h, ink.w, int(rng.integers(6, 20))) + rng.uniform(-0.6, 0.9)
    keep = np.clip(keep * 2, 0, 1)
    g = cv2.GaussianBlur(g * keep, (0, 0), rng.uniform(0.8, 2.5)) * rng.uniform(0.06, 0.28)
    ink.dens[ci, ink.y0:ink.y0 + ink.h, ink.x0:ink.x0 + ink.w] += g


def _smudge(rng, h, ink, cx, cy):
    ci = int(rng.integers(len(h.colours)))
    g = np.zeros((ink.h, ink.w), np.float32)
    for _ in range(int(rng.integers(1, 4))):
        p = np.array([(cx - ink.x0 / C + rng.uniform(0.1, 0.9)) * C, (cy - ink.y0 / C + rng.uniform(0.1, 0.9)) * C])
        q = p + rng.normal(0, 0.25 * C, 2)
        cv2.line(g, tuple(int(v) for v in p), tuple(int(v) for v in q), 1.0, int(rng.uniform(4, 14)), cv2.LINE_AA)
    g = cv2.GaussianBlur(g, (0, 0), rng.uniform(2, 6)) * rng.uniform(0.05, 0.18)
    ink.dens[ci, ink.y0:ink.y0 + ink.h, ink.x0:ink.x0 + ink.w] += g


def markers_ok(photo, seat):
    gray = cv2.cvtColor(photo, cv2.COLOR_RGB2GRAY)
    corners, ids, _ = DETECTOR.detectMarkers(gray)
    got = set() if ids is None else set(int(i) for i in ids.ravel())
    return all(4 * seat + k in got for k in range(4))


def debug_image(img, city, styles):
    im = (np.clip(img, 0, 1) * 255).astype(np.uint8)[..., ::-1].copy()
    for row in range(7):
        for col in range(7):
            x, y = bd.M + col * C, bd.M + row * C
            cv2.putText(im, city[row][col], (x + 3, y + 14), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 255), 1,
                        cv2.LINE_AA)
            st = styles.get(bd.cell_name(col, row))
            if st:
                s = st.split('.', 1)[1].split('|')[0][:11]
                src = 'F' if '|font' in st else ('S' if '|strokes' in st else '')
                cv2.putText(im, s + src, (x + 2, y + C - 4), cv2.FONT_HERSHEY_PLAIN, 0.7, (200, 0, 200), 1,
                            cv2.LINE_AA)
    return im


def render_one(seed, k, debug_dir=None):
    rng = np.random.default_rng([seed, k])
    for _board_try in range(20):
        city, seat, styles, img, alpha = draw_board(rng)
        for _shot in range(5):
            photo, info = shoot(img, alpha, rng, C)
            if markers_ok(photo, seat):
                if debug_dir:
                    cv2.imwrite(os.path.join(debug_dir, f'debug_{k:05d}.png'), debug_image(img, city, styles))
                return photo, city, seat, styles, info
    raise RuntimeError(f'board {k}: markers never decoded')


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('--out', required=True)
    ap.add_argument('--boards', type=int, required=True)
    ap.add_argument('--seed', type=int, required=True)
    ap.add_argument('--start', type=int, default=None)
    ap.add_argument('--debug', action='store_true', help='also write debug_%%05d.png with the truth drawn on')
    a = ap.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    t0 = time.time()
    mode = 'a' if a.start is not None else 'w'
    a.start = a.start or 0
    with open(os.path.join(a.out, 'truth.jsonl'), mode) as f:
        for k in range(a.start, a.start + a.boards):
            photo, city, seat, styles, info = render_one(a.seed, k, a.out if a.debug else None)
            name = f'board_{k:05d}.png'
            cv2.imwrite(os.path.join(a.out, name), photo[..., ::-1])
            f.write(json.dumps({'image': name, 'seat': seat, 'city': city, 'styles': styles}) + '\n')
            f.flush()
    dt = time.time() - t0
    print(f'{a.boards} boards in {dt:.1f} s ({dt / max(1, a.boards):.3f} s/board)', file=sys.stderr)


if __name__ == '__main__':
    main()
