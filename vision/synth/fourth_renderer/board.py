"""Board print (colours, grid, towers, printed crates, wear), stickers and city generation."""
import cv2
import numpy as np
from hand import C

M = 10                 # board margin beyond the grid (px, canonical)
S = 7 * C + 2 * M      # canonical board image side
TOWERS = [(0, 0), (6, 0), (6, 6), (0, 6)]          # (col,row) for A1, G1, G7, A7 -> id offset 0..3
PRINTED_CRATES = [(1, 1), (2, 1), (1, 2), (1, 3)]   # B2, C2, B3, B4
START = ['#.....#', '.GG....', '.G.....', '.G.....', '.......', '.......', '#.....#']
ARUCO = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)


def cell_name(col, row):
    return 'ABCDEFG'[col] + str(row + 1)


def is_outer(col, row):
    return (col in (0, 6) or row in (0, 6)) and (col, row) not in TOWERS


def side_of(col, row):
    if row == 0:
        return 'top'
    if row == 6:
        return 'bottom'
    if col == 0:
        return 'left'
    if col == 6:
        return 'right'
    return None


def noise(rng, h, w, scale, interp=cv2.INTER_CUBIC):
    a = rng.standard_normal((max(2, h // scale + 2), max(2, w // scale + 2))).astype(np.float32)
    return cv2.resize(a, (w, h), interpolation=interp)


# ------------------------------------------------------------------ print
def board_print(rng):
    r = rng
    yy = np.linspace(0, 1, S, dtype=np.float32)[:, None, None]
    top = np.array([206, 196, 172], np.float32) * (1 + r.normal(0, 0.03, 3))
    bot = np.array([196, 160, 110], np.float32) * (1 + r.normal(0, 0.03, 3))
    grad = r.uniform(0.5, 1.0)
    outer = top + (bot - top) * np.clip((yy - 0.25) / 0.75, 0, 1) * grad
    stone = 1 + 0.05 * noise(r, S, S, 5) + 0.045 * noise(r, S, S, 18) + 0.03 * noise(r, S, S, 60)
    img = outer * stone[..., None]
    # speckles of the stone print
    sp = (noise(r, S, S, 2, cv2.INTER_NEAREST) > 2.1).astype(np.float32)
    img *= (1 - 0.12 * cv2.GaussianBlur(sp, (3, 3), 0.8))[..., None]
    # inner light spaces
    inner_c = np.array([241, 234, 223], np.float32) * (1 + r.normal(0, 0.015, 3))
    a0, a1 = M + C, M + 6 * C
    inner = np.zeros((S, S), np.float32)
    inner[a0:a1, a0:a1] = 1
    inner = cv2.GaussianBlur(inner, (0, 0), 2.0)
    mott = 1 + 0.012 * noise(r, S, S, 10) + 0.012 * noise(r, S, S, 40)
    vig = np.ones((S, S), np.float32)
    ar = np.arange(S, dtype=np.float32)
    dx = np.minimum(ar - a0, a1 - ar)
    d = np.minimum(dx[None, :], dx[:, None])
    vig = 1 - 0.05 * np.exp(-np.clip(d, 0, None) / (0.25 * C))
    inner_img = inner_c * (mott * vig)[..., None]
    img = img * (1 - inner[..., None]) + inner_img * inner[..., None]

    # grid lines: dark, rough, slightly broken
    line_c = np.array([58, 52, 46], np.float32) * r.uniform(0.8, 1.3)
    lines = np.zeros((S, S), np.uint8)
    th = int(r.integers(2, 4))
    for i in range(1, 7):
        for j in range(7):
            for vert in (True, False):
                a = M + j * C + r.uniform(2, 7)
                b = M + (j + 1) * C - r.uniform(2, 7)
                t = np.linspace(a, b, 6)
                o = M + i * C + np.cumsum(r.normal(0, 0.5, 6)) * 0.6
                pts = np.stack([o, t], 1) if vert else np.stack([t, o], 1)
                cv2.polylines(lines, [np.round(pts * 16).astype(np.int32)], False, 255, th, cv2.LINE_AA, 4)
    lm = lines.astype(np.float32) / 255 * (0.75 + 0.25 * np.clip(noise(r, S, S, 8), -1, 1))
    img = img * (1 - lm[..., None]) + line_c * lm[..., None]

    # towers: medallions, icons, arrows (mostly under the stickers)
    ov = img.copy()
    for k, (c, rr) in enumerate(TOWERS):
        cx, cy = M + c * C + C / 2, M + rr * C + C / 2
        cx += (-1 if c == 0 else 1) * 0.04 * C
        cy += (-1 if rr == 0 else 1) * 0.04 * C
        cen = (int(cx * 16), int(cy * 16))
        cv2.circle(ov, cen, int(0.5 * C * 16), (226, 215, 188), -1, cv2.LINE_AA, 4)
        cv2.circle(ov, cen, int(0.5 * C * 16), (95, 80, 60), 2, cv2.LINE_AA, 4)
        if k == 0:
            cv2.ellipse(ov, (int(cx * 16), int((cy - 6) * 16)), (int(0.16 * C * 16), int(0.2 * C * 16)), 0, 0,
                        360, (60, 130, 55), -1, cv2.LINE_AA, 4)
        elif k == 2:
            cv2.circle(ov, cen, int(0.22 * C * 16), (70, 60, 50), 2, cv2.LINE_AA, 4)
        else:
            for dx in (-6, 6):
                cv2.circle(ov, (int((cx + dx) * 16), int((cy + dx * 0.5) * 16)), int(0.15 * C * 16),
                           (225, 200, 40), -1, cv2.LINE_AA, 4)
        # arrow pointing along the tower's side
        dirs = [(1, 0), (0, 1), (-1, 0), (0, -1)]
        dx, dy = dirs[k]
        ax, ay = cx + dx * 0.36 * C, cy + dy * 0.36 * C
        p0 = (int((ax - dx * 8) * 16), int((ay - dy * 8) * 16))
        p1 = (int((ax + dx * 8) * 16), int((ay + dy * 8) * 16))
        cv2.arrowedLine(ov, p0, p1, (30, 28, 26), 2, cv2.LINE_AA, 4, 0.5)
    img = ov

    # printed crates: the same little illustration on every board
    for (c, rr) in PRINTED_CRATES:
        x0, y0 = M + c * C, M + rr * C
        _printed_crate(img, x0, y0, r)

    # wear: scratches, faded patches
    wear = np.zeros((S, S), np.float32)
    for _ in range(int(r.integers(0, 8))):
        p = r.uniform(0, S, 2)
        q = p + r.normal(0, 40, 2)
        cv2.line(wear, tuple(int(v) for v in p), tuple(int(v) for v in q), float(r.uniform(0.1, 0.35)), 1,
                 cv2.LINE_AA)
    fade = np.clip(noise(r, S, S, 90), 0, None) * r.uniform(0, 0.06)
    img = img + (255 - img) * np.clip(wear + fade, 0, 1)[..., None]
    img *= r.uniform(0.95, 1.05)

    # board outline with rounded corners
    alpha = np.zeros((S, S), np.uint8)
    rad = int(r.uniform(0.12, 0.3) * C)
    cv2.rectangle(alpha, (rad, 0), (S - 1 - rad, S - 1), 255, -1)
    cv2.rectangle(alpha, (0, rad), (S - 1, S - 1 - rad), 255, -1)
    for (x, y) in [(rad, rad), (S - 1 - rad, rad), (rad, S - 1 - rad), (S - 1 - rad, S - 1 - rad)]:
        cv2.circle(alpha, (x, y), rad, 255, -1, cv2.LINE_AA)
    edge = cv2.erode(alpha, np.ones((3, 3), np.uint8))
    img = img * np.where(edge[..., None] > 0, 1.0, 0.7)
    return np.clip(img / 255.0, 0, 1).astype(np.float32), alpha


def _printed_crate(img, x0, y0, r):
    s = 0.74 * C
    ox, oy = x0 + (C - s) / 2, y0 + (C - s) / 2
    def P(u, v):
        return (int((ox + u * s) * 16), int((oy + v * s) * 16))
    body = np.array([P(0, 0), P(1, 0), P(1, 1), P(0, 1)], np.int32)
    cv2.fillConvexPoly(img, body, (200, 132, 66), cv2.LINE_AA, 4)
    for v in (0.33, 0.66):
        cv2.line(img, P(0, v), P(1, v), (128, 74, 34), 2, cv2.LINE_AA, 4)
    cv2.line(img, P(0.08, 0.92), P(0.92, 0.08), (150, 90, 42), 3, cv2.LINE_AA, 4)
    cv2.fillConvexPoly(img, np.array([P(0, 0), P(1, 0), P(1, 0.1), P(0, 0.1)], np.int32), (225, 160, 90),
                       cv2.LINE_AA, 4)
    cv2.polylines(img, [body], True, (78, 44, 22), 2, cv2.LINE_AA, 4)
    for (u, v) in [(0.07, 0.07), (0.93, 0.07), (0.07, 0.93), (0.93, 0.93)]:
        cv2.circle(img, P(u, v), 16 * 2, (70, 40, 20), -1, cv2.LINE_AA, 4)


def composite_ink(img, dens, inks, rng):
    """subtractive marker ink over the print: darker where strokes cross, translucent."""
    out = img.copy()
    absorb = np.zeros_like(img)
    for k, ink in enumerate(inks):
        d = dens[k]
        if not d.any():
            continue
        d = cv2.GaussianBlur(d, (0, 0), 0.7)
        A = -np.log(np.clip(np.asarray(ink, np.float32) / 255.0, 0.04, 0.98))
        absorb += d[..., None] * A[None, None, :]
    return out * np.exp(-absorb)


def dry_texture(rng, shape, dry):
    """streaky dry-marker texture: multiplies density."""
    h, w = shape
    n = rng.standard_normal((h // 2 + 1, w // 2 + 1)).astype(np.float32)
    n = cv2.resize(n, (w, h))
    k = np.zeros((9, 9), np.float32)
    ang = rng.uniform(0, np.pi)
    cv2.line(k, (int(4 - 4 * np.cos(ang)), int(4 - 4 * np.sin(ang))),
             (int(4 + 4 * np.cos(ang)), int(4 + 4 * np.sin(ang))), 1.0, 1)
    n = cv2.filter2D(n, -1, k / k.sum())
    return np.clip(1 - dry * np.clip(n * 1.5, 0, 1), 0, 1)


# ------------------------------------------------------------------ stickers
def add_stickers(img, seat, rng):
    r = rng
    for k, (c, rr) in enumerate(TOWERS):
        mid = 4 * seat + k
        side = r.uniform(0.86, 0.98) * C
        msz = 0.70 * C * (1 + r.normal(0, 0.015))
        ang = r.normal(0, 3.0)
        cx = M + c * C + C / 2 + r.normal(0, 0.025 * C)
        cy = M + rr * C + C / 2 + r.normal(0, 0.025 * C)
        P = 120
        patch = np.full((P, P, 3), r.uniform(0.93, 1.0), np.float32)
        patch *= (1 - r.uniform(0, 0.03, 3))[None, None, :]
        mpx = int(round(msz / side * P))
        mk = cv2.aruco.generateImageMarker(ARUCO, mid, mpx).astype(np.float32) / 255
        o = (P - mpx) // 2
        ink = r.uniform(0.05, 0.18)
        patch[o:o + mpx, o:o + mpx] = (ink + (patch[o:o + mpx, o:o + mpx] - ink) * mk[..., None])
        mask = np.zeros((P, P), np.float32)
        rad = int(P * r.uniform(0.04, 0.15))
        cv2.rectangle(mask, (rad, 0), (P - 1 - rad, P - 1), 1, -1)
        cv2.rectangle(mask, (0, rad), (P - 1, P - 1 - rad), 1, -1)
        for (x, y) in [(rad, rad), (P - 1 - rad, rad), (rad, P - 1 - rad), (P - 1 - rad, P - 1 - rad)]:
            cv2.circle(mask, (x, y), rad, 1, -1, cv2.LINE_AA)
        sc = side / P
        Mx = cv2.getRotationMatrix2D((P / 2, P / 2), ang, sc)
        Mx[:, 2] += (cx - P / 2, cy - P / 2)
        Mx[0, 2] += 0  # centre
        # place: getRotationMatrix2D scales about the patch centre -> shift centre to (cx, cy)
        Mx = cv2.getRotationMatrix2D((P / 2, P / 2), ang, sc)
        Mx[:, 2] += np.array([cx, cy]) - np.array([P / 2, P / 2])
        wp = cv2.warpAffine(patch, Mx, (S, S), flags=cv2.INTER_LINEAR)
        wm = cv2.warpAffine(mask, Mx, (S, S), flags=cv2.INTER_LINEAR)
        sh = cv2.GaussianBlur(np.roll(wm, (1, 1), (0, 1)), (0, 0), 1.5)
        img *= (1 - 0.25 * sh)[..., None]
        img[:] = img * (1 - wm[..., None]) + wp * wm[..., None]
    return img


# ------------------------------------------------------------------ cities
OUTER = [(c, r) for r in range(7) for c in range(7) if is_outer(c, r)]
INNER = [(c, r) for r in range(1, 6) for c in range(1, 6)]
PERSON_W = {'c': .24, 's': .16, 'p': .14, 'a': .16, 'm': .12, 'j': .1, 'n': .08}
CHURCH_W = [.3, .27, .22, .13, .08]


def _empty(g, cells):
    return [x for x in cells if g[x[1]][x[0]] == '.']


def _nbrs8(c, r):
    return [(c + dc, r + dr) for dc in (-1, 0, 1) for dr in (-1, 0, 1) if (dc or dr) and 0 <= c + dc < 7
            and 0 <= r + dr < 7]


def _nbrs4(c, r):
    return [(c + dc, r + dr) for dc, dr in ((1, 0), (-1, 0), (0, 1), (0, -1)) if 0 <= c + dc < 7 and
            0 <= r + dr < 7]


def city_game(rng):
    """a plausible game state: walls on the ring side by side, groups of crates, churches, persons."""
    r = rng
    g = [list(s) for s in START]
    allsp = OUTER + INNER
    u = r.random()
    target = int(r.integers(0, 12)) if u < 0.25 else int(r.integers(10, 30)) if u < 0.65 else \
        int(r.integers(30, 42)) if u < 0.85 else 41
    wall_love = r.uniform(0.1, 0.5)
    fav_side = ['top', 'right', 'bottom', 'left'][int(r.integers(4))]

    def place(cell, ch):
        g[cell[1]][cell[0]] = ch

    def grow(group, extra, ch):
        """up to ``extra`` more ``ch`` on empty spaces beside ``group``, one at a time, kept connected."""
        for _ in range(extra):
            free = [x for q in group for x in _nbrs4(*q) if g[x[1]][x[0]] == '.' and x in allsp]
            if not free:
                break
            x = free[int(r.integers(len(free)))]
            group.append(x)
            place(x, ch)

    def filled():
        return sum(ch not in '.#' for row in g for ch in row) - 4

    guard = 0
    while filled() < target and guard < 200:
        guard += 1
        emp_all = _empty(g, allsp)
        if not emp_all:
            break
        late = len(emp_all) < 10
        emp_inner = _empty(g, INNER)
        def pick_cell(emp_inner=emp_inner, emp_all=emp_all, late=late):
            return (emp_inner[int(r.integers(len(emp_inner)))]
                    if emp_inner and (r.random() < 0.85 and not late) else
                    emp_all[int(r.integers(len(emp_all)))])

        a = r.random()
        if a < wall_love and _empty(g, OUTER):
            n = int(r.choice([1, 2, 2, 3, 3, 4]))
            for _ in range(n):
                eo = _empty(g, OUTER)
                if not eo:
                    break
                pref = [x for x in eo if side_of(*x) == fav_side]
                if not pref or r.random() < 0.25:
                    pref = eo
                    fav_side = side_of(*pref[int(r.integers(len(pref)))])
                    pref = [x for x in eo if side_of(*x) == fav_side]
                # grow next to existing walls when possible
                nxt = [x for x in pref if any(g[y][xx] == 'W' for xx, y in _nbrs4(*x))]
                cand = nxt if nxt and r.random() < 0.7 else pref
                place(cand[int(r.integers(len(cand)))], 'W')
        elif a < wall_love + 0.2:
            n = int(r.choice([1, 1, 2, 2, 3, 4]))
            c0 = pick_cell()
            place(c0, 'G')
            grow([c0], n - 1, 'G')
        elif a < wall_love + 0.4:
            place(pick_cell(), str(1 + int(r.choice(5, p=CHURCH_W))))
        else:
            ks = list(PERSON_W)
            p = np.array([PERSON_W[k] for k in ks])
            ch = str(r.choice(ks, p=p / p.sum()))
            c0 = pick_cell()
            place(c0, ch)
            if ch == 'a':
                nh = int(r.integers(0, 4))
                fr = [x for x in _nbrs8(*c0) if g[x[1]][x[0]] == '.' and x in allsp]
                if nh and fr:
                    first = fr[int(r.integers(len(fr)))]
                    place(first, 'H')
                    grow([first], nh - 1, 'H')
    return [''.join(row) for row in g]


def city_random(rng):
    """any symbol anywhere (walls only on the outer ring)."""
    r = rng
    g = [list(s) for s in START]
    p = r.uniform(0.1, 1.0)
    syms = list('GH12345cspamjn')
    w = np.array([1.2, 1.2, 1, 1, 1, 1, 1, .8, .8, .8, .8, .8, .8, .8])
    w /= w.sum()
    for (c, rr) in OUTER + INNER:
        if g[rr][c] != '.' or r.random() > p:
            continue
        if is_outer(c, rr) and r.random() < 0.4:
            g[rr][c] = 'W'
        else:
            g[rr][c] = str(r.choice(syms, p=w))
    return [''.join(row) for row in g]


def make_city(rng):
    return city_game(rng) if rng.random() < 0.6 else city_random(rng)
