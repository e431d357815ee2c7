"""Hand-written glyph sources for the third renderer: stroke skeletons and handwriting-font masks.

Skeletons are lists of polylines in a unit box (x right, y down, 0..1); several structural variants per
character (single/double-storey a, pointed/round m, open/closed 4, ...). Font glyphs are precomputed
grey masks cropped to their ink.
"""

from __future__ import annotations

import os

import numpy as np
from PIL import Image, ImageDraw, ImageFont

FONT_DIR = os.path.expanduser("~/.cache/companion/web-fonts")
# Kept for evaluation: never used here.
FORBIDDEN = {"sunshiney", "kranky", "love-ya-like-a-sister", "east-sea-dokdo", "cute-font", "hachi-maru-pop",
             "yeon-sung", "sofadi-one", "kavivanar"}
FONTS = [
    "caveat", "caveat-brush", "architects-daughter", "gochi-hand", "indie-flower", "kalam", "handlee",
    "patrick-hand", "permanent-marker", "shadows-into-light", "shadows-into-light-two", "gloria-hallelujah",
    "coming-soon", "reenie-beanie", "rock-salt", "schoolbell", "covered-by-your-grace", "just-another-hand",
    "nothing-you-could-do", "walter-turncoat", "the-girl-next-door", "short-stack", "sue-ellen-francisco",
    "waiting-for-the-sunrise", "zeyada", "annie-use-your-telescope", "delius", "gaegu", "gamja-flower", "neucha",
    "mansalva", "mynerve", "pangolin", "itim", "sriracha", "dekko", "chilanka", "amatic-sc", "edu-sa-beginner",
    "edu-qld-beginner", "edu-tas-beginner", "edu-vic-wa-nt-beginner", "edu-nsw-act-foundation", "playpen-sans",
    "shantell-sans", "grape-nuts", "loved-by-the-king", "crafty-girls", "over-the-rainbow", "homemade-apple",
    "swanky-and-moo-moo", "unkempt", "just-me-again-down-here", "kite-one", "marck-script", "bad-script",
    "nerko-one", "finger-paint", "fuzzy-bubbles", "comic-relief", "poor-story", "single-day", "yomogi",
    "hi-melody", "delicious-handrawn", "sedgwick-ave", "square-peg", "dawning-of-a-new-day", "calligraffitti",
    "mali", "happy-monkey", "gluten", "kirang-haerang", "zen-kurenaido", "cedarville-cursive",
]
CHARS = "CSPAMJNcspamjn12345"


def load_font_masks(size: int = 80) -> dict[str, dict[str, np.ndarray]]:
    """Render every character of every usable font once; returns font -> char -> float mask (0..1)."""
    out: dict[str, dict[str, np.ndarray]] = {}
    for name in FONTS:
        if name in FORBIDDEN:
            continue
        path = os.path.join(FONT_DIR, name + ".woff")
        if not os.path.exists(path):
            continue
        try:
            font = ImageFont.truetype(path, size)
        except OSError:
            continue
        masks: dict[str, np.ndarray] = {}
        for ch in CHARS:
            img = Image.new("L", (size * 2, size * 2), 0)
            ImageDraw.Draw(img).text((size // 2, size // 3), ch, fill=255, font=font)
            a = np.asarray(img)
            ys, xs = np.nonzero(a > 40)
            if len(xs) < 15:
                break
            m = a[ys.min():ys.max() + 1, xs.min():xs.max() + 1].astype(np.float32) / 255.0
            if m.shape[0] < 8:
                break
            masks[ch] = m
        if len(masks) == len(CHARS):
            out[name] = masks
    return out


def arc(cx: float, cy: float, rx: float, ry: float, a0: float, a1: float, n: int = 0) -> np.ndarray:
    """Elliptic arc from angle a0 to a1 (degrees, y down so positive angles turn clockwise)."""
    n = n or max(6, int(abs(a1 - a0) / 12))
    t = np.radians(np.linspace(a0, a1, n))
    return np.stack([cx + rx * np.cos(t), cy + ry * np.sin(t)], 1)


def pl(*xy: float) -> np.ndarray:
    return np.array(xy, float).reshape(-1, 2)


def cat(*parts: np.ndarray) -> np.ndarray:
    return np.concatenate(parts, 0)


def _skeletons() -> dict[str, list[list[np.ndarray]]]:
    s: dict[str, list[list[np.ndarray]]] = {}
    s["C"] = [[arc(0.55, 0.5, 0.45, 0.5, -45, -315)],
              [arc(0.55, 0.5, 0.45, 0.5, -30, -330)],
              [pl(0.9, 0.12, 0.5, 0.0, 0.12, 0.25, 0.08, 0.75, 0.45, 1.0, 0.92, 0.85)]]
    s["c"] = [[arc(0.55, 0.5, 0.45, 0.48, -50, -320)], [arc(0.52, 0.5, 0.45, 0.5, -20, -300)]]
    s_top = arc(0.5, 0.26, 0.36, 0.26, -15, -270)
    s_bot = arc(0.5, 0.75, 0.4, 0.25, -90, 160)
    s["S"] = [[cat(s_top, s_bot)],
              [cat(arc(0.5, 0.25, 0.32, 0.25, -30, -250), pl(0.6, 0.5), arc(0.5, 0.76, 0.42, 0.24, -60, 170))],
              [pl(0.9, 0.05, 0.2, 0.05, 0.12, 0.45, 0.85, 0.5, 0.9, 0.95, 0.1, 0.95)]]
    s["s"] = [[cat(arc(0.5, 0.27, 0.33, 0.24, -20, -270), arc(0.5, 0.75, 0.38, 0.25, -90, 150))]]
    bowl = arc(0.12, 0.27, 0.8, 0.27, -90, 90)
    bowl[:, 0] = 0.12 + (bowl[:, 0] - 0.12) * 0.95
    s["P"] = [[cat(pl(0.12, 1.0, 0.12, 0.0), bowl)],
              [pl(0.12, 1.0, 0.12, 0.0), cat(pl(0.12, 0.02), arc(0.3, 0.27, 0.6, 0.25, -90, 90), pl(0.12, 0.52))],
              [pl(0.15, 0.0, 0.12, 1.0), pl(0.15, 0.02, 0.8, 0.05, 0.9, 0.35, 0.7, 0.52, 0.14, 0.55)]]
    s["p"] = [[pl(0.12, 0.05, 0.12, 1.0), cat(pl(0.12, 0.15), arc(0.5, 0.3, 0.4, 0.28, -150, 170))],
              [cat(pl(0.15, 1.0, 0.15, 0.05), arc(0.5, 0.3, 0.38, 0.27, -170, 180))]]
    s["A"] = [[pl(0.0, 1.0, 0.5, 0.0, 1.0, 1.0), pl(0.2, 0.62, 0.8, 0.62)],
              [pl(0.05, 1.0, 0.5, 0.0), pl(0.5, 0.0, 0.95, 1.0), pl(0.25, 0.55, 0.78, 0.57)],
              [pl(0.0, 1.0, 0.35, 0.0, 0.65, 0.0, 1.0, 1.0), pl(0.18, 0.6, 0.82, 0.6)],
              [cat(pl(0.05, 1.0), arc(0.5, 0.45, 0.45, 0.45, 180, 360), pl(0.95, 1.0)), pl(0.07, 0.6, 0.93, 0.6)]]
    s["a"] = [[arc(0.45, 0.58, 0.37, 0.4, -20, -380), pl(0.82, 0.2, 0.82, 1.0)],
              [cat(arc(0.45, 0.58, 0.37, 0.4, -10, -360), pl(0.82, 0.2, 0.85, 0.95, 0.98, 1.0))],
              [cat(arc(0.5, 0.28, 0.33, 0.25, 200, 360), pl(0.83, 1.0)),
               cat(pl(0.83, 0.5), arc(0.5, 0.76, 0.34, 0.24, -60, -330))],
              [arc(0.5, 0.55, 0.45, 0.42, -90, -450), pl(0.95, 0.15, 0.95, 1.0)]]
    s["M"] = [[pl(0.0, 1.0, 0.05, 0.0, 0.5, 0.65, 0.95, 0.0, 1.0, 1.0)],
              [pl(0.0, 1.0, 0.1, 0.0, 0.5, 1.0, 0.9, 0.0, 1.0, 1.0)],
              [pl(0.02, 1.0, 0.02, 0.0, 0.5, 0.55), pl(0.5, 0.55, 0.98, 0.0, 0.98, 1.0)],
              [pl(0.0, 1.0, 0.2, 0.0, 0.5, 0.7, 0.8, 0.0, 1.0, 1.0)]]
    s["m"] = [[pl(0.05, 0.1, 0.05, 1.0), cat(pl(0.05, 0.35), arc(0.28, 0.4, 0.23, 0.3, 180, 360), pl(0.51, 1.0)),
               cat(pl(0.51, 0.4), arc(0.74, 0.4, 0.23, 0.3, 180, 360), pl(0.97, 1.0))],
              [cat(pl(0.05, 0.1, 0.05, 1.0, 0.05, 0.3), arc(0.28, 0.4, 0.23, 0.3, 180, 360),
                   pl(0.51, 1.0, 0.51, 0.4), arc(0.74, 0.4, 0.23, 0.3, 180, 360), pl(0.97, 1.0))],
              [pl(0.0, 1.0, 0.05, 0.05, 0.3, 0.9, 0.55, 0.05, 0.75, 0.9, 1.0, 0.05, 1.0, 1.0)]]
    s["J"] = [[cat(pl(0.75, 0.0, 0.75, 0.72), arc(0.45, 0.72, 0.3, 0.28, 0, 170))],
              [pl(0.3, 0.0, 1.0, 0.0), cat(pl(0.65, 0.0, 0.65, 0.75), arc(0.38, 0.75, 0.27, 0.25, 0, 180))],
              [cat(pl(0.7, 0.0, 0.7, 0.85), arc(0.4, 0.85, 0.3, 0.15, 0, 160))]]
    dot = pl(0.62, 0.0, 0.64, 0.02)
    s["j"] = [[cat(pl(0.62, 0.3, 0.62, 0.8), arc(0.32, 0.8, 0.3, 0.2, 0, 160)), dot],
              [pl(0.6, 0.3, 0.6, 1.0), dot],
              [cat(pl(0.4, 0.3, 0.62, 0.3, 0.62, 0.8), arc(0.35, 0.8, 0.27, 0.2, 0, 180)), dot]]
    s["N"] = [[pl(0.05, 1.0, 0.05, 0.0, 0.95, 1.0, 0.95, 0.0)],
              [pl(0.05, 1.0, 0.05, 0.0), pl(0.05, 0.0, 0.95, 1.0), pl(0.95, 1.0, 0.95, 0.0)],
              [pl(0.05, 1.0, 0.1, 0.0, 0.9, 0.95, 0.95, 0.0)]]
    s["n"] = [[pl(0.08, 0.1, 0.08, 1.0), cat(pl(0.08, 0.4), arc(0.5, 0.45, 0.42, 0.35, 180, 360), pl(0.92, 1.0))],
              [cat(pl(0.08, 0.1, 0.08, 1.0, 0.08, 0.35), arc(0.5, 0.45, 0.42, 0.35, 190, 360), pl(0.92, 1.0))]]
    s["1"] = [[pl(0.5, 0.0, 0.5, 1.0)],
              [pl(0.15, 0.28, 0.55, 0.0, 0.55, 1.0)],
              [pl(0.15, 0.28, 0.55, 0.0, 0.55, 1.0), pl(0.15, 1.0, 0.9, 1.0)],
              [pl(0.25, 0.15, 0.6, 0.0, 0.45, 1.0)]]
    s["2"] = [[cat(arc(0.5, 0.3, 0.38, 0.3, 190, 385), pl(0.05, 1.0, 0.95, 1.0))],
              [pl(0.1, 0.1, 0.85, 0.05, 0.1, 1.0, 0.9, 1.0)],
              [cat(arc(0.5, 0.3, 0.38, 0.3, 180, 370), pl(0.1, 1.0), arc(0.22, 0.9, 0.12, 0.1, -90, 200)[:0],
                   pl(0.92, 0.96))]]
    s["3"] = [[cat(arc(0.45, 0.26, 0.37, 0.26, 200, 450), arc(0.45, 0.75, 0.42, 0.25, -90, 160))],
              [cat(pl(0.1, 0.02, 0.85, 0.02, 0.4, 0.42), arc(0.45, 0.72, 0.42, 0.28, -80, 160))],
              [arc(0.45, 0.26, 0.37, 0.26, 200, 450), arc(0.45, 0.75, 0.42, 0.25, -90, 160)]]
    s["4"] = [[pl(0.65, 0.0, 0.05, 0.68, 0.95, 0.68), pl(0.72, 0.3, 0.72, 1.0)],
              [pl(0.72, 1.0, 0.72, 0.0, 0.05, 0.68, 0.95, 0.68)],
              [pl(0.15, 0.0, 0.1, 0.6, 0.95, 0.6), pl(0.72, 0.0, 0.72, 1.0)]]
    s["5"] = [[cat(pl(0.85, 0.0, 0.2, 0.0, 0.15, 0.45), arc(0.5, 0.7, 0.4, 0.3, -150, 150))],
              [pl(0.2, 0.0, 0.15, 0.45), cat(pl(0.15, 0.45), arc(0.5, 0.7, 0.4, 0.3, -150, 150)),
               pl(0.2, 0.0, 0.85, 0.02)],
              [cat(pl(0.85, 0.0, 0.2, 0.0, 0.2, 0.42, 0.8, 0.45, 0.85, 0.9, 0.1, 0.95))]]
    return s


VARIANT_NAMES: dict[str, list[str]] = {
    "C": ["round", "wide_open", "angular"],
    "c": ["round", "open"],
    "S": ["two_arcs", "kinked", "angular"],
    "s": ["two_arcs"],
    "P": ["one_stroke", "two_strokes", "square_bowl"],
    "p": ["stem_then_bowl", "one_stroke"],
    "A": ["pointed", "two_strokes", "flat_top", "round_top"],
    "a": ["single_storey", "single_storey_tail", "double_storey", "round_open"],
    "M": ["pointed_short", "pointed_deep", "split", "splayed"],
    "m": ["round_humps", "round_one_stroke", "pointed"],
    "J": ["hook", "hook_top_bar", "short_hook"],
    "j": ["hook_dot", "no_hook", "serif_hook"],
    "N": ["one_stroke", "three_strokes", "slanted"],
    "n": ["hump", "hump_one_stroke"],
    "1": ["plain", "flag", "flag_base", "slanted_flag"],
    "2": ["curved", "z_shape", "curved_flat"],
    "3": ["round", "flat_top", "two_strokes"],
    "4": ["open", "closed", "open_top"],
    "5": ["one_stroke", "flag_apart", "angular"],
}


def seg(*pts: tuple[float, float]) -> np.ndarray:
    """Polyline through the given points."""
    return np.array(pts, float).reshape(-1, 2)


SKELETONS: dict[str, dict[str, list[np.ndarray]]] = {
    ch: dict(zip(VARIANT_NAMES[ch], vs, strict=True)) for ch, vs in _skeletons().items()}
FONT_MASKS: dict[str, dict[str, np.ndarray]] = {
    f: {ch: np.round(m * 255).astype(np.uint8) for ch, m in d.items()} for f, d in load_font_masks().items()}
