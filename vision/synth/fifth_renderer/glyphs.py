"""Letters and digits for the fifth renderer: handwriting fonts (WOFF, decoded lazily) or stroke skeletons."""

import io
import math
from pathlib import Path

import cv2
import numpy as np

# Reserved for evaluation: never used here.
FORBIDDEN = {"sunshiney", "kranky", "love-ya-like-a-sister", "east-sea-dokdo", "cute-font",
             "hachi-maru-pop", "yeon-sung", "sofadi-one", "kavivanar"}

FONT_DIR = Path.home() / ".cache" / "companion" / "web-fonts"
MAX_FONT_BYTES = 1_200_000  # big CJK fonts load slowly; their Latin letters add little

# Script fonts whose capitals are hard to read: used for lower case and digits only.
SCRIPT_CAPS = {
    "alex-brush", "allison", "allura", "arizonia", "babylonica", "beth-ellen", "bilbo", "comforter",
    "corinthia", "dr-sugiyama", "ephesis", "felipa", "fuggles", "great-vibes", "grey-qo",
    "herr-von-muellerhoff", "hurricane", "ingrid-darling", "italianno", "lovers-quarrel", "meddon",
    "mea-culpa", "moon-dance", "mr-dafoe", "mr-de-haviland", "mrs-saint-delafield", "ms-madi", "my-soul",
    "oooh-baby", "parisienne", "puppies-play", "qwigley", "ruthie", "sacramento", "send-flowers",
    "stalemate", "tangerine", "the-nautigal", "updock", "vibur", "waiting-for-the-sunrise", "yesteryear",
    "zeyada", "licorice", "norican", "niconne", "style-script", "rochester",
    "meie-script", "clicker-script", "cedarville-cursive", "la-belle-aurore", "dawning-of-a-new-day", "homemade-apple", "kolker-brush", "solitreo", "liu-jian-mao-cao", "marck-script",
}


def _find_fonts() -> list[str]:
    if not FONT_DIR.is_dir():
        return []
    names = []
    for path in sorted(FONT_DIR.glob("*.woff")):
        if path.stem in FORBIDDEN or path.stat().st_size > MAX_FONT_BYTES:
            continue
        names.append(path.stem)
    return names


FONTS: list[str] = _find_fonts()

_ttf_bytes: dict[str, bytes | None] = {}
_cmaps: dict[str, set[int]] = {}


def _load(name: str) -> bytes | None:
    """The font decoded to TTF bytes (cached), or None when it cannot be read."""
    if name in FORBIDDEN:
        raise ValueError(f"font {name} is reserved")
    if name not in _ttf_bytes:
        try:
            from fontTools.ttLib import TTFont
            font = TTFont(str(FONT_DIR / f"{name}.woff"))
            _cmaps[name] = set(font.getBestCmap() or {})
            font.flavor = None
            buf = io.BytesIO()
            font.save(buf)
            _ttf_bytes[name] = buf.getvalue()
        except Exception:  # noqa: BLE001 - a broken font is skipped
            _ttf_bytes[name] = None
    return _ttf_bytes[name]


def font_has(name: str, chars: str) -> bool:
    if _load(name) is None:
        return False
    if any(c.isupper() for c in chars) and name in SCRIPT_CAPS:
        return False
    return all(ord(c) in _cmaps[name] for c in chars)


_pil_fonts: dict[tuple[str, int], object] = {}


def font_mask(name: str, char: str, height: int, width_px: float) -> np.ndarray | None:
    """A tight float32 mask (0..1) of ``char`` in font ``name`` about ``height`` px tall, strokes
    thickened to about ``width_px``."""
    from PIL import Image, ImageDraw, ImageFont
    data = _load(name)
    if data is None:
        return None
    size = int(height * 1.6)
    key = (name, size)
    if key not in _pil_fonts:
        _pil_fonts[key] = ImageFont.truetype(io.BytesIO(data), size)
    font = _pil_fonts[key]
    img = Image.new("L", (size * 3, size * 3), 0)
    ImageDraw.Draw(img).text((size, size // 2), char, fill=255, font=font)
    mask = np.asarray(img, np.uint8)
    ys, xs = np.nonzero(mask > 60)
    if len(xs) < 5:
        return None
    mask = mask[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    # scale so the glyph is `height` tall (letters differ in height; keep their own proportion)
    scale = height / max(mask.shape[0], 1)
    mask = cv2.resize(mask, (max(1, round(mask.shape[1] * scale)), max(1, height)), interpolation=cv2.INTER_AREA)
    mask = cv2.copyMakeBorder(mask, 4, 4, 4, 4, cv2.BORDER_CONSTANT, value=0)
    binary = (mask > 110).astype(np.uint8)
    dist = cv2.distanceTransform(binary, cv2.DIST_L2, 3)
    stroke = 2.0 * float(np.percentile(dist[dist > 0], 90)) if (dist > 0).any() else width_px
    grow = (width_px - stroke) / 2
    if grow >= 0.7:
        k = int(round(grow)) * 2 + 1
        mask = cv2.dilate(mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    return mask.astype(np.float32) / 255.0


# ---- stroke skeletons: unit box, x right, y down; 2-3 variants a character ------------------------

def _arc(cx, cy, rx, ry, a0, a1, n=14):
    """Points on an ellipse from angle a0 to a1 (degrees, counter-clockwise as seen, 0 = right)."""
    return [(cx + rx * math.cos(math.radians(a)), cy - ry * math.sin(math.radians(a)))
            for a in np.linspace(a0, a1, n)]


_C = [[_arc(0.55, 0.5, 0.45, 0.5, 50, 310)],
      [[(0.9, 0.1), (0.2, 0.05), (0.1, 0.5), (0.2, 0.95), (0.9, 0.9)]],
      [_arc(0.55, 0.5, 0.45, 0.5, 70, 330, 16)]]
_S = [[_arc(0.5, 0.26, 0.36, 0.25, 20, 270) + _arc(0.5, 0.75, 0.38, 0.25, 90, -160)],
      [[(0.9, 0.08), (0.15, 0.08), (0.12, 0.48), (0.88, 0.52), (0.88, 0.94), (0.1, 0.92)]],
      [_arc(0.55, 0.28, 0.33, 0.27, 30, 240) + [(0.82, 0.68)] + _arc(0.5, 0.75, 0.35, 0.23, 20, -170)]]
_P = [[[(0.2, 1.0), (0.2, 0.0)], [(0.2, 0.02)] + _arc(0.45, 0.28, 0.4, 0.26, 90, -90) + [(0.2, 0.55)]],
      [[(0.2, 0.0), (0.2, 1.0)], _arc(0.5, 0.3, 0.32, 0.3, 180, -180, 18)],
      [[(0.25, 1.0), (0.2, 0.05), (0.75, 0.05), (0.8, 0.45), (0.22, 0.5)]]]
_A = [[[(0.05, 1.0), (0.5, 0.0), (0.95, 1.0)], [(0.25, 0.6), (0.75, 0.6)]],
      [_arc(0.45, 0.55, 0.35, 0.4, 80, 440, 20), [(0.82, 0.1), (0.82, 1.0)]],
      [_arc(0.5, 0.3, 0.33, 0.25, 160, 0) + [(0.82, 1.0)], _arc(0.5, 0.72, 0.33, 0.25, 0, 360, 18)]]
_M = [[[(0.05, 1.0), (0.1, 0.0), (0.5, 0.65), (0.9, 0.0), (0.95, 1.0)]],
      [[(0.08, 1.0), (0.08, 0.2)], _arc(0.3, 0.4, 0.21, 0.25, 180, 0) + [(0.51, 1.0)],
       _arc(0.72, 0.4, 0.21, 0.25, 180, 0) + [(0.93, 1.0)]],
      [[(0.05, 1.0), (0.2, 0.0), (0.5, 0.8), (0.8, 0.0), (0.95, 1.0)]]]
_J = [[[(0.65, 0.0), (0.65, 0.75)] + _arc(0.4, 0.75, 0.25, 0.22, 0, -180), [(0.3, 0.02), (0.95, 0.02)]],
      [[(0.62, 0.28), (0.62, 0.8)] + _arc(0.38, 0.8, 0.24, 0.18, 0, -170), [(0.62, 0.02), (0.64, 0.08)]],
      [[(0.7, 0.0), (0.68, 0.8), (0.45, 1.0), (0.15, 0.85)]]]
_N = [[[(0.1, 1.0), (0.1, 0.0), (0.9, 1.0), (0.9, 0.0)]],
      [[(0.12, 0.2), (0.12, 1.0)], _arc(0.5, 0.5, 0.38, 0.35, 180, 0) + [(0.88, 1.0)]],
      [[(0.1, 1.0), (0.15, 0.0), (0.85, 0.95), (0.9, 0.0)]]]
_DIGITS = {
    "1": [[[(0.25, 0.25), (0.6, 0.0), (0.6, 1.0)]],
          [[(0.3, 0.2), (0.55, 0.0), (0.55, 1.0)], [(0.25, 1.0), (0.85, 1.0)]],
          [[(0.5, 0.0), (0.48, 1.0)]]],
    "2": [[_arc(0.5, 0.28, 0.38, 0.27, 160, -30) + [(0.08, 1.0), (0.92, 1.0)]],
          [[(0.1, 0.15), (0.5, 0.0), (0.88, 0.2), (0.1, 1.0), (0.95, 0.98)]]],
    "3": [[_arc(0.48, 0.26, 0.36, 0.25, 150, -90) + _arc(0.48, 0.74, 0.4, 0.26, 90, -150)],
          [[(0.1, 0.02), (0.9, 0.02), (0.4, 0.42)] + _arc(0.5, 0.7, 0.38, 0.28, 110, -160)]],
    "4": [[[(0.72, 1.0), (0.72, 0.0), (0.05, 0.7), (0.95, 0.7)]],
          [[(0.25, 0.0), (0.12, 0.6), (0.9, 0.6)], [(0.7, 0.15), (0.7, 1.0)]]],
    "5": [[[(0.85, 0.0), (0.2, 0.0), (0.15, 0.45)] + _arc(0.48, 0.68, 0.4, 0.3, 140, -150)],
          [[(0.2, 0.0), (0.15, 0.45), (0.75, 0.45), (0.85, 0.75), (0.65, 1.0), (0.1, 0.95)],
           [(0.2, 0.02), (0.9, 0.0)]]],
}
SKELETONS: dict[str, list] = {"c": _C, "s": _S, "p": _P, "a": _A, "m": _M, "j": _J, "n": _N, **_DIGITS}


def skeleton(char: str, variant: int) -> list[list[tuple[float, float]]]:
    """Polylines of ``char`` (variant index wraps) in a unit box."""
    shapes = SKELETONS[char.lower()]
    return shapes[variant % len(shapes)]
