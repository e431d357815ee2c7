"""Table, clutter, overhead camera (perspective, lens), light and sensor effects."""
import cv2
import numpy as np
from board import noise


def table(rng, W, H):
    r = rng
    kind = r.choice(['wood', 'wood', 'cloth', 'plain'])
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    if kind == 'wood':
        base = np.array(r.choice([[150, 105, 65], [185, 145, 100], [110, 72, 45], [205, 175, 135],
                                  [90, 60, 40], [165, 120, 80]]), np.float32) * (1 + r.normal(0, 0.05, 3))
        a = r.uniform(0, np.pi)
        v = -xx * np.sin(a) + yy * np.cos(a)
        warp = noise(r, H, W, 60) * r.uniform(5, 20)
        f = r.uniform(0.15, 0.5)
        grain = np.sin((v + warp) * f) * 0.5 + 0.5 * np.sin((v + warp * 1.7) * f * 2.3)
        fine = noise(r, H, W, 2)
        val = 1 + 0.06 * grain + 0.025 * fine + 0.05 * noise(r, H, W, 120)
        plank = r.uniform(80, 220)
        seam = (np.abs((v + 1000) % plank) < 1.5).astype(np.float32) * (r.random() < 0.6)
        val *= 1 - 0.35 * cv2.GaussianBlur(seam, (3, 3), 0)
        img = base * val[..., None]
    elif kind == 'cloth':
        base = np.array(r.choice([[40, 95, 60], [50, 60, 110], [120, 40, 45], [100, 100, 105],
                                  [200, 195, 185], [60, 55, 50], [150, 130, 100]]), np.float32)
        base *= (1 + r.normal(0, 0.06, 3))
        p = r.uniform(1.2, 2.2)
        weave = np.sin(xx * p) * np.sin(yy * p) * 0.04
        val = 1 + weave + 0.04 * noise(r, H, W, 1) + 0.05 * noise(r, H, W, 80)
        img = base * val[..., None]
    else:
        base = np.array(r.choice([[235, 235, 230], [200, 200, 195], [60, 60, 62], [170, 175, 180],
                                  [225, 215, 195], [30, 30, 32]]), np.float32) * (1 + r.normal(0, 0.04, 3))
        val = 1 + 0.02 * noise(r, H, W, 3) + 0.04 * noise(r, H, W, 150)
        img = base * val[..., None]
    return np.clip(img, 0, 255), str(kind)


def _clutter_item(rng, W, H, img, forbid, u=1.0):
    """draw one item (pen, die, card, coin) where it does not touch forbid (mask); True if drawn."""
    r = rng
    kind = r.choice(['pen', 'die', 'card', 'coin', 'pen'])
    for _ in range(8):
        cx, cy = r.uniform(0, W), r.uniform(0, H)
        ang = r.uniform(0, 180)
        m = np.zeros((H, W), np.uint8)
        layers = []
        if kind == 'pen':
            L, w = r.uniform(90, 150) * u, r.uniform(10, 16) * u
            box = cv2.boxPoints(((cx, cy), (L, w), ang)).astype(np.int32)
            cv2.fillConvexPoly(m, box, 255, cv2.LINE_AA)
            body = r.choice([[235, 235, 235], [30, 30, 30], [200, 40, 40], [40, 70, 170], [40, 140, 70]])
            layers.append((box, body))
            t = np.radians(ang)
            d = np.array([np.cos(t), np.sin(t)])
            cap = ((cx + d[0] * L * 0.38, cy + d[1] * L * 0.38), (L * 0.26, w * 1.08), ang)
            layers.append((cv2.boxPoints(cap).astype(np.int32),
                           r.choice([[30, 30, 30], [30, 60, 170], [190, 35, 40], [30, 130, 60]])))
        elif kind == 'die':
            s = r.uniform(16, 22) * u
            box = cv2.boxPoints(((cx, cy), (s, s), ang)).astype(np.int32)
            cv2.fillConvexPoly(m, box, 255, cv2.LINE_AA)
            layers.append((box, [240, 238, 230]))
            sym = r.choice([[112, 70, 40], [225, 120, 40], [130, 130, 130], [120, 50, 150], [40, 140, 60]])
            layers.append(('circle', (int(cx), int(cy), max(2, int(s * 0.2))), sym))
        elif kind == 'card':
            w, h = r.uniform(60, 70) * u, r.uniform(90, 100) * u
            box = cv2.boxPoints(((cx, cy), (w, h), ang)).astype(np.int32)
            cv2.fillConvexPoly(m, box, 255, cv2.LINE_AA)
            col = r.choice([[200, 60, 50], [40, 80, 150], [230, 225, 210], [60, 120, 70]])
            layers.append((box, col))
            layers.append((cv2.boxPoints(((cx, cy), (w * 0.8, h * 0.85), ang)).astype(np.int32),
                           [min(255, c + 40) for c in col]))
        else:
            rad = r.uniform(9, 14) * u
            cv2.circle(m, (int(cx), int(cy)), int(rad), 255, -1, cv2.LINE_AA)
            layers.append(('circle', (int(cx), int(cy), int(rad)), [215, 180, 60]))
        if (m > 0).sum() == 0 or (forbid[m > 0] > 0).any():
            continue
        # drop shadow
        sh = cv2.GaussianBlur(m, (0, 0), 4).astype(np.float32) / 255
        sh = np.roll(sh, (4, 4), (0, 1))
        img *= (1 - 0.35 * sh)[..., None]
        for lay in layers:
            if isinstance(lay[0], str):
                cv2.circle(img, lay[1][:2], lay[1][2], [float(v) for v in lay[2]], -1, cv2.LINE_AA)
            else:
                cv2.fillConvexPoly(img, lay[0], [float(v) for v in lay[1]], cv2.LINE_AA)
        forbid |= cv2.dilate(m, np.ones((9, 9), np.uint8))
        return True
    return False


def look_at_homography(rng, S, W, H, cell_px, C):
    """camera 50-100 cm above the table, tilted up to ~20 deg, board at any rotation."""
    r = rng
    h = r.uniform(50, 100)
    cell_cm = r.uniform(2.6, 3.3)
    sc = cell_cm / C                             # cm per canonical px
    tilt = np.radians(min(20, abs(r.normal(0, 9))))
    az = r.uniform(0, 2 * np.pi)
    theta = r.uniform(0, 2 * np.pi)
    f = cell_px * h / cell_cm
    cam = np.array([h * np.tan(tilt) * np.cos(az), h * np.tan(tilt) * np.sin(az), h])
    z = -cam / np.linalg.norm(cam)
    up = np.array([np.cos(theta), np.sin(theta), 0.0])
    x = np.cross(up, z)
    x /= np.linalg.norm(x)
    y = np.cross(z, x)
    R = np.stack([x, y, z])
    corners = np.array([[0, 0], [S, 0], [S, S], [0, S]], np.float64)
    P = np.hstack([(corners - S / 2) * sc * np.array([1, -1]), np.zeros((4, 1))])  # board v runs along -Y
    Q = (P - cam) @ R.T
    uv = f * Q[:, :2] / Q[:, 2:3]
    lo, hi = uv.min(0), uv.max(0)
    span = hi - lo
    free = np.array([W, H]) - span
    mx = np.maximum(free * 0.08, 4)
    pos = np.array([r.uniform(mx[0], max(mx[0], free[0] - mx[0])), r.uniform(mx[1], max(mx[1], free[1] - mx[1]))])
    uv = uv - lo + pos
    Hm = cv2.getPerspectiveTransform(corners.astype(np.float32), uv.astype(np.float32))
    return Hm, uv


def shoot(board_rgb, board_alpha, rng, C):
    """board image (float RGB 0..1, canonical) -> photo uint8 RGB."""
    r = rng
    S = board_rgb.shape[0]
    cell_px = float(r.uniform(20, 50) if r.random() < 0.8 else r.uniform(28, 42))
    bsz = 7 * cell_px * 1.05
    fac = r.uniform(1.15, 1.9)
    asp = r.choice([1.0, 4 / 3, 3 / 4, 16 / 9, 9 / 16, 3 / 2])
    W = int(np.clip(bsz * fac * np.sqrt(asp), 500, 1000))
    H = int(np.clip(bsz * fac / np.sqrt(asp), 500, 1000))
    need = bsz * 1.5 + 20
    W, H = max(W, min(1000, int(need))), max(H, min(1000, int(need)))
    img, tkind = table(r, W, H)
    Hm, quad = look_at_homography(r, S, W, H, cell_px, C)
    # downscale canonical board first (anti-aliasing), then warp
    k = min(1.0, cell_px / C * 1.3)
    sm = cv2.resize(board_rgb, (int(S * k), int(S * k)), interpolation=cv2.INTER_AREA)
    am = cv2.resize(board_alpha.astype(np.float32) / 255, (int(S * k), int(S * k)), interpolation=cv2.INTER_AREA)
    Hk = Hm @ np.diag([1 / k, 1 / k, 1])
    wb = cv2.warpPerspective(sm, Hk, (W, H), flags=cv2.INTER_LINEAR)
    wa = cv2.warpPerspective(am, Hk, (W, H), flags=cv2.INTER_LINEAR)
    # clutter around (never on) the board
    forbid = (cv2.dilate((wa > 0.01).astype(np.uint8) * 255, np.ones((15, 15), np.uint8)))
    for _ in range(int(r.choice([0, 0, 1, 1, 2, 3, 4]))):
        _clutter_item(r, W, H, img, forbid, cell_px / 28.0)
    # board shadow and board
    sh = cv2.GaussianBlur(wa, (0, 0), r.uniform(2, 8))
    sh = np.roll(sh, (int(r.integers(-5, 6)), int(r.integers(-5, 6))), (0, 1))
    img *= (1 - r.uniform(0.15, 0.4) * sh)[..., None]
    img = img / 255.0
    img = img * (1 - wa[..., None]) + wb * wa[..., None]

    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    # lamp gradient
    lx, ly = r.uniform(-0.5, 1.5) * W, r.uniform(-0.5, 1.5) * H
    d2 = ((xx - lx) ** 2 + (yy - ly) ** 2) / (W * W + H * H)
    light = 1 - r.uniform(0, 0.45) * np.clip(d2, 0, 1.5)
    # soft shadow of a hand/arm or phone across part of the board
    if r.random() < 0.3:
        m = np.zeros((H, W), np.float32)
        qc = quad.mean(0)
        edge_pt = np.array([r.choice([-50, W + 50]), r.uniform(0, H)]) if r.random() < 0.5 else \
            np.array([r.uniform(0, W), r.choice([-50, H + 50])])
        tip = qc + (quad[int(r.integers(4))] - qc) * r.uniform(0.2, 0.9)
        wdt = r.uniform(40, 110)
        if r.random() < 0.6:  # arm + hand
            cv2.line(m, tuple(int(v) for v in edge_pt), tuple(int(v) for v in tip), 1.0, int(wdt))
            cv2.circle(m, tuple(int(v) for v in tip), int(wdt * 0.7), 1.0, -1)
        else:  # phone: rectangle
            cv2.fillConvexPoly(m, cv2.boxPoints((tuple(tip), (wdt * 1.1, wdt * 2.0), r.uniform(0, 180)))
                               .astype(np.int32), 1.0)
        m = cv2.GaussianBlur(m, (0, 0), r.uniform(12, 35))
        light *= 1 - r.uniform(0.15, 0.45) * m
    img *= light[..., None]
    # glare on the glossy board (never a white-out)
    if r.random() < 0.3:
        gx, gy = quad.mean(0) + r.normal(0, 0.25, 2) * (quad.max(0) - quad.min(0))
        sg = r.uniform(15, 70)
        g = np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * sg * sg)) * r.uniform(0.25, 0.6) * wa
        img = img + (1 - img) * g[..., None]
    # white balance, exposure
    t = r.uniform(-0.12, 0.12)  # warm (+) / cool (-) white balance, slight green/magenta tint
    wbal = np.array([1 + t, 1 + r.normal(0, 0.02), 1 - t], np.float32)
    img = img * wbal * r.uniform(0.8, 1.12)
    img = np.clip(img, 0, 1) ** r.uniform(0.85, 1.15)
    # vignetting
    if r.random() < 0.5:
        rr = ((xx - W / 2) ** 2 + (yy - H / 2) ** 2) / ((W / 2) ** 2 + (H / 2) ** 2)
        img *= (1 - r.uniform(0.05, 0.3) * rr)[..., None]
    img = (np.clip(img, 0, 1) * 255).astype(np.float32)
    # lens barrel distortion
    if r.random() < 0.35:
        kk = r.uniform(0.02, 0.1)
        cx, cy = W / 2, H / 2
        nrm = np.sqrt(cx * cx + cy * cy)
        dx, dy = (xx - cx) / nrm, (yy - cy) / nrm
        fct = 1 + kk * (dx * dx + dy * dy)
        fct /= (1 + kk * 0.5)
        img = cv2.remap(img, (cx + dx * fct * nrm).astype(np.float32), (cy + dy * fct * nrm).astype(np.float32),
                        cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    # focus / motion blur
    if r.random() < 0.5:
        img = cv2.GaussianBlur(img, (0, 0), r.uniform(0.4, 1.2))
    if r.random() < 0.15:
        L = int(r.integers(3, 6))
        kern = np.zeros((L, L), np.float32)
        a = r.uniform(0, np.pi)
        c = (L - 1) / 2
        cv2.line(kern, (int(round(c - c * np.cos(a))), int(round(c - c * np.sin(a)))),
                 (int(round(c + c * np.cos(a))), int(round(c + c * np.sin(a)))), 1.0, 1)
        img = cv2.filter2D(img, -1, kern / kern.sum())
    # sensor noise (shot + read), sometimes chroma noise
    sig = r.uniform(1, 6)
    n = r.standard_normal((H, W, 1)).astype(np.float32) * sig * np.sqrt(np.clip(img.mean(2, keepdims=True), 1, 255) / 128)
    if r.random() < 0.4:
        n = n + r.standard_normal((H, W, 3)).astype(np.float32) * sig * 0.5
    img = np.clip(img + n, 0, 255).astype(np.uint8)
    # JPEG-like compression
    q = int(r.integers(35, 96))
    ok, buf = cv2.imencode('.jpg', img[..., ::-1], [cv2.IMWRITE_JPEG_QUALITY, q])
    img = cv2.imdecode(buf, cv2.IMREAD_COLOR)[..., ::-1]
    return np.ascontiguousarray(img), {'cell_px': cell_px, 'table': tkind, 'W': W, 'H': H}
