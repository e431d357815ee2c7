"""Hand-drawn symbols for synthetic city boards: walls, crates, houses, churches, persons.

Every symbol is drawn as ink strokes into a uint8 mask (0..255) for one cell; ``board.py`` composites
the masks onto the board art in the hand's marker colour. A ``Hand`` fixes one player's habits
(colour, stroke width, wobble, slant, which wall/crate/church style, which letter shapes), so that one
board looks like one person drew it, and many hands give the classifier its variety.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

# Dry-erase marker colours, BGR.
INK_COLOURS: dict[str, tuple[int, int, int]] = {
    "black": (40, 35, 30),
    "blue": (150, 60, 20),
    "red": (40, 40, 190),
    "green": (60, 120, 30),
    "purple": (120, 40, 110),
}

# Hershey fonts (cv2.putText) give "printed" looking letters; the stroke font below gives handwriting.
HERSHEY_FONTS: tuple[int, ...] = (
    cv2.FONT_HERSHEY_SIMPLEX,
    cv2.FONT_HERSHEY_PLAIN,
    cv2.FONT_HERSHEY_DUPLEX,
    cv2.FONT_HERSHEY_COMPLEX,
    cv2.FONT_HERSHEY_TRIPLEX,
    cv2.FONT_HERSHEY_SCRIPT_SIMPLEX,
)

Strokes = list[np.ndarray]  # polylines, points in a unit box (x right, y down)


def _arc(cx: float, cy: float, rx: float, ry: float, a0: float, a1: float, n: int = 14) -> np.ndarray:
    t = np.radians(np.linspace(a0, a1, n))
    return np.stack([cx + rx * np.cos(t), cy + ry * np.sin(t)], axis=1)


def _pts(*xy: float) -> np.ndarray:
    return np.asarray(xy, dtype=np.float64).reshape(-1, 2)


def _smooth(points: np.ndarray, rounds: int = 2) -> np.ndarray:
    """Chaikin corner cutting: a few angular points become a handwritten curve."""
    for _ in range(rounds):
        if len(points) < 3:
            return points
        q = 0.75 * points[:-1] + 0.25 * points[1:]
        r = 0.25 * points[:-1] + 0.75 * points[1:]
        mid = np.empty((2 * len(q), 2))
        mid[0::2], mid[1::2] = q, r
        points = np.vstack([points[:1], mid, points[-1:]])
    return points


# Stroke glyphs in a unit box, two variants each where handwriting commonly differs.
GLYPHS: dict[str, list[Strokes]] = {
    "C": [[_arc(0.55, 0.5, 0.45, 0.5, 40, 320)], [_arc(0.55, 0.5, 0.42, 0.5, 55, 300)]],
    "S": [
        [_smooth(_pts(0.85, 0.15, 0.5, 0.0, 0.15, 0.2, 0.3, 0.42, 0.7, 0.58, 0.85, 0.8, 0.5, 1.0, 0.12, 0.85))],
        [_smooth(_pts(0.8, 0.1, 0.45, 0.0, 0.2, 0.25, 0.5, 0.5, 0.8, 0.7, 0.6, 1.0, 0.15, 0.9), 3)],
    ],
    "P": [
        [_pts(0.2, 1.0, 0.2, 0.0), _smooth(_pts(0.2, 0.0, 0.7, 0.02, 0.85, 0.25, 0.7, 0.5, 0.2, 0.52))],
        [_smooth(_pts(0.25, 1.0, 0.22, 0.0, 0.75, 0.05, 0.8, 0.35, 0.55, 0.55, 0.22, 0.5))],
    ],
    "A": [
        [_pts(0.0, 1.0, 0.5, 0.0, 1.0, 1.0), _pts(0.25, 0.6, 0.75, 0.6)],
        [_pts(0.05, 1.0, 0.45, 0.0, 0.55, 0.0, 0.95, 1.0), _pts(0.2, 0.65, 0.8, 0.62)],
    ],
    "M": [
        [_pts(0.0, 1.0, 0.05, 0.0, 0.5, 0.65, 0.95, 0.0, 1.0, 1.0)],
        [_pts(0.05, 1.0, 0.1, 0.0, 0.5, 0.9, 0.9, 0.0, 0.95, 1.0)],
    ],
    "J": [
        [_pts(0.25, 0.0, 0.95, 0.0), _smooth(_pts(0.65, 0.0, 0.65, 0.8, 0.5, 1.0, 0.25, 1.0, 0.1, 0.75))],
        [_smooth(_pts(0.7, 0.0, 0.7, 0.85, 0.45, 1.0, 0.15, 0.8))],
    ],
    "G": [
        [_arc(0.55, 0.5, 0.45, 0.5, 40, 330), _pts(0.95, 0.55, 0.55, 0.55, 0.95, 0.55, 0.95, 0.9)],
        [_smooth(np.vstack([_arc(0.55, 0.5, 0.45, 0.5, 30, 360), _pts(0.6, 0.5)]), 1)],
    ],
    "N": [
        [_pts(0.1, 1.0, 0.1, 0.0, 0.9, 1.0, 0.9, 0.0)],
        [_pts(0.05, 1.0, 0.12, 0.0, 0.85, 0.95, 0.95, 0.0)],
    ],
    "1": [[_pts(0.25, 0.25, 0.55, 0.0, 0.55, 1.0)], [_pts(0.3, 0.2, 0.55, 0.0, 0.55, 1.0), _pts(0.3, 1.0, 0.8, 1.0)]],
    "2": [
        [_smooth(_pts(0.12, 0.25, 0.35, 0.0, 0.75, 0.02, 0.85, 0.3, 0.5, 0.65, 0.12, 1.0)), _pts(0.12, 1.0, 0.9, 1.0)],
        [_smooth(_pts(0.15, 0.2, 0.5, 0.0, 0.85, 0.2, 0.7, 0.55, 0.1, 1.0, 0.9, 0.98), 1)],
    ],
    "3": [
        [_smooth(_pts(0.12, 0.1, 0.5, 0.0, 0.82, 0.18, 0.7, 0.42, 0.4, 0.48, 0.8, 0.6, 0.85, 0.85, 0.5, 1.0, 0.1, 0.9))],
        [_pts(0.15, 0.0, 0.85, 0.0, 0.45, 0.42), _smooth(_pts(0.45, 0.42, 0.85, 0.6, 0.8, 0.92, 0.45, 1.0, 0.12, 0.88))],
    ],
    "4": [
        [_pts(0.65, 1.0, 0.65, 0.0, 0.08, 0.68, 0.92, 0.68)],
        [_pts(0.35, 0.0, 0.12, 0.62, 0.92, 0.62), _pts(0.68, 0.3, 0.68, 1.0)],
    ],
    "5": [
        [_pts(0.85, 0.0, 0.25, 0.0, 0.2, 0.45), _smooth(_pts(0.2, 0.45, 0.6, 0.38, 0.88, 0.62, 0.8, 0.92, 0.45, 1.0, 0.12, 0.88))],
        [_pts(0.25, 0.0, 0.2, 0.45), _pts(0.25, 0.02, 0.85, 0.0), _smooth(_pts(0.2, 0.45, 0.75, 0.45, 0.85, 0.75, 0.55, 1.0, 0.1, 0.9))],
    ],
}


def _marker_colour(rng: np.random.Generator, weights: tuple[float, ...]) -> tuple[int, int, int]:
    """One marker's ink: the first ``len(weights)`` of INK_COLOURS, so weighted, a little off its colour."""
    name = str(rng.choice(list(INK_COLOURS)[:len(weights)], p=list(weights)))
    base = np.asarray(INK_COLOURS[name], dtype=np.float64)
    b, g, r = (int(v) for v in np.clip(base + rng.normal(0, 12, 3), 0, 255))
    return b, g, r


@dataclass(frozen=True)
class Hand:
    """One player's drawing habits. ``Hand.random(rng)`` gives a fresh plausible hand."""

    colour: tuple[int, int, int] = INK_COLOURS["black"]
    stroke: float = 0.045  # stroke width, fraction of a cell
    wobble: float = 0.02  # point jitter, fraction of a cell
    slant: float = 0.0  # shear of glyphs
    size: float = 0.75  # symbol extent, fraction of a cell
    wall_style: int = 0  # 0 bricks, 1 hatched band, 2 cross-hatched, 3 battlements, 4 stones (odd)
    crate_style: int = 0  # 0 box with cross, 1 planks, 2 box with one diagonal, 3 3-D box
    church_style: int = 0  # 0 church outline with the digit, 1 cross and digit, 2 digit in a square
    house_style: int = 0  # 0 square + roof, 1 roof + door, 2 filled roof, 3 tent (odd)
    font: int = -1  # -1: stroke font (handwriting); else an index into HERSHEY_FONTS
    glyph_variant: int = 0
    opacity: float = 0.9
    family: str = ""  # the ``vision.synth.hands`` family this hand belongs to ('' for a hand made by hand)
    letter_font: str = ""  # the path of a font file for letters and digits ('' none)
    font_weight: int = 0  # extra stroke width of ``letter_font``'s letters (a broad marker)
    lowercase: float = 0.0  # share of persons written in lower case
    circle_style: int = 0  # 0 closed round, 1 open, 2 oval, 3 loose overlapping loop
    pressure: float = 0.0  # how much the pen's width varies along a stroke
    # A font's letters written with this hand's marker (``hands.marker_glyph``: no stroke thinner than the pen)
    # rather than as the font draws them, hairlines and all.
    marker_letters: bool = False
    # How wide this hand writes letters and digits against the font's own proportions (under 1 narrow, over 1
    # wide): people write condensed or broad whatever font their hand resembles. Only training draws it
    # (``dataset.photographed_board``'s ``letter_widths``); OpenCV's Hershey letters keep their width.
    letter_width: float = 1.0
    # How long this hand's '1' flag is, a fraction of the digit's height (0: the 1 as its letters' source writes
    # it). Much of Europe writes the 1 with a long up-stroke, nearly as long as the stem (a '1' like a roof, '^'),
    # which few fonts draw; only the training pools' hands write it so (``HandFamily.flagged_ones``).
    flagged_one: float = 0.0

    @property
    def letter_source(self) -> str:
        """Where this hand's letters and digits come from, by name: a font file's name, ``hershey:N`` or
        ``strokes`` (``bench_hands --by-font`` groups misreads by it)."""
        if self.letter_font:
            return Path(self.letter_font).stem
        return f"hershey:{self.font}" if self.font >= 0 else "strokes"

    @classmethod
    def _classic(cls, rng: np.random.Generator) -> Hand:
        """The generator's first hands (stroke and Hershey letters, four styles a symbol)."""
        return cls(
            colour=_marker_colour(rng, (0.45, 0.25, 0.15, 0.15)),
            stroke=float(rng.uniform(0.025, 0.075)),
            wobble=float(rng.uniform(0.0, 0.035)),
            slant=float(rng.uniform(-0.25, 0.25)),
            size=float(rng.uniform(0.55, 0.8)),
            wall_style=int(rng.integers(4)),
            crate_style=int(rng.integers(4)),
            church_style=int(rng.integers(3)),
            house_style=int(rng.integers(3)),
            font=int(rng.integers(-1, len(HERSHEY_FONTS))) if rng.random() < 0.45 else -1,
            glyph_variant=int(rng.integers(2)),
            opacity=float(rng.uniform(0.75, 1.0)),
        )

    @classmethod
    def random(cls, rng: np.random.Generator, family: str | None = None,
               families: tuple[str, ...] | None = None) -> Hand:
        """A fresh plausible hand of ``family``, else of one of ``families`` (default: all of them)."""
        from vision.synth.hands import FAMILY_NAMES, font_path
        from vision.synth.hands import family as family_named

        if family is None and families is None:
            return cls._classic(rng)
        if family is None:
            pool = families or FAMILY_NAMES
            family = str(pool[int(rng.integers(len(pool)))])
        fam = family_named(family)
        colour = _marker_colour(rng, (0.42, 0.25, 0.13, 0.13, 0.07))
        letters = str(fam.letters[int(rng.integers(len(fam.letters)))])
        path = font_path(letters)
        if path is not None and not path.is_file():
            letters = "strokes"  # the font package is missing here: the family's pen still draws
            path = None

        def pick(styles: tuple[int, ...]) -> int:
            return int(styles[int(rng.integers(len(styles)))])

        hand = cls(
            colour=colour,
            stroke=float(rng.uniform(*fam.stroke)),
            wobble=float(rng.uniform(*fam.wobble)),
            slant=float(rng.uniform(*fam.slant)),
            size=float(rng.uniform(*fam.size)),
            wall_style=pick(fam.walls),
            crate_style=pick(fam.crates),
            church_style=pick(fam.churches),
            house_style=pick(fam.houses),
            font=int(letters.split(":")[1]) if letters.startswith("hershey:") else -1,
            glyph_variant=int(rng.integers(2)),
            opacity=float(rng.uniform(0.75, 1.0)),
            family=fam.name,
            letter_font=str(path) if path is not None else "",
            font_weight=int(rng.integers(0, 5)),
            lowercase=fam.lowercase,
            circle_style=pick(fam.circles),
            pressure=float(rng.uniform(*fam.pressure)),
        )
        if fam.flagged_ones > 0 and rng.random() < fam.flagged_ones:
            # Drawn after every other trait, and only for a family that writes such 1s (the training pools): the
            # families' hands (what the benchmarks draw) come out of the same draws as before.
            hand = replace(hand, flagged_one=float(rng.uniform(0.45, 0.95)))
        return hand


class CellPen:
    """Draws strokes into a mask for a cell whose top-left is (x0, y0) and side ``px`` pixels."""

    SHIFT = 4  # sub-pixel bits for cv2 drawing

    def __init__(self, mask: np.ndarray, x0: float, y0: float, px: float, hand: Hand,
                 rng: np.random.Generator) -> None:
        self.mask, self.x0, self.y0, self.px, self.hand, self.rng = mask, x0, y0, px, hand, rng
        self.width = max(1, int(round(hand.stroke * px * rng.uniform(0.85, 1.15))))
        # A per-symbol affine: small rotation, scale and offset around the cell centre.
        angle = np.radians(rng.normal(0, 5))
        scale = hand.size * rng.uniform(0.9, 1.08)
        c, s = np.cos(angle) * scale, np.sin(angle) * scale
        self.affine = np.array([[c, -s + hand.slant * scale], [s, c]])
        self.offset = np.array([0.5, 0.5]) + rng.normal(0, 0.03, 2)
        self.wobble_scale = 1.0  # ``letter_wobble`` shrinks it to the size of the letter being written

    def to_px(self, unit_pts: np.ndarray) -> np.ndarray:
        """Unit-box points (0..1, centred at 0.5) to cell pixels, with the hand's wobble."""
        p = (unit_pts - 0.5) @ self.affine.T + self.offset
        if self.hand.wobble > 0:
            noise = self.rng.normal(0, self.hand.wobble * self.wobble_scale, p.shape)
            if len(p) > 6:  # dense curves wobble smoothly, not in a zig-zag
                kernel = np.ones(5) / np.sqrt(5)
                noise = np.stack([np.convolve(noise[:, k], kernel, mode="same") for k in range(2)], axis=1)
            p = p + noise
        return np.stack([self.x0 + p[:, 0] * self.px, self.y0 + p[:, 1] * self.px], axis=1)

    def line(self, pts: np.ndarray, closed: bool = False, value: int = 255) -> None:
        pix = np.round(self.to_px(pts) * (1 << self.SHIFT)).astype(np.int32)
        if self.hand.pressure <= 0 or len(pix) < 2:
            cv2.polylines(self.mask, [pix], closed, value, self.width, cv2.LINE_AA, self.SHIFT)
            return
        # Pressure: the width swells and thins along the stroke, segment by segment.
        if closed:
            pix = np.vstack([pix, pix[:1]])
        drift = np.cumsum(self.rng.normal(0, self.hand.pressure, len(pix) - 1))
        drift = np.clip(drift, -1.5 * self.hand.pressure, 1.5 * self.hand.pressure)
        for k in range(len(pix) - 1):
            width = max(1, int(round(self.width * (1.0 + drift[k]))))
            cv2.line(self.mask, tuple(int(v) for v in pix[k]), tuple(int(v) for v in pix[k + 1]), value, width,
                     cv2.LINE_AA, self.SHIFT)

    def fill(self, pts: np.ndarray, value: int = 255) -> None:
        pix = np.round(self.to_px(pts) * (1 << self.SHIFT)).astype(np.int32)
        cv2.fillPoly(self.mask, [pix], value, cv2.LINE_AA, self.SHIFT)

    def glyph(self, char: str, box: tuple[float, float, float, float]) -> None:
        """A letter or digit inside ``box`` = (x, y, w, h) in unit coordinates."""
        x, y, w, h = box
        if char == "1" and self.hand.flagged_one > 0:
            self._flagged_one(box)
            return
        if self.hand.letter_font:
            from vision.synth.hands import GLYPH_RENDER_PX, MARKER_STEP_PX, font_glyph, marker_glyph

            ink = font_glyph(self.hand.letter_font, char, self.hand.font_weight)
            if ink is not None:
                if self.hand.marker_letters:
                    # Written with the hand's marker: its width in the font's pixels (cell pixels a font pixel:
                    # the letter's ink fitted into the box, at the symbol's size).
                    gh, gw = ink.shape
                    cell_px_per_font_px = min(w / gw, h / gh) * self.hand.size * self.px
                    pen = min(self.width / max(cell_px_per_font_px, 1e-6), 0.3 * GLYPH_RENDER_PX)
                    marked = marker_glyph(self.hand.letter_font, char, self.hand.font_weight,
                                          int(round(pen / MARKER_STEP_PX)) * MARKER_STEP_PX)
                    ink = ink if marked is None else marked
                self._font_glyph(ink, box)
                return
        if self.hand.font >= 0:
            self._hershey(char, box)
            return
        char = char.upper()  # the stroke font writes capitals only
        variants = GLYPHS[char]
        if self.hand.letter_width != 1.0:
            x, w = x + w * (1.0 - self.hand.letter_width) / 2, w * self.hand.letter_width
        with self.letter_wobble(w, h):
            for stroke in variants[self.hand.glyph_variant % len(variants)]:
                self.line(np.stack([x + stroke[:, 0] * w, y + stroke[:, 1] * h], axis=1))

    @contextmanager
    def letter_wobble(self, w: float, h: float) -> Iterator[None]:
        """The hand's wobble scaled to a letter of ``w`` x ``h`` (unit box) while it is written. A hand's tremor is
        relative to what it draws: writing a letter half the symbol's height, the pen wanders half as far. A
        cell-sized wobble on a small letter moved M's middle point by a quarter of its height and made M, N, J,
        S, 3 and 5 unreadable to a person too."""
        before, self.wobble_scale = self.wobble_scale, max(w, h)
        try:
            yield
        finally:
            self.wobble_scale = before

    def _flagged_one(self, box: tuple[float, float, float, float]) -> None:
        """A '1' with a long flag (``Hand.flagged_one`` of its height), in this hand's pen: the up-stroke from low on
        the left to the top, then the stem down, leaning a little."""
        x, y, w, h = box
        top = np.array([x + 0.62 * w, y])
        foot = np.array([x + 0.55 * w + self.rng.uniform(-0.08, 0.08) * w, y + h])
        angle = np.radians(self.rng.uniform(30.0, 55.0))  # the flag's angle from the stem
        reach = self.hand.flagged_one * h
        start = top + reach * np.array([-np.sin(angle), np.cos(angle)])
        start[0] = max(start[0], x - 0.25 * w)  # a flag too wide for the box is drawn steeper
        with self.letter_wobble(w, h):
            self.line(np.stack([start, top, foot]))

    def _font_glyph(self, ink: np.ndarray, box: tuple[float, float, float, float]) -> None:
        """A font's letter fitted into ``box`` (keeping its proportions), through the symbol's affine."""
        from vision.synth.hands import warp_glyph_into

        x, y, w, h = box
        gh, gw = ink.shape
        wide = gw * self.hand.letter_width  # the letter as this hand's proportions make it
        scale = min(w / wide, h / gh)
        uw, uh = wide * scale, gh * scale
        ux, uy = x + (w - uw) / 2, y + (h - uh) / 2
        with self.letter_wobble(w, h):
            corners = self.to_px(np.array([[ux, uy], [ux + uw, uy], [ux, uy + uh]]))
        warp_glyph_into(self.mask, ink, corners, area_average=self.hand.marker_letters)

    def _hershey(self, char: str, box: tuple[float, float, float, float]) -> None:
        x, y, w, h = box
        font = HERSHEY_FONTS[self.hand.font % len(HERSHEY_FONTS)]
        thick = max(1, self.width)
        (tw, th), _ = cv2.getTextSize(char, font, 1.0, thick)
        target_h = h * self.px * self.hand.size / 0.75
        scale = max(0.2, target_h / max(th, 1))
        (tw, th), _ = cv2.getTextSize(char, font, scale, thick)
        centre = self.to_px(np.array([[x + w / 2, y + h / 2]]))[0]
        org = (int(round(centre[0] - tw / 2)), int(round(centre[1] + th / 2)))
        cv2.putText(self.mask, char, org, font, scale, 255, thick, cv2.LINE_AA)


def draw_wall(pen: CellPen) -> None:
    style = pen.hand.wall_style
    top, bot = 0.12, 0.88
    if style == 0:  # bricks: courses with staggered joints
        rows = int(pen.rng.integers(3, 5))
        ys = np.linspace(top, bot, rows + 1)
        pen.line(_pts(0.05, top, 0.95, top, 0.95, bot, 0.05, bot), closed=True)
        for yy in ys[1:-1]:
            pen.line(_pts(0.05, yy, 0.95, yy))
        for i in range(rows):
            xs = (0.35, 0.7) if i % 2 == 0 else (0.2, 0.5, 0.8)
            for xx in xs:
                pen.line(_pts(xx, ys[i], xx, ys[i + 1]))
    elif style == 1:  # hatched band
        pen.line(_pts(0.05, 0.25, 0.95, 0.25))
        pen.line(_pts(0.05, 0.75, 0.95, 0.75))
        for xx in np.linspace(0.0, 0.85, 7):
            pen.line(_pts(xx, 0.75, xx + 0.2, 0.25))
    elif style == 2:  # cross-hatched block
        pen.line(_pts(0.08, top, 0.92, top, 0.92, bot, 0.08, bot), closed=True)
        for t in np.linspace(0.1, 0.9, 5):
            pen.line(_pts(0.08, t, 0.92, t))
        for t in np.linspace(0.2, 0.8, 4):
            pen.line(_pts(t, top, t, bot))
    elif style == 5:  # a solid band: coloured in, or scribbled back and forth until it looks solid
        band_top, band_bot = float(pen.rng.uniform(0.12, 0.3)), float(pen.rng.uniform(0.7, 0.88))
        if pen.rng.random() < 0.5:
            pen.fill(_pts(0.05, band_top, 0.95, band_top, 0.95, band_bot, 0.05, band_bot))
        else:
            n = int(pen.rng.integers(6, 10))
            xs = np.linspace(0.06, 0.94, n)
            zig = [v for i, xx in enumerate(xs) for v in (xx, band_top if i % 2 == 0 else band_bot)]
            pen.line(_pts(*zig))
            pen.line(_pts(0.05, band_top, 0.95, band_top, 0.95, band_bot, 0.05, band_bot), closed=True)
    elif style == 6:  # a zigzag (or two) across the cell, sometimes between two rails
        rows = int(pen.rng.integers(1, 3))
        peaks = int(pen.rng.integers(4, 8))
        for r in range(rows):
            lo, hi = (0.2, 0.8) if rows == 1 else ((0.12, 0.48) if r == 0 else (0.52, 0.88))
            xs = np.linspace(0.05, 0.95, 2 * peaks + 1)
            pen.line(_pts(*[v for i, xx in enumerate(xs) for v in (xx, hi if i % 2 == 0 else lo)]))
        if pen.rng.random() < 0.5:
            pen.line(_pts(0.05, 0.12, 0.95, 0.12))
            pen.line(_pts(0.05, 0.88, 0.95, 0.88))
    elif style == 4:  # stones: two rows of round stones
        for yy in (0.3, 0.7):
            for xx in np.linspace(0.15, 0.85, 4):
                pen.line(_arc(xx + (0.06 if yy > 0.5 else 0.0), yy, 0.1, 0.13, 0, 360, 12), closed=True)
    else:  # battlement band (crenellated top)
        pts = [0.05, 0.3]
        for i, xx in enumerate(np.linspace(0.05, 0.95, 7)):
            yy = 0.12 if i % 2 else 0.3
            pts += [xx, yy, xx + 0.15, yy] if xx + 0.15 <= 0.95 else [0.95, yy]
        pen.line(_pts(*pts, 0.95, 0.88, 0.05, 0.88, 0.05, 0.3))
        pen.line(_pts(0.05, 0.6, 0.95, 0.6))
        pen.line(_pts(0.5, 0.3, 0.5, 0.6))
        pen.line(_pts(0.3, 0.6, 0.3, 0.88))
        pen.line(_pts(0.7, 0.6, 0.7, 0.88))


def draw_crate(pen: CellPen) -> None:
    style = pen.hand.crate_style
    if style == 5:  # a flat rectangle with a cross
        top, bot = float(pen.rng.uniform(0.22, 0.32)), float(pen.rng.uniform(0.68, 0.78))
        pen.line(_pts(0.08, top, 0.92, top, 0.92, bot, 0.08, bot), closed=True)
        pen.line(_pts(0.08, top, 0.92, bot))
        pen.line(_pts(0.92, top, 0.08, bot))
        return
    box = _pts(0.12, 0.15, 0.88, 0.15, 0.88, 0.85, 0.12, 0.85)
    pen.line(box, closed=True)
    if style == 4:  # a bare box
        return
    if style == 0:
        pen.line(_pts(0.12, 0.15, 0.88, 0.85))
        pen.line(_pts(0.88, 0.15, 0.12, 0.85))
    elif style == 1:
        for yy in (0.38, 0.62):
            pen.line(_pts(0.12, yy, 0.88, yy))
    elif style == 2:
        pen.line(_pts(0.12, 0.85, 0.88, 0.15))
        pen.line(_pts(0.12, 0.5, 0.88, 0.5))
    else:  # a box in perspective
        pen.line(_pts(0.12, 0.15, 0.3, 0.02, 0.98, 0.02, 0.88, 0.15))
        pen.line(_pts(0.98, 0.02, 0.98, 0.7, 0.88, 0.85))
        pen.line(_pts(0.12, 0.5, 0.88, 0.5))


def draw_house(pen: CellPen) -> None:
    style = pen.hand.house_style
    if style == 3:  # a tent-like outline with a chimney
        pen.line(_pts(0.05, 0.95, 0.5, 0.1, 0.95, 0.95, 0.05, 0.95))
        pen.line(_pts(0.7, 0.45, 0.7, 0.15, 0.8, 0.15, 0.8, 0.62))
        return
    if style == 4:  # the outline in one stroke: a pentagon
        pen.line(_pts(0.18, 0.95, 0.18, 0.45, 0.5, 0.08, 0.82, 0.45, 0.82, 0.95), closed=True)
        return
    if style == 5:  # square, roof and a window
        pen.line(_pts(0.2, 0.45, 0.2, 0.95, 0.8, 0.95, 0.8, 0.45), closed=True)
        pen.line(_pts(0.12, 0.5, 0.5, 0.08, 0.88, 0.5))
        pen.line(_pts(0.36, 0.58, 0.56, 0.58, 0.56, 0.76, 0.36, 0.76), closed=True)
        return
    pen.line(_pts(0.2, 0.45, 0.2, 0.95, 0.8, 0.95, 0.8, 0.45), closed=False)
    roof = _pts(0.08, 0.5, 0.5, 0.05, 0.92, 0.5)
    if style == 2:
        pen.fill(np.vstack([roof, _pts(0.08, 0.5)]))
    else:
        pen.line(np.vstack([roof, _pts(0.08, 0.5)]) if style == 0 else roof)
    if style == 1:  # a door
        pen.line(_pts(0.42, 0.95, 0.42, 0.7, 0.58, 0.7, 0.58, 0.95))


def draw_church(pen: CellPen, size: int) -> None:
    style = pen.hand.church_style
    digit = str(size)
    if style == 0:  # church: nave with a cross on top, the size written in the nave
        pen.line(_pts(0.08, 0.32, 0.08, 1.0, 0.92, 1.0, 0.92, 0.32, 0.5, 0.14, 0.08, 0.32))
        pen.line(_pts(0.5, 0.14, 0.5, -0.05))
        pen.line(_pts(0.4, 0.03, 0.6, 0.03))
        pen.glyph(digit, (0.25, 0.36, 0.5, 0.6))
    elif style == 1:  # a cross with the size beside it
        pen.line(_pts(0.18, 0.0, 0.18, 0.75))
        pen.line(_pts(0.0, 0.22, 0.36, 0.22))
        pen.glyph(digit, (0.45, 0.12, 0.5, 0.82))
    elif style == 3:  # the digit in a box, nothing else
        pen.line(_pts(0.05, 0.05, 0.95, 0.05, 0.95, 0.95, 0.05, 0.95), closed=True)
        pen.glyph(digit, (0.27, 0.17, 0.46, 0.66))
    elif style == 4:  # a small cross over the digit, no frame
        pen.line(_pts(0.5, 0.0, 0.5, 0.3))
        pen.line(_pts(0.38, 0.1, 0.62, 0.1))
        pen.glyph(digit, (0.28, 0.36, 0.44, 0.62))
    elif style == 5:  # the digit with a cross after it
        pen.glyph(digit, (0.08, 0.15, 0.45, 0.75))
        pen.line(_pts(0.75, 0.15, 0.75, 0.85))
        pen.line(_pts(0.58, 0.38, 0.92, 0.38))
    else:  # a cross above the digit, in a frame
        pen.line(_pts(0.0, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0), closed=True)
        pen.line(_pts(0.17, 0.08, 0.17, 0.42))
        pen.line(_pts(0.06, 0.2, 0.28, 0.2))
        pen.glyph(digit, (0.35, 0.15, 0.5, 0.75))


def draw_church_bitmap(pen: CellPen, digit_img: np.ndarray) -> None:
    """A church whose size is a real handwritten digit (an 8x8 ``load_digits`` image, 0..16)."""
    pen.line(_pts(0.28, 0.05, 0.28, 0.95)) if pen.hand.church_style == 1 else pen.line(
        _pts(0.1, 0.1, 0.9, 0.1, 0.9, 0.95, 0.1, 0.95), closed=True
    )
    box = (0.55, 0.3, 0.4, 0.6) if pen.hand.church_style == 1 else (0.25, 0.22, 0.5, 0.65)
    x, y, w, h = box
    tl = pen.to_px(np.array([[x, y]]))[0]
    br = pen.to_px(np.array([[x + w, y + h]]))[0]
    x0, y0 = int(round(tl[0])), int(round(tl[1]))
    ww, hh = max(4, int(round(br[0] - tl[0]))), max(4, int(round(br[1] - tl[1])))
    glyph = cv2.resize((digit_img / 16.0).astype(np.float32), (ww, hh), interpolation=cv2.INTER_CUBIC)
    glyph = (np.clip(glyph * 1.3, 0, 1) * 255).astype(np.uint8)
    region = pen.mask[max(y0, 0):y0 + hh, max(x0, 0):x0 + ww]
    region[...] = np.maximum(region, glyph[: region.shape[0], : region.shape[1]])


def draw_person(pen: CellPen, letter: str) -> None:
    style = pen.hand.circle_style
    start = float(pen.rng.uniform(0, 360)) if style in (1, 3) else 0.0
    if style == 1:  # open: the pen lifts before the circle closes
        gap = float(pen.rng.uniform(25, 70))
        pen.line(_arc(0.5, 0.5, 0.47, 0.47, start, start + 360 - gap, 26))
    elif style == 2:  # an oval, wide or tall
        rx, ry = (0.47, float(pen.rng.uniform(0.33, 0.4))) if pen.rng.random() < 0.5 else (
            float(pen.rng.uniform(0.33, 0.4)), 0.47)
        pen.line(_arc(0.5, 0.5, rx, ry, 0, 360, 28), closed=True)
    elif style == 3:  # a loose loop whose ends overlap
        t = np.radians(np.linspace(start, start + float(pen.rng.uniform(380, 420)), 32))
        r = np.linspace(0.47, float(pen.rng.uniform(0.38, 0.44)), len(t))
        pen.line(np.stack([0.5 + r * np.cos(t), 0.5 + r * np.sin(t)], axis=1))
    else:
        pen.line(_arc(0.5, 0.5, 0.47, 0.47, 0, 360, 28), closed=True)
    if pen.hand.lowercase > 0 and pen.rng.random() < pen.hand.lowercase:
        letter = letter.lower()
    pen.glyph(letter, (0.3, 0.25, 0.4, 0.5))


def draw_ghost(pen: CellPen) -> None:
    """Half-erased remains of some symbol (an empty cell that was wiped)."""
    kind = int(pen.rng.integers(5))
    if kind == 0:
        draw_wall(pen)
    elif kind == 1:
        draw_crate(pen)
    elif kind == 2:
        draw_house(pen)
    elif kind == 3:
        draw_person(pen, str(pen.rng.choice(list("CSPAMJN"))))
    else:
        draw_church(pen, int(pen.rng.integers(1, 6)))


def draw_symbol(pen: CellPen, glyph_class: str) -> None:
    """Draw a glyph class: 'W', 'G', 'H', '1'..'5', or 'p' + letter for a person."""
    if glyph_class == "W":
        draw_wall(pen)
    elif glyph_class == "G":
        draw_crate(pen)
    elif glyph_class == "H":
        draw_house(pen)
    elif glyph_class in "12345":
        draw_church(pen, int(glyph_class))
    elif glyph_class.startswith("p") and len(glyph_class) == 2:
        draw_person(pen, glyph_class[1])
    elif glyph_class != ".":
        raise ValueError(f"unknown glyph class {glyph_class!r}")
