"""Third, independent renderer of synthetic photos of Saint Malo erasable city boards.

Usage: render.py --out DIR --boards N --seed S [--start K]
Writes DIR/board_XXXXX.png and DIR/truth.jsonl (seat, city in rules notation, per-cell styles).
Board k uses numpy default_rng([seed, k]).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from hand import STYLES, Hand, Pen, pick_style, random_hand  # noqa: E402

cv2.setNumThreads(1)
C = 64  # board px per cell
M = 5  # board margin
BS = 7 * C + 2 * M
TOWERS = {(0, 0), (6, 0), (6, 6), (0, 6)}
PRINTED = {(1, 1), (2, 1), (1, 2), (1, 3)}  # B2 C2 B3 B4 as (col, row)
ARUCO = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
DETECTOR = cv2.aruco.ArucoDetector(ARUCO, cv2.aruco.DetectorParameters())
CLASSES = ["G", "H", "1", "2", "3", "4", "5", "c", "s", "p", "a", "m", "j", "n"]


def cname(col: int, row: int) -> str:
    return f"{'ABCDEFG'[col]}{row + 1}"


def is_outer(col: int, row: int) -> bool:
    return col in (0, 6) or row in (0, 6)


def lowfreq(rng: np.random.Generator, shape: tuple[int, int], cells: int) -> np.ndarray:
    n = rng.normal(0, 1, (cells, cells)).astype(np.float32)
    return cv2.resize(n, (shape[1], shape[0]), interpolation=cv2.INTER_CUBIC)


# ---------------------------------------------------------------- board print
def board_print(rng: np.random.Generator, seat: int) -> np.ndarray:
    inner = np.array([232, 226, 215]) / 255 + rng.normal(0, 0.02, 3)
    outer = inner * rng.uniform(0.72, 0.86) + np.array([0.0, -0.01, -0.05]) + rng.normal(0, 0.015, 3)
    img = np.empty((BS, BS, 3), np.float32)
    img[:] = outer
    a, b = M + C, M + 6 * C
    img[a:b, a:b] = inner
    tex = 0.035 * lowfreq(rng, (BS, BS), 14) + 0.02 * lowfreq(rng, (BS, BS), 50)
    tex += rng.normal(0, 0.012, (BS, BS)).astype(np.float32)
    img *= (1 + tex)[..., None]
    ink = tuple(float(v) for v in np.clip(rng.normal(0.3, 0.05, 3), 0.1, 0.5))
    # towers: lighter discs with a rim
    for col, row in TOWERS:
        cx, cy = M + (col + 0.5) * C, M + (row + 0.5) * C
        cv2.circle(img, (int(cx * 8), int(cy * 8)), int(C * 0.47 * 8), tuple(float(v) for v in inner * 1.02),
                   -1, cv2.LINE_AA, 3)
        cv2.circle(img, (int(cx * 8), int(cy * 8)), int(C * 0.47 * 8), ink, 2, cv2.LINE_AA, 3)
    # grid: one hand-inked segment per cell edge
    for i in range(8):
        for j in range(7):
            for horiz in (True, False):
                p0 = np.array([M + j * C, M + i * C], float)
                p1 = p0 + [C, 0]
                if not horiz:
                    p0, p1 = p0[::-1], p1[::-1]
                p0 = p0 + rng.normal(0, 0.8, 2) + (p1 - p0) * rng.uniform(0.02, 0.07)
                p1 = p1 + rng.normal(0, 0.8, 2) - (p1 - p0) * rng.uniform(0.02, 0.07)
                col, row = (j, i) if horiz else (i, j)
                # skip segments inside tower discs
                mid = (p0 + p1) / 2
                if any(math.hypot(mid[0] - (M + (tc + 0.5) * C), mid[1] - (M + (tr + 0.5) * C)) < C * 0.5
                       for tc, tr in TOWERS):
                    continue
                cv2.line(img, tuple((p0 * 8).astype(int)), tuple((p1 * 8).astype(int)), ink,
                         int(rng.integers(1, 3)), cv2.LINE_AA, 3)
    cv2.rectangle(img, (1, 1), (BS - 2, BS - 2), tuple(v * 1.3 for v in ink), 2, cv2.LINE_AA)
    _bonus(img, rng)
    for col, row in PRINTED:
        _printed_crate(img, M + (col + 0.5) * C, M + (row + 0.5) * C, rng)
    # wear: faint old-ink haze and light scuffs
    haze = np.clip(lowfreq(rng, (BS, BS), 8), 0, None) * rng.uniform(0, 0.05)
    img *= (1 - haze)[..., None]
    _stickers(img, rng, seat)
    return np.clip(img, 0, 1)


def _bonus(img: np.ndarray, rng: np.random.Generator) -> None:
    def p(col: int, row: int, dx: float, dy: float) -> tuple[int, int]:
        return int((M + (col + 0.5 + dx) * C) * 8), int((M + (row + 0.5 + dy) * C) * 8)

    gold, dark, green = (0.9, 0.78, 0.2), (0.1, 0.1, 0.1), (0.2, 0.5, 0.2)
    cv2.ellipse(img, p(0, 0, -0.1, -0.12), (int(C * 1.4), int(C * 1.8)), 0, 0, 360, green, -1, cv2.LINE_AA, 3)
    _text(img, "1-3", (int(M + C * 0.15), int(M + C * 0.85)), 0.35, dark)
    for col, row in ((6, 0), (0, 6)):
        for dx, dy in ((-0.12, 0.05), (0.12, -0.08)):
            cv2.circle(img, p(col, row, dx, dy), int(C * 0.18 * 8), gold, -1, cv2.LINE_AA, 3)
            cv2.circle(img, p(col, row, dx, dy), int(C * 0.18 * 8), (0.6, 0.45, 0.1), 1, cv2.LINE_AA, 3)
    cv2.circle(img, p(6, 6, 0.05, 0), int(C * 0.2 * 8), dark, 1, cv2.LINE_AA, 3)
    _text(img, "3", (int(M + 6.47 * C), int(M + 6.62 * C)), 0.45, dark)
    for col, row, d in ((0, 0, (1, 0)), (6, 0, (0, 1)), (6, 6, (-1, 0)), (0, 6, (0, -1))):
        a = p(col, row, 0.28 * d[0], 0.28 * d[1])
        b = p(col, row, 0.47 * d[0], 0.47 * d[1])
        cv2.arrowedLine(img, a, b, dark, 2, cv2.LINE_AA, 3, 0.4)


def _text(img: np.ndarray, txt: str, org: tuple[int, int], scale: float, col: tuple) -> None:
    m = np.zeros(img.shape[:2], np.uint8)
    cv2.putText(m, txt, org, cv2.FONT_HERSHEY_SIMPLEX, scale, 255, 1, cv2.LINE_AA)
    a = (m.astype(np.float32) / 255)[..., None]
    img[:] = img * (1 - a) + a * np.array(col, np.float32)


def _printed_crate(img: np.ndarray, cx: float, cy: float, rng: np.random.Generator) -> None:
    s = C * 0.34
    wood = tuple(float(v) for v in np.array([0.78, 0.5, 0.24]) * rng.uniform(0.95, 1.05))
    edge = (0.35, 0.2, 0.08)
    pts = np.array([[cx - s, cy - s], [cx + s, cy - s], [cx + s, cy + s], [cx - s, cy + s]])
    cv2.fillPoly(img, [(pts * 8).astype(np.int32)], wood, cv2.LINE_AA, 3)
    for t in (-s / 3, s / 3):
        cv2.line(img, (int((cx - s) * 8), int((cy + t) * 8)), (int((cx + s) * 8), int((cy + t) * 8)), edge, 1,
                 cv2.LINE_AA, 3)
    cv2.line(img, (int((cx - s) * 8), int((cy + s) * 8)), (int((cx + s) * 8), int((cy - s) * 8)), edge, 2,
             cv2.LINE_AA, 3)
    cv2.polylines(img, [(pts * 8).astype(np.int32)], True, edge, 2, cv2.LINE_AA, 3)


def _stickers(img: np.ndarray, rng: np.random.Generator, seat: int) -> None:
    ms = int(round(0.7 * C))
    for k, (col, row) in enumerate(((0, 0), (6, 0), (6, 6), (0, 6))):
        cx = M + (col + 0.5) * C + rng.normal(0, 0.6)
        cy = M + (row + 0.5) * C + rng.normal(0, 0.6)
        ang = rng.normal(0, 1.5)
        side = C * rng.uniform(0.92, 0.98)
        white = float(rng.uniform(0.93, 1.0))
        mk = cv2.aruco.generateImageMarker(ARUCO, 4 * seat + k, 6)
        mk = cv2.resize(mk, (ms, ms), interpolation=cv2.INTER_NEAREST).astype(np.float32) / 255
        pad = int((side - ms) / 2)
        st = np.pad(mk * (white - 0.1) + 0.1, pad, constant_values=white)
        n = st.shape[0]
        R = cv2.getRotationMatrix2D((n / 2, n / 2), ang, 1.0)
        R[:, 2] += [cx - n / 2, cy - n / 2]
        alpha = cv2.warpAffine(np.ones_like(st), R, (BS, BS))
        val = cv2.warpAffine(st, R, (BS, BS))
        sh = cv2.GaussianBlur(alpha, (0, 0), 1.2)
        img *= (1 - 0.25 * sh * (1 - alpha))[..., None]
        img[:] = img * (1 - alpha[..., None]) + (val * alpha)[..., None] * np.array([1.0, 0.995, 0.985])


# ---------------------------------------------------------------- city and drawing
def make_city(rng: np.random.Generator) -> list[list[str]]:
    city = [["." for _ in range(7)] for _ in range(7)]
    for c, r in TOWERS:
        city[r][c] = "#"
    for c, r in PRINTED:
        city[r][c] = "G"
    free = [(c, r) for r in range(7) for c in range(7) if city[r][c] == "."]
    n = int(round(rng.uniform(0.5, 0.9) * len(free)))
    outer = [p for p in free if is_outer(*p)]
    nw = 0 if rng.random() < 0.1 else int(rng.integers(1, 17))
    nw = min(nw, n)
    walls = [outer[i] for i in rng.choice(len(outer), nw, replace=False)]
    for c, r in walls:
        city[r][c] = "W"
    rest = [p for p in free if city[p[1]][p[0]] == "."]
    for i in rng.choice(len(rest), n - nw, replace=False):
        c, r = rest[i]
        city[r][c] = str(rng.choice(CLASSES))
    return city


SIDE_ROT = {"top": 0.0, "right": math.pi / 2, "bottom": math.pi, "left": -math.pi / 2}


def side_of(col: int, row: int) -> str:
    return "top" if row == 0 else "bottom" if row == 6 else "left" if col == 0 else "right"


def draw_cell(pen: Pen, ch: str, col: int, row: int) -> str:
    h, r = pen.h, pen.rng
    jit = 0.02 + 0.06 * h.sloppy
    cx = M + (col + 0.5 + r.normal(0, jit)) * C
    cy = M + (row + 0.5 + r.normal(0, jit)) * C
    rot = r.normal(0, 0.04 + 0.1 * h.sloppy)
    sym = {"W": "wall", "G": "crate", "H": "house"}.get(ch, "church" if ch.isdigit() else "person")
    style = pick_style(pen, sym)
    if sym == "wall" and (style == "edge_band" or h.wall_side):
        rot += SIDE_ROT[side_of(col, row)]
    pen.place(cx, cy, rot, h.slant * 0.3 if sym != "wall" else 0.0, r.uniform(0.92, 1.06))
    fn = STYLES[sym][style][0]
    extra = fn(pen, ch) if sym in ("church", "person") else fn(pen)
    return f"{sym}.{style}" + (f"|{extra}" if extra else "")


def draw_ghost(ghost: np.ndarray, hand: Hand, rng: np.random.Generator, col: int, row: int) -> None:
    pen = Pen(ghost, hand, rng, C)
    k = rng.random()
    if k < 0.5:
        ch = str(rng.choice(CLASSES + ["W"] if is_outer(col, row) else CLASSES))
        saved = hand.loyalty
        hand.loyalty = 0.3
        draw_cell(pen, ch, col, row)
        hand.loyalty = saved
    elif k < 0.8:  # wipe smudge
        cx, cy = M + (col + 0.5) * C, M + (row + 0.5) * C
        for _ in range(int(rng.integers(1, 4))):
            p = np.array([cx, cy]) + rng.normal(0, C * 0.2, 2)
            cv2.ellipse(ghost, (int(p[0]), int(p[1])), (int(C * rng.uniform(0.1, 0.35)), int(C * rng.uniform(0.03, 0.12))),
                        rng.uniform(0, 180), 0, 360, int(rng.integers(60, 160)), -1, cv2.LINE_AA)
    else:
        pen.place(M + (col + 0.5) * C, M + (row + 0.5) * C)
        pen.dot(*rng.uniform(-0.35, 0.35, 2))


def ink_layer(img: np.ndarray, mask: np.ndarray, colour: tuple[float, ...], opacity: float, rng: np.random.Generator) -> None:
    m = mask.astype(np.float32) / 255
    streak = cv2.resize(rng.normal(0, 1, (BS // 2, BS // 16)).astype(np.float32), (BS, BS))
    if rng.random() < 0.5:
        streak = streak.T
    dry = rng.uniform(0, 0.25)
    m *= opacity * np.clip(1 - dry * np.abs(streak), 0, 1)
    ink = np.array(colour, np.float32)
    img *= 1 - m[..., None] * (1 - ink)


# ---------------------------------------------------------------- photo
def table(rng: np.random.Generator, H: int, W: int) -> np.ndarray:
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    a = rng.uniform(0, math.pi)
    u = xx * math.cos(a) + yy * math.sin(a)
    v = -xx * math.sin(a) + yy * math.cos(a)
    kind = rng.choice(["wood", "cloth", "plain"], p=[0.45, 0.3, 0.25])
    if kind == "wood":
        base = np.array([0.55, 0.36, 0.2]) * rng.uniform(0.5, 1.4) + rng.normal(0, 0.03, 3)
        warp = 25 * lowfreq(rng, (H, W), 6)
        g = np.sin((v + warp) * rng.uniform(0.05, 0.2)) * 0.5 + 0.5
        t = 1 + 0.12 * (g - 0.5) + 0.04 * lowfreq(rng, (H, W), 30)
        plank = rng.uniform(80, 250)
        t *= 1 - 0.35 * (np.abs(((v + 1000) % plank) - 1) < 1.2)
    elif kind == "cloth":
        base = rng.uniform(0.15, 0.8, 3)
        f = rng.uniform(0.8, 1.6)
        t = 1 + 0.05 * np.sin(u * f) * np.sin(v * f) + 0.03 * lowfreq(rng, (H, W), 20)
        if rng.random() < 0.3:
            sq = rng.uniform(25, 60)
            t *= 1 - 0.25 * (((u // sq) % 2) + ((v // sq) % 2)) / 2
    else:
        base = np.full(3, rng.uniform(0.15, 0.9)) + rng.normal(0, 0.04, 3)
        t = 1 + 0.02 * lowfreq(rng, (H, W), 10)
    t = t + rng.normal(0, 0.01, (H, W)).astype(np.float32)
    return np.clip(t[..., None] * base.astype(np.float32), 0, 1)


def rounded_alpha(rng: np.random.Generator) -> np.ndarray:
    a = np.zeros((BS, BS), np.float32)
    rr = int(C * rng.uniform(0.06, 0.16))
    cv2.rectangle(a, (rr, 0), (BS - 1 - rr, BS - 1), 1.0, -1)
    cv2.rectangle(a, (0, rr), (BS - 1, BS - 1 - rr), 1.0, -1)
    for x, y in ((rr, rr), (BS - 1 - rr, rr), (rr, BS - 1 - rr), (BS - 1 - rr, BS - 1 - rr)):
        cv2.circle(a, (x, y), rr, 1.0, -1, cv2.LINE_AA)
    return a


def photo(board: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    s = rng.uniform(22, 48)
    k = s / C
    pre = min(1.0, k * 1.3)
    bsz = int(round(BS * pre))
    small = cv2.resize(board, (bsz, bsz), interpolation=cv2.INTER_AREA)
    alpha = cv2.resize(rounded_alpha(rng), (bsz, bsz), interpolation=cv2.INTER_AREA)
    # pinhole projection of the tilted, rotated board
    th, tx, ty = rng.uniform(0, 2 * math.pi), rng.normal(0, 0.1), rng.normal(0, 0.1)
    Rz = np.array([[math.cos(th), -math.sin(th), 0], [math.sin(th), math.cos(th), 0], [0, 0, 1]])
    Rx = np.array([[1, 0, 0], [0, math.cos(tx), -math.sin(tx)], [0, math.sin(tx), math.cos(tx)]])
    Ry = np.array([[math.cos(ty), 0, math.sin(ty)], [0, 1, 0], [-math.sin(ty), 0, math.cos(ty)]])
    f = rng.uniform(600, 1000)
    Z = f / k * (BS / bsz) ** 0  # board units are original board px
    half = BS / 2
    corners = np.array([[-half, -half, 0], [half, -half, 0], [half, half, 0], [-half, half, 0]])
    P = corners @ (Rx @ Ry @ Rz).T + [0, 0, Z]
    uv = f * P[:, :2] / P[:, 2:3]
    lo, hi = uv.min(0), uv.max(0)
    span = hi - lo
    W = int(np.clip(span[0] + rng.uniform(40, 400), 500, 900))
    H = int(np.clip(span[1] + rng.uniform(40, 400), 500, 900))
    W, H = max(W, int(span[0]) + 30), max(H, int(span[1]) + 30)
    off = np.array([rng.uniform(12, max(13, W - span[0] - 12)), rng.uniform(12, max(13, H - span[1] - 12))]) - lo
    dst = (uv + off).astype(np.float32)
    src = np.array([[0, 0], [bsz, 0], [bsz, bsz], [0, bsz]], np.float32)
    Hm = cv2.getPerspectiveTransform(src, dst)
    bw = cv2.warpPerspective(small, Hm, (W, H), flags=cv2.INTER_LINEAR)
    aw = cv2.warpPerspective(alpha, Hm, (W, H), flags=cv2.INTER_LINEAR)[..., None]
    img = table(rng, H, W)
    sh = cv2.GaussianBlur(aw[..., 0], (0, 0), rng.uniform(2, 10))
    sh = np.roll(sh, (int(rng.integers(-8, 9)), int(rng.integers(-8, 9))), (0, 1))
    img *= (1 - rng.uniform(0.25, 0.6) * sh)[..., None]
    img = img * (1 - aw) + bw * aw
    # light: gradient, vignette, colour cast, glare, soft shadow
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    g = 1 + rng.uniform(-0.25, 0.25) * (xx / W - 0.5) + rng.uniform(-0.25, 0.25) * (yy / H - 0.5)
    g -= rng.uniform(0, 0.3) * (((xx / W - 0.5) ** 2 + (yy / H - 0.5) ** 2) * 2)
    img *= g[..., None] * rng.uniform(0.75, 1.15)
    img *= (np.array([1, 1, 1]) + rng.normal(0, 0.06, 3)).astype(np.float32)
    if rng.random() < 0.3:
        c = dst.mean(0) + rng.normal(0, s * 2, 2)
        sg = rng.uniform(20, 90)
        gl = np.exp(-((xx - c[0]) ** 2 + (yy - c[1]) ** 2) / (2 * sg * sg)) * rng.uniform(0.3, 0.8)
        img += gl[..., None] * (1 - img)
    if rng.random() < 0.3:
        m = np.zeros((H, W), np.float32)
        pts = (dst.mean(0) + rng.normal(0, 150, (4, 2))).astype(np.int32)
        cv2.fillConvexPoly(m, cv2.convexHull(pts), 1.0)
        m = cv2.GaussianBlur(m, (0, 0), rng.uniform(15, 40))
        img *= (1 - rng.uniform(0.15, 0.4) * m)[..., None]
    sig = rng.uniform(0.2, 1.0) * (0.5 if s < 30 else 1.0)
    img = cv2.GaussianBlur(img, (0, 0), sig)
    img += rng.normal(0, rng.uniform(0.004, 0.025), img.shape).astype(np.float32)
    out = np.clip(img * 255, 0, 255).astype(np.uint8)[..., ::-1]
    ok, enc = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(45, 96))])
    return cv2.imdecode(enc, cv2.IMREAD_COLOR)


def render_board(seed: int, k: int) -> tuple[np.ndarray, dict]:
    rng = np.random.default_rng([seed, k])
    seat = int(rng.integers(0, 5))
    img = board_print(rng, seat)
    city = make_city(rng)
    hand = random_hand(rng, C)
    mask = np.zeros((BS, BS), np.uint8)
    ghost = np.zeros((BS, BS), np.uint8)
    pen = Pen(mask, hand, rng, C)
    styles: dict[str, str] = {}
    p_ghost = rng.uniform(0.1, 0.6)
    for r in range(7):
        for c in range(7):
            ch = city[r][c]
            if ch == "#" or (c, r) in PRINTED:
                continue
            if ch == ".":
                if rng.random() < p_ghost:
                    draw_ghost(ghost, hand, rng, c, r)
                continue
            styles[cname(c, r)] = draw_cell(pen, ch, c, r)
    gcol = hand.colour if rng.random() < 0.6 else tuple(rng.uniform(0.1, 0.7, 3))
    ghost = cv2.GaussianBlur(ghost, (0, 0), rng.uniform(0.8, 2.5))
    ink_layer(img, ghost, gcol, rng.uniform(0.08, 0.3), rng)
    ink_layer(img, mask, hand.colour, rng.uniform(0.8, 0.97), rng)
    truth = {"seat": seat, "city": ["".join(row) for row in city], "styles": styles}
    want = {4 * seat + i for i in range(4)}
    for _ in range(5):  # re-shoot (same board, new camera) until all four markers decode
        out = photo(img, rng)
        _, ids, _ = DETECTOR.detectMarkers(cv2.cvtColor(out, cv2.COLOR_BGR2GRAY))
        if ids is not None and want <= set(ids.ravel().tolist()):
            break
    return out, truth


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--boards", required=True, type=int)
    ap.add_argument("--seed", required=True, type=int)
    ap.add_argument("--start", type=int, default=0)
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    with open(a.out / "truth.jsonl", "a" if a.start else "w") as fh:
        for k in range(a.start, a.start + a.boards):
            img, truth = render_board(a.seed, k)
            name = f"board_{k:05d}.png"
            cv2.imwrite(str(a.out / name), img, [cv2.IMWRITE_PNG_COMPRESSION, 1])
            fh.write(json.dumps({"image": name, **truth}) + "\n")


if __name__ == "__main__":
    main()
