"""Photographing the flat board: table, pose (rotation, mild perspective), lens distortion, light,
shadow, glare, blur, noise and JPEG compression."""

from __future__ import annotations

import cv2
import numpy as np

from vision.synth.sixth_renderer.board import SIDE, smooth_noise

FRAMES = ((1024, 768), (960, 720), (1100, 825), (900, 900), (1000, 750), (880, 660), (1080, 810), (800, 800))


def _table(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    """A table top: wood, plain laminate, cloth or dark felt (BGR float32)."""
    kind = rng.integers(0, 4)
    small = (h // 4, w // 4)
    if kind == 0:  # wood grain
        base = np.array([60, 100, 150]) * rng.uniform(0.6, 1.3)
        yy, xx = np.mgrid[0:small[0], 0:small[1]].astype(np.float32)
        a = rng.uniform(0, np.pi)
        t = xx * np.cos(a) + yy * np.sin(a)
        grain = np.sin(t * rng.uniform(0.5, 1.4) + smooth_noise(rng, small, 25) * 1.5)
        tex = 1 + 0.12 * grain + 0.08 * smooth_noise(rng, small, 8)
    else:
        base = [np.array([200, 200, 200]), np.array([70, 110, 60]), np.array([40, 40, 45])][kind - 1]
        base = base * rng.uniform(0.7, 1.15) + rng.normal(0, 12, 3)
        tex = 1 + 0.06 * smooth_noise(rng, small, 10) + rng.normal(0, 0.02, small).astype(np.float32)
    img = tex[..., None] * np.asarray(base, np.float32)
    return cv2.resize(img.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)


def shoot(rng: np.random.Generator, flat: np.ndarray, gentle: bool = False) -> np.ndarray:
    """One photo (BGR uint8) of the flat board (SIDE x SIDE BGR uint8)."""
    w, h = FRAMES[rng.integers(len(FRAMES))]
    if rng.random() < 0.5:
        w, h = h, w
    rot = rng.uniform(0, 2 * np.pi)
    fit = min(w, h) / (abs(np.cos(rot)) + abs(np.sin(rot)))
    side = fit * rng.uniform(0.7, 0.9)
    half = side / 2 * (1 + 0.12)  # room for perspective
    spanx = (abs(np.cos(rot)) + abs(np.sin(rot))) * half
    cx = rng.uniform(min(w / 2, spanx), max(w / 2, w - spanx))
    cy = rng.uniform(min(h / 2, spanx), max(h / 2, h - spanx))
    R = np.array([[np.cos(rot), -np.sin(rot)], [np.sin(rot), np.cos(rot)]])
    unit = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float64) * side / 2
    persp = 0.015 if gentle else rng.uniform(0.0, 0.05)
    dst = unit @ R.T + [cx, cy] + rng.normal(0, persp * side, (4, 2))
    src = np.array([[0, 0], [SIDE, 0], [SIDE, SIDE], [0, SIDE]], np.float64)
    Hinv = cv2.getPerspectiveTransform(dst.astype(np.float32), src.astype(np.float32))
    # lens: each output pixel looks up its undistorted place, then the board pixel there
    k1 = 0.0 if gentle else rng.uniform(-0.07, 0.04)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    dx, dy = xx - w / 2, yy - h / 2
    r2 = (dx * dx + dy * dy) / ((w * w + h * h) / 4)
    f = 1 + k1 * r2
    ux, uy = w / 2 + dx * f, h / 2 + dy * f
    den = Hinv[2, 0] * ux + Hinv[2, 1] * uy + Hinv[2, 2]
    mx = ((Hinv[0, 0] * ux + Hinv[0, 1] * uy + Hinv[0, 2]) / den).astype(np.float32)
    my = ((Hinv[1, 0] * ux + Hinv[1, 1] * uy + Hinv[1, 2]) / den).astype(np.float32)
    board = cv2.remap(flat, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT).astype(np.float32)
    ones = np.full((SIDE, SIDE), 255, np.uint8)
    alpha = cv2.remap(ones, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT).astype(np.float32) / 255
    table = _table(rng, w, h)
    # the board's drop shadow and thickness edge
    sh = cv2.GaussianBlur(alpha, (0, 0), rng.uniform(3, 9))
    shift = np.float32([[1, 0, rng.uniform(-8, 8)], [0, 1, rng.uniform(-8, 8)]])
    sh = cv2.warpAffine(sh, shift, (w, h))
    table *= (1 - rng.uniform(0.25, 0.5) * sh)[..., None]
    img = table * (1 - alpha[..., None]) + board * alpha[..., None]
    # uneven, tinted light
    light = 1 + rng.uniform(0.08, 0.25) * smooth_noise(rng, (h, w), max(w, h) // 3)
    gx, gy = rng.normal(0, 0.25, 2)
    light += gx * (xx / w - 0.5) + gy * (yy / h - 0.5)
    light *= rng.uniform(0.75, 1.15)
    tint = np.array([1.0, 1.0, 1.0]) + rng.normal(0, 0.06, 3)
    img *= light[..., None] * tint.astype(np.float32)
    # a soft shadow (arm, camera stand) over part of the frame
    if rng.random() < 0.5:
        blob = np.zeros((h // 4, w // 4), np.float32)
        pts = rng.uniform([0, 0], [w // 4, h // 4], (int(rng.integers(3, 6)), 2)).astype(np.int32)
        cv2.fillPoly(blob, [cv2.convexHull(pts)], 1.0)
        blob = cv2.GaussianBlur(cv2.resize(blob, (w, h)), (0, 0), rng.uniform(15, 40))
        img *= (1 - rng.uniform(0.15, 0.4) * blob)[..., None]
    # glare: a bright soft spot
    if rng.random() < (0.25 if gentle else 0.6):
        gxp, gyp = rng.uniform(0, w), rng.uniform(0, h)
        s = rng.uniform(0.04, 0.15) * max(w, h)
        g = np.exp(-(((xx - gxp) / (s * rng.uniform(0.5, 1.5))) ** 2 + ((yy - gyp) / s) ** 2))
        img += (g * rng.uniform(40, 140 if not gentle else 60))[..., None]
    img = np.clip(img, 0, 255)
    sigma = rng.uniform(0.3, 0.8 if gentle else 1.4)
    img = cv2.GaussianBlur(img, (0, 0), sigma)
    img += rng.normal(0, rng.uniform(1, 5), img.shape).astype(np.float32)
    out = np.clip(img, 0, 255).astype(np.uint8)
    q = int(rng.integers(40, 92))
    ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, q])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else out
