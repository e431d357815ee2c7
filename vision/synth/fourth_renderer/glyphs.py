"""Hand-written glyphs: stroke skeletons for digits 1-5 and person letters, plus
handwriting fonts (WOFF) rendered as marker-thick masks."""
import glob
import os

import numpy as np
from PIL import Image, ImageDraw, ImageFont

FONT_DIR = os.path.expanduser('~/.cache/companion/web-fonts')
# never use these
FORBIDDEN = {'sunshiney', 'kranky', 'love-ya-like-a-sister', 'east-sea-dokdo', 'cute-font',
             'hachi-maru-pop', 'yeon-sung', 'sofadi-one', 'kavivanar'}
# decorative scripts whose capitals no player would write: used for lower case / digits only
FANCY = {'alex-brush', 'allison', 'allura', 'arizonia', 'babylonica', 'clicker-script', 'comforter',
         'corinthia', 'dawning-of-a-new-day', 'ephesis', 'fuggles', 'great-vibes', 'grey-qo',
         'herr-von-muellerhoff', 'hurricane', 'ingrid-darling', 'italianno', 'kolker-brush', 'licorice',
         'lovers-quarrel', 'mea-culpa', 'meddon', 'meie-script', 'mr-de-haviland',
         'mrs-saint-delafield', 'ms-madi', 'my-soul', 'parisienne', 'puppies-play', 'qwigley', 'ruthie',
         'send-flowers', 'stalemate', 'tangerine', 'the-nautigal', 'updock', 'cedarville-cursive',
         'dr-sugiyama', 'niconne', 'norican', 'grand-hotel', 'style-script', 'homemade-apple',
         'la-belle-aurore', 'give-you-glory', 'caramel', 'cookie', 'rochester', 'mr-dafoe',
         'marck-script', 'yellowtail', 'yesteryear', 'sacramento', 'seaweed-script', 'condiment',
         'satisfy', 'pacifico', 'playball', 'moon-dance', 'bilbo', 'beth-ellen', 'felipa'}
# too wild even for digits / lower case
NEVER = {'babylonica', 'herr-von-muellerhoff', 'mrs-saint-delafield', 'meddon', 'lovers-quarrel',
         'mea-culpa', 'updock', 'fuggles', 'grey-qo', 'ruthie', 'my-soul', 'hurricane', 'puppies-play'}


def list_fonts():
    out = []
    for f in sorted(glob.glob(os.path.join(FONT_DIR, '*.woff'))):
        name = os.path.basename(f)[:-5]
        if name in FORBIDDEN or name in NEVER:
            continue
        out.append(name)
    return out


FONTS = list_fonts()
FONTS_UPPER_OK = [f for f in FONTS if f not in FANCY and not f.startswith('playwrite')]
assert not (set(FONTS) & FORBIDDEN)


# ---------------------------------------------------------------- skeletons
def arc(cx, cy, rx, ry, a0, a1, n=None):
    """points on an ellipse arc, angles in degrees, y axis down (increasing = clockwise)."""
    if n is None:
        n = max(6, int(abs(a1 - a0) / 12))
    t = np.radians(np.linspace(a0, a1, n))
    return [(cx + rx * np.cos(a), cy + ry * np.sin(a)) for a in t]


def quad(p0, c, p1, n=10):
    t = np.linspace(0, 1, n)[:, None]
    p0, c, p1 = map(np.asarray, (p0, c, p1))
    pts = (1 - t) ** 2 * p0 + 2 * (1 - t) * t * c + t * t * p1
    return [tuple(p) for p in pts]


def _s_shape(w=1.0):
    up = arc(0.5, 0.25, 0.36 * w, 0.25, 335, 90)
    lo = arc(0.5, 0.75, 0.4 * w, 0.25, 270, 515)
    return [up + lo]


SKEL = {
    '1': [
        [[(0.5, 0.0), (0.5, 1.0)]],
        [[(0.22, 0.25), (0.55, 0.0), (0.55, 1.0)]],
        [[(0.22, 0.25), (0.55, 0.0), (0.55, 1.0)], [(0.25, 1.0), (0.85, 1.0)]],
        [[(0.15, 0.4), (0.62, 0.0), (0.6, 1.0)]],
    ],
    '2': [
        [arc(0.5, 0.28, 0.33, 0.28, 200, 380) + [(0.12, 1.0), (0.9, 1.0)]],
        [arc(0.5, 0.3, 0.34, 0.3, 165, 360) + quad((0.84, 0.3), (0.8, 0.62), (0.12, 1.0))[1:] + [(0.9, 0.98)]],
        [arc(0.48, 0.27, 0.32, 0.27, 190, 370) + [(0.1, 0.97)] + arc(0.25, 0.88, 0.12, 0.1, 140, 420, 8)
         + [(0.92, 1.0)]],
    ],
    '3': [
        [arc(0.48, 0.25, 0.3, 0.25, 200, 450) + arc(0.48, 0.73, 0.36, 0.27, 270, 520)],
        [[(0.12, 0.02), (0.84, 0.02), (0.4, 0.4)] + arc(0.48, 0.68, 0.36, 0.31, 250, 515)],
        [arc(0.45, 0.24, 0.3, 0.24, 200, 440), arc(0.45, 0.72, 0.37, 0.28, 250, 520)],
    ],
    '4': [
        [[(0.62, 0.0), (0.06, 0.68), (0.94, 0.68)], [(0.7, 0.3), (0.7, 1.0)]],
        [[(0.22, 0.0), (0.1, 0.6), (0.88, 0.6)], [(0.7, 0.05), (0.7, 1.0)]],
        [[(0.7, 1.0), (0.7, 0.0), (0.06, 0.7), (0.94, 0.7)]],
    ],
    '5': [
        [[(0.3, 0.02), (0.24, 0.45)] + arc(0.5, 0.68, 0.36, 0.3, 215, 505), [(0.3, 0.02), (0.86, 0.0)]],
        [[(0.86, 0.02), (0.3, 0.02), (0.24, 0.45)] + arc(0.5, 0.68, 0.36, 0.3, 215, 505)],
        [[(0.28, 0.0), (0.22, 0.5)] + arc(0.5, 0.72, 0.35, 0.27, 230, 500), [(0.28, 0.0), (0.84, 0.04)]],
    ],
    'C': [[arc(0.55, 0.5, 0.45, 0.5, 320, 40)], [arc(0.55, 0.5, 0.47, 0.5, 300, 55)]],
    'S': [_s_shape(1.0), _s_shape(0.85)],
    'P': [
        [[(0.15, 1.0), (0.15, 0.0)], [(0.15, 0.0)] + arc(0.15, 0.27, 0.65, 0.27, 270, 450)],
        [[(0.15, 1.0), (0.15, 0.0)] + arc(0.2, 0.28, 0.6, 0.28, 270, 460)],
    ],
    'A': [
        [[(0.04, 1.0), (0.5, 0.0), (0.96, 1.0)], [(0.22, 0.62), (0.78, 0.62)]],
        [[(0.08, 1.0), (0.45, 0.02), (0.55, 0.02), (0.92, 1.0)], [(0.2, 0.58), (0.84, 0.56)]],
        [[(0.04, 1.0), (0.5, 0.0)], [(0.5, 0.0), (0.96, 1.0)], [(0.15, 0.66), (0.88, 0.6)]],
    ],
    'M': [
        [[(0.04, 1.0), (0.12, 0.0), (0.5, 0.72), (0.88, 0.0), (0.96, 1.0)]],
        [[(0.08, 1.0), (0.08, 0.0), (0.5, 0.95), (0.92, 0.0), (0.92, 1.0)]],
        [[(0.08, 1.0), (0.08, 0.0)], [(0.08, 0.0), (0.5, 0.7), (0.92, 0.0)], [(0.92, 0.0), (0.92, 1.0)]],
    ],
    'J': [
        [[(0.72, 0.0), (0.72, 0.72)] + arc(0.44, 0.72, 0.28, 0.28, 0, 170)],
        [[(0.3, 0.0), (0.98, 0.0)], [(0.66, 0.0), (0.66, 0.72)] + arc(0.38, 0.72, 0.28, 0.28, 0, 175)],
    ],
    'N': [
        [[(0.1, 1.0), (0.1, 0.0), (0.9, 1.0), (0.9, 0.0)]],
        [[(0.1, 1.0), (0.1, 0.0)], [(0.1, 0.0), (0.9, 1.0), (0.9, 0.0)]],
    ],
    'c': [[arc(0.5, 0.5, 0.45, 0.5, 315, 45)], [arc(0.5, 0.5, 0.45, 0.5, 300, 60)]],
    's': [_s_shape(0.9)],
    'p': [
        [[(0.15, 0.0), (0.15, 1.5)], arc(0.48, 0.5, 0.34, 0.47, 210, 510)],
        [[(0.15, 0.05), (0.15, 1.5), (0.15, 0.25)] + arc(0.48, 0.47, 0.34, 0.45, 200, 505)],
    ],
    'a': [
        [arc(0.42, 0.5, 0.35, 0.48, 330, -30), [(0.8, 0.02), (0.8, 0.9), (0.92, 1.0)]],
        [arc(0.42, 0.5, 0.35, 0.48, 330, -25) + [(0.8, 0.0), (0.8, 1.0)]],
        [arc(0.48, 0.3, 0.32, 0.3, 200, 360) + [(0.8, 0.95), (0.92, 1.0)],
         [(0.8, 0.5)] + arc(0.5, 0.73, 0.3, 0.27, 270, 100) + [(0.8, 0.85)]],
    ],
    'm': [
        [[(0.06, 0.0), (0.06, 1.0), (0.06, 0.3)] + arc(0.28, 0.35, 0.22, 0.33, 180, 360) +
         [(0.5, 1.0), (0.5, 0.35)] + arc(0.72, 0.35, 0.22, 0.33, 180, 360) + [(0.94, 1.0)]],
        [[(0.06, 0.0), (0.06, 1.0)], arc(0.28, 0.4, 0.22, 0.38, 200, 360) + [(0.5, 1.0)],
         arc(0.72, 0.4, 0.22, 0.38, 200, 360) + [(0.94, 1.0)]],
    ],
    'j': [
        [[(0.62, 0.0), (0.62, 1.1)] + arc(0.37, 1.1, 0.25, 0.3, 0, 165), [(0.62, -0.32), (0.63, -0.27)]],
        [[(0.4, 0.0), (0.62, 0.0), (0.62, 1.15)] + arc(0.35, 1.15, 0.27, 0.28, 0, 170),
         [(0.62, -0.34), (0.64, -0.3)]],
    ],
    'n': [
        [[(0.1, 0.0), (0.1, 1.0), (0.1, 0.35)] + arc(0.5, 0.38, 0.4, 0.36, 190, 360) + [(0.9, 1.0)]],
        [[(0.1, 0.0), (0.1, 1.0)], arc(0.5, 0.42, 0.4, 0.4, 200, 360) + [(0.9, 1.0)]],
    ],
}


def skeleton(ch, variant):
    vs = SKEL[ch]
    strokes = [np.array(s, dtype=np.float64) for s in vs[variant % len(vs)]]
    allp = np.vstack(strokes)
    lo, hi = allp.min(0), allp.max(0)
    h = max(hi[1] - lo[1], 1e-6)
    w = hi[0] - lo[0]
    # normalise: height 1, centred at 0
    return [(s - (lo + hi) / 2) / h for s in strokes], w / h


# ---------------------------------------------------------------- fonts
_font_cache = {}
_thick_cache = {}


def _font(name, size):
    key = (name, size)
    f = _font_cache.get(key)
    if f is None:
        f = ImageFont.truetype(os.path.join(FONT_DIR, name + '.woff'), size)
        _font_cache[key] = f
    return f


def font_thickness(name):
    """typical stroke thickness of the font at size 100 (px)."""
    t = _thick_cache.get(name)
    if t is None:
        import cv2
        f = _font(name, 100)
        im = Image.new('L', (160, 160), 0)
        ImageDraw.Draw(im).text((20, 10), 'n', fill=255, font=f)
        a = (np.array(im) > 127).astype(np.uint8)
        d = cv2.distanceTransform(a, cv2.DIST_L2, 3)
        t = float(2 * np.percentile(d[d > 0], 90)) if (d > 0).any() else 6.0
        _thick_cache[name] = t
    return t


def font_mask(name, ch, height_px, pen_px):
    """glyph mask (float32 0..1) whose ink bbox is height_px tall, strokes ~pen_px thick."""
    f = _font(name, 100)

    def rend(sw):
        im = Image.new('L', (300, 300), 0)
        ImageDraw.Draw(im).text((70, 50), ch, fill=255, font=f, stroke_width=sw, stroke_fill=255)
        a = np.asarray(im)
        ys, xs = np.nonzero(a > 40)
        if len(ys) == 0:
            return None
        return a[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    a = rend(0)
    if a is None:
        return None
    scale = height_px / max(a.shape[0], 1)
    want = pen_px / max(scale, 1e-3)  # wanted thickness in font pixels
    sw = int(max(0, round((want - font_thickness(name)) / 2)))
    if sw > 0:
        a = rend(min(sw, 9))
    return a.astype(np.float32) / 255.0
