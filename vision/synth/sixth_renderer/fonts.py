"""Handwriting fonts (WOFF from the web-font cache) decoded for Pillow, with the evaluation fonts barred."""

from __future__ import annotations

import io
from functools import cache, lru_cache
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

FONT_DIR = Path.home() / ".cache" / "companion" / "web-fonts"
# Reserved for evaluation: never render with these.
FORBIDDEN = frozenset({"sunshiney", "kranky", "love-ya-like-a-sister", "east-sea-dokdo", "cute-font",
                       "hachi-maru-pop", "yeon-sung", "sofadi-one", "kavivanar"})
# Print-like hands a person can read at a glance (scripts with loops everywhere are left out).
WANTED = (
    "caveat", "caveat-brush", "architects-daughter", "amatic-sc", "annie-use-your-telescope", "coming-soon",
    "covered-by-your-grace", "dekko", "delius", "gaegu", "gamja-flower", "gloria-hallelujah", "gochi-hand",
    "handlee", "indie-flower", "itim", "just-another-hand", "kalam", "mali", "mansalva", "neucha",
    "nothing-you-could-do", "patrick-hand", "permanent-marker", "pangolin", "reenie-beanie", "rock-salt",
    "schoolbell", "shadows-into-light", "short-stack", "sue-ellen-francisco", "the-girl-next-door",
    "walter-turncoat", "waiting-for-the-sunrise", "zeyada", "edu-sa-beginner", "edu-qld-beginner",
    "playpen-sans", "finger-paint", "chilanka", "swanky-and-moo-moo", "just-me-again-down-here",
    "loved-by-the-king", "over-the-rainbow", "poor-story", "hi-melody", "yomogi", "grape-nuts",
    "delicious-handrawn", "sedgwick-ave", "unkempt", "happy-monkey", "kite-one", "give-you-glory",
    "dawning-of-a-new-day", "homemade-apple", "mynerve", "shantell-sans", "gluten", "nerko-one",
)
NEEDED = "12345cspamjnCSPAMJN"


def check_allowed(name: str) -> None:
    if name in FORBIDDEN:
        raise ValueError(f"font {name!r} is reserved for evaluation and must not be used")


@cache
def _ttf_bytes(name: str) -> bytes | None:
    check_allowed(name)
    path = FONT_DIR / f"{name}.woff"
    if not path.exists():
        return None
    try:
        from fontTools.ttLib import TTFont  # the ``train`` extra: without it, every glyph is drawn in strokes

        font = TTFont(str(path))
        cmap = font.getBestCmap() or {}
        if any(ord(ch) not in cmap for ch in NEEDED):
            return None
        font.flavor = None
        buf = io.BytesIO()
        font.save(buf)
        return buf.getvalue()
    except Exception:  # a broken font file is simply not used
        return None


@cache
def available_fonts() -> tuple[str, ...]:
    return tuple(n for n in WANTED if n not in FORBIDDEN and _ttf_bytes(n) is not None)


@cache
def _pil_font(name: str) -> ImageFont.FreeTypeFont:
    data = _ttf_bytes(name)
    assert data is not None
    return ImageFont.truetype(io.BytesIO(data), 96)


@lru_cache(maxsize=4096)
def glyph_mask(name: str, ch: str) -> np.ndarray:
    """The glyph cropped to its ink, float32 0..1 (rendered at 96 px)."""
    check_allowed(name)
    font = _pil_font(name)
    img = Image.new("L", (220, 220), 0)
    ImageDraw.Draw(img).text((50, 30), ch, fill=255, font=font)
    arr = np.asarray(img, np.float32) / 255.0
    ys, xs = np.nonzero(arr > 0.2)
    if len(xs) == 0:
        return np.ones((4, 4), np.float32)
    return np.ascontiguousarray(arr[ys.min():ys.max() + 1, xs.min():xs.max() + 1])


def fitted_glyph(name: str, ch: str, w: int, h: int, slant: float, grow: int) -> np.ndarray:
    """The glyph scaled into a w x h box (aspect kept), slanted, thickened by ``grow`` px."""
    g = glyph_mask(name, ch)
    gh, gw = g.shape
    s = min(w / gw, h / gh)
    nw, nh = max(2, int(gw * s)), max(2, int(gh * s))
    g = cv2.resize(g, (nw, nh), interpolation=cv2.INTER_AREA)
    pad = int(abs(slant) * nh) + grow + 2
    canvas = np.zeros((nh + 2 * pad, nw + 2 * pad), np.float32)
    canvas[pad:pad + nh, pad:pad + nw] = g
    if slant:
        m = np.float32([[1, -slant, slant * (nh / 2 + pad)], [0, 1, 0]])
        canvas = cv2.warpAffine(canvas, m, (canvas.shape[1], canvas.shape[0]), flags=cv2.INTER_LINEAR)
    if grow > 0:
        k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * grow + 1, 2 * grow + 1))
        canvas = cv2.dilate(canvas, k)
    return canvas
